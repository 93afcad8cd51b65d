"""Hub dataset store: the template layout, its round trip, and a clear offline error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from figbench_leaderboard.scoring.board import Leaderboard, Limits
from figbench_leaderboard.scoring.gold import JsonGoldProvider
from figbench_leaderboard.store.hub import HubStore, open_store
from figbench_leaderboard.store.hub_layout import (
    HubStoreError,
    import_layout,
    request_path,
    result_path,
    safe_component,
    write_layout,
)
from figbench_leaderboard.store.sqlite import Store

FIX = Path(__file__).parent / "fixtures" / "leaderboard"


def _board(folder):
    return Leaderboard(Store(folder), JsonGoldProvider(FIX / "gold.json"), limits=Limits(n_resamples=50))


def test_safe_component():
    assert safe_component("../../etc") == "_.._etc"
    assert safe_component("..") == "_" and safe_component("") == "_"
    assert "/" not in safe_component("a/b\\c<d>")


def test_layout_roundtrip(tmp_path):
    board = _board(tmp_path / "a")
    sub = json.loads((FIX / "predictions_cdec.json").read_text())
    sub["model"]["name"] = "my-org/lemma <fixture>"
    board.submit(sub)
    board.submit(json.loads((FIX / "predictions_metonymy.json").read_text()))
    board.run_pending()
    pending = json.loads((FIX / "predictions_metonymy.json").read_text())
    pending["model"]["revision"] = "v9"
    board.submit(pending)   # stays PENDING: a request file only

    files = write_layout(board.store, tmp_path / "repo")
    rel = sorted(str(p.relative_to(tmp_path / "repo")) for p in files)
    assert sum(r.startswith("requests/") for r in rel) == 3 and sum(r.startswith("results/") for r in rel) == 2
    assert any(r.startswith("requests/my-org/lemma__fixture__eval_request_abc123_cdec_ecbplus_events_test_")
               for r in rel)
    assert any(r.startswith("results/my-org/lemma__fixture_/results_") for r in rel)
    for p in files:
        assert ".." not in p.relative_to(tmp_path / "repo").parts
    res = json.loads(next(p for p in files if "results/my-org" in str(p)).read_text())
    assert res["config"]["model_name"] == "my-org/lemma <fixture>" and res["config"]["model_sha"] == "abc123"
    assert "conll_f1" in res["results"]["cdec/ecbplus/events/test"]

    copy = Store(tmp_path / "b")
    assert import_layout(copy, tmp_path / "repo") == 3
    assert import_layout(copy, tmp_path / "repo") == 0   # idempotent
    orig = {r["id"]: r for r in board.store.list()}
    for r in copy.list():
        o = orig[r["id"]]
        for k in ("status", "scores", "confidence_intervals", "model_name", "model_revision", "verified", "metadata"):
            assert r[k] == o[k], k
    some = next(r["id"] for r in copy.list() if r["status"] == "PENDING")
    assert copy.get(some, with_predictions=True)["predictions"] == pending["predictions"]


def test_paths_never_escape(tmp_path):
    sub = {"id": "0123456789abcdef", "model_name": "evil/..", "model_revision": "", "task": "cdec",
           "dataset": "ecbplus", "config": "events", "split": "test", "updated_at": 0.0}
    for p in (request_path(sub), result_path(sub)):
        assert ".." not in p.split("/")


def test_offline_hub_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    store = HubStore("figbench/leaderboard-requests", cache_dir=tmp_path)
    with pytest.raises(HubStoreError, match="cannot download the Hub dataset 'figbench/leaderboard-requests'"):
        store.pull()
    board = Leaderboard(store, JsonGoldProvider(FIX / "gold.json"))
    with pytest.raises(HubStoreError, match="cannot write to the Hub dataset"):
        board.submit(json.loads((FIX / "predictions_metonymy.json").read_text()))
    assert store.count() == 0   # not durable on the Hub: not kept locally either
    with pytest.raises(HubStoreError):
        open_store("hf://datasets/figbench/leaderboard-requests")


def test_bad_repo_id(tmp_path):
    with pytest.raises(HubStoreError, match="not a Hub repository id"):
        HubStore("../x", cache_dir=tmp_path)


def test_export_parquet_and_json(tmp_path):
    import pandas as pd
    from figbench_leaderboard.export import export_board

    import datasets

    board = _board(tmp_path / "s")
    board.submit(json.loads((FIX / "predictions_cdec.json").read_text()))
    board.submit(json.loads((FIX / "predictions_metonymy.json").read_text()))
    board.run_pending()
    written = export_board(board.store, tmp_path / "out")
    names = sorted(p.name for p in written)
    assert names == ["README.md", "overview.jsonl", "overview.parquet", "submissions.jsonl", "submissions.parquet"]
    subs = pd.read_parquet(tmp_path / "out" / "submissions.parquet")
    assert len(subs) == 2 and "score.conll_f1" in subs and "ci_low.conll_f1" in subs and "predictions" not in subs
    ov = datasets.load_dataset(str(tmp_path / "out"), "overview", split="train")
    assert sorted(ov["Model"]) == ["lemma-fixture", "majority-baseline"]
    lines = (tmp_path / "out" / "submissions.jsonl").read_text().splitlines()
    assert len(lines) == 2 and json.loads(lines[0])["status"] == "FINISHED"


# --- against a local HTTP server implementing the Hub endpoints the store uses ---------------------

import base64  # noqa: E402
import hashlib  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer  # noqa: E402
from urllib.parse import parse_qs, unquote, urlparse  # noqa: E402

TOKEN = "hf_private_token"


class FakeHub:
    """Dataset repositories over HTTP: tree listing (paginated), resolve, preupload, commit; a private
    repository readable with the token only; a request budget per window answered with 429 + Retry-After."""

    def __init__(self, private: set[str], *, budget: int | None = None, window_s: float = 1.0, page: int = 40):
        self.repos: dict[str, dict[str, bytes]] = {}
        self.private = private
        self.commits: dict[str, int] = {}
        self.requests = 0
        self.throttled = 0
        self.budget, self.window_s, self.page = budget, window_s, page
        self._window: list[float] = []
        self._lock = threading.Lock()
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def _send(self, code: int, body: bytes = b"", ctype: str = "application/json", headers=None):
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)

            def _gate(self, repo: str | None) -> bool:
                with hub._lock:
                    hub.requests += 1
                    now = time.monotonic()
                    hub._window = [t for t in hub._window if now - t < hub.window_s]
                    if hub.budget is not None and len(hub._window) >= hub.budget:
                        hub.throttled += 1
                        self._send(429, b'{"error": "rate limited"}', headers={"Retry-After": "0.2"})
                        return False
                    hub._window.append(now)
                if repo in hub.private and self.headers.get("authorization") != f"Bearer {TOKEN}":
                    self._send(401, b'{"error": "Invalid credentials"}')
                    return False
                if repo is not None and repo not in hub.repos:
                    self._send(404, b'{"error": "Repository not found"}', headers={"X-Error-Code": "RepoNotFound"})
                    return False
                return True

            def do_GET(self):
                u = urlparse(self.path)
                parts = [unquote(p) for p in u.path.strip("/").split("/")]
                if parts[:2] == ["api", "datasets"] and len(parts) >= 6 and parts[4] == "tree":
                    repo = "/".join(parts[2:4])
                    if not self._gate(repo):
                        return
                    files = sorted(hub.repos[repo])
                    start = int(parse_qs(u.query).get("cursor", ["0"])[0])
                    chunk = files[start:start + hub.page]
                    items = [{"type": "file", "path": p, "size": len(hub.repos[repo][p]),
                              "oid": hashlib.sha1(hub.repos[repo][p]).hexdigest()} for p in chunk]
                    headers = {}
                    if start + hub.page < len(files):
                        host = self.headers.get("host")
                        headers["Link"] = (f'<http://{host}{u.path}?recursive=true&cursor={start + hub.page}>; '
                                           'rel="next"')
                    self._send(200, json.dumps(items).encode(), headers=headers)
                elif parts[0] == "datasets" and len(parts) >= 6 and parts[3] == "resolve":
                    repo = "/".join(parts[1:3])
                    if not self._gate(repo):
                        return
                    path = "/".join(parts[5:])
                    if path not in hub.repos[repo]:
                        self._send(404, b'{"error": "Entry not found"}', headers={"X-Error-Code": "EntryNotFound"})
                        return
                    self._send(200, hub.repos[repo][path], "application/octet-stream")
                else:
                    self._send(404, b"{}")

            def do_POST(self):
                parts = [unquote(p) for p in urlparse(self.path).path.strip("/").split("/")]
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                repo = "/".join(parts[2:4]) if parts[:2] == ["api", "datasets"] else None
                if not self._gate(repo):
                    return
                if parts[4] == "preupload":
                    files = json.loads(body)["files"]
                    out = {"files": [{"path": f["path"], "uploadMode": "regular", "shouldIgnore": False, "oid": None}
                                     for f in files]}
                    self._send(200, json.dumps(out).encode())
                elif parts[4] == "commit":
                    for line in body.splitlines():
                        item = json.loads(line)
                        if item["key"] == "file":
                            hub.repos[repo][item["value"]["path"]] = base64.b64decode(item["value"]["content"])
                    hub.commits[repo] = hub.commits.get(repo, 0) + 1
                    oid = hashlib.sha1(body).hexdigest()
                    host = self.headers.get("host")
                    self._send(200, json.dumps({"commitUrl": f"http://{host}/datasets/{repo}/commit/{oid}",
                                                "commitOid": oid,
                                                "pullRequestUrl": None}).encode())
                else:
                    self._send(404, b"{}")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()


@pytest.fixture()
def online(monkeypatch):
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)   # the tests' local Hub is reachable


def _hub_board(hub: FakeHub, cache, **kw):
    store = HubStore("figbench/board", private_repo_id="figbench/board-private", cache_dir=cache, token=TOKEN,
                     endpoint=hub.url, backoff_s=0.05, **kw)
    return Leaderboard(store, JsonGoldProvider(FIX / "gold.json"), limits=Limits(n_resamples=20))


def test_hub_store_batches_commits_and_keeps_predictions_private(online, tmp_path):
    hub = FakeHub(private={"figbench/board-private"})
    hub.repos = {"figbench/board": {}, "figbench/board-private": {}}
    try:
        board = _hub_board(hub, tmp_path / "cache", batch_size=20, batch_interval_s=3600)
        base = json.loads((FIX / "predictions_metonymy.json").read_text())
        base.pop("submitter")
        for i in range(50):
            board.submit(dict(base, model=dict(base["model"], name=f"batched-{i}")))
        board.run_pending()
        board.store.close()                         # pushes what is left
        commits = sum(hub.commits.values())
        print(f"\n50 submissions scored: {commits} Hub commits {hub.commits}")
        # before: one commit per stored submission and one per status change (100 here)
        assert commits <= 12, hub.commits
        public = hub.repos["figbench/board"]
        assert sum(p.startswith("requests/") for p in public) == 50
        assert sum(p.startswith("results/") for p in public) == 50
        for path, data in public.items():
            content = json.loads(data)
            assert "predictions" not in content and "client" not in content, path
        private = hub.repos["figbench/board-private"]
        assert len(private) == 50
        assert all(json.loads(d)["predictions"] == base["predictions"] for d in private.values())
    finally:
        hub.close()


def test_pull_backs_off_on_rate_limits_and_is_incremental(online, tmp_path, caplog):
    hub = FakeHub(private={"figbench/board-private"})
    hub.repos = {"figbench/board": {}, "figbench/board-private": {}}
    try:
        board = _hub_board(hub, tmp_path / "a", batch_size=100, batch_interval_s=3600)
        base = json.loads((FIX / "predictions_metonymy.json").read_text())
        base.pop("submitter")
        for i in range(40):
            board.submit(dict(base, model=dict(base["model"], name=f"m-{i}")))
        board.run_pending()
        pending = board.submit(dict(base, model=dict(base["model"], name="still-pending")))
        board.store.close()
        hub.budget, hub.window_s = 10, 0.5          # the Hub now allows 10 requests per half second
        hub.requests = 0
        fresh = HubStore("figbench/board", private_repo_id="figbench/board-private", cache_dir=tmp_path / "b",
                         token=TOKEN, endpoint=hub.url, backoff_s=0.05)
        with caplog.at_level("WARNING", logger="huggingface_hub"):
            assert fresh.pull() == 41
        # some calls (e.g. listing the repo tree) huggingface_hub retries itself, logging each retry
        library = sum("Retrying in" in r.getMessage() for r in caplog.records if r.name.startswith("huggingface_hub"))
        print(f"\npull of 41 submissions: {hub.requests} requests, {hub.throttled} answered 429, "
              f"{fresh.retries} retried by HubStore, {library} by huggingface_hub")
        assert hub.throttled > 0 and fresh.retries > 0 and fresh.retries + library >= hub.throttled
        rows = {r["model_name"]: r for r in fresh.list()}
        assert rows["m-7"]["status"] == "FINISHED" and rows["m-7"]["scores"]["micro_f1"] == pytest.approx(0.5)
        assert fresh.get(pending["id"], with_predictions=True)["predictions"] == base["predictions"]
        before = hub.requests
        assert fresh.pull() == 0                     # nothing new: listings only, no downloads
        assert hub.requests - before <= 2 + 2 * hub.throttled
    finally:
        hub.close()
