"""``figbench generate``: make harder corpora with the ECB+META metaphoric-paraphrasing method (light module).

* ``figbench generate metaphors --dataset D --config C --split S --style single|multi --llm-model M
  [--llm-endpoint URL] --out DIR``: paraphrase, re-tag, build a Hub-layout corpus in DIR;
* ``figbench generate review DIR``: the review app (flagged spans, quality control) -> corrections;
* ``figbench generate build DIR``: rebuild DIR's corpus from its cache and corrections.
"""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    g = sub.add_parser("generate", help="make harder corpora: metaphoric paraphrasing of a coreference corpus",
                       description=__doc__.split("\n\n")[0])
    g.set_defaults(_parser=g)
    gs = g.add_subparsers(dest="generate_command", metavar="STEP")

    m = gs.add_parser("metaphors", help="paraphrase a split's event triggers into metaphors (ECB+META, Fig. 2)")
    m.add_argument("--dataset", required=True, help="a figbench coreference corpus (ecbplus, wec_eng, ecbmeta)")
    m.add_argument("--config", default=None, help="its mention config (default: the builder's default)")
    m.add_argument("--split", required=True)
    m.add_argument("--data-dir", default=None, help="the corpus folder (default: <data root>/<dataset>)")
    m.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="builder config option")
    m.add_argument("--style", required=True, choices=("single", "multi"),
                   help="single-word (ECB+META_1) or multi-word phrasal (ECB+META_m) metaphors")
    m.add_argument("--llm-model", default=None,
                   help="the endpoint's model name; without --llm-endpoint an offline model: a registered name "
                        "(smollm2-135m, gemma3-270m; default smollm2-135m), gguf:PATH, or a transformers folder or id")
    m.add_argument("--llm-endpoint", default=None, help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1")
    m.add_argument("--llm-api-key-env", default="OPENAI_API_KEY", help="env variable holding the endpoint's key")
    m.add_argument("--out", required=True, help="output folder (a Hub-layout dataset); rerun to resume")
    m.add_argument("--cache", default=None, help="answer cache (default: OUT/generation/cache.jsonl)")
    m.add_argument("--temperature", type=float, default=0.7, help="sampling temperature (the paper: 0.7)")
    m.add_argument("--max-tokens", type=int, default=1024, help="completion token limit")
    m.add_argument("--json-retries", type=int, default=2,
                   help="new samples asked for when an answer is not usable JSON")
    m.add_argument("--json-mode", action="store_true",
                   help="ask the endpoint for response_format json_object; a local model's answer is started with "
                        "the JSON's first key")
    m.add_argument("--prefill", default=None, choices=("none", "key", "inputs"),
                   help="a local model's answer starts with figbench's text: key = Fig. 2's first JSON key (as "
                        "--json-mode), inputs = its first two keys filled with the sentence and trigger list and the "
                        "opening of the metaphoric word list (the model writes the metaphors and the sentence; "
                        "generation stops when the JSON closes); default: inputs for a local model, none for an "
                        "endpoint")
    m.add_argument("--concurrency", type=int, default=4, help="requests in flight (endpoint)")
    m.add_argument("--batch-size", type=int, default=8, help="prompts generated together (local model)")
    m.add_argument("--max-endpoint-failures", type=int, default=3,
                   help="stop after this many requests in a row fail at the endpoint (429/5xx/timeouts past "
                        "--retries); a rerun resumes from the cache")
    m.add_argument("--retries", type=int, default=5, help="HTTP retries on 429/5xx/timeouts")
    m.add_argument("--backoff", type=float, default=1.0, help="first back-off in seconds (doubles each retry)")
    m.add_argument("--timeout", type=float, default=120.0, help="HTTP timeout in seconds")
    m.add_argument("--cache-only", action="store_true",
                   help="request nothing: use the cached answers, the other sentences are not_requested")
    m.add_argument("--max-sentences", type=int, default=None, help="only the first N sentences (quick runs)")
    m.add_argument("--price-input", type=float, default=None, help="USD per million prompt tokens (cost report)")
    m.add_argument("--price-output", type=float, default=None,
                   help="USD per million completion tokens (cost report)")
    m.add_argument("--no-progress", action="store_true", help="no progress bar")
    m.set_defaults(func=_metaphors)

    r = gs.add_parser("review", help="review app: flagged spans and quality control, saved as corrections")
    r.add_argument("dir", help="a folder made by `figbench generate metaphors`")
    r.add_argument("--host", default="127.0.0.1")
    r.add_argument("--port", type=int, default=7861)
    r.add_argument("--all", action="store_true", help="walk through every mention, not only the flagged ones first")
    r.set_defaults(func=_review)

    b = gs.add_parser("build", help="rebuild a generated corpus from its cache and corrections")
    b.add_argument("dir")
    b.set_defaults(func=_build)


def _metaphors(args: argparse.Namespace) -> int:
    from figbench.generate.pipeline import run_metaphors

    report = run_metaphors(args)
    import sys

    from figbench.generate.pipeline import exit_status, print_report

    print_report(report, args.out)
    code, why = exit_status(report)
    if code:
        print(f"figbench generate metaphors: {why}", file=sys.stderr)
    return code


def _review(args: argparse.Namespace) -> int:
    from figbench.generate.review import launch

    launch(args.dir, host=args.host, port=args.port, walk_all=args.all)
    return 0


def _build(args: argparse.Namespace) -> int:
    from pathlib import Path

    from figbench.generate.build import build
    from figbench.generate.pipeline import print_report

    build(Path(args.dir))
    from figbench.generate import folder

    print_report(folder.read_json(Path(args.dir) / folder.REPORT, "report"), args.dir)
    return 0
