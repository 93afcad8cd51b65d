"""Hidden-benchmark policy: scores of a benchmark whose gold only the server holds must not become an
oracle for that gold. Public benchmarks (gold released with the corpus) have no policy: anyone can
score them, so their scores are released in full.

A served board, on hidden benchmarks,

1. **takes only registered identities** (:mod:`~figbench_leaderboard.access.tokens`): a Hugging Face account
   (optionally on an allow-list) or a submitter token the maintainer issued; a self-made token is refused;
2. **releases one number per submission, by the Ladder** (:func:`ladder_release`,
   :func:`~figbench_leaderboard.domain.release.ladder_step`): the headline only when it beats the
   identity's best released one by ``ladder_eta``, else that best again; no intervals, counts or flags;
3. **limits submissions** per identity (the account, and the client address as the deployment's proxy
   reports it; never the self-declared submitter name) to ``daily_quota`` per benchmark per 24 hours, and
   over **all** identities to ``daily_budget`` per benchmark per 24 hours (FAILED ones are not counted;
   refused probes are): the budget is what bounds what a day of probing can reveal, however many identities
   one attacker holds (``leakage_bits``);
4. **refuses probes**: a submission is compared with each of the same identity's earlier ones on the
   benchmark, by what it changes in what the score could reveal (:func:`scored_difference`). Fewer than
   ``min_changed`` (and ``min_changed_fraction`` of the split) is refused; the refusal says no more than that.

Refused probes and quota or budget refusals are recorded (:mod:`~figbench_leaderboard.store.decisions`) and
mirrored to the Hub with the rest of the store. A local store (``figbench submit --to FOLDER``) has no
policy: its owner has the gold anyway.
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
from figbench_leaderboard.access.tokens import UnregisteredError, check_registered
from figbench_leaderboard.domain.benchmarks import Benchmark, hidden_split
from figbench_leaderboard.domain.release import LADDER_ETA, ladder_step, leakage_bits
from figbench_leaderboard.domain.release import release as release_row
from figbench_leaderboard.domain.submission import SubmissionError
from figbench_leaderboard.store import decisions
from figbench_leaderboard.store.errors import RateLimitError
from figbench_leaderboard.store.limits import Quota
from figbench_leaderboard.store.schema import decode_predictions, loads

from figbench.tasks import Gold, Task

__all__ = ["BudgetError", "HiddenSplitPolicy", "ProbeError", "UnregisteredError", "changed", "fingerprints",
           "ladder_release", "moves", "probe_check", "record_refusal", "release", "scored_difference"]


class ProbeError(SubmissionError):
    """A hidden-benchmark submission too close (in its scored outcome) to an earlier one of the same identity."""


class QuotaError(RateLimitError):
    """An identity's hidden-benchmark quota is spent."""


class BudgetError(RateLimitError):
    """A hidden benchmark's daily budget (over all identities) is spent."""


@dataclass(frozen=True)
class HiddenSplitPolicy:
    """Identities, Ladder, quota, budget and probe guard for hidden benchmarks (``Benchmark.gold == "hidden"``)."""

    daily_quota: int = 5     #: per identity and benchmark
    daily_budget: int = 30   #: per benchmark over all identities
    ladder_eta: float = LADDER_ETA
    min_changed: int = 10
    min_changed_fraction: float = 0.01
    window_s: float = 86400.0
    compare_last: int = 50   #: earlier submissions compared against (per identity and benchmark)
    hf_accounts: frozenset[str] | None = None   #: the Hugging Face accounts allowed (None: every account)
    #: a Hugging Face account must be at least this old (days; 0: no minimum); an age the Hub cannot confirm refuses
    min_account_age_days: float = 0.0

    def bits_per_window(self) -> float:
        """The most a window's transcripts on one benchmark can reveal (the README's bound)."""
        return leakage_bits(self.daily_budget, self.ladder_eta)

    def quota(self, benchmark: Benchmark) -> Quota | None:
        if not hidden_split(benchmark) or self.daily_quota <= 0:
            return None
        return Quota(self.daily_quota, self.window_s, "hidden-benchmark submissions")

    def needed_changes(self, n_ids: int) -> int:
        return max(self.min_changed, math.ceil(self.min_changed_fraction * n_ids)) if self.min_changed > 0 else 0


def release(row: Mapping[str, Any], benchmark: Benchmark | None = None) -> dict[str, Any]:
    """``row`` as it may be shown: on hidden benchmarks the Ladder's headline only (a copy)."""
    return release_row(row)


