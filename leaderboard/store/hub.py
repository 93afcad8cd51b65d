"""Hugging Face Hub dataset repositories as the durable store of a public Space (the files:
:mod:`~figbench_leaderboard.store.hub_layout`).

A local SQLite :class:`~figbench_leaderboard.store.sqlite.Store` is the working copy. Writes are committed locally
at once and pushed in **batches** (one commit per repository per ``batch_size`` submissions or ``batch_interval_s``
seconds, and on :meth:`HubStore.close`); :meth:`HubStore.pull` lists each repository once and downloads only
files it has not imported yet, backing off on HTTP 429/5xx (``Retry-After`` honoured).

*Every* state change reaches the Hub: a trigger in the local database marks each row whose status,
reason, attempts or scores change (a new submission, a claim, a finish, a failure, a row superseded or
recovered inside another write) in the ``hub_dirty`` table, in the same transaction as the change, and
a flush pushes and clears exactly those marks. A mark survives a crash, so the next start pushes it.
"""

from __future__ import annotations

import atexit
import io
import logging
import os
import re
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from figbench_leaderboard.store import hub_state, reveals
from figbench_leaderboard.store.errors import StoreError
from figbench_leaderboard.store.hub_layout import (
    HubStoreError,
    dump_json,
    full_submission,
    import_layout,
    layout_files,
    private_json,
    private_path,
    safe_component,
)
from figbench_leaderboard.store.limits import RateLimit
from figbench_leaderboard.store.sqlite import Store

log = logging.getLogger(__name__)
HUB_PREFIX = "hf://"
_NOW_SQL = hub_state.NOW_SQL


