"""Only the documented API endpoints answer by name.

Gradio serves every event handler by its name under ``/gradio_api/call/<name>`` (and ``/run``,
``/api``, ``/call/v2``), whatever its ``api_visibility``: "private" hides a handler from the API
listing and from ``gradio_client``, not from a plain HTTP call. :class:`ApiAllowlist` answers 404 for
every name but the documented ones (``submit_json`` and ``submission_status``); the page itself calls
its handlers through the queue by index, which this leaves alone.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

#: the API the README documents
API_ENDPOINTS = ("submit_json", "submission_status")
_NAMED = re.compile(r"^(?:/gradio_api)?/(?:call/v2|call|run|api)/([^/]+)")


class ApiAllowlist:
    """ASGI middleware: a request for a named endpoint outside ``allowed`` gets 404 before Gradio sees it."""

    def __init__(self, app: Any, allowed: Iterable[str] = API_ENDPOINTS) -> None:
        self.app = app
        self.allowed = frozenset(allowed)

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            m = _NAMED.match(scope.get("path", ""))
            if m and m.group(1) not in self.allowed:
                body = json.dumps({"detail": f"no API endpoint {m.group(1)[:60]!r}; the API has "
                                             + ", ".join(f"/{a}" for a in sorted(self.allowed))}).encode()
                await send({"type": "http.response.start", "status": 404,
                            "headers": [(b"content-type", b"application/json"),
                                        (b"content-length", str(len(body)).encode())]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)
