"""A user's first hour (issue 21): results where the user is, a Space that installs offline from its own
folder, and console messages that say what is wrong and what to run."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from figbench.cli import main
from tests.conftest import ROOT


def _busy_port() -> tuple[socket.socket, int]:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen()
    return s, s.getsockname()[1]


# --- baseline run: ./results/<spec>.json, then submit from the same folder ---------------------------

def test_baseline_run_writes_under_the_current_directory_and_submits(data_root, tmp_path, monkeypatch, capsys):
    spec = "cdec_lh_meta_1_dev_small"
    committed = ROOT / "results" / f"{spec}.json"
    before = committed.read_bytes() if committed.is_file() else None
    monkeypatch.setenv("FIGBENCH_DATA_DIR", str(data_root))
    monkeypatch.chdir(tmp_path)
    try:
        assert main(["baseline", "run", spec]) == 0
    finally:  # the old code wrote into the package's parent folder: never leave the checkout changed
        if before is not None and committed.read_bytes() != before:
            committed.write_bytes(before)
    record = json.loads((tmp_path / "results" / f"{spec}.json").read_text())
    assert record["provenance"]["command"].endswith(f"--out results/{spec}.json")
    capsys.readouterr()
    assert main(["submit", f"results/{spec}.json", "--to", "store"]) == 0
    reply = json.loads(capsys.readouterr().out)
    assert reply["status"] == "FINISHED", reply


def test_baseline_run_results_dir_is_what_the_record_names(data_root, tmp_path, monkeypatch):
    spec = "cdec_lh_meta_1_dev_small"
    monkeypatch.setenv("FIGBENCH_DATA_DIR", str(data_root))
    monkeypatch.chdir(tmp_path)
    assert main(["baseline", "run", spec, "--results-dir", "my runs"]) == 0
    record = json.loads((tmp_path / "my runs" / f"{spec}.json").read_text())
    assert record["provenance"]["command"].endswith(f"--out 'my runs/{spec}.json'")
    assert not (tmp_path / "results").exists()


# --- quickstart: the default data root, unknown names, absent corpora ---------------------------------

def test_quickstart_without_variable_names_the_default_root_and_the_fetch_command(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("FIGBENCH_DATA_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert main(["quickstart", "--store", str(tmp_path / "s"), "--no-serve"]) == 1
    err = capsys.readouterr().err
    root = tmp_path / "cache" / "figbench" / "data"
    assert str(root) in err and "default data root" in err
    assert "figbench data fetch ecbmeta ecbplus epic meta4xnli wec_eng wimcor" in err
    assert "set FIGBENCH_DATA_DIR" not in err.split("\n")[0][:60]


def test_quickstart_uses_the_default_data_root(tmp_path, monkeypatch, capsys):
    from tests.conftest import corpus_path

    wimcor = corpus_path("wimcor")
    monkeypatch.delenv("FIGBENCH_DATA_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = tmp_path / "cache" / "figbench" / "data"
    root.mkdir(parents=True)
    (root / "wimcor").symlink_to(wimcor)
    assert main(["quickstart", "--store", str(tmp_path / "s"), "--no-serve", "--no-committed", "--only", "wimcor",
                 "--n-resamples", "10"]) == 0
    assert "no failures" in capsys.readouterr().out


def test_quickstart_only_unknown_name_says_so(tmp_path, monkeypatch, capsys, data_root):
    monkeypatch.setenv("FIGBENCH_DATA_DIR", str(data_root))
    assert main(["quickstart", "--store", str(tmp_path / "s"), "--no-serve", "--only", "ecbplsu"]) == 1
    err = capsys.readouterr().err
    assert "unknown corpus name 'ecbplsu'" in err and "did you mean 'ecbplus'" in err


def test_quickstart_only_absent_corpus_names_it_and_the_fetch_command(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("FIGBENCH_DATA_DIR", str(tmp_path / "data"))
    (tmp_path / "data").mkdir()
    assert main(["quickstart", "--store", str(tmp_path / "s"), "--no-serve", "--only", "wimcor"]) == 1
    err = capsys.readouterr().err
    assert "wimcor is not in the data root" in err and "`figbench data fetch wimcor`" in err


# --- a busy port ---------------------------------------------------------------------------------------

def test_busy_port_is_one_line_not_a_traceback(tmp_path, capsys):
    sock, port = _busy_port()
    with sock:
        assert main(["leaderboard", "serve", "--store", str(tmp_path / "store"), "--port", str(port)]) == 1
    err = capsys.readouterr().err
    assert f"port {port} is in use" in err and "choose one with --port / make run PORT=N" in err
    assert "Traceback" not in err and "GRADIO_SERVER_PORT" not in err


def test_quickstart_checks_the_port_before_running(tmp_path, monkeypatch, capsys, data_root):
    monkeypatch.setenv("FIGBENCH_DATA_DIR", str(data_root))
    sock, port = _busy_port()
    with sock:
        t0 = time.perf_counter()
        assert main(["quickstart", "--store", str(tmp_path / "s"), "--only", "wimcor", "--port", str(port)]) == 1
    assert time.perf_counter() - t0 < 30
    captured = capsys.readouterr()
    assert f"port {port} is in use" in captured.err and "[1/" not in captured.out


# --- the Space folder: installs offline from its own folder, and says where it serves -----------------

def _fresh_venv(where: Path) -> Path:
    """A venv without pip or packages whose .pth reaches this interpreter's packages except figbench (a folder
    of links to them), so installing into it needs no network and figbench must come from what is installed."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True, timeout=120)
    deps = where.parent / f"{where.name}-deps"
    deps.mkdir()
    for parent in (Path(p) for p in sys.path if p.endswith("site-packages") and Path(p).is_dir()):
        for entry in parent.iterdir():
            if not entry.name.lower().startswith(("figbench", "__editable__")) and not (deps / entry.name).exists():
                (deps / entry.name).symlink_to(entry)
    site = next((where / "lib").glob("python3*/site-packages"))
    (site / "zz_deps.pth").write_text(f"{deps}\n")
    return where / "bin" / "python"


