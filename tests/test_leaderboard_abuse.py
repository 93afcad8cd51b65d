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

from tests.http_post import post

FIX = Path(__file__).parent / "fixtures" / "leaderboard"
GOLD = FIX / "gold.json"
SPACE = {"SPACE_ID": "figbench/leaderboard-test", "SYSTEM": "spaces"}
OAUTH = {**SPACE, "OAUTH_CLIENT_ID": "test-client", "OAUTH_CLIENT_SECRET": "test-secret",
         "OAUTH_SCOPES": "openid profile", "OPENID_PROVIDER_URL": "http://127.0.0.1:9"}
ARGS = ["--hidden-quota", "0", "--min-changed", "0"]
LIMIT = 8
BUDGET_WINDOW_S = 10   # the board's validation budget of all senders: 1 s of CPU in 10 s


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def _cpu_s(pid: int) -> float:
    """User+system CPU seconds of a process so far."""
    import os

    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")




@pytest.fixture(scope="module")
def signin_board(tmp_path_factory):
    """A Space with Hugging Face sign-in: every anonymous write is refused."""
    pytest.importorskip("authlib", reason="gradio[oauth] (authlib) is needed for Hugging Face sign-in")
    tmp = tmp_path_factory.mktemp("signin")
    # the board's CPU budget for all senders is raised: 100 bodies of 10 MB in a row spend the default one (about
    # 25 ms of Gradio's parse each, charged) and are rightly answered 429; here they must reach the handler. They
    # still go in one at a time, without the pause after each (--big-body-share 1): memory is under test here, the
    # pause is in test_leaderboard_pacing.py (with it, this test took 60-75 s instead of about 15)
    with serving(tmp / "store", gold_json=GOLD, env=OAUTH, cwd=tmp,
                 args=[*ARGS, "--board-cpu-s", "60", "--big-body-share", "1"]) as srv:
        yield {**srv, "store": tmp / "store"}


def test_refused_api_bodies_leave_memory_where_it_was(signin_board):
    """100 refused 10 MB submit_json bodies from 100 addresses (the number issue 33 names): the server's RSS
    stays within 50 MB (before: each API call's Gradio session kept its ~10 MB input, 288 -> 623 MB after 30)."""
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


def _call(port: int, payload: str, source: str) -> tuple[int, dict | bytes]:
    """submit_json with ``payload`` as its text; the board's answer (a dict), or the HTTP refusal."""
    status, body = post(port, "/gradio_api/call/submit_json", json.dumps({"data": [payload, ""]}).encode(),
                        source=source)
    if status != 200:
        return status, body
    event = json.loads(body)["event_id"]
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120, source_address=(source, 0))
    try:
        conn.request("GET", f"/gradio_api/call/submit_json/{event}")
        lines = [ln for ln in conn.getresponse().read().decode().splitlines() if ln.startswith("data:")]
    finally:
        conn.close()
    return 200, json.loads(json.loads(lines[-1][5:])[0])


def key_bomb() -> str:
    """A 9.5 MB predictions object of 800,000 keys (within the structure limits: one object)."""
    sub = json.loads((FIX / "predictions_metonymy.json").read_text())
    sub["predictions"] = {f"{i:x}": 0 for i in range(800_000)}
    return json.dumps(sub)


def big_cluster() -> str:
    """A cdec cluster of 600,000 made-up mention ids (6.5 MB)."""
    sub = json.loads((FIX / "predictions_cdec.json").read_text())
    sub["predictions"] = [[f"u{i}" for i in range(600_000)]]
    return json.dumps(sub)


