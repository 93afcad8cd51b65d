"""The coreference reference rows: the cdec task's trivial baselines (``figbench baseline trivial``) as one
``trivial_spec`` line per baseline and split, shown in every coreference table."""

from __future__ import annotations

import json

import numpy as np
import pytest

from figbench.cli import main
from tests.baseline_splits import fixture_splits, use_fixture_splits


@pytest.fixture(autouse=True)
def _fixture_splits(monkeypatch):
    use_fixture_splits(monkeypatch)


def _record(tmp_path, method: str, *argv: str) -> dict:
    out = tmp_path / f"{method}.json"
    assert main(["baseline", "trivial", "--task", "cdec", "--dataset", "ecbplus", "--config", "events",
                 "--method", method, "--n-resamples", "30", "--out", str(out), *argv]) == 0
    return json.loads(out.read_text())


def test_the_reference_rows_are_trivial_spec_lines_on_every_split():
    from figbench_baselines.cdec.specs.reference import REFERENCE_SPLITS, REFERENCE_TITLES, reference_name
    from figbench_baselines.specs import all_specs
    from figbench_baselines.tables import REFERENCE_TABLES

    from figbench.tasks import get_task

    refs = [s for s in all_specs() if s.table == REFERENCE_TABLES["cdec"]]
    assert tuple(REFERENCE_TITLES) == get_task("cdec").trivial_baselines
    assert {s.name for s in refs} == {reference_name(m, *split) for m in REFERENCE_TITLES
                                      for split in REFERENCE_SPLITS}
    for s in refs:
        assert s.family == "trivial" and s.argv[0] == "trivial" and s.method in REFERENCE_TITLES, s.name
        assert s.command().startswith(f"figbench baseline trivial --task cdec --dataset {s.dataset} "), s.name
    # one record per (method, split): no second trivial row of the same benchmark and method anywhere
    keys = [(s.method, s.benchmark) for s in all_specs() if s.family == "trivial" and s.task == "cdec"]
    assert len(keys) == len(set(keys)) == len(refs)


def test_the_cdec_pipeline_offers_no_copy_of_them():
    from figbench.cli import build_parser

    for method in ("all_singletons", "singletons", "one_cluster_per_topic"):
        with pytest.raises(SystemExit):
            build_parser().parse_args(["baseline", "cdec", "--method", method, "--out", "x"])


def test_records_score_like_a_direct_metric_call(tmp_path):
    from figbench.schema import gold_clusters
    from figbench.scoring.coref import evaluate_coref

    test = fixture_splits("ecbplus", "events")["test"].to_list()
    gold = gold_clusters(test)
    for method in ("singletons", "one_cluster_per_topic"):
        record = _record(tmp_path, method)
        clusters = record["predictions"]["inline"]
        direct = evaluate_coref([clusters], gold)
        assert np.isclose(record["scores"]["conll_f1"], direct["conll_f1"])
        if method == "singletons":
            assert sorted(m for c in clusters for m in c) == sorted(r["mention_id"] for r in test)
            assert record["scores"]["muc_f1"] == 0.0 and record["scores"]["bcub_precision"] == 1.0
        else:
            assert len(clusters) == len({r["topic"] for r in test})


def test_records_keep_topic_counts_that_add_up_to_their_scores(tmp_path):
    """The drop tables pair two records by topic: the per-topic counts must sum to the record's scores."""
    from figbench_baselines.cdec.steps.compare import records_drop

    from figbench.scoring.coref import DOC_FIELDS, scores_from_counts

    test = fixture_splits("ecbplus", "events")["test"]
    for method in ("singletons", "one_cluster_per_topic"):
        record = _record(tmp_path, method)
        block = record["options"]["unit_counts"]
        assert block["unit"] == "topic" and block["fields"] == list(DOC_FIELDS) and block["cut_links"] == 0
        assert set(block["counts"]) == {str(t) for t in test["topic"]}
        summed = scores_from_counts(np.asarray(list(block["counts"].values())).sum(0))
        assert np.isclose(summed["conll_f1"], record["scores"]["conll_f1"])
        same = records_drop(record, record, n_resamples=50)
        assert same["drop"] == 0.0 and same["units"] == len(block["counts"])


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