REPACK = """import sys
from importlib import metadata
from pathlib import Path
from figbench.commands.wheel import repack_installed, wheel_of_running
print(wheel_of_running(sys.argv[1]))
print(repack_installed(metadata.distribution("figbench"), Path(sys.argv[2])))
"""


def _same_wheel_contents(built: Path, repacked: Path) -> None:
    """Every file of ``built`` is in ``repacked`` with the same bytes (RECORD aside), and pip's RECORD is valid."""
    import base64
    import hashlib
    import zipfile

    with zipfile.ZipFile(built) as a, zipfile.ZipFile(repacked) as b:
        names = {n for n in a.namelist() if not n.endswith("/RECORD")}
        assert names == {n for n in b.namelist() if not n.endswith("/RECORD")}
        for n in names:
            assert a.read(n) == b.read(n), n
        record = next(n for n in b.namelist() if n.endswith(".dist-info/RECORD"))
        for row in b.read(record).decode().splitlines():
            path, digest, size = row.rsplit(",", 2)
            if path != record:
                data = b.read(path)
                want = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                assert (digest, int(size)) == (want, len(data)), path


@pytest.mark.ci_stage   # the Space's wheel built, installed into a fresh venv and served (20 s): in make test-ci,
# beside .ci/wheel_smoke.sh's Space check (test_wheel.py); make test writes a Space folder in test_leaderboard_hidden
@pytest.mark.slow
def test_space_folder_installs_this_version_offline_and_serves(tmp_path, monkeypatch):
    space = tmp_path / "space"
    out = subprocess.run([sys.executable, "-m", "figbench.cli", "leaderboard", "space", "--out", str(space)],
                         cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    wheels = list(space.glob("figbench-*.whl"))
    assert len(wheels) == 1
    reqs = (space / "requirements.txt").read_text()
    assert reqs == f"./{wheels[0].name}[board]\n"   # the board's extra only: no torch, no extra index (issue 36)
    import figbench

    assert wheels[0].name.startswith(f"figbench-{figbench.__version__}-")
    py = _fresh_venv(tmp_path / "venv")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    inst = subprocess.run([str(py), "-m", "pip", "install", "--no-index", "-r", "requirements.txt"], cwd=space,
                          env=env, capture_output=True, text=True, timeout=600)
    assert inst.returncode == 0, inst.stdout[-2000:] + inst.stderr[-3000:]
    where = subprocess.run([str(py), "-c", "import figbench_leaderboard as m; print(m.__file__)"], cwd=space,
                           env=env, capture_output=True, text=True, timeout=120)
    assert str(tmp_path / "venv") in where.stdout, where
    # from that install: the wheel it came from (still there), and the installed files repacked as a wheel
    again = subprocess.run([str(py), "-c", REPACK, str(tmp_path / "again"), str(tmp_path / "repacked")], cwd=space,
                           env=env, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr[-3000:]
    copied, repacked = (Path(x) for x in again.stdout.split())
    assert copied.read_bytes() == wheels[0].read_bytes()
    assert repacked.name == wheels[0].name
    _same_wheel_contents(wheels[0], repacked)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env.update(PORT=str(port), GRADIO_SERVER_NAME="127.0.0.1", FIGBENCH_LEADERBOARD_STORE=str(tmp_path / "store"),
               GRADIO_ANALYTICS_ENABLED="False")
    app = subprocess.Popen([str(py), "app.py"], cwd=space, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    try:
        line = app.stdout.readline()   # the first line it prints is where it serves
        assert f"http://127.0.0.1:{port}" in line, (line, app.poll())
        direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))   # never a proxy for localhost
        with direct.open(f"http://127.0.0.1:{port}/", timeout=30) as r:
            assert "figbench" in r.read().decode("utf-8", "replace").lower()
    finally:
        app.terminate()
        app.wait(30)


# --- score coref on a tiny input: one consistent statement, once ---------------------------------------

TWO_CLUSTERS_KEY = """#begin document (d1); part 000
d1 0 0 a (1)
d1 0 1 b (1)
d1 0 2 c (2)
d1 0 3 d (2)
d1 0 4 e (1)
#end document
"""


def test_score_coref_on_two_clusters_says_jackknife_once(tmp_path, capsys):
    key, response = tmp_path / "key.conll", tmp_path / "response.conll"
    key.write_text(TWO_CLUSTERS_KEY)
    response.write_text(TWO_CLUSTERS_KEY.replace("c (2)", "c (1)"))
    assert main(["score", "coref", str(key), str(response), "--n-resamples", "100"]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("F1 95%"))
    assert "jackknife over 2 key clusters in 2 groups" in header and "100 bootstrap resamples" in header
    assert "20 groups" not in out and "2 resamples" not in out
    warnings = [line for line in out.splitlines() if line.startswith("WARNING")]
    assert len(warnings) == len(set(warnings)) == 1, warnings
    assert out.count("delete-a-group jackknife over key clusters (2 key clusters in 2 groups") == 1
    assert out.count("only 2 key clusters to resample") == 1


# --- conll_coref.compute() without inputs --------------------------------------------------------------

@pytest.fixture(scope="module")
def conll_coref():
    import evaluate

    import figbench

    return evaluate.load(figbench.metric_path("conll_coref"))


@pytest.mark.parametrize("kwargs", [{}, {"predictions": None, "references": None}])
def test_conll_coref_compute_without_inputs_says_what_is_missing(conll_coref, kwargs):
    with pytest.raises(ValueError, match=r"needs predictions= and references=.*key_file= and response_file="):
        conll_coref.compute(**kwargs)


@pytest.mark.parametrize(("given", "missing"), [("predictions", "references"), ("references", "predictions")])
def test_conll_coref_compute_with_one_side_names_the_other(conll_coref, given, missing):
    with pytest.raises(ValueError, match=f"{missing}= is missing"):
        conll_coref.compute(**{given: [[["a", "b"]]]})


def test_conll_coref_files_without_empty_lists(conll_coref, tmp_path):
    key = tmp_path / "key.conll"
    key.write_text(TWO_CLUSTERS_KEY)
    assert conll_coref.compute(key_file=str(key), response_file=str(key))["conll_f1"] == 1.0


# --- data prepare: every config by default --------------------------------------------------------------

BARE_LOAD = """import sys, datasets
for config in sys.argv[2:]:
    d = datasets.load_dataset("ecbmeta", config, cache_dir=sys.argv[1])
    print(config, sum(s.num_rows for s in d.values()))
assert "figbench" not in sys.modules
"""


@pytest.mark.slow
def test_data_prepare_without_config_prepares_every_config(data_root, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("FIGBENCH_DATA_DIR", str(data_root))
    cache = tmp_path / "cache"
    assert main(["data", "prepare", "ecbmeta", "--cache-dir", str(cache)]) == 0
    out = capsys.readouterr().out
    from figbench.loading import builder_configs

    configs = builder_configs("ecbmeta")[0]
    assert all(f"prepared ecbmeta/{c}:" in out for c in configs), out
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    bare = subprocess.run([sys.executable, "-I", "-c", BARE_LOAD, str(cache), *configs], env=env,
                          capture_output=True, text=True, timeout=300)
    assert bare.returncode == 0, bare.stderr[-3000:]
    assert "meta_1 277" in bare.stdout


def test_data_prepare_names_the_command_for_a_config_it_could_not_build(tmp_path, monkeypatch, capsys):
    """A Meta4XNLI folder without the VUA and CoMeta files: the other configs are prepared, those two are
    named with the commands that get their files and prepare them."""
    from tests.conftest import corpus_path

    folder = tmp_path / "meta4xnli"
    folder.mkdir()
    (folder / "meta4xnli").symlink_to(corpus_path("meta4xnli", "meta4xnli"))
    monkeypatch.setenv("FIGBENCH_OFFLINE", "1")
    code = main(["data", "prepare", "meta4xnli", "--data-dir", str(folder), "--cache-dir", str(tmp_path / "c")])
    out = capsys.readouterr().out
    assert code == 0 and "prepared meta4xnli/detection_en:" in out and "prepared meta4xnli/interpretation:" in out
    for config in ("vua", "cometa"):
        line = next(x for x in out.splitlines() if f"not prepared meta4xnli/{config}:" in x)
        assert f"`figbench data fetch meta4xnli`, then `figbench data prepare meta4xnli {config}`" in line
        assert ":;" not in line


# --- missing data in an empty folder: a summary, not one line per file -----------------------------------

def test_missing_ecbplus_in_an_empty_folder_is_summarised(tmp_path, monkeypatch):
    from figbench.corpora.files import MissingDataError
    from figbench.loading import load_dataset

    (tmp_path / "ecbplus").mkdir()
    monkeypatch.setenv("FIGBENCH_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("FIGBENCH_OFFLINE", "1")
    with pytest.raises(MissingDataError) as info:
        load_dataset("ecbplus", "events", cache_dir=str(tmp_path / "cache"))
    lines = str(info.value).splitlines()
    assert len(lines) <= 12, "\n".join(lines)
    text = "\n".join(lines)
    assert "ecbplus: 45 required file(s) not found" in text
    assert f"{tmp_path / 'ecbplus' / 'ECB+' / '1'}" in text and "... and 42 more in" in text
    assert "ECB+/2, ECB+/3" in text and "ECB%2B.zip" in text
    assert "`figbench data fetch ecbplus`" in lines[-1]


# --- quickstart output: one line per run, the full tables behind --verbose --------------------------------

def test_quickstart_prints_one_line_per_run_and_a_summary(data_root, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("FIGBENCH_DATA_DIR", str(data_root))
    args = ["quickstart", "--store", str(tmp_path / "s"), "--no-serve", "--no-committed", "--only", "wimcor",
            "--n-resamples", "10"]
    assert main(args) == 0
    out = capsys.readouterr().out.strip().splitlines()
    runs = [line for line in out if line.startswith("[")]
    assert len(runs) == 3 and all("submitted: FINISHED" in line for line in runs), out
    assert all("macro_f1" in line or "accuracy" in line or "f1" in line for line in runs), runs
    assert len(out) <= len(runs) + 3 + len(runs) + 1, "\n".join(out)   # runs, the summary's rows and counts
    assert not any("wall time" in line for line in out)
    assert main([*args, "--force", "--verbose"]) == 0
    verbose = capsys.readouterr().out
    assert "wall time" in verbose and "figbench baseline trivial" in verbose


def test_quickstart_summary_columns_fit_long_names(capsys):
    from figbench.commands.quickstart import Outcome, print_summary

    outcomes = [Outcome("x" * 60, "submitted", 1.5, "FINISHED", "conll_f1 70.1"),
                Outcome("short", "stored", 0.0, "submission 12345678"),
                Outcome("y" * 45, "failed", 12.25, "exit 1")]
    print_summary(outcomes, 14.0)
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("  ")][:3]
    assert len({row.index(" s  ") for row in rows}) == 1, rows   # seconds line up whatever the name's length
    assert len({row.index(status) for row, status in zip(rows, ("submitted", "stored", "failed"))}) == 1, rows


# --- the board's Overview: the models of the selected group, the others a click away ---------------------

def _board_with_two_groups(tmp_path):
    """A store with two models on the group's benchmark and three on another benchmark only."""
    import hashlib

    from figbench_leaderboard.scoring.board import Leaderboard
    from figbench_leaderboard.store.sqlite import Store

    from figbench.tasks import benchmarks

    board = Leaderboard(Store(tmp_path / "store"))
    groups = board.registry.groups()
    (g1, b1), (g2, b2) = ((g, bs[0]) for g, bs in list(groups.items())[:2])
    headline = {b.key: board.registry.headline(b) for b in benchmarks()}
    for i, (name, bench) in enumerate([("in-a", b1), ("in-b", b1), ("out-a", b2), ("out-b", b2), ("out-c", b2)]):
        task, dataset, config, split = bench.key.split("/")
        board.store.add({"task": task, "dataset": dataset, "config": config, "split": split, "model_name": name,
                         "model_revision": "", "model_type": "other", "verified": 1, "status": "FINISHED",
                         "sha256": hashlib.sha256(name.encode()).hexdigest(),
                         "scores": {headline[bench.key]: 0.5 + i / 100}}, limits=False)
    return board, g1, g2


def test_overview_rows_are_the_group_models(tmp_path):
    from figbench_leaderboard.ui import tables

    board, g1, g2 = _board_with_two_groups(tmp_path)
    ov = tables.overview(board.store.list(), board.registry, g1)
    assert set(ov["Model"]) == {"in-a", "in-b", "out-a", "out-b", "out-c"}     # every model: the full table
    assert set(tables.in_group(ov, board.registry, g1)["Model"]) == {"in-a", "in-b"}
    assert set(tables.in_group(tables.overview(board.store.list(), board.registry, g2), board.registry, g2)["Model"]) \
        == {"out-a", "out-b", "out-c"}
    every = tables.overview(board.store.list(), board.registry, tables.ALL_GROUPS)
    assert len(tables.in_group(every, board.registry, tables.ALL_GROUPS)) == 5


def test_overview_page_shows_the_group_and_toggles_to_all(tmp_path):
    """The app's overview handler (as the page calls it): the group's models and a note; "All models": all."""
    from figbench_leaderboard.ui.app import build_app

    board, g1, _ = _board_with_two_groups(tmp_path)
    demo = build_app(board)
    toggle = next(b._id for b in demo.blocks.values() if getattr(b, "elem_id", None) == "show-all-models")
    fn = next(f for f in demo.fns.values() if any(t[0] == toggle for t in f.targets))   # the toggle's change
    inputs = [b.value for b in fn.inputs]
    group_at = next(i for i, b in enumerate(fn.inputs) if getattr(b, "elem_id", None) == "group-select")
    toggle_at = next(i for i, b in enumerate(fn.inputs) if b._id == toggle)
    inputs[group_at] = g1
    page = fn.fn(*inputs)
    assert "in-a" in page and "in-b" in page and "out-a" not in page
    assert "3 models without a benchmark of" in page and "All models" in page
    inputs[toggle_at] = True
    page = fn.fn(*inputs)
    assert all(name in page for name in ("in-a", "in-b", "out-a", "out-b", "out-c"))
    assert "without a benchmark of" not in page


# --- README: which Python builds, and the port -----------------------------------------------------------

def test_readme_builds_with_the_venv_python_which_setup_gives_build():
    import tomllib

    readme = (ROOT / "README.md").read_text()
    install = readme[readme.index("## Install as a package"):readme.index("## Data")]
    assert ".venv/bin/python -m build" in install and "\npython -m build" not in install
    for command in ("figbench baseline run cdec_lh_meta_m_test", "figbench submit results/cdec_lh_meta_m_test.json",
                    "figbench leaderboard space --out space", "pip install -r requirements.txt"):
        assert command in install, command
    assert "make run PORT=" in readme
    dev = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["dev"]
    assert any(d.split(">")[0].split("=")[0].strip() == "build" for d in dev)   # make setup: pip install -e .[all,dev]
    assert '-e ".[all,dev]"' in (ROOT / "Makefile").read_text()


def test_the_running_wheel_is_found_past_a_checkout_egg_info(tmp_path, monkeypatch):
    """A source checkout's figbench.egg-info (left by `pip install -e`) on sys.path before site-packages
    (a current directory) is not the installed figbench: its metadata has no RECORD to repack."""
    from figbench.commands.wheel import installed_distribution

    egg = tmp_path / "figbench.egg-info"
    egg.mkdir()
    (egg / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: figbench\nVersion: 0.1.0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    from importlib import metadata

    assert str(metadata.distribution("figbench")._path).endswith(".egg-info")   # what the old code used
    assert installed_distribution().read_text("RECORD") is not None
