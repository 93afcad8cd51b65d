"""Clustering mentions from scored candidate pairs.

Every function takes the mention ids of the split, candidate pairs as index pairs into those ids
(``pairs``: int array of shape (P, 2)) and pair scores in [0, 1], and returns one cluster label per
mention (``np.ndarray`` of ints). Mentions in no pair end up as singletons.

- :func:`connected_components`: edges whose score is above a threshold, transitive closure
  (scipy's ``csgraph.connected_components``), as in Ahmed et al. 2023 and the ECB+META paper;
- :func:`greedy_agglomerative`: Held et al. 2021's greedy agglomeration (their §4.2, used by the
  ECB+META paper for its KNN-filtered methods): every scored pair is visited once, in decreasing
  score order; when its two mentions are in different clusters, the clusters merge if the average
  score over *all* mention pairs between them is above the threshold. A pair that was never scored
  (not a candidate) counts as 0 (``unscored="zero"``, as the ECB+META code's ``cluster_greedy``
  does with its zero-filled similarity matrix) or is left out of the average
  (``unscored="ignore"``);
- :func:`average_link`: average-link agglomerative clustering (scipy ``linkage``) over a distance
  of ``1 - score`` (1 for unscored pairs), cut at ``1 - threshold`` (the WEC pairwise model).
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np


def _check(n: int, pairs: np.ndarray, scores: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    if scores is None:
        scores = np.ones(len(pairs), dtype=np.float64)
    scores = np.asarray(scores, dtype=np.float64).reshape(-1)
    if len(scores) != len(pairs):
        raise ValueError(f"{len(pairs)} pairs but {len(scores)} scores")
    if len(pairs) and (pairs.min() < 0 or pairs.max() >= n):
        raise ValueError(f"pair index out of range for {n} mentions")
    return pairs, scores


def connected_components(n: int, pairs: np.ndarray, scores: np.ndarray | None = None,
                         threshold: float = 0.5) -> np.ndarray:
    """Labels of the connected components of the graph of pairs with ``score > threshold``."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components as cc

    pairs, scores = _check(n, pairs, scores)
    keep = pairs[scores > threshold]
    graph = coo_matrix((np.ones(len(keep), dtype=np.int8), (keep[:, 0], keep[:, 1])), shape=(n, n))
    _, labels = cc(graph.tocsr(), directed=False)
    return labels


GREEDY_UNSCORED = ("zero", "ignore")


def _unique_pairs(pairs: np.ndarray, scores: np.ndarray) -> list[tuple[int, int, float]]:
    """``(i, j, score)`` with ``i < j``, one per unordered pair (its highest score), in first-seen order;
    pairs of a mention with itself are dropped."""
    best: dict[tuple[int, int], float] = {}
    for (a, b), s in zip(pairs.tolist(), scores.tolist()):
        if a == b:
            continue
        key = (a, b) if a < b else (b, a)
        best[key] = max(s, best.get(key, -np.inf))
    return [(a, b, s) for (a, b), s in best.items()]


def greedy_agglomerative(n: int, pairs: np.ndarray, scores: np.ndarray | None = None,
                         threshold: float = 0.5, unscored: str = "zero") -> np.ndarray:
    """Held et al. (2021) greedy agglomeration over scored pairs (see the module docstring).

    Pairs are visited in decreasing score order, ties in the order they are given (a pair given
    twice keeps its highest score); ``scores`` None means every pair scores 1.
    Cluster-to-cluster score sums are kept up to date on every merge, so a visit costs the number of
    clusters linked to the smaller cluster, not the product of the cluster sizes.
    """
    if unscored not in GREEDY_UNSCORED:
        raise ValueError(f"unscored must be one of {GREEDY_UNSCORED}, not {unscored!r}")
    pairs, scores = _check(n, pairs, scores)
    parent = list(range(n))
    size = [1] * n
    # links[r][q] = [sum of scores, number of scored pairs] between the clusters rooted at r and q
    links: list[dict[int, list[float]]] = [dict() for _ in range(n)]
    unique = _unique_pairs(pairs, scores)
    for a, b, s in unique:
        links[a][b] = [s, 1]
        links[b][a] = [s, 1]

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b, _ in sorted(unique, key=lambda t: -t[2]):
        ra, rb = find(a), find(b)
        if ra == rb:
            continue
        total, count = links[ra].get(rb, (0.0, 0))
        denominator = size[ra] * size[rb] if unscored == "zero" else count
        if not denominator or total / denominator <= threshold:
            continue
        small, large = (ra, rb) if size[ra] <= size[rb] else (rb, ra)
        parent[small] = large
        size[large] += size[small]
        for other, (t, c) in links[small].items():
            del links[other][small]
            if other == large:
                continue
            acc = links[large].setdefault(other, [0.0, 0])
            acc[0] += t
            acc[1] += c
            links[other][large] = acc
        links[small] = {}
    return np.array([find(i) for i in range(n)], dtype=np.int64)


