"""A baseline reports exactly what the leaderboard computes: every fast baseline (and the trained ones,
with a tiny model) runs on builder-shaped in-memory splits, and its record's scores and intervals
equal ``task.score`` of ``task.parse_predictions`` of the record's own predictions on gold from
``task.gold_from_dataset`` of the same split; the rest of its scores are metrics the task declares."""

from __future__ import annotations

import dataclasses
import json

import pytest
from figbench_baselines.common.scoring import benchmark_key
from figbench_baselines.specs import fast_specs

from figbench.cli import main
from figbench.tasks import get_task
from tests.baseline_splits import fixture_splits, use_fixture_splits
from tests.conftest import tiny_models

N_RESAMPLES = 30


@pytest.fixture(autouse=True)
def _fixture_splits(monkeypatch):
    use_fixture_splits(monkeypatch)
    monkeypatch.setenv("FIGBENCH_CACHE", "off")


def _run(argv, out) -> dict:
    assert main(["baseline", *argv, "--out", str(out), "--n-resamples", str(N_RESAMPLES)]) == 0
    return json.loads(out.read_text())


def assert_scores_are_the_tasks(record: dict, split=None) -> None:
    """The record's scores include exactly the task's scores of its predictions on ``split``'s gold."""
    task = get_task(record["task"])
    if record.get("method", "").endswith("_coarse"):
        task = dataclasses.replace(task, label_column="coarse")
    if split is None:
        split = fixture_splits(record["dataset"], record["config"])[record["split"]]
    key = benchmark_key(record["task"], record["dataset"], record["config"], record["split"])
    gold = task.gold_from_dataset(split, key)
    preds = task.parse_predictions(record["predictions"]["inline"], gold)
    server = task.score(preds, gold, n_resamples=N_RESAMPLES, seed=record["provenance"]["seed"])
    for name, value in server.scores.items():
        assert record["scores"][name] == value, name
    for name, ci in server.confidence_intervals.items():
        assert record["confidence_intervals"][name] == ci, name
    assert set(record["scores"]) <= set(task.metric_names), set(record["scores"]) - set(task.metric_names)


@pytest.mark.parametrize("spec", fast_specs(), ids=lambda s: s.name)
def test_fast_baseline_scores_equal_the_tasks(spec, tmp_path):
    record = _run(spec.argv, tmp_path / "r.json")
    # the record lands in the leaderboard row quickstart looks for
    assert (record["task"], record["dataset"], record["config"], record["split"], record["method"]) == \
        (spec.task, spec.dataset, spec.config, spec.split, spec.method)
    assert record["model"]["name"] == spec.system_name and record["model"]["revision"] is None
    assert_scores_are_the_tasks(record)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return tiny_models().tiny_bert(tmp_path_factory.mktemp("tiny") / "bert")


TRAINED = {
    "meta4xnli_token_clf_cross_domain": ["meta4xnli", "--task", "metaphor_detection", "--train", "vua", "--test", "en",
                                         "--max-steps", "2", "--batch-size", "8"],
    "wimcor_imm": ["wimcor", "--method", "imm", "--window", "5"],
    "wimcor_finetune_coarse": ["wimcor", "--method", "finetune", "--granularity", "coarse", "--max-steps", "2",
                               "--batch-size", "8"],
    "epic_finetune_prediction": ["epic", "--task", "proverb_prediction", "--method", "finetune", "--max-steps", "2",
                                 "--batch-size", "4"],
    "epic_similar_distribution": ["epic", "--task", "similar_narratives", "--method", "distribution", "--scorer",
                                  "bm25", "--distance", "l1"],
    "epic_alignment_finetune_pipelined": ["epic", "--task", "proverb_alignment", "--method", "finetune",
                                          "--pipeline", "bm25", "--max-steps", "2", "--batch-size", "4"],
    "epic_generation_keywords": ["epic", "--task", "narrative_generation", "--method", "keywords"],
    "epic_alignment_tagger": ["epic", "--task", "proverb_alignment", "--method", "tagger", "--max-steps", "2",
                              "--batch-size", "4"],
    "cdec_lh_remove_nothing_per_topic": ["cdec", "--dataset", "ecbplus", "--config", "events", "--method", "lh",
                                         "--within", "topic", "--per-topic"],
}


@pytest.mark.parametrize("name", sorted(TRAINED))
def test_trained_and_other_baselines_score_through_their_task(name, tiny, tmp_path):
    argv = TRAINED[name] + (["--model", tiny] if name.startswith(("meta4xnli", "wimcor", "epic_finetune",
                                                                   "epic_alignment")) else [])
    record = _run(argv, tmp_path / "r.json")
    assert_scores_are_the_tasks(record)
    opts = record.get("options", {})
    if name == "meta4xnli_token_clf_cross_domain":
        per_source = opts["per_source_scores"]
        assert len(per_source) == 6 and all("f1" in s and "in_vocab_token_f1" in s for s in per_source.values())
    if name == "wimcor_finetune_coarse":
        assert record["method"] == "finetune_marked50_coarse"
        assert set(record["predictions"]["inline"].values()) <= {"literal", "metonymic"}
    if name == "epic_similar_distribution":
        assert record["scores"]["accuracy"] == record["scores"]["accuracy_l1"]
    if name == "cdec_lh_remove_nothing_per_topic":
        assert set(opts["per_topic_scores"]) == {"1", "2"}
    if name == "epic_alignment_tagger":  # the record says how it was trained and decoded
        training = opts["training"]
        assert training["mean_span_words"] > 0 and set(training["class_weights"]) >= {"O", "B-1", "I-1"}


def test_nli_paper_settings(tiny, tmp_path):
    record = _run(["meta4xnli", "--task", "metaphor_nli", "--train-on", "all", "--paper-settings", "--max-steps", "2",
                   "--max-length", "64", "--model", tiny], tmp_path / "r.json")
    opts = record["options"]
    assert opts["models"] == ["en", "es"] and opts["lr"] == 1e-5 and opts["max_length"] == 64
    assert record["method"] == "nli_train_all_paper" and "accuracy_nonrelevant" not in record["scores"]
    # non-relevant pairs are left out of the test split the run is scored on
    test = fixture_splits("meta4xnli", "interpretation")["test"]
    relevant = test.filter(lambda r: r["metaphor_status"] != "non-relevant")
    assert set(record["predictions"]["inline"]) == set(relevant["id"]) and len(relevant) < len(test)
    assert_scores_are_the_tasks(record, relevant)


def test_subsampled_runs_are_scored_on_their_rows(tmp_path):
    from figbench_baselines.common.splits import sample_indices

    record = _run(["trivial", "--task", "metonymy", "--dataset", "wimcor", "--config", "sample", "--method", "prior",
                   "--max-test", "7", "--seed", "3"], tmp_path / "r.json")
    test = fixture_splits("wimcor", "sample")["test"]
    assert_scores_are_the_tasks(record, test.select(sample_indices(len(test), 7, 3)))


def test_remove_singletons_uses_the_metric_option(tmp_path):
    from figbench.scoring.coref import evaluate_coref

    record = _run(["cdec", "--dataset", "ecbplus", "--config", "events", "--method", "lemma", "--remove-singletons"],
                  tmp_path / "r.json")
    split = fixture_splits("ecbplus", "events")["test"]
    gold = get_task("cdec").gold_from_dataset(split, "k")
    direct = evaluate_coref([record["predictions"]["inline"]["clusters"]], [[list(c) for c in gold.clusters]],
                            remove_singletons=True)
    assert record["scores"]["conll_f1"] == direct["conll_f1"]
