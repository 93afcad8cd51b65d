"""The embedded store: one SQLite database (WAL, real transactions) in a data folder.

Every write is one ``BEGIN IMMEDIATE`` transaction, so concurrent submissions serialise and a
process killed mid-write leaves the last committed state (SQLite's journal rolls back the rest).

* **Duplicates.** A partial unique index makes two live submissions of the same model, revision and
  benchmark impossible even under races; FAILED rows do not count, and a RUNNING row whose lease
  expired is failed ("superseded") by the resubmission that finds it.
* **Leases.** A claimed row is RUNNING with ``lease_owner`` and ``lease_until``; its scorer renews the
  lease while it works. Any later claim, submission or :meth:`Store.recover_expired` call puts a
  row whose lease ran out (or whose owner process on this machine is gone) back to PENDING, or to
  FAILED after ``max_attempts`` interrupted tries, so nothing stays RUNNING after its lease.
* **Limits.** Per-identity rate limits and quotas are counted inside the insert's transaction, per
  verified identity only: the client address and the ``account`` (``hf:<user>`` signed in, or
  ``key:<hash>`` of a submitter token); the self-declared ``submitter`` label counts toward nothing.
* **Names.** A model name (and every look-alike of it, :mod:`figbench_leaderboard.domain.names`) belongs to
  the identity (``account``, else ``client``) of its first submission; a submission that carries an
  identity is refused under a name someone else owns (:class:`NameOwnedError`). Rows without an
  identity (the maintainer's local CLI, imports) claim their names for the maintainer.
* **Errors** (disk full, read-only store, unreadable file) are :class:`StoreError` in plain words.
* **Revision.** ``meta.rev`` grows with every visible change (triggers), so readers cache views.
* **Quarantine.** A stored row that this code could not have written (a JSON column that is not a JSON
  object, a score that is not a number, a text ``created_at``...) is skipped by every read (board,
  queue, list, export, the worker) with one log line naming it. :meth:`Store.quarantined` finds them all
  (one SQL scan; ``open_store`` runs it for ``serve`` and the CLI) and lists them; without it each read
  still skips the rows whose columns it decodes and finds damaged.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import sqlite3
import threading
import time
import uuid
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)
STATUSES = ("PENDING", "RUNNING", "FINISHED", "FAILED")
DB_NAME = "leaderboard.sqlite"
DEFAULT_LEASE_S = 30.0
MAX_ATTEMPTS = 3

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
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
INSERT OR IGNORE INTO meta (key, value) VALUES ('rev', 0);
"""

#: columns added after the first release (existing stores get them on open)
_ADDED_COLUMNS = {"lease_owner": "TEXT", "lease_until": "REAL", "attempts": "INTEGER NOT NULL DEFAULT 0",
                  "account": "TEXT", "name_key": "TEXT", "public_scores": "TEXT", "public_cis": "TEXT",
                  "name_key2": "TEXT"}

_INDEXES = """
CREATE UNIQUE INDEX IF NOT EXISTS submissions_one_live
    ON submissions (model_name, model_revision, task, dataset, config, split) WHERE status != 'FAILED';
CREATE INDEX IF NOT EXISTS submissions_status ON submissions (status, created_at);
CREATE INDEX IF NOT EXISTS submissions_submitter ON submissions (submitter, created_at);
CREATE INDEX IF NOT EXISTS submissions_client ON submissions (client, created_at);
CREATE INDEX IF NOT EXISTS submissions_account ON submissions (account, created_at);
CREATE INDEX IF NOT EXISTS submissions_name_key ON submissions (name_key);
CREATE INDEX IF NOT EXISTS submissions_name_key2 ON submissions (name_key2);
CREATE INDEX IF NOT EXISTS submissions_created ON submissions (created_at);
CREATE INDEX IF NOT EXISTS submissions_board ON submissions (status, created_at, id, updated_at, reason, task, dataset,
    config, split, model_name, model_revision, model_type, model_parameters, submitter, verified, public_scores,
    public_cis);
CREATE TRIGGER IF NOT EXISTS submissions_rev_insert AFTER INSERT ON submissions
    BEGIN UPDATE meta SET value = value + 1 WHERE key = 'rev'; END;
CREATE TRIGGER IF NOT EXISTS submissions_rev_delete AFTER DELETE ON submissions
    BEGIN UPDATE meta SET value = value + 1 WHERE key = 'rev'; END;
CREATE TRIGGER IF NOT EXISTS submissions_rev_update
    AFTER UPDATE OF status, reason, scores, confidence_intervals, verified, model_name, model_parameters
    ON submissions BEGIN UPDATE meta SET value = value + 1 WHERE key = 'rev'; END;
"""

