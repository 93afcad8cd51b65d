"""Meta4XNLI baselines: first-sub-token labelling, scores, NLI grouping, bad input and CLI runs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from figbench_baselines.common.figurative import IGNORE_INDEX, word_label_features, word_predictions
from figbench_baselines.meta4xnli import methods as M

import figbench
from figbench.cli import main
from figbench.results import read_result
from figbench.tasks import get_task
from tests.conftest import corpus_path, tiny_models

FIX = Path(__file__).parent / "fixtures" / "fig"
TAGS = get_task("metaphor_detection").tag_set
NLI_LABELS = ("entailment", "neutral", "contradiction")  # the builder's ClassLabel names


def _detection_scores(train, test, pred) -> dict:
    """A run's detection scores (task + vocabulary) of ``pred`` on hand-written ``test`` rows."""
    from figbench_baselines.common.splits import Rows
    from figbench_baselines.meta4xnli.cli import _score_detection

    import datasets

    split = datasets.Dataset.from_dict(
        {"id": [r["id"] for r in test], "tags": [[TAGS.index(t) for t in r["tags"]] for r in test]},
        features=datasets.Features({"id": datasets.Value("string"),
                                    "tags": datasets.Sequence(datasets.ClassLabel(names=list(TAGS)))}))
    return _score_detection(train, Rows.of(split, test), pred, "detection_en", "test", n_resamples=0, seed=0).scores


def _tiny():
    return tiny_models()


@pytest.fixture(scope="module")
def tok():
    from figbench_baselines.common.encoder import default_model_path
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(default_model_path())


def test_only_first_subtoken_is_labelled(tok):
    words = [["Unbelievably", "bright", "ideas", "glow"]]
    feats, pos = word_label_features(tok, words, [[0, 1, 2, 1]], max_length=128)
    labels = feats[0]["labels"]
    wids = tok(words[0], is_split_into_words=True).word_ids()
    assert len(labels) == len(wids)
    firsts = [k for k, w in enumerate(wids) if w is not None and (k == 0 or wids[k - 1] != w)]
    assert [labels[k] for k in firsts] == [0, 1, 2, 1]
    assert all(labels[k] == IGNORE_INDEX for k in range(len(labels)) if k not in firsts)
    assert pos[0] == [0, 1, 2, 3]
    # predictions map back one label per word; words cut by max_length get O
    feats_t, pos_t = word_label_features(tok, words, None, max_length=4)
    tags = word_predictions([np.eye(3)[[0, 1, 2, 0]]], feats_t, pos_t, [4], dict(enumerate(TAGS)))
    assert len(tags[0]) == 4 and tags[0][2:] == ["O", "O"]


def test_detection_scores_and_mismatched_tags():
    train = [{"id": "t", "tokens": ["a", "glow", "b"], "tags": ["O", "B-METAPHOR", "O"]}]
    test = [{"id": "x", "tokens": ["the", "glow", "ray"], "tags": ["O", "B-METAPHOR", "B-METAPHOR"]}]
    s = _detection_scores(train, test, [["O", "B-METAPHOR", "O"]])
    assert s["f1"] == pytest.approx(2 / 3) and s["precision"] == 1.0 and s["recall"] == 0.5
    assert s["in_vocab_f1"] == 1.0 and s["out_vocab_recall"] == 0.0
    assert s["in_vocab_token_f1"] == 1.0 and s["out_vocab_token_recall"] == 0.0  # the same at token level
    with pytest.raises(ValueError, match="row x.*B-MET"):
        M.check_tags([{"id": "x", "tags": ["O", "B-MET"]}], "test", TAGS)


def test_token_classifier_learns_a_trivial_rule(tmp_path):
    """The training loop really learns: 'glow' is always a metaphor in a tiny synthetic set."""
    from figbench_baselines.common.training import TrainConfig

    model = _tiny().tiny_bert(tmp_path / "tiny")
    words = ["the", "ideas", "glow", "bright", "a", "mind", "runs", "river"]
    rng = np.random.default_rng(0)
    rows = []
    for i in range(32):
        toks = list(rng.choice(words, size=6))
        rows.append({"id": str(i), "tokens": toks, "tags": ["B-METAPHOR" if t == "glow" else "O" for t in toks]})
    cfg = TrainConfig(epochs=30, batch_size=8, lr=5e-3, max_steps=120, seed=0)
    tk, m, stats = M.train_token_classifier(rows, cfg, tags=TAGS, model_name=model)
    pred, _ = M.predict_tags(tk, m, rows)
    s = _detection_scores(rows, rows, pred)
    assert s["token_f1"] > 0.9, s
    assert stats["train_steps"] == 120


