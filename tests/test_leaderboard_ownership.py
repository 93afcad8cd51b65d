"""Issue 20, "a row belongs to whoever made it", against served boards over real HTTP on 127.0.0.1:
model-name ownership (submitter tokens; other client addresses from 127.0.0.x), identities that a
form field cannot choose, the API behind Hugging Face sign-in, TR39 look-alike names, forwarded
addresses (off a Space and with two header lines on one), and an API of exactly two endpoints."""

from __future__ import annotations

import http.client
import json
import sqlite3
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from figbench_leaderboard.screenshots import serving

from tests.http_post import call, send_json

FIX = Path(__file__).parent / "fixtures" / "leaderboard"
GOLD = FIX / "gold.json"
SPACE = {"SPACE_ID": "figbench/leaderboard-test", "SYSTEM": "spaces"}
OAUTH = {**SPACE, "OAUTH_CLIENT_ID": "test-client", "OAUTH_CLIENT_SECRET": "test-secret",
         "OAUTH_SCOPES": "openid profile", "OPENID_PROVIDER_URL": "http://127.0.0.1:9"}
LIMIT = 10
OWNER_TOKEN = "owner-token-0123456789abcdef"
MALLORY_TOKEN = "mallory-token-0123456789abcdef"


def _submission(name: str, revision: str = "v1", submitter: str | None = None) -> str:
    sub = json.loads((FIX / "predictions_metonymy.json").read_text())
    sub.pop("submitter")
    sub["model"]["name"] = name
    sub["model"]["revision"] = revision
    if submitter:
        sub["submitter"] = submitter
    return json.dumps(sub)


def submit(url: str, name: str, *, token: str | None = None, source: str = "127.0.0.1", revision: str = "v1",
           submitter: str | None = None, headers: list[tuple[str, str]] | None = None,
           extra: dict | None = None) -> dict:
    hs = list(headers or []) + ([("X-Figbench-Token", token)] if token else [])
    status, out = call(url, "submit_json", [_submission(name, revision, submitter), ""], hs, source=source,
                       extra=extra)
    assert status == 200, out
    return json.loads(out)


def _rows(store: Path) -> list[dict]:
    from figbench_leaderboard.store.sqlite import Store

    return Store(store).list()


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    """A board off a Space (no proxy): 10 submissions per identity and hour."""
    tmp = tmp_path_factory.mktemp("board")
    with serving(tmp / "store", gold_json=GOLD, cwd=tmp,
                 args=["--rate-limit", str(LIMIT), "--hidden-quota", "0", "--min-changed", "0"]) as srv:
        yield {**srv, "store": tmp / "store"}


def test_takeover_of_a_model_name_is_refused(board):
    """mallory, from another address and with her own token, submits under the owner's model name."""
    url = board["url"]
    first = submit(url, "figbench-lemma", token=OWNER_TOKEN, source="127.0.0.2")
    assert first["ok"], first
    deadline = time.time() + 120
    while (before := [r for r in _rows(board["store"]) if r["model_name"] == "figbench-lemma"])[0]["status"] \
            != "FINISHED" and time.time() < deadline:
        time.sleep(0.3)
    assert before[0]["status"] == "FINISHED"
    for who in ({"token": MALLORY_TOKEN}, {}):   # with her token, or none (then her address is who she is)
        out = submit(url, "figbench-lemma", source="127.0.0.3", revision="v2", **who)
        assert not out["ok"]
        assert "'figbench-lemma' belongs to another submitter" in out["error"], out
    # a look-alike of the owner's name is the owner's too
    for name in ("figbench-Iemma", "figbench-lemm\u0251", "Figbench-Lemma", "figbench-lemm\u0430"):
        out = submit(url, name, token=MALLORY_TOKEN, source="127.0.0.3")
        assert not out["ok"] and "belongs to another submitter" in out["error"] and name in out["error"], out
    after = [r for r in _rows(board["store"]) if r["model_name"] == "figbench-lemma"]
    assert [(r["id"], r["model_revision"], r["scores"]) for r in after] == \
        [(r["id"], r["model_revision"], r["scores"]) for r in before]
    assert not any(r["model_name"] != "figbench-lemma" and "lemm" in r["model_name"].casefold()
                   for r in _rows(board["store"]))
    # the owner keeps submitting under the name, from any address, with the same token
    again = submit(url, "figbench-lemma", token=OWNER_TOKEN, source="127.0.0.4", revision="v2")
    assert again["ok"], again
    # and a token claims a new name of its own
    own = submit(url, "mallory-model", token=MALLORY_TOKEN, source="127.0.0.3")
    assert own["ok"], own


