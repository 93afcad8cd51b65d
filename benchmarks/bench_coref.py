"""Benchmark: figbench's coreference scorer vs scorch on identical synthetic cross-document corpora.

Both scorers get the same key/response clusters (one cross-document document) at 1K, 10K and 50K
mentions (mentions : clusters = 50,000 : 8,000); the response is the key with realistic noise
(missed mentions, twinless mentions, merges, splits, moved mentions). Runs pinned to one CPU core,
prints times, figbench's peak heap (tracemalloc) and scorch/figbench ratios, and checks that figbench
is faster at every size and scores 50K mentions (all metrics) in under 2 s. Imports happen before
timing on both sides (a warm-up call for figbench; scorch is imported before its clock starts).
Also checks that both agree (to 1e-9) on the metrics scorch finished.

scorch's CEAF builds a dense key x response matrix in Python and its BLANC dense n x n mention
matrices; each scorch metric runs in a child process under ``--scorch-timeout`` seconds, and scorch's
BLANC is skipped where its n x n matrices would exceed ``--scorch-max-matrix`` entries (a skipped or
timed-out metric makes the ratio a lower bound, printed with ">").

Usage: python benchmarks/bench_coref.py [--sizes 1000 10000 50000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import sys

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import multiprocessing as mp  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

MENTIONS_PER_CLUSTER = 50_000 / 8_000


def synthetic_corpus(n_mentions: int, seed: int = 0) -> tuple[list[list[str]], list[list[str]]]:
    """Key and noisy response clusters (one cross-document document) with ``n_mentions`` key mentions."""
    rng = np.random.default_rng(seed)
    n_clusters = max(1, round(n_mentions / MENTIONS_PER_CLUSTER))
    # skewed cluster sizes: every cluster gets one mention, the rest follow a Zipf-like popularity
    weights = 1.0 / np.arange(1, n_clusters + 1) ** 0.8
    assign = np.concatenate([np.arange(n_clusters),
                             rng.choice(n_clusters, size=n_mentions - n_clusters, p=weights / weights.sum())])
    rng.shuffle(assign)
    ids = np.array([f"m{i}" for i in range(n_mentions)], dtype=object)
    key = [list(ids[assign == c]) for c in range(n_clusters)]
    # response: drop 5% of mentions, move 3% to another cluster, split 5% of clusters, merge 3% of pairs,
    # add 5% twinless mentions (half as singletons, half into existing clusters)
    label = assign.copy()
    keep = rng.random(n_mentions) > 0.05
    move = rng.random(n_mentions) < 0.03
    label[move] = rng.integers(0, n_clusters, move.sum())
    split_clusters = rng.choice(n_clusters, size=int(0.05 * n_clusters), replace=False)
    in_split = np.isin(label, split_clusters) & (rng.random(n_mentions) < 0.5)
    label[in_split] += n_clusters  # the moved half becomes a new cluster
    next_label = 2 * n_clusters
    merge_a = rng.choice(n_clusters, size=int(0.03 * n_clusters), replace=False)
    merge_b = rng.integers(0, n_clusters, len(merge_a))
    remap = np.arange(next_label + n_clusters)
    remap[merge_a] = merge_b
    label = remap[label]
    n_twin = int(0.05 * n_mentions)
    twin_ids = np.array([f"x{i}" for i in range(n_twin)], dtype=object)
    twin_label = np.where(rng.random(n_twin) < 0.5, rng.integers(0, n_clusters, n_twin),
                          label.max() + 1 + np.arange(n_twin))
    all_ids = np.concatenate([ids[keep], twin_ids])
    all_labels = np.concatenate([label[keep], twin_label])
    order = np.argsort(all_labels, kind="stable")
    all_ids, all_labels = all_ids[order], all_labels[order]
    bounds = np.flatnonzero(np.r_[True, all_labels[1:] != all_labels[:-1], True])
    response = [list(all_ids[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]
    return key, response


def _pin_one_core() -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})


def time_figbench(key, response, repeats: int) -> tuple[float, dict]:
    from figbench.scoring.coref import evaluate_coref

    warm_key, warm_response = synthetic_corpus(300, seed=1)
    evaluate_coref([warm_response], [warm_key])  # imports SciPy's matching code before timing
    best, result = float("inf"), {}
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = evaluate_coref([response], [key])
        best = min(best, time.perf_counter() - t0)
    return best, result


def peak_memory_figbench(key, response) -> float:
    """Peak Python/numpy heap (MiB, tracemalloc) of one figbench evaluation."""
    import tracemalloc

    from figbench.scoring.coref import evaluate_coref

    tracemalloc.start()
    evaluate_coref([response], [key])
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def _scorch_child(metric: str, key, response, queue) -> None:
    _pin_one_core()
    from scorch import scores

    fn = {"muc": scores.muc, "bcub": scores.b_cubed, "ceafm": scores.ceaf_m, "ceafe": scores.ceaf_e,
          "blanc": scores.blanc}[metric]
    t0 = time.perf_counter()
    # key and response as lists of sets, as scorch.scores expects (no extra key singletons: that
    # matches the reference scorer v8.01, see the metric card)
    k = [set(c) for c in key]
    r = [set(c) for c in response]
    value = fn(k, r)
    queue.put((time.perf_counter() - t0, tuple(float(v) for v in value)))


def time_scorch(key, response, timeout: float, max_matrix: float) -> dict[str, tuple[str, float, tuple | None]]:
    """metric -> (status, seconds, (R, P, F)); status is 'ok', 'timeout' or 'skipped'."""
    out = {}
    n = len({m for c in key for m in c} | {m for c in response for m in c})  # scorch's BLANC matrix side
    ctx = mp.get_context("fork")
    for metric in ("muc", "bcub", "ceafm", "ceafe", "blanc"):
        if metric == "blanc" and float(n) ** 2 > max_matrix:
            out[metric] = ("skipped", 0.0, None)
            continue
        queue = ctx.Queue()
        proc = ctx.Process(target=_scorch_child, args=(metric, key, response, queue))
        proc.start()
        proc.join(timeout)
        if proc.is_alive():
            proc.kill()
            proc.join()
            out[metric] = ("timeout", timeout, None)
        else:
            seconds, value = queue.get()
            out[metric] = ("ok", seconds, value)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 50_000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--scorch-timeout", type=float, default=60.0, help="seconds per scorch metric")
    parser.add_argument("--scorch-max-matrix", type=float, default=2e8,
                        help="skip scorch BLANC when (distinct mentions)^2 exceeds this (its dense n x n matrices)")
    args = parser.parse_args(argv)
    _pin_one_core()
    print(f"one CPU core (affinity {sorted(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else '?'})")
    header = (f"{'mentions':>9} {'clusters':>9} {'figbench s':>11} {'peak MiB':>9} {'scorch s':>10} {'ratio':>9}"
              "  scorch metrics")
    print(header)
    print("-" * len(header))
    all_faster, under_2s, agree = True, True, True
    for size in args.sizes:
        key, response = synthetic_corpus(size, seed=args.seed)
        fig_s, fig = time_figbench(key, response, args.repeats)
        peak = peak_memory_figbench(key, response)
        sc = time_scorch(key, response, args.scorch_timeout, args.scorch_max_matrix)
        sc_s = sum(s for _, s, _ in sc.values())
        bound = any(status != "ok" for status, _, _ in sc.values())
        ratio = sc_s / fig_s
        faster = sc_s > fig_s
        all_faster &= faster
        if size >= 50_000:
            under_2s &= fig_s < 2.0
        for metric, (status, _, value) in sc.items():
            if status == "ok":
                for part, v in zip(("recall", "precision", "f1"), value):
                    if abs(fig[f"{metric}_{part}"] - v) > 1e-9:
                        agree = False
                        print(f"  disagreement at {size}: {metric}_{part} figbench={fig[f'{metric}_{part}']!r} "
                              f"scorch={v!r}")
        status = ", ".join(f"{m}:{s if st == 'ok' else 0:.2f}s" if st == "ok" else f"{m}:{st}"
                           for m, (st, s, _) in sc.items())
        print(f"{size:>9} {len(key):>9} {fig_s:>11.3f} {peak:>9.1f} {('>' if bound else '') + f'{sc_s:.2f}':>10} "
              f"{('>' if bound else '') + f'{ratio:.1f}x':>9}  {status}", flush=True)
    print()
    print(f"figbench faster than scorch at every size: {all_faster}")
    print(f"figbench under 2 s at 50K mentions (all metrics, one core): {under_2s}")
    print(f"scores agree with scorch to 1e-9 where scorch finished: {agree}")
    return 0 if (all_faster and under_2s and agree) else 1


if __name__ == "__main__":
    sys.exit(main())
