"""Raw HTTP for the board's tests over a real socket: one POST with the body sent in 64 KB pieces from a chosen
source address, a refusal mid-body tolerated (the answer is already there); one Gradio API call from a chosen
address; one JSON answer from a test's own HTTP server (the fake Hub APIs)."""

from __future__ import annotations

import http.client
import json


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


def call(url: str, name: str, data: list, headers: list[tuple[str, str]] | None = None, *,
         source: str = "127.0.0.1", extra: dict | None = None) -> tuple[int, object]:
    """One call of ``/gradio_api/call/<name>`` from the address ``source`` (any 127.0.0.x), sending
    ``headers`` as given (a name may repeat: separate header lines); returns (status, result or body)."""
    host, port = url.removeprefix("http://").split(":")

    def request(method: str, path: str, body: bytes | None) -> tuple[int, bytes]:
        conn = http.client.HTTPConnection(host, int(port), timeout=120, source_address=(source, 0))
        try:
            conn.putrequest(method, path)
            for k, v in [("Content-Type", "application/json"), *(headers or [])]:
                conn.putheader(k, v)
            conn.putheader("Content-Length", str(len(body or b"")))
            conn.endheaders(body)
            r = conn.getresponse()
            return r.status, r.read()
        finally:
            conn.close()

    status, body = request("POST", f"/gradio_api/call/{name}", json.dumps({"data": data, **(extra or {})}).encode())
    if status != 200:
        return status, body.decode(errors="replace")
    event = json.loads(body)["event_id"]
    status, body = request("GET", f"/gradio_api/call/{name}/{event}", None)
    lines = [ln for ln in body.decode().splitlines() if ln.startswith("data:")]
    return status, json.loads(lines[-1][5:])[0]


def send_json(handler, code: int, body: dict) -> None:
    """Answer a request of a ``BaseHTTPRequestHandler`` with ``body`` as JSON and status ``code``."""
    data = json.dumps(body).encode()
    handler.send_response(code)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)
