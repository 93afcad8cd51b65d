"""Exact maximum-weight matching of a sparse bipartite graph (CEAF's key/response alignment).

:func:`max_weight_matching` takes the overlap edges of key clusters (``nk`` of them) and response
clusters (``nr``) with positive weights and returns the edges of a maximum-weight matching. It is
exact for any graph; the work goes where the graph's shape makes it cheap:

1. **Leaf peeling** (:func:`_peel`), linear time: a vertex ``v`` with one edge ``(v, u)`` of
   (reduced) weight ``x`` contributes ``x + OPT(G - v)`` once every other edge at ``u`` is lowered
   by ``x`` (matching ``u`` elsewhere then pays for giving up ``v``). Repeated, this solves every
   forest (trees, paths, stars, caterpillars) exactly, and strips the trees that hang off cycles.
2. **Cycles**: a component of the remaining core whose vertices all have degree 2 is one cycle;
   it is solved as two paths (one edge left out, or taken), each by peeling.
3. The rest of each component: safe edges fixed first (:func:`_reduce`: an edge at least as heavy as
   the best other edge at each of its ends is in some optimum), then small components exactly with
   ``scipy.optimize.linear_sum_assignment`` on the dense block, large ones with SciPy's sparse LAPJVsp
   (:func:`_sparse_matching`), huge ones pruned first by LP duals from an auction.

Every step keeps optimality exactly (up to floating-point ties, which change the chosen edges but not
the value beyond rounding).
"""

from __future__ import annotations

import numpy as np

#: Components whose dense key x response block has at most this many cells use linear_sum_assignment.
DENSE_LIMIT = 250_000
#: Components with at least this many edges are pruned by an auction before LAPJVsp.
AUCTION_MIN_EDGES = 50_000
#: Auction: final price step relative to the largest weight, and the most bidding rounds tried.
AUCTION_EPS = 1e-7
AUCTION_MAX_ROUNDS = 20_000
#: The safe-edge reduction stops when a round fixes fewer than this share of the edges left.
REDUCE_MIN_SHARE = 0.01


def max_weight_matching(ek: np.ndarray, er: np.ndarray, w: np.ndarray, nk: int | None = None,
                        nr: int | None = None) -> np.ndarray:
    """Indices of the edges of a maximum-weight matching (edge i joins key ``ek[i]`` and response
    ``er[i]``; ``nk``/``nr``, the numbers of key and response clusters, are optional)."""
    ek, er = np.asarray(ek, dtype=np.int64), np.asarray(er, dtype=np.int64)
    w = np.asarray(w, dtype=np.float64)
    if len(w) == 0:
        return np.zeros(0, dtype=np.int64)
    return np.sort(_solve(ek, er, w))


# --------------------------------------------------------------------------------------------------
# the pipeline


