"""The distribution as a user gets it: wheel -> fresh venv outside the checkout -> README's flow (baseline run,
submit, Space folder installed offline and serving) -> smoke.

``.ci/run`` runs ``.ci/wheel_smoke.sh`` once and points ``FIGBENCH_SMOKE_DIR`` at its folder; without
it this test runs the script itself (a few minutes: it installs the wheel's dependencies). It is in the
CI stage (``make test-ci``, run by ``.ci/run`` after ``make test``), so ``make test`` never repeats the smoke.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT, corpus_path


@pytest.mark.slow
@pytest.mark.ci_stage
def test_wheel_installs_and_space_serves_the_board(tmp_path):
    data = corpus_path("ecbplus", "ECB+").parent.parent
    done = os.environ.get("FIGBENCH_SMOKE_DIR")
    work = Path(done) if done else tmp_path / "smoke"
    if not done:
        env = {**os.environ, "FIGBENCH_DATA_DIR": str(data)}
        out = subprocess.run(["bash", str(ROOT / ".ci" / "wheel_smoke.sh"), str(work)], env=env,
                             capture_output=True, text=True, timeout=3000)
        assert out.returncode == 0, (out.stdout[-3000:], out.stderr[-5000:])
    # the core alone (issue 36): no board, harvester, trainers or harnesses; corpus, metric and scorer work; a
    # command of an extra says in one line which extra to install
    core = json.loads((work / "core" / "core_report.json").read_text())
    assert core["absent_modules"] == ["torch", "transformers", "accelerate", "faiss", "gradio", "dask", "icu",
                                      "lm_eval", "mteb"]
    assert core["ecbplus_test_mentions"] == 1780 and 0 < core["conll_f1_example"] < 1
    assert 0 < core["score_coref_conll_f1"] <= 1
    for extra, lines in core["missing_extra_messages"].items():
        assert len(lines) == 1 and f"pip install 'figbench[{extra}]'" in lines[0], (extra, lines)
    report = json.loads((work / "smoke_report.json").read_text())
    assert report["ok"] is True
    assert report["ecbplus_test_mentions"] == 1780
    assert 0.70 < report["submitted_conll_f1"] < 0.85
    assert report["quickstart_trained_runs"] == "record not in this install"  # no results/ in a wheel
    assert report["quickstart_not_installed_lines"] == 1   # one summary line for them all
    assert report["quickstart_progress_lines"] == 0        # no datasets "Generating ... split" / "Map" bars
    # the build wrote nothing into the checkout (no build/ folder: tests keep their output out of the source tree)
    assert (work / "source_tree_new.txt").read_text().split() == []
    # README's flow from a folder outside the checkout: ./results/<spec>.json, named so in its own command,
    # submitted by that relative path
    assert report["readme_record"] == "results/cdec_lh_meta_m_test.json"
    assert report["readme_record_command"].endswith("--out results/cdec_lh_meta_m_test.json")
    assert report["readme_submit_status"] == "FINISHED"
    assert int(report["readme_record_mode"], 8) == 0o666 & ~int(report["umask"], 8)   # not mkstemp's 0600
    # the Space folder: this version's wheel beside requirements.txt, installed into its own environment,
    # and app.py printing its URL
    assert report["space_start_s"] < 180
    assert "space-venv" in report["space_installed_in"]
    assert report["space_printed"].startswith("figbench leaderboard: serving on http://127.0.0.1:")
    space = work / "user" / "space"
    reqs = (space / "requirements.txt").read_text()
    [wheel] = space.glob("figbench-*.whl")
    assert reqs == f"./{wheel.name}[board]\n"
    # installed into a truly fresh venv by pip's own resolution from the package index (no links to installed
    # packages, no --no-index): no torch, no extra index url (a Space without PyTorch's index retried 815 times)
    assert report["space_fresh_install"]["torch_installed"] is False
    assert report["space_fresh_install"]["distributions"] > 50
    assert wheel.read_bytes() == next((work / "dist").glob("figbench-*.whl")).read_bytes()
    card = (space / "README.md").read_text()
    assert "sdk: gradio" in card and "app_file: app.py" in card and "hf_oauth: true" in card
    # issue 24 from the wheel: `figbench generate metaphors` (4 sentences of real ECB+ validation, a scripted
    # OpenAI-compatible server in its own process), `generate build`, plain datasets.load_dataset: every
    # mention keeps its ECB+ mention_id and cluster_id, its span is its text; the rerun asks the server nothing
    gen = report["generate"]
    assert {k: report["steps"][k]["returncode"] for k in report["steps"] if k.startswith("generate")} == {
        "generate metaphors": 0, "generate build": 0, "generate metaphors (rerun)": 0,
        "generate: datasets.load_dataset": 0}
    assert gen["sentences"] == 4 and gen["failed"] == 0 and gen["requests"] == 4
    assert gen["rows"] == gen["ids_and_clusters_kept"] == gen["spans_match_text"] == 14 and gen["clusters"] > 1
    assert gen["rerun_requests"] == 0 and gen["rerun_cache_hits"] == 4 and gen["server_requests"] == 4
    # issue 25 from the wheel: `figbench harvest wec` on the real shortened English dump (its one event
    # article, American Revolutionary War, page 771, linked 3 times) and `figbench harvest wimcor` on a written
    # dump, both loaded with their builders
    har = report["harvest"]
    assert {k: report["steps"][k]["returncode"] for k in report["steps"] if k.startswith("harvest")} == {
        "harvest wec": 0, "harvest wec: load": 0, "harvest wimcor: write dump": 0, "harvest wimcor": 0,
        "harvest wimcor: load": 0}
    assert har["wec"]["mentions"] == 3 and har["wec"]["clusters"] == ["771"]
    assert har["wec"]["kept"] == {"train": 3, "validation": 0, "test": 0}
    wim = har["wimcor"]
    assert wim["pairs_by_association"] == {"LOCATION-for-INSTITUTE": 4, "LOCATION-for-TEAM": 4,
                                           "LOCATION-for-EVENT": 4}
    assert wim["rows"]["train"] > 0 and wim["rows"]["test"] > 0 and sum(wim["rows"].values()) == wim["samples"]