def test_nli_groups_and_training_selection():
    import datasets

    rows = [{"language": lg, "metaphor_status": st, "gold_label": "neutral"}
            for lg in ("en", "es") for st in ("met", "no_met", "non-relevant")]
    assert len(M.select_training(rows, "no_met")) == 2 and len(M.select_training(rows, "all")) == 6
    assert [M.is_relevant(r) for r in rows[:3]] == [True, True, False]
    # accuracy by metaphor status and language, as the metaphor_nli task scores it
    task = get_task("metaphor_nli")
    split = datasets.Dataset.from_dict(
        {"id": [str(i) for i in range(6)], "gold_label": [1] * 6,
         "metaphor_status": [r["metaphor_status"] for r in rows], "language": [r["language"] for r in rows]},
        features=datasets.Features({"id": datasets.Value("string"),
                                    "gold_label": datasets.ClassLabel(names=list(NLI_LABELS)),
                                    "metaphor_status": datasets.Value("string"), "language": datasets.Value("string")}))
    gold = task.gold_from_dataset(split, "metaphor_nli/meta4xnli/interpretation/test")
    correct = np.array([1, 0, 1, 1, 1, 0], dtype=float)
    preds = {str(i): "neutral" if c else "entailment" for i, c in enumerate(correct)}
    acc = task.score(task.parse_predictions(preds, gold), gold, n_resamples=0).scores
    assert acc["accuracy"] == pytest.approx(4 / 6)
    assert acc["accuracy_met"] == 1.0 and acc["accuracy_no_met"] == 0.5 and acc["accuracy_nonrelevant"] == 0.5
    assert acc["accuracy_en_no_met"] == 0.0 and acc["accuracy_es"] == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="mismatched label sets"):
        M.nli_label_check([{"gold_label": "neutral"}], [{"gold_label": "entailment"}], NLI_LABELS)


# ------------------------------------------------------------------ CLI on the real corpus

@pytest.fixture(scope="module")
def m4_dir():
    return str(corpus_path("meta4xnli", "meta4xnli", "detection", "splits", "en", "meta4xnli_train.tsv")
               .parents[4])


def _run(args, out):
    assert main(["baseline", "meta4xnli", *args, "--out", str(out), "--n-resamples", "20"]) == 0
    return read_result(out)


def test_cli_detection_settings_tiny(m4_dir, tmp_path):
    model = _tiny().tiny_bert(tmp_path / "tiny")
    common = ["--model", model, "--max-train", "16", "--max-test", "12", "--max-steps", "2", "--batch-size", "8",
              "--data-dir", m4_dir]
    rec = _run(["--train", "en", *common], tmp_path / "mono.json")
    assert rec["task"] == "metaphor_detection" and rec["config"] == "detection_en"
    assert rec["options"]["setting"] == "monolingual" and rec["counts"]["n_test_sentences"] == 12
    assert {"f1", "in_vocab_f1", "out_vocab_f1"} <= set(rec["scores"])
    assert rec["provenance"]["throughput"]["train_examples_per_s"] > 0
    preds = rec["predictions"]["inline"]
    assert all(set(t) <= set(TAGS) for t in preds.values())
    rec = _run(["--train", "en", "--test", "es", "--part", "hypotheses", *common], tmp_path / "xl.json")
    assert rec["options"]["setting"] == "cross-lingual" and rec["method"].endswith("_hypotheses")
    # keyed by detection_es test ids (opaque since issue 13; they were "es-test-NNNNN")
    es_ids = set(figbench.load_dataset("meta4xnli", "detection_es", split="test", data_dir=m4_dir)["id"])
    assert set(rec["predictions"]["inline"]) <= es_ids
    rec = _run(["--train", "en+es", "--test", "es", *common], tmp_path / "ml.json")
    assert rec["options"]["setting"] == "multilingual"
    rec = _run(["--train", "cometa", "--test", "es", *common], tmp_path / "cd.json")
    assert rec["options"]["setting"] == "cross-domain"
    per_source = rec["options"]["per_source_scores"]  # every Spanish per-source set, each capped by --max-test
    assert len(per_source) == 6 and all(v["n_sentences"] == 12 for v in per_source.values())


