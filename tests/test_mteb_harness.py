"""Issue 36: figbench's embedding tasks as MTEB tasks, run by ``mteb.evaluate`` (mteb 2.26) with the bundled
all-MiniLM-L6-v2, offline.

Every task on a small part of its splits (``max_examples``); ePiC similar narratives on the whole seen test split,
where MTEB's ``precision_at_1`` (self-matches ignored) is the protocol of ``figbench baseline epic --task similar
--method embedding`` with the same encoder: the two numbers are equal.
"""

from __future__ import annotations

import json
import os

import pytest

from figbench.cli import main
from tests.conftest import corpus_path


@pytest.fixture(scope="module")
def mteb():
    """mteb, imported by the tests that use it (its import costs every xdist worker 2 s at collection)."""
    return pytest.importorskip("mteb")


@pytest.fixture(scope="module")
def minilm(mteb):
    from figbench_baselines.common.encoder import default_model_path
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(default_model_path(), device="cpu")


def _score(mteb, model, task, tmp_path):
    result = mteb.evaluate(model, task, cache=None, show_progress_bar=False, prediction_folder=tmp_path / "pred")
    [res] = result.task_results
    return res.get_score(), json.loads((tmp_path / "pred" / task.prediction_file_name).read_text())


@pytest.mark.slow
def test_every_figbench_mteb_task_runs_offline(mteb, minilm, tmp_path, monkeypatch, capsys):
    for corpus in ("epic", "wimcor", "meta4xnli", "ecbplus", "ecbmeta"):
        corpus_path(corpus)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    from figbench.harnesses.mteb_tasks import TASK_CLASSES, tasks

    assert main(["mteb", "tasks"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert [ln.split()[0] for ln in listed] == [c.metadata.name for c in TASK_CLASSES]
    assert {ln.split()[1] for ln in listed} == {"Retrieval", "Classification", "PairClassification", "Clustering"}
    for task in tasks(max_examples=20):
        score, predictions = _score(mteb, minilm, task, tmp_path / task.metadata.name)
        assert 0.0 <= score <= 1.0, task.metadata.name
        assert predictions["default"]["test"], task.metadata.name   # MTEB wrote its per-example predictions


@pytest.mark.ci_stage   # MTEB and the baseline each on all 1,000 narratives (80 s): in make test-ci; make test runs
# the same task through mteb.evaluate above and the baseline's embedding path in test_fig_epic_baselines.py
@pytest.mark.slow
def test_similar_narratives_equals_the_figbench_baseline(mteb, minilm, tmp_path, monkeypatch):
    corpus_path("epic")
    monkeypatch.setenv("FIGBENCH_CACHE", str(tmp_path / "cache"))
    from figbench.harnesses.mteb_tasks import FigbenchEpicSimilarNarratives

    score, _ = _score(mteb, minilm, FigbenchEpicSimilarNarratives(), tmp_path)
    out = tmp_path / "similar.json"
    assert main(["baseline", "epic", "--task", "similar", "--config", "seen", "--method", "embedding",
                 "--n-resamples", "0", "--out", str(out)]) == 0
    record = json.loads(out.read_text())
    assert record["counts"]["n_test"] == 1000
    assert "all-MiniLM-L6-v2" in record["model"]["name"]
    assert score == pytest.approx(record["scores"]["accuracy"], abs=1e-5)   # MTEB rounds to 5 decimals


def test_from_mteb_is_refused_with_the_reason(tmp_path, capsys):
    os.makedirs(tmp_path / "mteb-out")
    assert main(["submit", "--from-mteb", str(tmp_path / "mteb-out"), "--to", str(tmp_path / "store")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "MTEB keeps aggregate scores" in err[0] and "precision_at_1" in err[0]
