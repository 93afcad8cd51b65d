"""The main job (`figbench quickstart`) on the real corpora, without the web server."""

from __future__ import annotations

import json

import pytest

from figbench.cli import main


@pytest.mark.slow
def test_quickstart_runs_and_submits(data_root, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("FIGBENCH_DATA_DIR", str(data_root))
    store = tmp_path / "store"
    assert main(["quickstart", "--store", str(store), "--only", "ecbplus,wimcor,epic", "--n-resamples", "20",
                 "--no-serve"]) == 0
    out = capsys.readouterr().out
    assert "quickstart summary" in out and "failed" not in out
    assert main(["leaderboard", "list", "--store", str(store), "--json"]) == 0
    subs = json.loads(capsys.readouterr().out)
    from figbench.quickstart import FAST_RUNS

    expected = [r for r in FAST_RUNS if r.corpus in {"ecbplus", "wimcor", "epic"}]
    assert len(subs) == len(expected)
    assert {s["status"] for s in subs} == {"FINISHED"}
    names = {s["model"]["name"] if "model" in s else s["model_name"] for s in subs}
    assert {"figbench-lemma", "figbench-lh", "figbench-majority", "figbench-bm25"} <= names
    assert (tmp_path / "results" / "cdec_lh_ecbplus_test.json").is_file()


def test_quickstart_without_corpora_is_a_clear_error(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("FIGBENCH_DATA_DIR", str(tmp_path / "none"))
    assert main(["quickstart", "--store", str(tmp_path / "s"), "--no-serve"]) == 1
    assert "no corpus found" in capsys.readouterr().err
