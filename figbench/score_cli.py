"""``figbench score``: score prediction files without writing Python (light module: heavy imports lazily)."""

from __future__ import annotations

import argparse
import json


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
    cp.add_argument("--bootstrap", type=int, default=0, metavar="N",
                    help="add percentile bootstrap confidence intervals from N resamples")
    cp.add_argument("--level", type=float, default=0.95, help="confidence level for --bootstrap (0.95)")
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
    if args.bootstrap:
        result["confidence_intervals"] = bootstrap_coref(
            preds, refs, n_resamples=args.bootstrap, level=args.level, seed=args.seed,
            remove_singletons=args.remove_singletons)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    ci = result.get("confidence_intervals", {})
    print(f"{len(names)} document(s); key {args.key}; response {args.response}")
    print(f"{'metric':10s} {'recall':>8s} {'precision':>10s} {'F1':>8s}" + ("   F1 interval" if ci else ""))
    for m in METRICS:
        line = (f"{m:10s} {100 * result[m + '_recall']:8.2f} {100 * result[m + '_precision']:10.2f} "
                f"{100 * result[m + '_f1']:8.2f}")
        if ci:
            iv = ci[m + "_f1"]
            line += f"   [{100 * iv['low']:.2f}, {100 * iv['high']:.2f}]"
        print(line)
    line = f"{'conll_f1':10s} {'':8s} {'':10s} {100 * result['conll_f1']:8.2f}"
    if ci:
        iv = ci["conll_f1"]
        line += f"   [{100 * iv['low']:.2f}, {100 * iv['high']:.2f}]"
    print(line)
    if args.per_document:
        print()
        print(f"{'document':40s} {'MUC F1':>8s} {'B3 F1':>8s} {'CEAFe F1':>9s} {'CoNLL F1':>9s}")
        for doc in result["per_document"]:
            print(f"{doc['document'][:40]:40s} {100 * doc['muc_f1']:8.2f} {100 * doc['bcub_f1']:8.2f} "
                  f"{100 * doc['ceafe_f1']:9.2f} {100 * doc['conll_f1']:9.2f}")
    return 0
