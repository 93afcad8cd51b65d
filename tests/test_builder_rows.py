"""figbench.corpora.builder.rows_to_table: the builders' batch Arrow encoding equals datasets' row-by-row path."""

from __future__ import annotations

import pytest

import datasets
from figbench.corpora.builder import rows_to_table, rows_to_table_one_by_one
from figbench.schema import COREF_DOCUMENT_FEATURES, COREF_MENTION_FEATURES

MIXED = datasets.Features({
    "id": datasets.Value("string"),
    "n": datasets.Value("int32"),
    "x": datasets.Value("float32"),
    "flag": datasets.Value("bool"),
    "label": datasets.ClassLabel(names=["literal", "metaphor", "other"]),
    "tags": datasets.Sequence(datasets.ClassLabel(names=["O", "B-MET", "I-MET"])),
    "tokens": datasets.Sequence(datasets.Value("string")),
    "offsets": datasets.List(datasets.List(datasets.Value("int32"))),
    "pairs": datasets.List({"span": datasets.Value("string"), "start": datasets.Value("int32")}),
})


def _mixed_rows() -> list[dict]:
    return [
        {"id": "a", "n": 1, "x": 0.5, "flag": True, "label": "metaphor", "tags": ["O", "B-MET", "I-MET"],
         "tokens": ["a", "b"], "offsets": [[0, 1], [2, 3]], "pairs": [{"span": "s", "start": 3}]},
        # ids instead of names, tuples instead of lists, empty lists
        {"id": "b", "n": 2, "x": 1, "flag": False, "label": 2, "tags": (0, 1), "tokens": ("c",), "offsets": [],
         "pairs": []},
        # values encode_example converts: an int id, a float count, an int flag, a numpy-free mix in a list
        {"id": 7, "n": 3.0, "x": 2, "flag": 1, "label": "literal", "tags": ["O", 1], "tokens": ["d", "5"],
         "offsets": [[1.0]], "pairs": [{"span": 9, "start": 4.0}]},
        # nulls and a missing key
        {"id": None, "n": None, "x": None, "flag": None, "label": None, "tags": None, "tokens": None,
         "offsets": None},
    ]


@pytest.mark.parametrize("n_rows", [1, 4])
def test_mixed_features_equal_the_row_by_row_path(n_rows):
    rows = _mixed_rows()[:n_rows]
    table = rows_to_table(rows, MIXED)
    assert table.equals(rows_to_table_one_by_one(rows, MIXED))
    assert table.schema == MIXED.arrow_schema
    if n_rows == 4:
        got = table.to_pylist()
        assert got[2]["id"] == "7" and got[2]["n"] == 3 and got[2]["tokens"] == ["d", "5"]
        assert got[1]["label"] == 2 and got[0]["tags"] == [0, 1, 2] and got[3]["pairs"] is None


def test_coref_schemas_equal_the_row_by_row_path(rows):
    mention_rows = [{k: r.get(k) for k in COREF_MENTION_FEATURES} for r in rows]
    table = rows_to_table(mention_rows, COREF_MENTION_FEATURES)
    assert table.num_rows == len(rows) > 10
    assert table.equals(rows_to_table_one_by_one(mention_rows, COREF_MENTION_FEATURES))
    docs = [{"doc_id": "1_1ecb", "topic": "1", "subtopic": "1_ecb", "tokens": ["A", "b", "."],
             "sentence_ids": [0, 0, 0]}]
    assert rows_to_table(docs, COREF_DOCUMENT_FEATURES).equals(rows_to_table_one_by_one(docs, COREF_DOCUMENT_FEATURES))


def test_bad_values_are_refused_like_the_row_by_row_path():
    with pytest.raises(ValueError, match="^row 0 \\(a\\), field 'label': .*nonexistent"):
        rows_to_table([{"id": "a", "label": "nonexistent"}], MIXED)
    with pytest.raises(ValueError, match="nonexistent"):
        rows_to_table_one_by_one([{"id": "a", "label": "nonexistent"}], MIXED)


def test_a_value_that_cannot_be_stored_names_row_and_field():
    # (datasets' own writer would store ['"d"', '5'] here: a JSON dump of the list's items)
    with pytest.raises(ValueError, match=r"^row 1001 \(x2\), field 'tokens': \['d', 5\]"):
        rows_to_table([{"tokens": ["a"]}, {"id": "x2", "tokens": ["d", 5]}], MIXED, first_row=1000)


def test_a_field_outside_the_features_names_the_row_and_field():
    with pytest.raises(ValueError, match=r"row 1 \(b\).*\['lemma'\]"):
        rows_to_table([{"id": "a"}, {"id": "b", "lemma": "x"}], MIXED)
