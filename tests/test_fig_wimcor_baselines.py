"""WiMCor baselines: windows, trivial baselines, scores, bad input, and CLI runs on the sample files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from figbench_baselines.common.figurative import check_label_sets
from figbench_baselines.wimcor import methods
from figbench_baselines.wimcor.data import coarse_of, example_from_row

from figbench.cli import main
from figbench.results import read_result
from figbench.scoring.classification import score_labels
from tests.conftest import corpus_path, tiny_models

FIX = Path(__file__).parent / "fixtures" / "fig"


def _tiny():
    return tiny_models()


EX = {"id": "x", "tokens": "a b c d Paris e f g".split(), "pmw_start": 4, "pmw_end": 5, "label": "LOCATION",
      "coarse": "literal"}


def test_immediate_window_cuts_at_text_edges():
    words, s, e = methods.immediate_window(EX, 2)
    assert words == ["c", "d", "Paris", "e", "f"] and words[s:e] == ["Paris"]
    words, s, e = methods.immediate_window(EX, 10)
    assert words == EX["tokens"] and (s, e) == (4, 5)


def test_marked_text_wraps_pmw():
    assert methods.marked_text(EX, 1) == ["d", methods.PMW_OPEN, "Paris", methods.PMW_CLOSE, "e"]


def test_classification_scores_match_hand_computation():
    gold = ["A", "A", "B", "C"]
    pred = ["A", "B", "B", "B"]
    s = score_labels(gold, pred, ["A", "B", "C"], n_resamples=0).scores
    assert s["micro_f1"] == pytest.approx(0.5) and s["accuracy"] == pytest.approx(0.5)
    # per class F1: A = 2/3, B = 2*(1/3*1)/(4/3) = 0.5, C = 0
    assert s["macro_f1"] == pytest.approx((2 / 3 + 0.5 + 0) / 3)
    assert s["macro_precision"] == pytest.approx((1 + 1 / 3 + 0) / 3)


def test_label_set_mismatch_is_an_error():
    with pytest.raises(ValueError, match="mismatched label sets.*EVENT"):
        check_label_sets(["TEAM", "LOCATION"], ["TEAM", "EVENT"], where="wimcor")


def test_builder_row_offsets_checked():
    row = {"id": "r1", "text": "He went to Paris today.", "pmw": "Paris", "pmw_start": 11, "pmw_end": 16,
           "medium": "LOCATION", "coarse": "literal"}
    ex = example_from_row(row)
    assert ex["tokens"][ex["pmw_start"]:ex["pmw_end"]] == ["Paris"] and ex["coarse"] == "literal"
    with pytest.raises(ValueError, match="r1.*not the PMW"):
        example_from_row({**row, "pmw_start": 10, "pmw_end": 15})
    with pytest.raises(ValueError, match="r1.*outside"):
        example_from_row({**row, "pmw_start": 11, "pmw_end": 99})
    assert coarse_of("TEAM") == "metonymic" and coarse_of("LOCATION") == "literal"


def test_predicate_window_on_hand_parsed_doc():
    import spacy
    from spacy.tokens import Doc

    nlp = spacy.blank("en")
    words = ["Yesterday", "London", "signed", "the", "new", "treaty", "with", "Paris", "."]
    heads = [2, 2, 2, 5, 5, 2, 2, 6, 2]
    pos = ["NOUN", "PROPN", "VERB", "DET", "ADJ", "NOUN", "ADP", "PROPN", "PUNCT"]
    deps = ["npadvmod", "nsubj", "ROOT", "det", "amod", "dobj", "prep", "pobj", "punct"]
    doc = Doc(nlp.vocab, words=words, heads=heads, pos=pos, deps=deps)
    words_out, s, e = methods.predicate_window(doc, 7, 8, 1)  # Paris -> with -> signed
    assert words_out[s:e] == ["Paris"]
    assert words_out == ["London", "signed", "the", "Paris"]


def test_predicate_needs_a_parser_or_errors_clearly():
    import spacy

    if any("parser" in spacy.load(m).pipe_names for m in spacy.util.get_installed_models() if m.startswith("en_")):
        pytest.skip("a spaCy English parser is installed; the no-parser error path cannot be exercised")
    with pytest.raises(ValueError, match="dependency parser.*en_core_web_sm"):
        methods.find_parser("en")


def test_pooled_classifier_separates_separable_features():
    rng = np.random.default_rng(0)
    x = np.vstack([rng.normal(0, 1, (20, 4)), rng.normal(5, 1, (20, 4))])
    y = ["A"] * 20 + ["B"] * 20
    pred, stats = methods.pooled_classifier(x, y, x)
    assert pred == y and stats["classifier_inference_examples_per_s"] > 0


# ------------------------------------------------------------------ CLI on the real sample files

@pytest.fixture(scope="module")
def wimcor_dir():
    return str(corpus_path("wimcor", "wiki_LOCATION_train.txt").parent)


def test_cli_majority_on_sample(wimcor_dir, tmp_path):
    out = tmp_path / "maj.json"
    # the metonymy task's trivial baseline (figbench baseline trivial), as the wimcor_majority_sample_test spec
    assert main(["baseline", "trivial", "--task", "metonymy", "--dataset", "wimcor", "--config", "sample",
                 "--method", "majority", "--data-dir", wimcor_dir, "--out", str(out), "--n-resamples", "50"]) == 0
    rec = read_result(out)
    # the sample test split drops the 7 samples that also occur in train (issue 11): 2,173 of 2,180
    assert rec["task"] == "metonymy" and rec["config"] == "sample" and rec["counts"]["n_test"] == 2173
    # sample train classes: 500 each except EVENT (482): majority tie -> ARTIFACT (495 of 2173 test)
    assert rec["scores"]["micro_f1"] == pytest.approx(495 / 2173)
    assert set(rec["predictions"]["inline"].values()) == {"ARTIFACT"}
    ci = rec["confidence_intervals"]["micro_f1"]
    assert ci["low"] <= rec["scores"]["micro_f1"] <= ci["high"]


def test_cli_coarse_random(wimcor_dir, tmp_path):
    out = tmp_path / "rand.json"
    assert main(["baseline", "trivial", "--task", "metonymy", "--dataset", "wimcor", "--config", "sample",
                 "--method", "random", "--label-column", "coarse", "--data-dir", wimcor_dir,
                 "--out", str(out), "--n-resamples", "20"]) == 0
    rec = read_result(out)
    assert set(rec["predictions"]["inline"].values()) <= {"literal", "metonymic"}
    assert 0.4 < rec["scores"]["accuracy"] < 0.6


def test_cli_imm_and_finetune_with_tiny_model(wimcor_dir, tmp_path):
    model = _tiny().tiny_bert(tmp_path / "tiny")
    out = tmp_path / "imm.json"
    assert main(["baseline", "wimcor", "--method", "imm", "--window", "5", "--model", model, "--max-train", "60",
                 "--max-test", "40", "--data-dir", wimcor_dir, "--out", str(out), "--n-resamples", "20"]) == 0
    rec = read_result(out)
    assert rec["method"] == "imm5" and rec["counts"]["n_test"] == 40
    assert rec["provenance"]["throughput"]["inference_embed_examples_per_s"] > 0
    out2 = tmp_path / "ft.json"
    assert main(["baseline", "wimcor", "--method", "finetune", "--window", "10", "--model", model, "--max-train",
                 "24", "--max-test", "16", "--max-steps", "2", "--batch-size", "8", "--data-dir", wimcor_dir,
                 "--out", str(out2), "--n-resamples", "20"]) == 0
    rec2 = read_result(out2)
    assert rec2["model"]["type"] == "fine-tuned encoder" and rec2["options"]["train_steps"] == 2
    assert rec2["provenance"]["throughput"]["train_examples_per_s"] > 0


def test_cli_predicate_without_parser_fails_cleanly(wimcor_dir, tmp_path, capsys):
    import spacy

    if spacy.util.get_installed_models():
        pytest.skip("a spaCy pipeline is installed")
    out = tmp_path / "pre.json"
    assert main(["baseline", "wimcor", "--method", "predicate", "--data-dir", wimcor_dir, "--out", str(out)]) == 1
    assert "dependency parser" in capsys.readouterr().err
    assert not out.exists()


def test_cli_mismatched_label_sets_write_nothing(tmp_path, capsys):
    # a hand-written sample folder whose test split has a class (EVENT) that training lacks
    src = FIX / "wimcor_mismatch"
    out = tmp_path / "bad.json"
    code = main(["baseline", "wimcor", "--method", "imm", "--data-dir", str(src), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 1 and not out.exists()
    assert "mismatched label sets" in err and "EVENT" in err


@pytest.mark.slow
def test_cli_quick_imm_with_minilm(wimcor_dir, tmp_path):
    """The documented --quick path with the offline MiniLM encoder (further capped to stay short)."""
    out = tmp_path / "q.json"
    assert main(["baseline", "wimcor", "--method", "imm", "--window", "5", "--quick", "--max-train", "150",
                 "--max-test", "100", "--data-dir", wimcor_dir, "--out", str(out), "--n-resamples", "50"]) == 0
    rec = read_result(out)
    assert rec["model"]["encoder"] == "sentence-transformers/all-MiniLM-L6-v2" and rec["options"]["quick"]
    assert rec["counts"]["n_train"] == 150 and rec["scores"]["micro_f1"] > 0.35  # far above 5-way chance
