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
import contextlib
import json
import sys
import time
from collections.abc import Callable, Iterator
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
    """What happened to one spec: ``stored`` (skipped), ``submitted`` or ``failed``; ``score`` its headline."""

    name: str
    status: str
    seconds: float
    detail: str = ""
    score: str = ""


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
    p.add_argument("--verbose", "-v", action="store_true",
                   help="print each run's command and full score table (default: one line per run)")
    p.add_argument("--no-committed", "--no-trained", dest="no_committed", action="store_true",
                   help="do not load the committed records of trained runs (results/<spec>.json) into the store")
    p.set_defaults(func=main)


def plan(only: set[str] | None = None, *, board: bool = False) -> tuple[list[BaselineSpec], list[str]]:
    """The fast specs (``board``: the specs whose committed records go on the board) whose corpora are all
    there (and whose dataset is in ``only``), and a line per corpus missing (with the command that fetches it)."""
    from figbench_baselines.specs import board_specs, fast_specs

    from figbench.paths import CORPORA, corpus_dir

    present, skipped = set(), []
    for corpus in CORPORA:
        folder = corpus_dir(corpus)
        if folder.is_dir():
            present.add(corpus)
        elif only is None or corpus in only:
            skipped.append(f"{corpus}: no folder {folder} (`figbench data fetch {corpus}` downloads its public files)")
    candidates = board_specs() if board else fast_specs()
    runs = [s for s in candidates if (only is None or s.dataset in only) and set(s.corpora) <= present]
    return runs, skipped


