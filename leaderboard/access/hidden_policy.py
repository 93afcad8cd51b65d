"""Hidden-benchmark policy: scores of a benchmark whose gold only the server holds must not become an
oracle for that gold. Public benchmarks (gold released with the corpus) have no policy: anyone can
score them, so their scores are released in full.

With exact per-submission scores, a submitter who changes one prediction at a time learns, from
each score difference, whether that example was right. A served board therefore, on hidden benchmarks,

1. **releases scores at reduced precision**: one decimal in percent (fractions rounded to 0.001),
   intervals likewise, never exact counts or self-reported-score mismatch flags (``release``); the
   exact values stay in the store (``leaderboard export --exact`` is the operator's);
2. **limits submissions** per verified identity (the Hugging Face account or submitter token, and the
   client address as the deployment's proxy reports it; never the self-declared submitter name) to
   ``daily_quota`` per benchmark per 24 hours
   (FAILED ones are not counted; refused probes are);
3. **refuses probes**: a submission is compared with each of the same identity's earlier ones on the
   benchmark, by what it changes in what the score could reveal (:func:`scored_difference`: the items
   whose scored contribution changed, e.g. the rank of the gold candidate, a hit, a confusion-matrix
   cell, or for coreference the mentions that must move between clusters), not by how many ids'
   predictions look different. Fewer than ``min_changed`` (and ``min_changed_fraction`` of the split)
   is refused, so a score difference never isolates a few examples; the refusal says no more than that.

A local store (``figbench submit --to FOLDER``) has no policy: its owner has the gold anyway.
"""

from __future__ import annotations

import json
import math
import sqlite3
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from figbench_leaderboard.domain.benchmarks import Benchmark, hidden_split
from figbench_leaderboard.domain.release import HIDDEN_DECIMALS, round_hidden
from figbench_leaderboard.domain.release import release as release_row
from figbench_leaderboard.domain.submission import SubmissionError
from figbench_leaderboard.store.errors import RateLimitError
from figbench_leaderboard.store.limits import Quota
from figbench_leaderboard.store.schema import decode_predictions

from figbench.tasks import Gold, Task

__all__ = ["HIDDEN_DECIMALS", "HiddenSplitPolicy", "ProbeError", "changed", "fingerprints", "moves",
           "probe_check", "record_refusal", "release", "round_hidden", "scored_difference"]

_REFUSALS = """CREATE TABLE IF NOT EXISTS probe_refusals (
    created_at REAL NOT NULL, task TEXT NOT NULL, dataset TEXT NOT NULL, config TEXT NOT NULL, split TEXT NOT NULL,
    submitter TEXT, client TEXT, account TEXT)"""


class ProbeError(SubmissionError):
    """A hidden-benchmark submission too close (in its scored outcome) to an earlier one of the same identity."""


@dataclass(frozen=True)
class HiddenSplitPolicy:
    """Release precision, quota and probe guard for hidden benchmarks (``Benchmark.gold == "hidden"``)."""

    daily_quota: int = 5
    min_changed: int = 10
    min_changed_fraction: float = 0.01
    window_s: float = 86400.0
    compare_last: int = 50   #: earlier submissions compared against (per identity and benchmark)

    def quota(self, benchmark: Benchmark) -> Quota | None:
        if not hidden_split(benchmark) or self.daily_quota <= 0:
            return None
        return Quota(self.daily_quota, self.window_s, "hidden-benchmark submissions")

    def needed_changes(self, n_ids: int) -> int:
        return max(self.min_changed, math.ceil(self.min_changed_fraction * n_ids)) if self.min_changed > 0 else 0


def release(row: Mapping[str, Any], benchmark: Benchmark | None = None) -> dict[str, Any]:
    """``row`` as it may be shown: on hidden benchmarks scores and intervals rounded, counts and
    mismatch flags withheld (a copy)."""
    return release_row(row)


