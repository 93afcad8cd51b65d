"""Submit a result record or predictions file to a local store folder or a running Space.

``submit(path, to)`` is what ``figbench submit`` and the baselines' ``--submit`` call. A result
record whose predictions are a file path gets that file inlined here, on the client side (the
server never reads paths it is sent). For a local store the call scores the submission itself and,
when a server (or another CLI) is scoring it, **waits for the final status** (``timeout_s``),
recovering it if that scorer's lease runs out; a resubmission of the very same predictions whose
earlier copy is still queued is that earlier submission, not a duplicate.

Who submits: to a board without Hugging Face sign-in, a **submitter token** (``token``, else
``$FIGBENCH_SUBMIT_TOKEN``, else the token file ``$FIGBENCH_TOKEN_FILE`` or
``~/.config/figbench/submit-token``, made on first use) travels in the ``X-Figbench-Token`` header;
the model names it submits first belong to it. To a Space with sign-in, a Hugging Face access token
(``hf_token``) is that account. To a local store, a ``token`` makes the submission that token's;
without one it is the maintainer's own.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from figbench_leaderboard.domain.submission import SubmissionError, loads_strict

#: Name of the Space's JSON submission endpoint (``gradio_client``).
API_NAME = "/submit_json"
FINAL = ("FINISHED", "FAILED")
TOKEN_ENV = "FIGBENCH_SUBMIT_TOKEN"
TOKEN_FILE_ENV = "FIGBENCH_TOKEN_FILE"


def token_file() -> Path:
    """Where the default submitter token lives (``$FIGBENCH_TOKEN_FILE``, else under ``~/.config/figbench``)."""
    if os.environ.get(TOKEN_FILE_ENV):
        return Path(os.environ[TOKEN_FILE_ENV])
    base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / "figbench" / "submit-token"


def resolve_token(token: str | None = None, path: str | os.PathLike | None = None, *, create: bool = True) -> str:
    """The submitter token: ``token``, ``$FIGBENCH_SUBMIT_TOKEN``, or the token file (``path`` or
    :func:`token_file`), which is made (random, readable by its owner only) when missing and ``create``."""
    if token:
        return token.strip()
    if os.environ.get(TOKEN_ENV) and path is None:
        return os.environ[TOKEN_ENV].strip()
    file = Path(path) if path is not None else token_file()
    if file.is_file():
        text = file.read_text("utf-8").strip()
        if not text:
            raise ValueError(f"{file}: the submitter token file is empty")
        return text
    if not create:
        raise FileNotFoundError(f"{file}: no submitter token file")
    file.parent.mkdir(parents=True, exist_ok=True)
    new = secrets.token_urlsafe(32)
    fd = os.open(file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(new + "\n")
    return new


def is_url(to: str) -> bool:
    return str(to).startswith(("http://", "https://"))


def load_submission(path: str | os.PathLike) -> dict[str, Any]:
    """Read a submission file; inline a result record's ``predictions.path`` (relative to the record; a
    ``.gz`` file is gzip-compressed JSON, as committed records carry large predictions)."""
    path = Path(path)
    try:
        text = path.read_text("utf-8")
    except OSError as e:
        raise FileNotFoundError(f"{path}: cannot read the submission: {e.strerror}") from None
    obj = loads_strict(text, source=str(path))
    if not isinstance(obj, Mapping):
        raise SubmissionError(f"{path}: expected a JSON object")
    preds = obj.get("predictions")
    if "schema_version" in obj and isinstance(preds, Mapping) and "path" in preds:
        ppath = Path(preds["path"])
        if not ppath.is_absolute():
            ppath = path.parent / ppath
        if ppath.is_file():
            from figbench.results import predictions_text

            inline = loads_strict(predictions_text(ppath), source=str(ppath))
            keep = "format" in preds and ppath.suffix != ".gz"  # "json.gz" names the file's encoding only
            obj = dict(obj)
            obj["predictions"] = {"inline": inline, **({"format": preds["format"]} if keep else {})}
    return dict(obj)


def _result(out: dict[str, Any], sub: Mapping[str, Any] | None) -> dict[str, Any]:
    if sub is not None:
        out.update(status=sub["status"], scores=sub.get("scores"), reason=sub.get("reason"),
                   mismatches=sub.get("mismatches") or {})
    return out


def wait_for(board, sid: str, *, timeout_s: float, poll_s: float = 0.5) -> dict[str, Any] | None:
    """Wait until ``sid`` is FINISHED or FAILED; score it here if it is (or becomes) PENDING again."""
    deadline = time.monotonic() + timeout_s
    while True:
        board.store.recover_expired()
        sub = board.store.get(sid)
        if sub is None or sub["status"] in FINAL:
            return sub
        if sub["status"] == "PENDING":
            done = board.process(sid)
            if done is not None and done["status"] in FINAL:
                return done
        if time.monotonic() >= deadline:
            return sub
        time.sleep(poll_s)


def submit(path: str | os.PathLike, to: str | os.PathLike, *, submitter: str | None = None,
           process: bool = True, gold_json: str | os.PathLike | None = None,
           data_dir: str | os.PathLike | None = None, wait: bool | None = None,
           timeout_s: float = 600.0, token: str | None = None, token_path: str | os.PathLike | None = None,
           hf_token: str | None = None) -> dict[str, Any]:
    """Submit ``path`` to ``to`` (a store folder or an ``http(s)://`` Space URL).

    Local stores score the submission right away when ``process`` (gold from the builders, or from
    ``gold_json``) and wait for its final status (``wait``, default on for local stores) up to
    ``timeout_s``; returns ``{"id", "status", "verified", "benchmark", ...}`` with ``scores`` once
    FINISHED and ``reason`` when FAILED (``timed_out`` when it was still queued at the deadline).
    ``token``/``token_path``/``hf_token``: who submits (see the module's docstring).
    """
    obj = load_submission(path)
    text = json.dumps(obj, ensure_ascii=False, allow_nan=False)
    if is_url(str(to)):
        ident = {"hf_token": hf_token} if hf_token else {"token": resolve_token(token, token_path)}
        return _submit_remote(text, str(to), submitter, wait=bool(wait), timeout_s=timeout_s, **ident)
    from figbench_leaderboard.scoring.board import Leaderboard
    from figbench_leaderboard.scoring.gold import BuilderGoldProvider, JsonGoldProvider
    from figbench_leaderboard.store.errors import DuplicateSubmissionError
    from figbench_leaderboard.store.limits import RateLimit
    from figbench_leaderboard.store.sqlite import Store

    gold = JsonGoldProvider(gold_json) if gold_json else BuilderGoldProvider(data_dir)
    # a local store is written by whoever owns its folder: the served board's per-submitter rate limit
    # (against anonymous web traffic) does not apply; quotas on hidden splits still do
    board = Leaderboard(Store(to, rate_limit=RateLimit(max_submissions=None)), gold)
    board.store.recover_expired()
    try:
        out = board.submit(text, submitter=submitter, account=_local_account(token, token_path))
    except DuplicateSubmissionError as e:
        ex = e.existing
        if not (ex and ex.get("status") in ("PENDING", "RUNNING") and ex.get("sha256") == getattr(e, "sha256", None)):
            raise
        sub = board.store.get(ex["id"])
        out = {"id": sub["id"], "status": sub["status"], "verified": sub["verified"],
               "benchmark": f"{sub['task']}/{sub['dataset']}/{sub['config']}/{sub['split']}", "resumed": True}
    if not process or out["status"] in FINAL:
        return _result(out, board.store.get(out["id"]) if out["status"] in FINAL else None)
    sub = board.process(out["id"]) if out["status"] == "PENDING" else None
    if (sub is None or sub["status"] not in FINAL) and (wait is None or wait):
        sub = wait_for(board, out["id"], timeout_s=timeout_s)
    sub = sub or board.store.get(out["id"])
    out = _result(out, sub)
    if out["status"] not in FINAL:
        out["timed_out"] = True
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


def _local_account(token: str | None, token_path: str | os.PathLike | None) -> str | None:
    """A local submission is the maintainer's own (``None``) unless a token is given."""
    if not token and token_path is None:
        return None
    from figbench_leaderboard.access.identity import token_identity

    return token_identity(resolve_token(token, token_path, create=False))


def _submit_remote(text: str, url: str, submitter: str | None, *, wait: bool, timeout_s: float,
                   token: str | None = None, hf_token: str | None = None) -> dict[str, Any]:
    from figbench_leaderboard.access.identity import TOKEN_HEADER
    from gradio_client import Client

    try:
        client = Client(url, verbose=False, headers={TOKEN_HEADER: token} if token else None,
                         oauth_token=hf_token)
    except Exception as e:
        raise ConnectionError(f"cannot reach the leaderboard at {url}: {e}") from None
    reply = client.predict(text, submitter or "", api_name=API_NAME)
    result = json.loads(reply) if isinstance(reply, str) else reply
    if not result.get("ok"):
        raise SubmissionError(f"{url} refused the submission: {result.get('error')}")
    out = result["submission"]
    deadline = time.monotonic() + timeout_s
    while wait and out.get("status") not in FINAL and time.monotonic() < deadline:
        time.sleep(1.0)
        status = json.loads(client.predict(out["id"], api_name="/submission_status"))
        if status.get("ok"):
            sub = status["submission"]
            out.update(status=sub["status"], scores=sub.get("scores"), reason=sub.get("reason"))
    return out
