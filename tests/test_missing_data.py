"""Issue 9: every missing-data error names the corpus, the folder, the missing files, what to set and the URLs.

For each corpus (its default config, and the configs that read other files) with an empty folder as
``data_dir``: offline (``HF_HUB_OFFLINE=1``), and with every offline variable unset, when the download
is attempted and fails at once (the tests point ``https_proxy`` at a closed local port, so they never
download anything, even where the network is open). Through ``figbench.load_dataset`` and through the
CLI (``figbench data stats``), which must print ``figbench: error:`` and no traceback.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import figbench
from figbench.corpora import epic, wec_eng
from figbench.corpora.files import MissingDataError
from tests.conftest import FIXTURES, ROOT
from tests.corpus_cases import MissingCase, has_public_url, missing_cases

OFFLINE_VARS = ("FIGBENCH_OFFLINE", "HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE")
#: Nothing listens there: a download fails at once, like an unresolvable host.
CLOSED_PROXY = "http://127.0.0.1:9"
URL_IN_CONTEXT = re.compile(r"\(from https://\S+\)")


Case = MissingCase
#: every corpus's cases, as it declares them (``MISSING`` in ``tests/fixtures/<corpus>/cases.py``, else the
#: default config naming every file of its ``FILES``)
CASES = missing_cases()


def _check_message(text: str, case: Case, folder: Path, online: bool) -> None:
    assert f"{case.corpus}:" in text, text
    assert str(folder) in text
    from figbench.corpora.files import LISTED_FIRST, LISTED_MAX

    named = case.files if len(case.files) <= LISTED_MAX else case.files[:LISTED_FIRST]   # a long run: summarised
    for rel in named:
        assert str(folder / rel) in text, f"{rel} not named:\n{text}"
    if len(case.files) > LISTED_MAX:
        assert f"{len(case.files)} required file(s)" in text and f"and {len(case.files) - LISTED_FIRST} more in" in text
    assert "FIGBENCH_DATA_DIR" in text and "data_dir" in text
    public = has_public_url(case.corpus)
    assert URL_IN_CONTEXT.search(text) if public else "(no public URL" in text, text
    for phrase in case.phrases:
        assert phrase in text, phrase
    if online:
        assert re.search(r"Downloading https://\S+ failed", text) if public else "No public URL" in text, text
    else:
        assert "offline mode (HF_HUB_OFFLINE is set" in text, text


@pytest.fixture(params=["offline", "online"])
def mode(request, monkeypatch, tmp_path) -> str:
    """Offline, or online with downloads failing at once; an empty data root either way."""
    for var in OFFLINE_VARS:
        monkeypatch.delenv(var, raising=False)
    if request.param == "offline":
        monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    else:
        for var in ("https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY"):
            monkeypatch.setenv(var, CLOSED_PROXY)
        for var in ("no_proxy", "NO_PROXY"):
            monkeypatch.delenv(var, raising=False)
    root = tmp_path / "data_root"
    root.mkdir()
    monkeypatch.setenv("FIGBENCH_DATA_DIR", str(root))  # no ECB+ there for ecbmeta either
    return request.param


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_load_dataset_names_everything(case, mode, tmp_path):
    folder = tmp_path / case.corpus
    folder.mkdir()
    with pytest.raises(MissingDataError) as err:
        figbench.load_dataset(case.corpus, case.config, data_dir=str(folder), cache_dir=str(tmp_path / "cache"),
                              **case.kwargs)
    _check_message(str(err.value), case, folder, mode == "online")
    assert not [p for p in folder.rglob("*") if p.is_file()], "a failed download left a file behind"


def test_wec_train_split_missing_beside_the_others(mode, tmp_path):
    """Validation and test are there, train is not: asking for it names the Hub file and says it is online-only."""
    folder = tmp_path / "wec_eng"
    folder.mkdir()
    for name in ("Dev_Event_gold_mentions_validated.json", "Test_Event_gold_mentions_validated.json"):
        shutil.copy(FIXTURES / "wec_eng" / "original" / name, folder / name)
    with pytest.raises(MissingDataError) as err:
        figbench.load_dataset("wec_eng", "events", split="train", data_dir=str(folder), cache_dir=str(tmp_path / "c"))
    text = str(err.value)
    case = Case("wec_eng", "events", (wec_eng.ORIGINAL_FILES["train"],), phrases=("exists only online",))
    for piece in ("wec_eng:", str(folder / "Train_Event_gold_mentions.json"), "FIGBENCH_DATA_DIR", "data_dir",
                  f"(from {wec_eng.TRAIN_URL})", "exists only online", "Available splits: validation, test"):
        assert piece in text, piece
    assert case.files[0] in text


# ------------------------------------------------------------------------------------------- CLI


def _env(tmp_path: Path, mode: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("HF_", "FIGBENCH_", "PYTHON")) and k.lower() not in ("https_proxy", "http_proxy",
                                                                                      "no_proxy")}
    root = tmp_path / "data_root"
    root.mkdir(exist_ok=True)
    env.update(FIGBENCH_DATA_DIR=str(root), HF_HOME=str(tmp_path / "hf_home"), XDG_CACHE_HOME=str(tmp_path / "xdg"),
               HF_DATASETS_CACHE=str(tmp_path / "hf_datasets"), OMP_NUM_THREADS="1", PYTHONPATH=str(ROOT))
    if mode == "offline":
        env["HF_HUB_OFFLINE"] = "1"
    else:
        env.update(https_proxy=CLOSED_PROXY, HTTPS_PROXY=CLOSED_PROXY, http_proxy=CLOSED_PROXY,
                   HTTP_PROXY=CLOSED_PROXY)
    return env


def _cli(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "figbench.cli", *args], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=300)


@pytest.mark.parametrize("case", [c for c in CASES if not c.kwargs], ids=lambda c: c.id)
def test_cli_stats_names_everything(case, mode, tmp_path, capsys):
    """The CLI's own entry point (``figbench.cli.main``) in this process, for every corpus; that a fresh
    ``python -m figbench.cli`` process prints the same without a traceback is checked below (WEC-Eng train)."""
    from figbench import cli

    folder = tmp_path / case.corpus
    folder.mkdir()
    code = cli.main(["data", "stats", case.corpus, case.config, "--data-dir", str(folder), "--no-mtld"])
    out = capsys.readouterr()
    assert code == 1, out.err[-3000:]
    assert "Traceback" not in out.err and "Traceback" not in out.out
    assert out.err.startswith("figbench: error:")
    _check_message(out.err, case, folder, mode == "online")


@pytest.mark.parametrize("mode_name", ["offline", "online"])
def test_cli_stats_wec_train_split(mode_name, tmp_path, monkeypatch, capsys):
    """Offline in a fresh ``python -m figbench.cli`` process (exit status, no traceback); online through the
    CLI's entry point in this process (a fresh process would spend its ~7 s importing spaCy and torch again)."""
    folder = tmp_path / "wec_eng"
    shutil.copytree(FIXTURES / "wec_eng" / "original", folder)
    (folder / "Train_Event_gold_mentions.json").unlink()
    args = ["data", "stats", "wec_eng", "--data-dir", str(folder), "--split", "train", "--no-mtld"]
    env = _env(tmp_path, mode_name)
    if mode_name == "offline":
        proc = _cli(args, env)
        code, err = proc.returncode, proc.stderr
    else:
        from figbench import cli

        for var in (*OFFLINE_VARS, "no_proxy", "NO_PROXY"):
            monkeypatch.delenv(var, raising=False)
        for var in ("FIGBENCH_DATA_DIR", "https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY"):
            monkeypatch.setenv(var, env[var])
        code, err = cli.main(args), capsys.readouterr().err
    assert code == 1 and "Traceback" not in err, err[-3000:]
    assert err.startswith("figbench: error:") or "\nfigbench: error:" in err
    for piece in (str(folder / "Train_Event_gold_mentions.json"), f"(from {wec_eng.TRAIN_URL})",
                  "exists only online", "FIGBENCH_DATA_DIR", "data_dir"):
        assert piece in err, piece