def fingerprints(predictions: Any) -> dict[str, str]:
    """Per id, a comparable form of its prediction: ``{id: value}`` values, or for a list of clusters
    each member's cluster (so moving one mention changes the members of two clusters)."""
    if isinstance(predictions, Mapping):
        return {str(k): json.dumps(v, sort_keys=True) for k, v in predictions.items()}
    out: dict[str, str] = {}
    if isinstance(predictions, list):
        for cluster in predictions:
            members = sorted(str(m) for m in cluster) if isinstance(cluster, list) else [str(cluster)]
            key = "\x1f".join(members)
            for m in members:
                out[m] = key
    return out


def changed(a: Any, b: Any) -> int:
    """How many ids have a different prediction in ``a`` and ``b``."""
    fa, fb = fingerprints(a), fingerprints(b)
    return sum(1 for k in fa.keys() | fb.keys() if fa.get(k) != fb.get(k))


# --- the scored difference ---------------------------------------------------------------------

def _assignment(clusters: Any) -> dict[str, int]:
    return {str(m): i for i, c in enumerate(clusters or []) for m in (c if isinstance(c, list) else [c])}


def moves(a: Any, b: Any, at_least: int | None = None) -> int:
    """The fewest mentions that must move between clusters to turn clustering ``a`` into ``b`` (the
    partition distance: mentions minus the best one-to-one matching of clusters by shared mentions).
    Moving one mention into a 20-mention cluster is 1, however many mentions' clusters it touches.
    ``at_least``: return a lower bound as soon as it reaches this (cheap for unrelated clusterings)."""
    from scipy.optimize import linear_sum_assignment

    ca, cb = _assignment(a), _assignment(b)
    mentions = ca.keys() | cb.keys()
    overlap = Counter((ca.get(m, -1 - hash(m) % 10**9), cb.get(m, -1 - hash(m) % 10**9)) for m in mentions)
    best_a: dict[int, int] = {}
    best_b: dict[int, int] = {}
    for (i, j), n in overlap.items():
        best_a[i] = max(best_a.get(i, 0), n)
        best_b[j] = max(best_b.get(j, 0), n)
    # every matching keeps at most the best overlap of each cluster: a cheap lower bound first
    bound = len(mentions) - min(sum(best_a.values()), sum(best_b.values()))
    if at_least is not None and bound >= at_least:
        return bound   # far enough apart: the exact distance is not needed
    # exact: a maximum-weight matching, per connected component of the overlap graph
    parent: dict[tuple[str, int], tuple[str, int]] = {}

    def find(x):
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i, j in overlap:
        parent[find(("a", i))] = find(("b", j))
    parts: dict[Any, list[tuple[int, int, int]]] = {}
    for (i, j), n in overlap.items():
        parts.setdefault(find(("a", i)), []).append((i, j, n))
    kept = 0
    for edges in parts.values():
        if len(edges) == 1:
            kept += edges[0][2]
            continue
        rows = {i: k for k, i in enumerate(dict.fromkeys(e[0] for e in edges))}
        cols = {j: k for k, j in enumerate(dict.fromkeys(e[1] for e in edges))}
        w = np.zeros((len(rows), len(cols)))
        for i, j, n in edges:
            w[rows[i], cols[j]] = n
        r, c = linear_sum_assignment(w, maximize=True)
        kept += int(w[r, c].sum())
    return max(bound, len(mentions) - kept)


def _gold_rank(ranking: Any, gold: str) -> int | None:
    ranking = ranking if isinstance(ranking, list) else [ranking]
    try:
        return [str(x) for x in ranking].index(gold)
    except ValueError:
        return None


def scored_difference(task: Task, gold: Gold, a: Any, b: Any, at_least: int | None = None) -> int:
    """How many items' scored contribution differs between predictions ``a`` and ``b`` on ``gold``:
    what a score difference between the two could reveal. Per kind: coreference, the mentions that must
    move (:func:`moves`); ranking, the examples whose gold candidate's rank differs; nearest other
    example, the examples whose hit differs; every other kind, the examples whose prediction differs
    (each such change moves the example's confusion cell, tags, span or text, hence the score)."""
    if task.kind == "clustering":
        return moves(a, b, at_least)
    if task.kind == "ranking":
        return sum(_gold_rank(a.get(i), g) != _gold_rank(b.get(i), g) for i, g in gold.labels.items())
    if task.kind == "neighbour":
        labels = gold.labels

        def hit(p, i):
            return labels.get(str(p.get(i))) == labels[i]

        return sum(hit(a, i) != hit(b, i) for i in gold.ids)
    return changed(a, b)


