"""``figbench baseline trivial``: the trivial baselines a task's kind offers, on any benchmark, one spec line each."""

from __future__ import annotations

import json

import pytest

from figbench.cli import main
from tests.baseline_splits import fixture_splits, use_fixture_splits


@pytest.fixture(autouse=True)
def _fixture_splits(monkeypatch):
    use_fixture_splits(monkeypatch)


def _run(tmp_path, *argv: str) -> dict:
    out = tmp_path / "r.json"
    assert main(["baseline", "trivial", *argv, "--out", str(out), "--n-resamples", "20"]) == 0
    return json.loads(out.read_text())


def test_coreference_singletons_and_one_cluster_per_topic(tmp_path):
    test = fixture_splits("ecbplus", "events")["test"]
    single = _run(tmp_path, "--task", "cdec", "--dataset", "ecbplus", "--config", "events", "--method", "singletons")
    clusters = single["predictions"]["inline"]
    assert len(clusters) == len(test) and all(len(c) == 1 for c in clusters)
    assert single["method"] == "singletons" and single["model"]["name"] == "figbench-singletons"
    assert single["scores"]["muc_f1"] == 0.0  # no links
    topics = _run(tmp_path, "--task", "cdec", "--dataset", "ecbplus", "--config", "events",
                  "--method", "one_cluster_per_topic")
    assert len(topics["predictions"]["inline"]) == len(set(test["topic"]))
    assert topics["scores"]["muc_recall"] == 1.0  # every gold link is inside a topic


def test_label_baselines_count_the_training_labels(tmp_path):
    from collections import Counter

    splits = fixture_splits("wimcor", "sample")
    names = splits["train"].features["medium"].names
    counts = Counter(names[v] for v in splits["train"]["medium"])
    rec = _run(tmp_path, "--task", "metonymy", "--dataset", "wimcor", "--config", "sample", "--method", "majority")
    assert set(rec["predictions"]["inline"].values()) == {max(sorted(counts), key=counts.get)}
    assert rec["counts"]["n_train"] == len(splits["train"]) and rec["options"]["trivial"] == "majority"
    prior = _run(tmp_path, "--task", "metonymy", "--dataset", "wimcor", "--config", "sample", "--method", "prior",
                 "--record-method", "random_prior", "--seed", "4")
    assert prior["method"] == "random_prior" and set(prior["predictions"]["inline"].values()) <= set(counts)


def test_a_method_the_kind_does_not_offer_is_a_clear_error(tmp_path, capsys):
    out = tmp_path / "r.json"
    code = main(["baseline", "trivial", "--task", "cdec", "--dataset", "ecbplus", "--method", "majority",
                 "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 1 and not out.exists()
    assert "task cdec (clustering) offers no trivial baseline 'majority'; it offers: singletons, " in err


def test_wimcor_trivial_rows_are_spec_lines_of_the_trivial_family():
    from figbench_baselines.specs import all_specs
    from figbench_baselines.wimcor.cli import METHODS

    rows = {s.name: s for s in all_specs() if s.family == "trivial"}
    assert {"wimcor_majority_sample_test", "wimcor_random_prior_sample_test", "cdec_singletons_ecbplus_test",
            "cdec_one_cluster_per_topic_meta_m_test"} <= set(rows)
    assert rows["wimcor_random_prior_sample_test"].method == "random_prior"
    assert not {"majority", "random", "random_prior"} & set(METHODS)  # no copy of them in the WiMCor family


def test_data_dir_is_a_data_root_as_everywhere(tmp_path, monkeypatch):
    """``--data-dir`` of a baseline names the data root (or a search path), as for ``leaderboard serve``."""
    import os

    from tests.conftest import corpus_path

    root = corpus_path("wimcor", "wiki_LOCATION_train.txt").parent.parent
    monkeypatch.undo()   # the real builder, not the fixture splits
    monkeypatch.setenv("FIGBENCH_DATA_DIR", str(tmp_path / "elsewhere"))
    for data_dir in (str(root), f"{tmp_path / 'empty'}{os.pathsep}{root}", str(root / "wimcor")):
        rec = _run(tmp_path, "--task", "metonymy", "--dataset", "wimcor", "--config", "sample", "--method",
                   "majority", "--data-dir", data_dir)
        assert rec["counts"]["n_test"] == 2173, data_dir
