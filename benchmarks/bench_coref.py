"""Benchmark: figbench's coreference scorer (core function and `evaluate` wrapper) vs scorch.

All scorers get the same key/response clusters (one cross-document document) at each size (default
50K and 200K key mentions; mentions : clusters = 50,000 : 8,000), for these shapes of the response
(and, for ``uniform`` and the overlap-graph shapes, of the key):

* ``realistic``: the key with realistic noise (missed mentions, twinless mentions, merges, splits,
  moved mentions);
* ``random``: every key mention in a uniformly random cluster (as many clusters as the key): one
  giant group of overlapping clusters;
* ``one``: everything merged into one response cluster;
* ``singletons``: every mention its own response cluster;
* ``uniform``: key and response both uniformly random clusters of about 6 mentions (one giant,
  sparse, cyclic overlap graph); ``uniform2`` and ``uniform30`` the same with about 2.5 and 30
  mentions per cluster;
* ``powerlaw``: key and response cluster sizes both Zipf-distributed (a few huge clusters, many tiny);
* ``giant_key``: the key is one cluster, the response ``uniform``'s (one star);
* ``grid``: mentions on a square grid, key clusters its rows, response clusters its columns (one
  complete bipartite graph, every weight equal);
* ``blocks``: 10 x 10 complete bipartite blocks of equal weights (ties everywhere);
* ``band``: each mention's response cluster is its key cluster plus 0, 1 or 2 at random (key clusters
  of 6 consecutive mentions): a long, thin overlap graph full of cycles, no leaves;
* ``shift1``: the key (clusters of 6 consecutive mentions) shifted by one mention (a path of
  unequal weights);
* ``chain``: key clusters of 6 consecutive mentions, every response cluster straddling two
  consecutive key clusters (the overlap graph is one long path);
* ``ring``: ``chain`` closed into one long cycle;
* ``tree``: key clusters as a binary heap, response cluster j sharing mentions with key cluster j and
  its parent (the overlap graph is a tree);
* ``pairs``: clusters of two mentions paired at random on each side (long cycles); ``pairs_chords``,
  ``pairs10``, ``pairs30``, ``pairs50`` with 2%, 10%, 30%, 50% of the clusters three mentions (chords:
  long chains at 2%, short ones beyond);
* ``regular3``, ``regular4``, ``regular6``, ``regular10``: key clusters of d consecutive mentions,
  response clusters of d mentions drawn at random (a random d-regular overlap graph, no leaves, every
  overlap one mention: all weights tied); ``biregular`` the same with 3 and 4;
* ``mixed`` and ``near_ties``: a random 3-regular overlap graph whose overlaps are 1-3 mentions (mixed
  weights) or 9-11 (CEAF-e weights within a few percent of each other);
* ``islands``, ``islands60``: many small components (blocks of 24 or 60 mentions, key and response
  clusters random within each block).

Runs pinned to one CPU core with one BLAS/OpenMP thread; reports the median of ``--repeats`` runs of
CPU time (``time.process_time``) and wall time. Other processes share this machine's cores, so CPU
time is the reliable number; wall time is printed beside it. Also figbench's peak heap
(tracemalloc, one run) and the scorch/figbench CPU ratio. Checks: figbench faster than scorch
everywhere; under 1 s at 50K and under 4 s at 200K (CPU) for every shape; the `evaluate` wrapper
within 20% (CPU) of the core function (above 10K mentions, where the fixed cost of a call does not
dominate); figbench and scorch agree (to 1e-9) on the metrics scorch finished. Imports happen
before timing on both sides (scorch is imported before its clock starts; figbench's core function and
wrapper are each warmed up once per process, with a case whose core is over ``HUNGARIAN_MIN_EDGES`` so
numba's import and cache load, or a fresh install's compile, is not in the first large timed call).

scorch's CEAF builds a dense key x response matrix in Python and its BLANC dense n x n mention
matrices; each scorch metric runs in a child process under ``--scorch-timeout`` seconds, and scorch's
BLANC is skipped where its n x n matrices would exceed ``--scorch-max-matrix`` entries (a skipped or
timed-out metric makes the ratio a lower bound, printed with ">").

Usage: python benchmarks/bench_coref.py [--sizes 50000 200000] [--shapes realistic random ...]
       [--repeats 3] [--scorch-timeout 60] [--no-scorch] [--json [benchmarks/bench_coref.json]] [--note TEXT]

``--json`` appends the run's figbench timings (per shape and size: core and wrapper CPU and wall seconds,
repeats, the target and whether it was met; the commit, date, load average at the start and end, the
machine, the warm-up) to ``benchmarks/bench_coref.json``; ``figbench docs --write`` renders README's
CEAF-speed block from it.
"""