def ladder_release(policy: HiddenSplitPolicy, task: Task, sid: str):
    """For ``Store.finish(release=...)``: the released copy of submission ``sid``'s scores by the Ladder, in the
    finishing transaction: ``{headline: value}`` from its exact headline and the best value released to the same
    identity (account, else client) on the benchmark; no intervals."""

    def release_in(db: sqlite3.Connection, scores: Mapping[str, Any]) -> tuple[dict, dict]:
        me = db.execute("SELECT task, dataset, config, split, account, client FROM submissions WHERE id = ?",
                        (sid,)).fetchone()
        score = scores.get(task.headline)
        if me is None or not isinstance(score, (int, float)):
            return {}, {}
        col, who = ("account", me["account"]) if me["account"] else ("client", me["client"])
        best = None
        if who:
            for r in db.execute(f"SELECT public_scores FROM submissions WHERE {col} = ? AND task = ? AND dataset = ? "
                                "AND config = ? AND split = ? AND status = 'FINISHED' AND id != ? AND verified = 1",
                                (who, me["task"], me["dataset"], me["config"], me["split"], sid)):
                value = (loads(r[0]) or {}).get(task.headline) if r[0] else None
                if isinstance(value, (int, float)):
                    better = best is None or (value > best if task.higher_is_better else value < best)
                    best = value if better else best
        released, _ = ladder_step(best, float(score), eta=policy.ladder_eta, higher_is_better=task.higher_is_better)
        return {task.headline: released}, {}

    return release_in


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


def record_refusal(store, row: Mapping[str, Any], error: Exception | None = None, now: float | None = None) -> None:
    """Record a refusal on a hidden benchmark: a refused probe counts toward its identity's quota and the
    benchmark's budget (a refusal is an answer too); quota and budget refusals are kept as decisions."""
    kind = ("refused-budget" if isinstance(error, BudgetError) else "refused-quota"
            if isinstance(error, QuotaError) else "refused-probe")
    decisions.record(store, row, kind, now=now)


def check_account_age(row: Mapping[str, Any], min_days: float) -> None:
    """Refuse a Hugging Face account younger than ``min_days``, or whose creation date the Hub does not confirm
    (fails closed); token identities are the maintainer's own and pass."""
    account = row.get("account") or ""
    if min_days <= 0 or not account.startswith("hf:"):
        return
    from figbench_leaderboard.access.identity import hf_account_created

    created = hf_account_created(account[3:])
    if created is None:
        raise UnregisteredError(f"Hugging Face account {account[3:]!r}: the Hub did not confirm when it was created, "
                                f"and this board's hidden benchmarks need accounts at least {min_days:g} days old")
    age = (time.time() - created) / 86400.0
    if age < min_days:
        raise UnregisteredError(f"Hugging Face account {account[3:]!r} is {age:.0f} days old; this board's hidden "
                                f"benchmarks need accounts at least {min_days:g} days old")


def probe_check(policy: HiddenSplitPolicy, row: Mapping[str, Any], predictions: Any, n_ids: int, *,
                task: Task | None = None, gold: Gold | None = None):
    """A check for ``Store.add``: refuse a hidden-benchmark submission whose scored difference from one of
    the same identity's earlier submissions is below the minimum (with ``task`` and ``gold``; without
    them, the number of ids whose prediction differs), and count refused probes toward the quota."""
    need = policy.needed_changes(n_ids)
    idents = _identities(row)
    check_account_age(row, policy.min_account_age_days)   # asks the Hub: before the store's transaction

    def check(db: sqlite3.Connection) -> None:
        check_registered(db, row, policy.hf_accounts)
        since = time.time() - policy.window_s
        bench = _bench_args(row)
        live = ("task = ? AND dataset = ? AND config = ? AND split = ? AND created_at > ? AND status != 'FAILED'")
        if policy.daily_quota > 0:
            for c, v in idents:
                n = decisions.answered(db, bench, since, (c, v)) + db.execute(
                    f"SELECT COUNT(*) FROM submissions WHERE {c} = ? AND {live}", (v, *bench, since)).fetchone()[0]
                if n >= policy.daily_quota:
                    raise QuotaError(
                        f"quota: {v!r} already has {n} hidden-benchmark submissions or refused probes on "
                        f"{'/'.join(bench)} in the last {policy.window_s / 3600:g} h (limit "
                        f"{policy.daily_quota}); try again later")
        if policy.daily_budget > 0:
            n = decisions.answered(db, bench, since) + db.execute(
                f"SELECT COUNT(*) FROM submissions WHERE {live} AND verified = 1", (*bench, since)).fetchone()[0]
            if n >= policy.daily_budget:
                raise BudgetError(
                    f"budget: {'/'.join(bench)} has taken its {policy.daily_budget} submissions of the last "
                    f"{policy.window_s / 3600:g} h over all submitters (the limit that bounds what scores reveal "
                    "about its hidden gold); try again later")
        if not need or not idents:
            return
        where = " OR ".join(f"{c} = ?" for c, _ in idents)
        values = [v for _, v in idents]
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
