"""Exact maximum-weight matching of a sparse bipartite graph by the Hungarian method with Dijkstra,
compiled with numba: the solver behind :mod:`figbench.scoring.matching`'s core.

LP duals ``u`` (keys) and ``v`` (responses) stay feasible (``u + v >= w`` on every edge, both >= 0),
matched edges tight and free responses at ``v = 0``; the matching is optimal once every free key has
``u = 0`` too (complementary slackness). Three steps, as in Jonker & Volgenant's LAPJV:

1. **Greedy** (:func:`_greedy`): ``u`` = each key's best weight, each key matched along a tight edge
   to a response still free.
2. **Augmenting row reduction** (:func:`_reduce_rows`): free keys bid for their most profitable
   response (an auction without slack, so the duals stay exact), within a bounded number of bids.
3. **Shortest augmenting paths** (:func:`_augment`) from each key still free with ``u > 0``: one
   Dijkstra search on the reduced costs ``u + v - w`` (alternating: a response reached leads on to its
   mate at no cost) to the cheapest of two ends: a free response (an augmenting path), or a key whose
   ``u`` falls to 0 on the way (it gives up its response; the path is flipped up to it). The settled
   vertices' duals move by the search's distances, which keeps them feasible. Each search touches
   only the region it explores (its bookkeeping is reset over those vertices), so many small searches
   cost what they visit: sparse graphs full of ties (random regular overlap graphs, clusters of two or
   three mentions paired at random) take well under a second at 200K mentions.

Weights are floats used as they are (no rounding): the result is exact up to floating-point ties, like
SciPy's ``linear_sum_assignment``. Where augmenting paths are long and weights all distinct (large
random overlap graphs with CEAF-e weights), the searches cover much of the graph each; the caller
gives a work budget and solves such cores by a min-cost flow instead.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: passes of the augmenting row reduction (at most ``edges + keys`` bids in all)
REDUCE_PASSES = 2
#: after this many searches (and a quarter of them all), the Dijkstra phase stops as soon as the work
#: done plus the rest at the pace of the latest half of the searches passes the budget (searches grow
#: longer as the matching fills up on large random cores, so the mean since the start lags behind)
PROBE = 100

_INF = np.inf


@njit(cache=True, nogil=True)
def _push(heap_d, heap_v, size, d, x):
    i = size
    while i > 0:
        parent = (i - 1) >> 1
        if heap_d[parent] <= d:
            break
        heap_d[i] = heap_d[parent]
        heap_v[i] = heap_v[parent]
        i = parent
    heap_d[i] = d
    heap_v[i] = x
    return size + 1


@njit(cache=True, nogil=True)
def _pop(heap_d, heap_v, size):
    """Removes the root (read it first); returns the new size."""
    size -= 1
    d = heap_d[size]
    x = heap_v[size]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and heap_d[c + 1] < heap_d[c]:
            c += 1
        if heap_d[c] >= d:
            break
        heap_d[i] = heap_d[c]
        heap_v[i] = heap_v[c]
        i = c
    heap_d[i] = d
    heap_v[i] = x
    return size


@njit(cache=True, nogil=True)
def _greedy(indptr, cols, w, u, mate_a, mate_b):
    """``u`` = each key's best weight (``v`` = 0), and each key matched along a tight edge to a free
    response where one is left."""
    for a in range(len(indptr) - 1):
        best = 0.0
        for s in range(indptr[a], indptr[a + 1]):
            best = max(best, w[s])
        u[a] = best
        for s in range(indptr[a], indptr[a + 1]):
            if w[s] == best and mate_b[cols[s]] < 0:
                mate_a[a] = cols[s]
                mate_b[cols[s]] = a
                break


@njit(cache=True, nogil=True)
def _reduce_rows(indptr, cols, w, u, v, mate_a, mate_b):
    """Augmenting row reduction (Jonker & Volgenant's; an auction without slack): a free key takes its
    most profitable response (profit ``w - v``; staying free is worth 0), whose ``v`` rises until the
    key is indifferent to its second choice, and a key it displaces bids at once (on a tie, without a
    rise, it waits for the next pass). Duals stay feasible and matched edges tight. ``REDUCE_PASSES``
    passes, at most ``edges + keys`` bids (price wars of tiny rises are left to the Dijkstra phase);
    returns the edge scans."""
    n = len(indptr) - 1
    todo = np.empty(n, np.int64)
    later = np.empty(n, np.int64)
    n_todo = 0
    for a in range(n):
        if mate_a[a] < 0 and u[a] > 0.0:
            todo[n_todo] = a
            n_todo += 1
    bids = len(cols) + n
    work = 0
    for _ in range(REDUCE_PASSES):
        n_later = 0
        for t in range(n_todo):
            cur = todo[t]
            while cur >= 0 and bids > 0 and mate_a[cur] < 0:
                bids -= 1
                a = cur
                cur = -1
                work += indptr[a + 1] - indptr[a] + 1
                b1 = 0.0
                b2 = 0.0
                s1 = -1
                s2 = -1
                for s in range(indptr[a], indptr[a + 1]):
                    x = w[s] - v[cols[s]]
                    if x > b1:
                        b2, s2 = b1, s1
                        b1, s1 = x, s
                    elif x > b2:
                        b2, s2 = x, s
                if s1 < 0:                        # nothing worth more than staying free
                    u[a] = 0.0
                    continue
                b = cols[s1]
                rise = b1 > b2
                if rise:
                    v[b] += b1 - b2
                    u[a] = b2
                else:
                    u[a] = b1
                    if mate_b[b] >= 0 and s2 >= 0 and b2 == b1 and mate_b[cols[s2]] < 0:
                        b = cols[s2]
                old = mate_b[b]
                mate_a[a] = b
                mate_b[b] = a
                if old >= 0:
                    mate_a[old] = -1
                    if rise:
                        cur = old
                    else:
                        later[n_later] = old
                        n_later += 1
        todo, later = later, todo
        n_todo = n_later
    return work


@njit(cache=True, nogil=True)
def _search(indptr, cols, w, u, v, mate_b, a0, dist_a, dist_b, done_b, pred, seen_a, seen_b, heap_d, heap_v):
    """One Dijkstra search from the free vertex ``a0`` of side A (see :func:`_augment`). Returns the
    length of the cheapest end, the A vertex whose dual falls to 0 there (or -1), the free B vertex
    reached there (or -1), the numbers of A and B vertices touched (in ``seen_a``/``seen_b``) and the
    work done."""
    n_sa = 0
    n_sb = 0
    size = 0
    work = 0
    dist_a[a0] = 0.0
    seen_a[n_sa] = a0
    n_sa += 1
    best = u[a0]               # the cheapest end so far: a settled A vertex whose u falls to 0
    end_a = a0
    end_b = -1
    a = a0
    da = 0.0
    while a >= 0:
        ua = u[a]
        work += indptr[a + 1] - indptr[a] + 1
        for s in range(indptr[a], indptr[a + 1]):   # relax the edges of the settled vertex a
            b = cols[s]
            if done_b[b]:
                continue
            nd = da + max(ua + v[b] - w[s], 0.0)
            if nd < dist_b[b] and nd < best:
                if dist_b[b] == _INF:
                    seen_b[n_sb] = b
                    n_sb += 1
                dist_b[b] = nd
                pred[b] = a
                size = _push(heap_d, heap_v, size, nd, b)
                work += 1
        a = -1
        while size > 0:
            d = heap_d[0]
            b = heap_v[0]
            size = _pop(heap_d, heap_v, size)
            if done_b[b] or d > dist_b[b]:
                continue
            if d >= best:
                break
            done_b[b] = True
            if mate_b[b] < 0:          # a free B vertex: an augmenting path of length d
                best = d
                end_b = b
                end_a = -1
                break
            a = mate_b[b]
            da = d
            dist_a[a] = d
            seen_a[n_sa] = a
            n_sa += 1
            if d + u[a] < best:
                best = d + u[a]
                end_a = a
            break
    return best, end_a, end_b, n_sa, n_sb, work


@njit(cache=True, nogil=True)
def _augment(indptr, cols, w, u, v, mate_a, mate_b, budget):
    """Shortest augmenting paths from every free vertex of side A (CSR ``indptr``/``cols``/``w``, duals
    ``u``) with ``u > 0``, side B's free vertices at ``v = 0``. Returns the work done (edge scans and
    heap pushes), or ``budget + 1`` once it passes ``budget`` or is on course to (``PROBE``)."""
    na = len(indptr) - 1
    nb = len(v)
    dist_a = np.full(na, _INF)
    dist_b = np.full(nb, _INF)
    done_b = np.zeros(nb, np.bool_)
    pred = np.full(nb, -1, np.int64)          # the A vertex each B vertex was reached from
    seen_a = np.empty(na, np.int64)
    seen_b = np.empty(nb, np.int64)
    heap_d = np.empty(len(cols) + 1)
    heap_v = np.empty(len(cols) + 1, np.int64)
    work = 0
    n_free = 0
    for a0 in range(na):
        if mate_a[a0] < 0 and u[a0] > 0.0:
            n_free += 1
    n_done = 0
    spent = np.zeros(n_free + 1, np.int64)    # the work done before each search
    for a0 in range(na):
        if mate_a[a0] >= 0 or u[a0] <= 0.0:
            continue
        spent[n_done] = work
        if work > budget:
            return budget + 1
        if n_done >= max(PROBE, n_free // 4):  # on course past the budget at the recent half's pace?
            half = n_done // 2
            pace = (work - spent[half]) / (n_done - half)
            if work + pace * (n_free - n_done) > budget:
                return budget + 1
        n_done += 1
        best, end_a, end_b, n_sa, n_sb, done = _search(indptr, cols, w, u, v, mate_b, a0, dist_a, dist_b, done_b,
                                                       pred, seen_a, seen_b, heap_d, heap_v)
        work += done
        for t in range(n_sa):                 # duals of the settled vertices; bookkeeping reset
            x = seen_a[t]
            u[x] -= best - dist_a[x]
            dist_a[x] = _INF
        for t in range(n_sb):
            x = seen_b[t]
            if done_b[x]:
                v[x] += best - dist_b[x]
            dist_b[x] = _INF
            done_b[x] = False
        if end_a >= 0:                        # end_a gives up its mate (its u is now 0)
            u[end_a] = 0.0
            b = mate_a[end_a]
            mate_a[end_a] = -1
        else:
            b = end_b
        if end_a != a0:
            _flip(mate_a, mate_b, pred, a0, b)
    return work


@njit(cache=True, nogil=True)
def _flip(mate_a, mate_b, pred, a0, b):
    """Matches ``b`` to its predecessor, that one's old mate to its predecessor, ... back to ``a0``."""
    while True:
        x = pred[b]
        nxt = mate_a[x]
        mate_a[x] = b
        mate_b[b] = x
        if x == a0:
            break
        b = nxt