# --- the check run inside the store's write transaction ---------------------------------------

def _identities(row: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """Verified identities only: the signed-in account or token, and the client address. The submitter
    name is a self-declared label: counting it would let anyone spend another's quota."""
    return [(c, row[c]) for c in ("account", "client") if row.get(c)]


def _bench_args(row: Mapping[str, Any]) -> tuple:
    return row["task"], row["dataset"], row["config"], row["split"]


def record_refusal(store, row: Mapping[str, Any], now: float | None = None) -> None:
    """Count a refused probe toward its identity's quota on the benchmark (a refusal is an answer too)."""
    with store.transaction() as db:
        db.execute(_REFUSALS)
        db.execute("INSERT INTO probe_refusals VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                   (time.time() if now is None else now, *_bench_args(row), row.get("submitter"),
                    row.get("client"), row.get("account")))


def probe_check(policy: HiddenSplitPolicy, row: Mapping[str, Any], predictions: Any, n_ids: int, *,
                task: Task | None = None, gold: Gold | None = None):
    """A check for ``Store.add``: refuse a hidden-benchmark submission whose scored difference from one of
    the same identity's earlier submissions is below the minimum (with ``task`` and ``gold``; without
    them, the number of ids whose prediction differs), and count refused probes toward the quota."""
    need = policy.needed_changes(n_ids)
    idents = _identities(row)

    def check(db: sqlite3.Connection) -> None:
        if not idents:
            return
        where = " OR ".join(f"{c} = ?" for c, _ in idents)
        values = [v for _, v in idents]
        if policy.daily_quota > 0:
            db.execute(_REFUSALS)
            since = time.time() - policy.window_s
            for c, v in idents:
                n = db.execute(f"SELECT (SELECT COUNT(*) FROM probe_refusals WHERE {c} = ? AND created_at > ? AND "
                               "task = ? AND dataset = ? AND config = ? AND split = ?) + (SELECT COUNT(*) FROM "
                               f"submissions WHERE {c} = ? AND created_at > ? AND task = ? AND dataset = ? AND "
                               "config = ? AND split = ? AND status != 'FAILED')",
                               (v, since, *_bench_args(row), v, since, *_bench_args(row))).fetchone()[0]
                if n >= policy.daily_quota:
                    raise RateLimitError(
                        f"quota: {v!r} already has {n} hidden-benchmark submissions or refused probes on "
                        f"{'/'.join(_bench_args(row))} in the last {policy.window_s / 3600:g} h (limit "
                        f"{policy.daily_quota}); try again later")
        if not need:
            return
        earlier = db.execute(
            f"SELECT id, predictions FROM submissions WHERE ({where}) AND task = ? AND dataset = ? AND config = ? "
            "AND split = ? AND status != 'FAILED' AND predictions IS NOT NULL ORDER BY created_at DESC LIMIT ?",
            (*values, *_bench_args(row), policy.compare_last)).fetchall()
        for r in earlier:
            theirs = decode_predictions(r["predictions"])
            ids_diff = changed(predictions, theirs)
            if ids_diff < need:
                raise ProbeError(
                    f"too close to your earlier submission {r['id'][:12]} on this hidden benchmark: it changes "
                    f"{ids_diff} of {n_ids} predictions, at least {need} must change. Near-identical resubmissions "
                    "to a hidden benchmark are refused so that scores cannot be used to probe its gold labels; "
                    "use a dev split to compare small changes.")
            if task is not None and gold is not None and \
                    scored_difference(task, gold, predictions, theirs, need) < need:
                raise ProbeError(
                    f"too close to your earlier submission {r['id'][:12]} on this hidden benchmark: what it changes "
                    f"in the scored outcome is below the minimum (at least {need} of {n_ids} items must change "
                    "their contribution to the score), so its score would probe a few examples' gold labels. The "
                    "refusal counts toward your quota; use a dev split to compare small changes.")

    return check
