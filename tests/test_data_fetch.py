"""Issue 9: ``figbench data fetch`` downloads a corpus's public files over HTTP and checks their sha256.

A real HTTP server on localhost serves the files; the corpus's ``FILES`` are pointed at it (same paths,
same recorded sha256). With the real ePiC files (when ``../shared/data`` has them) this also checks the
sha256 values the builder holds against the original bytes, and loads the fetched folder. Corrupt
bytes, a missing file on the server and archives (zip, tar, a member escaping the folder, an HTML
page instead of an archive) each end in an error naming the corpus, file and URL, with nothing
partial left behind.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import tarfile
import threading
import zipfile
from collections import Counter
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

import figbench
from figbench import cli
from figbench.corpora import epic
from figbench.corpora.files import ChecksumError, MissingDataError, RemoteFile, fetch, resolve
from tests.conftest import corpus_path
from tests.test_missing_data import OFFLINE_VARS

PROXY_VARS = ("https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY")


class Server:
    """Serves ``root`` on 127.0.0.1 and counts the requests per path."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.requests: Counter[str] = Counter()
        server = self

        class Handler(SimpleHTTPRequestHandler):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, directory=str(root), **kwargs)

            def do_GET(self):
                server.requests[self.path] += 1
                super().do_GET()

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture()
def server(tmp_path, monkeypatch):
    """A local server with downloads allowed (no offline variable, no proxy)."""
    for var in (*OFFLINE_VARS, *PROXY_VARS):
        monkeypatch.delenv(var, raising=False)
    root = tmp_path / "served"
    root.mkdir()
    s = Server(root)
    yield s
    s.close()


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*") if ".download-" in p.name or p.name.endswith(".part"))


@pytest.fixture()
def epic_mirror(server, monkeypatch):
    """The eight original ePiC files served locally; ``epic.FILES`` points there with the recorded sha256."""
    source = corpus_path("epic", epic.DATASET_FILE).parent
    for f in epic.FILES:
        target = server.root / "epic" / f.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((source / f.path).read_bytes())
    local = tuple(dataclasses.replace(f, url=f"{server.url}/epic/{f.path}") for f in epic.FILES)
    monkeypatch.setattr(epic, "FILES", local)
    return source


def test_fetch_downloads_checks_and_loads_the_real_epic_files(epic_mirror, server, tmp_path, capsys):
    folder = tmp_path / "data" / "epic"
    assert cli.main(["data", "fetch", "epic", "--data-dir", str(folder)]) == 0
    assert f"epic: 8 file(s) downloaded into {folder}" in capsys.readouterr().out
    for f in epic.FILES:   # the bytes are the originals, so the builder's recorded sha256 values are right
        got = (folder / f.path).read_bytes()
        assert got == (epic_mirror / f.path).read_bytes() and hashlib.sha256(got).hexdigest() == f.sha256
    assert _leftovers(folder) == []
    assert sum(server.requests.values()) == 8

    assert cli.main(["data", "fetch", "epic", "--data-dir", str(folder)]) == 0   # complete: nothing requested
    assert f"epic: complete in {folder}" in capsys.readouterr().out and sum(server.requests.values()) == 8
    assert cli.main(["data", "fetch", "epic", "--data-dir", str(folder), "--force"]) == 0
    assert sum(server.requests.values()) == 16

    fetched = figbench.load_dataset("epic", "seen", data_dir=str(folder))
    original = figbench.load_dataset("epic", "seen", data_dir=str(epic_mirror))
    assert {s: fetched[s].num_rows for s in fetched} == {s: original[s].num_rows for s in original}
    assert fetched["test"]["id"] == original["test"]["id"]


