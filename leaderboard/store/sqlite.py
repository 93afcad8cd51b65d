"""The embedded store: one SQLite database (WAL, real transactions) in a data folder.

Every write is one ``BEGIN IMMEDIATE`` transaction, so concurrent submissions serialise and a
process killed mid-write leaves the last committed state (SQLite's journal rolls back the rest).

* **Duplicates.** A partial unique index makes two live submissions of the same model, revision and
  benchmark impossible even under races; FAILED rows do not count.
* **Leases** (:mod:`~figbench_leaderboard.store.leases`), **limits** and **names**
  (:mod:`~figbench_leaderboard.store.limits`), **quarantine** (:mod:`~figbench_leaderboard.store.quarantine`),
  **upgrades** of a store an older version wrote (:mod:`~figbench_leaderboard.store.upgrades`): mixed into
  :class:`Store` from their own modules.
* **Errors** (disk full, read-only store, unreadable file) are
  :class:`~figbench_leaderboard.store.errors.StoreError` in plain words.
* **Revision.** ``meta.rev`` grows with every visible change (triggers), so readers cache views.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
import uuid
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from figbench_leaderboard.store.errors import (
    DuplicateSubmissionError,
    MalformedRowError,
    StoreError,
    StoreFullError,
    StoreReadOnlyError,
)
from figbench_leaderboard.store.leases import DEFAULT_LEASE_S, MAX_ATTEMPTS, Leases
from figbench_leaderboard.store.limits import Limits, Quota, RateLimit
from figbench_leaderboard.store.quarantine import PROBLEM_SQL, WELL_FORMED, Quarantine
from figbench_leaderboard.store.schema import (
    BOARD_COLUMNS,
    DB_NAME,
    INDEXES,
    JSON_COLUMNS,
    LIGHT_COLUMNS,
    QUEUE_COLUMNS,
    SCHEMA,
    SELECTION_SQL,
    STATUSES,
    decode_predictions,
    dumps,
    encode_predictions,
    loads,
)
from figbench_leaderboard.store.upgrades import Upgrades


class Store(Leases, Limits, Quarantine, Upgrades):
    """SQLite store of submissions in ``folder/leaderboard.sqlite`` (one connection per thread)."""

    def __init__(self, folder: str | os.PathLike, *, rate_limit: RateLimit | None = None,
                 timeout_s: float = 60.0, lease_s: float = DEFAULT_LEASE_S, max_attempts: int = MAX_ATTEMPTS,
                 max_pages: int | None = None) -> None:
        self.folder = Path(folder).expanduser()
        if self.folder.exists() and not self.folder.is_dir():
            raise StoreError(f"{self.folder.name}: a store must be a folder")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StoreError(f"cannot create the store folder {self.folder.name!r}: {e.strerror}") from None
        self.path = self.folder / DB_NAME
        self.rate_limit = rate_limit or RateLimit()
        self.timeout_s = timeout_s
        self.lease_s = lease_s
        self.max_attempts = max_attempts
        self.max_pages = max_pages   #: a size cap (SQLite max_page_count); writes past it fail as "full"
        self._local = threading.local()
        self._init_schema()

    # --- connections, transactions, errors --------------------------------------------------
    def _writable(self) -> bool:
        return os.access(self.folder, os.W_OK) and (not self.path.exists() or os.access(self.path, os.W_OK))

    def _describe(self, e: sqlite3.Error) -> StoreError:
        msg = str(e).lower()
        where = f"the store {self.folder.name}/{DB_NAME}"
        if ("unable to open" in msg or "disk i/o" in msg) and self.folder.is_dir() and not self._writable():
            msg = "readonly"
        if "full" in msg:
            return StoreFullError(f"{where} is full (no space left on its disk, or its size cap reached); "
                                  "nothing was changed: free space and try again")
        if "readonly" in msg or "read-only" in msg or "read only" in msg:
            return StoreReadOnlyError(f"{where} is read-only (its folder or file cannot be written); "
                                      "nothing was changed")
        if "unable to open" in msg or "cannot open" in msg:
            return StoreError(f"cannot open {where}: check that its folder exists and can be written")
        if "disk i/o" in msg:
            return StoreError(f"disk I/O error on {where} (the disk may be full or failing); nothing was changed")
        if "locked" in msg or "busy" in msg:
            return StoreError(f"{where} is busy (another process holds a long write); try again")
        if "malformed" in msg or "not a database" in msg:
            return StoreError(f"{where} is damaged or not a leaderboard store")
        return StoreError(f"{where}: {e}")

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None and self.path.exists() and not self._writable():
            # a read-only store (read-only disk or folder): readable as an immutable database
            try:
                conn = sqlite3.connect(f"file:{self.path}?mode=ro&immutable=1", uri=True, isolation_level=None,
                                       check_same_thread=False)
                conn.row_factory = sqlite3.Row
            except sqlite3.Error as e:
                raise self._describe(e) from None
            self._local.conn = conn
        if conn is None:
            try:
                conn = sqlite3.connect(self.path, timeout=self.timeout_s, isolation_level=None,
                                       check_same_thread=False)
                conn.row_factory = sqlite3.Row
                conn.execute(f"PRAGMA busy_timeout={int(self.timeout_s * 1000)}")
                self._use_wal(conn)
                conn.execute("PRAGMA synchronous=FULL")
                if self.max_pages:
                    conn.execute(f"PRAGMA max_page_count={int(self.max_pages)}")
            except sqlite3.Error as e:
                raise self._describe(e) from None
            self._local.conn = conn
        return conn

    def _use_wal(self, conn: sqlite3.Connection) -> None:
        """Switch a new database to WAL. SQLite answers "locked" at once, without its busy handler, when
        another process switches the same new file at the same moment, so this retries until the timeout."""
        deadline = time.monotonic() + self.timeout_s
        while True:
            try:
                if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                    conn.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as e:
                if not ("locked" in str(e).lower() or "busy" in str(e).lower()) or time.monotonic() > deadline:
                    raise
                time.sleep(0.02)

    def _init_schema(self) -> None:
        db = self._conn()
        try:
            db.executescript(SCHEMA)
            self._add_columns(db)
            db.executescript(INDEXES)
        except sqlite3.OperationalError as e:
            if "readonly" in str(e).lower() or not self._writable():   # a read-only store can still be read
                return
            raise self._describe(e) from None
        from figbench_leaderboard.store import reveals

        reveals.load(self)   # the release rule knows the revealed hidden benchmarks before anything is released
        if db.execute("SELECT COUNT(*) FROM submissions WHERE scores IS NOT NULL AND public_scores IS NULL "
                      f"AND {WELL_FORMED}").fetchone()[0]:
            with self.transaction() as tx:
                rows = tx.execute("SELECT id, task, dataset, config, split, scores, confidence_intervals FROM "
                                  f"submissions WHERE scores IS NOT NULL AND public_scores IS NULL AND {WELL_FORMED}"
                                  ).fetchall()
                tx.executemany("UPDATE submissions SET public_scores = ?, public_cis = ? WHERE id = ?",
                               [(*self._public(dict(r), loads(r["scores"]),
                                               loads(r["confidence_intervals"] or "{}")), r["id"]) for r in rows])
        self._update_name_keys(db)
        self._update_hidden_releases(db)

    @staticmethod
    def _public(row: Mapping[str, Any], scores: Any, cis: Any) -> tuple[str | None, str | None]:
        """The released copy of scores and intervals (by the row's benchmark: see ``release``)."""
        from figbench_leaderboard.domain.release import released_scores

        pub_s, pub_c = released_scores(row, scores, cis)
        return dumps(pub_s), dumps(pub_c)

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT``; rolled back on any error; SQLite errors as :class:`StoreError`."""
        db = self._conn()
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as e:
            raise self._describe(e) from None
        try:
            yield db
            db.execute("COMMIT")
        except BaseException as e:
            if db.in_transaction:   # SQLite may have rolled back already (disk full): do not mask the cause
                try:
                    db.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
            if isinstance(e, sqlite3.Error):
                raise self._describe(e) from None
            raise

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def state_changed(self) -> None:
        """A table besides the submissions changed (tokens, decisions): a :class:`HubStore` pushes it."""

    def republish(self, ids: list[str]) -> None:
        """These submissions' released copies changed (a reveal): a :class:`HubStore` pushes their files again."""

    def journal_mode(self) -> str:
        return self._conn().execute("PRAGMA journal_mode").fetchone()[0]

    def revision(self) -> int:
        """Grows with every visible change of the submissions (insert, status, scores...)."""
        return int(self._read("SELECT value FROM meta WHERE key = 'rev'")[0][0])

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        try:
            return self._conn().execute(sql, params).fetchall()
        except sqlite3.Error as e:
            raise self._describe(e) from None

    # --- writes ------------------------------------------------------------------------------
    def add(self, sub: Mapping[str, Any], *, now: float | None = None, quota: Quota | None = None,
            check: Callable[[sqlite3.Connection], None] | None = None, limits: bool = True) -> str:
        """Insert a submission (status PENDING unless given) and return its id.

        ``sub`` holds the column values (``task``, ``dataset``, ``config``, ``split``,
        ``model_name``, ``model_revision``, ``model_type``, ``model_parameters``, ``submitter``,
        ``client``, ``account``, ``verified``, ``sha256``, ``metadata``, ``reported_scores``,
        ``predictions``...). ``quota`` limits submissions per identity on this benchmark; ``check``
        runs inside the insert's transaction (and may raise to refuse). ``limits=False`` (imports of
        rows already accepted elsewhere) skips the rate limit.
        """
        from figbench_leaderboard.domain.names import name_keys

        now = time.time() if now is None else now
        sid = sub.get("id") or uuid.uuid4().hex
        status = sub.get("status", "PENDING")
        if status not in STATUSES:
            raise StoreError(f"unknown status {status!r}")
        row = {
            "id": sid, "created_at": now, "updated_at": sub.get("updated_at") or now, "status": status,
            "reason": sub.get("reason"),
            "task": sub["task"], "dataset": sub["dataset"], "config": sub["config"], "split": sub["split"],
            "model_name": sub["model_name"], "model_revision": sub.get("model_revision") or "",
            "model_type": sub["model_type"], "model_parameters": sub.get("model_parameters"),
            "submitter": sub.get("submitter"), "client": sub.get("client"), "account": sub.get("account"),
            "verified": int(bool(sub.get("verified"))), "sha256": sub["sha256"],
            **dict(zip(("name_key", "name_key2"), name_keys(sub["model_name"]), strict=True)),
            "predictions": encode_predictions(sub["predictions"]) if sub.get("predictions") is not None else None,
        }
        for col in JSON_COLUMNS:
            row[col] = dumps(sub.get(col) if col != "metadata" else sub.get(col, {}))
        if sub.get("scores") is not None and sub.get("public_scores") is None:   # an import keeps its released copy
            row["public_scores"], row["public_cis"] = self._public(sub, sub["scores"],
                                                                   sub.get("confidence_intervals") or {})
        cols = ", ".join(row)
        marks = ", ".join(f":{c}" for c in row)
        with self.transaction() as db:
            if limits:
                self._check_rate(db, row, now)
            if quota is not None:
                self._check_quota(db, row, now, quota)
            if limits:
                self._check_owner(db, row)
            self._supersede_expired(db, row, now)
            if check is not None:
                check(db)
            try:
                db.execute(f"INSERT INTO submissions ({cols}) VALUES ({marks})", row)
            except sqlite3.IntegrityError as e:
                if "submissions_one_live" in str(e) or "UNIQUE" in str(e):
                    existing = db.execute(
                        "SELECT id, status, sha256 FROM submissions WHERE model_name = ? AND model_revision = ? AND "
                        "task = ? AND dataset = ? AND config = ? AND split = ? AND status != 'FAILED'",
                        (row["model_name"], row["model_revision"], row["task"], row["dataset"], row["config"],
                         row["split"])).fetchone()
                    rev = row["model_revision"] or "(no revision)"
                    raise DuplicateSubmissionError(
                        f"duplicate submission: {row['model_name']!r} revision {rev} already has a submission for "
                        f"{row['task']}/{row['dataset']}/{row['config']}/{row['split']}"
                        + (f" ({existing['id'][:12]}, {existing['status']})" if existing else ""),
                        dict(existing) if existing else None) from None
                raise
        return sid


    # --- reads -------------------------------------------------------------------------------
    @staticmethod
    def _decode(row: sqlite3.Row) -> dict[str, Any]:
        out = dict(row)
        for col in JSON_COLUMNS:
            if col in out and out[col] is not None:
                out[col] = loads(out[col])
        if "predictions" in out:
            try:
                out["predictions"] = decode_predictions(out["predictions"])
            except (zlib.error, ValueError, TypeError) as e:
                raise MalformedRowError(f"submission {out.get('id')}: predictions cannot be read ({e})") from None
        if "verified" in out:
            out["verified"] = bool(out["verified"])
        return out

    def get(self, sid: str, *, with_predictions: bool = False) -> dict[str, Any] | None:
        """One submission; :class:`MalformedRowError` (naming it and what is wrong) when it is quarantined."""
        cols = ", ".join(LIGHT_COLUMNS + (("predictions",) if with_predictions else ()))
        rows = self._read(f"SELECT {cols}, {PROBLEM_SQL} AS _problem FROM submissions WHERE id = ?", (sid,))
        if not rows:
            return None
        if rows[0]["_problem"] is not None:
            self._note(sid, rows[0]["_problem"])
            raise MalformedRowError(f"submission {sid} is quarantined: {rows[0]['_problem']}")
        out = self._decode(rows[0])
        out.pop("_problem", None)
        return out


    def find(self, prefix: str) -> dict[str, Any] | None:
        """The submission whose id starts with ``prefix`` (at least 6 hex characters), if exactly one."""
        prefix = prefix.strip().lower()
        if len(prefix) < 6 or not all(c in "0123456789abcdef" for c in prefix):
            return None
        rows = self._read("SELECT id FROM submissions WHERE id LIKE ? LIMIT 2", (prefix + "%",))
        try:
            return self.get(rows[0]["id"]) if len(rows) == 1 else None
        except MalformedRowError:   # quarantined: skipped, like everywhere else
            return None

    def list(self, *, status: str | None = None) -> list[dict[str, Any]]:
        """All submissions (without predictions), oldest first; optionally only one status (quarantined rows
        skipped)."""
        cols = ", ".join(LIGHT_COLUMNS)
        if status is None:
            rows = self._read(f"SELECT {cols} FROM submissions ORDER BY created_at, id")
        else:
            rows = self._read(f"SELECT {cols} FROM submissions WHERE status = ? ORDER BY created_at, id", (status,))
        return self._decode_all(rows, self._decode)

    def board_rows(self, *, released: bool = False) -> list[dict[str, Any]]:
        """FINISHED submissions with the columns the board's tables use (no metadata, no predictions; ``selection``:
        the kind of ``metadata.provenance.selection``, or None);
        ``released``: hidden-split scores and intervals as released (``public_*`` columns). Quarantined rows
        skipped."""
        s, c = ("public_scores", "public_cis") if released else ("scores", "confidence_intervals")
        rows = self._read(f"SELECT {', '.join(BOARD_COLUMNS)}, {s} AS scores, {c} AS confidence_intervals, "
                          f"{SELECTION_SQL} AS selection "
                          "FROM submissions WHERE status = 'FINISHED' ORDER BY created_at, id")

        def decode(r: sqlite3.Row) -> dict[str, Any]:
            d = dict(r)
            d["scores"] = loads(d["scores"]) if d["scores"] is not None else None
            d["confidence_intervals"] = loads(d["confidence_intervals"]) if d["confidence_intervals"] else {}
            d["verified"] = bool(d["verified"])
            return d

        return self._decode_all(rows, decode)

    def queue_page(self, *, limit: int = 100, offset: int = 0, status: str | None = None) -> list[dict[str, Any]]:
        """Newest submissions first, one page (quarantined rows skipped)."""
        bad = tuple(self._bad_ids())
        where = " AND ".join(([f"id NOT IN ({', '.join('?' * len(bad))})"] if bad else [])
                             + (["status = ?"] if status else []))
        params = (*bad, *((status,) if status else ()))
        rows = self._read(f"SELECT {', '.join(QUEUE_COLUMNS)} FROM submissions {'WHERE ' + where if where else ''} "
                          "ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?", (*params, int(limit), int(offset)))
        return self._decode_all(rows, self._decode)

    def status_counts(self) -> dict[str, int]:
        return {r[0]: r[1] for r in self._read("SELECT status, COUNT(*) FROM submissions GROUP BY status")}

    def model_names(self, name_key: str) -> list[str]:
        """Distinct model names stored under a confusable skeleton."""
        return [r[0] for r in self._read("SELECT DISTINCT model_name FROM submissions WHERE name_key = ?",
                                         (name_key,))]

    def count(self, status: str | None = None) -> int:
        if status is None:
            return self._read("SELECT COUNT(*) FROM submissions")[0][0]
        return self._read("SELECT COUNT(*) FROM submissions WHERE status = ?", (status,))[0][0]

    def integrity_check(self) -> str:
        return self._read("PRAGMA integrity_check")[0][0]
