"""``figbench submit`` and ``figbench leaderboard list|export|work``, and the client's local path."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from figbench_leaderboard.client import load_submission, submit

from figbench.cli import main

FIX = Path(__file__).parent / "fixtures" / "leaderboard"
GOLD = str(FIX / "gold.json")


def test_submit_local_scores_right_away(tmp_path):
    out = submit(FIX / "predictions_cdec.json", tmp_path / "store", gold_json=GOLD)
    assert out["status"] == "FINISHED" and out["scores"]["muc_recall"] == pytest.approx(0.75)


def test_local_store_owner_is_not_rate_limited_but_the_board_is(tmp_path):
    """quickstart loads more than 20 runs under one submitter into a local store; the served board's
    limit (20 per hour per client address or account) stays in force for web submissions."""
    from figbench_leaderboard.scoring.board import Leaderboard
    from figbench_leaderboard.scoring.gold import JsonGoldProvider
    from figbench_leaderboard.store.errors import RateLimitError
    from figbench_leaderboard.store.sqlite import Store

    base = json.loads((FIX / "predictions_cdec.json").read_text())
    for i in range(25):
        path = tmp_path / f"p{i}.json"
        path.write_text(json.dumps({**base, "model": {**base["model"], "name": f"local-{i}"}}))
        assert submit(path, tmp_path / "store", gold_json=GOLD, submitter="figbench-quickstart")["status"] == "FINISHED"
    board = Leaderboard(Store(tmp_path / "store"), JsonGoldProvider(GOLD))
    for i in range(20):   # a web client's limit: 20 an hour, whatever the local rows
        board.submit(json.dumps({**base, "model": {**base["model"], "name": f"web-{i}"}}), client="ip:192.0.2.1")
    with pytest.raises(RateLimitError, match="ip:192.0.2.1"):
        board.submit(json.dumps({**base, "model": {**base["model"], "name": "web-21"}}), client="ip:192.0.2.1",
                     submitter="figbench-quickstart")


def test_record_with_relative_predictions_path_is_inlined(tmp_path):
    from figbench.results import RunClock, make_result, provenance, write_result

    preds = json.loads((FIX / "predictions_metonymy.json").read_text())["predictions"]
    (tmp_path / "preds.json").write_text(json.dumps(preds))
    rec = make_result(task="metonymy", dataset="wimcor", config="sample", split="test",
                      model={"name": "rec", "revision": "1", "type": "heuristic", "parameters": 0},
                      scores={"micro_f1": 0.5}, confidence_intervals={}, predictions=None,
                      provenance=provenance(RunClock(), seed=0), predictions_path="preds.json")
    write_result(rec, tmp_path / "result.json")
    assert load_submission(tmp_path / "result.json")["predictions"] == {"inline": preds}
    out = submit(tmp_path / "result.json", tmp_path / "store", gold_json=GOLD)
    assert out["status"] == "FINISHED" and out["verified"] and out["mismatches"] == {}


def test_cli_submit_list_export_work(tmp_path, capsys):
    store = str(tmp_path / "store")
    assert main(["submit", str(FIX / "predictions_metonymy.json"), "--to", store, "--gold-json", GOLD]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "FINISHED"
    assert main(["submit", str(FIX / "predictions_cdec.json"), "--to", store, "--gold-json", GOLD, "--no-score"]) == 0
    capsys.readouterr()
    assert main(["leaderboard", "list", "--store", store, "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert sorted(r["status"] for r in listed) == ["FINISHED", "PENDING"]
    assert main(["leaderboard", "work", "--store", store, "--gold-json", GOLD]) == 0
    capsys.readouterr()
    assert main(["leaderboard", "list", "--store", store, "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert all(r["status"] == "FINISHED" and r["scores"] for r in listed)
    assert main(["leaderboard", "list", "--store", store]) == 0
    assert "conll_f1=" in capsys.readouterr().out
    assert main(["leaderboard", "export", "--store", store, "--to", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "overview.parquet").is_file()


def test_cli_refusal_is_a_clear_error(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    sub = json.loads((FIX / "predictions_metonymy.json").read_text())
    sub["predictions"]["w42"] = "TEAM"
    bad.write_text(json.dumps(sub))
    assert main(["submit", str(bad), "--to", str(tmp_path / "s"), "--gold-json", GOLD]) == 1
    assert "unknown example id(s)" in capsys.readouterr().err
    assert main(["submit", str(tmp_path / "missing.json"), "--to", str(tmp_path / "s")]) == 1


def test_help_is_fast_and_lists_commands():
    out = subprocess.run([sys.executable, "-m", "figbench.cli", "--help"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "submit" in out.stdout and "leaderboard" in out.stdout
    out = subprocess.run([sys.executable, "-X", "importtime", "-c", "import figbench_leaderboard.cli"],
                         capture_output=True, text=True, timeout=60)
    assert "gradio" not in out.stderr and "huggingface_hub" not in out.stderr


def test_submit_a_folder(tmp_path, capsys):
    folder = tmp_path / "results"
    folder.mkdir()
    (folder / "a.json").write_text((FIX / "predictions_cdec.json").read_text())
    (folder / "b.json").write_text((FIX / "predictions_metonymy.json").read_text())
    (folder / "c.json").write_text('{"hello": 1}')
    store = str(tmp_path / "store")
    assert main(["submit", str(folder), "--to", store, "--gold-json", GOLD]) == 1   # c.json refused
    outs = json.loads(capsys.readouterr().out)
    assert [o["status"] for o in outs] == ["FINISHED", "FINISHED", "REFUSED"]
    assert "not a figbench submission" in outs[2]["error"]
    from figbench_leaderboard.store.sqlite import Store

    assert Store(store).count() == 2
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["submit", str(empty), "--to", store]) == 1


def test_screenshot_server_gets_absolute_paths(tmp_path, monkeypatch):
    """`figbench leaderboard screenshots --store .figbench/store` serves from a temporary folder: a relative
    store path must reach the server absolute (it opened a new, empty store there and timed out)."""
    from figbench_leaderboard.screenshots import serve_command

    monkeypatch.chdir(tmp_path)
    cmd = serve_command(".figbench/store", 7999, gold_json="gold.json", data_dir="data")
    for flag, rel in (("--store", ".figbench/store"), ("--gold-json", "gold.json"), ("--data-dir", "data")):
        assert cmd[cmd.index(flag) + 1] == str(tmp_path / rel)
    assert serve_command("hf://datasets/org/board", 7999)[cmd.index("--store") + 1] == "hf://datasets/org/board"
