"""Issue 13 against a served board over real HTTP on 127.0.0.1: the rate limit behind the Spaces
proxy (forged X-Forwarded-For), per Hugging Face account with OAuth, and the request-body cap
(a 500 MB POST to /gradio_api/queue/join, and the server's memory while it comes)."""

from __future__ import annotations

import base64
import hashlib
import http.client
import json
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from figbench_leaderboard.screenshots import serving

FIX = Path(__file__).parent / "fixtures" / "leaderboard"
GOLD = FIX / "gold.json"
SPACE = {"SPACE_ID": "figbench/leaderboard-test", "SYSTEM": "spaces"}   # what a Space sets
OAUTH = {**SPACE, "OAUTH_CLIENT_ID": "test-client", "OAUTH_CLIENT_SECRET": "test-secret",
         "OAUTH_SCOPES": "openid profile", "OPENID_PROVIDER_URL": "http://127.0.0.1:9"}
LIMIT = 10
#: each 429 past the refusal limit is held this long (``serve --tarpit-s``; the 1 s default is
#: test_leaderboard_pacing.py's): 20 of them at the default took 20 s of this file's 37
TARPIT_S = 0.05


def _submission(name: str) -> str:
    sub = json.loads((FIX / "predictions_metonymy.json").read_text())
    sub.pop("submitter")
    sub["model"]["name"] = name
    return json.dumps(sub)


def call_api(url: str, name: str, data: list, headers: dict | None = None) -> object:
    """One call of a Gradio API endpoint over plain HTTP (``/gradio_api/call/<name>``), its result."""
    h = {"Content-Type": "application/json", **(headers or {})}
    req = urllib.request.Request(f"{url}/gradio_api/call/{name}", data=json.dumps({"data": data}).encode(), headers=h)
    with urllib.request.urlopen(req, timeout=60) as r:
        event = json.loads(r.read())["event_id"]
    req = urllib.request.Request(f"{url}/gradio_api/call/{name}/{event}", headers=headers or {})
    with urllib.request.urlopen(req, timeout=120) as r:
        body = r.read().decode()
    lines = [ln for ln in body.splitlines() if ln.startswith("data:")]
    return json.loads(lines[-1][5:])[0]


def wait_for_submission(url: str, sid: str, timeout: float = 120.0) -> dict:
    """The submission's status once it is FINISHED or FAILED (or the last one seen after ``timeout``)."""
    deadline = time.time() + timeout
    while True:
        status = json.loads(call_api(url, "submission_status", [sid]))["submission"]
        if status["status"] in ("FINISHED", "FAILED") or time.time() > deadline:
            return status
        time.sleep(1)


def _submit(url: str, name: str, headers: dict) -> dict:
    return json.loads(call_api(url, "submit_json", [_submission(name), ""], headers))


def session_cookie(username: str, secret: str) -> str:
    """The session cookie Gradio's OAuth callback sets after a Hugging Face sign-in (Starlette's format)."""
    from itsdangerous import TimestampSigner

    key = hashlib.sha256((secret + "-v4").encode()).hexdigest()
    session = {"oauth_info": {"access_token": "hf_test", "expires_at": int(time.time()) + 3600,
                              "scope": "openid profile",
                              "userinfo": {"sub": username, "name": username.title(), "preferred_username": username,
                                           "profile": f"https://huggingface.co/{username}", "picture": ""}}}
    data = base64.b64encode(json.dumps(session).encode())
    return "session=" + TimestampSigner(str(key)).sign(data).decode()


