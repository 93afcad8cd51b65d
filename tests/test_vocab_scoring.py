"""figbench.scoring.vocab and metrics/vocab_f1: hand-computed cases and an independent loop reference."""

from __future__ import annotations

import random

import pytest

from figbench.scoring.vocab import lemmatize, vocab_scores

TRAIN_TOKENS = [["He", "grasped", "the", "idea"], ["Time", "flies"]]
TRAIN_TAGS = [["O", "B-METAPHOR", "O", "O"], ["O", "B-METAPHOR"]]
TEST_TOKENS = [["She", "Grasped", "it", "and", "time", "flew"], ["Prices", "soared", "flies"]]
GOLD = [["O", "B-METAPHOR", "O", "O", "O", "B-METAPHOR"], ["O", "B-METAPHOR", "O"]]
PRED = [["O", "B-METAPHOR", "B-METAPHOR", "O", "O", "O"], ["O", "B-METAPHOR", "B-METAPHOR"]]


def test_vocab_hand_computed_forms():
    got = vocab_scores(TRAIN_TOKENS, TRAIN_TAGS, TEST_TOKENS, GOLD, PRED)
    # vocabulary {grasped, flies}; in-vocab test tokens: Grasped (gold+, pred+), flies (gold-, pred+)
    assert got["vocab_size"] == 2
    assert got["n_tokens"] == 9 and got["n_in_vocab_tokens"] == 2 and got["n_out_vocab_tokens"] == 7
    assert got["in_vocab_precision"] == pytest.approx(0.5)
    assert got["in_vocab_recall"] == pytest.approx(1.0)
    assert got["in_vocab_f1"] == pytest.approx(2 / 3)
    # out-of-vocab: gold+ {flew, soared}, pred+ {it, soared}: tp 1
    assert got["out_vocab_precision"] == pytest.approx(0.5)
    assert got["out_vocab_recall"] == pytest.approx(0.5)
    # overall: gold 3, pred 4, tp 2
    assert got["precision"] == pytest.approx(0.5) and got["recall"] == pytest.approx(2 / 3)
    assert got["f1"] == pytest.approx(2 * 0.5 * (2 / 3) / (0.5 + 2 / 3))
    assert (got["n_all_gold"], got["n_all_pred"], got["n_all_correct"]) == (3, 4, 2)
    assert (got["n_in_vocab_gold"], got["n_in_vocab_pred"], got["n_in_vocab_correct"]) == (1, 2, 1)


def test_vocab_lemma_option_en():
    # with lemmas, 'flew' (lemma fly) is in the vocabulary learnt from 'flies' (lemma fly)
    got = vocab_scores(TRAIN_TOKENS, TRAIN_TAGS, TEST_TOKENS, GOLD, PRED, use_lemma=True, lang="en")
    assert got["vocab_size"] == 2  # {grasp, fly}
    assert got["n_in_vocab_tokens"] == 3  # Grasped, flew, flies
    assert got["n_in_vocab_gold"] == 2 and got["n_in_vocab_correct"] == 1
    assert got["in_vocab_recall"] == pytest.approx(0.5)


def test_lemmatize_en_es():
    assert lemmatize([["Flies", "grasped", "mice"]], "en") == [["fly", "grasp", "mouse"]]
    es = lemmatize([["Volaban", "casas"]], "es")[0]
    assert es[0] == "volar"
    with pytest.raises(ValueError, match="lemmas are supported"):
        lemmatize([["x"]], "xx")


def _reference(train_tokens, train_tags, test_tokens, gold, pred):
    vocab = set()
    for toks, tags in zip(train_tokens, train_tags):
        for w, t in zip(toks, tags):
            if t != "O":
                vocab.add(w.lower())
    counts = {"all": [0, 0, 0], "in": [0, 0, 0], "out": [0, 0, 0]}  # gold, pred, tp
    for toks, gs, ps in zip(test_tokens, gold, pred):
        for w, g, p in zip(toks, gs, ps):
            for part in ("all", "in" if w.lower() in vocab else "out"):
                counts[part][0] += g != "O"
                counts[part][1] += p != "O"
                counts[part][2] += (g != "O") and (p != "O")

    def prf(c):
        p = c[2] / c[1] if c[1] else 0.0
        r = c[2] / c[0] if c[0] else 0.0
        return p, r, (2 * p * r / (p + r) if p + r else 0.0)

    return {k: prf(v) for k, v in counts.items()}


@pytest.mark.parametrize("seed", range(15))
def test_vocab_random_equals_reference(seed):
    rng = random.Random(seed)
    words = ["Grasp", "grasp", "fly", "time", "sea", "Sea", "run", "the", "of", "light"]
    tags = ["O", "O", "O", "B-METAPHOR", "I-METAPHOR"]

    def sents(n):
        toks = [[rng.choice(words) for _ in range(rng.randint(1, 8))] for _ in range(n)]
        return toks, [[rng.choice(tags) for _ in s] for s in toks]

    train_tokens, train_tags = sents(20)
    test_tokens, gold = sents(30)
    pred = [[rng.choice(tags) for _ in s] for s in test_tokens]
    got = vocab_scores(train_tokens, train_tags, test_tokens, gold, pred)
    ref = _reference(train_tokens, train_tags, test_tokens, gold, pred)
    for prefix, part in (("", "all"), ("in_vocab_", "in"), ("out_vocab_", "out")):
        for i, name in enumerate(("precision", "recall", "f1")):
            assert got[prefix + name] == pytest.approx(ref[part][i], abs=1e-12), (seed, prefix + name)


