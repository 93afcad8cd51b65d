"""The embedded store: one SQLite database (WAL, real transactions) in a data folder.

Every write is one ``BEGIN IMMEDIATE`` transaction, so concurrent submissions serialise and a
process killed mid-write leaves the last committed state (SQLite's journal rolls back the rest).
A partial unique index makes duplicate submissions (same model, revision and benchmark, not
FAILED) impossible even under races; the per-submitter rate limit is checked inside the same
transaction as the insert.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
import uuid
import zlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

STATUSES = ("PENDING", "RUNNING", "FINISHED", "FAILED")
DB_NAME = "leaderboard.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS submissions (
    id TEXT PRIMARY KEY,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('PENDING', 'RUNNING', 'FINISHED', 'FAILED')),
    reason TEXT,
    task TEXT NOT NULL,
    dataset TEXT NOT NULL,
    config TEXT NOT NULL,
    split TEXT NOT NULL,
    model_name TEXT NOT NULL,
    model_revision TEXT NOT NULL DEFAULT '',
    model_type TEXT NOT NULL,
    model_parameters INTEGER,
    submitter TEXT,
    client TEXT,
    verified INTEGER NOT NULL DEFAULT 0,
    sha256 TEXT NOT NULL,
    metadata TEXT NOT NULL,
    reported_scores TEXT,
    scores TEXT,
    confidence_intervals TEXT,
    counts TEXT,
    mismatches TEXT,
    predictions BLOB
);
CREATE UNIQUE INDEX IF NOT EXISTS submissions_one_live
    ON submissions (model_name, model_revision, task, dataset, config, split) WHERE status != 'FAILED';
CREATE INDEX IF NOT EXISTS submissions_status ON submissions (status, created_at);
CREATE INDEX IF NOT EXISTS submissions_submitter ON submissions (submitter, created_at);
CREATE INDEX IF NOT EXISTS submissions_client ON submissions (client, created_at);
"""

_JSON_COLUMNS = ("metadata", "reported_scores", "scores", "confidence_intervals", "counts", "mismatches")
_LIGHT_COLUMNS = ("id", "created_at", "updated_at", "status", "reason", "task", "dataset", "config", "split",
                  "model_name", "model_revision", "model_type", "model_parameters", "submitter", "verified",
                  "sha256", "metadata", "reported_scores", "scores", "confidence_intervals", "counts", "mismatches")


class StoreError(ValueError):
    """A store operation was refused (the message says why)."""


class DuplicateSubmissionError(StoreError):
    """The same model and revision already has a live submission for this benchmark."""


class RateLimitError(StoreError):
    """The submitter sent too many submissions in the rate-limit window."""


@dataclass(frozen=True)
class RateLimit:
    """At most ``max_submissions`` per submitter (and per client address) in ``window_s`` seconds."""

    max_submissions: int = 20
    window_s: float = 3600.0


