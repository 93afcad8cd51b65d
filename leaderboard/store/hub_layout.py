"""The Hub layout of a store: which files a submission becomes in the two Hub dataset repositories, and back.

* the **public** repository (``ORG/NAME``, the store spec ``hf://datasets/ORG/NAME``) has the HF leaderboard
  template's layout with **scores and metadata only**: ``requests/<org>/<model>_eval_request_....json``
  (status, model, submitter, description; no predictions, no client address) and
  ``results/<org>/<model>/results_<time>_<id>.json`` (scores as released, with ``gold``: public or
  hidden; hidden benchmarks with the Ladder's headline only, without intervals, counts or mismatch flags);
* the **private** one (default ``ORG/NAME-private``; create it private) keeps what must not be
  published: ``predictions/<id>.json`` (the predictions, exact scores, the client identity).

:func:`write_layout` writes a store's files (no network); :func:`import_layout` loads them into a store,
skipping (and logging) damaged files. :class:`~figbench_leaderboard.store.hub.HubStore` pushes and pulls them.
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from figbench_leaderboard.domain.release import gold_kind, hidden_released, release, revealed_at
from figbench_leaderboard.store.errors import DuplicateSubmissionError, MalformedRowError, StoreError
from figbench_leaderboard.store.sqlite import Store

log = logging.getLogger(__name__)
PRIVATE_DIR = "private"


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
    benchmark the Ladder's headline only, no intervals, counts or mismatch flags (see ``release``)."""
    key = f"{sub['task']}/{sub['dataset']}/{sub['config']}/{sub['split']}"
    shown = release(sub)
    out = {"config": {"model_name": sub["model_name"], "model_sha": sub["model_revision"] or "main",
                      "model_type": sub["model_type"], "params": sub["model_parameters"]},
           "results": {key: shown.get("scores") or {}}}
    if shown["gold"] != "hidden" or "revealed" in shown:   # a hidden row: the Ladder's headline only
        out.update(confidence_intervals={key: shown.get("confidence_intervals") or {}},
                   counts={key: shown.get("counts") or {}}, mismatches=shown.get("mismatches") or {})
    return {**out, "gold": shown["gold"], "submission_id": sub["id"], "verified": bool(sub["verified"])}


def private_json(sub: Mapping[str, Any]) -> dict[str, Any]:
    """The private file of a submission: predictions, exact scores, client identity."""
    return {k: sub.get(k) for k in _PRIVATE_KEYS}


def layout_files(sub: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Public repository path -> JSON content for one submission (request, plus result when FINISHED)."""
    files = {request_path(sub): request_json(sub)}
    if sub["status"] == "FINISHED":
        files[result_path(sub)] = result_json(sub)
    return files


def dump_json(content: Any) -> str:
    return json.dumps(content, indent=2, ensure_ascii=False, allow_nan=False)


def full_submission(store: Store, sid: str) -> dict[str, Any] | None:
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
        sub = full_submission(store, row["id"])
        if sub is None:
            continue
        files = {**layout_files(sub), f"{PRIVATE_DIR}/{private_path(sub)}": private_json(sub)}
        for rel, content in files.items():
            path = folder / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(dump_json(content), "utf-8")
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
            store.quarantine_import(req["id"], path.name, req, problem)   # listed by `list --quarantined`
            continue
        sid = req["id"]
        row = _row_from_files(path, req, results.get(sid), secrets.get(sid, {}))
        with store.transaction() as db:
            db.execute("DELETE FROM submissions WHERE id = ?", (sid,))
        repaired = _import_row(store, row, req)
        store._bad_ids().pop(sid, None)   # a quarantined local copy was replaced
        store.release_import(sid)
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
        if gold_kind(req) != "public" and revealed_at(req) is None:   # as released (a hidden row's Ladder value)
            row.update(public_scores=hidden_released(req, res.get("results", {}).get(key)) or {}, public_cis={})
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
    from figbench_leaderboard.store.schema import STATUSES

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