_JSON_COLUMNS = ("metadata", "reported_scores", "scores", "confidence_intervals", "counts", "mismatches",
                 "public_scores", "public_cis")
_LIGHT_COLUMNS = ("id", "created_at", "updated_at", "status", "reason", "task", "dataset", "config", "split",
                  "model_name", "model_revision", "model_type", "model_parameters", "submitter", "verified",
                  "sha256", "metadata", "reported_scores", "scores", "confidence_intervals", "counts", "mismatches",
                  "attempts", "lease_until")
#: what the board's tables need: no metadata, no predictions (scores: the released copy, or the exact one)
BOARD_COLUMNS = ("id", "created_at", "updated_at", "status", "reason", "task", "dataset", "config", "split",
                 "model_name", "model_revision", "model_type", "model_parameters", "submitter", "verified")
QUEUE_COLUMNS = ("id", "created_at", "status", "reason", "task", "dataset", "config", "split", "model_name",
                 "model_revision", "submitter", "verified")


class StoreError(ValueError):
    """A store operation was refused or failed (the message says why, in plain words)."""


class MalformedRowError(StoreError):
    """A stored row is malformed (quarantined): the message names the row and what is wrong."""


class StoreFullError(StoreError):
    """The disk (or the store's size cap) is full."""


class StoreReadOnlyError(StoreError):
    """The store cannot be written."""


class LeaseLostError(StoreError):
    """The submission is no longer RUNNING under this scorer's lease (another scorer recovered it)."""


