"""A Hugging Face Hub dataset repository as the durable store of a public Space.

Same layout as the HF leaderboard template: ``requests/<org>/<model>_eval_request_....json``
(one per submission: metadata, status, predictions) and ``results/<org>/<model>/results_<time>_<id>.json``
(scores of FINISHED submissions). A local SQLite :class:`Store` is the working copy: ``pull()``
imports the repository's files into it, and every write is committed locally, then pushed with
``HfApi.create_commit``. Choose it with a store spec ``hf://datasets/ORG/NAME`` (see :func:`open_store`).
"""

from __future__ import annotations

import io
import json
import logging
import os
import re
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from figbench_leaderboard.store import RateLimit, Store, StoreError

log = logging.getLogger(__name__)
HUB_PREFIX = "hf://"


class HubStoreError(StoreError):
    """The Hub repository could not be read or written (offline, no access, missing repo)."""


def safe_component(text: str, limit: int = 100) -> str:
    """One path component from free text: only ``[A-Za-z0-9._-]``, never '.', '..' or empty."""
    out = re.sub(r"[^A-Za-z0-9._-]", "_", str(text))[:limit].strip(".")
    return out or "_"


def _stamp(ts: float) -> str:
    return datetime.fromtimestamp(ts, timezone.utc).strftime("%Y-%m-%dT%H-%M-%S")


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


_REQUEST_KEYS = ("id", "created_at", "updated_at", "status", "reason", "task", "dataset", "config", "split",
                 "model_name", "model_revision", "model_type", "model_parameters", "submitter", "verified",
                 "sha256", "metadata", "reported_scores", "predictions")


def request_json(sub: Mapping[str, Any]) -> dict[str, Any]:
    """The request file of a submission (everything but the scores)."""
    out = {k: sub.get(k) for k in _REQUEST_KEYS}
    out["model"] = sub["model_name"]          # the template's field names, for familiar tooling
    out["revision"] = sub["model_revision"] or "main"
    out["params"] = sub["model_parameters"]
    out["submitted_time"] = datetime.fromtimestamp(sub["created_at"], timezone.utc).isoformat(timespec="seconds")
    return out


def result_json(sub: Mapping[str, Any]) -> dict[str, Any]:
    """The results file of a FINISHED submission (template shape: ``config`` + ``results``)."""
    key = f"{sub['task']}/{sub['dataset']}/{sub['config']}/{sub['split']}"
    return {"config": {"model_name": sub["model_name"], "model_sha": sub["model_revision"] or "main",
                       "model_type": sub["model_type"], "params": sub["model_parameters"]},
            "results": {key: sub.get("scores") or {}},
            "confidence_intervals": {key: sub.get("confidence_intervals") or {}},
            "counts": {key: sub.get("counts") or {}},
            "mismatches": sub.get("mismatches") or {},
            "submission_id": sub["id"], "verified": bool(sub["verified"])}