class HubStore(Store):
    """A :class:`Store` mirrored to a public and a private Hub dataset repository, in batches."""

    def __init__(self, repo_id: str, *, private_repo_id: str | None = None, cache_dir: str | os.PathLike | None = None,
                 token: str | None = None, rate_limit: RateLimit | None = None, api: Any | None = None,
                 endpoint: str | None = None, batch_size: int = 20, batch_interval_s: float = 60.0,
                 backoff_s: float = 1.0, max_retries: int = 8, **store_kwargs: Any) -> None:
        for rid in (repo_id, private_repo_id or repo_id):
            if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*", rid):
                raise HubStoreError(f"{rid!r} is not a Hub repository id (ORG/NAME)")
        self.repo_id = repo_id
        self.private_repo_id = private_repo_id or f"{repo_id}-private"
        self.token = token
        cache = (Path(cache_dir) if cache_dir
                 else Path.home() / ".cache" / "figbench" / "leaderboard" / safe_component(repo_id))
        super().__init__(cache, rate_limit=rate_limit, **store_kwargs)
        if api is None:
            from huggingface_hub import HfApi

            api = HfApi(token=token, endpoint=endpoint)
        self.api = api
        self.endpoint = (endpoint or getattr(api, "endpoint", None) or "https://huggingface.co").rstrip("/")
        self.batch_size = batch_size
        self.batch_interval_s = batch_interval_s
        self.backoff_s = backoff_s
        self.max_retries = max_retries
        self.commits = 0       #: commits made by this process (both repositories)
        self.retries = 0       #: requests retried after 429/5xx
        self._flush_lock = threading.Lock()
        self._flusher: threading.Thread | None = None
        self._stop = threading.Event()
        self._create_journal()
        atexit.register(self.close)
        if self.pending_push():   # changes a previous process committed locally but did not push
            self._ensure_flusher()

    def _create_journal(self) -> None:
        """The ``hub_files`` listing cache and the ``hub_dirty`` marks, kept by triggers in the writes' own
        transactions (a lease renewal alone changes nothing pushed)."""
        try:
            with self.transaction() as db:
                db.execute("CREATE TABLE IF NOT EXISTS hub_files (repo TEXT, path TEXT, oid TEXT, "
                           "PRIMARY KEY (repo, path))")
                db.execute("CREATE TABLE IF NOT EXISTS hub_dirty (id TEXT PRIMARY KEY, since REAL NOT NULL, "
                           "seq INTEGER NOT NULL DEFAULT 1)")
                for name, event in (("insert", "INSERT"),
                                    ("update", "UPDATE OF status, reason, updated_at, attempts, scores, verified")):
                    db.execute(f"CREATE TRIGGER IF NOT EXISTS hub_dirty_{name} AFTER {event} ON submissions BEGIN "
                               f"INSERT INTO hub_dirty (id, since) VALUES (NEW.id, {_NOW_SQL}) "
                               "ON CONFLICT (id) DO UPDATE SET seq = seq + 1; END")
                hub_state.ensure_tables(db)
        except StoreError as e:   # a read-only cache can still be served
            log.error("%s: changes cannot be recorded for the Hub", e)

    # --- network with back-off ------------------------------------------------------------------
    def _offline(self) -> bool:
        from huggingface_hub import constants

        return bool(constants.is_offline_mode())

    def _with_backoff(self, what: str, repo: str, fn):
        delay = self.backoff_s
        for attempt in range(self.max_retries + 1):
            try:
                return fn()
            except Exception as e:
                status = getattr(getattr(e, "response", None), "status_code", None)
                if status not in (429, 500, 502, 503, 504) or attempt == self.max_retries:
                    raise _hub_error(what, repo, e) from None
                retry_after = getattr(getattr(e, "response", None), "headers", {}).get("retry-after")
                try:
                    wait = float(retry_after) if retry_after is not None else delay
                except ValueError:
                    wait = delay
                self.retries += 1
                time.sleep(min(max(wait, 0.0), 60.0))
                delay = min(delay * 2, 60.0)
        raise AssertionError("unreachable")

    def _get(self, repo: str, path: str) -> bytes:
        from huggingface_hub import hf_hub_url
        from huggingface_hub.utils import build_hf_headers, get_session, hf_raise_for_status

        url = hf_hub_url(repo, path, repo_type="dataset", endpoint=self.endpoint)

        def fetch() -> bytes:
            r = get_session().get(url, headers=build_hf_headers(token=self.token), follow_redirects=True)
            hf_raise_for_status(r)
            return r.content

        return self._with_backoff("download from", repo, fetch)

    def _tree(self, repo: str) -> dict[str, str]:
        def listing() -> dict[str, str]:
            files = self.api.list_repo_tree(repo, repo_type="dataset", recursive=True, token=self.token)
            return {f.path: getattr(f, "blob_id", None) or "" for f in files if hasattr(f, "size")}

        return self._with_backoff("list", repo, listing)

    # --- pull -----------------------------------------------------------------------------------
    def _sync_repo(self, repo: str, local: Path, wanted: tuple[str, ...]) -> int:
        n = 0
        for path, oid in self._tree(repo).items():
            if not path.startswith(wanted) or not path.endswith(".json") or ".." in path.split("/"):
                continue
            seen = self._read("SELECT oid FROM hub_files WHERE repo = ? AND path = ?", (repo, path))
            target = local / path
            if seen and seen[0]["oid"] == oid and target.is_file():
                continue
            data = self._get(repo, path)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            with self.transaction() as db:
                db.execute("INSERT OR REPLACE INTO hub_files (repo, path, oid) VALUES (?, ?, ?)", (repo, path, oid))
            n += 1
        return n

    def pull(self) -> int:
        """Download what changed in both repositories and import it; returns submissions added or updated."""
        if self._offline():
            raise _hub_error("download", self.repo_id, RuntimeError("offline mode"))
        public, private = self.folder / "hub" / "public", self.folder / "hub" / "private"
        self._sync_repo(self.repo_id, public, ("requests/", "results/"))
        try:
            self._sync_repo(self.private_repo_id, private, ("predictions/", f"{hub_state.STATE_DIR}/"))
        except HubStoreError as e:
            log.error("%s: pending submissions without predictions cannot be scored", e)
        imported: list[str] = []
        with self.transaction() as db:   # tokens and decisions: what came from the Hub is not pushed back, what
            local = hub_state.dirty(db)  # a crashed process left unpushed still is
            hub_state.import_state(db, private)
            db.execute(f"DELETE FROM hub_state_dirty WHERE tbl NOT IN ({', '.join('?' * len(local))})", local)
        reveals.load(self)   # a reveal from the Hub is known before its rows are imported
        n = import_layout(self, public, private, imported=imported, recover=False)
        if imported:   # what came from the Hub is there already; repairs and recoveries are pushed
            with self.transaction() as db:
                db.executemany("DELETE FROM hub_dirty WHERE id = ?", [(sid,) for sid in imported])
        self.recover_expired()
        return n

    # --- batched push ---------------------------------------------------------------------------
    def _mark(self, sid: str | None = None) -> None:
        """After a write: push now when a batch is full, otherwise let the flusher push it in time."""
        if self.pending_push() >= self.batch_size:
            self.flush()
        elif self.pending_push():
            self._ensure_flusher()

    def _ensure_flusher(self) -> None:
        if self._flusher is not None and self._flusher.is_alive():
            return
        self._stop.clear()
        self._flusher = threading.Thread(target=self._flush_loop, name="figbench-hub-flush", daemon=True)
        self._flusher.start()

    def _oldest_mark(self) -> float | None:
        rows = self._read("SELECT MIN(since) FROM (SELECT since FROM hub_dirty UNION ALL "
                          "SELECT since FROM hub_state_dirty)")
        return rows[0][0] if rows else None

    def _flush_loop(self) -> None:
        while not self._stop.wait(min(1.0, self.batch_interval_s / 4 or 0.05)):
            try:
                oldest = self._oldest_mark()
                if oldest is not None and time.time() - oldest >= self.batch_interval_s:
                    self.flush()
            except StoreError as e:
                log.error("%s; will retry", e)

    def pending_push(self) -> int:
        """Submissions (and state tables) changed locally and not pushed yet."""
        try:
            return int(self._read("SELECT (SELECT COUNT(*) FROM hub_dirty) + (SELECT COUNT(*) FROM hub_state_dirty)"
                                  )[0][0])
        except StoreError:
            return 0

    def flush(self) -> int:
        """Push every changed submission: one commit to the private, one to the public repository."""
        with self._flush_lock:
            batch = [(r["id"], r["seq"]) for r in self._read("SELECT id, seq FROM hub_dirty ORDER BY since, id")]
            with self.transaction() as db:   # a consistent copy of each changed state table, marks cleared with it
                tables = hub_state.dirty(db)
                state = {t: hub_state.table_json(db, t) for t in tables}
                db.execute("DELETE FROM hub_state_dirty")
            if not batch and not state:
                return 0
            try:
                self._push(batch, state)
            except BaseException:
                with self.transaction() as db:   # not pushed: marked again for the next flush
                    db.executemany(f"INSERT OR IGNORE INTO hub_state_dirty (tbl, since) VALUES (?, {_NOW_SQL})",
                                   [(t,) for t in state])
                raise
            with self.transaction() as db:   # a row changed again while it was pushed stays marked
                db.executemany("DELETE FROM hub_dirty WHERE id = ? AND seq = ?", batch)
            return len(batch) + len(state)

    def _push(self, batch: list[tuple[str, int]], state: dict[str, list]) -> None:
        """One commit to the private repository (predictions, state tables) and one to the public one."""
        from huggingface_hub import CommitOperationAdd

        def op(path: str, content: Any) -> CommitOperationAdd:
            return CommitOperationAdd(path_in_repo=path, path_or_fileobj=io.BytesIO(dump_json(content).encode("utf-8")))

        subs = [s for s in (full_submission(self, sid) for sid, _ in batch) if s is not None]
        private_ops = [op(private_path(s), private_json(s)) for s in subs]
        private_ops += [op(hub_state.state_path(t), rows) for t, rows in state.items()]
        public_ops = [op(rel, content) for s in subs for rel, content in layout_files(s).items()]
        message = (f"{len(subs)} submission(s): " + ", ".join(s["id"][:8] for s in subs[:10]) if subs else
                   "state: " + ", ".join(state))
        for repo, ops in ((self.private_repo_id, private_ops), (self.public_repo_id, public_ops)):
            if not ops:
                continue
            self._with_backoff("write to", repo, lambda r=repo, o=ops: self.api.create_commit(
                repo_id=r, repo_type="dataset", operations=o, commit_message=message, token=self.token))
            self.commits += 1

    @property
    def public_repo_id(self) -> str:
        return self.repo_id

    def close(self) -> None:
        """Push what is left and stop the background flusher (what cannot be pushed stays marked)."""
        self._stop.set()
        if self.pending_push():
            try:
                self.flush()
            except StoreError as e:
                log.error("%s; %d submission(s) are only in the local store until the next start", e,
                          self.pending_push())
        super().close()

    # --- writes -----------------------------------------------------------------------------------
    def state_changed(self) -> None:
        self._mark()

    def republish(self, ids: list[str]) -> None:
        with self.transaction() as db:
            db.executemany(f"INSERT INTO hub_dirty (id, since) VALUES (?, {_NOW_SQL}) "
                           "ON CONFLICT (id) DO UPDATE SET seq = seq + 1", [(i,) for i in ids])
        self._mark()

    def add(self, sub: Mapping[str, Any], *, now: float | None = None, **kwargs: Any) -> str:
        if self._offline():
            raise _hub_error("write to", self.repo_id, RuntimeError("offline mode: nothing can be pushed"))
        sid = super().add(sub, now=now, **kwargs)
        self._mark(sid)
        return sid

    def finish(self, sid: str, **kwargs: Any) -> None:
        super().finish(sid, **kwargs)
        self._mark(sid)

    def fail(self, sid: str, reason: str, **kwargs: Any) -> None:
        super().fail(sid, reason, **kwargs)
        self._mark(sid)

    def claim_next(self, owner: str | None = None, lease_s: float | None = None) -> dict[str, Any] | None:
        out = super().claim_next(owner, lease_s)
        self._mark()
        return out

    def claim(self, sid: str, owner: str | None = None, lease_s: float | None = None) -> dict[str, Any] | None:
        out = super().claim(sid, owner, lease_s)
        self._mark()
        return out

    def recover_expired(self, now: float | None = None) -> int:
        n = super().recover_expired(now)
        if n:
            self._mark()
        return n

    def requeue_running(self) -> int:
        n = super().requeue_running()
        if n:
            self._mark()
        return n

    def push_all(self) -> None:
        with self.transaction() as db:
            db.execute(f"INSERT INTO hub_dirty (id, since) SELECT id, {_NOW_SQL} FROM submissions WHERE true "
                       "ON CONFLICT (id) DO UPDATE SET seq = seq + 1")
        self.flush()


