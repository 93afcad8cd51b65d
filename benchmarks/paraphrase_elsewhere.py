"""Paraphrase a split's sentences with a local GGUF model on another machine (a GPU), then build here.

``figbench generate metaphors`` needs the corpus and the builders; a lent GPU machine has neither (nothing
reaches the network there, and the corpora stay here). This script splits the run at its cache:

1. ``units`` (here): the sentences of a split, as ``figbench generate`` cuts them, to a JSON file.
2. ``answer`` (there): :func:`figbench.generate.run.paraphrase` over those sentences with the GGUF model, the
   same settings and cache keys as the CLI's, into an answer cache (``DiskCache`` JSON lines); prints the
   device, the wall time and the tokens per second as JSON. The answers are not checked there (that needs the
   spaCy tokenizer, which the GPU machine lacks): every answer is only counted, so ``--json-retries`` must be 0
   (a retry would depend on the check), and step 3 checks and re-tags them all.
3. (here) ``figbench generate metaphors ... --cache CACHE --cache-only`` re-tags and builds the corpus from
   those answers, exactly as if the CLI had asked the model itself.

Usage:
  python benchmarks/paraphrase_elsewhere.py units --dataset ecbplus --config events --split validation --out U.json
  python benchmarks/paraphrase_elsewhere.py answer --units U.json --gguf F.gguf --label smollm2-135m \
      --style multi --prefill inputs --json-retries 0 --batch-size 64 --cache C.jsonl --report R.json
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def units_cmd(args: argparse.Namespace) -> None:
    from figbench.generate.pipeline import load_source
    from figbench.generate.source import units_of

    where = f"{args.dataset}/{args.config or '(default)'}/{args.split}"
    units, _ = units_of(load_source(args), where)
    Path(args.out).write_text(json.dumps([dataclasses.asdict(u) for u in units]), "utf-8")
    print(f"{len(units)} sentences, {sum(len(u.triggers) for u in units)} triggers -> {args.out}")


def answer_cmd(args: argparse.Namespace) -> None:
    import torch
    import transformers

    from figbench.generate import run
    from figbench.generate.run import Settings, paraphrase
    from figbench.generate.source import Unit
    from figbench.llm import CausalLM, DiskCache
    from figbench.local_models import resolve

    if args.json_retries:
        raise SystemExit("answer: --json-retries must be 0 (answers are checked by the build, not here)")

    def count_only(out, unit, rec) -> bool:  # run._accept without the check: tokens counted, nothing parsed
        run.tally(out, rec)
        return True

    run._accept = count_only
    units = [Unit(**{**u, "triggers": [tuple(t) for t in u["triggers"]]})
             for u in json.loads(Path(args.units).read_text("utf-8"))]
    t0 = time.perf_counter()
    client = CausalLM(str(resolve("gguf:" + args.gguf)), label=args.label)
    load_s = time.perf_counter() - t0
    settings = Settings(args.style, args.temperature, args.max_tokens, args.json_retries, False, 1, args.batch_size,
                        3, False, args.prefill)
    outcomes, seconds = paraphrase(units, client, DiskCache(args.cache), settings, progress=False)
    completion = sum(o.completion_tokens for o in outcomes.values())
    report = {"sentences": len(units), "answered": sum(1 for o in outcomes.values() if o.calls),
              "prompt_tokens": sum(o.prompt_tokens for o in outcomes.values()), "completion_tokens": completion,
              "seconds": round(seconds, 2), "load_seconds": round(load_s, 2),
              "completion_tokens_per_s": round(completion / seconds, 2) if seconds else None,
              "device": str(client.model.device),
              "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
              "torch": torch.__version__, "transformers": transformers.__version__,
              "platform": platform.platform(), "batch_size": args.batch_size}
    Path(args.report).write_text(json.dumps(report, indent=1), "utf-8")
    print(json.dumps(report))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    u = sub.add_parser("units", help="the sentences of a split (here)")
    u.add_argument("--dataset", required=True)
    u.add_argument("--config", default=None)
    u.add_argument("--split", required=True)
    u.add_argument("--data-dir", default=None)
    u.add_argument("--option", action="append", default=[])
    u.add_argument("--out", required=True)
    a = sub.add_parser("answer", help="the model's answers into a cache (there)")
    a.add_argument("--units", required=True)
    a.add_argument("--gguf", required=True, help="the GGUF file")
    a.add_argument("--label", required=True, help="the --llm-model name the build here will use (the cache key)")
    a.add_argument("--style", required=True, choices=("single", "multi"))
    a.add_argument("--prefill", default="inputs", choices=("none", "key", "inputs"))
    a.add_argument("--temperature", type=float, default=0.7)
    a.add_argument("--max-tokens", type=int, default=1024)
    a.add_argument("--json-retries", type=int, default=0, help="must be 0 (see the module docstring)")
    a.add_argument("--batch-size", type=int, default=8)
    a.add_argument("--cache", required=True)
    a.add_argument("--report", required=True)
    args = ap.parse_args(argv)
    {"units": units_cmd, "answer": answer_cmd}[args.cmd](args)


if __name__ == "__main__":
    main()
