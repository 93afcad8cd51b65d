"""Only the routes the board needs answer; of the API, only the documented endpoints by name.

Gradio serves far more than a board needs: run history acting on Hugging Face buckets with the server's
``HF_TOKEN`` (``/gradio_api/run-history/...``), ``/monitoring`` (request counts and latencies), a
reverse proxy, the "vibe" editor, streams, the component server... and it serves every event handler by
its name under ``/gradio_api/call/<name>`` (and ``/run``, ``/api``, ``/call/v2``), whatever its
``api_visibility``. :class:`ApiAllowlist` answers 404 for every request that is not one of :data:`ROUTES`
(the page, its assets, the queue, uploads, the sign-in routes) or that names an API endpoint other than
:data:`API_ENDPOINTS`; the page calls its own handlers through the queue by index, which this leaves alone.
leaderboard/README.md (Security) lists :data:`ROUTES`; ``tests/test_leaderboard_routes.py`` compares every
route the served app declares with that list.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

#: the API the README documents
API_ENDPOINTS = ("submit_json", "submission_status")
_NAMED = re.compile(r"^(?:/gradio_api)?/(?:call/v2|call|run|api)/([^/]+)")
_GET = frozenset({"GET", "HEAD"})
_POST = frozenset({"POST"})

#: (methods, path pattern, what for): every route that answers (Gradio's route templates, as declared)
ROUTES: tuple[tuple[frozenset[str], str, str], ...] = (
    (_GET, "/", "the page"),
    (_GET, "/config", "the page's layout"),
    (_GET, "/config/", "the page's layout"),
    (_GET, "/theme.css", "styles"),
    (_GET, "/gradio_api/theme.css", "styles"),
    (_GET, "/favicon.ico", "icon"),
    (_GET, "/robots.txt", "crawlers"),
    (_GET, "/static/{path:path}", "Gradio's static files"),
    (_GET, "/assets/{path:path}", "the front end's build"),
    (_GET, "/svelte/{path:path}", "the front end's build"),
    (_GET, "/gradio_api/info", "the API description (gradio_client)"),
    (_GET, "/gradio_api/info/", "the API description (gradio_client)"),
    (_GET, "/gradio_api/heartbeat/{session_hash}", "the page's session"),
    (_GET, "/gradio_api/startup-events", "the page's load events"),
    (_POST, "/gradio_api/queue/join", "the page's events"),
    (_GET, "/gradio_api/queue/data", "the page's events"),
    (_POST, "/gradio_api/cancel", "the page's events"),
    (_POST, "/gradio_api/upload", "the Submit tab's file (same identity as a submission)"),
    (_GET, "/gradio_api/upload_progress", "the Submit tab's file"),
    (_GET, "/gradio_api/file={path_or_url:path}", "downloads (Gradio's allowed paths only)"),
    (_POST, "/gradio_api/call/{api_name}", "the API (documented names only)"),
    (_POST, "/gradio_api/call/{api_name}/", "the API (documented names only)"),
    (_GET, "/gradio_api/call/{api_name}/{event_id}", "the API's results"),
    (_POST, "/gradio_api/call/v2/{api_name}", "the API (documented names only)"),
    (_POST, "/gradio_api/call/v2/{api_name}/", "the API (documented names only)"),
    (_GET, "/gradio_api/call/v2/{api_name}/{event_id}", "the API's results"),
    (_GET, "/login/huggingface", "Hugging Face sign-in"),
    (_GET, "/login/callback", "Hugging Face sign-in"),
    (_GET, "/logout", "Hugging Face sign-in"),
)


def _regex(template: str) -> re.Pattern:
    """A route template (``/static/{path:path}``, ``/gradio_api/file={path_or_url:path}``) as a regex."""
    out, pos = [], 0
    for m in re.finditer(r"\{([^}:]+)(:path)?\}", template):
        out.append(re.escape(template[pos:m.start()]))
        out.append(".+" if m.group(2) else "[^/]+")
        pos = m.end()
    return re.compile("^" + "".join(out) + re.escape(template[pos:]) + "$")


_COMPILED = tuple((methods, _regex(path)) for methods, path, _ in ROUTES)


def route_allowed(method: str, path: str) -> bool:
    return any(method in methods and rx.match(path) for methods, rx in _COMPILED)


class ApiAllowlist:
    """ASGI middleware: a request outside :data:`ROUTES`, or for a named endpoint outside ``allowed``, gets 404
    (header ``x-figbench-refused: route``) before Gradio sees it."""

    def __init__(self, app: Any, allowed: Iterable[str] = API_ENDPOINTS) -> None:
        self.app = app
        self.allowed = frozenset(allowed)

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            path, method = scope.get("path", ""), scope.get("method", "GET")
            m = _NAMED.match(path)
            if m and m.group(1) not in self.allowed:
                await self._not_found(scope, send, f"no API endpoint {m.group(1)[:60]!r}; the API has "
                                      + ", ".join(f"/{a}" for a in sorted(self.allowed)))
                return
            if scope["type"] == "websocket" or not route_allowed(method, path):
                await self._not_found(scope, send, "not found")
                return
        await self.app(scope, receive, send)

    @staticmethod
    async def _not_found(scope: dict, send: Any, detail: str) -> None:
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        body = json.dumps({"detail": detail}).encode()
        await send({"type": "http.response.start", "status": 404,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"x-figbench-refused", b"route")]})
        await send({"type": "http.response.body", "body": body})
