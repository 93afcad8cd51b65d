"""Leaderboard speed: overview table over many stored submissions, and scoring an ECB+ test submission.

Targets (issue 6): with 5,000 stored submissions the overview table is built in under 1 s of server
time; an ECB+ test coreference submission (1,780 mentions, all metrics + 1,000 bootstrap
resamples) is scored in under 2 s. Sizes are run side by side in one run; the ECB+ gold comes
from the real corpus when ``FIGBENCH_DATA_DIR`` (or ``../shared/data``) has it, else a synthetic
corpus of the same size.

    python benchmarks/bench_leaderboard.py [--sizes 500 5000 20000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path


def _time(fn, repeats: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def bench_overview(sizes: list[int], repeats: int) -> dict[int, float]:
    from figbench_leaderboard import tables
    from figbench_leaderboard.benchmarks import BenchmarkRegistry
    from figbench_leaderboard.store import Store
    from figbench_leaderboard.synthetic import fill_store

    reg = BenchmarkRegistry()
    print(f"{'submissions':>12} {'list (s)':>9} {'overview (s)':>13} {'filter+sort (s)':>16} {'total (s)':>10} {'models':>7}")
    totals = {}
    for n in sizes:
        with tempfile.TemporaryDirectory() as d:
            store = Store(d)
            fill_store(store, n, registry=reg, n_models=max(1, n // 40))
            t_list, rows = _time(store.list, repeats)
            t_ov, ov = _time(lambda: tables.overview(rows, reg), repeats)
            t_f, _ = _time(lambda: tables.filter_table(ov, search="model-1", types=["heuristic", "other"],
                                                       sizes=["< 100M", "100M-1B"], sort_by="ECB+"), repeats)
            t_total, _ = _time(lambda: tables.filter_table(tables.overview(store.list(), reg), search="model"), repeats)
            totals[n] = t_total
            print(f"{n:>12,} {t_list:>9.3f} {t_ov:>13.3f} {t_f:>16.4f} {t_total:>10.3f} {len(ov):>7,}")
            store.close()
    return totals


def _ecbplus_gold():
    from figbench_leaderboard.benchmarks import BenchmarkRegistry
    from figbench_leaderboard.gold import BuilderGoldProvider
    from figbench_leaderboard.synthetic import synthetic_coref_gold

    root = os.environ.get("FIGBENCH_DATA_DIR") or str(Path(__file__).resolve().parent.parent.parent / "shared" / "data")
    if (Path(root) / "ecbplus").is_dir():
        try:
            bench = BenchmarkRegistry().find("cdec", "ecbplus", "events", "test")
            return BuilderGoldProvider(root).get(bench), "real ECB+ test"
        except Exception as e:  # fall back to the synthetic corpus, and say so
            print(f"(real ECB+ not loadable: {e}; using a synthetic corpus)")
    return synthetic_coref_gold(1780, 805, seed=0), "synthetic corpus of ECB+ test size"


def bench_scoring(repeats: int) -> float:
    from figbench_leaderboard.formats import parse_predictions
    from figbench_leaderboard.scoring import score
    from figbench_leaderboard.synthetic import noisy_clusters

    gold, what = _ecbplus_gold()
    pred = noisy_clusters(gold, seed=1)
    print(f"\nscoring an ECB+ test coreference submission ({what}: {len(gold.ids):,} mentions, "
          f"{len(gold.clusters):,} gold clusters, {len(pred):,} predicted)")
    score("cdec", parse_predictions("cdec", pred, gold), gold, n_resamples=10)  # warm-up: imports, caches
    print(f"{'bootstrap resamples':>20} {'validate (s)':>13} {'score (s)':>10} {'total (s)':>10}")
    total_1000 = 0.0
    for n_res in (0, 200, 1000):
        t_v, parsed = _time(lambda: parse_predictions("cdec", pred, gold), repeats)
        t_s, out = _time(lambda: score("cdec", parsed, gold, n_resamples=n_res), repeats)
        print(f"{n_res:>20,} {t_v:>13.4f} {t_s:>10.3f} {t_v + t_s:>10.3f}")
        if n_res == 1000:
            total_1000 = t_v + t_s
    print(f"conll_f1 = {100 * out.scores['conll_f1']:.2f}")
    return total_1000


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[500, 5000, 20000])
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)
    sizes = sorted(set(args.sizes) | {5000})
    print("overview table (server time: read the store + build the table; median of "
          f"{args.repeats} runs)")
    totals = bench_overview(sizes, args.repeats)
    t_score = bench_scoring(max(1, args.repeats // 2))
    ok_ov, ok_sc = totals[5000] < 1.0, t_score < 2.0
    print(f"\ntarget: overview with 5,000 submissions < 1 s: {totals[5000]:.3f} s -> {'PASS' if ok_ov else 'FAIL'}")
    print(f"target: score ECB+ test (1,000 resamples) < 2 s: {t_score:.3f} s -> {'PASS' if ok_sc else 'FAIL'}")
    return 0 if ok_ov and ok_sc else 1


if __name__ == "__main__":
    sys.exit(main())
