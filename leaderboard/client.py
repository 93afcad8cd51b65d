"""Submit a result record or predictions file to a local store folder or a running Space.

``submit(path, to)`` is what ``figbench submit`` and the baselines' ``--submit`` call. A result
record whose predictions are a file path gets that file inlined here, on the client side (the
server never reads paths it is sent).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from figbench_leaderboard.formats import SubmissionError, loads_strict

#: Name of the Space's JSON submission endpoint (``gradio_client``).
API_NAME = "/submit_json"


def is_url(to: str) -> bool:
    return str(to).startswith(("http://", "https://"))


def load_submission(path: str | os.PathLike) -> dict[str, Any]:
    """Read a submission file; inline a result record's ``predictions.path`` (relative to the record)."""
    path = Path(path)
    try:
        text = path.read_text("utf-8")
    except OSError as e:
        raise FileNotFoundError(f"{path}: cannot read the submission: {e.strerror}") from None
    try:
        obj = loads_strict(text, source=str(path))
    except SubmissionError as e:
        raise SubmissionError(str(e)) from None
    if not isinstance(obj, Mapping):
        raise SubmissionError(f"{path}: expected a JSON object")
    preds = obj.get("predictions")
    if "schema_version" in obj and isinstance(preds, Mapping) and "path" in preds:
        ppath = Path(preds["path"])
        if not ppath.is_absolute():
            ppath = path.parent / ppath
        if ppath.is_file():
            inline = loads_strict(ppath.read_text("utf-8"), source=str(ppath))
            obj = dict(obj)
            obj["predictions"] = {"inline": inline, **({"format": preds["format"]} if "format" in preds else {})}
    return dict(obj)


def submit(path: str | os.PathLike, to: str | os.PathLike, *, submitter: str | None = None,
           process: bool = True, gold_json: str | os.PathLike | None = None,
           data_dir: str | os.PathLike | None = None) -> dict[str, Any]:
    """Submit ``path`` to ``to`` (a store folder or an ``http(s)://`` Space URL).

    Local stores score the submission right away when ``process`` (gold from the builders, or
    from ``gold_json``); returns ``{"id", "status", "verified", "benchmark", ...}`` with
    ``scores`` once FINISHED and ``reason`` when FAILED.
    """
    obj = load_submission(path)
    text = json.dumps(obj, ensure_ascii=False, allow_nan=False)
    if is_url(str(to)):
        return _submit_remote(text, str(to), submitter)
    from figbench_leaderboard.board import Leaderboard
    from figbench_leaderboard.gold import BuilderGoldProvider, JsonGoldProvider
    from figbench_leaderboard.store import Store

    gold = JsonGoldProvider(gold_json) if gold_json else BuilderGoldProvider(data_dir)
    board = Leaderboard(Store(to), gold)
    out = board.submit(text, submitter=submitter)
    if process and out["status"] == "PENDING":
        sub = board.process(out["id"]) or board.store.get(out["id"])
        out.update(status=sub["status"], scores=sub.get("scores"), reason=sub.get("reason"),
                   mismatches=sub.get("mismatches") or {})
    return out


def submit_many(paths, to: str | os.PathLike, **kwargs: Any) -> list[dict[str, Any]]:
    """Submit several files (a folder's ``*.json``, say); one refused file does not stop the others.

    Returns one dict per file: the :func:`submit` reply plus ``path``, or ``{"path", "status":
    "REFUSED", "error"}``.
    """
    out = []
    for path in paths:
        try:
            out.append({"path": str(path), **submit(path, to, **kwargs)})
        except (ValueError, FileNotFoundError, ConnectionError) as e:
            out.append({"path": str(path), "status": "REFUSED", "error": str(e)})
    return out


def _submit_remote(text: str, url: str, submitter: str | None) -> dict[str, Any]:
    from gradio_client import Client

    try:
        client = Client(url, verbose=False)
    except Exception as e:
        raise ConnectionError(f"cannot reach the leaderboard at {url}: {e}") from None
    reply = client.predict(text, submitter or "", api_name=API_NAME)
    result = json.loads(reply) if isinstance(reply, str) else reply
    if not result.get("ok"):
        raise SubmissionError(f"{url} refused the submission: {result.get('error')}")
    return result["submission"]