@njit(cache=True, nogil=True)
def _solve(k_indptr, k_cols, k_w, nr, budget):
    """The response matched to each key (or -1) and the Dijkstra phase's work; the matching is
    unfinished where that work passed ``budget``."""
    nk = len(k_indptr) - 1
    u = np.zeros(nk)
    v = np.zeros(nr)
    mate_k = np.full(nk, -1, np.int64)
    mate_r = np.full(nr, -1, np.int64)
    _greedy(k_indptr, k_cols, k_w, u, mate_k, mate_r)
    _reduce_rows(k_indptr, k_cols, k_w, u, v, mate_k, mate_r)
    work = _augment(k_indptr, k_cols, k_w, u, v, mate_k, mate_r, budget)
    return mate_k, work


def _csr(a: np.ndarray, b: np.ndarray, w: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    order = np.argsort(a, kind="stable")
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(a, minlength=n), out=indptr[1:])
    return indptr, b[order].astype(np.int64), w[order].astype(np.float64)


def hungarian_matching(k: np.ndarray, r: np.ndarray, w: np.ndarray, nk: int, nr: int,
                       budget: float = np.inf) -> tuple[np.ndarray | None, int]:
    """Positions of the edges of a maximum-weight matching (edge i: key ``k[i]``, response ``r[i]``,
    weight ``w[i]`` > 0; ``nk``/``nr`` vertices a side), or None where it
    would take more than ``budget`` units of work in the Dijkstra phase (edge scans and heap pushes; the
    greedy and reduction steps are linear); and that work."""
    limit = np.iinfo(np.int64).max // 2 if budget == np.inf else int(budget)
    mate, work = _solve(*_csr(k, r, w, nk), nr, limit)
    if work > limit:
        return None, work
    chosen = np.flatnonzero(mate[k] == r)
    if len(chosen) > np.count_nonzero(mate >= 0):   # repeated pairs: the heaviest copy of each
        chosen = chosen[np.lexsort((-w[chosen], k[chosen]))]
        chosen = chosen[np.r_[True, k[chosen][1:] != k[chosen][:-1]]]
    return chosen, work
