"""Exact maximum-weight matching of a sparse bipartite graph (CEAF's key/response alignment).

:func:`max_weight_matching` takes the overlap edges of key clusters (``nk`` of them) and response
clusters (``nr``) with positive weights and returns the edges of a maximum-weight matching. It is
exact for any graph, in three steps:

1. **Leaf peeling** (:func:`_peel`), linear time: a vertex ``v`` with one edge ``(v, u)`` of
   (reduced) weight ``x`` contributes ``x + OPT(G - v)`` once every other edge at ``u`` is lowered
   by ``x`` (matching ``u`` elsewhere then pays for giving up ``v``). Repeated, this solves every
   forest (trees, paths, stars, caterpillars) exactly, and strips the trees that hang off cycles.
2. **The core** (:func:`_core_matching`), every component at once, by the Hungarian method compiled
   with numba (:mod:`figbench.scoring.hungarian`: greedy, augmenting row reduction, then Dijkstra
   searches for shortest augmenting paths on the float weights as they are). It is fast on sparse
   cores full of ties (random regular overlap graphs, clusters of two or three mentions paired at
   random), where push-relabel is slow, and is given a work budget (``HUNGARIAN_WORK`` edge scans
   per edge): a core whose searches pass it (long augmenting paths over all-distinct weights, e.g.
   large random overlap graphs with CEAF-e weights) goes to step 3 instead.
3. **The min-cost flow** (:func:`_flow_matching`): a component that is one cycle is solved by path DP
   (its first edge left out, or taken); a chain of ``MIN_CHAIN`` or more edges through degree-2
   vertices becomes a gadget of three or four edges (:func:`_reduce_chains`), expanded back after the
   solve; the rest (:func:`_flow_core`) is a min-cost flow solved by Google OR-tools' cost-scaling
   push-relabel solver: exact for integer weights (CEAF-m). Other weights (CEAF-e) are rounded to
   integers of up to 40 bits first; the flow's matching is then proven optimal for the true weights
   by LP duals (:func:`_certificate`) or, where rounding hid a better matching, re-solved exactly by
   SciPy's exact assignment solver (dense, LAPJVsp above 2,000 nodes) on the reduced costs those duals give.

Optimality is exact up to floating-point ties (which change the chosen edges but not the value
beyond rounding).
"""

from __future__ import annotations

import numpy as np

#: Integer weights up to this are solved exactly by OR-tools' min-cost flow alone (int64 costs).
INTEGER_MAX = 2**20
#: Other weights are rounded to integers up to this before the flow (OR-tools refuses costs whose
#: product with the number of nodes could overflow int64; its time grows with the scale on some
#: tied cores, issue 31, which the Hungarian step now takes).
ROUNDED_MAX = 2**40
#: repairs of at most this many nodes a side use SciPy's dense assignment solver (8 bytes a cell: 32 MB at 2,000)
DENSE_MAX = 2_000
#: Bellman-Ford rounds spent at most on an optimality certificate (tens on small cores, 200-400 on
#: uniform's random core at 200K mentions; each round relaxes only the arcs it must).
DUAL_ROUNDS = 1_000
#: Relative tolerance of the certificate's comparisons (floating-point rounding of the weights).
CERTIFICATE_TOL = 1e-13


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
        picked = core[_core_matching(k[core], r[core], core_w)]
        chosen.append(picked)
        matched_k[k[picked]] = True
        matched_r[r[picked]] = True
    if records:
        chosen.append(_unpeel(records, k, r, matched_k, matched_r))
    return idx[np.concatenate(chosen)]


def _incidence(a: np.ndarray, b: np.ndarray, n: int) -> tuple[np.ndarray, list[int]]:
    """CSR incidence of the edges (a[i], b[i]) on ``n`` vertices: (indptr, the edges at each vertex)."""
    ends = np.concatenate([a, b])
    indptr = np.concatenate([[0], np.cumsum(np.bincount(ends, minlength=n))])
    return indptr, (np.argsort(ends, kind="stable") % len(a)).tolist()