def _hub_error(what: str, repo_id: str, e: Exception) -> HubStoreError:
    from huggingface_hub import constants

    hint = " (HF_HUB_OFFLINE is set)" if constants.is_offline_mode() else ""
    return HubStoreError(f"cannot {what} the Hub dataset {repo_id!r}{hint}: {type(e).__name__}: {e}")


def open_store(spec: str | os.PathLike, *, rate_limit: RateLimit | None = None) -> Store:
    """``hf://datasets/ORG/NAME`` (or ``hf://ORG/NAME``) -> pulled :class:`HubStore` (private repository
    ``$FIGBENCH_LEADERBOARD_PRIVATE_REPO``, default ``ORG/NAME-private``); a folder -> :class:`Store`.
    Either is scanned for malformed rows (quarantined: skipped by every read, each logged once)."""
    spec = str(spec)
    if spec.startswith(HUB_PREFIX):
        repo_id = spec[len(HUB_PREFIX):].removeprefix("datasets/")
        store = HubStore(repo_id, private_repo_id=os.environ.get("FIGBENCH_LEADERBOARD_PRIVATE_REPO"),
                         cache_dir=os.environ.get("FIGBENCH_LEADERBOARD_CACHE"), rate_limit=rate_limit,
                         token=os.environ.get("HF_TOKEN"), endpoint=os.environ.get("HF_ENDPOINT"))
        store.pull()
    else:
        store = Store(spec, rate_limit=rate_limit)
    store.quarantined()   # every malformed row skipped from now on, each named in the log once
    return store
