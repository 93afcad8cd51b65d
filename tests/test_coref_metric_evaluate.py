"""The `evaluate` metric metrics/conll_coref and the `figbench score coref` command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import figbench
from figbench.cli import main
from figbench.scoring.coref import SCORE_KEYS, evaluate_coref

FIX = Path(__file__).resolve().parent / "fixtures" / "coref"
KEY, RESPONSE = FIX / "nested.key.conll", FIX / "nested.response.conll"


@pytest.fixture(scope="module")
def metric():
    import evaluate

    return evaluate.load(figbench.metric_path("conll_coref"))


def test_metric_path_and_card():
    path = Path(figbench.metric_path("conll_coref"))
    card = (path / "README.md").read_text()
    assert (path / "conll_coref.py").is_file()
    assert "figbench/conll_coref" in card  # Hub id form for publishing
    assert "v8.01" in card and "LEA" in card


def test_compute_equals_scoring_function(metric):
    preds = [[["a", "b"], ["c", "x"]], [["d"], ["e", "f"]]]
    refs = [[["a", "b", "c"]], [["d", "e"], ["f"]]]
    out = metric.compute(predictions=preds, references=refs)
    assert set(out) == set(SCORE_KEYS)
    assert out == pytest.approx(evaluate_coref(preds, refs), abs=1e-15)


def test_compute_options(metric):
    preds = [[["a", "b"], ["c"]], [["d", "e"]]]
    refs = [[["a", "b"], ["c"]], [["d"], ["e"]]]
    out = metric.compute(predictions=preds, references=refs, per_document=True, remove_singletons=True,
                         n_resamples=100, seed=1)
    assert len(out["per_document"]) == 2
    assert out["confidence_intervals"]["muc_f1"]["n_resamples"] == 100
    assert out["muc_precision"] == pytest.approx(1 / 2)


def test_compute_conll_files(metric):
    out = metric.compute(predictions=[], references=[], key_file=str(KEY), response_file=str(RESPONSE))
    assert out["muc_precision"] == pytest.approx(2 / 3)


def test_compute_bad_input(metric):
    with pytest.raises(ValueError, match="mention ids must be strings"):
        metric.compute(predictions=[[[1, 2]]], references=[[["1", "2"]]])
    with pytest.raises(ValueError, match="duplicate mention 'a'"):
        metric.compute(predictions=[[["a", "a"]]], references=[[["a"]]])


def test_cli_score_coref_table(capsys):
    assert main(["score", "coref", str(KEY), str(RESPONSE)]) == 0
    out = capsys.readouterr().out
    assert "2 document(s)" in out
    muc = next(line for line in out.splitlines() if line.startswith("muc"))
    assert muc.split()[1:] == ["100.00", "66.67", "80.00"]


def test_cli_score_coref_json_with_intervals(capsys):
    assert main(["score", "coref", str(KEY), str(RESPONSE), "--json", "--per-document", "--bootstrap", "50"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["bcub_f1"] == pytest.approx(0.81553398058252413, abs=1e-9)
    assert len(result["per_document"]) == 2
    assert result["confidence_intervals"]["conll_f1"]["unit"] == "documents"


def test_cli_score_coref_bad_file(tmp_path, capsys):
    bad = tmp_path / "bad.conll"
    bad.write_text("#begin document d\nd\t0\t(1\n#end document\n")
    assert main(["score", "coref", str(KEY), str(bad)]) == 1
    assert "never closed" in capsys.readouterr().err