def test_a_submitter_label_is_no_identity(board):
    """Submissions labelled ``alice`` by someone else use up that sender's budget, not alice's."""
    url = board["url"]
    outs = [submit(url, f"label-{i}", source="127.0.0.5", submitter="alice") for i in range(LIMIT + 1)]
    assert [o["ok"] for o in outs] == [True] * LIMIT + [False]
    assert "ip:127.0.0.5" in outs[-1]["error"] and "alice" not in outs[-1]["error"]
    mine = submit(url, "alice-model", source="127.0.0.6", submitter="alice")
    assert mine["ok"], mine


def _page_request(url: str, method: str, path: str, body: bytes | str | None = None,
                  headers: dict | None = None, source: str = "127.0.0.1") -> tuple[int, bytes]:
    """One request as the page makes it, from ``source``."""
    host, port = url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=120, source_address=(source, 0))
    try:
        conn.request(method, path, body=body, headers=headers or {})
        r = conn.getresponse()
        return r.status, r.read()
    finally:
        conn.close()


def form_submit(url: str, text: str, fields: dict, *, source: str = "127.0.0.1") -> str:
    """The Submit tab as the page drives it: upload, join the queue with the handler's index, read the result."""
    status, cfg = _page_request(url, "GET", "/config", source=source)
    cfg = json.loads(cfg)
    dep = next(d for d in cfg["dependencies"] if d.get("api_name") == "submit_form")
    elem = {c["id"]: c["props"].get("elem_id") for c in cfg["components"]}
    boundary = uuid.uuid4().hex
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"files\"; filename=\"sub.json\"\r\n"
            f"Content-Type: application/json\r\n\r\n").encode() + text.encode() + f"\r\n--{boundary}--\r\n".encode()
    status, up = _page_request(url, "POST", "/gradio_api/upload", body,
                               {"Content-Type": f"multipart/form-data; boundary={boundary}"}, source)
    assert status == 200, up
    path = json.loads(up)[0]
    data = []
    for i in dep["inputs"]:
        e = elem[i]
        if e == "submit-file":
            data.append({"path": path, "orig_name": "sub.json", "meta": {"_type": "gradio.FileData"}})
        else:
            data.append(fields.get(e, None if e == "f-type" else ""))
    session = uuid.uuid4().hex[:11]
    join = {"data": data, "fn_index": dep["id"], "session_hash": session, "event_data": None,
            "trigger_id": dep["targets"][0][0]}
    status, out = _page_request(url, "POST", "/gradio_api/queue/join", json.dumps(join),
                                {"Content-Type": "application/json"}, source)
    assert status == 200, out
    host, port = url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=120, source_address=(source, 0))
    conn.request("GET", f"/gradio_api/queue/data?session_hash={session}")
    try:
        r = conn.getresponse()
        while line := r.readline():
            msg = json.loads(line[5:]) if line.startswith(b"data:") else {}
            if msg.get("msg") == "process_completed":
                return msg["output"]["data"][0] if msg.get("success") else json.dumps(msg)
    finally:
        conn.close()
    raise AssertionError("the event stream ended without a result")


def test_the_form_takes_a_submitter_token(board):
    """The Submit tab (driven as the page drives it): a token typed in is the identity, as in the header."""
    text = _submission("form-model")
    ok = form_submit(board["url"], text, {"f-name": "form-model", "f-token": OWNER_TOKEN}, source="127.0.0.9")
    assert "fb-submit-ok" in ok, ok
    other = form_submit(board["url"], text, {"f-name": "form-model", "f-revision": "v9"}, source="127.0.0.10")
    assert "belongs to another submitter" in other and "form-model" in other, other
    # the token's owner, through the API from another address, keeps the name
    assert submit(board["url"], "form-model", token=OWNER_TOKEN, source="127.0.0.10", revision="v9")["ok"]


@pytest.fixture(scope="module")
def local_board(tmp_path_factory):
    """A board off a Space, for one client only: 127.0.0.1 (which uvicorn trusted to forward by default)."""
    tmp = tmp_path_factory.mktemp("local")
    with serving(tmp / "store", gold_json=GOLD, cwd=tmp,
                 args=["--rate-limit", str(LIMIT), "--hidden-quota", "0", "--min-changed", "0"]) as srv:
        yield srv


