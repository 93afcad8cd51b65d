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
