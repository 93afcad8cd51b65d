"""figbench.scoring.coref against the CoNLL reference scorer's published and computed numbers."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from figbench.scoring.conll_io import read_conll, score_conll, write_conll
from figbench.scoring.coref import evaluate_coref

FIX = Path(__file__).resolve().parent / "fixtures" / "coref"
PRADHAN = json.loads((FIX / "pradhan2014_cases.json").read_text())
REFSCORER = json.loads((FIX / "refscorer" / "expected.json").read_text())
DOC = "(LuoTestCase); part 000"


def _clusters(spec: str, spans: dict[str, list[int]]) -> list[list[str]]:
    return [[f"{DOC}:{spans[ch][0]}-{spans[ch][1]}" for ch in group.strip("{}")] for group in spec.split()]


def _tolerance(published: str) -> float:
    # 5-decimal numbers in the published config are roundings; everything else is exact
    return 5e-6 if re.fullmatch(r"\d\.\d{5}", published) else 1e-9


@pytest.mark.parametrize("case", PRADHAN["cases"], ids=[c["id"] for c in PRADHAN["cases"]])
def test_published_test_cases(case):
    spans = PRADHAN["spans"][case["key"]]
    key = _clusters(PRADHAN["keys"][case["key"]], spans)
    response = _clusters(case["response"], spans)
    scores = evaluate_coref([response], [key])
    checked = 0
    for metric, triple in case["expected"].items():
        for part, exp in zip(("recall", "precision", "f1"), triple):
            got = scores[f"{metric}_{part}"]
            assert got == pytest.approx(exp["value"], abs=_tolerance(exp["published"])), (case["id"], metric, part)
            checked += 1
    assert checked >= 3


@pytest.mark.parametrize("case", ["A3", "A5", "A13", "D1"])
def test_published_cases_through_conll_files(case, tmp_path):
    """The same cases written as CoNLL files and read back score identically."""
    spec = next(c for c in PRADHAN["cases"] if c["id"] == case)
    spans = PRADHAN["spans"][spec["key"]]
    key = {DOC: _clusters(PRADHAN["keys"][spec["key"]], spans)}
    response = {DOC: _clusters(spec["response"], spans)}
    write_conll(key, tmp_path / "key.conll", n_tokens={DOC: 30})
    write_conll(response, tmp_path / "response.conll", n_tokens={DOC: 30})
    assert read_conll(tmp_path / "key.conll") == key
    from_files = score_conll(tmp_path / "key.conll", tmp_path / "response.conll")
    direct = evaluate_coref([response[DOC]], [key[DOC]])
    assert from_files == pytest.approx(direct, abs=1e-12)


@pytest.mark.parametrize("case", sorted(REFSCORER["cases"]))
def test_reference_scorer_outputs_on_random_files(case):
    """Multi-document CoNLL files with nested, multi-token and twinless mentions: equal to v8.01 to 1e-9."""
    scores = score_conll(FIX / "refscorer" / f"{case}.key", FIX / "refscorer" / f"{case}.response")
    expected = REFSCORER["cases"][case]
    assert set(expected) == {"mentions", "muc", "bcub", "ceafm", "ceafe", "blanc"}
    for metric, (r, p, f) in expected.items():
        assert scores[f"{metric}_recall"] == pytest.approx(r, abs=1e-9), metric
        assert scores[f"{metric}_precision"] == pytest.approx(p, abs=1e-9), metric
        assert scores[f"{metric}_f1"] == pytest.approx(f, abs=1e-9), metric


def test_refscorer_fixtures_are_multi_document_with_nesting():
    texts = [(FIX / "refscorer" / f"{c}.key").read_text() for c in REFSCORER["cases"]]
    assert any(t.count("#begin document") >= 3 for t in texts)
    assert any(re.search(r"\(\d+\|\(\d+", t) for t in texts)  # two mentions opening on one token
