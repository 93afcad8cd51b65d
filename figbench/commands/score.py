"""``figbench score``: score prediction files without writing Python (light module: heavy imports lazily)."""

from __future__ import annotations

import argparse
import json

from figbench.bootstrap import DEFAULT_LEVEL, DEFAULT_RESAMPLES


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("score", help="score predictions against a key (e.g. CoNLL coreference files)",
                       description="Score prediction files against gold files.")
    p.set_defaults(_parser=p)
    ssub = p.add_subparsers(dest="score_command", metavar="SUBCOMMAND")
    cp = ssub.add_parser(
        "coref", help="CoNLL-2011/2012 key vs response: MUC, B-cubed, CEAF, BLANC, LEA, CoNLL F1",
        description="Score a CoNLL-2011/2012 response file against a key file, as the reference scorer v8.01 "
                    "(scorer.pl all) does, plus LEA and mention detection. Documents are matched by their "
                    "'#begin document' names.")
    cp.add_argument("key", help="key (gold) CoNLL file")
    cp.add_argument("response", help="response (system) CoNLL file")
    cp.add_argument("--remove-singletons", action="store_true", help="drop one-mention clusters on both sides")
    cp.add_argument("--per-document", action="store_true", help="also report every document's scores")
    cp.add_argument("--n-resamples", "--bootstrap", dest="bootstrap", type=int, default=DEFAULT_RESAMPLES, metavar="N",
                    help=f"percentile bootstrap confidence intervals from N resamples (default {DEFAULT_RESAMPLES}; "
                         "0 turns them off); documents are resampled, see the conll_coref card")
    cp.add_argument("--level", type=float, default=DEFAULT_LEVEL,
                    help=f"confidence level for --n-resamples ({DEFAULT_LEVEL})")
    cp.add_argument("--seed", type=int, default=0, help="bootstrap seed (0)")
    cp.add_argument("--json", action="store_true", help="print JSON instead of a table")
    cp.set_defaults(func=_coref)


def _coref(args: argparse.Namespace) -> int:
    from figbench.scoring.conll_io import aligned_documents, read_conll
    from figbench.scoring.coref import METRICS, bootstrap_coref, evaluate_coref

    key = read_conll(args.key)
    response = read_conll(args.response)
    if not key:
        raise ValueError(f"{args.key}: no '#begin document' blocks found")
    names, preds, refs = aligned_documents(key, response, key_source=args.key, response_source=args.response)
    result = evaluate_coref(preds, refs, remove_singletons=args.remove_singletons,
                            per_document=args.per_document, names=names)
    if args.bootstrap < 0:
        raise ValueError(f"--n-resamples must be >= 0 (0 turns intervals off), got {args.bootstrap}")
    if args.bootstrap:
        result["confidence_intervals"] = bootstrap_coref(
            preds, refs, n_resamples=args.bootstrap, level=args.level, seed=args.seed,
            remove_singletons=args.remove_singletons)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    ci = result.get("confidence_intervals", {})
    print(f"{len(names)} document(s); key {args.key}; response {args.response}")
    print(f"{'metric':10s} {'recall':>8s} {'precision':>10s} {'F1':>8s}")
    for m in METRICS:
        print(f"{m:10s} {100 * result[m + '_recall']:8.2f} {100 * result[m + '_precision']:10.2f} "
              f"{100 * result[m + '_f1']:8.2f}")
    print(f"{'conll_f1':10s} {'':8s} {'':10s} {100 * result['conll_f1']:8.2f}")
    if ci:
        print()
        print(interval_header(ci["conll_f1"], requested=args.bootstrap))
        for m in (*METRICS, "conll"):
            iv = ci[f"{m}_f1"]
            print(f"  {m:10s} [{100 * iv['low']:.2f}, {100 * iv['high']:.2f}]")
        for line in warning_lines({m: ci[f"{m}_f1"] for m in (*METRICS, "conll")}):
            print(line)
    if args.per_document:
        print()
        print(f"{'document':40s} {'MUC F1':>8s} {'B3 F1':>8s} {'CEAFe F1':>9s} {'CoNLL F1':>9s}")
        for doc in result["per_document"]:
            print(f"{doc['document'][:40]:40s} {100 * doc['muc_f1']:8.2f} {100 * doc['bcub_f1']:8.2f} "
                  f"{100 * doc['ceafe_f1']:9.2f} {100 * doc['conll_f1']:9.2f}")
    return 0


def interval_header(iv: dict, *, requested: int) -> str:
    """What the intervals are: the bootstrap as asked, or the jackknife that replaced it (and why not)."""
    level = f"{100 * iv['level']:g}%"
    if "jackknife" in iv["unit"]:
        unit = iv["unit"].replace(" (jackknife)", "")
        return (f"F1 {level} intervals: delete-a-group jackknife over {iv['n_units']} {unit} in {iv['n_resamples']} "
                f"groups, instead of the {requested} bootstrap resamples asked for (see the warning):")
    return f"F1 {level} bootstrap intervals ({iv['n_resamples']} resamples of {iv['n_units']} {iv['unit']}):"


def warning_lines(intervals: dict[str, dict]) -> list[str]:
    """The intervals' warnings, each statement once: what every interval shares on one line, then what
    applies to some metrics only, naming them."""
    parts = {m: [p for p in iv.get("warning", "").split("; ") if p] for m, iv in intervals.items()}
    if not any(parts.values()):
        return []
    shared = [p for p in next(iter(parts.values())) if all(p in ps for ps in parts.values())]
    lines = [f"WARNING (confidence intervals): {'; '.join(shared)}"] if shared else []
    by_text: dict[str, list[str]] = {}
    for m, ps in parts.items():
        for p in ps:
            if p not in shared:
                by_text.setdefault(p, []).append(m)
    lines += [f"WARNING ({', '.join(ms)} interval{'s' if len(ms) > 1 else ''}): {text}"
              for text, ms in by_text.items()]
    return lines