def test_corrupt_bytes_are_refused_and_nothing_is_left(epic_mirror, server, tmp_path, capsys):
    bad = server.root / "epic" / epic.DATASET_FILE
    bad.write_bytes(bad.read_bytes()[:-10] + b"    ]\n    ")
    folder = tmp_path / "epic"
    assert cli.main(["data", "fetch", "epic", "--data-dir", str(folder)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("figbench: error: epic: checksum mismatch") and "Traceback" not in err
    assert f"{epic.DATASET_FILE} (from {server.url}/epic/{epic.DATASET_FILE})" in err
    assert epic.SHA256[epic.DATASET_FILE] in err and hashlib.sha256(bad.read_bytes()).hexdigest() in err
    assert not (folder / epic.DATASET_FILE).exists() and _leftovers(folder) == []


def test_a_file_missing_on_the_server_names_it_and_keeps_the_others(epic_mirror, server, tmp_path, capsys):
    last = epic.FILES[-1]
    moved = server.root / "held_back"
    (server.root / "epic" / last.path).rename(moved)
    folder = tmp_path / "epic"
    assert cli.main(["data", "fetch", "epic", "--data-dir", str(folder)]) == 1
    err = capsys.readouterr().err
    assert f"Downloading {last.url} failed: HTTPError" in err and str(folder / last.path) in err
    assert "Traceback" not in err and _leftovers(folder) == []
    kept = [f.path for f in epic.FILES if (folder / f.path).is_file()]
    assert kept == [f.path for f in epic.FILES[:-1]]          # what was downloaded stays
    moved.rename(server.root / "epic" / last.path)
    before = sum(server.requests.values())
    assert cli.main(["data", "fetch", "epic", "--data-dir", str(folder)]) == 0
    assert "epic: 1 file(s) downloaded" in capsys.readouterr().out
    assert sum(server.requests.values()) == before + 1        # only the missing file is requested again


def _zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


def _tar(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as t:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    return buf.getvalue()


TOPICS = {"corpus/1/1_1ecb.xml": b"<doc/>", "corpus/2/2_1ecb.xml": b"<doc/>", "corpus/2/2_2ecbplus.xml": b"<x/>"}


@pytest.mark.parametrize("kind", ["zip", "tar.gz"])
def test_an_archive_is_downloaded_once_and_unpacked(kind, server, tmp_path):
    data = _zip(TOPICS) if kind == "zip" else _tar(TOPICS)
    (server.root / f"release.{kind}").write_bytes(data)
    url, sha = f"{server.url}/release.{kind}", hashlib.sha256(data).hexdigest()
    wanted = [RemoteFile(f"corpus/{t}", url, sha, extract=True) for t in ("1", "2")]
    root = tmp_path / "c"
    got = resolve("toy", root, wanted)
    assert got == {f.path: root / f.path for f in wanted}
    assert {p.relative_to(root).as_posix() for p in root.rglob("*.xml")} == set(TOPICS)
    assert server.requests[f"/release.{kind}"] == 1          # two folders, one archive: one download
    assert _leftovers(root) == [] and not any(p.name.startswith("release") for p in root.iterdir())
    assert fetch("toy", root, wanted, force=True) == [root / f.path for f in wanted]
    assert server.requests[f"/release.{kind}"] == 2


@pytest.mark.parametrize("kind", ["zip", "tar.gz"])
def test_an_archive_member_escaping_the_folder_is_refused(kind, server, tmp_path):
    members = {"corpus/1/a.xml": b"<doc/>", "../escaped.txt": b"outside"}
    data = _zip(members) if kind == "zip" else _tar(members)
    (server.root / f"evil.{kind}").write_bytes(data)
    url = f"{server.url}/evil.{kind}"
    root = tmp_path / "deep" / "c"
    with pytest.raises(ValueError, match=r"toy: the archive downloaded from http://127\.0\.0\.1:\d+/evil") as e:
        fetch("toy", root, [RemoteFile("corpus/1", url, hashlib.sha256(data).hexdigest(), extract=True)])
    assert "../escaped.txt" in str(e.value)
    assert not (tmp_path / "deep" / "escaped.txt").exists() and _leftovers(root) == []


def test_a_page_instead_of_an_archive_is_a_clear_error(server, tmp_path):
    """An archive without a recorded sha256 (like ECB+.zip) that turns out to be an HTML page."""
    (server.root / "ECB.zip").write_text("<html><body>rate limited</body></html>")
    root = tmp_path / "c"
    with pytest.raises(ValueError, match="is not a readable zip or tar archive") as e:
        fetch("toy", root, [RemoteFile("corpus/1", f"{server.url}/ECB.zip", None, extract=True)])
    assert f"toy: the archive downloaded from {server.url}/ECB.zip" in str(e.value)
    assert not isinstance(e.value, ChecksumError) and _leftovers(root) == []


def test_offline_nothing_is_requested(server, tmp_path, monkeypatch):
    (server.root / "a.txt").write_text("a")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(MissingDataError, match="offline mode"):
        resolve("toy", tmp_path / "c", [RemoteFile("a.txt", f"{server.url}/a.txt")])
    assert sum(server.requests.values()) == 0


def test_downloads_read_the_proxy_variables_each_time(server, tmp_path, monkeypatch):
    """A download through a proxy that is later unset leaves no trace in the process: urllib's shared opener
    keeps the proxies of its first use, so using it made every later localhost request in a test worker go
    to the closed proxy of test_missing_data (the 'unexplained' refused connects of the Gradio tests)."""
    import urllib.request

    (server.root / "a.txt").write_text("a")
    wanted = [RemoteFile("a.txt", f"{server.url}/a.txt")]
    for var in ("no_proxy", "NO_PROXY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("http_proxy", "http://127.0.0.1:9")   # nothing listens there
    with pytest.raises(MissingDataError, match="Connection refused"):
        resolve("toy", tmp_path / "c", wanted)
    assert sum(server.requests.values()) == 0
    monkeypatch.delenv("http_proxy")
    assert resolve("toy", tmp_path / "c", wanted) == {"a.txt": tmp_path / "c" / "a.txt"}
    with urllib.request.urlopen(f"{server.url}/a.txt", timeout=10) as r:
        assert r.read() == b"a"
