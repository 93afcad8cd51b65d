"""``figbench generate metaphors`` end to end: source split -> prompts -> cached answers -> re-tag -> corpus."""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from pathlib import Path

from figbench.generate import folder
from figbench.generate.card import PAPER_COST_USD
from figbench.generate.run import EndpointDown, Settings, paraphrase
from figbench.generate.source import units_of

#: ``--prefill`` of a local model when none is given (an endpoint: none): ``inputs``, measured with SmolLM2-135M on
#: ECB+ dev_small (results/generation/: 6 of 10 answers usable against 1 of 16 with ``key`` and 0 of 32 without)
DEFAULT_PREFILL = "inputs"
#: settings that must match to resume into an existing folder
_SAME = ("dataset", "config", "split", "style", "model", "backend", "endpoint", "temperature", "max_tokens",
         "json_mode", "prefill", "options", "max_sentences")


def load_source(args: argparse.Namespace) -> list[dict]:
    from figbench.loading import builder_options, load_dataset

    options = builder_options(args.option)
    where = f"{args.dataset}/{args.config or '(default)'}/{args.split}"
    splits = load_dataset(args.dataset, args.config, data_dir=args.data_dir, **options)
    if args.split not in splits:
        raise ValueError(f"{where}: no such split (splits: {sorted(splits)})")
    return splits[args.split].to_list()


def run_metaphors(args: argparse.Namespace) -> dict:
    from figbench.llm import DiskCache, make_client, model_label

    out = Path(args.out)
    where = f"{args.dataset}/{args.config or '(default)'}/{args.split}"
    if not args.llm_model:
        if args.llm_endpoint:
            raise ValueError("--llm-endpoint needs --llm-model (the endpoint's model name)")
        from figbench.local_models import DEFAULT_MODEL

        args.llm_model = DEFAULT_MODEL
    prefill = getattr(args, "prefill", None)
    if prefill is None:
        prefill = "none" if args.llm_endpoint else DEFAULT_PREFILL
    elif prefill != "none" and args.llm_endpoint:
        raise ValueError(f"--prefill {prefill}: only a local model's answer can be started by figbench; an endpoint "
                         "gets --json-mode (response_format json_object)")
    rows = load_source(args)
    units, _ = units_of(rows, where)
    if args.max_sentences:
        units = units[: args.max_sentences]
        keep = {mid for u in units for mid, _, _, _ in u.triggers}
        rows = [r for r in rows if r["mention_id"] in keep]
    client = make_client(args.llm_model, args.llm_endpoint, os.environ.get(args.llm_api_key_env),
                         **({"timeout": args.timeout, "retries": args.retries, "backoff": args.backoff}
                            if args.llm_endpoint else {}))
    settings = Settings(args.style, args.temperature, args.max_tokens, args.json_retries, args.json_mode,
                        args.concurrency, args.batch_size, args.max_endpoint_failures, args.cache_only, prefill)
    meta = {"dataset": args.dataset, "config": args.config, "split": args.split, "style": args.style,
            "model": model_label(args.llm_model), "model_path": args.llm_model, "backend": client.backend,
            "endpoint": args.llm_endpoint, "temperature": args.temperature, "max_tokens": args.max_tokens,
            "json_retries": args.json_retries, "json_mode": args.json_mode, "prefill": prefill, "options": args.option,
            "max_sentences": args.max_sentences}
    spath = out / folder.SETTINGS
    if spath.is_file():
        old = folder.read_json(spath, "settings")
        old.setdefault("prefill", "none")  # a folder made before --prefill existed
        diff = [k for k in _SAME if old.get(k) != meta.get(k)]
        if diff:
            raise ValueError(f"{out} holds a run with other settings ({', '.join(diff)}: "
                             f"{[old.get(k) for k in diff]} there, {[meta.get(k) for k in diff]} now); "
                             "pass another --out")
    folder.write_json(spath, meta)
    import pyarrow as pa
    import pyarrow.parquet as pq

    (out / folder.GENERATION).mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), out / folder.SOURCE)
    cache = DiskCache(args.cache or out / folder.CACHE)
    stopped = ""
    try:
        outcomes, seconds = paraphrase(units, client, cache, settings, progress=not args.no_progress)
    except EndpointDown as down:
        outcomes, seconds, stopped = down.outcomes, down.seconds, str(down)
    folder.write_jsonl(out / folder.ANSWERS, [o.to_json() for o in outcomes.values()])
    failed = [o for o in outcomes.values() if o.failure]
    tok_in = sum(o.prompt_tokens for o in outcomes.values())
    tok_out = sum(o.completion_tokens for o in outcomes.values())
    run = {
        "sentences": len(units), "mentions": len(rows), "ok": len(units) - len(failed), "failed": len(failed),
        "repaired": sum(1 for o in outcomes.values() if o.answer and o.answer.get("repaired")),
        "samples": sum(o.samples for o in outcomes.values()), "requests": sum(o.calls for o in outcomes.values()),
        "http_attempts": sum(o.http_attempts for o in outcomes.values()),
        "cache_hits": sum(o.cache_hits for o in outcomes.values()),
        "tokens": {"prompt": tok_in, "completion": tok_out},
        "seconds": round(seconds, 2), "sentences_per_s": round(len(units) / seconds, 3) if seconds > 0 else None,
        "failure_kinds": dict(Counter(o.failure for o in failed)),
        "failures": [{"sentence": o.key, "kind": o.failure, "reasons": o.reasons, "last_answer": o.raw[:300]}
                     for o in failed],
        "stopped": stopped, "cache_only": settings.cache_only,
        "batch_size": settings.batch_size if client.backend == "transformers" else None,
        "completion_tokens_per_s": round(sum(o.completion_tokens for o in outcomes.values() if o.calls) / seconds, 2)
        if seconds > 0 else None,
        "price_input_per_mtok": args.price_input, "price_output_per_mtok": args.price_output,
        "cost_usd": None, "paper_cost_usd": PAPER_COST_USD[args.style],
    }
    if args.price_input is not None or args.price_output is not None:
        run["cost_usd"] = round(tok_in / 1e6 * (args.price_input or 0) + tok_out / 1e6 * (args.price_output or 0), 4)
    report_path = out / folder.REPORT
    report = folder.read_json(report_path, "report") if report_path.is_file() else {}
    report["run"] = run
    folder.write_json(report_path, report)
    from figbench.generate.build import build

    build(out)
    return folder.read_json(report_path, "report")


