"""Hidden-split policy: scores on test splits must not become an oracle for their gold labels.

With exact per-submission scores, a submitter who changes one prediction at a time learns, from
each score difference, whether that example was right. A served board therefore

1. **releases hidden-split scores at reduced precision**: one decimal in percent (fractions rounded to
   0.001), intervals likewise; the exact values stay in the store (``leaderboard export`` is the
   operator's);
2. **limits hidden-split submissions** per identity (Hugging Face account when signed in, else the
   client address as the Space's proxy reports it, and the submitter name) to ``daily_quota`` per
   benchmark per 24 hours (FAILED ones are not counted);
3. **refuses probes**: a hidden-split submission that changes fewer than ``min_changed`` predictions
   (at least ``min_changed_fraction`` of the split) relative to one of the same identity's earlier
   submissions on that benchmark is refused, so a score difference never isolates a few examples.

Dev splits (not hidden) are released in full. A local store (``figbench submit --to FOLDER``) has no
policy: its owner has the gold anyway.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from figbench_leaderboard.benchmarks import Benchmark, hidden_split
from figbench_leaderboard.release import HIDDEN_DECIMALS, round_hidden
from figbench_leaderboard.release import release as release_row
from figbench_leaderboard.store import Quota, decode_predictions

__all__ = ["HIDDEN_DECIMALS", "HiddenSplitPolicy", "changed", "fingerprints", "probe_check", "release",
           "round_hidden"]


@dataclass(frozen=True)
class HiddenSplitPolicy:
    """Release precision, quota and probe guard for hidden (test) splits."""

    daily_quota: int = 5
    min_changed: int = 10
    min_changed_fraction: float = 0.01
    window_s: float = 86400.0
    compare_last: int = 50   #: earlier submissions compared against (per identity and benchmark)

    def quota(self, benchmark: Benchmark) -> Quota | None:
        if not hidden_split(benchmark) or self.daily_quota <= 0:
            return None
        return Quota(self.daily_quota, self.window_s, "hidden-split submissions")

    def needed_changes(self, n_ids: int) -> int:
        return max(self.min_changed, math.ceil(self.min_changed_fraction * n_ids)) if self.min_changed > 0 else 0


def release(row: Mapping[str, Any], benchmark: Benchmark | None = None) -> dict[str, Any]:
    """``row`` as it may be shown: scores and intervals of hidden splits rounded (a copy)."""
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


def probe_check(policy: HiddenSplitPolicy, row: Mapping[str, Any], predictions: Any, n_ids: int):
    """A check for ``Store.add``: refuse a near-copy of the same identity's earlier hidden-split submission."""
    from figbench_leaderboard.formats import SubmissionError

    need = policy.needed_changes(n_ids)
    idents = [(c, row[c]) for c in ("account", "client", "submitter") if row.get(c)]

    def check(db: sqlite3.Connection) -> None:
        if not need or not idents:
            return
        where = " OR ".join(f"{c} = ?" for c, _ in idents)
        earlier = db.execute(
            f"SELECT id, predictions FROM submissions WHERE ({where}) AND task = ? AND dataset = ? AND config = ? "
            "AND split = ? AND status != 'FAILED' AND predictions IS NOT NULL ORDER BY created_at DESC LIMIT ?",
            (*[v for _, v in idents], row["task"], row["dataset"], row["config"], row["split"],
             policy.compare_last)).fetchall()
        mine = fingerprints(predictions)
        for r in earlier:
            theirs = fingerprints(decode_predictions(r["predictions"]))
            diff = sum(1 for k in mine.keys() | theirs.keys() if mine.get(k) != theirs.get(k))
            if diff < need:
                raise SubmissionError(
                    f"too close to your earlier submission {r['id'][:12]} on this hidden test split: it changes "
                    f"{diff} of {n_ids} predictions, at least {need} must change. Near-identical resubmissions to "
                    "a hidden split are refused so that scores cannot be used to probe its gold labels; use the "
                    "dev split to compare small changes.")

    return check
