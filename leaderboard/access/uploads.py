"""Uploads (``POST /gradio_api/upload``, the Submit tab's file) need the identity a submission needs, and each
identity's uploads are capped.

* **Identity.** With Hugging Face sign-in configured, only a signed-in session (the page's session cookie)
  may upload: anonymous uploads are answered 401 before a byte is read. Without sign-in the identity is the
  client address (:func:`~figbench_leaderboard.access.http_limits.scope_identity`).
* **Caps.** At most ``max_files`` uploads and ``max_bytes`` (as announced by ``Content-Length``; a body
  without one counts as the per-request limit) per identity in ``window_s``; past either, 429 unread.

The Submit tab deletes its upload once read; Gradio's cache sweep removes the rest (``delete_cache``).
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from typing import Any

from figbench_leaderboard.access.http_limits import scope_identity

UPLOAD_PATH = "/gradio_api/upload"


def session_account(scope: dict) -> str | None:
    """``hf:<user>`` of a signed-in page session (Gradio's OAuth session, decoded by its SessionMiddleware)."""
    session = scope.get("session") if "session" in scope else None
    info = (session or {}).get("oauth_info") if isinstance(session, dict) else None
    user = (info or {}).get("userinfo") if isinstance(info, dict) else None
    name = (user or {}).get("preferred_username") if isinstance(user, dict) else None
    return f"hf:{name}" if isinstance(name, str) and name else None


class UploadGuard:
    """ASGI middleware for ``POST /gradio_api/upload`` (see the module docstring); other requests pass."""

    def __init__(self, app: Any, *, require_account: bool, per_request_bytes: int, max_files: int = 20,
                 max_bytes: int = 50 * 1024 * 1024, window_s: float = 3600.0) -> None:
        self.app, self.require_account = app, require_account
        self.per_request_bytes, self.max_files, self.max_bytes, self.window_s = (
            per_request_bytes, max_files, max_bytes, window_s)
        self._seen: dict[str, deque[tuple[float, int]]] = {}
        self._lock = threading.Lock()

    def _charge(self, who: str, size: int, now: float) -> str | None:
        """Record an upload of ``size`` bytes by ``who``; the refusal message when over a cap (not recorded)."""
        with self._lock:
            if len(self._seen) > 100_000:
                self._seen.clear()
            seen = self._seen.setdefault(who, deque())
            while seen and now - seen[0][0] > self.window_s:
                seen.popleft()
            if len(seen) >= self.max_files:
                return f"{who} uploaded {len(seen)} files in the last {self.window_s:.0f} s (limit {self.max_files})"
            total = sum(n for _, n in seen)
            if total + size > self.max_bytes:
                return (f"{who} uploaded {total:,} bytes in the last {self.window_s:.0f} s; this one would pass the "
                        f"limit of {self.max_bytes:,}")
            seen.append((now, size))
            return None

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST" or scope.get("path") != UPLOAD_PATH:
            await self.app(scope, receive, send)
            return
        who = session_account(scope)
        if who is None and self.require_account:
            await _refuse(send, 401, "sign in with Hugging Face to upload a submission")
            return
        who = who or scope_identity(scope) or "anonymous"
        length = dict(scope.get("headers") or []).get(b"content-length")
        try:
            size = int(length) if length is not None else self.per_request_bytes
        except ValueError:
            size = self.per_request_bytes
        why = self._charge(who, size, time.monotonic())
        if why:
            await _refuse(send, 429, f"upload refused: {why}; try again later")
            return
        await self.app(scope, receive, send)


async def _refuse(send: Any, status: int, message: str) -> None:
    body = json.dumps({"error": message}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})
