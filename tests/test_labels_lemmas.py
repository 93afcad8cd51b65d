"""figbench.labels.decode_labels and the one lookup lemmatizer (figbench.corpora.lemmas)."""

from __future__ import annotations

import pytest

import datasets
from figbench.corpora import meta4xnli, wimcor
from figbench.corpora.lemmas import lookup_lemma
from figbench.labels import decode_labels, label_names
from figbench.loading import load_dataset_builder


def _features(name: str, config: str) -> datasets.Features:
    return load_dataset_builder(name, config, data_dir="/nonexistent").info.features


def test_builders_declare_the_corpus_label_sets():
    det, nli = _features("meta4xnli", "detection_en"), _features("meta4xnli", "interpretation")
    assert label_names(det, "tags") == meta4xnli.TAGS and label_names(nli, "gold_label") == meta4xnli.NLI_LABELS
    w = _features("wimcor", "sample")
    assert label_names(w, "medium") == wimcor.MEDIUM_LABELS and label_names(w, "coarse") == wimcor.COARSE_LABELS
    assert label_names(w, "text") is None


def test_decode_labels():
    det = _features("meta4xnli", "detection_en")
    assert decode_labels(det, "tags", [0, 1, 2, "O"]) == ["O", "B-METAPHOR", "I-METAPHOR", "O"]
    ds = datasets.Dataset.from_dict({"gold_label": [2, 0]}, features=datasets.Features(
        {"gold_label": datasets.ClassLabel(names=list(meta4xnli.NLI_LABELS))}))
    assert decode_labels(ds, "gold_label", ds["gold_label"]) == ["contradiction", "entailment"]
    assert decode_labels(datasets.DatasetDict(test=ds), "gold_label", [1]) == ["neutral"]
    with pytest.raises(ValueError, match=r"column 'gold_label': unknown label id 3"):
        decode_labels(ds, "gold_label", [3])
    with pytest.raises(ValueError, match=r"unknown label id -1.*without a label"):
        decode_labels(ds, "gold_label", [-1])
    with pytest.raises(ValueError, match=r"no column 'label'"):
        decode_labels(ds, "label", [0])
    w = _features("wimcor", "sample")
    with pytest.raises(ValueError, match=r"column 'text' has no label names"):
        decode_labels(w, "text", [0])
    assert decode_labels(w, "text", ["free text"]) == ["free text"]
    # ids that are not plain ints take the checked path: numpy ids decode, booleans and floats are refused
    import numpy as np

    assert decode_labels(ds, "gold_label", np.array([1, 0])) == ["neutral", "entailment"]
    for bad in (True, 1.0):
        with pytest.raises(ValueError, match=r"is not a label id"):
            decode_labels(ds, "gold_label", [0, bad])


def test_detection_rows_decode_tags_and_name_a_row_whose_lengths_differ():
    from figbench_baselines.meta4xnli.data import detection_rows

    feats = datasets.Features({"id": datasets.Value("string"), "tokens": datasets.Sequence(datasets.Value("string")),
                               "tags": datasets.Sequence(datasets.ClassLabel(names=list(meta4xnli.TAGS)))})
    ds = datasets.Dataset.from_dict({"id": ["a", "b"], "tokens": [["He", "ran"], ["It", "flew", "by"]],
                                     "tags": [[0, 1], [0, 1, 2]]}, features=feats)
    rows = detection_rows(ds, "fixture/train")
    assert [dict(r) for r in rows] == [
        {"id": "a", "tokens": ["He", "ran"], "tags": ["O", "B-METAPHOR"], "source": ""},
        {"id": "b", "tokens": ["It", "flew", "by"], "tags": ["O", "B-METAPHOR", "I-METAPHOR"], "source": ""}]
    bad = datasets.Dataset.from_dict({"id": ["a", "b"], "tokens": [["He", "ran"], ["It", "flew"]],
                                      "tags": [[0, 1], [0, 1, 2]]}, features=feats)
    with pytest.raises(ValueError, match=r"fixture/train row b: 2 tokens but 3 tags"):
        detection_rows(bad, "fixture/train")


def test_lemma_case_rules():
    assert lookup_lemma("Arrested") == "arrest"  # ECB+: as written, then lower-cased
    assert lookup_lemma("Arrested", case="exact") == "arrested"  # spaCy's lookup lemmatizer (WEC-Eng)
    assert lookup_lemma("Arrested", case="lower") == "arrest"  # metaphor vocabulary
    assert lookup_lemma("tours quakes", case="exact", tokenize=True) == "tour quake"
    assert lookup_lemma("Perros", "es", case="lower") == "perro"
    with pytest.raises(ValueError, match="unknown case rule"):
        lookup_lemma("x", case="upper")
