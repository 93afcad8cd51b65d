"""The Submit tab and the two JSON API endpoints, ``submit_json`` and ``submission_status`` (the only ones
:mod:`figbench_leaderboard.access.api_allowlist` lets through).

(No ``from __future__ import annotations`` here: Gradio reads the handlers' type hints at run time.)
"""

import html
import json
import logging
from pathlib import Path
from typing import Any

from figbench_leaderboard.access.identity import request_client, request_identity
from figbench_leaderboard.scoring.parse_worker import CpuMeter
from figbench_leaderboard.ui.tabs.page import Opened, Page, for_gradio

from figbench.imports import gradio
from figbench.results import MODEL_TYPES

gr = gradio()

log = logging.getLogger("figbench_leaderboard.ui.app")

#: the fields of a submission that ``submission_status`` returns (no predictions, no gold)
STATUS_KEYS = ("id", "status", "reason", "task", "dataset", "config", "split", "model_name", "model_revision",
               "verified", "gold", "scores", "confidence_intervals", "mismatches")


#: the ``submit_json`` endpoint's description, with Hugging Face sign-in (True) and without
SUBMIT_JSON_DOC = {
    True: 'JSON API for ``figbench submit --to URL``: returns {"ok", "submission"|"error"}. Needs a signed-in\n'
          "Hugging Face account: the page's session, or a Hugging Face access token (``oauth_token``).",
    False: 'JSON API for ``figbench submit --to URL``: returns {"ok", "submission"|"error"}. A submitter token\n'
           "in the ``X-Figbench-Token`` header is the submitter's identity (else the client address).",
}


def _error_html(msg: str) -> str:
    return f'<div class="fb-error" id="fb-submit-error">Submission refused: {html.escape(msg)}</div>'


def _label(submitter: str | None, account: str | None) -> str | None:
    """The submitter shown: a signed-in user's Hugging Face name, else the label typed in."""
    return account[3:] if account and account.startswith("hf:") else (submitter or None)


def _parameters(params: Any) -> int | None:
    """The form's parameter count (``1,300,000`` and ``1_300_000`` too); ValueError names the field."""
    if not str(params or "").strip():
        return None
    try:
        return int(str(params).replace(",", "").replace("_", "").strip())
    except ValueError:
        raise ValueError(f"model.parameters: {str(params)[:40]!r} is not an integer") from None


def _remove_upload(path: Path) -> None:
    """Delete an uploaded file from Gradio's cache once read (never anything outside it)."""
    from gradio.utils import get_upload_folder

    try:
        cache = Path(get_upload_folder()).resolve()
        p = path.resolve()
        if cache in p.parents:
            p.unlink(missing_ok=True)
            if p.parent != cache and not any(p.parent.iterdir()):
                p.parent.rmdir()
    except OSError as e:
        log.warning("could not remove an upload: %s", e)


def forget_session(request: gr.Request | None) -> None:
    """Drop the Gradio session of an API call from the server's session store. Gradio keeps each session's
    input values (``config_values``) for up to 10,000 sessions and every ``/gradio_api/call`` opens a new
    one, so a 10 MB body would stay in memory long after its request ended; the API is stateless, so its
    session can go as soon as the handler runs (the event finishes on the object it already holds)."""
    raw = getattr(request, "request", None)
    holder = getattr(getattr(raw, "app", None), "state_holder", None)
    sid = getattr(request, "session_hash", None)
    if holder is None or sid is None:
        return
    with holder.lock:
        holder.session_data.pop(sid, None)
        holder.time_last_used.pop(sid, None)


