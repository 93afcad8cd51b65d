"""The cdec pipeline end to end on hand-written mentions: records, metric, errors, CLI."""

from __future__ import annotations

import json
from functools import partial

import numpy as np
import pytest
from figbench_baselines.cdec.pipeline import run
from figbench_baselines.cdec.steps.evaluation import evaluate, find_key, predicted_document
from figbench_baselines.cdec.steps.oracle import gold_pair_recall, oracle_bcubed_recall, oracle_labels

from figbench.results import validate_result
from tests.cdec_args import cdec_args

_args = partial(cdec_args, n_resamples=50)


def test_lh_record_validates_and_matches_expected_clusters(rows, train_rows):
    rec = run(_args(train_rows, method="lh"), rows=rows)
    validate_result(rec)
    assert rec["task"] == "cdec" and rec["method"] == "lh" and rec["model"]["type"] == "heuristic"
    clusters = {frozenset(c) for c in rec["predictions"]["inline"]["clusters"]}
    assert frozenset({"t1_d1_m1", "t1_d2_m1"}) in clusters          # fire/sack seen in training
    assert frozenset({"t2_d1_m1", "t2_d2_m1"}) in clusters          # earthquake/quake substring
    assert frozenset({"t1_d3_m1"}) in clusters                       # dismissal stays alone
    assert rec["counts"]["mentions"] == len(rows)
    assert rec["options"]["lh_threshold"] == 0.05
    # every metric value has a bootstrap interval around it
    for key in ("muc_f1", "bcub_f1", "ceafe_f1", "conll_f1", "lea_f1"):
        ci = rec["confidence_intervals"][key]
        assert ci["low"] <= rec["scores"][key] + 1e-9 and ci["high"] >= rec["scores"][key] - 1e-9
    assert set(rec["confidence_intervals"]) <= set(rec["scores"])
    assert "conll_f1" in rec["scores"] and 0 < rec["scores"]["conll_f1"] <= 1


def test_scores_equal_direct_metric_call(rows, train_rows):
    from figbench.schema import gold_clusters
    from figbench.scoring.coref import evaluate_coref

    rec = run(_args(train_rows, method="lemma", n_resamples=0), rows=rows)
    pred = rec["predictions"]["inline"]["clusters"]
    direct = evaluate_coref([pred], gold_clusters(rows))
    assert rec["scores"]["conll_f1"] == pytest.approx(direct["conll_f1"])
    assert rec["confidence_intervals"] == {}


def test_lemma_within_none_merges_across_topics(rows, train_rows):
    rec = run(_args(train_rows, method="lemma", within=None, n_resamples=0), rows=rows)
    clusters = {frozenset(c) for c in rec["predictions"]["inline"]["clusters"]}
    assert frozenset({"t1_d3_m2", "t2_d3_m1"}) in clusters


def test_oracle_matches_independent_bcubed(rows, train_rows):
    from figbench_baselines.cdec.steps.filters import lh_pairs, synonymous_lemma_pairs

    pairs = lh_pairs(rows, synonymous_lemma_pairs(train_rows), 0.05, within="topic")
    labels = oracle_labels(rows, pairs)
    # independent B-cubed recall: mean over mentions of |key ∩ response| / |key|
    gold = {}
    for r in rows:
        gold.setdefault(r["cluster_id"], set()).add(r["mention_id"])
    resp = {}
    for r, lab in zip(rows, labels):
        resp.setdefault(lab, set()).add(r["mention_id"])
    pred_of = {m: c for c in resp.values() for m in c}
    expected = np.mean([len(gold[r["cluster_id"]] & pred_of[r["mention_id"]]) / len(gold[r["cluster_id"]])
                        for r in rows])
    assert oracle_bcubed_recall(rows, pairs) == pytest.approx(expected)
    assert 0 < gold_pair_recall(rows, pairs) <= 1
    # an oracle never merges two gold clusters: B-cubed precision is 1
    s = evaluate(rows, labels)
    assert s[find_key(s, "bcubed", "precision")] == pytest.approx(1.0)
    rec = run(_args(train_rows, method="lh_oracle", n_resamples=0), rows=rows)
    assert rec["scores"]["bcub_recall"] == pytest.approx(expected)
    assert rec["model"]["type"] == "other"


def test_scorch_agrees_on_conll(rows, train_rows):
    scorch = pytest.importorskip("scorch.scores")
    rec = run(_args(train_rows, method="lh", n_resamples=0), rows=rows)
    pred = [set(c) for c in rec["predictions"]["inline"]["clusters"]]
    gold = {}
    for r in rows:
        gold.setdefault(r["cluster_id"], set()).add(r["mention_id"])
    conll = scorch.conll2012(list(gold.values()), pred)
    assert rec["scores"]["conll_f1"] == pytest.approx(conll, abs=1e-6)


def test_empty_candidates_is_an_error(rows, train_rows):
    with pytest.raises(ValueError, match="no candidate pairs"):
        run(_args(train_rows, method="lh", lh_threshold=0.999), rows=rows)


def test_split_without_gold_is_an_error(rows, train_rows):
    bad = [dict(r, cluster_id="") for r in rows]
    with pytest.raises(ValueError, match="gold cluster"):
        run(_args(train_rows, method="lh"), rows=bad)
    bad_train = [dict(r, cluster_id="") for r in train_rows]
    with pytest.raises(ValueError, match="gold cluster"):
        run(_args(bad_train, method="lh"), rows=rows)
    with pytest.raises(ValueError, match="no mentions"):
        run(_args(train_rows, method="lh"), rows=[])