def _peel(ek: np.ndarray, er: np.ndarray, w: np.ndarray, nk: int) -> tuple[list[int], np.ndarray, np.ndarray]:
    """Leaf peeling (see the module doc). Returns the peeled edges that are taken unless their inner
    vertex ends up matched (in peeling order), the core's edges and their reduced weights."""
    m = len(w)
    a = ek
    b = er + nk
    n = int(max(a.max(initial=-1), b.max(initial=-1))) + 1
    indptr_arr, adj = _incidence(a, b, n)
    indptr, deg = indptr_arr.tolist(), np.diff(indptr_arr).tolist()
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


#: The compiled Hungarian search (:mod:`figbench.scoring.hungarian`) may scan this many edges per core
#: edge (plus ``HUNGARIAN_BASE``) before the core goes to the min-cost flow instead.
HUNGARIAN_WORK = 140
HUNGARIAN_BASE = 100_000
#: Cores of fewer edges go straight to :func:`_flow_matching` (milliseconds there): the compiled search pays
#: numba's one-time compilation (seconds, then cached on disk) only where a flow could be slow.
HUNGARIAN_MIN_EDGES = 5_000


def _core_matching(ek: np.ndarray, er: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The core left by peeling: the compiled Hungarian method (:func:`hungarian_matching`) within its
    work budget, else :func:`_flow_matching` (always for cores under ``HUNGARIAN_MIN_EDGES`` edges)."""
    _, k = np.unique(ek, return_inverse=True)
    _, r = np.unique(er, return_inverse=True)
    nk, nr = int(k.max()) + 1, int(r.max()) + 1
    if len(w) < HUNGARIAN_MIN_EDGES:
        return _flow_matching(k, r, w, nk, nr)
    from figbench.scoring.hungarian import hungarian_matching

    chosen, _ = hungarian_matching(k, r, w, nk, nr, budget=HUNGARIAN_WORK * len(w) + HUNGARIAN_BASE)
    if chosen is not None:
        return np.sort(chosen)
    return _flow_matching(k, r, w, nk, nr)


def _flow_matching(k: np.ndarray, r: np.ndarray, w: np.ndarray, nk: int, nr: int) -> np.ndarray:
    """Cycles solved exactly here, long chains of degree-2 vertices replaced by gadgets of at most four
    edges with the same four end-state values (:func:`_reduce_chains`), the rest by :func:`_flow_core`;
    then the chains expanded back."""
    paths, cycles = _chains(k, nk + r, nk + nr)
    keep = np.ones(len(w), dtype=bool)
    chosen: list[int] = []
    wl = w.tolist()
    for cyc in cycles:                       # a cycle alone: leave its first edge out, or take it
        ws = [wl[e] for e in cyc]
        keep[cyc] = False
        rest, inner = ws[1:], ws[2:-1]
        without = _path_best(rest)
        with_first = _path_best(inner) if inner else []
        v_without = sum(rest[i] for i in without)
        v_with = ws[0] + sum(inner[i] for i in with_first)
        chosen += [cyc[0]] + [cyc[2 + i] for i in with_first] if v_with > v_without else [cyc[1 + i] for i in without]
    gk, gr, gw, gadgets = _reduce_chains(paths, k, r, wl, keep, nk, nr)
    k2 = np.concatenate([k[keep], np.asarray(gk, dtype=np.int64)])
    r2 = np.concatenate([r[keep], np.asarray(gr, dtype=np.int64)])
    w2 = np.concatenate([w[keep], np.asarray(gw, dtype=np.float64)])
    kept = np.flatnonzero(keep)
    if len(w2):
        picked = _flow_core(k2, r2, w2)
        real = picked[picked < len(kept)]
        chosen += kept[real].tolist()
        used = np.zeros(len(w2), dtype=bool)
        used[picked] = True
        for edges, ws, ia, ib in gadgets:   # ia / ib: positions of the gadget's end edges (or -1)
            first = int(ia >= 0 and used[len(kept) + ia])
            last = int(ib >= 0 and used[len(kept) + ib])
            chosen += [edges[i] for i in _path_pick(ws, first, last)]
    else:
        for edges, ws, _, _ in gadgets:
            chosen += [edges[i] for i in _path_pick(ws, 0, 0)]
    return np.asarray(sorted(chosen), dtype=np.int64)


#: Chains of at least this many edges are replaced by a gadget (of three or four edges).
MIN_CHAIN = 5
#: Chain end-state interactions closer to zero than this (relative to the weights) count as zero.
CHAIN_TOL = 1e-12


def _reduce_chains(paths, k: np.ndarray, r: np.ndarray, wl: list[float], keep: np.ndarray, nk: int, nr: int):
    """Gadgets for the chains of ``paths`` with at least ``MIN_CHAIN`` edges (their edges leave ``keep``).

    A chain's edges e0..e(m-1) join its ends A and B through degree-2 vertices; f(x, y) is its best
    matching with e0 used (x) or not and e(m-1) used (y) or not, and I = f11 - f10 - f01 + f00. An odd
    chain (A and B on opposite sides; I >= 0) becomes A-y-z-B with weights f10 - f00 + I, I,
    f01 - f00 + I; an even one (same side; I <= 0) A-y1-y2-y3-B with weights f10 - f00, -I, -I,
    f01 - f00. Either takes the same value minus a constant for each (x, y), so the optimum elsewhere is
    unchanged; non-positive gadget weights are left out (never worth taking). Returns the gadget edges
    (keys, responses and weights, new vertices numbered after ``nk`` keys and ``nr`` responses) and per
    chain (its edges, their weights, the positions of its end edges among the gadget edges or -1)."""
    gk: list[int] = []
    gr: list[int] = []
    gw: list[float] = []
    gadgets = []
    top = max(abs(x) for x in wl) if wl else 1.0
    next_k, next_r = nk, nr
    for start, edges, end in paths:
        if len(edges) < MIN_CHAIN:
            continue
        ws = [wl[e] for e in edges]
        keep[edges] = False
        f00, f01 = _path_dp(ws, 0)
        f10, f11 = _path_dp(ws, 1)
        inter = f11 - f10 - f01 + f00
        if abs(inter) <= CHAIN_TOL * top * len(ws):
            inter = 0.0

        a_key, a_i = start < nk, start if start < nk else start - nk   # (is a key, index) of each end
        b_key, b_i = end < nk, end if end < nk else end - nk
        if len(edges) % 2:                     # odd: A and B on opposite sides
            y, z = (next_r, next_k) if a_key else (next_k, next_r)
            next_k, next_r = next_k + 1, next_r + 1
            spec = [((a_key, a_i), (not a_key, y), f10 - f00 + inter), ((not a_key, y), (a_key, z), inter),
                    ((a_key, z), (b_key, b_i), f01 - f00 + inter)]
        else:                                  # even: A and B on the same side
            y1, y2, y3 = (next_r, next_k, next_r + 1) if a_key else (next_k, next_r, next_k + 1)
            if a_key:
                next_k, next_r = next_k + 1, next_r + 2
            else:
                next_k, next_r = next_k + 2, next_r + 1
            spec = [((a_key, a_i), (not a_key, y1), f10 - f00), ((not a_key, y1), (a_key, y2), -inter),
                    ((a_key, y2), (not a_key, y3), -inter), ((not a_key, y3), (b_key, b_i), f01 - f00)]
        pos = []
        for (ua, ia), (_ub, ib), weight in spec:
            if weight <= 0:
                pos.append(-1)
                continue
            key, resp = (ia, ib) if ua else (ib, ia)
            pos.append(len(gw))
            gk.append(key)
            gr.append(resp)
            gw.append(weight)
        gadgets.append((edges, ws, pos[0], pos[-1]))
    return gk, gr, gw, gadgets


def _flow_core(ek: np.ndarray, er: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The core left by peeling (all its components at once): a min-cost flow (OR-tools), certified
    or repaired.

    Integer weights (CEAF-m) are solved exactly by :func:`_min_cost_flow`. Other weights (CEAF-e) are
    rounded to integers first (``w * scale``, the largest cost ``ROUNDED_MAX``, so the flow's matching
    is within ``min(nk, nr) / scale`` of the optimum), and the result is then proven optimal for the
    true weights by LP duals (:func:`_certificate`); where no certificate is found (rounding hid a
    better matching), SciPy's assignment solver (:func:`_exact_assignment`) solves the true weights exactly, on
    the reduced costs."""
    _, k = np.unique(ek, return_inverse=True)
    _, r = np.unique(er, return_inverse=True)
    integer = bool(np.all(w == np.rint(w))) and float(w.max()) <= INTEGER_MAX
    scale = 1.0 if integer else ROUNDED_MAX / float(w.max())
    chosen = _min_cost_flow(k, r, np.rint(w * scale).astype(np.int64))
    if integer and chosen is not None:
        return chosen
    tails, heads, n_real = _assignment(k, r)
    cost = np.zeros(len(tails))
    cost[:n_real] = -w
    if chosen is not None:
        proven, u, v = _certificate(tails, heads, cost, _assignment_mates(k, r, chosen))
        if proven:
            return chosen
        cost -= u[tails] + v[heads]   # the same assignments are optimal; the exact solver is quick from here
    return _exact_assignment(tails, heads, cost, n_real)


# ------------------------------------------------------------------ chains of degree-2 vertices


def _path_dp(w: list[float], first: int) -> tuple[float, float]:
    """Best matching of the path of edges ``w`` (consecutive edges share a vertex) with the first edge
    used (``first`` = 1) or not: (best with the last edge unused, best with it used)."""
    NEG = float("-inf")
    if first:
        un, us = NEG, w[0]
    else:
        un, us = 0.0, NEG
    for x in w[1:]:
        un, us = max(un, us), un + x
    return un, us


def _path_best(w: list[float]) -> list[int]:
    """Positions of the edges of a best matching of the path ``w``, its ends free."""
    ends = [(value, first, last) for first in (0, 1) for last, value in enumerate(_path_dp(w, first))]
    _, first, last = max(ends)
    return _path_pick(w, first, last)


def _path_pick(w: list[float], first: int, last: int) -> list[int]:
    """Positions of the edges of a best matching of the path ``w`` with its first and last edges used
    or not as given (a traceback of :func:`_path_dp`)."""
    NEG = float("-inf")
    un, us = (NEG, w[0]) if first else (0.0, NEG)
    back: list[tuple[bool, bool]] = []   # per edge i >= 1: (un came from us?, -)
    for x in w[1:]:
        back.append(us > un)
        un, us = max(un, us), un + x
    picked = []
    state = last
    for i in range(len(w) - 1, 0, -1):
        if state:
            picked.append(i)
            state = 0
        else:
            state = 1 if back[i - 1] else 0
    if state:
        picked.append(0)
    return picked[::-1]


def _chains(a: np.ndarray, b: np.ndarray, n: int) -> tuple[list[tuple[int, list[int], int]], list[list[int]]]:
    """The maximal chains of degree-2 vertices of the graph with edges (a[i], b[i]) on ``n`` vertices:
    (paths: (start, edges, end) from a vertex of degree >= 3 to one (possibly the same), through
    degree-2 vertices only; cycles: the edges of components whose vertices all have degree 2), edges
    in walking order."""
    m = len(a)
    deg = np.bincount(np.concatenate([a, b]), minlength=n)
    two = deg == 2
    paths: list[tuple[int, list[int], int]] = []
    cycles: list[list[int]] = []
    if not two.any():
        return paths, cycles
    indptr, adj = _incidence(a, b, n)
    indptr = indptr.tolist()
    al, bl, degl = a.tolist(), b.tolist(), deg.tolist()
    used = [False] * m

    def walk(v: int, e: int) -> tuple[list[int], int]:
        edges = [e]
        used[e] = True
        u = bl[e] if al[e] == v else al[e]
        while degl[u] == 2:
            s = indptr[u]
            e = adj[s] if adj[s] != e else adj[s + 1]
            if used[e]:
                break
            used[e] = True
            edges.append(e)
            u = bl[e] if al[e] == u else al[e]
        return edges, u

    branch = deg >= 3
    for e in np.flatnonzero((two[a] & branch[b]) | (branch[a] & two[b])).tolist():   # a chain's first edge
        if not used[e]:
            v = al[e] if degl[al[e]] >= 3 else bl[e]
            edges, end = walk(v, e)
            paths.append((v, edges, end))
    for e in np.flatnonzero(two[a] & two[b]).tolist():
        if not used[e]:
            edges, end = walk(al[e], e)
            if end == al[e]:
                cycles.append(edges)
            else:                  # not a cycle (a path whose ends have degree 1): left to the solver
                for x in edges:
                    used[x] = False
    return paths, cycles


def _min_cost_flow(k: np.ndarray, r: np.ndarray, w: np.ndarray) -> np.ndarray | None:
    """The edges of a maximum-weight matching for integer weights ``w``, or None where OR-tools
    reports that its int64 arithmetic could overflow.

    Network: source -> key (capacity 1), key -> response along each edge (capacity 1, cost -w),
    response -> sink (capacity 1), and key -> sink (capacity 1, cost 0: the key stays unmatched);
    one unit of flow per key. OR-tools' cost-scaling push-relabel solver is exact for integer costs."""
    from ortools.graph.python import min_cost_flow

    nk, nr = int(k.max()) + 1, int(r.max()) + 1
    source, sink = nk + nr, nk + nr + 1
    tails = np.concatenate([np.full(nk, source), k, nk + np.arange(nr), np.arange(nk)])
    heads = np.concatenate([np.arange(nk), nk + r, np.full(nr, sink), np.full(nk, sink)])
    costs = np.zeros(len(tails), dtype=np.int64)
    costs[nk:nk + len(w)] = -w
    flow = min_cost_flow.SimpleMinCostFlow()
    flow.add_arcs_with_capacity_and_unit_cost(tails.astype(np.int32), heads.astype(np.int32),
                                              np.ones(len(tails), dtype=np.int64), costs)
    flow.set_node_supply(source, nk)
    flow.set_node_supply(sink, -nk)
    if flow.solve() != flow.OPTIMAL:
        return None
    return np.flatnonzero(flow.flows(np.arange(nk, nk + len(w))) > 0)


def _assignment(k: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """The max-weight matching of edges (k[i], r[i]) as a perfect matching (assignment) problem.

    Left nodes: the keys, then a copy r' of every response; right nodes: the responses, then a copy k'
    of every key. Arcs: the real edges (k, r) first (``n_real`` of them), then (k, k') and (r', r)
    (leaving k or r unmatched) and (r', k') for every real edge (k, r) (pairing the copies of a real
    pair that is matched). A perfect matching's real arcs form a matching and every matching extends
    to a perfect one, so the minimum-cost assignment with cost -w on the real arcs and 0 elsewhere is
    a maximum-weight matching. Returns (tail, head, n_real) over ``nk + nr`` left and right nodes."""
    nk, nr = int(k.max()) + 1, int(r.max()) + 1
    tails = np.concatenate([k, np.arange(nk), nk + np.arange(nr), nk + r])
    heads = np.concatenate([r, nr + np.arange(nk), np.arange(nr), nr + k])
    return tails, heads, len(k)


def _assignment_mates(k: np.ndarray, r: np.ndarray, chosen: np.ndarray) -> np.ndarray:
    """The perfect matching of :func:`_assignment` that extends the matching ``chosen``: the right
    node of each left node."""
    nk, nr = int(k.max()) + 1, int(r.max()) + 1
    mate = np.concatenate([nr + np.arange(nk), np.arange(nr)])   # everything unmatched
    mate[k[chosen]] = r[chosen]
    mate[nk + r[chosen]] = nr + k[chosen]
    return mate


def _certificate(tails: np.ndarray, heads: np.ndarray, cost: np.ndarray,
                 mate: np.ndarray) -> tuple[bool, np.ndarray, np.ndarray]:
    """Whether the assignment ``mate`` is a minimum-cost one, with LP duals (u of the left nodes, v
    of the right nodes: u + v = cost on its arcs, and <= cost elsewhere once proven).

    v is the shortest-path distance (from a virtual source at distance 0 to every node) in the graph
    with an arc mate(i) -> j of length cost(i, j) - cost(i, mate(i)) for every other arc (i, j).
    Bellman-Ford in rounds, each relaxing only the arcs out of the nodes the round before lowered
    (the others cannot lower anything again; hundreds of rounds on large random cores, so a full pass
    each round cost most of the certificate): it settles (the proof) unless a negative cycle, a cheaper
    assignment, exists; it stops unproven after ``DUAL_ROUNDS`` rounds. Lengths that improve a
    distance by less than ``CERTIFICATE_TOL`` times the largest cost count as ties (floating point)."""
    n = len(mate)
    on = mate[tails] == heads
    own = np.zeros(n)
    own[tails[on]] = cost[on]
    src, dst = mate[tails[~on]], heads[~on]
    length = cost[~on] - own[tails[~on]]
    tol = CERTIFICATE_TOL * float(np.abs(cost).max())
    order = np.argsort(src, kind="stable")      # arcs grouped by tail: a round relaxes only the arcs
    src, dst, length = src[order], dst[order], length[order]   # out of the nodes it changed last
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
    v = np.zeros(n)
    changed = np.arange(n)
    proven = False
    for _ in range(DUAL_ROUNDS):
        arcs = _ranges(indptr[changed], indptr[changed + 1])
        best = np.full(n, np.inf)
        np.minimum.at(best, dst[arcs], v[src[arcs]] + length[arcs])
        changed = np.flatnonzero(best < v - tol)
        if not len(changed):
            proven = True
            break
        v[changed] = best[changed]
    return proven, own - v[mate], v


def _ranges(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The integers of the ranges ``[starts[i], ends[i])``, concatenated."""
    counts = ends - starts
    total = int(counts.sum())
    if not total:
        return np.zeros(0, dtype=np.int64)
    offsets = np.cumsum(counts) - counts
    return np.repeat(starts - offsets, counts) + np.arange(total)


def _exact_assignment(tails: np.ndarray, heads: np.ndarray, cost: np.ndarray, n_real: int) -> np.ndarray:
    """The real arcs (positions below ``n_real``) of a minimum-cost assignment: SciPy's dense
    ``linear_sum_assignment`` up to ``DENSE_MAX`` nodes a side, its sparse LAPJVsp above.

    The dense solver comes first: LAPJVsp ran for over 15 minutes (killed) on a 191-node repair in the test
    sweep (coarse rounding, two rings), inside SciPy, whose feasibility check is known to take exponential
    time on some layered graphs (scipy issue #26147); the instance was not kept, so larger repairs still
    take that risk."""
    from scipy.optimize import linear_sum_assignment
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import min_weight_full_bipartite_matching

    n = int(tails.max()) + 1
    if n <= DENSE_MAX:
        dense = np.full((n, n), np.inf)
        dense[tails, heads] = cost
        rows, cols = linear_sum_assignment(dense)
    else:
        # a constant added to every arc adds n to every assignment; it keeps the entries positive (stored)
        graph = coo_matrix((cost - cost.min() + 1.0, (tails, heads)), shape=(n, n)).tocsr()
        rows, cols = min_weight_full_bipartite_matching(graph)
    lookup = coo_matrix((np.arange(1, n_real + 1), (tails[:n_real], heads[:n_real])), shape=(n, n)).tocsr()
    chosen = np.asarray(lookup[rows, cols]).ravel().astype(np.int64) - 1
    return chosen[chosen >= 0]