def test_forged_forwarded_for_off_a_space_is_the_connection(local_board):
    """No proxy off a Space: a forged X-Forwarded-For (each time a new address) changes nothing."""
    outs = [submit(local_board["url"], f"forged-{i}", headers=[("X-Forwarded-For", f"9.9.9.{i}")])
            for i in range(LIMIT + 5)]
    assert sum(o["ok"] for o in outs) == LIMIT
    assert all("ip:127.0.0.1" in o["error"] for o in outs if not o["ok"])


def test_only_the_documented_api_is_served(board):
    from gradio_client import Client

    url = board["url"]
    api = Client(url, verbose=False).view_api(print_info=False, return_format="dict")
    assert set(api["named_endpoints"]) == {"/submit_json", "/submission_status"}
    assert not api["unnamed_endpoints"]
    status, cfg = _page_request(url, "GET", "/config")
    public = {d["api_name"] for d in json.loads(cfg)["dependencies"] if d.get("api_visibility") == "public"}
    assert status == 200 and public == {"submit_json", "submission_status"}
    for name in ("detail", "queue_view", "on_load", "submit_form", "queue_tick", "lambda", "false", "task_tables"):
        for prefix in ("/gradio_api/call/", "/gradio_api/call/v2/", "/gradio_api/run/", "/gradio_api/api/"):
            conn = http.client.HTTPConnection("127.0.0.1", board["port"], timeout=30)
            conn.request("POST", prefix + name, body=json.dumps({"data": [""]}),
                         headers={"Content-Type": "application/json"})
            r = conn.getresponse()
            assert r.status == 404, (prefix, name, r.status, r.read()[:200])
            conn.close()
    # the documented ones answer
    first = submit(url, "status-model", source="127.0.0.8")
    status, out = call(url, "submission_status", [first["submission"]["id"]])
    assert status == 200 and json.loads(out)["ok"]