def check_only(text: str) -> set[str]:
    """The corpora of ``--only`` (comma-separated); an unknown name is an error naming the close match."""
    from difflib import get_close_matches

    from figbench.paths import CORPORA

    names = {c.strip() for c in text.split(",") if c.strip()}
    for name in sorted(names):
        if name not in CORPORA:
            close = get_close_matches(name, CORPORA, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ValueError(f"--only: unknown corpus name {name!r}{hint}; corpora: {', '.join(CORPORA)}")
    if not names:
        raise ValueError(f"--only: no corpus named; corpora: {', '.join(CORPORA)}")
    return names


def no_runs_message(only: set[str] | None) -> str:
    """Why there is nothing to run: the data root, where it was set, and the corpora absent from it."""
    from figbench.paths import CORPORA, corpus_dir, data_dir_source, data_root

    wanted = sorted(only) if only else list(CORPORA)
    absent = [c for c in wanted if not corpus_dir(c).is_dir()]
    root = f"data root {data_root()} (chosen by {data_dir_source()})"
    if not absent:  # the folders are there, yet no fast run uses only them
        return f"no fast baseline runs on {', '.join(wanted)} alone; `figbench baseline --list` lists the runs"
    return (f"no corpus found: {', '.join(absent)} {'is' if len(absent) == 1 else 'are'} not in the {root}. "
            f"Fetch the public files with `figbench data fetch {' '.join(absent)}`, or set FIGBENCH_DATA_DIR "
            "to a folder holding one sub-folder per corpus (`figbench data where` shows what is found)")


def stored_runs(store: Path) -> dict[RunKey, str]:
    """The live submissions of a store (not FAILED): run key -> submission id. Reads only; none when the
    store does not exist yet."""
    from figbench_leaderboard.store.schema import DB_NAME
    from figbench_leaderboard.store.sqlite import Store

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


def headline(record_path: Path) -> str:
    """``<headline metric> <value in %>`` of a result record, or "" when it cannot be read."""
    try:
        from figbench.tasks import get_task

        record = json.loads(record_path.read_text("utf-8"))
        name = get_task(record["task"]).headline
        return f"{name} {100 * float(record['scores'][name]):.1f}"
    except (OSError, ValueError, KeyError, TypeError):
        return ""


@contextlib.contextmanager
def _datasets_bars_off() -> Iterator[None]:
    """``datasets``' progress bars off (they write to the terminal, past a redirected stderr), then as they were."""
    import datasets

    was_off = datasets.are_progress_bars_disabled()
    datasets.disable_progress_bars()
    try:
        yield
    finally:
        if not was_off:
            datasets.enable_progress_bars()


def run_specs(specs: list[BaselineSpec], store: Path, results: Path, *, n_resamples: int, force: bool = False,
              submit: Callable[[Path, Path], dict[str, Any]] | None = None, verbose: bool = True) -> list[Outcome]:
    """Run, record and submit each spec unless the store holds it already (``force``: run it anyway).

    ``verbose``: print each run's command, score table and progress; else one line per run (a failed
    run's output is printed in full)."""
    import io

    from figbench.cli import main as figbench_main

    if submit is None:
        from figbench_leaderboard.client import submit as client_submit

        def submit(path: Path, to: Path) -> dict[str, Any]:
            return client_submit(path, to, submitter="figbench-quickstart")

    stored = stored_runs(store)
    results.mkdir(parents=True, exist_ok=True)
    outcomes: list[Outcome] = []
    width = max((len(s.name) for s in specs), default=0)
    for i, spec in enumerate(specs, 1):
        tag = f"[{i}/{len(specs)}]"
        held = stored.get(run_key(spec))
        if held and not force:
            print(f"{tag} {spec.name:{width}s}  already in the store ({held[:8]}); skipped", flush=True)
            outcomes.append(Outcome(spec.name, "stored", 0.0, f"submission {held[:8]}"))
            continue
        out = results / f"{spec.name}.json"
        argv = ["baseline", *spec.argv, "--out", str(out), "--n-resamples", str(n_resamples)]
        if verbose:
            print(f"\n{tag} figbench {' '.join(argv)}", flush=True)
        t0 = time.perf_counter()
        captured = io.StringIO()
        try:
            with contextlib.ExitStack() as quiet:
                if not verbose:  # the run's tables and progress bars, and the server's (gold prepared by the
                    # builders: datasets' "Generating ... split" / "Map" bars): printed only if it fails
                    quiet.enter_context(contextlib.redirect_stdout(captured))
                    quiet.enter_context(contextlib.redirect_stderr(captured))
                    quiet.enter_context(_datasets_bars_off())
                status = figbench_main(argv)
                if status == 0:
                    detail = f"revision {prepare_resubmission(out, held)}; " if held else ""
                    reply = submit(out, store)
            if status != 0:
                outcome = Outcome(spec.name, "failed", time.perf_counter() - t0, f"exit {status}")
            else:
                flag = " MISMATCH with the server's scores" if reply.get("mismatches") else ""
                state = "failed" if reply.get("status") == "FAILED" else "submitted"
                reason = f" ({reply.get('reason')})" if reply.get("reason") else ""
                outcome = Outcome(spec.name, state, time.perf_counter() - t0,
                                  f"{detail}{reply.get('status', '?')}{reason}{flag}", headline(out))
        except SystemExit as e:  # argparse rejects options a baseline does not have
            outcome = Outcome(spec.name, "failed", time.perf_counter() - t0, f"exit {e.code}")
        except Exception as e:
            outcome = Outcome(spec.name, "failed", time.perf_counter() - t0, f"{type(e).__name__}: {e}")
        outcomes.append(outcome)
        if not verbose:
            if outcome.status == "failed" and captured.getvalue():
                print(f"{tag} figbench {' '.join(argv)}\n{captured.getvalue().rstrip()}", flush=True)
            score = f"{outcome.score}  " if outcome.score else ""
            print(f"{tag} {spec.name:{width}s}  {score}{outcome.status}: {outcome.detail}  {outcome.seconds:.1f} s",
                  flush=True)
    return outcomes


#: a trained run's status when the committed records are not beside the code (a wheel install)
NOT_INSTALLED = "record not in this install"


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
        if not committed.is_dir():  # an installed package: the records ship with the source repository
            outcomes.append(Outcome(spec.name, NOT_INSTALLED, 0.0, f"no {committed}: the committed records "
                                    f"(results/{path.name}) come with the source repository, not the package"))
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
    """One row per run (columns as wide as the longest spec name and score), then the counts."""
    print("\nquickstart summary")
    width = max((len(o.name) for o in outcomes), default=0)
    swidth = max((len(o.score) for o in outcomes), default=0)
    for o in outcomes:
        if o.status == NOT_INSTALLED:
            continue   # one line for them all, below
        score = f"{o.score:{swidth}s}  " if swidth else ""
        print(f"  {o.name:{width}s}  {o.seconds:7.1f} s  {score}{o.status}{': ' + o.detail if o.detail else ''}")
    absent_records = [o.name for o in outcomes if o.status == NOT_INSTALLED]
    if absent_records:
        print(f"  {len(absent_records)} trained run(s), {NOT_INSTALLED}: their committed records (results/*.json) "
              f"come with the source repository, not the package ({', '.join(absent_records)})")
    counts = {s: sum(o.status == s for o in outcomes)
              for s in ("submitted", "loaded", "stored", "not run yet", NOT_INSTALLED, "failed")}
    problems = f"{counts['failed']} FAILED" if counts["failed"] else "no failures"
    loaded = f"{counts['loaded']} committed records loaded, " if counts["loaded"] else ""
    absent = f"{counts['not run yet']} trained runs without a record, " if counts["not run yet"] else ""
    if counts[NOT_INSTALLED]:
        absent += f"{counts[NOT_INSTALLED]} trained runs whose records are not in this install, "
    print(f"  {len(outcomes)} runs: {counts['submitted']} submitted, {loaded}{counts['stored']} already stored, "
          f"{absent}{problems}; {total_s:.1f} s in all")


def main(args: argparse.Namespace) -> int:
    from figbench.cli import main as figbench_main

    only = check_only(args.only) if args.only else None
    if not args.no_serve:  # a busy port is said now, not after the runs
        from figbench_leaderboard.ui.ports import check_port_free

        check_port_free(args.host, args.port)
    specs, skipped = plan(only)
    for line in skipped:
        print(f"skipped {line}")
    if not specs:
        print(f"figbench quickstart: {no_runs_message(only)}", file=sys.stderr)
        return 1
    store = Path(args.store)
    results = Path(args.results_dir) if args.results_dir else store.parent / "results"
    t0 = time.perf_counter()
    outcomes = run_specs(specs, store, results, n_resamples=args.n_resamples, force=args.force,
                         verbose=getattr(args, "verbose", True))
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
