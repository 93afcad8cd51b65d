"""Leaderboard speed: what each tab costs the server with many stored submissions, and scoring ECB+.

Targets (issue 13): with 5,000 submissions whose free-form fields are all at their limits, the
overview is built in under 1 s of server time (cold: read the store, build, filter, format), every
tab's content in well under 2 s, a Queue tick on an unchanged board costs one ``SELECT``; an ECB+
test coreference submission (1,780 mentions, 1,000 bootstrap resamples) is scored in under 2 s.

``--old REV`` times the same store with the leaderboard code of git revision REV (e.g. the commit
before issue 13) side by side: its whole ``leaderboard/`` tree (sub-packages and package data) is exported
from git (``git archive``) into a temporary package; a revision with the layered layout (``ui/``,
``store/``, ...) is timed by the same code as the working tree, an older flat one by its own API.

    python benchmarks/bench_leaderboard.py [--sizes 500 5000] [--repeats 3] [--old 36cbd24]
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _time(fn, repeats: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def old_package(rev: str) -> str:
    """The ``leaderboard/`` tree of git revision ``rev`` (every file, sub-packages included) as an importable
    package; returns its name."""
    import atexit
    import shutil
    import tarfile

    name = "figbench_leaderboard_old"
    tmp = Path(tempfile.mkdtemp(prefix="lb-old-"))
    atexit.register(shutil.rmtree, tmp, True)
    archive = subprocess.run(["git", "archive", "--format=tar", rev, "leaderboard/"], cwd=ROOT, check=True,
                             capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(tmp, filter="data")
    dest = tmp / name
    shutil.move(str(tmp / "leaderboard"), dest)
    for f in dest.rglob("*.py"):
        f.write_text(f.read_text("utf-8").replace("figbench_leaderboard", name), "utf-8")
    sys.path.insert(0, str(tmp))
    return name


def _layered(pkg: str) -> bool:
    """Whether package ``pkg`` has the leaderboard's layered layout (``ui/``, ``store/``, ``scoring/``, ...)."""
    import importlib.util

    return importlib.util.find_spec(f"{pkg}.ui") is not None