def layout_files(sub: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Repository path -> JSON content for one submission (request, plus result when FINISHED)."""
    files = {request_path(sub): request_json(sub)}
    if sub["status"] == "FINISHED":
        files[result_path(sub)] = result_json(sub)
    return files


def write_layout(store: Store, folder: str | os.PathLike) -> list[Path]:
    """Write every submission of ``store`` in the Hub layout under ``folder`` (no network)."""
    folder = Path(folder)
    written = []
    for row in store.list():
        sub = store.get(row["id"], with_predictions=True)
        for rel, content in layout_files(sub).items():
            path = folder / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(content, indent=2, ensure_ascii=False, allow_nan=False), "utf-8")
            written.append(path)
    return written


def import_layout(store: Store, folder: str | os.PathLike) -> int:
    """Load a Hub-layout folder (requests + results) into ``store``; returns submissions added.

    Submissions already in the store (same id) are left as they are.
    """
    folder = Path(folder)
    results: dict[str, dict[str, Any]] = {}
    for path in sorted((folder / "results").rglob("*.json")):
        try:
            res = json.loads(path.read_text("utf-8"))
            results[res["submission_id"]] = res
        except (json.JSONDecodeError, KeyError, TypeError) as e:
            raise HubStoreError(f"{path}: not a figbench results file: {e!r}") from None
    added = 0
    for path in sorted((folder / "requests").rglob("*.json")):
        try:
            req = json.loads(path.read_text("utf-8"))
            sid = req["id"]
        except (json.JSONDecodeError, KeyError, TypeError) as e:
            raise HubStoreError(f"{path}: not a figbench request file: {e!r}") from None
        if store.get(sid) is not None:
            continue
        row = {k: req.get(k) for k in _REQUEST_KEYS}
        res = results.get(sid)
        if res is not None and req["status"] == "FINISHED":
            key = f"{req['task']}/{req['dataset']}/{req['config']}/{req['split']}"
            row.update(scores=res["results"].get(key), confidence_intervals=res["confidence_intervals"].get(key),
                       counts=res["counts"].get(key), mismatches=res.get("mismatches"))
        elif req["status"] in ("RUNNING",):
            row["status"] = "PENDING"   # a worker died mid-scoring: score it again
        store.add(row, now=req["created_at"])
        added += 1
    return added


def _hub_error(what: str, repo_id: str, e: Exception) -> HubStoreError:
    offline = os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes")
    hint = " (HF_HUB_OFFLINE is set)" if offline else ""
    return HubStoreError(f"cannot {what} the Hub dataset {repo_id!r}{hint}: {type(e).__name__}: {e}")


class HubStore(Store):
    """A :class:`Store` mirrored to a Hub dataset repository through ``huggingface_hub``."""

    def __init__(self, repo_id: str, *, cache_dir: str | os.PathLike | None = None, token: str | None = None,
                 rate_limit: RateLimit | None = None, api: Any | None = None) -> None:
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*", repo_id):
            raise HubStoreError(f"{repo_id!r} is not a Hub repository id (ORG/NAME)")
        self.repo_id = repo_id
        self.token = token
        cache = Path(cache_dir) if cache_dir else Path.home() / ".cache" / "figbench" / "leaderboard" / safe_component(repo_id)
        super().__init__(cache, rate_limit=rate_limit)
        if api is None:
            from huggingface_hub import HfApi

            api = HfApi(token=token)
        self.api = api

    def pull(self) -> int:
        """Download the repository and import its submissions; returns how many were new."""
        from huggingface_hub import snapshot_download

        try:
            local = snapshot_download(self.repo_id, repo_type="dataset", local_dir=self.folder / "hub",
                                      token=self.token, allow_patterns=["requests/**", "results/**"])
        except Exception as e:
            raise _hub_error("download", self.repo_id, e) from None
        return import_layout(self, local)

    def _push(self, sid: str, message: str) -> None:
        from huggingface_hub import CommitOperationAdd

        sub = self.get(sid, with_predictions=True)
        ops = [CommitOperationAdd(path_in_repo=rel, path_or_fileobj=io.BytesIO(
            json.dumps(content, indent=2, ensure_ascii=False, allow_nan=False).encode("utf-8")))
            for rel, content in layout_files(sub).items()]
        try:
            self.api.create_commit(repo_id=self.repo_id, repo_type="dataset", operations=ops, commit_message=message)
        except Exception as e:
            raise _hub_error("write to", self.repo_id, e) from None

    def add(self, sub: Mapping[str, Any], *, now: float | None = None) -> str:
        sid = super().add(sub, now=now)
        try:
            self._push(sid, f"Add submission {sid[:12]} ({sub['model_name']})")
        except HubStoreError:
            with self.transaction() as db:   # not durable on the Hub: take it back
                db.execute("DELETE FROM submissions WHERE id = ?", (sid,))
            raise
        return sid

    def _push_quietly(self, sid: str, message: str) -> None:
        try:
            self._push(sid, message)
        except HubStoreError as e:
            log.error("%s; the local store has it, run push_all() later", e)

    def finish(self, sid: str, **kwargs: Any) -> None:
        super().finish(sid, **kwargs)
        self._push_quietly(sid, f"Scores of submission {sid[:12]}")

    def fail(self, sid: str, reason: str) -> None:
        super().fail(sid, reason)
        self._push_quietly(sid, f"Submission {sid[:12]} failed")

    def push_all(self) -> None:
        for row in self.list():
            self._push(row["id"], f"Sync submission {row['id'][:12]}")


def open_store(spec: str | os.PathLike, *, rate_limit: RateLimit | None = None) -> Store:
    """``hf://datasets/ORG/NAME`` (or ``hf://ORG/NAME``) -> pulled :class:`HubStore`; a folder -> :class:`Store`."""
    spec = str(spec)
    if spec.startswith(HUB_PREFIX):
        repo_id = spec[len(HUB_PREFIX):].removeprefix("datasets/")
        store = HubStore(repo_id, cache_dir=os.environ.get("FIGBENCH_LEADERBOARD_CACHE"), rate_limit=rate_limit,
                         token=os.environ.get("HF_TOKEN"))
        store.pull()
        return store
    return Store(spec, rate_limit=rate_limit)