def encode_predictions(predictions: Any) -> bytes:
    return zlib.compress(json.dumps(predictions, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


def decode_predictions(blob: bytes | None) -> Any:
    return None if blob is None else json.loads(zlib.decompress(blob).decode("utf-8"))


def _dumps(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False, allow_nan=False, sort_keys=True)


class Store:
    """SQLite store of submissions in ``folder/leaderboard.sqlite`` (one connection per thread)."""

    def __init__(self, folder: str | os.PathLike, *, rate_limit: RateLimit | None = None,
                 timeout_s: float = 60.0) -> None:
        self.folder = Path(folder).expanduser()
        if self.folder.exists() and not self.folder.is_dir():
            raise StoreError(f"{self.folder}: a store must be a folder")
        self.folder.mkdir(parents=True, exist_ok=True)
        self.path = self.folder / DB_NAME
        self.rate_limit = rate_limit or RateLimit()
        self.timeout_s = timeout_s
        self._local = threading.local()
        self._conn().executescript(_SCHEMA)

    # --- connections and transactions ------------------------------------------------------
    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=self.timeout_s, isolation_level=None)
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute(f"PRAGMA busy_timeout={int(self.timeout_s * 1000)}")
            self._local.conn = conn
        return conn

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK`` on any error)."""
        db = self._conn()
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def journal_mode(self) -> str:
        return self._conn().execute("PRAGMA journal_mode").fetchone()[0]

    # --- writes ------------------------------------------------------------------------------
    def add(self, sub: Mapping[str, Any], *, now: float | None = None) -> str:
        """Insert a submission (status PENDING unless given) and return its id.

        ``sub`` holds the column values (``task``, ``dataset``, ``config``, ``split``,
        ``model_name``, ``model_revision``, ``model_type``, ``model_parameters``, ``submitter``,
        ``client``, ``verified``, ``sha256``, ``metadata``, ``reported_scores``, ``predictions``...).
        """
        now = time.time() if now is None else now
        sid = sub.get("id") or uuid.uuid4().hex
        status = sub.get("status", "PENDING")
        if status not in STATUSES:
            raise StoreError(f"unknown status {status!r}")
        row = {
            "id": sid, "created_at": now, "updated_at": now, "status": status, "reason": sub.get("reason"),
            "task": sub["task"], "dataset": sub["dataset"], "config": sub["config"], "split": sub["split"],
            "model_name": sub["model_name"], "model_revision": sub.get("model_revision") or "",
            "model_type": sub["model_type"], "model_parameters": sub.get("model_parameters"),
            "submitter": sub.get("submitter"), "client": sub.get("client"),
            "verified": int(bool(sub.get("verified"))), "sha256": sub["sha256"],
            "predictions": encode_predictions(sub["predictions"]) if sub.get("predictions") is not None else None,
        }
        for col in _JSON_COLUMNS:
            row[col] = _dumps(sub.get(col) if col != "metadata" else sub.get(col, {}))
        cols = ", ".join(row)
        marks = ", ".join(f":{c}" for c in row)
        with self.transaction() as db:
            self._check_rate(db, row, now)
            try:
                db.execute(f"INSERT INTO submissions ({cols}) VALUES ({marks})", row)
            except sqlite3.IntegrityError as e:
                if "submissions_one_live" in str(e) or "UNIQUE" in str(e):
                    rev = row["model_revision"] or "(no revision)"
                    raise DuplicateSubmissionError(
                        f"duplicate submission: {row['model_name']!r} revision {rev} already has a submission for "
                        f"{row['task']}/{row['dataset']}/{row['config']}/{row['split']}") from None
                raise
        return sid

    def _check_rate(self, db: sqlite3.Connection, row: Mapping[str, Any], now: float) -> None:
        since = now - self.rate_limit.window_s
        for col in ("submitter", "client"):
            who = row.get(col)
            if not who:
                continue
            n = db.execute(f"SELECT COUNT(*) FROM submissions WHERE {col} = ? AND created_at > ?",
                           (who, since)).fetchone()[0]
            if n >= self.rate_limit.max_submissions:
                raise RateLimitError(
                    f"rate limit: {who!r} already sent {n} submissions in the last "
                    f"{self.rate_limit.window_s:.0f} s (limit {self.rate_limit.max_submissions}); try again later")

    def claim_next(self) -> dict[str, Any] | None:
        """Atomically move the oldest PENDING submission to RUNNING and return it (with predictions)."""
        with self.transaction() as db:
            row = db.execute("SELECT id FROM submissions WHERE status = 'PENDING' ORDER BY created_at, id LIMIT 1").fetchone()
            if row is None:
                return None
            db.execute("UPDATE submissions SET status = 'RUNNING', updated_at = ? WHERE id = ?", (time.time(), row["id"]))
        return self.get(row["id"], with_predictions=True)

    def claim(self, sid: str) -> dict[str, Any] | None:
        """Move one given PENDING submission to RUNNING; None when it is not PENDING."""
        with self.transaction() as db:
            cur = db.execute("UPDATE submissions SET status = 'RUNNING', updated_at = ? WHERE id = ? AND status = 'PENDING'",
                             (time.time(), sid))
            if cur.rowcount != 1:
                return None
        return self.get(sid, with_predictions=True)

    def finish(self, sid: str, *, scores: Mapping, confidence_intervals: Mapping, counts: Mapping | None = None,
               mismatches: Mapping | None = None, verified: bool = True) -> None:
        with self.transaction() as db:
            cur = db.execute(
                "UPDATE submissions SET status = 'FINISHED', reason = NULL, updated_at = ?, scores = ?, "
                "confidence_intervals = ?, counts = ?, mismatches = ?, verified = ? WHERE id = ? AND status = 'RUNNING'",
                (time.time(), _dumps(dict(scores)), _dumps(dict(confidence_intervals)), _dumps(dict(counts or {})),
                 _dumps(dict(mismatches or {})), int(verified), sid))
            if cur.rowcount != 1:
                raise StoreError(f"submission {sid} is not RUNNING; cannot finish it")

    def fail(self, sid: str, reason: str) -> None:
        with self.transaction() as db:
            cur = db.execute("UPDATE submissions SET status = 'FAILED', reason = ?, updated_at = ? WHERE id = ? "
                             "AND status IN ('PENDING', 'RUNNING')", (reason[:2000], time.time(), sid))
            if cur.rowcount != 1:
                raise StoreError(f"submission {sid} is not PENDING or RUNNING; cannot fail it")

    def requeue_running(self) -> int:
        """Put RUNNING submissions back to PENDING (after a worker crash); returns how many."""
        with self.transaction() as db:
            return db.execute("UPDATE submissions SET status = 'PENDING', updated_at = ? WHERE status = 'RUNNING'",
                              (time.time(),)).rowcount

    # --- reads -------------------------------------------------------------------------------
    @staticmethod
    def _decode(row: sqlite3.Row) -> dict[str, Any]:
        out = dict(row)
        for col in _JSON_COLUMNS:
            if col in out and out[col] is not None:
                out[col] = json.loads(out[col])
        if "predictions" in out:
            out["predictions"] = decode_predictions(out["predictions"])
        if "verified" in out:
            out["verified"] = bool(out["verified"])
        return out

    def get(self, sid: str, *, with_predictions: bool = False) -> dict[str, Any] | None:
        cols = ", ".join(_LIGHT_COLUMNS + (("predictions",) if with_predictions else ()))
        row = self._conn().execute(f"SELECT {cols} FROM submissions WHERE id = ?", (sid,)).fetchone()
        return None if row is None else self._decode(row)

    def find(self, prefix: str) -> dict[str, Any] | None:
        """The submission whose id starts with ``prefix`` (at least 6 hex characters), if exactly one."""
        prefix = prefix.strip().lower()
        if len(prefix) < 6 or not all(c in "0123456789abcdef" for c in prefix):
            return None
        rows = self._conn().execute("SELECT id FROM submissions WHERE id LIKE ? LIMIT 2", (prefix + "%",)).fetchall()
        return self.get(rows[0]["id"]) if len(rows) == 1 else None

    def list(self, *, status: str | None = None) -> list[dict[str, Any]]:
        """All submissions (without predictions), oldest first; optionally only one status."""
        cols = ", ".join(_LIGHT_COLUMNS)
        if status is None:
            rows = self._conn().execute(f"SELECT {cols} FROM submissions ORDER BY created_at, id").fetchall()
        else:
            rows = self._conn().execute(f"SELECT {cols} FROM submissions WHERE status = ? ORDER BY created_at, id",
                                        (status,)).fetchall()
        return [self._decode(r) for r in rows]

    def count(self, status: str | None = None) -> int:
        if status is None:
            return self._conn().execute("SELECT COUNT(*) FROM submissions").fetchone()[0]
        return self._conn().execute("SELECT COUNT(*) FROM submissions WHERE status = ?", (status,)).fetchone()[0]

    def integrity_check(self) -> str:
        return self._conn().execute("PRAGMA integrity_check").fetchone()[0]