@pytest.fixture(scope="module")
def open_board(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("open")
    with serving(tmp / "store", gold_json=GOLD, cwd=tmp, args=[*ARGS, "--rate-limit", str(LIMIT)]) as srv:
        yield {**srv, "store": tmp / "store"}


def test_refusals_answered_200_count_toward_the_limit(open_board):
    """LIMIT refusals answered 200 {"ok": false} (an unknown benchmark): the next body is refused unread."""
    port = open_board["port"]
    bad = json.loads((FIX / "predictions_metonymy.json").read_text())
    bad["split"] = "nonexistent"
    for _ in range(LIMIT):
        status, out = _call(port, json.dumps(bad), "127.0.3.1")
        assert status == 200 and not out["ok"], out
    status, out = _call(port, json.dumps(bad), "127.0.3.1")
    assert status == 429 and b"ip:127.0.3.1" in out, (status, out)
    # another address is not affected
    status, out = _call(port, json.dumps(bad), "127.0.3.2")
    assert status == 200 and not out["ok"]


def test_an_aborted_body_is_one_log_line(open_board):
    """Clients that announce 1 MB and hang up after 1 KB: one line each in the server's log, no traceback
    (before: a full traceback per disconnect, 16 MB of log for 3,000)."""
    import socket

    log = Path(open_board["log"])
    spent = open_board.get("budget_spent_at")   # key bombs spend the board's validation budget (1 s in 10); while
    if spent is not None:                        # it is spent the API refuses unread: wait for the window to pass
        time.sleep(max(0.0, BUDGET_WINDOW_S + 0.5 - (time.monotonic() - spent)))
    before = log.read_text()
    upload = (b"/gradio_api/upload", b"multipart/form-data; boundary=XX", b'--XX\r\nContent-Disposition: form-data; '
              b'name="files"; filename="a.json"\r\nContent-Type: application/json\r\n\r\n')
    api = (b"/gradio_api/call/submit_json", b"application/json", b'{"data": ["')
    for path, ctype, start in (upload, api, upload):
        s = socket.create_connection(("127.0.0.1", open_board["port"]), timeout=30)
        s.sendall(b"POST " + path + b" HTTP/1.1\r\nHost: x\r\nContent-Type: " + ctype + b"\r\n"
                  b"Content-Length: 1000000\r\n\r\n" + start + b"x" * 1000)
        time.sleep(0.3)
        s.close()
    time.sleep(2)
    new = log.read_text()[len(before):]
    assert "Traceback" not in new, new[-3000:]
    lines = [ln for ln in new.splitlines() if "aborted" in ln]
    assert len(lines) == 3 and all("ip:127.0.0.1" in ln for ln in lines), new[-3000:]


def test_bombs_answered_200_are_cheap_and_bounded_per_sender(open_board):
    """The big cluster is refused by a count (before: 1.03 s of server CPU sorting 600,000 made-up ids); the key
    bomb's parse is charged to its sender, who is refused unread (429) once over its CPU seconds a minute."""
    port, pid = open_board["port"], open_board["proc"].pid
    cluster = big_cluster()
    cpu0 = _cpu_s(pid)
    status, out = _call(port, cluster, "127.0.4.1")
    took = _cpu_s(pid) - cpu0
    print(f"\nbig cluster refused with {took:.2f} s of server CPU: {out}")
    assert status == 200 and "600000 predicted mention ids" in out["error"], out
    bomb, answers = key_bomb(), []
    for _ in range(8):
        status, out = _call(port, bomb, "127.0.4.2")
        answers.append(status)
        if status == 429:
            break
    print(f"key bombs from one address: {answers}")
    open_board["budget_spent_at"] = time.monotonic()
    assert answers[-1] == 429 and b"validation work" in out and len(answers) <= 5 < LIMIT, (answers, out)


def test_cpu_budget_window():
    from figbench_leaderboard.access.http_limits import CpuBudget

    b = CpuBudget(2.0, window_s=60)
    b.charge("ip:1", 1.5, now=0)
    assert b.retry_after("ip:1", now=1) is None
    b.charge("ip:1", 1.0, now=10)
    assert b.retry_after("ip:1", now=11) == pytest.approx(49) and b.retry_after("ip:2", now=11) is None
    assert b.retry_after("ip:1", now=60.5) is None   # the first charge left the window


def test_cpu_budget_of_all_senders_together():
    """Issue 33: six addresses, each within its own 2 s a minute, cannot take more than the board's 1 s in 10."""
    from figbench_leaderboard.access.http_limits import CpuBudget

    b = CpuBudget(2.0, window_s=60, max_total_s=1.0, total_window_s=10)
    assert b.busy_for(now=0) is None
    for i in range(6):
        b.charge(f"ip:{i}", 0.45, now=float(i))
    assert all(b.retry_after(f"ip:{i}", now=6) is None for i in range(6))   # each within its own budget
    assert b.busy_for(now=6) == pytest.approx(7)   # under 1 s once the charges of t = 0..3 left the window
    assert b.busy_for(now=14) is None
    assert "the board (all senders)" in CpuBudget(2.0, max_total_s=0.0).refusal("ip:9")
    assert CpuBudget(2.0, max_total_s=0.0).refusal("ip:9", board=False) is None


def _upload(port: int, text: bytes, *, source: str, headers: dict | None = None) -> tuple[int, bytes]:
    body = (b'--XX\r\nContent-Disposition: form-data; name="files"; filename="sub.json"\r\n'
            b"Content-Type: application/json\r\n\r\n" + text + b"\r\n--XX--\r\n")
    return post(port, "/gradio_api/upload", body, source=source, headers=headers,
                content_type="multipart/form-data; boundary=XX")


def test_uploads_need_a_signed_in_session(signin_board):
    """On a sign-in board an anonymous upload is refused unread (before: 200, 891 MB in 45 requests, kept up to
    15 minutes); the page's signed-in session uploads."""
    from tests.test_leaderboard_ownership import session_cookie

    port = signin_board["port"]
    status, out = _upload(port, b"{}" * 1000, source="127.0.5.1")
    assert status == 401 and b"sign in" in out, (status, out)
    status, out = _upload(port, b"{}", source="127.0.5.1", headers={"Cookie": session_cookie("carol", "test-secret")})
    assert status == 200, (status, out)


def test_uploads_per_identity_are_capped(open_board):
    port = open_board["port"]
    answers = [_upload(port, b"{}", source="127.0.6.1")[0] for _ in range(21)]
    assert answers[:20] == [200] * 20 and answers[20] == 429, answers
    assert _upload(port, b"{}", source="127.0.6.2")[0] == 200   # another identity is not affected