def test_vocab_int_tags_equal_string_tags():
    to_int = {"O": 0, "B-METAPHOR": 1, "I-METAPHOR": 2}
    ints = [[[to_int[t] for t in s] for s in x] for x in (TRAIN_TAGS, GOLD, PRED)]
    a = vocab_scores(TRAIN_TOKENS, TRAIN_TAGS, TEST_TOKENS, GOLD, PRED)
    b = vocab_scores(TRAIN_TOKENS, ints[0], TEST_TOKENS, ints[1], ints[2])
    assert a == b


def test_vocab_bad_input():
    with pytest.raises(ValueError, match="empty input"):
        vocab_scores([], [], TEST_TOKENS, GOLD, PRED)
    with pytest.raises(ValueError, match="test sentence 1: 3 tokens but 2 pred_tags"):
        vocab_scores(TRAIN_TOKENS, TRAIN_TAGS, TEST_TOKENS, GOLD, [PRED[0], ["O", "O"]])
    with pytest.raises(ValueError, match="2 test_tokens sentences but 1 gold_tags"):
        vocab_scores(TRAIN_TOKENS, TRAIN_TAGS, TEST_TOKENS, GOLD[:1], PRED)
    with pytest.raises(ValueError, match="train sentence 0, token 1: tag 1.5"):
        vocab_scores(TRAIN_TOKENS, [["O", 1.5, "O", "O"], ["O", "O"]], TEST_TOKENS, GOLD, PRED)


def test_vocab_zero_denominators():
    got = vocab_scores([["a"]], [["O"]], [["a", "b"]], [["O", "O"]], [["O", "O"]])
    assert got["vocab_size"] == 0 and got["f1"] == 0.0 and got["in_vocab_f1"] == 0.0
    assert got["n_in_vocab_tokens"] == 0 and got["n_out_vocab_tokens"] == 2


def test_vocab_f1_metric_loads_offline():
    import evaluate

    import figbench

    metric = evaluate.load(figbench.metric_path("vocab_f1"))
    got = metric.compute(predictions=PRED, references=GOLD, tokens=TEST_TOKENS,
                         train_tokens=TRAIN_TOKENS, train_tags=TRAIN_TAGS)
    assert got == vocab_scores(TRAIN_TOKENS, TRAIN_TAGS, TEST_TOKENS, GOLD, PRED)
    with pytest.raises(ValueError, match="train_tokens= is required"):
        metric.compute(predictions=PRED, references=GOLD, tokens=TEST_TOKENS)


@pytest.mark.parametrize("lang, sents", [
    ("en", [["The", "markets", "Crashed", "and", "spirits", "sank"], ["Ideas", "flew", "", "around"]]),
    ("es", [["Los", "precios", "se", "dispararon"], ["Sus", "palabras", "volaban"]]),
])
def test_lemmatize_equals_spacy_run_on_whole_sentences(lang, sents):
    """Lemmatising each distinct word once gives what spaCy's lookup pipe gives on the full sentences."""
    import spacy
    from spacy.tokens import Doc

    nlp = spacy.blank(lang)
    nlp.add_pipe("lemmatizer", config={"mode": "lookup"})
    nlp.initialize()
    want = []
    for words in sents:
        doc = nlp(Doc(nlp.vocab, words=[w.lower() if w else " " for w in words]))
        want.append([(t.lemma_ or t.text).lower() if w else "" for w, t in zip(words, doc)])
    assert lemmatize(sents, lang) == want


@pytest.mark.parametrize("bad, side", [("o", "prediction"), ("-", "prediction"), ("B-metaphor", "prediction"),
                                       ("METAPHOR", "gold"), (3, "prediction"), (-1, "gold"), (True, "prediction")])
def test_vocab_unknown_tags_are_rejected(bad, side):
    """Only O/B-METAPHOR/I-METAPHOR (or ids 0/1/2) count; 'o' or '-' must not become metaphors."""
    gold = [list(s) for s in GOLD]
    pred = [list(s) for s in PRED]
    (pred if side == "prediction" else gold)[1][2] = bad
    with pytest.raises(ValueError, match=rf"{side} sentence 1, token 2: (unknown )?tag {bad!r}"):
        vocab_scores(TRAIN_TOKENS, TRAIN_TAGS, TEST_TOKENS, gold, pred)
    with pytest.raises(ValueError, match=r"train sentence 0, token 3: unknown tag 'x'"):
        vocab_scores(TRAIN_TOKENS, [["O", "B-METAPHOR", "O", "x"], ["O", "O"]], TEST_TOKENS, GOLD, PRED)


def test_vocab_f1_metric_rejects_unknown_tags():
    import evaluate

    import figbench

    metric = evaluate.load(figbench.metric_path("vocab_f1"))
    pred = [list(s) for s in PRED]
    pred[0][0] = "-"
    with pytest.raises(ValueError, match=r"prediction sentence 0, token 0: unknown tag '-'"):
        metric.compute(predictions=pred, references=GOLD, tokens=TEST_TOKENS,
                       train_tokens=TRAIN_TOKENS, train_tags=TRAIN_TAGS)
