"""Hugging Face Hub dataset repositories as the durable store of a public Space.

Two repositories:

* the **public** one (``ORG/NAME``, the store spec ``hf://datasets/ORG/NAME``) has the HF leaderboard
  template's layout with **scores and metadata only**: ``requests/<org>/<model>_eval_request_....json``
  (status, model, submitter, description; no predictions, no client address) and
  ``results/<org>/<model>/results_<time>_<id>.json`` (scores as released, with ``gold``: public or
  hidden; hidden benchmarks at reduced precision, without exact counts or mismatch flags);
* the **private** one (default ``ORG/NAME-private``; create it private) keeps what must not be
  published: ``predictions/<id>.json`` (the predictions, exact scores, the client identity).

A local SQLite :class:`Store` is the working copy. Writes are committed locally at once and pushed in
**batches** (one commit per repository per ``batch_size`` submissions or ``batch_interval_s`` seconds,
and on :meth:`HubStore.close`); :meth:`HubStore.pull` lists each repository once and downloads only
files it has not imported yet, backing off on HTTP 429/5xx (``Retry-After`` honoured).

*Every* state change reaches the Hub: a trigger in the local database marks each row whose status,
reason, attempts or scores change (a new submission, a claim, a finish, a failure, a row superseded or
recovered inside another write) in the ``hub_dirty`` table, in the same transaction as the change, and
a flush pushes and clears exactly those marks. A mark survives a crash, so the next start pushes it.
"""

from __future__ import annotations

import atexit
import io
import json
import logging
import os
import re
import threading
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from figbench_leaderboard.domain.release import gold_kind, release
from figbench_leaderboard.store.store import DuplicateSubmissionError, MalformedRowError, RateLimit, Store, StoreError

log = logging.getLogger(__name__)
HUB_PREFIX = "hf://"
PRIVATE_DIR = "private"
_NOW_SQL = "(julianday('now') - 2440587.5) * 86400.0"   # Unix time in SQL (SQLite before 3.42: no unixepoch)


class HubStoreError(StoreError):
    """The Hub repository could not be read or written (offline, no access, missing repo)."""


def safe_component(text: str, limit: int = 100) -> str:
    """One path component from free text: only ``[A-Za-z0-9._-]``, never '.', '..' or empty."""
    out = re.sub(r"[^A-Za-z0-9._-]", "_", str(text))[:limit].strip(".")
    return out or "_"