def test_missing_field_names_the_mention(rows, train_rows):
    broken = [dict(rows[0])] + rows[1:]
    del broken[0]["head_lemma"]
    with pytest.raises(ValueError, match="t1_d1_m1"):
        run(_args(train_rows, method="lh"), rows=broken)


def test_per_topic_scores(rows, train_rows):
    rec = run(_args(train_rows, method="lh", n_resamples=0, per_topic=True), rows=rows)
    per = rec["options"]["per_topic_scores"]
    assert set(per) == {"1", "2"}
    assert all(0 <= v["conll_f1"] <= 1 for v in per.values())


def test_predicted_document_roundtrip(rows):
    doc = predicted_document(rows, np.array([0, 0, 1] + [2] * (len(rows) - 3)))
    assert sorted(map(len, doc)) == [1, 2, len(rows) - 3]


def test_predictions_file_and_remove_singletons(rows, train_rows, tmp_path):
    pf = tmp_path / "pred.json"
    rec = run(_args(train_rows, method="lh", n_resamples=0, predictions_file=str(pf)), rows=rows)
    assert rec["predictions"] == {"path": str(pf)}
    clusters = json.loads(pf.read_text())["clusters"]
    assert sorted(m for c in clusters for m in c) == sorted(r["mention_id"] for r in rows)
    rec2 = run(_args(train_rows, method="lh", n_resamples=0, remove_singletons=True), rows=rows)
    assert rec2["options"]["remove_singletons"] is True
    assert rec2["scores"]["conll_f1"] != pytest.approx(rec["scores"]["conll_f1"])


def test_greedy_and_average_clustering_options(rows, train_rows):
    for method in ("greedy", "average"):
        rec = run(_args(train_rows, method="lh", n_resamples=0, clustering=method), rows=rows)
        assert rec["options"]["clustering"] == method
        assert rec["options"].get("greedy_unscored") == ("zero" if method == "greedy" else None)
        # all LH scores are 1 and the fixture has no chains of pairs: every clustering gives the components
        base = run(_args(train_rows, method="lh", n_resamples=0), rows=rows)
        assert sorted(map(sorted, rec["predictions"]["inline"]["clusters"])) == \
            sorted(map(sorted, base["predictions"]["inline"]["clusters"]))


def test_records_state_whether_same_sentence_pairs_were_dropped(rows, train_rows):
    """Only LH's filter drops same-sentence pairs: lh records say so (unless --keep-same-sentence); lemma does not."""
    assert run(_args(train_rows, method="lh", n_resamples=0), rows=rows)["options"]["skip_same_sentence"] is True
    kept = run(_args(train_rows, method="lh", n_resamples=0, keep_same_sentence=True), rows=rows)
    assert kept["options"]["skip_same_sentence"] is False
    assert run(_args(train_rows, method="lemma", n_resamples=0), rows=rows)["options"]["skip_same_sentence"] is False


def test_method_table_drives_the_pipeline_and_the_protocol():
    from figbench_baselines.cdec.cli import build_parser
    from figbench_baselines.cdec.specs.protocol import protocol_of
    from figbench_baselines.cdec.steps.pipeline_defaults import METHOD_TABLE, METHODS, method

    choices = next(a.choices for a in build_parser()._actions if a.dest == "method")
    assert tuple(choices) == METHODS == tuple(METHOD_TABLE)
    assert [m.name for m in METHOD_TABLE.values() if m.oracle] == ["lh_oracle", "knn_oracle"]
    with pytest.raises(ValueError, match="unknown method 'nope'; choose from lemma, lh"):
        method("nope")
    # the protocol reads the CLI's own defaults: a changed default shows, no copy of it in specs.py
    argv = ("cdec", "--dataset", "ecbplus", "--config", "events", "--split", "test", "--method", "ce_knn")
    proto = protocol_of("ecbplus", "events", "ce_knn", argv)
    assert proto["candidates"] == "k=5 neighbours within the group (FAISS flat)" and proto["pair threshold"] == "0.5"
    assert "threshold" not in proto  # no LH filter
    proto = protocol_of("ecbplus", "events", "ce_knn", (*argv, "--k", "7", "--threshold", "0.25"))
    assert proto["candidates"].startswith("k=7 ") and proto["pair threshold"] == "0.25"


def test_committed_cdec_records_state_what_was_done():
    """Issue 22: KNN records said skip_same_sentence: True while KNN keeps same-sentence pairs."""
    from figbench_baselines.cdec.steps.pipeline_defaults import method
    from figbench_baselines.specs import all_specs

    from tests.conftest import ROOT

    checked = 0
    for spec in all_specs():
        path = ROOT / "results" / f"{spec.name}.json"
        if spec.family != "cdec" or not path.is_file():
            continue
        rec = json.loads(path.read_text())
        expect = method(spec.method).drops_same_sentence and "--keep-same-sentence" not in spec.argv
        assert rec["options"]["skip_same_sentence"] is expect, spec.name
        checked += 1
    assert checked > 50


def test_training_corpus_beside_or_under_data_dir(tmp_path, monkeypatch):
    """ECB+ (ECB+META's training corpus) under a data root given as --data-dir, or beside the ECB+META folder."""
    from figbench_baselines.cdec.steps.data import sibling_data_dir

    monkeypatch.delenv("FIGBENCH_DATA_DIR", raising=False)
    (tmp_path / "ecbplus").mkdir()
    (tmp_path / "ecbmeta").mkdir()
    assert sibling_data_dir(str(tmp_path), "ecbplus") == str(tmp_path / "ecbplus")
    assert sibling_data_dir(str(tmp_path / "ecbmeta"), "ecbplus") == str(tmp_path / "ecbplus")
