"""Checks over every task declaration: gold from the declared columns, perfect and wrong predictions,
gold JSON round trip, and the declaration's own consistency."""

from __future__ import annotations

import pytest

import datasets
from figbench.tasks import TASKS, PredictionsError, benchmarks, families, get_task
from figbench.tasks.base import Benchmark, Metric


def _tag_rows() -> datasets.Dataset:
    tags = datasets.ClassLabel(names=["O", "B-METAPHOR", "I-METAPHOR"])
    return datasets.Dataset.from_dict(
        {"id": ["s1", "s2", "s3"], "tokens": [["a", "b", "c"], ["d", "e"], ["f"]],
         "tags": [[0, 1, 2], [0, 0], [1]]},
        features=datasets.Features({"id": datasets.Value("string"),
                                    "tokens": datasets.Sequence(datasets.Value("string")),
                                    "tags": datasets.Sequence(tags)}))


#: one small split per task, with the columns (and ClassLabel features) its builder declares
SPLITS = {
    "cdec": lambda: datasets.Dataset.from_dict(
        {"mention_id": ["m1", "m2", "m3", "m4", "m5"], "cluster_id": ["a", "a", "b", "c", "c"],
         "topic": ["1", "1", "1", "2", "2"]}),
    "metaphor_detection": _tag_rows,
    "metaphor_nli": lambda: datasets.Dataset.from_dict(
        {"id": ["p1", "p2", "p3", "p4"], "gold_label": [0, 1, 2, 0],
         "metaphor_status": ["met", "no_met", "met", "nonrelevant"], "language": ["en", "en", "es", "es"]},
        features=datasets.Features({"id": datasets.Value("string"),
                                    "gold_label": datasets.ClassLabel(names=["entailment", "neutral", "contradiction"]),
                                    "metaphor_status": datasets.Value("string"),
                                    "language": datasets.Value("string")})),
    "metonymy": lambda: datasets.Dataset.from_dict(
        {"id": ["w1", "w2", "w3"], "medium": [0, 2, 4]},
        features=datasets.Features({"id": datasets.Value("string"), "medium": datasets.ClassLabel(
            names=["LOCATION", "INSTITUTE", "TEAM", "ARTIFACT", "EVENT"])})),
    "proverb_prediction": lambda: datasets.Dataset.from_dict(
        {"id": ["n1", "n2", "n3"], "proverb_id": ["p1", "p2", "p1"]}),
    "proverb_alignment": lambda: datasets.Dataset.from_dict(
        {"narrative": ["the cat sat on the mat today", "a bird in the hand"],
         "pairs": [[{"pair_id": "a1", "proverb_span": "cat", "narrative_span": "cat sat", "narrative_start": 4,
                     "narrative_end": 11, "narrative_match": "exact", "proverb_match": "exact"}],
                   [{"pair_id": "a2", "proverb_span": "bird", "narrative_span": "bird", "narrative_start": 2,
                     "narrative_end": 6, "narrative_match": "exact", "proverb_match": "exact"}]]}),
    "similar_narratives": lambda: datasets.Dataset.from_dict(
        {"id": ["n1", "n2", "n3", "n4"], "proverb_id": ["p1", "p1", "p2", "p2"]}),
    "narrative_generation": lambda: datasets.Dataset.from_dict(
        {"id": ["g1", "g2"], "narrative": ["the early bird catches the worm every morning",
                                           "still waters run deep in this quiet town"]}),
}


def test_every_task_has_a_fixture_split():
    assert set(SPLITS) >= set(TASKS), f"no fixture split for {set(TASKS) - set(SPLITS)}"


@pytest.mark.parametrize("name", sorted(SPLITS))
def test_task_round_trip(name):
    task = get_task(name)
    gold = task.gold_from_dataset(SPLITS[name](), f"{name}/fixture")
    assert gold.ids and len(set(gold.ids)) == len(gold.ids)
    # perfect predictions score 1.0 on the headline, wrong ones below it
    perfect = task.score(task.parse_predictions(task.perfect_predictions(gold), gold), gold, n_resamples=50, seed=1)
    assert perfect.scores[task.headline] == pytest.approx(1.0)
    wrong = task.score(task.parse_predictions(task.wrong_predictions(gold), gold), gold, n_resamples=50, seed=1)
    assert wrong.scores[task.headline] < 1.0
    # every score is declared; intervals contain their point estimate
    assert set(perfect.scores) <= set(task.metric_names), set(perfect.scores) - set(task.metric_names)
    for m, ci in wrong.confidence_intervals.items():
        assert ci["low"] - 1e-9 <= wrong.scores[m] <= ci["high"] + 1e-9, m
    # gold survives its JSON shape
    again = task.gold_from_json(gold.to_json(), gold.key)
    assert again == gold
    # a prediction with a missing id is refused, naming it
    preds = task.perfect_predictions(gold)
    if isinstance(preds, dict):
        missing = sorted(preds)[0]
        del preds[missing]
        with pytest.raises(PredictionsError, match="missing"):
            task.parse_predictions(preds, gold)


def test_declarations_are_consistent():
    keys = [b.key for b in benchmarks()]
    assert len(keys) == len(set(keys))
    assert list(families()) == ["coreference", "meta4xnli", "wimcor", "epic"]
    for task in TASKS.values():
        assert task.higher_is_better in (True, False)
        assert set(task.table_columns()) <= set(task.metric_names)


def test_a_task_declaration_is_checked():
    from figbench.tasks.kinds import LabelTask

    with pytest.raises(ValueError, match="headline"):
        LabelTask(name="t", family="f", family_title="F", title="T", description="d", headline="nope",
                  metrics=(Metric("accuracy", "Accuracy"),))
    with pytest.raises(ValueError, match="names task"):
        LabelTask(name="t", family="f", family_title="F", title="T", description="d", headline="accuracy",
                  metrics=(Metric("accuracy", "Accuracy"),), benchmarks=(Benchmark("other", "d", "c", "s", "L"),))


def test_classification_matches_scikit_learn():
    import numpy as np
    from sklearn.metrics import accuracy_score, precision_recall_fscore_support

    from figbench.scoring.classification import encode_labels, label_statistics

    rng = np.random.default_rng(0)
    labels = ["a", "b", "c", "d", "e"]
    for _ in range(30):
        n = int(rng.integers(1, 40))
        gold = list(rng.choice(labels[:4], n))  # "e" never occurs in gold
        pred = list(rng.choice(labels, n))
        y, p = encode_labels(gold, pred, labels)
        ours = label_statistics(y, p, len(labels))
        assert ours["accuracy"] == pytest.approx(accuracy_score(gold, pred))
        for avg in ("micro", "macro"):
            ref = precision_recall_fscore_support(gold, pred, labels=labels, average=avg, zero_division=0)
            assert [ours[f"{avg}_{m}"] for m in ("precision", "recall", "f1")] == pytest.approx(list(ref[:3]))
