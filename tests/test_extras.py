"""Issue 36: a command whose extra is not installed says in one line which extra to install (the extras are read
from the installed metadata, pyproject.toml's optional dependencies). The real core-only install is checked by
the wheel smoke (.ci/core_smoke.py, tests/test_wheel.py)."""

from __future__ import annotations

import tomllib
from importlib import metadata

import pytest

from figbench import extras
from figbench.cli import main
from tests.conftest import ROOT


def test_the_extras_are_those_of_pyproject():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert {"baselines", "board", "harvest", "generate", "lm-eval", "mteb", "all", "dev"} <= set(declared)
    assert declared["all"] == ["figbench[baselines,board,harvest,generate,lm-eval,mteb]"]
    core = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    heavy = ("torch", "transformers", "accelerate", "faiss", "gradio", "dask", "pyicu", "lm-eval", "mteb")
    assert not [d for d in core if d.startswith(heavy)]
    found = extras.extras_of()
    assert found["torch"][0] == "baselines" and found["gradio"][0] == "board" and found["dask"] == ["harvest"]
    assert extras.extra_for("icu") == "board" and extras.extra_for("sklearn.linear_model") == "baselines"
    assert extras.extra_for("numpy") is None   # the core


@pytest.mark.parametrize("argv, extra, dist", [
    (["leaderboard", "list", "--store", "s"], "board", "gradio"),
    (["baseline", "cdec", "--dataset", "ecbplus", "--split", "test"], "baselines", "faiss-cpu"),
    (["harvest", "wec", "--dump", "d.xml.bz2", "--out", "o"], "harvest", "mwxml"),
])
def test_a_command_without_its_extra_says_which_in_one_line(argv, extra, dist, monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(tmp_path)
    real = metadata.version

    def version(name: str) -> str:
        if name == dist:
            raise metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(extras.metadata, "version", version)
    assert main(argv) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    [line] = captured.err.strip().splitlines()
    assert line == (f"figbench: error: this command needs figbench's [{extra}] extra ({dist} not installed): "
                    f"pip install 'figbench[{extra}]'")


def test_a_missing_module_inside_a_command_names_its_extra(monkeypatch, capsys):
    def boom(args):
        raise ModuleNotFoundError("No module named 'faiss'", name="faiss")

    import figbench.cli as cli

    parser = cli.build_parser()
    monkeypatch.setattr(cli, "build_parser", lambda: parser)
    args = parser.parse_args(["score", "coref", "k", "r"])
    monkeypatch.setattr(parser, "parse_args", lambda argv=None: args.__class__(**{**vars(args), "func": boom}))
    assert main(["score", "coref", "k", "r"]) == 1
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "[baselines] extra (module 'faiss' is not installed): pip install 'figbench[baselines]'" in line