def _solve(ek: np.ndarray, er: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Positions of the chosen edges of an optimum over the edges given (any vertex numbering)."""
    idx = np.flatnonzero(w > 0)
    if len(idx) == 0:
        return idx
    _, k = np.unique(ek[idx], return_inverse=True)
    _, r = np.unique(er[idx], return_inverse=True)
    nk, nr = int(k.max()) + 1, int(r.max()) + 1
    wi = w[idx]
    records, core, core_w = _peel(k, r, wi, nk)
    matched_k = np.zeros(nk, dtype=bool)
    matched_r = np.zeros(nr, dtype=bool)
    chosen = [np.zeros(0, dtype=np.int64)]
    if len(core):
        picked = core[_solve_core(k[core], r[core], core_w, nk, nr)]
        chosen.append(picked)
        matched_k[k[picked]] = True
        matched_r[r[picked]] = True
    if records:
        chosen.append(_unpeel(records, k, r, matched_k, matched_r))
    return idx[np.concatenate(chosen)]


def _peel(ek: np.ndarray, er: np.ndarray, w: np.ndarray, nk: int) -> tuple[list[int], np.ndarray, np.ndarray]:
    """Leaf peeling (see the module doc). Returns the peeled edges that are taken unless their inner
    vertex ends up matched (in peeling order), the core's edges and their reduced weights."""
    m = len(w)
    a = ek
    b = er + nk
    n = int(max(a.max(initial=-1), b.max(initial=-1))) + 1
    ends = np.concatenate([a, b])
    order = np.argsort(ends, kind="stable")
    indptr = np.concatenate([[0], np.cumsum(np.bincount(ends, minlength=n))]).tolist()
    adj = (order % m).tolist()
    deg = np.bincount(ends, minlength=n).tolist()
    al, bl, wl = a.tolist(), b.tolist(), w.tolist()
    alive = [True] * m
    off = [0.0] * n
    records: list[int] = []
    stack = [v for v in range(n) if deg[v] == 1]
    while True:
        while stack:
            v = stack.pop()
            if deg[v] != 1:
                continue
            for s in range(indptr[v], indptr[v + 1]):
                e = adj[s]
                if alive[e]:
                    break
            x, y = al[e], bl[e]
            u = y if x == v else x
            alive[e] = False
            deg[v] = 0
            deg[u] -= 1
            gain = wl[e] - off[x] - off[y]
            if gain > 0:
                records.append(e)
                off[u] += gain
            if deg[u] == 1:
                stack.append(u)
        core = np.flatnonzero(np.asarray(alive, dtype=bool))
        offs = np.asarray(off)
        reduced = w[core] - offs[a[core]] - offs[b[core]]
        dead = core[reduced <= 0]
        if len(dead) == 0:
            return records, core, reduced
        for e in dead.tolist():      # edges no longer worth taking: drop them, which can make new leaves
            alive[e] = False
            for v in (al[e], bl[e]):
                deg[v] -= 1
                if deg[v] == 1:
                    stack.append(v)


def _unpeel(records: list[int], ek: np.ndarray, er: np.ndarray, matched_k: np.ndarray,
            matched_r: np.ndarray) -> np.ndarray:
    """Peeled edges taken, last peeled first: an edge is taken when neither end is matched yet."""
    mk, mr = matched_k.tolist(), matched_r.tolist()
    kl, rl = ek.tolist(), er.tolist()
    taken = []
    for e in reversed(records):
        k, r = kl[e], rl[e]
        if not mk[k] and not mr[r]:
            mk[k] = mr[r] = True
            taken.append(e)
    return np.asarray(taken, dtype=np.int64)


def _solve_core(ek: np.ndarray, er: np.ndarray, w: np.ndarray, nk: int, nr: int) -> np.ndarray:
    """The core left by peeling (positions in its arrays): safe edges fixed, then component by component."""
    fixed, alive = _reduce(ek, er, w, nk, nr)
    out = [fixed]
    rest = np.flatnonzero(alive)
    if len(rest) == 0:
        return fixed
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    graph = coo_matrix((np.ones(len(rest)), (ek[rest], nk + er[rest])), shape=(nk + nr, nk + nr))
    _, labels = connected_components(graph, directed=False)
    comp = labels[ek[rest]]
    order = np.argsort(comp, kind="stable")
    bounds = np.flatnonzero(np.r_[True, comp[order][1:] != comp[order][:-1], True])
    for s, e in zip(bounds[:-1], bounds[1:]):
        part = rest[order[s:e]]
        ks, ki = np.unique(ek[part], return_inverse=True)
        rs, ri = np.unique(er[part], return_inverse=True)
        if len(ks) == 1 or len(rs) == 1:
            out.append(part[[int(np.argmax(w[part]))]])
        elif len(ks) * len(rs) <= DENSE_LIMIT:
            out.append(part[_dense_matching(ki, ri, len(ks), len(rs), w[part])])
        elif len(part) == len(ks) + len(rs) and _all_degree_two(ki, ri):
            out.append(part[_solve_cycle(ki, ri, w[part])])
        else:
            out.append(part[_large_matching(ki, ri, w[part], len(ks), len(rs))])
    return np.concatenate(out)


def _all_degree_two(ki: np.ndarray, ri: np.ndarray) -> bool:
    return bool((np.bincount(ki) == 2).all() and (np.bincount(ri) == 2).all())


def _solve_cycle(ek: np.ndarray, er: np.ndarray, w: np.ndarray) -> np.ndarray:
    """One cycle: the better of leaving its first edge out and taking it (each a path, peeled)."""
    others = np.arange(1, len(w))
    without = others[_solve(ek[others], er[others], w[others])]
    rest = others[(ek[others] != ek[0]) & (er[others] != er[0])]
    with_first = np.concatenate([[0], rest[_solve(ek[rest], er[rest], w[rest])]]).astype(np.int64)
    return with_first if w[with_first].sum() > w[without].sum() else without


def _dense_matching(ki: np.ndarray, ri: np.ndarray, n_rows: int, n_cols: int, w: np.ndarray) -> np.ndarray:
    from scipy.optimize import linear_sum_assignment

    mat = np.zeros((n_rows, n_cols))
    mat[ki, ri] = w
    rows, cols = linear_sum_assignment(mat, maximize=True)
    lookup = np.full((n_rows, n_cols), -1, dtype=np.int64)
    lookup[ki, ri] = np.arange(len(w))
    chosen = lookup[rows, cols]
    return chosen[chosen >= 0]


def _large_matching(ek: np.ndarray, er: np.ndarray, w: np.ndarray, nk: int, nr: int) -> np.ndarray:
    """A component too large for a dense block: LAPJVsp, pruned first by an auction when huge."""
    if len(w) < AUCTION_MIN_EDGES:
        return _sparse_matching(ek, er, w)
    kept, matched = _prune_by_auction(ek, er, w)
    if matched is not None:        # the auction's matching is provably optimal
        return matched
    part = np.flatnonzero(kept)
    fixed, alive = _reduce(ek[part], er[part], w[part], nk, nr)
    rest = part[alive]
    return np.concatenate([part[fixed], rest[_sparse_matching(ek[rest], er[rest], w[rest])]])


# --------------------------------------------------------------------------------------------------
# safe edges


def _best_other(vertex: np.ndarray, w: np.ndarray, n: int) -> np.ndarray:
    """For each edge, the largest weight among the *other* edges at its ``vertex`` (0 if none)."""
    order = np.lexsort((-w, vertex))
    v = vertex[order]
    first = np.r_[True, v[1:] != v[:-1]]
    best = np.zeros(n)
    best[v[first]] = w[order[first]]
    second_pos = np.flatnonzero(np.r_[False, first[:-1]] & ~first)
    second = np.zeros(n)
    second[v[second_pos]] = w[order[second_pos]]
    is_best = np.zeros(len(w), dtype=bool)
    is_best[order[first]] = True
    return np.where(is_best, second[vertex], best[vertex])


def _reduce(ek: np.ndarray, er: np.ndarray, w: np.ndarray, nk: int, nr: int) -> tuple[np.ndarray, np.ndarray]:
    """Edges that some maximum-weight matching contains, found by a safe rule, and the edges left.

    Rule: if ``w(k, r) >= (best other edge at k) + (best other edge at r)`` then some optimal
    matching contains (k, r) (swap it in for the at most two edges it conflicts with: nothing is
    lost). Fixing it removes k, r and their edges; repeated while a round still fixes a fair share
    of the edges (long chains of one fix per round are left to the exact solvers). Returns (fixed
    edge indices, alive mask).
    """
    alive = np.ones(len(w), dtype=bool)
    fixed: list[np.ndarray] = []
    idx = np.arange(len(w))
    while len(idx):
        k, r, ww = ek[idx], er[idx], w[idx]
        ok = ww >= _best_other(k, ww, nk) + _best_other(r, ww, nr)
        if not ok.any():
            break
        c = idx[ok]
        c = c[np.unique(ek[c], return_index=True)[1]]  # at most one fixed edge per cluster and round
        c = c[np.unique(er[c], return_index=True)[1]]
        fixed.append(c)
        used_k = np.zeros(nk, dtype=bool)
        used_k[ek[c]] = True
        used_r = np.zeros(nr, dtype=bool)
        used_r[er[c]] = True
        alive &= ~(used_k[ek] | used_r[er])
        idx = np.flatnonzero(alive)
        if len(c) < REDUCE_MIN_SHARE * len(idx):
            break
    return (np.concatenate(fixed) if fixed else np.zeros(0, dtype=np.int64)), alive


# --------------------------------------------------------------------------------------------------
# large components


def _auction(row: np.ndarray, col: np.ndarray, w: np.ndarray, n_rows: int, n_cols: int,
             eps: float) -> tuple[np.ndarray, np.ndarray] | None:
    """Forward auction (Jacobi bidding, one price step ``eps``) for a max-weight bipartite matching
    where any row may stay unmatched (value 0). Edges must be sorted by row. Returns (the column of
    each row, -1 if unmatched; column prices), or None after too many rounds."""
    indptr = np.r_[0, np.cumsum(np.bincount(row, minlength=n_rows))]
    price = np.zeros(n_cols)
    owner = np.full(n_cols, -1, dtype=np.int64)
    assigned = np.full(n_rows, -1, dtype=np.int64)  # -1 bidding, -2 unmatched for good, else column
    for _ in range(AUCTION_MAX_ROUNDS):
        bidders = np.flatnonzero(assigned == -1)
        if len(bidders) == 0:
            assigned[assigned == -2] = -1
            return assigned, price
        count = indptr[bidders + 1] - indptr[bidders]
        if not count.all():
            assigned[bidders[count == 0]] = -2
            bidders, count = bidders[count > 0], count[count > 0]
            if len(bidders) == 0:
                continue
        ends = np.cumsum(count)
        starts = ends - count
        idx = np.repeat(indptr[bidders] - starts, count) + np.arange(ends[-1])
        value = w[idx] - price[col[idx]]
        seg = np.repeat(np.arange(len(bidders)), count)
        best = np.maximum.reduceat(value, starts)
        at_best = np.flatnonzero(value == best[seg])
        new_seg = np.ones(len(at_best), dtype=bool)
        new_seg[1:] = seg[at_best[1:]] != seg[at_best[:-1]]
        first = at_best[new_seg]
        value[first] = -np.inf
        second = np.maximum(np.maximum.reduceat(value, starts), 0.0)  # staying unmatched is worth 0
        bids = best > 0
        assigned[bidders[~bids]] = -2
        if not bids.any():
            continue
        bid_row = bidders[bids]
        bid_col = col[idx[first[bids]]]
        bid = price[bid_col] + (best[bids] - second[bids]) + eps
        o = np.lexsort((-bid, bid_col))
        bid_row, bid_col, bid = bid_row[o], bid_col[o], bid[o]
        win = np.ones(len(bid_col), dtype=bool)
        win[1:] = bid_col[1:] != bid_col[:-1]
        bid_row, bid_col, bid = bid_row[win], bid_col[win], bid[win]
        previous = owner[bid_col]
        assigned[previous[previous >= 0]] = -1
        owner[bid_col] = bid_row
        assigned[bid_row] = bid_col
        price[bid_col] = bid
    return None


def _prune_by_auction(ek: np.ndarray, er: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """Edges that may belong to a maximum-weight matching, by LP duality; or a proven optimum.

    An auction gives a matching M (value LB) and prices p; with u_k = max(0, max_r w_kr - p_r) the
    pair (u, p) is dual feasible, so OPT <= UB = sum u + sum p, and any matching using edge e has
    value <= UB - rc_e (rc_e = u_k + p_r - w_e >= 0). Edges with UB - rc_e < LB (with a margin for
    rounding) are in no optimal matching and are dropped. With integer weights and UB - LB < 1/2,
    M itself is optimal. Returns (mask of edges kept, edge indices of M or None).
    """
    ks, ki = np.unique(ek, return_inverse=True)
    rs, ri = np.unique(er, return_inverse=True)
    order = np.lexsort((ri, ki))
    row, col, ww = ki[order], ri[order], w[order]
    result = _auction(row, col, ww, len(ks), len(rs), AUCTION_EPS * float(ww.max()))
    if result is None:
        return np.ones(len(w), dtype=bool), None
    assigned, price = result
    u = np.zeros(len(ks))
    np.maximum.at(u, row, ww - price[col])
    upper = float(u.sum() + price.sum())
    in_m = assigned[row] == col
    lower = float(ww[in_m].sum())
    if np.all(ww == np.round(ww)) and upper - lower < 0.5:
        return np.ones(len(w), dtype=bool), order[in_m]
    reduced = u[row] + price[col] - ww
    keep_sorted = upper - reduced >= lower - 1e-9 * max(1.0, abs(upper))
    keep = np.zeros(len(w), dtype=bool)
    keep[order[keep_sorted]] = True
    return keep, None


def _sparse_matching(ek: np.ndarray, er: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Max-weight matching on a sparse graph (SciPy's LAPJVsp); returns the chosen edges' positions.

    Every row (the smaller side) gets a private dummy column, so a matching covering all rows always
    exists: a real edge costs ``big - w``, a dummy ``big``; the minimum-cost full matching maximises
    the total weight of the real edges it uses.
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import min_weight_full_bipartite_matching

    if len(w) == 0:
        return np.zeros(0, dtype=np.int64)
    ks, ki = np.unique(ek, return_inverse=True)
    rs, ri = np.unique(er, return_inverse=True)
    rows, cols = (ki, ri) if len(ks) <= len(rs) else (ri, ki)
    n_rows, n_cols = (len(ks), len(rs)) if len(ks) <= len(rs) else (len(rs), len(ks))
    big = float(w.max()) + 1.0
    graph = coo_matrix(
        (np.concatenate([big - w, np.full(n_rows, big)]),
         (np.concatenate([rows, np.arange(n_rows)]), np.concatenate([cols, n_cols + np.arange(n_rows)]))),
        shape=(n_rows, n_cols + n_rows)).tocsr()
    row_ind, col_ind = min_weight_full_bipartite_matching(graph)
    real = col_ind < n_cols
    lookup = coo_matrix((np.arange(len(w)) + 1, (rows, cols)), shape=(n_rows, n_cols)).tocsr()
    return np.asarray(lookup[row_ind[real], col_ind[real]]).ravel().astype(np.int64) - 1
