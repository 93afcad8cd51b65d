"""Issue 32, "every baseline runs on an inputs-only file": for the WiMCor, Meta4XNLI and ePiC baseline families, a
hidden benchmark is made from a small fixture through the real ``hidden add`` path (gold to a private store, inputs
out), the family's baseline runs on the inputs file (no gold field in it; training reads the public train split),
writes a submittable predictions file, and the board scores it when submitted with an issued token."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest
from figbench_leaderboard.access.hidden_policy import HiddenSplitPolicy
from figbench_leaderboard.scoring.board import Leaderboard, Limits
from figbench_leaderboard.scoring.gold import JsonGoldProvider, PrivateGoldStore, ServerGold
from figbench_leaderboard.scoring.hidden_benchmark import make_hidden
from figbench_leaderboard.scoring.linkage_audit import PublicIndex
from figbench_leaderboard.store import tokens
from figbench_leaderboard.store.sqlite import Store

from figbench.cli import main as figbench_main
from figbench.tasks import HIDDEN, Benchmark, get_task, unregister_benchmark
from tests.baseline_splits import detection_split, epic_splits, interpretation_split, use_fixture_splits, wimcor_split
from tests.conftest import tiny_models
from tests.test_leaderboard_submitter_path import _cli


def _gold_free(inputs: Path, task: str) -> None:
    """No gold column (nor a pair's narrative span) is in the inputs file the baseline reads."""
    gold = set(get_task(task).gold_columns()) - {getattr(get_task(task), "pairs_column", None)}
    for line in inputs.read_text().splitlines():
        row = json.loads(line)
        assert not gold & set(row), (task, sorted(gold & set(row)))
        for pair in row.get("pairs") or ():
            assert not {"narrative_start", "narrative_end", "narrative_span"} & set(pair)


#: (task, benchmark dataset name, the hidden split's source, the baseline runs: (name, argv after the inputs))
def _with_keywords(ds):
    """Generation inputs: a proverb and keywords (the narrative they are drawn from is the gold)."""
    return ds.map(lambda ex: {"keywords": [w for w in ex["narrative"].rstrip(".").split() if len(w) > 4][:4]})


def _cases(model: str, t5: str):
    return [
        ("metonymy", "fresh_meto_fam", lambda: wimcor_split("test", 20, 7), [
            ("imm", ["baseline", "wimcor", "--method", "imm", "--window", "5", "--model", model]),
            ("finetune", ["baseline", "wimcor", "--method", "finetune", "--window", "5", "--model", model,
                          "--max-steps", "2", "--batch-size", "8"]),
            ("predicate", ["baseline", "wimcor", "--method", "predicate", "--window", "5", "--model", model])]),
        ("metaphor_detection", "fresh_det_fam", lambda: detection_split("fresh", 12, 5, "en"), [
            ("lexicon", ["baseline", "meta4xnli", "--task", "detection", "--method", "lexicon", "--train", "en"]),
            ("token_clf", ["baseline", "meta4xnli", "--task", "detection", "--train", "en", "--model", model,
                           "--max-steps", "2", "--max-train", "12"])]),
        ("metaphor_nli", "fresh_nli_fam", lambda: interpretation_split("fresh", 6, 9), [
            ("nli", ["baseline", "meta4xnli", "--task", "nli", "--model", model, "--max-steps", "2",
                     "--max-train", "12", "--paper-settings"])]),
        ("proverb_prediction", "fresh_pp_fam", lambda: epic_splits("seen")["test"], [
            ("bm25", ["baseline", "epic", "--task", "prediction", "--method", "bm25"]),
            ("embedding", ["baseline", "epic", "--task", "prediction", "--method", "embedding", "--model", model]),
            ("finetune", ["baseline", "epic", "--task", "prediction", "--method", "finetune", "--model", model,
                          "--max-steps", "2"])]),
        ("similar_narratives", "fresh_sim_fam", lambda: epic_splits("seen")["test"], [
            ("distribution", ["baseline", "epic", "--task", "similar", "--method", "distribution", "--scorer",
                              "bm25"]),
            ("embedding", ["baseline", "epic", "--task", "similar", "--method", "embedding", "--model", model])]),
        ("proverb_alignment", "fresh_al_fam", lambda: epic_splits("alignment")["test"], [
            ("lexical", ["baseline", "epic", "--task", "alignment", "--method", "lexical"]),
            ("whole", ["baseline", "epic", "--task", "alignment", "--method", "whole"]),
            ("finetune", ["baseline", "epic", "--task", "alignment", "--method", "finetune", "--model", model,
                          "--max-steps", "2"]),
            ("tagger", ["baseline", "epic", "--task", "alignment", "--method", "tagger", "--model", model,
                        "--max-steps", "2"])]),
        ("narrative_generation", "fresh_gen_fam", lambda: _with_keywords(epic_splits("seen")["test"]), [
            ("keywords", ["baseline", "epic", "--task", "generation", "--method", "keywords"]),
            ("seq2seq", ["baseline", "epic", "--task", "generation", "--method", "seq2seq", "--model", t5,
                         "--max-steps", "2"])]),
    ]


@pytest.mark.slow
def test_every_family_predicts_hidden_inputs_and_the_board_scores_them(tmp_path, monkeypatch):
    use_fixture_splits(monkeypatch)   # the public train splits (and candidate proverbs) come from the fixtures
    model, t5 = tiny_models().tiny_bert(tmp_path / "tiny"), tiny_models().tiny_t5(tmp_path / "tiny_t5")
    private = PrivateGoldStore(tmp_path / "private")
    made = []
    try:
        runs = []
        for task, dataset, source, baselines in _cases(model, t5):
            bench = Benchmark(task, dataset, "harvest", "test", f"{dataset} (hidden)", gold=HIDDEN)
            made.append(bench)
            make_hidden(private, bench, source(), tmp_path / dataset, fresh_ids=True, public=PublicIndex())
            inputs = tmp_path / dataset / "inputs.jsonl"
            _gold_free(inputs, task)
            for name, argv in baselines:
                out = tmp_path / f"{dataset}-{name}.json"
                err = _cli([*argv, "--inputs-file", str(inputs), "--out", str(out)])
                assert "figbench submit" in err, err
                preds = json.loads(out.read_text())
                assert preds["format"] == "figbench-predictions/1" and (preds["task"], preds["dataset"]) == \
                    (task, dataset)
                runs.append((bench, name, out))
        private.register()   # what `serve --private` does at start
        board = Leaderboard(Store(tmp_path / "store"), ServerGold(JsonGoldProvider({}), private),
                            limits=Limits(n_resamples=0), policy=HiddenSplitPolicy())
        for bench, name, out in runs:   # a submitter each (one's second run on a 6-item split is a probe)
            ident = tokens.issue(board.store, f"{bench.dataset} {name}")[1]
            preds = json.loads(out.read_text())
            preds["model"]["name"] = f"{bench.dataset} {name}"   # one board name per run (tiny is every encoder's)
            done = board.released(board.process(board.submit(json.dumps(preds), account=ident)["id"]))
            headline = get_task(bench.task).headline
            assert done["status"] == "FINISHED" and set(done["scores"]) == {headline}, (bench.key, name, done)
    finally:
        for bench in made:
            unregister_benchmark(bench.key)


def test_inputs_runs_refuse_subsets_and_name_what_generation_inputs_lack(tmp_path, monkeypatch):
    use_fixture_splits(monkeypatch)
    rows = [{"id": "g1", "proverb": "Still waters run deep", "proverb_id": "Q2"}]
    inputs = tmp_path / "inputs.jsonl"
    inputs.write_text("\n".join(json.dumps(r) for r in rows))
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        rc = figbench_main(["baseline", "epic", "--task", "generation", "--method", "keywords", "--inputs-file",
                            str(inputs), "--out", str(tmp_path / "g.json")])
    assert rc == 1 and "row 'g1' has no 'keywords' list" in err.getvalue()
    with contextlib.redirect_stderr(err):
        rc = figbench_main(["baseline", "wimcor", "--method", "imm", "--max-test", "3", "--inputs-file",
                            str(inputs), "--out", str(tmp_path / "w.json")])
    assert rc == 1 and "--max-test does not apply" in err.getvalue()
    rows[0]["keywords"] = ["quiet", "boy"]
    inputs.write_text(json.dumps(rows[0]))
    _cli(["baseline", "epic", "--task", "generation", "--method", "keywords", "--inputs-file", str(inputs),
          "--out", str(tmp_path / "g.json")])
    preds = json.loads((tmp_path / "g.json").read_text())
    assert set(preds["predictions"]) == {"g1"} and "quiet" in preds["predictions"]["g1"]
