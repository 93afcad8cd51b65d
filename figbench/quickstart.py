"""``figbench quickstart``: the main job.

Runs the fast baselines (heuristics and retrieval: minutes on CPU) on every corpus found under
``FIGBENCH_DATA_DIR``, submits their result records to the embedded leaderboard store, and serves the
leaderboard on localhost. A run that fails is reported and the others go on; the exit status says
whether any failed.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Run:
    label: str
    corpus: str
    argv: tuple[str, ...]


#: The fast baselines, in the order they run. Each needs the corpus named in ``corpus``.
FAST_RUNS: tuple[Run, ...] = (
    Run("cdec_lemma_ecbplus_test", "ecbplus",
        ("cdec", "--dataset", "ecbplus", "--config", "events", "--split", "test", "--method", "lemma")),
    Run("cdec_lh_ecbplus_test", "ecbplus",
        ("cdec", "--dataset", "ecbplus", "--config", "events", "--split", "test", "--method", "lh")),
    Run("cdec_lh_meta_m_test", "ecbmeta",
        ("cdec", "--dataset", "ecbmeta", "--config", "meta_m", "--split", "test", "--method", "lh")),
    Run("cdec_lh_meta_1_dev_small", "ecbmeta",
        ("cdec", "--dataset", "ecbmeta", "--config", "meta_1", "--split", "dev_small", "--method", "lh")),
    Run("cdec_lemma_wec_eng_test", "wec_eng",
        ("cdec", "--dataset", "wec_eng", "--split", "test", "--method", "lemma")),
    Run("meta4xnli_lexicon_en_test", "meta4xnli",
        ("meta4xnli", "--task", "detection", "--method", "lexicon", "--train", "en")),
    Run("meta4xnli_lexicon_es_test", "meta4xnli",
        ("meta4xnli", "--task", "detection", "--method", "lexicon", "--train", "es")),
    Run("wimcor_majority_sample_test", "wimcor", ("wimcor", "--method", "majority")),
    Run("wimcor_random_sample_test", "wimcor", ("wimcor", "--method", "random")),
    Run("epic_bm25_seen_test", "epic",
        ("epic", "--task", "prediction", "--config", "seen", "--method", "bm25")),
    Run("epic_minilm_seen_test", "epic",
        ("epic", "--task", "prediction", "--config", "seen", "--method", "embedding")),
    Run("epic_minilm_unseen_test", "epic",
        ("epic", "--task", "prediction", "--config", "unseen", "--method", "embedding")),
    Run("epic_lexical_alignment_test", "epic",
        ("epic", "--task", "alignment", "--method", "lexical")),
)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "quickstart", help="run the fast baselines on every corpus found, submit them, serve the leaderboard",
        description=__doc__.split("\n\n")[1].replace("\n", " "),
    )
    p.add_argument("--store", default=".figbench/store", help="leaderboard store folder (default .figbench/store)")
    p.add_argument("--results-dir", default=None, help="where result records go (default STORE/../results)")
    p.add_argument("--only", default=None, help="comma-separated corpora to run (default: all found)")
    p.add_argument("--n-resamples", type=int, default=200, help="bootstrap resamples per run (default 200)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=7860)
    p.add_argument("--no-serve", action="store_true", help="stop after submitting (no web server)")
    p.set_defaults(func=main)


def plan(only: set[str] | None = None) -> tuple[list[Run], list[str]]:
    """Runs whose corpus folder exists, and a line for each corpus skipped."""
    from figbench.paths import CORPORA, corpus_dir

    runs, skipped = [], []
    for corpus in CORPORA:
        if only is not None and corpus not in only:
            continue
        folder = corpus_dir(corpus)
        if folder is None or not folder.is_dir():
            skipped.append(f"{corpus}: no folder {folder or '(FIGBENCH_DATA_DIR is not set)'}")
            continue
        runs.extend(r for r in FAST_RUNS if r.corpus == corpus)
    return runs, skipped


def main(args: argparse.Namespace) -> int:
    from figbench.cli import main as figbench_main
    from figbench_leaderboard.client import submit

    only = {c.strip() for c in args.only.split(",")} if args.only else None
    runs, skipped = plan(only)
    for line in skipped:
        print(f"skipped {line}")
    if not runs:
        print("figbench quickstart: no corpus found; set FIGBENCH_DATA_DIR", file=sys.stderr)
        return 1
    store = Path(args.store)
    results = Path(args.results_dir) if args.results_dir else store.parent / "results"
    results.mkdir(parents=True, exist_ok=True)
    outcomes: list[tuple[str, str, float]] = []
    for i, run in enumerate(runs, 1):
        out = results / f"{run.label}.json"
        argv = ["baseline", *run.argv, "--out", str(out), "--n-resamples", str(args.n_resamples)]
        print(f"\n[{i}/{len(runs)}] figbench {' '.join(argv)}", flush=True)
        t0 = time.perf_counter()
        try:
            status = figbench_main(argv)
            if status == 0:
                reply = submit(out, store, submitter="figbench-quickstart")
                status_txt = f"submitted ({reply.get('status', '?')})"
            else:
                status_txt = f"failed (exit {status})"
        except SystemExit as e:  # argparse rejects options a baseline does not have
            status_txt = f"failed (exit {e.code})"
        except Exception as e:  # noqa: BLE001 - report and go on with the other runs
            status_txt = f"failed: {type(e).__name__}: {e}"
        outcomes.append((run.label, status_txt, time.perf_counter() - t0))
    print("\nquickstart summary")
    for label, status_txt, seconds in outcomes:
        print(f"  {label:32s} {seconds:7.1f} s  {status_txt}")
    failed = sum(1 for _, s, _ in outcomes if s.startswith("failed"))
    if args.no_serve:
        return 1 if failed else 0
    print(f"\nserving the leaderboard on http://{args.host}:{args.port} (Ctrl-C to stop)", flush=True)
    return figbench_main(["leaderboard", "serve", "--store", str(store), "--host", args.host,
                          "--port", str(args.port)])
