"""``figbench quickstart``: the main job.

Runs the fast baselines (the baseline specs marked ``fast``: heuristics and retrieval, minutes on CPU)
whose corpora are under ``FIGBENCH_DATA_DIR``, submits their result records to the embedded
leaderboard store, and serves the leaderboard on localhost. A run the store already holds (same
model name, revision and benchmark, not FAILED) is skipped, so a second quickstart only serves;
``--force`` re-runs everything. A run that fails is reported and the others go on; the exit status
says whether any failed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from figbench_baselines.specs import BaselineSpec

#: identifies a leaderboard row: (model name, model revision, benchmark key)
RunKey = tuple[str, str, str]


@dataclass(frozen=True)
class Outcome:
    """What happened to one spec: ``stored`` (skipped), ``submitted`` or ``failed``."""

    name: str
    status: str
    seconds: float
    detail: str = ""


def register(sub: argparse._SubParsersAction) -> None:
    from figbench_baselines.common.runs import add_resamples_option

    p = sub.add_parser(
        "quickstart", help="run the fast baselines on every corpus found, submit them, serve the leaderboard",
        description=__doc__.split("\n\n")[1].replace("\n", " "),
    )
    p.add_argument("--store", default=".figbench/store", help="leaderboard store folder (default .figbench/store)")
    p.add_argument("--results-dir", default=None, help="where result records go (default STORE/../results)")
    p.add_argument("--only", default=None, help="comma-separated corpora to run (default: all found)")
    p.add_argument("--force", action="store_true", help="re-run (and resubmit) runs the store already holds")
    add_resamples_option(p)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=7860)
    p.add_argument("--no-serve", action="store_true", help="stop after submitting (no web server)")
    p.add_argument("--no-committed", "--no-trained", dest="no_committed", action="store_true",
                   help="do not load the committed records of trained runs (results/<spec>.json) into the store")
    p.set_defaults(func=main)


def plan(only: set[str] | None = None, *, board: bool = False) -> tuple[list[BaselineSpec], list[str]]:
    """The fast specs (``board``: the specs whose committed records go on the board) whose corpora are all
    there (and whose dataset is in ``only``), and a line per corpus missing."""
    from figbench_baselines.specs import board_specs, fast_specs

    from figbench.paths import CORPORA, corpus_dir

    present, skipped = set(), []
    for corpus in CORPORA:
        folder = corpus_dir(corpus)
        if folder is not None and folder.is_dir():
            present.add(corpus)
        elif only is None or corpus in only:
            skipped.append(f"{corpus}: no folder {folder or '(FIGBENCH_DATA_DIR is not set)'}")
    candidates = board_specs() if board else fast_specs()
    runs = [s for s in candidates if (only is None or s.dataset in only) and set(s.corpora) <= present]
    return runs, skipped


def stored_runs(store: Path) -> dict[RunKey, str]:
    """The live submissions of a store (not FAILED): run key -> submission id. Reads only; none when the
    store does not exist yet."""
    from figbench_leaderboard.store import DB_NAME, Store

    if not (store / DB_NAME).is_file():
        return {}
    out = {}
    for sub in Store(store).list():
        if sub["status"] != "FAILED":
            key = f"{sub['task']}/{sub['dataset']}/{sub['config']}/{sub['split']}"
            out[(sub["model_name"], sub["model_revision"] or "", key)] = sub["id"]
    return out


def run_key(spec: BaselineSpec) -> RunKey:
    """The leaderboard row a spec's record lands in (baseline records carry no revision)."""
    return (spec.system_name, "", spec.benchmark)


def prepare_resubmission(record_path: Path, stored_id: str) -> str:
    """Make a forced re-run submittable although the store holds the run (id ``stored_id``).

    The store refuses a second live submission of one model, revision and benchmark. Until it can
    retire a submission (TODO(leaderboard): ``Store.retire(sid, reason)``, marking the old row as
    superseded, after which the re-run keeps its revision), the re-run is submitted under the revision
    ``rerun-<UTC time>``. Returns that revision.
    """
    from figbench.results import write_result

    record = json.loads(record_path.read_text("utf-8"))
    revision = "rerun-" + datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    record["model"] = {**record["model"], "revision": revision}
    record.setdefault("options", {})["supersedes"] = stored_id
    write_result(record, record_path)
    return revision