def bench_new(store_dir: str, repeats: int, pkg: str = "figbench_leaderboard") -> dict[str, float]:
    """The tabs' costs with the layered leaderboard package ``pkg`` (the working tree's, or a revision's)."""
    def mod(path: str):
        return importlib.import_module(f"{pkg}.{path}")

    HiddenSplitPolicy = mod("access.hidden_policy").HiddenSplitPolicy
    BenchmarkRegistry = mod("domain.benchmarks").BenchmarkRegistry
    Leaderboard = mod("scoring.board").Leaderboard
    JsonGoldProvider = mod("scoring.gold").JsonGoldProvider
    Store = mod("store.sqlite").Store
    plots, tables = mod("ui.plots"), mod("ui.tables")
    # the tables module was split after the layering: a revision before it keeps them in ui.tables
    task_tables = mod("ui.task_tables") if importlib.util.find_spec(f"{pkg}.ui.task_tables") else tables
    submission_tables = (mod("ui.submission_tables") if importlib.util.find_spec(f"{pkg}.ui.submission_tables")
                         else tables)
    BoardView = mod("ui.board_view").BoardView

    reg = BenchmarkRegistry()
    out: dict[str, float] = {}

    def cold_overview():
        board = Leaderboard(Store(store_dir), JsonGoldProvider({}), registry=reg, policy=HiddenSplitPolicy())
        view = BoardView(board)
        group = tables.default_group(view.rows(), reg)
        df = view.cached(("overview", group), lambda r: tables.overview(r, reg, group))
        shown = tables.filter_table(df, search="model", show_unverified=False)
        return tables.display_overview(shown, [b.label for b in tables.group_benchmarks(reg, group)])

    out["overview (cold: read + build + filter + format)"], disp = _time(cold_overview, repeats)
    board = Leaderboard(Store(store_dir), JsonGoldProvider({}), registry=reg, policy=HiddenSplitPolicy())
    view = BoardView(board)
    view.rows()
    group = tables.default_group(view.rows(), reg)
    view.cached(("overview", group), lambda r: tables.overview(r, reg, group))

    def warm_overview():
        df = view.cached(("overview", group), lambda r: tables.overview(r, reg, group))
        return tables.display_overview(tables.filter_table(df, search="model-1", show_unverified=False),
                                       [b.label for b in tables.group_benchmarks(reg, group)])

    out["overview (cached view, new filter)"], _ = _time(warm_overview, repeats)
    out["store read (board rows)"], rows = _time(board.store.board_rows, repeats)
    out["family tables (every task)"], _ = _time(
        lambda: [task_tables.task_table(rows, reg, t) for t in reg.tasks], repeats)

    makers = [(lambda t=t, p=p: plots.paired_figure(plots.paired_frame(rows, reg, t, p), t, p, reg))
              if p.kind == "paired"
              else (lambda t=t, p=p: plots.distribution_figure(plots.distribution_frame(rows, reg, t, p), t, p))
              for t, p in plots.declared_plots(reg)]
    makers.append(lambda: plots.size_figure(tables.overview(rows, reg, group), group))
    [m().to_json() for m in makers]   # warm-up: plotly's import and validators
    per_plot = [_time(lambda m=m: m().to_json(), repeats) for m in makers]
    out["plots: slowest single plot (build + JSON)"] = max(t for t, _ in per_plot)
    out["plots: all declared plots + size"] = sum(t for t, _ in per_plot)
    out["largest plot JSON (MB)"] = max(len(j) for _, j in per_plot) / 1e6
    out["queue page (50 newest)"], _ = _time(lambda: submission_tables.queue_table(board.store.queue_page(limit=50),
                                                                                 reg, newest_first=True), repeats)
    out["queue tick, board unchanged"], _ = _time(view.revision, repeats)
    out["overview rows"] = float(len(disp))
    return out


