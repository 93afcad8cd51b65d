"""One raw HTTP POST for the board's abuse tests: the body sent in 64 KB pieces from a chosen source address,
a refusal mid-body tolerated (the answer is already there)."""

from __future__ import annotations

import http.client


def post(port: int, path: str, body: bytes, *, source: str = "127.0.0.1", headers: dict | None = None,
         content_type: str = "application/json", send_body: bool = True,
         timeout: float = 120) -> tuple[int, bytes]:
    """``(status, body)`` of a POST of ``body`` to ``127.0.0.1:port``; ``send_body=False`` announces it
    (Content-Length) without sending it."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout, source_address=(source, 0))
    try:
        conn.putrequest("POST", path)
        for k, v in {"Content-Type": content_type, "Content-Length": str(len(body)), **(headers or {})}.items():
            conn.putheader(k, v)
        conn.endheaders()
        if send_body:
            try:
                for i in range(0, len(body), 1 << 16):
                    conn.send(body[i:i + (1 << 16)])
            except (BrokenPipeError, ConnectionResetError):
                pass   # refused mid-body: the answer is already there
        r = conn.getresponse()
        return r.status, r.read()
    finally:
        conn.close()