def average_link(n: int, pairs: np.ndarray, scores: np.ndarray, threshold: float = 0.5,
                 groups: np.ndarray | None = None) -> np.ndarray:
    """Average-link agglomerative clustering (scipy) with distance ``1 - score``, stopped at ``1 - threshold``.

    ``groups`` (one key per mention, e.g. topic) clusters each group separately, which keeps the
    O(n^2) distance matrix small; pairs across groups are ignored.
    """
    from scipy.cluster.hierarchy import fcluster, linkage
    from scipy.spatial.distance import squareform

    pairs, scores = _check(n, pairs, scores)
    if groups is None:
        groups = np.zeros(n, dtype=np.int64)
    labels = np.empty(n, dtype=np.int64)
    by_group: dict = defaultdict(list)
    for i, g in enumerate(groups):
        by_group[g].append(i)
    pos = np.empty(n, dtype=np.int64)
    grp_index = {}
    for gi, (g, idx) in enumerate(by_group.items()):
        grp_index[g] = gi
        pos[idx] = np.arange(len(idx))
    gid = np.array([grp_index[g] for g in groups])
    next_label = 0
    from tqdm.auto import tqdm

    bar = tqdm(total=sum(len(i) ** 2 for i in by_group.values()), desc="average-link clustering", unit="cell",
               unit_scale=True, mininterval=1.0, disable=n < 1000)
    for g, idx in by_group.items():
        bar.update(len(idx) ** 2)
        m = len(idx)
        if m == 1:
            labels[idx[0]] = next_label
            next_label += 1
            continue
        dist = np.ones((m, m), dtype=np.float64)
        sel = (gid[pairs[:, 0]] == grp_index[g]) & (gid[pairs[:, 1]] == grp_index[g])
        a, b = pos[pairs[sel, 0]], pos[pairs[sel, 1]]
        d = np.clip(1.0 - scores[sel], 0.0, 1.0)
        dist[a, b] = d
        dist[b, a] = d
        np.fill_diagonal(dist, 0.0)
        z = linkage(squareform(dist, checks=False), method="average")
        # fcluster's "distance" criterion keeps merges with height <= t; we want score > threshold
        # i.e. distance < 1 - threshold.
        t = np.nextafter(1.0 - threshold, -np.inf)
        sub = fcluster(z, t=t, criterion="distance")
        labels[idx] = sub - 1 + next_label
        next_label += int(sub.max())
    bar.close()
    return labels


CLUSTERERS = {
    "cc": connected_components,
    "greedy": greedy_agglomerative,
    "average": average_link,
}


def cluster(method: str, n: int, pairs: np.ndarray, scores: np.ndarray | None, threshold: float,
            groups: np.ndarray | None = None, *, greedy_unscored: str = "zero") -> np.ndarray:
    """Dispatch to one of :data:`CLUSTERERS` by name (``greedy_unscored``: see :func:`greedy_agglomerative`)."""
    if method not in CLUSTERERS:
        raise ValueError(f"unknown clustering {method!r}; choose from {sorted(CLUSTERERS)}")
    if method == "average":
        return average_link(n, pairs, scores if scores is not None else np.ones(len(pairs)), threshold, groups)
    if method == "greedy":
        return greedy_agglomerative(n, pairs, scores, threshold, unscored=greedy_unscored)
    return connected_components(n, pairs, scores, threshold)