def test_cli_nli_tiny(m4_dir, tmp_path):
    model = _tiny().tiny_bert(tmp_path / "tiny")
    rec = _run(["--task", "nli", "--train-on", "no_met", "--lang", "en", "--model", model, "--max-train", "16",
                "--max-test", "40", "--max-steps", "2", "--data-dir", m4_dir], tmp_path / "nli.json")
    assert rec["task"] == "metaphor_nli" and rec["method"] == "nli_train_no_met_en"
    assert {"accuracy", "accuracy_met", "accuracy_no_met"} <= set(rec["scores"])
    assert set(rec["predictions"]["inline"].values()) <= set(NLI_LABELS)


def test_cli_bad_input(m4_dir, tmp_path, capsys):
    out = tmp_path / "x.json"
    assert main(["baseline", "meta4xnli", "--train", "en+klingon", "--data-dir", m4_dir, "--out", str(out)]) == 1
    assert "klingon" in capsys.readouterr().err
    assert main(["baseline", "meta4xnli", "--train", "en", "--test", "vua", "--part", "premises",
                 "--data-dir", m4_dir, "--out", str(out)]) == 1
    assert "--part applies" in capsys.readouterr().err
    assert main(["baseline", "meta4xnli", "--train", "cometa", "--split", "validation", "--data-dir", m4_dir,
                 "--out", str(out)]) == 1
    assert "no 'validation' split" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.slow
def test_cli_quick_detection_with_minilm(m4_dir, tmp_path):
    """The documented --quick path with the offline MiniLM encoder (steps capped to stay short)."""
    rec = _run(["--train", "es", "--quick", "--max-steps", "3", "--max-train", "24", "--max-test", "20",
                "--data-dir", m4_dir], tmp_path / "q.json")
    assert rec["model"]["encoder"] == "sentence-transformers/all-MiniLM-L6-v2" and rec["options"]["quick"]
    assert rec["options"]["weight_decay"] == 0.1 and rec["options"]["warmup_ratio"] == 0.06
    assert rec["model"]["train_steps"] == 3


def test_most_frequent_tag_lexicon():
    from figbench_baselines.meta4xnli.methods import lexicon_predict, most_frequent_tags

    train = [{"tokens": ["He", "attacked", "the", "idea"], "tags": ["O", "B-METAPHOR", "O", "O"]},
             {"tokens": ["They", "attacked", "me"], "tags": ["O", "O", "O"]},
             {"tokens": ["a", "dark", "time", "ahead"], "tags": ["O", "B-METAPHOR", "I-METAPHOR", "O"]},
             {"tokens": ["dark", "time"], "tags": ["B-METAPHOR", "I-METAPHOR"]}]
    lex = most_frequent_tags(train)
    assert lex == {"dark": "B-METAPHOR", "time": "I-METAPHOR"}  # 'attacked' ties 1:1 -> O
    pred = lexicon_predict(lex, [{"tokens": ["Dark", "time", "now"]}, {"tokens": ["time", "flies"]}])
    assert pred == [["B-METAPHOR", "I-METAPHOR", "O"], ["B-METAPHOR", "O"]]


def test_lexicon_run_on_real_data(tmp_path):
    from figbench.cli import main
    from figbench.results import read_result

    m4x = corpus_path("meta4xnli")
    out = tmp_path / "lex.json"
    assert main(["baseline", "meta4xnli", "--task", "detection", "--method", "lexicon", "--train", "en",
                 "--data-dir", str(m4x), "--n-resamples", "20", "--out", str(out)]) == 0
    rec = read_result(out)
    assert rec["model"]["name"] == "figbench-lexicon_en_to_en" and rec["model"]["type"] == "heuristic"
    assert rec["config"] == "detection_en" and len(rec["predictions"]["inline"]) == 3630
    assert 0.05 < rec["scores"]["f1"] < 0.9 and rec["scores"]["in_vocab_recall"] > rec["scores"]["out_vocab_recall"]
