"""Leases: a claimed row is RUNNING with ``lease_owner`` and ``lease_until``; its scorer renews the lease while it
works. Any later claim, submission or :meth:`Leases.recover_expired` call puts a row whose lease ran out (or whose
owner process on this machine is gone) back to PENDING, or to FAILED after ``max_attempts`` interrupted tries, so
nothing stays RUNNING after its lease; a RUNNING row whose lease expired is failed ("superseded") by the
resubmission that finds it.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import time
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from figbench_leaderboard.store.errors import LeaseLostError, StoreError
from figbench_leaderboard.store.quarantine import WELL_FORMED
from figbench_leaderboard.store.schema import dumps

DEFAULT_LEASE_S = 30.0
MAX_ATTEMPTS = 3


_HOST = socket.gethostname()


def new_owner() -> str:
    """A lease owner token: this machine, this process, and a random part."""
    return f"{_HOST}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def owner_gone(owner: str | None) -> bool:
    """True when ``owner`` names a process on this machine that no longer exists."""
    if not owner:
        return False
    try:
        host, pid, _ = owner.rsplit(":", 2)
        pid_n = int(pid)
    except ValueError:
        return False
    if host != _HOST or pid_n == os.getpid():
        return False
    try:
        os.kill(pid_n, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


class Leases:
    """Claiming, renewing, finishing and failing submissions under leases (mixed into
    :class:`~figbench_leaderboard.store.sqlite.Store`)."""

    def _expired_sql(self) -> str:
        return "status = 'RUNNING' AND (lease_until IS NULL OR lease_until < ?)"

    def _supersede_expired(self, db: sqlite3.Connection, row: Mapping[str, Any], now: float) -> None:
        """A RUNNING row of the same model and benchmark whose lease ran out is failed, not a duplicate."""
        same = db.execute(
            "SELECT id, lease_owner, lease_until FROM submissions WHERE status = 'RUNNING' AND model_name = ? AND "
            "model_revision = ? AND task = ? AND dataset = ? AND config = ? AND split = ?",
            (row["model_name"], row["model_revision"], row["task"], row["dataset"], row["config"],
             row["split"])).fetchall()
        for r in same:
            if r["lease_until"] is None or r["lease_until"] < now or owner_gone(r["lease_owner"]):
                db.execute("UPDATE submissions SET status = 'FAILED', updated_at = ?, lease_owner = NULL, "
                           "lease_until = NULL, reason = ? WHERE id = ?",
                           (now, f"scoring was interrupted (its lease expired); superseded by {row['id'][:12]}",
                            r["id"]))

    def _recover(self, db: sqlite3.Connection, now: float) -> int:
        rows = db.execute("SELECT id, lease_owner, lease_until, attempts FROM submissions WHERE status = 'RUNNING'"
                          ).fetchall()
        n = 0
        for r in rows:
            if not (r["lease_until"] is None or r["lease_until"] < now or owner_gone(r["lease_owner"])):
                continue
            if r["attempts"] >= self.max_attempts:
                db.execute("UPDATE submissions SET status = 'FAILED', updated_at = ?, lease_owner = NULL, "
                           "lease_until = NULL, reason = ? WHERE id = ?",
                           (now, f"scoring was interrupted {r['attempts']} times (the scorer stopped before "
                                 "finishing); resubmit to try again", r["id"]))
            else:
                db.execute("UPDATE submissions SET status = 'PENDING', updated_at = ?, lease_owner = NULL, "
                           "lease_until = NULL WHERE id = ?", (now, r["id"]))
            n += 1
        return n

    def recover_expired(self, now: float | None = None) -> int:
        """RUNNING rows whose lease expired (or whose owner process is gone) back to PENDING (FAILED after
        ``max_attempts``); returns how many."""
        now = time.time() if now is None else now
        with self.transaction() as db:
            return self._recover(db, now)

    def _claim_row(self, db: sqlite3.Connection, sid: str, owner: str, lease_s: float | None, now: float) -> None:
        db.execute("UPDATE submissions SET status = 'RUNNING', updated_at = ?, lease_owner = ?, lease_until = ?, "
                   "attempts = attempts + 1 WHERE id = ?", (now, owner, now + (lease_s or self.lease_s), sid))

    def claim_next(self, owner: str | None = None, lease_s: float | None = None) -> dict[str, Any] | None:
        """Atomically move the oldest PENDING submission to RUNNING (leased to ``owner``) and return it."""
        owner = owner or new_owner()
        now = time.time()
        with self.transaction() as db:
            self._recover(db, now)
            row = db.execute(f"SELECT id FROM submissions WHERE status = 'PENDING' AND {WELL_FORMED} "
                             "ORDER BY created_at, id LIMIT 1").fetchone()
            if row is None:
                return None
            self._claim_row(db, row["id"], owner, lease_s, now)
        return self.get(row["id"], with_predictions=True)

    def claim(self, sid: str, owner: str | None = None, lease_s: float | None = None) -> dict[str, Any] | None:
        """Lease one given submission that is PENDING (or RUNNING with an expired lease); None otherwise."""
        owner = owner or new_owner()
        now = time.time()
        with self.transaction() as db:
            self._recover(db, now)
            row = db.execute(f"SELECT status FROM submissions WHERE id = ? AND {WELL_FORMED}", (sid,)).fetchone()
            if row is None or row["status"] != "PENDING":
                return None
            self._claim_row(db, sid, owner, lease_s, now)
        return self.get(sid, with_predictions=True)

    def renew(self, sid: str, owner: str, lease_s: float | None = None) -> bool:
        """Extend ``owner``'s lease on a RUNNING submission; False when it is no longer theirs."""
        with self.transaction() as db:
            cur = db.execute("UPDATE submissions SET lease_until = ? WHERE id = ? AND status = 'RUNNING' AND "
                             "lease_owner = ?", (time.time() + (lease_s or self.lease_s), sid, owner))
            return cur.rowcount == 1

    def _owned(self, owner: str | None) -> tuple[str, tuple]:
        return ("AND lease_owner = ?", (owner,)) if owner else ("", ())

    def finish(self, sid: str, *, scores: Mapping, confidence_intervals: Mapping, counts: Mapping | None = None,
               mismatches: Mapping | None = None, verified: bool = True, owner: str | None = None,
               release: Callable[[sqlite3.Connection, Mapping], tuple[Mapping, Mapping]] | None = None) -> None:
        """FINISHED with its scores; ``release(db, scores)``: the released copy, decided in this transaction
        (a hidden benchmark's Ladder), else the benchmark's release rule."""
        clause, extra = self._owned(owner)
        with self.transaction() as db:
            found = db.execute("SELECT task, dataset, config, split FROM submissions WHERE id = ?", (sid,)).fetchone()
            where = dict(found) if found else "?"
            if release is not None:
                pub_s, pub_c = (dumps(dict(x)) for x in release(db, scores))
            else:
                pub_s, pub_c = self._public(where, dict(scores), dict(confidence_intervals))
            cur = db.execute(
                "UPDATE submissions SET status = 'FINISHED', reason = NULL, updated_at = ?, scores = ?, "
                "confidence_intervals = ?, counts = ?, mismatches = ?, verified = ?, lease_owner = NULL, "
                f"lease_until = NULL, public_scores = ?, public_cis = ? WHERE id = ? AND status = 'RUNNING' {clause}",
                (time.time(), dumps(dict(scores)), dumps(dict(confidence_intervals)), dumps(dict(counts or {})),
                 dumps(dict(mismatches or {})), int(verified), pub_s, pub_c, sid, *extra))
            if cur.rowcount != 1:
                raise LeaseLostError(f"submission {sid[:12]} is not RUNNING under this scorer's lease; "
                                     "cannot finish it")

    def fail(self, sid: str, reason: str, *, owner: str | None = None) -> None:
        clause, extra = self._owned(owner)
        with self.transaction() as db:
            cur = db.execute("UPDATE submissions SET status = 'FAILED', reason = ?, updated_at = ?, "
                             "lease_owner = NULL, lease_until = NULL "
                             f"WHERE id = ? AND status IN ('PENDING', 'RUNNING') {clause}",
                             (reason[:2000], time.time(), sid, *extra))
            if cur.rowcount != 1:
                kind = LeaseLostError if owner else StoreError
                raise kind(f"submission {sid[:12]} is not PENDING or RUNNING{' under this lease' if owner else ''}; "
                           "cannot fail it")

    def requeue_running(self) -> int:
        """Put every RUNNING submission back to PENDING, leases or not (an operator's reset); returns how many."""
        with self.transaction() as db:
            return db.execute("UPDATE submissions SET status = 'PENDING', updated_at = ?, lease_owner = NULL, "
                              "lease_until = NULL WHERE status = 'RUNNING'", (time.time(),)).rowcount
