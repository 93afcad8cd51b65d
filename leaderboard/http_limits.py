"""A cap on request bodies, enforced before the app reads them (ASGI middleware).

A request announcing a larger ``Content-Length`` is answered 413 at once, without reading its body;
a chunked body is counted as it arrives and cut off at the cap. Gradio's routes (``/gradio_api/queue/join``,
``/gradio_api/upload``...) therefore never hold more than the cap in memory.
"""

from __future__ import annotations

import json
from typing import Any


class BodyLimit:
    """ASGI middleware: refuse HTTP request bodies over ``max_bytes`` with 413."""

    def __init__(self, app: Any, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = int(max_bytes)

    async def _refuse(self, send: Any) -> None:
        body = json.dumps({"error": f"request body larger than {self.max_bytes:,} bytes"}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None:
            try:
                too_big = int(length) > self.max_bytes
            except ValueError:
                too_big = True
            if too_big:
                await self._refuse(send)
                return
        seen = 0
        started = refused = False

        async def tracked_send(message: dict) -> None:
            nonlocal started
            if refused:
                return   # the app's late answer to a body it never fully got
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        async def counted_receive() -> dict:
            nonlocal seen, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    if not started:
                        await self._refuse(send)
                    refused = True
                    return {"type": "http.disconnect"}
            return message

        try:
            await self.app(scope, counted_receive, tracked_send)
        except Exception:
            if not refused:
                raise   # the app's own error; a refused body's disconnect is expected