def run_specs(specs: list[BaselineSpec], store: Path, results: Path, *, n_resamples: int, force: bool = False,
              submit: Callable[[Path, Path], dict[str, Any]] | None = None) -> list[Outcome]:
    """Run, record and submit each spec unless the store holds it already (``force``: run it anyway)."""
    from figbench.cli import main as figbench_main

    if submit is None:
        from figbench_leaderboard.client import submit as client_submit

        def submit(path: Path, to: Path) -> dict[str, Any]:
            return client_submit(path, to, submitter="figbench-quickstart")

    stored = stored_runs(store)
    results.mkdir(parents=True, exist_ok=True)
    outcomes: list[Outcome] = []
    for i, spec in enumerate(specs, 1):
        held = stored.get(run_key(spec))
        if held and not force:
            print(f"\n[{i}/{len(specs)}] {spec.name}: already in the store ({held[:8]}); skipped", flush=True)
            outcomes.append(Outcome(spec.name, "stored", 0.0, f"submission {held[:8]}"))
            continue
        out = results / f"{spec.name}.json"
        argv = ["baseline", *spec.argv, "--out", str(out), "--n-resamples", str(n_resamples)]
        print(f"\n[{i}/{len(specs)}] figbench {' '.join(argv)}", flush=True)
        t0 = time.perf_counter()
        try:
            status = figbench_main(argv)
            if status != 0:
                outcomes.append(Outcome(spec.name, "failed", time.perf_counter() - t0, f"exit {status}"))
                continue
            detail = ""
            if held:
                detail = f"revision {prepare_resubmission(out, held)}; "
            reply = submit(out, store)
            flag = " MISMATCH with the server's scores" if reply.get("mismatches") else ""
            state = "failed" if reply.get("status") == "FAILED" else "submitted"
            reason = f" ({reply.get('reason')})" if reply.get("reason") else ""
            outcomes.append(Outcome(spec.name, state, time.perf_counter() - t0,
                                    f"{detail}{reply.get('status', '?')}{reason}{flag}"))
        except SystemExit as e:  # argparse rejects options a baseline does not have
            outcomes.append(Outcome(spec.name, "failed", time.perf_counter() - t0, f"exit {e.code}"))
        except Exception as e:
            outcomes.append(Outcome(spec.name, "failed", time.perf_counter() - t0, f"{type(e).__name__}: {e}"))
    return outcomes


def load_committed(specs: list[BaselineSpec], store: Path, committed: Path, *,
                   submit: Callable[[Path, Path], dict[str, Any]] | None = None) -> list[Outcome]:
    """Submit the committed records of ``specs`` (``committed/<name>.json``, trained runs) unless stored.

    The server re-scores each from its predictions (inline, or the ``.json.gz`` file its record names, which
    the client inlines), so the board shows them verified; a spec without a committed record is reported, not run.
    """
    if submit is None:
        from figbench_leaderboard.client import submit as client_submit

        def submit(path: Path, to: Path) -> dict[str, Any]:
            return client_submit(path, to, submitter="figbench-quickstart")

    stored = stored_runs(store)
    outcomes: list[Outcome] = []
    for spec in specs:
        path = committed / f"{spec.name}.json"
        held = stored.get(run_key(spec))
        if held:
            outcomes.append(Outcome(spec.name, "stored", 0.0, f"committed record; submission {held[:8]}"))
            continue
        if not path.is_file():  # a trained run not made yet: said, not a failure of this quickstart
            outcomes.append(Outcome(spec.name, "not run yet", 0.0, f"no committed record {path.name}: "
                                                                 f"`figbench baseline run {spec.name}` makes it"))
            continue
        t0 = time.perf_counter()
        try:
            reply = submit(path, store)
        except Exception as e:
            outcomes.append(Outcome(spec.name, "failed", time.perf_counter() - t0, f"{type(e).__name__}: {e}"))
            continue
        flag = " MISMATCH with the server's scores" if reply.get("mismatches") else ""
        state = "failed" if reply.get("status") == "FAILED" else "loaded"
        reason = f" ({reply.get('reason')})" if reply.get("reason") else ""
        outcomes.append(Outcome(spec.name, state, time.perf_counter() - t0,
                                f"committed record; {reply.get('status', '?')}{reason}{flag}"))
    return outcomes


def print_summary(outcomes: list[Outcome], total_s: float) -> None:
    print("\nquickstart summary")
    for o in outcomes:
        print(f"  {o.name:34s} {o.seconds:7.1f} s  {o.status}{': ' + o.detail if o.detail else ''}")
    counts = {s: sum(o.status == s for o in outcomes)
              for s in ("submitted", "loaded", "stored", "not run yet", "failed")}
    problems = f"{counts['failed']} FAILED" if counts["failed"] else "no failures"
    loaded = f"{counts['loaded']} committed records loaded, " if counts["loaded"] else ""
    absent = f"{counts['not run yet']} trained runs without a record, " if counts["not run yet"] else ""
    print(f"  {len(outcomes)} runs: {counts['submitted']} submitted, {loaded}{counts['stored']} already stored, "
          f"{absent}{problems}; {total_s:.1f} s in all")


def main(args: argparse.Namespace) -> int:
    from figbench.cli import main as figbench_main

    only = {c.strip() for c in args.only.split(",")} if args.only else None
    specs, skipped = plan(only)
    for line in skipped:
        print(f"skipped {line}")
    if not specs:
        print("figbench quickstart: no corpus found; set FIGBENCH_DATA_DIR", file=sys.stderr)
        return 1
    store = Path(args.store)
    results = Path(args.results_dir) if args.results_dir else store.parent / "results"
    t0 = time.perf_counter()
    outcomes = run_specs(specs, store, results, n_resamples=args.n_resamples, force=args.force)
    if not args.no_committed:
        committed, _ = plan(only, board=True)
        if committed:
            from figbench_baselines.tables import RESULTS

            print(f"\nloading {len(committed)} committed record(s) of trained runs from {RESULTS}", flush=True)
            outcomes += load_committed(committed, store, RESULTS)
    print_summary(outcomes, time.perf_counter() - t0)
    failed = any(o.status == "failed" for o in outcomes)
    if args.no_serve:
        return 1 if failed else 0
    print(f"\nserving the leaderboard on http://{args.host}:{args.port} (Ctrl-C to stop)", flush=True)
    return figbench_main(["leaderboard", "serve", "--store", str(store), "--host", args.host,
                          "--port", str(args.port)])