class DuplicateSubmissionError(StoreError):
    """The same model and revision already has a live submission for this benchmark."""

    def __init__(self, message: str, existing: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.existing = dict(existing or {})


class NameOwnedError(StoreError):
    """The model name (or a look-alike of it) belongs to another submitter."""


class RateLimitError(StoreError):
    """The submitter sent too many submissions in the rate-limit window."""


@dataclass(frozen=True)
class RateLimit:
    """At most ``max_submissions`` per identity (submitter, client address, account) in ``window_s`` seconds;
    ``None``: no limit (a local store, written by whoever owns its folder)."""

    max_submissions: int | None = 20
    window_s: float = 3600.0


@dataclass(frozen=True)
class Quota:
    """At most ``max_submissions`` per identity on one benchmark in ``window_s`` (FAILED ones not counted)."""

    max_submissions: int
    window_s: float = 86400.0
    what: str = "submissions"


def _problem_sql(json_columns: Sequence[str] = _JSON_COLUMNS) -> str:
    """An SQL expression: NULL for a well-formed row, else what is wrong with it (the first problem found),
    checking ``json_columns``. CASE stops at the first true branch, so the JSON functions only see valid JSON."""
    num = "('integer', 'real')"
    checks = [(f"typeof(created_at) NOT IN {num}", "created_at is not a number"),
              (f"typeof(updated_at) NOT IN {num}", "updated_at is not a number"),
              ("typeof(model_parameters) NOT IN ('integer', 'null')", "model_parameters is not an integer"),
              ("typeof(attempts) != 'integer'", "attempts is not an integer")]
    for col in json_columns:
        checks += [(f"{col} IS NOT NULL AND typeof({col}) != 'text'", f"{col} is not JSON text"),
                   (f"{col} IS NOT NULL AND NOT json_valid({col})", f"{col} is not valid JSON"),
                   (f"{col} IS NOT NULL AND json_type({col}) != 'object'", f"{col} is not a JSON object")]
    for col in ("scores", "public_scores"):
        checks.append((f"{col} IS NOT NULL AND EXISTS (SELECT 1 FROM json_each({col}) "
                       "WHERE type NOT IN ('integer', 'real', 'null'))", f"{col}: a score is not a number"))
    for col in ("confidence_intervals", "public_cis"):
        checks.append((f"{col} IS NOT NULL AND EXISTS (SELECT 1 FROM json_each({col}) "
                       "WHERE type NOT IN ('object', 'null'))", f"{col}: an interval is not a JSON object"))
    return "(CASE " + " ".join(f"WHEN {c} THEN '{m}'" for c, m in checks) + " END)"


PROBLEM_SQL = _problem_sql()


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def row_problem(row: Mapping[str, Any]) -> str | None:
    """What is wrong with a decoded row (the checks of :data:`PROBLEM_SQL` on the columns it holds); None: fine."""
    for col in ("created_at", "updated_at"):
        if col in row and not _number(row[col]):
            return f"{col} is not a number"
    if "model_parameters" in row and row["model_parameters"] is not None and (
            not isinstance(row["model_parameters"], int) or isinstance(row["model_parameters"], bool)):
        return "model_parameters is not an integer"
    for col in _JSON_COLUMNS:
        if row.get(col) is not None and not isinstance(row[col], dict):
            return f"{col} is not a JSON object"
    if isinstance(row.get("scores"), dict) and not all(v is None or _number(v) for v in row["scores"].values()):
        return "scores: a score is not a number"
    cis = row.get("confidence_intervals")
    if isinstance(cis, dict) and not all(v is None or isinstance(v, dict) for v in cis.values()):
        return "confidence_intervals: an interval is not a JSON object"
    return None
#: a WHERE condition: the row is well formed (not quarantined)
WELL_FORMED = f"{PROBLEM_SQL} IS NULL"


try:   # a faster JSON parser (a Gradio dependency) for reading thousands of rows
    from orjson import loads as _loads
except ImportError:  # pragma: no cover
    _loads = json.loads


def encode_predictions(predictions: Any) -> bytes:
    return zlib.compress(json.dumps(predictions, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


def decode_predictions(blob: bytes | None) -> Any:
    return None if blob is None else json.loads(zlib.decompress(blob).decode("utf-8"))


def _dumps(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False, allow_nan=False, sort_keys=True)


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


class Store:
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
            db.executescript(_SCHEMA)
            self._add_columns(db)
            db.executescript(_INDEXES)
        except sqlite3.OperationalError as e:
            if "readonly" in str(e).lower() or not self._writable():   # a read-only store can still be read
                return
            raise self._describe(e) from None
        if db.execute("SELECT COUNT(*) FROM submissions WHERE scores IS NOT NULL AND public_scores IS NULL "
                      f"AND {WELL_FORMED}").fetchone()[0]:
            with self.transaction() as tx:
                rows = tx.execute("SELECT id, task, dataset, config, split, scores, confidence_intervals FROM "
                                  f"submissions WHERE scores IS NOT NULL AND public_scores IS NULL AND {WELL_FORMED}"
                                  ).fetchall()
                tx.executemany("UPDATE submissions SET public_scores = ?, public_cis = ? WHERE id = ?",
                               [(*self._public(dict(r), _loads(r["scores"]),
                                               _loads(r["confidence_intervals"] or "{}")), r["id"]) for r in rows])
        self._update_name_keys(db)

    def _update_name_keys(self, db: sqlite3.Connection) -> None:
        """Fill in the look-alike keys of rows without them, and recompute all of them when the keys changed."""
        from figbench_leaderboard.domain.names import KEY_VERSION, name_keys

        version = db.execute("SELECT value FROM meta WHERE key = 'name_keys'").fetchone()
        stale = version is None or version[0] != KEY_VERSION
        if not stale and not db.execute("SELECT COUNT(*) FROM submissions WHERE name_key IS NULL OR name_key2 IS NULL"
                                         ).fetchone()[0]:
            return
        with self.transaction() as tx:
            where = "" if stale else " WHERE name_key IS NULL OR name_key2 IS NULL"
            names = [r[0] for r in tx.execute(f"SELECT DISTINCT model_name FROM submissions{where}").fetchall()]
            tx.executemany("UPDATE submissions SET name_key = ?, name_key2 = ? WHERE model_name = ?",
                           [(*name_keys(n), n) for n in names])
            tx.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('name_keys', ?)", (KEY_VERSION,))

    @staticmethod
    def _add_columns(db: sqlite3.Connection) -> None:
        """Add the columns of newer versions to an older store, under the write lock: two processes opening
        the same old (or new) store at once would otherwise both see a column missing and both add it."""
        if set(_ADDED_COLUMNS) <= {r[1] for r in db.execute("PRAGMA table_info(submissions)")}:
            return
        db.execute("BEGIN IMMEDIATE")
        try:
            have = {r[1] for r in db.execute("PRAGMA table_info(submissions)")}   # re-read under the lock
            for col, decl in _ADDED_COLUMNS.items():
                if col not in have:
                    db.execute(f"ALTER TABLE submissions ADD COLUMN {col} {decl}")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    @staticmethod
    def _public(row: Mapping[str, Any], scores: Any, cis: Any) -> tuple[str | None, str | None]:
        """The released copy of scores and intervals (by the row's benchmark: see ``release``)."""
        from figbench_leaderboard.domain.release import released_scores

        pub_s, pub_c = released_scores(row, scores, cis)
        return _dumps(pub_s), _dumps(pub_c)

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
        for col in _JSON_COLUMNS:
            row[col] = _dumps(sub.get(col) if col != "metadata" else sub.get(col, {}))
        if sub.get("scores") is not None:
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

    def _identities(self, row: Mapping[str, Any]) -> list[tuple[str, str]]:
        """The verified identities of a row (never the self-declared ``submitter``)."""
        return [(col, row[col]) for col in ("client", "account") if row.get(col)]

    @staticmethod
    def owner_of(row: Mapping[str, Any]) -> str | None:
        """Who a row's model name belongs to: its account, else its client address (``None``: the maintainer)."""
        return row.get("account") or row.get("client") or None

    @classmethod
    def _first_of(cls, db: sqlite3.Connection, name: str) -> tuple[str, str | None] | None:
        """``(first stored name, owner)`` of ``name``'s look-alike group, ``None`` when nobody has used it."""
        from figbench_leaderboard.domain.names import name_keys

        blind, aware = name_keys(name)
        found = [r for r in (db.execute(f"SELECT created_at, rowid, model_name, account, client FROM submissions "
                                        f"WHERE {col} = ? ORDER BY created_at, rowid LIMIT 1", (key,)).fetchone()
                             for col, key in (("name_key", blind), ("name_key2", aware))) if r is not None]
        if not found:
            return None
        first = min(found, key=lambda r: (r[0], r[1]))
        return first[2], cls.owner_of({"account": first[3], "client": first[4]})

    def _check_owner(self, db: sqlite3.Connection, row: Mapping[str, Any]) -> None:
        """Refuse a submission with an identity under a name (or look-alike) first used by another identity."""
        me = self.owner_of(row)
        if me is None:   # the maintainer's own local submission
            return
        first = self._first_of(db, row["model_name"])
        if first is None or first[1] == me:
            return
        name = row["model_name"]
        what = (f"{name!r} belongs to another submitter" if first[0] == name else
                f"{name!r} looks like the existing model {first[0]!r}, which belongs to another submitter")
        raise NameOwnedError(f"model.name: {what}: a model name (and every look-alike of it) belongs to whoever "
                             "submitted it first (signed-in account, submitter token, or address); choose a "
                             "different name")

    def _check_rate(self, db: sqlite3.Connection, row: Mapping[str, Any], now: float) -> None:
        if self.rate_limit.max_submissions is None:
            return
        since = now - self.rate_limit.window_s
        for col, who in self._identities(row):
            n = db.execute(f"SELECT COUNT(*) FROM submissions WHERE {col} = ? AND created_at > ?",
                           (who, since)).fetchone()[0]
            if n >= self.rate_limit.max_submissions:
                raise RateLimitError(
                    f"rate limit: {who!r} already sent {n} submissions in the last "
                    f"{self.rate_limit.window_s:.0f} s (limit {self.rate_limit.max_submissions}); try again later")

    def _check_quota(self, db: sqlite3.Connection, row: Mapping[str, Any], now: float, quota: Quota) -> None:
        since = now - quota.window_s
        for col, who in self._identities(row):
            n = db.execute(f"SELECT COUNT(*) FROM submissions WHERE {col} = ? AND created_at > ? AND task = ? AND "
                           "dataset = ? AND config = ? AND split = ? AND status != 'FAILED'",
                           (who, since, row["task"], row["dataset"], row["config"], row["split"])).fetchone()[0]
            if n >= quota.max_submissions:
                hours = quota.window_s / 3600
                raise RateLimitError(
                    f"quota: {who!r} already has {n} {quota.what} on "
                    f"{row['task']}/{row['dataset']}/{row['config']}/{row['split']} in the last {hours:g} h "
                    f"(limit {quota.max_submissions}); try again later")

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
               mismatches: Mapping | None = None, verified: bool = True, owner: str | None = None) -> None:
        clause, extra = self._owned(owner)
        with self.transaction() as db:
            found = db.execute("SELECT task, dataset, config, split FROM submissions WHERE id = ?", (sid,)).fetchone()
            where = dict(found) if found else "?"
            pub_s, pub_c = self._public(where, dict(scores), dict(confidence_intervals))
            cur = db.execute(
                "UPDATE submissions SET status = 'FINISHED', reason = NULL, updated_at = ?, scores = ?, "
                "confidence_intervals = ?, counts = ?, mismatches = ?, verified = ?, lease_owner = NULL, "
                f"lease_until = NULL, public_scores = ?, public_cis = ? WHERE id = ? AND status = 'RUNNING' {clause}",
                (time.time(), _dumps(dict(scores)), _dumps(dict(confidence_intervals)), _dumps(dict(counts or {})),
                 _dumps(dict(mismatches or {})), int(verified), pub_s, pub_c, sid, *extra))
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

    # --- reads -------------------------------------------------------------------------------
    @staticmethod
    def _decode(row: sqlite3.Row) -> dict[str, Any]:
        out = dict(row)
        for col in _JSON_COLUMNS:
            if col in out and out[col] is not None:
                out[col] = _loads(out[col])
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
        cols = ", ".join(_LIGHT_COLUMNS + (("predictions",) if with_predictions else ()))
        rows = self._read(f"SELECT {cols}, {PROBLEM_SQL} AS _problem FROM submissions WHERE id = ?", (sid,))
        if not rows:
            return None
        if rows[0]["_problem"] is not None:
            self._note(sid, rows[0]["_problem"])
            raise MalformedRowError(f"submission {sid} is quarantined: {rows[0]['_problem']}")
        out = self._decode(rows[0])
        out.pop("_problem", None)
        return out

    def quarantined(self) -> list[dict[str, Any]]:
        """Malformed rows, skipped by every read: ``id``, ``status``, ``model_name``, ``problem`` (a full scan,
        in SQL; each row logged once per store object)."""
        rows = self._read(f"SELECT id, status, model_name, {PROBLEM_SQL} AS problem FROM submissions "
                          f"WHERE NOT ({WELL_FORMED}) ORDER BY id")
        out = [dict(r) for r in rows]
        bad = self.__dict__.setdefault("_bad", {})
        for r in out:
            bad[r["id"]] = r["problem"]
            self._note(r["id"], r["problem"])
        return out

    def _bad_ids(self) -> dict[str, str]:
        """Quarantined ids -> problem: what :meth:`quarantined` found (``open_store`` runs it when a board or the
        CLI opens a store) and what the reads found themselves (each checks what it decodes)."""
        return self.__dict__.setdefault("_bad", {})

    def _note(self, sid: str, problem: str) -> None:
        noted = self.__dict__.setdefault("_noted", set())
        if (sid, problem) not in noted:
            noted.add((sid, problem))
            log.warning("store %s: submission %s is quarantined (skipped everywhere): %s", self.folder.name, sid,
                        problem)

    def _decode_all(self, rows: Sequence[sqlite3.Row], decode: Callable[[sqlite3.Row], dict[str, Any]]
                    ) -> list[dict[str, Any]]:
        """Decoded rows, quarantined ones left out (a row that fails to decode or check is quarantined now)."""
        bad = self._bad_ids()
        out = []
        for r in rows:
            if r["id"] in bad:
                continue
            try:
                d = decode(r)
                problem = row_problem(d)
            except Exception as e:  # whatever a damaged row raises
                problem = f"cannot be read ({type(e).__name__}: {e})"
            if problem:
                bad[r["id"]] = problem
                self._note(r["id"], problem)
                continue
            out.append(d)
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
        cols = ", ".join(_LIGHT_COLUMNS)
        if status is None:
            rows = self._read(f"SELECT {cols} FROM submissions ORDER BY created_at, id")
        else:
            rows = self._read(f"SELECT {cols} FROM submissions WHERE status = ? ORDER BY created_at, id", (status,))
        return self._decode_all(rows, self._decode)

    def board_rows(self, *, released: bool = False) -> list[dict[str, Any]]:
        """FINISHED submissions with the columns the board's tables use (no metadata, no predictions);
        ``released``: hidden-split scores and intervals as released (``public_*`` columns). Quarantined rows
        skipped."""
        s, c = ("public_scores", "public_cis") if released else ("scores", "confidence_intervals")
        rows = self._read(f"SELECT {', '.join(BOARD_COLUMNS)}, {s} AS scores, {c} AS confidence_intervals "
                          "FROM submissions WHERE status = 'FINISHED' ORDER BY created_at, id")

        def decode(r: sqlite3.Row) -> dict[str, Any]:
            d = dict(r)
            d["scores"] = _loads(d["scores"]) if d["scores"] is not None else None
            d["confidence_intervals"] = _loads(d["confidence_intervals"]) if d["confidence_intervals"] else {}
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