from __future__ import annotations

import argparse
import os
import sys

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import multiprocessing as mp
import statistics
import time
from pathlib import Path

import numpy as np

#: where ``--json`` appends its run by default (committed; ``figbench docs`` renders README from it)
JSON_PATH = Path(__file__).resolve().parent / "bench_coref.json"

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


#: clusters of two mentions paired at random, with this share of clusters of three (chords)
PAIRS_CHORDS = {"pairs": 0.0, "pairs_chords": 0.02, "pairs10": 0.1, "pairs30": 0.3, "pairs50": 0.5}
#: random regular overlap graphs: (mentions per key cluster, mentions per response cluster)
REGULAR = {"regular3": (3, 3), "regular4": (4, 4), "regular6": (6, 6), "regular10": (10, 10), "biregular": (3, 4)}
#: random 3-regular overlap graphs whose overlaps are slots of (low, high) mentions
SLOTS = {"mixed": (1, 3), "near_ties": (9, 11)}
#: many small components: (mentions per block, key/response clusters per block)
ISLANDS = {"islands": (24, 4), "islands60": (60, 20)}
#: shapes that bring their own key (the others score a response against ``synthetic_corpus``'s key)
OWN_KEY = ("uniform", "uniform2", "uniform30", *PAIRS_CHORDS, "powerlaw", "giant_key", "grid", "blocks",
           "band", "shift1", "chain", "ring", "tree", *REGULAR, *SLOTS, *ISLANDS)
SHAPES = ("realistic", "random", "one", "singletons") + OWN_KEY


def _clusters(ids: np.ndarray, labels: np.ndarray) -> list[list[str]]:
    order = np.argsort(labels, kind="stable")
    arr, labels = ids[order], labels[order]
    bounds = np.flatnonzero(np.r_[True, labels[1:] != labels[:-1], True])
    return [arr[a:b].tolist() for a, b in zip(bounds[:-1], bounds[1:])]