def _stamp(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H-%M-%S")


def _org_model(name: str) -> tuple[str | None, str]:
    if "/" in name:
        org, model = name.split("/", 1)
        return safe_component(org), safe_component(model)
    return None, safe_component(name)


def request_path(sub: Mapping[str, Any]) -> str:
    org, model = _org_model(sub["model_name"])
    parts = [sub["model_revision"] or "main", sub["task"], sub["dataset"], sub["config"], sub["split"], sub["id"][:12]]
    fname = f"{model}_eval_request_" + "_".join(safe_component(p) for p in parts) + ".json"
    return "/".join(p for p in ("requests", org, fname) if p)


def result_path(sub: Mapping[str, Any]) -> str:
    org, model = _org_model(sub["model_name"])
    fname = f"results_{_stamp(sub['updated_at'])}_{safe_component(sub['id'][:12])}.json"
    return "/".join(p for p in ("results", org, model, fname) if p)


def private_path(sub: Mapping[str, Any]) -> str:
    return f"predictions/{safe_component(sub['id'], 64)}.json"


_REQUEST_KEYS = ("id", "created_at", "updated_at", "status", "reason", "task", "dataset", "config", "split",
                 "model_name", "model_revision", "model_type", "model_parameters", "submitter", "verified",
                 "sha256", "metadata", "reported_scores", "attempts")
_PRIVATE_KEYS = ("id", "predictions", "scores", "confidence_intervals", "counts", "mismatches", "client", "account")


def request_json(sub: Mapping[str, Any]) -> dict[str, Any]:
    """The public request file of a submission (metadata and status; no predictions, no client)."""
    out = {k: sub.get(k) for k in _REQUEST_KEYS}
    out["gold"] = gold_kind(sub)
    out["model"] = sub["model_name"]          # the template's field names, for familiar tooling
    out["revision"] = sub["model_revision"] or "main"
    out["params"] = sub["model_parameters"]
    out["submitted_time"] = datetime.fromtimestamp(sub["created_at"], UTC).isoformat(timespec="seconds")
    return out


def result_json(sub: Mapping[str, Any]) -> dict[str, Any]:
    """The public results file of a FINISHED submission (template shape), as released: on a hidden
    benchmark rounded scores, no counts and no mismatch flags (see ``release``)."""
    key = f"{sub['task']}/{sub['dataset']}/{sub['config']}/{sub['split']}"
    shown = release(sub)
    return {"config": {"model_name": sub["model_name"], "model_sha": sub["model_revision"] or "main",
                       "model_type": sub["model_type"], "params": sub["model_parameters"]},
            "results": {key: shown.get("scores") or {}},
            "confidence_intervals": {key: shown.get("confidence_intervals") or {}},
            "counts": {key: shown.get("counts") or {}},
            "mismatches": shown.get("mismatches") or {},
            "gold": shown["gold"],
            "submission_id": sub["id"], "verified": bool(sub["verified"])}


def private_json(sub: Mapping[str, Any]) -> dict[str, Any]:
    """The private file of a submission: predictions, exact scores, client identity."""
    return {k: sub.get(k) for k in _PRIVATE_KEYS}


def layout_files(sub: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Public repository path -> JSON content for one submission (request, plus result when FINISHED)."""
    files = {request_path(sub): request_json(sub)}
    if sub["status"] == "FINISHED":
        files[result_path(sub)] = result_json(sub)
    return files


def _dump(content: Any) -> str:
    return json.dumps(content, indent=2, ensure_ascii=False, allow_nan=False)


def _full(store: Store, sid: str) -> dict[str, Any] | None:
    try:
        sub = store.get(sid, with_predictions=True)
    except MalformedRowError:   # quarantined (logged by the store): not pushed
        return None
    if sub is None:
        return None
    row = store._read("SELECT client, account FROM submissions WHERE id = ?", (sid,))
    if row:
        sub.update(client=row[0]["client"], account=row[0]["account"])
    return sub


def write_layout(store: Store, folder: str | os.PathLike) -> list[Path]:
    """Every submission of ``store`` in the Hub layout under ``folder`` (public files) and
    ``folder/private`` (the private repository's files); no network."""
    folder = Path(folder)
    written = []
    for row in store.list():
        sub = _full(store, row["id"])
        if sub is None:
            continue
        files = {**layout_files(sub), f"{PRIVATE_DIR}/{private_path(sub)}": private_json(sub)}
        for rel, content in files.items():
            path = folder / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(_dump(content), "utf-8")
            written.append(path)
    return written


def _read_json(path: Path, what: str) -> dict[str, Any]:
    try:
        obj = json.loads(path.read_text("utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise HubStoreError(f"{path.name}: not a figbench {what} file: {e}") from None
    if not isinstance(obj, dict):
        raise HubStoreError(f"{path.name}: not a figbench {what} file")
    return obj


def import_layout(store: Store, folder: str | os.PathLike, private: str | os.PathLike | None = None, *,
                  imported: list[str] | None = None, recover: bool = True) -> int:
    """Load a Hub-layout folder (requests + results, and the private files from ``private``, default
    ``folder/private``) into ``store``; returns submissions added or updated (their ids appended to
    ``imported``).

    A submission already in the store is updated when the files show a later state of it; one pushed
    RUNNING is recovered (PENDING, or FAILED after the store's maximum attempts, its attempts kept)."""
    folder = Path(folder)
    private = Path(private) if private is not None else folder / PRIVATE_DIR
    results = _read_all(sorted((folder / "results").rglob("*.json")), "results", "submission_id")
    secrets = _read_all(sorted((private / "predictions").glob("*.json")) if private.is_dir() else [], "private", "id")
    changed = 0
    for path in sorted((folder / "requests").rglob("*.json")):
        req = _skip_bad(path, "request", "id")
        if req is None or not _newer(store, req):
            continue
        problem = _request_problem(req)
        if problem:
            log.error("import: %s (submission %s) skipped, the store keeps what it had: %s", path.name, req["id"],
                      problem)
            continue
        sid = req["id"]
        row = _row_from_files(path, req, results.get(sid), secrets.get(sid, {}))
        with store.transaction() as db:
            db.execute("DELETE FROM submissions WHERE id = ?", (sid,))
        repaired = _import_row(store, row, req)
        store._bad_ids().pop(sid, None)   # a quarantined local copy was replaced
        if imported is not None:
            imported.append(sid)
            if repaired in imported:   # changed here: not as imported any more
                imported.remove(repaired)
        changed += 1
    if recover:   # a row pushed RUNNING lost its scorer: back to PENDING, or FAILED after its maximum attempts
        store.recover_expired()
    return changed


def _read_all(paths: list[Path], what: str, key: str) -> dict[str, dict[str, Any]]:
    """The usable files of one kind, by their ``key`` (damaged ones logged and skipped)."""
    out: dict[str, dict[str, Any]] = {}
    for path in paths:
        obj = _skip_bad(path, what, key)
        if obj is not None:
            out[str(obj[key])] = obj
    return out


def _newer(store: Store, req: Mapping[str, Any]) -> bool:
    """Whether a request file shows a later state than the store holds (a damaged local copy is older)."""
    try:
        current = store.get(req["id"])
    except MalformedRowError:   # the local copy is damaged: the Hub's replaces it
        return True
    return current is None or current["updated_at"] < (req.get("updated_at") or 0)


def _row_from_files(path: Path, req: Mapping[str, Any], res: Mapping[str, Any] | None,
                    sec: Mapping[str, Any]) -> dict[str, Any]:
    """A store row from a submission's request, results and private files."""
    sid = req["id"]
    row = {k: req.get(k) for k in _REQUEST_KEYS}
    key = f"{req['task']}/{req['dataset']}/{req['config']}/{req['split']}"
    row.update(predictions=sec.get("predictions"), client=sec.get("client"), account=sec.get("account"))
    if req["status"] == "FINISHED":
        res = res or {}
        row.update(scores=sec.get("scores") or res.get("results", {}).get(key),
                   confidence_intervals=sec.get("confidence_intervals") or res.get("confidence_intervals", {}).get(key),
                   counts=sec.get("counts") or res.get("counts", {}).get(key),
                   mismatches=sec.get("mismatches") or res.get("mismatches"))
    if row.get("scores") is not None and not _scores_ok(row["scores"]):
        log.error("import: %s (submission %s): its scores are not numbers by name; imported without them",
                  path.name, sid)
        row.update(scores=None, confidence_intervals=None)
    if row["status"] in ("PENDING", "RUNNING") and row.get("predictions") is None:
        row.update(status="FAILED", reason="predictions unavailable (the private repository was not readable)")
    return row


def _skip_bad(path: Path, what: str, key: str) -> dict[str, Any] | None:
    """A Hub file's JSON object, or None (logged, naming the file) when it is not a figbench ``what`` file:
    one damaged file never stops a board from starting."""
    try:
        obj = _read_json(path, what)
    except HubStoreError as e:
        log.error("import: %s; skipped", e)
        return None
    if not isinstance(obj.get(key), str):
        log.error("import: %s: not a figbench %s file (no %s); skipped", path.name, what, key)
        return None
    return obj


def _request_problem(req: Mapping[str, Any]) -> str | None:
    """What makes a request file unusable (None when it can be imported)."""
    from figbench_leaderboard.store.store import STATUSES

    for k in ("task", "dataset", "config", "split", "model_name", "model_type", "sha256"):
        if not isinstance(req.get(k), str):
            return f"{k} is not text"
    if req.get("status") not in STATUSES:
        return f"unknown status {req.get('status')!r}"
    for k in ("created_at", "updated_at"):
        if not isinstance(req.get(k), (int, float)) or isinstance(req.get(k), bool):
            return f"{k} is not a number"
    return None


def _scores_ok(scores: Any) -> bool:
    return isinstance(scores, dict) and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) or v is None for v in scores.values())


def _import_row(store: Store, row: dict[str, Any], req: Mapping[str, Any]) -> str | None:
    """Insert one imported row with its attempts (a RUNNING one without a lease: expired at once). A row that
    collides with a live one of the same model and benchmark (a history pushed by an older version, where a
    superseded row stayed live on the Hub) is repaired, never a reason not to start: the older one is failed
    (its id is returned)."""
    sid, loser = row["id"], None
    try:
        Store.add(store, row, now=req["created_at"], limits=False)   # an import, not a new submission
    except DuplicateSubmissionError as e:
        other = store.get(e.existing.get("id", "")) if e.existing else None
        if other is None:
            raise
        older_is_other = (other["created_at"], other["id"]) < (req["created_at"], sid)
        loser = other["id"] if older_is_other else sid
        winner = sid if older_is_other else other["id"]
        log.warning("import: submissions %s and %s are both live for the same model and benchmark; %s is failed "
                    "as superseded", sid[:12], other["id"][:12], loser[:12])
        reason = f"superseded by {winner[:12]} (two live rows found when the store was loaded)"
        if older_is_other:
            with store.transaction() as db:
                db.execute("UPDATE submissions SET status = 'FAILED', reason = ?, updated_at = ?, lease_owner = NULL, "
                           "lease_until = NULL WHERE id = ?", (reason, time.time(), loser))
            Store.add(store, row, now=req["created_at"], limits=False)
        else:
            Store.add(store, dict(row, status="FAILED", reason=reason), now=req["created_at"], limits=False)
    attempts = req.get("attempts")
    if isinstance(attempts, int) and not isinstance(attempts, bool) and attempts > 0:
        with store.transaction() as db:
            db.execute("UPDATE submissions SET attempts = ? WHERE id = ?", (attempts, sid))
    return loser


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
            self._sync_repo(self.private_repo_id, private, ("predictions/",))
        except HubStoreError as e:
            log.error("%s: pending submissions without predictions cannot be scored", e)
        imported: list[str] = []
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
        rows = self._read("SELECT MIN(since) FROM hub_dirty")
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
        """Submissions changed locally and not pushed yet."""
        try:
            return int(self._read("SELECT COUNT(*) FROM hub_dirty")[0][0])
        except StoreError:
            return 0

    def flush(self) -> int:
        """Push every changed submission: one commit to the private, one to the public repository."""
        from huggingface_hub import CommitOperationAdd

        with self._flush_lock:
            batch = [(r["id"], r["seq"]) for r in self._read("SELECT id, seq FROM hub_dirty ORDER BY since, id")]
            if not batch:
                return 0
            subs = [s for s in (_full(self, sid) for sid, _ in batch) if s is not None]
            if subs:
                private_ops = [CommitOperationAdd(path_in_repo=private_path(s), path_or_fileobj=io.BytesIO(
                    _dump(private_json(s)).encode("utf-8"))) for s in subs]
                public_ops = [CommitOperationAdd(path_in_repo=rel, path_or_fileobj=io.BytesIO(
                    _dump(content).encode("utf-8"))) for s in subs for rel, content in layout_files(s).items()]
                message = f"{len(subs)} submission(s): " + ", ".join(s["id"][:8] for s in subs[:10])
                for repo, ops in ((self.private_repo_id, private_ops), (self.public_repo_id, public_ops)):
                    self._with_backoff("write to", repo, lambda r=repo, o=ops: self.api.create_commit(
                        repo_id=r, repo_type="dataset", operations=o, commit_message=message, token=self.token))
                    self.commits += 1
            with self.transaction() as db:   # a row changed again while it was pushed stays marked
                db.executemany("DELETE FROM hub_dirty WHERE id = ? AND seq = ?", batch)
            return len(batch)

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