def test_cli_fetch_offline_is_a_clear_error(tmp_path):
    env = _env(tmp_path, "offline")
    for corpus in figbench.CORPORA:
        folder = tmp_path / f"fetch_{corpus}"
        proc = _cli(["data", "fetch", corpus, "--data-dir", str(folder)], env)
        assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
        assert proc.stderr.startswith("figbench: error:") and f"{corpus}:" in proc.stderr
        assert "offline mode (HF_HUB_OFFLINE is set" in proc.stderr and str(folder) in proc.stderr
        assert URL_IN_CONTEXT.search(proc.stderr) if has_public_url(corpus) else "(no public URL" in proc.stderr
    proc = _cli(["data", "fetch", "epic", "--data-dir", str(tmp_path / "f"), "--force"], env)
    assert proc.returncode == 1 and "offline mode" in proc.stderr and "Traceback" not in proc.stderr


def test_cli_fetch_online_failure_names_every_file(tmp_path):
    folder = tmp_path / "epic"
    proc = _cli(["data", "fetch", "epic", "--data-dir", str(folder)], _env(tmp_path, "online"))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert re.search(r"Downloading https://\S+ failed", proc.stderr)
    from figbench.corpora.files import LISTED_FIRST

    for name in epic.FILE_NAMES[:LISTED_FIRST]:   # the first few by path, the rest counted and named (issue 21)
        assert str(folder / name) in proc.stderr
    assert f"and {len(epic.FILE_NAMES) - LISTED_FIRST} more in {folder}" in proc.stderr


def test_cli_where_lists_every_corpus(tmp_path):
    proc = _cli(["data", "where", "--json"], _env(tmp_path, "offline"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout)
    assert set(out["corpora"]) == set(figbench.CORPORA)
    assert out["data_root"] == str(tmp_path / "data_root")
    for name, info in out["corpora"].items():
        assert info["folder"] == str(tmp_path / "data_root" / name)
        assert info["files"] > 0 and len(info["missing"]) == info["files"], name


@pytest.mark.parametrize("allowed", [False, True], ids=["offline", "online"])
def test_a_file_without_public_url_says_so_and_is_never_downloaded(allowed, tmp_path):
    from figbench.corpora.files import RemoteFile, resolve

    f = RemoteFile("idioms.tsv", "", None, description="ask the authors for idioms.tsv")
    with pytest.raises(MissingDataError) as err:
        resolve("newcorpus", tmp_path, [f], download=allowed)
    text = str(err.value)
    assert str(tmp_path / "idioms.tsv") in text and "(no public URL: ask the authors for idioms.tsv)" in text
    assert ("No public URL to download idioms.tsv" in text) == allowed
    assert not list(tmp_path.iterdir())