def _random_family(ids: np.ndarray, shape: str, rng: np.random.Generator) -> tuple[list[list[str]], list[list[str]]]:
    """(key, response) of the random families: pairs with chords, regular overlap graphs, slots, islands."""
    n_mentions = len(ids)
    position = np.arange(n_mentions)
    if shape in PAIRS_CHORDS:
        # every cluster two mentions, paired at random on each side: an overlap graph of long cycles;
        # with chords, a share of the clusters three mentions (chains between branch points, long at 2%,
        # short at 10-50%)
        chords = PAIRS_CHORDS[shape]

        def labels() -> np.ndarray:
            sizes = rng.choice([2, 3], n_mentions, p=[1.0 - chords, chords])
            return np.repeat(np.arange(n_mentions), sizes)[:n_mentions]
        return _clusters(ids, labels()), _clusters(ids, labels()[rng.permutation(n_mentions)])
    if shape in REGULAR:
        # key clusters of d consecutive mentions, response clusters of d' mentions drawn at random: a
        # random (d, d')-regular overlap graph, nearly every overlap one mention (all weights tied)
        d, d_resp = REGULAR[shape]
        return _clusters(ids, position // d), _clusters(ids, rng.permutation(n_mentions) // d_resp)
    if shape in SLOTS:
        # slots of random sizes (overlaps); a key cluster is three consecutive slots, a response cluster
        # three slots drawn at random: a random 3-regular overlap graph with mixed (1-3 mentions) or
        # nearly tied (9-11 mentions: CEAF-e weights within a few % of each other) weights
        low, high = SLOTS[shape]
        sizes = rng.integers(low, high + 1, n_mentions // low + 3)
        slot = np.repeat(np.arange(len(sizes)), sizes)[:n_mentions]
        n_slots = int(slot.max()) + 1
        return _clusters(ids, slot // 3), _clusters(ids, rng.permutation(n_slots)[slot] // 3)
    # many small components: blocks of mentions, key and response clusters random within each block
    block_size, per_block = ISLANDS[shape]
    block = position // block_size
    return (_clusters(ids, per_block * block + rng.integers(0, per_block, n_mentions)),
            _clusters(ids, per_block * block + rng.integers(0, per_block, n_mentions)))


def graph_case(n_mentions: int, shape: str, seed: int = 0) -> tuple[list[list[str]], list[list[str]]]:
    """(key, response) of the shapes in :data:`OWN_KEY`, with ``n_mentions`` mentions on each side."""
    rng = np.random.default_rng(seed + 2)
    ids = np.array([f"m{i}" for i in range(n_mentions)], dtype=object)
    n_clusters = max(1, n_mentions // 6)
    position = np.arange(n_mentions)
    if shape in ("uniform", "uniform2", "uniform30"):
        size = {"uniform": 6, "uniform2": 2.5, "uniform30": 30}[shape]
        n = max(1, round(n_mentions / size))
        return (_clusters(ids, rng.integers(0, n, n_mentions)), _clusters(ids, rng.integers(0, n, n_mentions)))
    if shape == "powerlaw":
        # cluster sizes from a Zipf law on both sides (a few huge clusters, many tiny ones)
        p = 1.0 / np.arange(1, n_clusters + 1)
        p /= p.sum()
        return (_clusters(ids, rng.choice(n_clusters, n_mentions, p=p)),
                _clusters(ids, rng.permutation(n_clusters)[rng.choice(n_clusters, n_mentions, p=p)]))
    if shape in (*PAIRS_CHORDS, *REGULAR, *SLOTS, *ISLANDS):
        return _random_family(ids, shape, rng)
    if shape == "giant_key":
        return [list(ids)], _clusters(ids, rng.integers(0, n_clusters, n_mentions))
    if shape == "grid":
        # mentions on a square grid; key clusters are its rows, response clusters its columns: one
        # complete bipartite graph with every weight equal
        side = int(np.ceil(np.sqrt(n_mentions)))
        return _clusters(ids, position // side), _clusters(ids, position % side)
    if shape == "blocks":
        # blocks of 60 mentions: 10 key clusters (consecutive) x 10 response clusters (strided), all
        # overlaps one mention: many complete bipartite K(10,10) with equal weights
        block, offset = position // 60, position % 60
        return _clusters(ids, 10 * block + offset // 6), _clusters(ids, 10 * block + offset % 10)
    block = position // 6                                    # key cluster of each mention
    if shape == "band":
        # response cluster of each mention: its key cluster plus 0, 1 or 2 at random: a long, thin
        # overlap graph full of cycles (no leaves to peel), each key cluster overlapping three
        return _clusters(ids, block), _clusters(ids, block + rng.integers(0, 3, n_mentions))
    if shape == "shift1":
        return _clusters(ids, block), _clusters(ids, (position + 1) // 6)
    if shape in ("chain", "ring"):
        half = (position + 3) // 6                           # shifted by half a cluster
        if shape == "ring":
            half = half % (block.max() + 1)
        return _clusters(ids, block), _clusters(ids, half)
    if shape == "tree":
        # a binary heap of key clusters: mentions 0-1 of key cluster b go to response cluster b,
        # mentions 2-3 and 4-5 to the response clusters of its children 2b+1 and 2b+2 (their own ids
        # past the last block when there is no such child)
        n_blocks = int(block.max()) + 1
        pos = position % 6
        child = 2 * block + 1 + (pos >= 4)
        resp = np.where(pos < 2, block, np.where(child < n_blocks, child, n_blocks + child))
        return _clusters(ids, block), _clusters(ids, resp)
    raise ValueError(f"unknown shape {shape!r}; choose from {OWN_KEY}")


def response_shape(key: list[list[str]], realistic: list[list[str]], shape: str, seed: int = 0) -> list[list[str]]:
    """The response of ``shape`` (see the module doc) for ``key``; ``realistic`` is the noisy response."""
    ids = [m for c in key for m in c]
    if shape == "realistic":
        return realistic
    if shape == "one":
        return [list(ids)]
    if shape == "singletons":
        return [[m] for m in ids]
    if shape == "random":
        rng = np.random.default_rng(seed + 1)
        labels = rng.integers(0, len(key), len(ids))
        order = np.argsort(labels, kind="stable")
        arr, labels = np.array(ids, dtype=object)[order], labels[order]
        bounds = np.flatnonzero(np.r_[True, labels[1:] != labels[:-1], True])
        return [arr[a:b].tolist() for a, b in zip(bounds[:-1], bounds[1:])]
    raise ValueError(f"unknown shape {shape!r}; choose from {SHAPES}")


def target_seconds(size: int) -> float | None:
    """The CPU-seconds target at ``size`` mentions: under 4 s from 200K, under 1 s from 50K, none below."""
    return 4.0 if size >= 200_000 else 1.0 if size >= 50_000 else None


def _pin_one_core() -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})


def _timed(fn, repeats: int) -> tuple[float, float, object]:
    """(median CPU seconds, median wall seconds, last result) of ``repeats`` calls."""
    cpu, wall, result = [], [], None
    for _ in range(repeats):
        c0, w0 = time.process_time(), time.perf_counter()
        result = fn()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return statistics.median(cpu), statistics.median(wall), result


#: the warm-up's large case: a random 3-regular overlap graph (no leaves: its whole core, ~12,000 edges, is
#: over ``HUNGARIAN_MIN_EDGES``), so numba's import and cache load (or a fresh install's full compile) of the
#: compiled Hungarian search happen before the clock starts, not in the first large timed call
WARM_UP_LARGE = (12_000, "regular3")
#: what the warm-up does, as recorded in the JSON
WARM_UP = ("once per process, before the first timing of the core function and of the wrapper: one call on a "
           "300-mention realistic case, a 600-mention uniform one (SciPy, "
           f"OR-tools' min-cost flow) and a {WARM_UP_LARGE[0]:,}-mention {WARM_UP_LARGE[1]} one (a core of "
           "~12,000 edges, over HUNGARIAN_MIN_EDGES = 5,000: numba's import and cache load or compile of the "
           "Hungarian search); the timings exclude all of it")


#: which sides ("core", "wrapper") this process has warmed up (once each)
_WARM: set[str] = set()


def _warm_up_cases() -> list[tuple[list[list[str]], list[list[str]]]]:
    """Cases that import the matching's libraries (SciPy, OR-tools, numba) before the clock starts: a
    realistic one, a small cyclic one (peeling leaves a core for the min-cost flow) and a large leafless one
    (its core goes to the compiled Hungarian search)."""
    return [synthetic_corpus(300, seed=1), graph_case(600, "uniform", seed=1),
            graph_case(WARM_UP_LARGE[0], WARM_UP_LARGE[1], seed=1)]


def time_figbench(key, response, repeats: int) -> tuple[float, float, dict]:
    """figbench's core function: (CPU s, wall s, scores)."""
    from figbench.scoring.coref import evaluate_coref

    if "core" not in _WARM:
        for warm_key, warm_response in _warm_up_cases():
            evaluate_coref([warm_response], [warm_key])
        _WARM.add("core")
    return _timed(lambda: evaluate_coref([response], [key]), repeats)


def time_wrapper(key, response, repeats: int) -> tuple[float, float, dict]:
    """The `evaluate` metric (loaded before timing): (CPU s, wall s, scores)."""
    import evaluate

    import figbench

    metric = evaluate.load(figbench.metric_path("conll_coref"))
    if "wrapper" not in _WARM:
        for warm_key, warm_response in _warm_up_cases():
            metric.compute(predictions=[warm_response], references=[warm_key])
        _WARM.add("wrapper")
    return _timed(lambda: metric.compute(predictions=[response], references=[key]), repeats)


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
    c0, t0 = time.process_time(), time.perf_counter()
    # key and response as lists of sets, as scorch.scores expects (no extra key singletons: that
    # matches the reference scorer v8.01, see the metric card)
    k = [set(c) for c in key]
    r = [set(c) for c in response]
    value = fn(k, r)
    queue.put((time.process_time() - c0, time.perf_counter() - t0, tuple(float(v) for v in value)))


def time_scorch(key, response, timeout: float, max_matrix: float) -> dict[str, tuple[str, float, float, tuple | None]]:
    """metric -> (status, CPU s, wall s, (R, P, F)); status is 'ok', 'timeout' or 'skipped'."""
    out = {}
    n = len({m for c in key for m in c} | {m for c in response for m in c})  # scorch's BLANC matrix side
    ctx = mp.get_context("fork")
    for metric in ("muc", "bcub", "ceafm", "ceafe", "blanc"):
        if metric == "blanc" and float(n) ** 2 > max_matrix:
            out[metric] = ("skipped", 0.0, 0.0, None)
            continue
        queue = ctx.Queue()
        proc = ctx.Process(target=_scorch_child, args=(metric, key, response, queue))
        proc.start()
        proc.join(timeout)
        if proc.is_alive():
            proc.kill()
            proc.join()
            out[metric] = ("timeout", timeout, timeout, None)
        else:
            cpu, wall, value = queue.get()
            out[metric] = ("ok", cpu, wall, value)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[50_000, 200_000])
    parser.add_argument("--shapes", nargs="+", default=list(SHAPES), choices=SHAPES)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--scorch-timeout", type=float, default=60.0, help="seconds per scorch metric")
    parser.add_argument("--no-scorch", action="store_true",
                        help="time figbench only (no scorch column, no faster-than-scorch or agreement check)")
    parser.add_argument("--scorch-max-matrix", type=float, default=2e8,
                        help="skip scorch BLANC when (distinct mentions)^2 exceeds this (its dense n x n matrices)")
    parser.add_argument("--json", nargs="?", const=str(JSON_PATH), default=None, metavar="PATH",
                        help=f"append this run's figbench timings to PATH (default {JSON_PATH.name} beside this "
                             "script; `figbench docs --write` renders the README block from it)")
    parser.add_argument("--note", default="", help="what else ran on the machine, for the record in --json")
    args = parser.parse_args(argv)
    load_start = os.getloadavg()[0]
    from bench_coref_record import commit

    measured = commit()
    records: list[dict] = []
    _pin_one_core()
    print(f"one CPU core (affinity {sorted(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else '?'}), "
          f"median of {args.repeats} runs; CPU = time.process_time (reliable on a shared machine), wall beside it")
    header = (f"{'mentions':>9} {'shape':<10} {'core CPU':>9} {'wrap CPU':>9} {'scorch CPU':>11} {'ratio':>8} "
              f"{'core wall':>10} {'wrap wall':>10} {'scorch wall':>12} {'wrap/core':>10} {'peak MiB':>9}  "
              "scorch metrics")
    print(header)
    print("-" * len(header))
    all_faster, fast_enough, wrapper_ok, agree = True, True, True, True
    for size in args.sizes:
        base_key, realistic = synthetic_corpus(size, seed=args.seed)
        for n, shape in enumerate(args.shapes):
            if shape in OWN_KEY:
                key, response = graph_case(size, shape, seed=args.seed)
            else:
                key, response = base_key, response_shape(base_key, realistic, shape, seed=args.seed)
            fig_cpu, fig_wall, fig = time_figbench(key, response, args.repeats)
            wrap_cpu, wrap_wall, wrapped = time_wrapper(key, response, args.repeats)
            peak = peak_memory_figbench(key, response)
            sc = {} if args.no_scorch else time_scorch(key, response, args.scorch_timeout, args.scorch_max_matrix)
            sc_cpu = sum(c for _, c, _, _ in sc.values()) if sc else float("nan")
            sc_wall = sum(w for _, _, w, _ in sc.values()) if sc else float("nan")
            bound = any(status != "ok" for status, _, _, _ in sc.values())
            ratio = sc_cpu / fig_cpu
            all_faster &= args.no_scorch or sc_cpu > fig_cpu
            target = target_seconds(size)
            if target is not None:
                fast_enough &= fig_cpu < target
            records.append({"size": size, "shape": shape, "core_cpu": round(fig_cpu, 4),
                            "wrapper_cpu": round(wrap_cpu, 4), "core_wall": round(fig_wall, 4),
                            "wrapper_wall": round(wrap_wall, 4), "peak_mib": round(peak, 1),
                            "repeats": args.repeats, "target_s": target,
                            "met": None if target is None else bool(fig_cpu < target)})
            if size > 10_000:
                wrapper_ok &= wrap_cpu <= 1.2 * fig_cpu
            agree &= all(wrapped[k] == fig[k] for k in fig)
            for metric, (status, _, _, value) in sc.items():
                if status == "ok":
                    for part, v in zip(("recall", "precision", "f1"), value):
                        if abs(fig[f"{metric}_{part}"] - v) > 1e-9:
                            agree = False
                            print(f"  disagreement at {size} {shape}: {metric}_{part} "
                                  f"figbench={fig[f'{metric}_{part}']!r} scorch={v!r}")
            status = ", ".join(f"{m}:{c:.2f}s" if st == "ok" else f"{m}:{st}" for m, (st, c, _, _) in sc.items())
            lb = ">" if bound else ""
            print(f"{size if n == 0 else '':>9} {shape:<10} {fig_cpu:>9.3f} {wrap_cpu:>9.3f} "
                  f"{lb + f'{sc_cpu:.2f}':>11} "
                  f"{lb + f'{ratio:.1f}x':>8} {fig_wall:>10.3f} {wrap_wall:>10.3f} {lb + f'{sc_wall:.2f}':>12} "
                  f"{wrap_cpu / fig_cpu:>10.2f} {peak:>9.1f}  {status}", flush=True)
    print()
    print(f"figbench faster than scorch at every size: {all_faster}")
    print(f"figbench under 1 s at 50K and under 4 s at 200K mentions (CPU, one core, every shape): {fast_enough}")
    print(f"evaluate wrapper within 20% of the core function (CPU, above 10K mentions): {wrapper_ok}")
    print(f"scores agree with scorch to 1e-9 where scorch finished: {agree}")
    if args.json:
        from bench_coref_record import write_json

        write_json(Path(args.json), records, commit=measured, load_start=load_start, note=args.note, warm_up=WARM_UP)
        print(f"wrote {args.json}")
    return 0 if (all_faster and fast_enough and wrapper_ok and agree) else 1


if __name__ == "__main__":
    sys.exit(main())
