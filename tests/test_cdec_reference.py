"""The trivial coreference references (baselines/cdec/reference.py) and their rows in the tables."""

from __future__ import annotations

import numpy as np
from figbench_baselines.cdec import reference
from figbench_baselines.cdec.cli import REFERENCE_METHODS
from figbench_baselines.cdec.evaluation import evaluate, predicted_document
from figbench_baselines.cdec.pipeline import default_args

from figbench.results import validate_result


def test_reference_methods_are_the_cli_choices():
    assert tuple(reference.METHODS) == REFERENCE_METHODS


def test_labels():
    rows = [{"topic": "1"}, {"topic": "2"}, {"topic": "1"}, {"topic": "3"}]
    assert reference.all_singletons(rows).tolist() == [0, 1, 2, 3]
    assert reference.one_cluster_per_topic(rows).tolist() == [0, 1, 0, 2]
    assert reference.one_cluster_per_topic(rows, None).tolist() == [0, 0, 0, 0]  # whole split: one cluster


def test_records_score_like_a_direct_metric_call(rows):
    for method, (label, _) in reference.METHODS.items():
        args = default_args(method=method, n_resamples=30, dataset="ecbplus", config="events", split="test",
                            within="topic")
        record = reference.run(args, rows=rows)
        validate_result(record)
        assert record["method"] == method and record["options"]["reference"] is True
        labels = label(rows, "topic")
        direct = evaluate(rows, labels)
        assert np.isclose(record["scores"]["conll_f1"], direct["conll_f1"])
        assert record["predictions"]["inline"]["clusters"] == predicted_document(rows, labels)
    singles = reference.run(default_args(method="all_singletons", n_resamples=0, dataset="ecbplus",
                                         config="events", split="test"), rows=rows)
    assert singles["scores"]["muc_f1"] == 0.0 and singles["scores"]["bcub_precision"] == 1.0


def test_every_coreference_table_shows_the_reference_rows_of_its_splits():
    from figbench_baselines.specs import all_specs
    from figbench_baselines.tables import REFERENCE_TABLES, reference_rows

    specs = all_specs()
    refs = {s.benchmark for s in specs if s.table == REFERENCE_TABLES["cdec"]}
    for table in {s.table for s in specs if s.task == "cdec"} - {REFERENCE_TABLES["cdec"]}:
        chosen = [s for s in specs if s.table == table]
        shown = {s.benchmark for s in reference_rows(chosen, specs)}
        assert shown == {s.benchmark for s in chosen} & refs, table
        assert shown, table  # every cdec table has at least one split with references


def test_predicted_topics_are_refused(rows):
    import pytest

    with pytest.raises(ValueError, match="gold fields"):
        reference.run(default_args(method="one_cluster_per_topic", within="predicted_topic", dataset="ecbplus",
                                   config="events", split="test"), rows=rows)