def bench_old(pkg: str, store_dir: str, repeats: int) -> dict[str, float]:
    """The same costs with revision ``pkg``'s code: the layered layout as the working tree's, else the flat one."""
    if _layered(pkg):
        return bench_new(store_dir, repeats, pkg)
    tables = importlib.import_module(f"{pkg}.tables")
    Store = importlib.import_module(f"{pkg}.store").Store
    reg = importlib.import_module(f"{pkg}.benchmarks").BenchmarkRegistry()
    out: dict[str, float] = {}
    store = Store(store_dir)
    out["overview (cold: read + build + filter + format)"], _ = _time(
        lambda: tables.filter_table(tables.overview(store.list(), reg), search="model"), repeats)
    rows = store.list()
    out["store read (board rows)"], _ = _time(store.list, repeats)
    fams = ("coreference", "meta4xnli", "wimcor", "epic")
    out["family tables (every task)"], _ = _time(lambda: [tables.family_table(rows, reg, f) for f in fams], repeats)

    def old_plots():
        pngs = []
        for fig in (tables.robustness_plot(tables.robustness_frame(rows, reg), reg),
                    tables.size_plot(tables.overview(rows, reg))):
            buf = io.BytesIO()
            fig.savefig(buf, format="png")   # what Gradio does with a matplotlib figure
            pngs.append(buf.getvalue())
        return pngs

    old_plots()   # warm-up: matplotlib's import and font cache
    out["plots: all declared plots + size"], _ = _time(old_plots, max(1, repeats // 2))
    out["queue page (50 newest)"], _ = _time(lambda: tables.queue_table(store.list()), repeats)
    out["queue tick, board unchanged"] = out["queue page (50 newest)"]   # it rebuilt the whole queue every 5 s
    return out


def _ecbplus_gold():
    from figbench_leaderboard.domain.benchmarks import BenchmarkRegistry
    from figbench_leaderboard.scoring.gold import BuilderGoldProvider
    from figbench_leaderboard.store.synthetic import synthetic_coref_gold

    root = os.environ.get("FIGBENCH_DATA_DIR") or str(ROOT.parent / "shared" / "data")
    if (Path(root) / "ecbplus").is_dir():
        try:
            bench = BenchmarkRegistry().find("cdec", "ecbplus", "events", "test")
            return BuilderGoldProvider(root).get(bench), "real ECB+ test"
        except Exception as e:  # fall back to the synthetic corpus, and say so
            print(f"(real ECB+ not loadable: {e}; using a synthetic corpus)")
    return synthetic_coref_gold(1780, 805, seed=0), "synthetic corpus of ECB+ test size"


def bench_scoring(repeats: int) -> float:
    from figbench_leaderboard.domain.submission import parse_predictions
    from figbench_leaderboard.store.synthetic import noisy_clusters

    from figbench.tasks import get_task

    task = get_task("cdec")
    gold, what = _ecbplus_gold()
    pred = noisy_clusters(gold, seed=1)
    print(f"\nscoring an ECB+ test coreference submission ({what}: {len(gold.ids):,} mentions, "
          f"{len(gold.clusters):,} gold clusters, {len(pred):,} predicted)")
    task.score(parse_predictions(task, pred, gold), gold, n_resamples=10)  # warm-up: imports, caches
    print(f"{'bootstrap resamples':>20} {'validate (s)':>13} {'score (s)':>10} {'total (s)':>10}")
    total_1000 = 0.0
    out = None
    for n_res in (0, 200, 1000):
        t_v, parsed = _time(lambda: parse_predictions(task, pred, gold), repeats)
        t_s, out = _time(lambda parsed=parsed, n_res=n_res: task.score(parsed, gold, n_resamples=n_res), repeats)
        print(f"{n_res:>20,} {t_v:>13.4f} {t_s:>10.3f} {t_v + t_s:>10.3f}")
        if n_res == 1000:
            total_1000 = t_v + t_s
    print(f"conll_f1 = {100 * out.scores['conll_f1']:.2f}")
    return total_1000


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[500, 5000])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--old", default=None, metavar="REV", help="also time the leaderboard code of this git revision")
    ap.add_argument("--no-scoring", action="store_true")
    args = ap.parse_args(argv)
    from figbench_leaderboard.store.sqlite import Store
    from figbench_leaderboard.store.synthetic import fill_store

    sizes = sorted(set(args.sizes) | {5000})
    old = old_package(args.old) if args.old else None
    results = {}
    for n in sizes:
        with tempfile.TemporaryDirectory() as d:
            store = Store(d)
            fill_store(store, n, n_models=max(1, n // 11), maximal=True)
            size_mb = (Path(d) / "leaderboard.sqlite").stat().st_size / 1e6
            store.close()
            new = bench_new(d, args.repeats)
            prev = bench_old(old, d, args.repeats) if old else {}
            results[n] = new
            print(f"\n{n:,} submissions, every free-form field at its limit (store {size_mb:.0f} MB), "
                  f"median of {args.repeats}; server seconds")
            print(f"{'':52} {'new':>9}" + (f" {'old (' + args.old + ')':>16}" if old else ""))
            for k, v in new.items():
                extra = f" {prev[k]:>16.3f}" if k in prev else (" " * 17 if old else "")
                print(f"{k:52} {v:>9.3f}{extra}")
    t_score = 0.0 if args.no_scoring else bench_scoring(max(1, args.repeats))
    ov = results[5000]["overview (cold: read + build + filter + format)"]
    ok_ov = ov < 1.0
    print(f"\ntarget: overview with 5,000 maximal submissions < 1 s: {ov:.3f} s -> {'PASS' if ok_ov else 'FAIL'}")
    if not args.no_scoring:
        print(f"target: score ECB+ test (1,000 resamples) < 2 s: {t_score:.3f} s -> "
              f"{'PASS' if t_score < 2.0 else 'FAIL'}")
    print(json.dumps({str(k): v for k, v in results.items()}))
    return 0 if ok_ov and (args.no_scoring or t_score < 2.0) else 1


if __name__ == "__main__":
    sys.exit(main())