def exit_status(report: dict) -> tuple[int, str]:
    """(1, why) when a run stopped early or generated no usable mention, else (0, "")."""
    run, counts = report.get("run", {}), report.get("build", {}).get("counts", {})
    resume = "rerun the same command to resume: answers already received are in the cache"
    if run.get("stopped"):
        return 1, f"{run['stopped']}; {resume}"
    if not counts.get("mentions"):
        kinds = ", ".join(f"{k} {n}" for k, n in run.get("failure_kinds", {}).items()) or "no failures listed"
        return 1, f"nothing usable was generated (0 mentions; failed sentences: {kinds}); no dataset card written"
    return 0, ""


def print_report(report: dict, out) -> None:
    run, b = report.get("run", {}), report.get("build", {})
    c, qc = b.get("counts", {}), b.get("qc", {})
    p = print
    p(f"sentences: {run.get('sentences', 0)} ({run.get('ok', 0)} paraphrased, {run.get('failed', 0)} failed, "
      f"{run.get('repaired', 0)} answers repaired); answers requested {run.get('requests', 0)} "
      f"({run.get('http_attempts', 0)} HTTP attempts), "
      f"cache hits {run.get('cache_hits', 0)}")
    tok = run.get("tokens", {})
    cost = f", cost ${run['cost_usd']:.4f}" if run.get("cost_usd") is not None else ""
    p(f"tokens: {tok.get('prompt', 0)} prompt + {tok.get('completion', 0)} completion{cost} "
      f"(the paper: about ${run.get('paper_cost_usd', 0):.0f} for ECB+ validation + test with GPT-4)")
    for f in run.get("failures", [])[:20]:
        p(f"  failed {f['sentence']}: {f['reasons'][-1] if f['reasons'] else f['kind']}", file=sys.stderr)
    p(f"mentions: {c.get('mentions', 0)} of {c.get('source_mentions', 0)}; flagged {c.get('flagged', 0)} "
      f"({c.get('flagged_reviewed', 0)} reviewed); quality control: {qc.get('judged', 0)} judged, share valid "
      f"{qc['share_valid']:.1%}" if qc.get("share_valid") is not None else
      f"mentions: {c.get('mentions', 0)} of {c.get('source_mentions', 0)}; flagged {c.get('flagged', 0)} "
      f"({c.get('flagged_reviewed', 0)} reviewed); quality control: not judged yet")
    p(f"corpus: {out} (datasets.load_dataset({str(out)!r})); report: {Path(out) / folder.REPORT}")
