"""figbench.scoring.conll_io: reading CoNLL-2011/2012 coreference files, and scoring two files."""

from __future__ import annotations

from pathlib import Path

import pytest

from figbench.scoring.conll_io import aligned_documents, read_conll, score_conll, write_conll

FIX = Path(__file__).resolve().parent / "fixtures" / "coref"
A = "(nw/test/00/doc_a); part 000"
B = "(nw/test/00/doc_b); part 001"


def test_read_nested_multitoken_multidocument():
    docs = read_conll(FIX / "nested.key.conll")
    assert docs == {
        # entity 1: "The old man who" (tokens 0-3) and "He" (5); entity 2 nested "The old man";
        # (7+1) double antecedent discarded
        A: [[f"{A}:0-3", f"{A}:5-5"], [f"{A}:0-2"], [f"{A}:7-7"]],
        B: [[f"{B}:0-0", f"{B}:2-2"], [f"{B}:2-3"]],
    }


def test_read_from_text_equals_read_from_path():
    text = (FIX / "nested.key.conll").read_text()
    assert read_conll(text) == read_conll(FIX / "nested.key.conll")
    assert read_conll(str(FIX / "nested.key.conll")) == read_conll(text)


def test_score_two_files_equals_reference_scorer():
    """Numbers printed by the reference scorer v8.01 (scorer.pl all) on these two files."""
    s = score_conll(FIX / "nested.key.conll", FIX / "nested.response.conll")
    expected = {
        "mentions": (6 / 7, 1.0, 12 / 13),
        "muc": (1.0, 2 / 3, 0.8),
        "bcub": (0.8571428571428571, 0.77777777777777768, 0.81553398058252413),
        "ceafm": (0.7142857142857143, 0.83333333333333337, 0.76923076923076916),
        "ceafe": (0.55999999999999994, 0.93333333333333324, 0.7),
        "blanc": (0.64285714285714279, 0.75, 0.55555555555555558),
    }
    for metric, (r, p, f) in expected.items():
        assert s[f"{metric}_recall"] == pytest.approx(r, abs=1e-9)
        assert s[f"{metric}_precision"] == pytest.approx(p, abs=1e-9)
        assert s[f"{metric}_f1"] == pytest.approx(f, abs=1e-9)


def test_per_document_scores_use_document_names():
    s = score_conll(FIX / "nested.key.conll", FIX / "nested.response.conll", per_document=True)
    assert [d["document"] for d in s["per_document"]] == [A, B]
    assert s["per_document"][1]["conll_f1"] == 1.0


def test_write_read_roundtrip(tmp_path):
    docs = {"d1": [["d1:0-2", "d1:4-4"], ["d1:1-1"]], "d2": [["d2:3-5"]]}
    write_conll(docs, tmp_path / "x.conll")
    assert read_conll(tmp_path / "x.conll") == docs


def _doc(*lines: str, name: str = "d") -> str:
    return "\n".join([f"#begin document {name}", *[f"{name}\t{i}\ttok\t{c}" for i, c in enumerate(lines)],
                      "#end document"]) + "\n"


@pytest.mark.parametrize(
    "text, message",
    [
        (_doc("(1", "-", "-"), r"document 'd', line 2: mention of entity 1 opened here is never closed"),
        (_doc("-", "1)"), r"document 'd', line 3: entity 1 closes a mention that was never opened"),
        (_doc("(1)", "(1)|(2)"), r"document 'd', line 3: mention 1-1 is annotated twice \(entity 1 on line 3"),
        (_doc("(1)", "(x)"), r"document 'd', line 3: cannot read coreference annotation '\(x\)'"),
        ("#begin document d\nd\t0\t(1)\n", r"document 'd' \(begins on line 1\): no '#end document'"),
        ("#begin document d\nd\t0\t(1)\n#begin document e\n#end document\n",
         r"line 3: '#begin document' inside a document that began on line 1"),
        (_doc("(1)") + _doc("(2)"), r"line 4: document 'd' appears twice"),
    ],
)
def test_malformed_conll(text, message):
    with pytest.raises(ValueError, match=message):
        read_conll(text)


def test_malformed_file_error_names_the_file(tmp_path):
    path = tmp_path / "bad.conll"
    path.write_text(_doc("(3", "-"))
    with pytest.raises(ValueError, match=rf"{path}, document 'd', line 2"):
        read_conll(path)


def test_missing_file():
    with pytest.raises(FileNotFoundError):
        read_conll("/nonexistent/key.conll")


def test_document_on_one_side_only(tmp_path):
    (tmp_path / "k").write_text(_doc("(1)", name="a") + _doc("(1)", name="b"))
    (tmp_path / "r").write_text(_doc("(1)", name="a") + _doc("(1)", name="c"))
    with pytest.raises(ValueError, match=r"one side only: in .*k only: 'b'; in .*r only: 'c'"):
        score_conll(tmp_path / "k", tmp_path / "r")


def test_aligned_documents_key_order():
    names, preds, refs = aligned_documents({"x": [["1"]], "y": [["2"]]}, {"y": [["b"]], "x": [["a"]]})
    assert names == ["x", "y"] and preds == [[["a"]], [["b"]]] and refs == [[["1"]], [["2"]]]


def test_key_without_documents(tmp_path):
    (tmp_path / "k").write_text("no documents here\n")
    (tmp_path / "r").write_text("")
    with pytest.raises(ValueError, match="no '#begin document' blocks"):
        score_conll(tmp_path / "k", tmp_path / "r")
