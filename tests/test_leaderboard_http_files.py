"""A served board over plain HTTP (no browser): Gradio's file routes serve nothing outside the allowed
paths, whatever the encoding of the request, and `serve` leaves no download folder behind."""

from __future__ import annotations

import http.client
import os
import subprocess
import sys
import urllib.parse
from pathlib import Path

import pytest
from figbench_leaderboard.screenshots import serving
from figbench_leaderboard.ui.downloads import DOWNLOADS_PREFIX, Downloads

from tests.test_leaderboard_quarantine import _config, _run_event

FIX = Path(__file__).parent / "fixtures" / "leaderboard"
GOLD = FIX / "gold.json"
CANARY = "figbench-canary-7d1e5a"


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("files")
    tmpdir = tmp / "tmpdir"
    tmpdir.mkdir()
    store = tmp / "store"
    secrets = [tmpdir / "secret.txt", tmp / "secret.txt"]   # beside Gradio's cache (tmpdir/gradio: allowed)
    with serving(store, gold_json=GOLD, cwd=tmp, env={"TMPDIR": str(tmpdir), "FIGBENCH_CANARY": CANARY}) as srv:
        for s in secrets:
            s.write_text(CANARY)
        (store / "secret.txt").write_text(CANARY)
        yield {**srv, "tmp": tmp, "tmpdir": tmpdir, "store": store, "secrets": [*secrets, store / "secret.txt"]}


def _get(port: int, target: str) -> tuple[int, bytes]:
    """One GET with the request target sent exactly as given (no client-side normalisation)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.putrequest("GET", target, skip_accept_encoding=True)
        conn.endheaders()
        r = conn.getresponse()
        return r.status, r.read()
    finally:
        conn.close()


def _targets(board: dict) -> list[str]:
    files = [GOLD.resolve(), board["store"] / "leaderboard.sqlite", *board["secrets"], Path("/etc/passwd"),
             Path("/proc/self/environ"), Path("/proc/self/cmdline")]
    paths: list[str] = []
    for f in files:
        a = str(f)
        rel_tmp = os.path.relpath(f, board["tmpdir"] / "gradio")
        paths += [a, urllib.parse.quote(a), urllib.parse.quote(a, safe=""),
                  urllib.parse.quote(urllib.parse.quote(a, safe=""), safe=""),   # double-encoded
                  "/" + a, a.replace("/", "\\"), a.replace("/", "%5c"), rel_tmp, urllib.parse.quote(rel_tmp, safe=""),
                  str(board["tmpdir"] / "gradio" / rel_tmp), a.replace("/", "/./"), a + "%00.png", a + "?x=1",
                  "//" + a.lstrip("/"), "file://" + a, a.replace("/", "%2f").replace(".", "%2e")]
        paths += ["../" * 12 + a.lstrip("/"), "%2e%2e/" * 12 + a.lstrip("/"), "..%2f" * 12 + a.lstrip("/"),
                  "%252e%252e%252f" * 12 + a.lstrip("/"), "....//" * 12 + a.lstrip("/")]
    routes = ["/file=", "/gradio_api/file=", "/gradio_api/file/", "/gradio_api/files=", "/static/", "/assets/",
              "/gradio_api/static/", "/favicon.ico/../", "/gradio_api/upload?path=", "/gradio_api/proxy="]
    return [r + p for r in routes for p in paths]


def test_file_routes_serve_nothing_outside_allowed_paths(board):
    secrets = (CANARY.encode(), b"SQLite format 3", b"root:x:0:0", b"metonymy/wimcor", b"gold_label", GOLD.read_bytes())
    served = leaked = 0
    targets = _targets(board)
    for target in targets:
        status, body = _get(board["port"], target)
        served += status == 200
        found = [s[:20] for s in secrets if s in body]
        assert not found, (target, status, found)
        leaked += bool(found)
    print(f"\n{len(targets)} crafted file-route requests: {served} answered 200 (the page shell or an asset), "
          f"{leaked} leaked anything")
    assert len(targets) >= 500
    # the route is real: a file in Gradio's own cache is served, so each refusal above was Gradio's check
    allowed = board["tmpdir"] / "gradio" / "allowed.txt"
    allowed.parent.mkdir(exist_ok=True)
    allowed.write_text("served")
    assert _get(board["port"], f"/gradio_api/file={allowed}") == (200, b"served")


def test_serve_leaves_no_download_folder(tmp_path):
    tmpdir = tmp_path / "tmpdir"
    tmpdir.mkdir()
    env = {"TMPDIR": str(tmpdir)}

    def folders() -> list[Path]:
        return sorted(tmpdir.glob(f"{DOWNLOADS_PREFIX}*"))

    with serving(tmp_path / "store", gold_json=GOLD, cwd=tmp_path, env=env) as srv:
        assert folders() == []                         # before: an empty folder at every start
        config = _config(srv["url"])
        comps = {c["id"]: c for c in config["components"]}
        dep = next(d for d in config["dependencies"]
                   if any(comps.get(o, {}).get("props", {}).get("elem_id") == "download-file" for o in d["outputs"]))
        data = [comps[i]["props"].get("value") for i in dep["inputs"]]
        _run_event(srv["url"], config, dep["id"], data)   # a download makes the folder
        [made] = folders()
        assert any(made.iterdir())
    # `serving` stops the server with SIGTERM: no exit handlers ran, the folder is still there
    assert folders() == [made]
    with serving(tmp_path / "store", gold_json=GOLD, cwd=tmp_path, env=env):
        assert folders() == []                         # the next start removed its dead predecessor's folder
    assert folders() == []


def test_downloads_folder_is_removed_at_exit(tmp_path):
    code = ("from figbench_leaderboard.ui.downloads import Downloads\n"
            "d = Downloads()\nprint(d.path('.csv'))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "TMPDIR": str(tmp_path)})
    assert out.returncode == 0, out.stderr
    made = Path(out.stdout.strip())
    assert made.parent.name.startswith(DOWNLOADS_PREFIX) and not made.parent.exists()
    d = Downloads()
    folder = d.path(".json").parent
    del d
    import gc

    gc.collect()
    assert not folder.exists()
