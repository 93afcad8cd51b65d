"""Issue 33, "the board holds under anonymous abuse", against served boards over real HTTP on 127.0.0.1, sent
the way an attacker with many identities (one 127.0.0.x address each) would: bounded memory per request,
every refusal counted, uploads signed in, one log line per aborted body, the served routes an allow-list."""

from __future__ import annotations

import http.client
import json
import time
from pathlib import Path

import pytest
from figbench_leaderboard.screenshots import serving

FIX = Path(__file__).parent / "fixtures" / "leaderboard"
GOLD = FIX / "gold.json"
SPACE = {"SPACE_ID": "figbench/leaderboard-test", "SYSTEM": "spaces"}
OAUTH = {**SPACE, "OAUTH_CLIENT_ID": "test-client", "OAUTH_CLIENT_SECRET": "test-secret",
         "OAUTH_SCOPES": "openid profile", "OPENID_PROVIDER_URL": "http://127.0.0.1:9"}
ARGS = ["--hidden-quota", "0", "--min-changed", "0"]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def post(port: int, path: str, body: bytes, *, source: str = "127.0.0.1", headers: dict | None = None,
         content_type: str = "application/json") -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120, source_address=(source, 0))
    try:
        conn.putrequest("POST", path)
        for k, v in {"Content-Type": content_type, "Content-Length": str(len(body)), **(headers or {})}.items():
            conn.putheader(k, v)
        conn.endheaders()
        try:
            for i in range(0, len(body), 1 << 16):
                conn.send(body[i:i + (1 << 16)])
        except (BrokenPipeError, ConnectionResetError):
            pass   # refused mid-body: the answer is already there
        r = conn.getresponse()
        return r.status, r.read()
    finally:
        conn.close()


@pytest.fixture(scope="module")
def signin_board(tmp_path_factory):
    """A Space with Hugging Face sign-in: every anonymous write is refused."""
    pytest.importorskip("authlib", reason="gradio[oauth] (authlib) is needed for Hugging Face sign-in")
    tmp = tmp_path_factory.mktemp("signin")
    with serving(tmp / "store", gold_json=GOLD, env=OAUTH, cwd=tmp, args=ARGS) as srv:
        yield {**srv, "store": tmp / "store"}


def test_refused_api_bodies_leave_memory_where_it_was(signin_board):
    """100 refused 10 MB submit_json bodies from 100 addresses: the server's RSS stays within 50 MB (before:
    each API call's Gradio session kept its ~10 MB input, 288 -> 623 MB after 30)."""
    port, pid = signin_board["port"], signin_board["proc"].pid
    body = json.dumps({"data": ["x" * (10 * 1000 * 1000 - 100), ""]}).encode()
    for i in range(3):   # warm up: the first requests load what every later one uses
        post(port, "/gradio_api/call/submit_json", body, source=f"127.0.1.{i + 1}")
    time.sleep(1)
    start = rss_mb(pid)
    for i in range(100):
        status, out = post(port, "/gradio_api/call/submit_json", body, source=f"127.0.2.{i + 1}")
        assert status == 200, (status, out[:200])
    time.sleep(2)
    end = rss_mb(pid)
    print(f"\nRSS {start:.0f} -> {end:.0f} MB after 100 refused 10 MB bodies")
    assert end - start < 50, (start, end)