class Submissions:
    """The submit form's handler and the JSON API of one page."""

    def __init__(self, page: Page) -> None:
        self.page = page

    def _budgeted(self, client: str | None, submit: Any) -> Any:
        """``submit()`` charged to ``client``: its CPU time to the page's budget, a ValueError to its refusals;
        refused at once (ValueError) while the client is over its budget."""
        page = self.page
        why = page.cpu.refusal(client) if page.cpu is not None else None
        if why is not None:
            self._refused(client)
            raise ValueError(why)
        meter = CpuMeter()   # this thread's CPU time and the parse worker's for it
        try:
            return submit()
        except ValueError:
            self._refused(client)
            raise
        finally:
            if page.cpu is not None:
                page.cpu.charge(client, meter.seconds())

    def _refused(self, client: str | None) -> None:
        if self.page.refusals is not None:
            self.page.refusals.record(client)

    def _read_upload(self, file) -> bytes:
        """The uploaded file's bytes (at most the page's limit); the upload is removed either way."""
        limit = self.page.max_bytes
        path = Path(file if isinstance(file, str) else file.name)
        try:
            size = path.stat().st_size
            if size > limit:
                raise ValueError(f"upload is {size:,} bytes; the limit is {limit:,} bytes")
            return path.read_bytes()
        except OSError as e:
            raise ValueError(self.page.board.redact(f"cannot read the upload: {e.strerror}")) from None
        finally:
            _remove_upload(path)

    def submit_form(self, file, name, revision, mtype, params, link, licence, submitter, description, paper, token,
             request: gr.Request, profile: gr.OAuthProfile | None = None) -> str:
        """The Submit button: the upload with the form's fields overriding its metadata; an HTML verdict."""
        page = self.page
        if page.use_oauth and profile is None:
            return _error_html("sign in with Hugging Face (button above) to submit")
        try:
            client, account = request_identity(request, profile, require_account=page.use_oauth,
                                               token=None if page.use_oauth else token)
        except ValueError as e:
            return _error_html(str(e))
        if file is None:
            return _error_html("choose a predictions or results JSON file to upload")
        try:
            data = self._read_upload(file)
        except ValueError as e:
            return _error_html(str(e))
        try:
            parameters = _parameters(params)
        except ValueError as e:
            return _error_html(str(e))
        try:
            overrides = {"name": name, "revision": revision, "type": mtype, "parameters": parameters, "link": link,
                         "licence": licence, "submitter": _label(submitter, account), "description": description,
                         "paper": paper}
            out = self._budgeted(client, lambda: page.board.submit(data, overrides=overrides, client=client,
                                                                   account=account))
        except ValueError as e:
            return _error_html(page.board.redact(str(e)))
        if page.worker is not None:
            page.worker.wake()
        return (f'<div class="fb-ok" id="fb-submit-ok">Accepted: submission <code>{html.escape(out["id"])}</code> '
                f'for {html.escape(out["benchmark"])}, status {html.escape(out["status"])}. Follow it in the Queue '
                "tab.</div>")

    def submit_json(self, text: str, submitter: str, request: gr.Request, profile: gr.OAuthProfile | None = None,
                    oauth: gr.OAuthToken | None = None) -> str:
        """JSON API for ``figbench submit --to URL``: returns {"ok", "submission"|"error"} (the identity: see
        ``SUBMIT_JSON_DOC``, the endpoint's description)."""
        page = self.page
        forget_session(request)
        client = request_client(request)
        try:
            def submit() -> dict:
                _, account = request_identity(request, profile, oauth, require_account=page.use_oauth)
                if len((text or "").encode("utf-8")) > page.max_bytes:
                    raise ValueError(f"upload is larger than {page.max_bytes:,} bytes")
                return page.board.submit(text or "", submitter=_label(submitter, account), client=client,
                                         account=account)
            out = self._budgeted(client, submit)
        except ValueError as e:
            return json.dumps({"ok": False, "error": page.board.redact(str(e))})
        if page.worker is not None:
            page.worker.wake()
        return json.dumps({"ok": True, "submission": out})

    def submission_status(self, sid: str, request: gr.Request = None) -> str:
        """JSON API: status and scores of one submission as the board releases them (no predictions, no gold)."""
        forget_session(request)
        sub = self.page.board.released(self.page.board.store.find(sid or ""))
        if sub is None:
            return json.dumps({"ok": False, "error": "no such submission"})
        return json.dumps({"ok": True, "submission": {k: sub.get(k) for k in STATUS_KEYS}})


def build(page: Page) -> Opened:
    """The tab's components and events (inside ``gr.Tabs``)."""
    handlers = Submissions(page)
    with gr.Tab("Submit", id="submit") as tab:
        if page.use_oauth:
            gr.LoginButton()
        gr.Markdown("Upload a predictions file or a result record (JSON, at most "
                    f"{page.max_bytes / 1e6:.0f} MB). Fields filled here override the file's metadata.")
        upload = gr.File(label="Predictions or result record (.json)", file_types=[".json"], type="filepath",
                         elem_id="submit-file")
        with gr.Row():
            name = gr.Textbox(label="Model name", elem_id="f-name")
            revision = gr.Textbox(label="Revision / commit hash", elem_id="f-revision")
            mtype = gr.Dropdown(list(MODEL_TYPES), value=None, label="Model type", elem_id="f-type")
            params = gr.Textbox(label="Parameters", elem_id="f-params")
        with gr.Row():
            link = gr.Textbox(label="Model link", elem_id="f-link")
            licence = gr.Textbox(label="Licence", elem_id="f-licence")
            submitter = gr.Textbox(label="Submitter", elem_id="f-submitter")
            paper = gr.Textbox(label="Paper link", elem_id="f-paper")
        description = gr.Textbox(label="Description", lines=2, elem_id="f-description")
        token = gr.Textbox(label="Submitter token (optional; the model names you submit first belong to "
                           "it: use the same token to submit under them again)", type="password",
                           elem_id="f-token", visible=not page.use_oauth)
        button = gr.Button("Submit", variant="primary", elem_id="submit-button")
        verdict = gr.HTML(elem_id="submit-result")
        button.click(for_gradio(handlers.submit_form, oauth=page.use_oauth),
                     [upload, name, revision, mtype, params, link, licence, submitter, description, paper, token],
                     verdict, api_visibility="private")
    return Opened(tab)


def register_api(page: Page) -> None:
    """The two documented API endpoints (inside ``gr.Blocks``)."""
    handlers = Submissions(page)
    gr.api(for_gradio(handlers.submit_json, oauth=page.use_oauth, doc=SUBMIT_JSON_DOC[page.use_oauth]),
           api_name="submit_json")
    gr.api(for_gradio(handlers.submission_status, oauth=page.use_oauth), api_name="submission_status")
