"""Issue 32, "a submitter can take part": a hidden cdec benchmark's inputs file (no gold) runs through a baseline,
which writes a submittable predictions file; submitted with an issued token, the board scores it."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

from figbench_leaderboard.access.hidden_policy import HiddenSplitPolicy
from figbench_leaderboard.scoring.board import Leaderboard, Limits
from figbench_leaderboard.scoring.gold import JsonGoldProvider, PrivateGoldStore, ServerGold
from figbench_leaderboard.scoring.hidden_benchmark import make_hidden
from figbench_leaderboard.scoring.linkage_audit import PublicIndex
from figbench_leaderboard.store import tokens
from figbench_leaderboard.store.sqlite import Store

import datasets
from figbench.cli import main as figbench_main
from figbench.tasks import HIDDEN, Benchmark, unregister_benchmark

FIX = Path(__file__).parent / "fixtures"


def test_a_baseline_runs_on_hidden_inputs_and_its_predictions_are_scored(tmp_path):
    rows = json.loads((FIX / "cdec" / "mentions_test.json").read_text())
    bench = Benchmark("cdec", "fresh_events_path", "harvest", "test", "Fresh events (hidden)", gold=HIDDEN)
    try:
        private = PrivateGoldStore(tmp_path / "private")
        make_hidden(private, bench, datasets.Dataset.from_list(rows), tmp_path / "release", fresh_ids=True,
                    public=PublicIndex())
        inputs = tmp_path / "release" / "inputs.jsonl"
        assert "cluster_id" not in inputs.read_text()
        out = tmp_path / "predictions.json"
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            rc = figbench_main(["baseline", "cdec", "--dataset", "ecbmeta", "--mentions-file", str(inputs),
                                "--method", "lh", "--lh-lemma-pairs", "none", "--out", str(out)])
        assert rc in (0, None), err.getvalue()
        assert "figbench submit" in err.getvalue()
        preds = json.loads(out.read_text())
        assert preds["format"] == "figbench-predictions/1" and (preds["dataset"], preds["config"]) == \
            ("fresh_events_path", "harvest")
        private.register()   # what `serve --private` does at start
        board = Leaderboard(Store(tmp_path / "store"), ServerGold(JsonGoldProvider({}), private),
                            limits=Limits(n_resamples=0), policy=HiddenSplitPolicy())
        ident = tokens.issue(board.store, "new submitter")[1]
        sid = board.submit(out.read_text(), account=ident)["id"]
        done = board.released(board.process(sid))
        assert done["status"] == "FINISHED" and set(done["scores"]) == {"conll_f1"}, done
    finally:
        unregister_benchmark(bench.key)


def _cli(argv: list[str]) -> str:
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        rc = figbench_main(argv)
    assert rc in (0, None), err.getvalue()
    return err.getvalue()


def test_trivial_baselines_run_on_hidden_inputs_of_a_label_and_a_clustering_task(tmp_path, monkeypatch):
    from tests.baseline_splits import use_fixture_splits

    use_fixture_splits(monkeypatch)   # the public train split's label counts come from the WiMCor fixture
    labels = ["LOCATION", "INSTITUTE", "TEAM", "ARTIFACT", "EVENT"]
    rows = [{"id": f"h{i:03d}", "text": f"Sentence {i} about place {i}.", "pmw": f"place{i}", "pmw_start": 0,
             "pmw_end": 5, "medium": labels[i % 5], "coarse": "metonymic"} for i in range(40)]
    meto = Benchmark("metonymy", "fresh_meto_path", "harvest", "test", "Fresh metonymy (hidden)", gold=HIDDEN)
    cdec = Benchmark("cdec", "fresh_events_trivial", "harvest", "test", "Fresh events 2 (hidden)", gold=HIDDEN)
    mentions = json.loads((FIX / "cdec" / "mentions_test.json").read_text())
    try:
        private = PrivateGoldStore(tmp_path / "private")
        make_hidden(private, meto, datasets.Dataset.from_list(rows), tmp_path / "meto", public=PublicIndex())
        make_hidden(private, cdec, datasets.Dataset.from_list(mentions), tmp_path / "cdec", fresh_ids=True,
                    public=PublicIndex())
        _cli(["baseline", "trivial", "--task", "metonymy", "--dataset", "wimcor", "--config", "sample", "--method",
              "majority", "--inputs-file", str(tmp_path / "meto" / "inputs.jsonl"), "--out", str(tmp_path / "m.json")])
        _cli(["baseline", "trivial", "--task", "cdec", "--dataset", "ecbplus", "--method", "one_cluster_per_topic",
              "--inputs-file", str(tmp_path / "cdec" / "inputs.parquet"), "--out", str(tmp_path / "c.json")])
        private.register()
        board = Leaderboard(Store(tmp_path / "store"), ServerGold(JsonGoldProvider({}), private),
                            limits=Limits(n_resamples=0), policy=HiddenSplitPolicy())
        ident = tokens.issue(board.store, "new submitter")[1]
        for name, bench in (("m.json", meto), ("c.json", cdec)):
            preds = json.loads((tmp_path / name).read_text())
            assert preds["dataset"] == bench.dataset and preds["format"] == "figbench-predictions/1"
            done = board.released(board.process(board.submit((tmp_path / name).read_text(), account=ident)["id"]))
            assert done["status"] == "FINISHED", done
    finally:
        unregister_benchmark(meto.key)
        unregister_benchmark(cdec.key)