@pytest.fixture(scope="module")
def space(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("space")
    with serving(tmp / "store", gold_json=GOLD, env=SPACE, cwd=tmp,
                 args=["--rate-limit", str(LIMIT), "--hidden-quota", "0", "--min-changed", "0",
                       "--tarpit-s", str(TARPIT_S)]) as srv:
        yield srv


def test_forged_x_forwarded_for_does_not_bypass_the_rate_limit(space):
    """40 submissions, each with a different forged address; the Spaces proxy appends the real one."""
    accepted = refused = 0
    unread = []   # seconds each 429 took
    for i in range(40):
        forged = f"9.9.{i // 250}.{i % 250}"
        t0 = time.monotonic()
        try:
            out = _submit(space["url"], f"flood-{i}", {"X-Forwarded-For": f"{forged}, 127.0.0.1"})
        except urllib.error.HTTPError as e:   # every refusal counts: past LIMIT of them, refused unread
            assert e.code == 429 and b"ip:127.0.0.1" in e.read()
            unread.append(time.monotonic() - t0)
            refused += 1
            continue
        if out["ok"]:
            accepted += 1
        else:
            assert "rate limit" in out["error"] and "ip:127.0.0.1" in out["error"], out
            refused += 1
    assert accepted == LIMIT and refused == 40 - LIMIT
    # the served --tarpit-s holds them (1 s each at the default would be at least 20 s in all)
    assert len(unread) == 40 - 2 * LIMIT and min(unread) >= TARPIT_S and sum(unread) < len(unread), unread


def test_the_proxy_entry_is_the_client(space):
    """Another real client (as the proxy reports it) has its own budget, whatever it forges."""
    out = _submit(space["url"], "other-client", {"X-Forwarded-For": "127.0.0.1, 203.0.113.9"})
    assert out["ok"], out


@pytest.fixture(scope="module")
def oauth_space(tmp_path_factory):
    pytest.importorskip("authlib", reason="gradio[oauth] (authlib) is needed for Hugging Face sign-in")
    tmp = tmp_path_factory.mktemp("oauth")
    with serving(tmp / "store", gold_json=GOLD, env=OAUTH, cwd=tmp,
                 args=["--rate-limit", str(LIMIT), "--hidden-quota", "0", "--min-changed", "0"]) as srv:
        yield srv


def test_rate_limit_per_signed_in_account(oauth_space):
    url = oauth_space["url"]
    counts = {}
    for user in ("alice", "bob"):
        cookie = session_cookie(user, OAUTH["OAUTH_CLIENT_SECRET"])
        ok = 0
        for i in range(LIMIT + 5):   # every request from a new forged address: the account is what counts
            out = _submit(url, f"{user}-{i}", {"Cookie": cookie, "X-Forwarded-For": f"10.1.{i}.1, 198.51.100.{i}"})
            if out["ok"]:
                ok += 1
            else:
                assert f"hf:{user}" in out["error"], out
        counts[user] = ok
    assert counts == {"alice": LIMIT, "bob": LIMIT}
    # a forged or expired session is no account: with sign-in configured, no account is no submission
    bad = session_cookie("mallory", "wrong-secret")
    out = _submit(url, "mallory-0", {"Cookie": bad, "X-Forwarded-For": "198.51.100.77"})
    assert not out["ok"] and "sign in with Hugging Face" in out["error"], out
    from figbench_leaderboard.store.sqlite import Store

    rows = {r["model_name"]: r for r in Store(Path(oauth_space["log"]).parent / "store").list()}
    assert "mallory-0" not in rows and rows["alice-0"]["submitter"] == "alice"


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def _post_stream(port: int, path: str, total: int, *, chunked: bool) -> tuple[int | None, float]:
    """POST ``total`` bytes of JSON-ish filler without holding them in memory; returns (status, seconds)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    t0 = time.time()
    chunk = b"[" + b"1," * (1 << 19)
    status = None
    try:
        conn.putrequest("POST", path)
        conn.putheader("Content-Type", "application/json")
        conn.putheader("X-Forwarded-For", "198.51.100.7")   # its own identity (the Space's proxy entry), not
        # 127.0.0.1, whose refusals in the tests above already count
        if chunked:
            conn.putheader("Transfer-Encoding", "chunked")
        else:
            conn.putheader("Content-Length", str(total))
        conn.endheaders()
        sent = 0
        while sent < total:
            piece = chunk[: min(len(chunk), total - sent)]
            conn.send(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
            sent += len(piece)
        if chunked:
            conn.send(b"0\r\n\r\n")
        status = conn.getresponse().status
    except (BrokenPipeError, ConnectionResetError, http.client.HTTPException, OSError):
        try:
            status = conn.getresponse().status
        except Exception:
            status = None
    finally:
        conn.close()
    return status, time.time() - t0


@pytest.mark.parametrize("chunked, size", [(False, 500 * 1024 * 1024), (True, 200 * 1024 * 1024)])
def test_oversized_request_bodies_are_refused_without_memory_growth(space, chunked, size):
    pid = space["proc"].pid
    before = _rss_kb(pid)
    status, seconds = _post_stream(space["port"], "/gradio_api/queue/join", size, chunked=chunked)
    after = _rss_kb(pid)
    print(f"\n{'chunked' if chunked else 'content-length'} POST of {size / 2**20:.0f} MB: status {status}, "
          f"{seconds:.2f} s, server RSS {before / 1024:.0f} -> {after / 1024:.0f} MB")
    assert status in (413, None)
    assert after - before < 64 * 1024, (before, after)    # under 64 MB growth for a 200-500 MB body
    # the server still works
    out = _submit(space["url"], f"after-big-post-{chunked}", {"X-Forwarded-For": "192.0.2.1, 192.0.2.200"})
    assert out["ok"] or "rate limit" in out["error"]