@pytest.fixture(scope="module")
def space(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("space")
    with serving(tmp / "store", gold_json=GOLD, env=SPACE, cwd=tmp,
                 args=["--rate-limit", str(LIMIT), "--hidden-quota", "0", "--min-changed", "0"]) as srv:
        yield srv


def test_two_forwarded_for_lines_on_a_space_are_one_list(space):
    """The client sends its own X-Forwarded-For line; the proxy's line (the real address) comes after it."""
    outs = [submit(space["url"], f"two-lines-{i}", headers=[("X-Forwarded-For", f"9.9.{i}.1"),
                                                             ("X-Forwarded-For", "203.0.113.7")])
            for i in range(LIMIT + 5)]
    assert sum(o["ok"] for o in outs) == LIMIT
    assert all("ip:203.0.113.7" in o["error"] for o in outs if not o["ok"])


class WhoAmI:
    """The Hub's ``/api/whoami-v2`` over HTTP on 127.0.0.1, for a fixed set of user tokens."""

    def __init__(self, users: dict[str, str]) -> None:
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_GET(self):
                token = (self.headers.get("authorization") or "").removeprefix("Bearer ")
                if self.path.startswith("/api/whoami-v2") and token in users:
                    code, body = 200, {"type": "user", "name": users[token], "auth": {"type": "access_token"}}
                else:
                    code, body = 401, {"error": "Invalid credentials in Authorization header"}
                send_json(self, code, body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()


@pytest.fixture(scope="module")
def oauth_board(tmp_path_factory):
    pytest.importorskip("authlib", reason="gradio[oauth] (authlib) is needed for Hugging Face sign-in")
    hub = WhoAmI({"hf_carol_token": "carol", "hf_dave_token": "dave"})
    tmp = tmp_path_factory.mktemp("oauth")
    env = {**OAUTH, "HF_ENDPOINT": hub.url, "HF_HUB_OFFLINE": "0"}
    try:
        with serving(tmp / "store", gold_json=GOLD, env=env, cwd=tmp,
                     args=["--rate-limit", str(LIMIT), "--hidden-quota", "0", "--min-changed", "0"]) as srv:
            yield {**srv, "store": tmp / "store"}
    finally:
        hub.close()


def session_cookie(username: str, secret: str) -> str:
    """The session cookie Gradio's OAuth callback sets after a Hugging Face sign-in (Starlette's format)."""
    import base64
    import hashlib

    from itsdangerous import TimestampSigner

    key = hashlib.sha256((secret + "-v4").encode()).hexdigest()
    session = {"oauth_info": {"access_token": "hf_session", "expires_at": int(time.time()) + 3600,
                              "scope": "openid profile",
                              "userinfo": {"sub": username, "name": username.title(), "preferred_username": username,
                                           "profile": f"https://huggingface.co/{username}", "picture": ""}}}
    data = base64.b64encode(json.dumps(session).encode())
    return "session=" + TimestampSigner(str(key)).sign(data).decode()


def test_with_sign_in_the_api_needs_a_verified_account(oauth_board):
    url = oauth_board["url"]
    for how in ({}, {"token": OWNER_TOKEN},                          # nobody, or a submitter token only
                {"headers": [("Cookie", session_cookie("mallory", "wrong-secret"))]},   # a forged session
                {"extra": {"oauth_token": "hf_not_a_token"}}):        # a token the Hub does not know
        out = submit(url, "anonymous-model", **how)
        assert not out["ok"] and ("sign in with Hugging Face" in out["error"] or "not accepted" in out["error"]), out
    assert not [r for r in _rows(oauth_board["store"]) if r["model_name"] == "anonymous-model"]
    # a Hugging Face access token (what figbench submit --hf-token sends) is that account
    out = submit(url, "carol-model", extra={"oauth_token": "hf_carol_token"}, submitter="someone-else")
    assert out["ok"], out
    (row,) = [r for r in _rows(oauth_board["store"]) if r["model_name"] == "carol-model"]
    assert row["submitter"] == "carol"   # the account's name, not the label typed in
    # the page's session is an account too; the name stays carol's
    out = submit(url, "carol-model", revision="v2", headers=[("Cookie", session_cookie("dave", "test-secret"))])
    assert not out["ok"] and "belongs to another submitter" in out["error"], out
    out = submit(url, "carol-model", revision="v2", extra={"oauth_token": "hf_carol_token"})
    assert out["ok"], out


def test_figbench_submit_hf_token_to_a_space_with_sign_in(oauth_board, tmp_path):
    """``figbench submit --hf-token`` (gradio_client's oauth_token) submits as that account; a submitter
    token alone is not enough there."""
    from figbench_leaderboard.client import submit as cli_submit
    from figbench_leaderboard.domain.submission import SubmissionError

    path = tmp_path / "sub.json"
    path.write_text(_submission("dave-model"))
    with pytest.raises(SubmissionError, match="sign in with Hugging Face"):
        cli_submit(path, oauth_board["url"], token=OWNER_TOKEN)
    out = cli_submit(path, oauth_board["url"], hf_token="hf_dave_token")
    row = next(r for r in _rows(oauth_board["store"]) if r["id"] == out["id"])
    assert row["model_name"] == "dave-model" and row["submitter"] == "dave"


def test_figbench_submit_sends_its_token(board, tmp_path):
    """``figbench submit --to URL`` sends the token file's token: the name it submits first is its own."""
    from figbench_leaderboard.client import submit as cli_submit
    from figbench_leaderboard.domain.submission import SubmissionError

    path = tmp_path / "sub.json"
    path.write_text(_submission("cli-token-model"))
    token_file = tmp_path / "token"
    out = cli_submit(path, board["url"], token_path=token_file)
    assert out["status"] == "PENDING" or out["status"] in ("FINISHED", "RUNNING"), out
    assert token_file.stat().st_mode & 0o077 == 0 and len(token_file.read_text().strip()) >= 32
    other = tmp_path / "other-token"
    path.write_text(_submission("cli-token-model", revision="v2"))
    with pytest.raises(SubmissionError, match="belongs to another submitter"):
        cli_submit(path, board["url"], token_path=other)
    assert cli_submit(path, board["url"], token_path=token_file)["id"]


def test_figbench_submit_token_option(board, tmp_path, capsys):
    """``figbench submit --to URL --token``: the console command, exit 1 and the reason for someone else."""
    from figbench.cli import main

    path = tmp_path / "sub.json"
    path.write_text(_submission("cli-flag-model"))
    assert main(["submit", str(path), "--to", board["url"], "--token", OWNER_TOKEN]) == 0
    path.write_text(_submission("cli-flag-model", revision="v2"))
    capsys.readouterr()
    assert main(["submit", str(path), "--to", board["url"], "--token", MALLORY_TOKEN]) == 1
    assert "'cli-flag-model' belongs to another submitter" in capsys.readouterr().err
    assert main(["submit", str(path), "--to", board["url"], "--token", OWNER_TOKEN]) == 0


# --- names and the store ------------------------------------------------------------------------

LOOKALIKES = [("figbench-lemma", "figbench-Iemma"), ("figbench-lemma", "figbench-lemm\u0251"),
              ("roberta-large", "r\u0585berta-large"), ("figbench-lemma", "FIGBENCH-LEMMA"),
              ("figbench-lemma", "figbench_lemma"), ("figbench-lemma", "figbench-1emma"),
              ("figbench-lemma", "ｆｉｇｂｅｎｃｈ-lemma"), ("roberta", "r0berta")]


@pytest.mark.parametrize(("name", "other"), LOOKALIKES)
def test_lookalike_names_share_a_tr39_key(name, other):
    from figbench_leaderboard.domain.names import name_keys

    assert set(name_keys(name)) & set(name_keys(other)), (name_keys(name), name_keys(other))


@pytest.mark.parametrize(("name", "other"), [("figbench-lemma", "figbench-llama"), ("bert-base", "bert-large"),
                                             ("model-1", "model-2"), ("xlm-r", "xlm-roberta")])
def test_different_names_do_not_collide(name, other):
    from figbench_leaderboard.domain.names import name_keys

    assert not set(name_keys(name)) & set(name_keys(other))


@pytest.mark.parametrize(("name", "other"), [("figbench-lemma", "figbench-Iemma"),
                                             ("figbench-lemma", "figbench-lemm\u0251"),
                                             ("roberta-large", "r\u0585berta-large")])
def test_lookalike_names_are_refused_by_the_board(tmp_path, name, other):
    from figbench_leaderboard.domain.submission import SubmissionError
    from figbench_leaderboard.scoring.board import Leaderboard
    from figbench_leaderboard.scoring.gold import JsonGoldProvider
    from figbench_leaderboard.store.sqlite import Store

    board = Leaderboard(Store(tmp_path / "s"), JsonGoldProvider(GOLD))
    board.submit(_submission(name))
    with pytest.raises(SubmissionError, match=f"looks like the existing model {name!r}"):
        board.submit(_submission(other))
    assert board.store.count() == 1


def _row(name: str, **kw) -> dict:
    return {"task": "metonymy", "dataset": "wimcor", "config": "sample", "split": "test", "model_name": name,
            "model_type": "other", "sha256": name + str(kw), "metadata": {}, **kw}


def test_store_ownership_and_quota_count_verified_identities(tmp_path):
    from figbench_leaderboard.store.errors import NameOwnedError, RateLimitError
    from figbench_leaderboard.store.limits import Quota
    from figbench_leaderboard.store.sqlite import Store

    store = Store(tmp_path / "s")
    store.add(_row("owned", account="key:aaa", client="ip:10.0.0.1"))
    with pytest.raises(NameOwnedError, match="'owned' belongs to another submitter"):
        store.add(_row("owned", model_revision="v2", account="key:bbb", client="ip:10.0.0.1"))
    store.add(_row("owned", model_revision="v2", account="key:aaa", client="ip:10.0.0.9"))
    # the maintainer's own local submission (no identity) is never refused, and its names are not free
    store.add(_row("owned", model_revision="v3"))
    store.add(_row("maintainers"))
    with pytest.raises(NameOwnedError):
        store.add(_row("maintainers", model_revision="v2", client="ip:10.0.0.2"))
    # a quota on a benchmark: five submissions labelled alice by someone else are that someone's, not alice's
    quota = Quota(max_submissions=5)
    for i in range(5):
        store.add(_row(f"m{i}", submitter="alice", client="ip:10.0.0.3"), quota=quota)
    with pytest.raises(RateLimitError, match="ip:10.0.0.3"):
        store.add(_row("m5", submitter="alice", client="ip:10.0.0.3"), quota=quota)
    store.add(_row("alice-own", submitter="alice", client="ip:10.0.0.4", account="hf:alice"), quota=quota)


def test_old_stores_get_the_new_name_keys(tmp_path):
    """A store written with the earlier skeleton has its keys recomputed on open (figbench-Iemma then collides)."""
    from figbench_leaderboard.store.errors import NameOwnedError
    from figbench_leaderboard.store.sqlite import Store

    store = Store(tmp_path / "s")
    store.add(_row("figbench-lemma", account="key:aaa"))
    store.close()
    db = sqlite3.connect(tmp_path / "s" / "leaderboard.sqlite")
    db.execute("UPDATE submissions SET name_key = 'figbench-lemma', name_key2 = NULL")
    db.execute("DELETE FROM meta WHERE key = 'name_keys'")
    db.commit()
    db.close()
    store = Store(tmp_path / "s")
    with pytest.raises(NameOwnedError, match="looks like the existing model 'figbench-lemma', which belongs"):
        store.add(_row("figbench-Iemma", account="key:bbb"))
