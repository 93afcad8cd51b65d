"""In-/out-of-vocabulary detection scores at span and token level (figbench.scoring.vocab_spans)."""

from __future__ import annotations

import random

import pytest

from figbench.scoring.vocab import vocab_scores
from figbench.scoring.vocab_spans import score_vocab, span_vocabulary

TRAIN_TOKS = [["a", "dark", "time", "came"], ["he", "attacked", "it"], ["Glow", "on"]]
TRAIN_TAGS = [["O", "B-METAPHOR", "I-METAPHOR", "O"], ["O", "B-METAPHOR", "O"], ["B-METAPHOR", "O"]]


def test_span_vocabulary_is_the_training_span_texts():
    assert span_vocabulary(TRAIN_TOKS, TRAIN_TAGS) == {"dark time", "attacked", "glow"}


def test_span_level_by_hand():
    toks = [["Dark", "time", "and", "glow"], ["dark", "rain", "attacked"]]
    gold = [["B-METAPHOR", "I-METAPHOR", "O", "B-METAPHOR"], ["B-METAPHOR", "O", "B-METAPHOR"]]
    pred = [["B-METAPHOR", "I-METAPHOR", "O", "O"], ["B-METAPHOR", "I-METAPHOR", "B-METAPHOR"]]
    s = score_vocab(TRAIN_TOKS, TRAIN_TAGS, toks, gold, pred, n_resamples=0).scores
    # in-vocabulary gold spans: "dark time", "glow", "attacked"; predicted: "dark time", "attacked" (both right)
    assert s["in_vocab_precision"] == 1.0 and s["in_vocab_recall"] == pytest.approx(2 / 3)
    # out-of-vocabulary gold: "dark" (sentence 2); predicted: "dark rain" (wrong)
    assert s["out_vocab_precision"] == 0.0 and s["out_vocab_recall"] == 0.0


def _random_corpus(rng: random.Random, n: int):
    words = ["dark", "time", "glow", "attacked", "sea", "of", "a", "ran"]
    tags = ["O", "O", "O", "B-METAPHOR", "I-METAPHOR"]
    toks = [[rng.choice(words) for _ in range(rng.randint(1, 7))] for _ in range(n)]
    return toks, [[rng.choice(tags) for _ in t] for t in toks], [[rng.choice(tags) for _ in t] for t in toks]


def test_token_level_equals_vocab_scores_and_parts_partition_span_counts():
    from figbench.scoring.spans import bio_span_scores

    rng = random.Random(3)
    for _ in range(10):
        train_toks, train_tags, _ = _random_corpus(rng, 12)
        toks, gold, pred = _random_corpus(rng, 15)
        scored = score_vocab(train_toks, train_tags, toks, gold, pred, n_resamples=0)
        ref = vocab_scores(train_toks, train_tags, toks, gold, pred)
        for part in ("in_vocab", "out_vocab"):
            for m in ("precision", "recall", "f1"):
                assert scored.scores[f"{part}_token_{m}"] == pytest.approx(ref[f"{part}_{m}"], abs=1e-12)
        bio = bio_span_scores(gold, pred)
        c = scored.counts
        for what, key in (("correct", "n_correct_spans"), ("pred", "n_pred_spans"), ("gold", "n_gold_spans")):
            assert c[f"n_in_vocab_spans_{what}"] + c[f"n_out_vocab_spans_{what}"] == bio[key]


def test_intervals_contain_the_estimates():
    rng = random.Random(5)
    train_toks, train_tags, _ = _random_corpus(rng, 20)
    toks, gold, pred = _random_corpus(rng, 30)
    scored = score_vocab(train_toks, train_tags, toks, gold, pred, n_resamples=60, seed=4)
    assert set(scored.confidence_intervals) == set(scored.scores)
    for name, ci in scored.confidence_intervals.items():
        assert ci["low"] - 1e-9 <= scored.scores[name] <= ci["high"] + 1e-9 and ci["unit"] == "sentences"
    again = score_vocab(train_toks, train_tags, toks, gold, pred, n_resamples=60, seed=4)
    assert again.confidence_intervals == scored.confidence_intervals
