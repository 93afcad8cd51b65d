"""Checks over every task declaration: gold from the declared columns, perfect and wrong predictions,
gold JSON round trip, and the declaration's own consistency."""

from __future__ import annotations

import pytest

from figbench.tasks import TASKS, PredictionsError, benchmarks, families, get_task
from figbench.tasks.base import Benchmark, Metric
from tests.corpus_cases import task_splits

#: one small split per task, with the columns (and ClassLabel features) its builder declares, as declared by
#: the corpora (``TASK_SPLITS`` in ``tests/fixtures/<corpus>/cases.py``)
SPLITS = task_splits()


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
    in_order = list(dict.fromkeys(t.family for t in TASKS.values()))
    assert list(families()) == in_order and len(in_order) >= 1
    for task in TASKS.values():
        assert families()[task.family] == task.family_title, task.name
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


@pytest.mark.parametrize("name", sorted(SPLITS))
def test_a_kind_s_default_metrics_cover_its_scores(name):
    """A declaration without ``metrics`` reports its kind's defaults, and they name every score it computes."""
    from dataclasses import replace

    task = get_task(name)
    plain = replace(task, metrics=(), columns=(), **({"group_columns": ()} if hasattr(task, "group_columns") else {}))
    assert plain.metric_names == tuple(m.name for m in type(task).default_metrics)
    gold = plain.gold_from_dataset(SPLITS[name](), f"{name}/fixture")
    scored = plain.score(plain.parse_predictions(plain.perfect_predictions(gold), gold), gold, n_resamples=0)
    assert scored.scores and set(scored.scores) <= set(plain.metric_names), set(scored.scores) - set(plain.metric_names)


@pytest.mark.parametrize("name", sorted(n for n in SPLITS if get_task(n).trivial_baselines))
def test_trivial_baselines_are_valid_predictions(name):
    from collections import Counter

    task = get_task(name)
    gold = task.gold_from_dataset(SPLITS[name](), f"{name}/fixture")
    for method in task.trivial_baselines:
        preds = task.trivial_predictions(method, gold, gold, seed=3)
        assert task.parse_predictions(preds, gold) is not None
        assert preds == task.trivial_predictions(method, gold, gold, seed=3)  # seeded
        if method == "majority":
            counts = Counter(gold.labels.values())
            assert set(preds.values()) == {max(sorted(counts), key=counts.get)}
        if method == "singletons":
            assert sorted(map(len, preds)) == [1] * len(gold.ids)
        if method == "one_cluster_per_topic":
            assert len(preds) == len(set(gold.groups.values()))
    with pytest.raises(ValueError, match="no trivial baseline 'nope'"):
        task.trivial_predictions("nope", gold, gold)
