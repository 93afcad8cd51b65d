"""CONTRIBUTING.md's worked example is what CI runs.

Every fenced block of CONTRIBUTING.md whose info string names a ``path=`` is copied verbatim into a
scratch copy of the repository; there, with that copy's packages imported (``python -S`` with the
scratch folders first on the path, so no installed or editable figbench is seen), the new corpus
(no public URL), its label task and its trivial baselines must work end to end, and the every-corpus
and every-task tests must pass for them.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

BLOCK = re.compile(r"^```[\w-]+ path=(?P<path>\S+)\n(?P<body>.*?)^```$", re.M | re.S)
#: the repository folders a scratch copy needs, and the import names setup.py gives them
COPIED = ("figbench", "datasets", "baselines", "leaderboard", "metrics", "tests")
PACKAGES = {"figbench_datasets": "datasets", "figbench_baselines": "baselines",
            "figbench_leaderboard": "leaderboard", "figbench_metrics": "metrics"}

pytestmark = pytest.mark.ci_stage


def example_files() -> dict[str, str]:
    return {m["path"]: m["body"] for m in BLOCK.finditer((ROOT / "CONTRIBUTING.md").read_text("utf-8"))}


def test_the_example_is_complete_and_new():
    files = example_files()
    assert {"figbench/corpora/idiomsent.py", "datasets/idiomsent/idiomsent.py", "datasets/idiomsent/README.md",
            "figbench/tasks/idiom_sense.py", "baselines/idiomsent/specs.py", "tests/fixtures/idiomsent/cases.py",
            "tests/fixtures/idiomsent/train.tsv", "tests/fixtures/idiomsent/test.tsv"} <= set(files)
    clash = [p for p in files if (ROOT / p).exists()]
    assert not clash, f"the example's files already exist in the repository: {clash}"


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("contributing") / "repo"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".figbench", "screenshots")
    for folder in COPIED:
        shutil.copytree(ROOT / folder, root / folder, ignore=ignore)
    for name in ("pyproject.toml", "setup.py"):
        shutil.copy(ROOT / name, root / name)
    for path, body in example_files().items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(body, "utf-8")
    pkgs = root / "_packages"
    pkgs.mkdir()
    for name, folder in PACKAGES.items():
        (pkgs / name).symlink_to(root / folder, target_is_directory=True)
    return root


def _run(scratch: Path, tmp_path: Path, *args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    """``python -S ARGS`` in the scratch copy: its folders first, then the installed third-party packages."""
    sites = [p for p in sys.path if p and ("site-packages" in p or "dist-packages" in p) and Path(p).is_dir()]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update(PYTHONPATH=os.pathsep.join([str(scratch), str(scratch / "_packages"), *sites]),
               HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", FIGBENCH_DATA_DIR=str(tmp_path / "data"),
               HF_DATASETS_CACHE=str(tmp_path / "hf"), HF_MODULES_CACHE=str(tmp_path / "modules"))
    for var in ("FIGBENCH_TEST_DATASETS_CACHE", "FIGBENCH_TEST_MODULES_CACHE", "FIGBENCH_CACHE"):
        env.pop(var, None)
    return subprocess.run([sys.executable, "-S", *args], cwd=scratch, env=env, capture_output=True, text=True,
                          timeout=timeout)


FLOW = r'''
import json, sys, tempfile
from pathlib import Path
import figbench
from figbench.cli import main
from figbench.tasks import TASKS

root = Path.cwd()
fixtures = str(root / "tests" / "fixtures" / "idiomsent")
assert Path(figbench.__file__).resolve().is_relative_to(root), figbench.__file__
assert "idiomsent" in figbench.CORPORA, figbench.CORPORA
d = figbench.load_dataset("idiomsent", data_dir=fixtures)
assert {k: len(v) for k, v in d.items()} == {"train": 6, "test": 4}, d
assert d["test"].features["label"].names == ["idiomatic", "literal"]
task = TASKS["idiom_sense"]
assert len(task.metrics) == 7 and task.trivial_baselines == ("majority", "random", "prior")
from figbench_baselines.specs import all_specs
specs = {s.name: s for s in all_specs()}
assert {"idiomsent_majority_test", "idiomsent_random_test", "idiomsent_prior_test"} <= set(specs)
out = Path(tempfile.mkdtemp()) / "majority.json"
argv = [*specs["idiomsent_majority_test"].argv, "--data-dir", fixtures, "--out", str(out), "--n-resamples", "50"]
assert main(["baseline", *argv]) == 0
record = json.loads(out.read_text())
assert record["scores"]["accuracy"] == 0.5 and set(record["predictions"]["inline"].values()) == {"idiomatic"}

from figbench_leaderboard.domain.benchmarks import BenchmarkRegistry
from figbench_leaderboard.scoring.board import Leaderboard, Limits
from figbench_leaderboard.scoring.gold import BuilderGoldProvider
from figbench_leaderboard.store.sqlite import Store
from figbench_leaderboard.ui import tables

registry = BenchmarkRegistry()
key = "idiom_sense/idiomsent/default/test"
assert registry.get(key).label == "IdiomSent" and "Idiom detection" in registry.groups()
board = Leaderboard(Store(Path(tempfile.mkdtemp()) / "store"), BuilderGoldProvider(loader=lambda b: d[b.split]),
                    registry=registry, limits=Limits(n_resamples=50))
board.submit({"format": "figbench-predictions/1", "task": "idiom_sense", "dataset": "idiomsent",
              "config": "default", "split": "test", "model": {"name": "figbench-majority", "type": "heuristic",
              "parameters": 0}, "predictions": record["predictions"]["inline"]})
assert board.run_pending() == 1
rows = board.store.board_rows()
for group in registry.groups():
    ov = tables.overview(rows, registry, group)
ov = tables.overview(rows, registry, "Idiom detection")
assert ov["Model"].tolist() == ["figbench-majority"] and ov["Rank"].tolist() == [1], ov
print("FLOW OK")
'''


def test_the_example_works_in_a_scratch_copy(scratch, tmp_path):
    out = _run(scratch, tmp_path, "-c", FLOW)
    assert out.returncode == 0 and "FLOW OK" in out.stdout, (out.stdout[-3000:], out.stderr[-5000:])


def test_every_corpus_and_task_test_passes_for_the_example(scratch, tmp_path):
    out = _run(scratch, tmp_path, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", "-x",
               "tests/test_tasks.py", "tests/test_baselines_common.py::test_quickstart_plan_covers_found_corpora",
               "tests/test_missing_data.py", "-k", "idiom or test_a_ or quickstart or declarations or every_task")
    assert out.returncode == 0, (out.stdout[-5000:], out.stderr[-3000:])
    assert "idiom_sense" in out.stdout or "passed" in out.stdout
    # the new corpus's own cases ran: its missing-data case (no public URL) and its task's round trip
    listed = _run(scratch, tmp_path, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", "--collect-only",
                  "tests/test_tasks.py", "tests/test_missing_data.py")
    assert "test_task_round_trip[idiom_sense]" in listed.stdout
    assert "idiomsent-default" in listed.stdout
