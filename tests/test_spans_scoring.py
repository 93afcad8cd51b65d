"""figbench.scoring.spans and metrics/span_f1: hand-computed cases and seqeval (strict IOB2) as reference."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from seqeval.metrics import accuracy_score, classification_report, f1_score, precision_score, recall_score
from seqeval.scheme import IOB2

from figbench.scoring.spans import bio_span_scores, bio_spans, normalize_answer, span_overlap_scores

CASES = json.loads(
    (__import__("pathlib").Path(__file__).parent / "fixtures" / "spans" / "bio_cases.json").read_text())["cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_bio_hand_computed(case):
    got = bio_span_scores(case["references"], case["predictions"])
    for key, value in case["expected"].items():
        assert got[key] == pytest.approx(value, abs=1e-12), key


def _seqeval(refs, preds):
    kw = {"mode": "strict", "scheme": IOB2, "zero_division": 0}
    return {
        "precision": precision_score(refs, preds, **kw),
        "recall": recall_score(refs, preds, **kw),
        "f1": f1_score(refs, preds, **kw),
        "accuracy": accuracy_score(refs, preds),
    }


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_bio_hand_cases_equal_seqeval(case):
    got = bio_span_scores(case["references"], case["predictions"])
    for key, value in _seqeval(case["references"], case["predictions"]).items():
        assert got[key] == pytest.approx(value, abs=1e-12), key


def _random_tags(rng: random.Random, n: int, types: list[str]) -> list[str]:
    tags = []
    for _ in range(n):
        r = rng.random()
        if r < 0.55:
            tags.append("O")
        elif r < 0.75:
            tags.append("B-" + rng.choice(types))
        else:
            tags.append("I-" + rng.choice(types))
    return tags


@pytest.mark.parametrize("seed", range(40))
def test_bio_random_equals_seqeval(seed):
    rng = random.Random(seed)
    types = ["METAPHOR"] if seed % 2 else ["METAPHOR", "X", "Y"]
    refs, preds = [], []
    for _ in range(rng.randint(1, 30)):
        n = rng.randint(0, 15)
        refs.append(_random_tags(rng, n, types))
        # predictions: a noisy copy of the reference, sometimes fully random
        pred = [t if rng.random() < 0.7 else _random_tags(rng, 1, types)[0] for t in refs[-1]]
        preds.append(pred)
    if sum(map(len, refs)) == 0:
        refs[0], preds[0] = ["B-METAPHOR"], ["O"]
    got = bio_span_scores(refs, preds)
    ref = _seqeval(refs, preds)
    for key, value in ref.items():
        assert got[key] == pytest.approx(value, abs=1e-12), (seed, key)
    report = classification_report(refs, preds, mode="strict", scheme=IOB2, output_dict=True, zero_division=0)
    for name, scores in got["per_type"].items():
        if name in report:
            assert scores["f1"] == pytest.approx(report[name]["f1-score"], abs=1e-12)
            assert scores["support"] == report[name]["support"]
    # token level, from first principles
    flat_r = [t != "O" for s in refs for t in s]
    flat_p = [t != "O" for s in preds for t in s]
    tp = sum(a and b for a, b in zip(flat_r, flat_p))
    assert got["n_correct_tokens"] == tp
    assert got["token_recall"] == pytest.approx(tp / sum(flat_r) if sum(flat_r) else 0.0)


def test_bio_spans_of_one_sentence():
    assert bio_spans(["I-A", "B-A", "I-A", "I-B", "B-B", "I-B"]) == [("A", 1, 3), ("B", 4, 6)]
    assert bio_spans([]) == []


def test_bio_bad_input():
    with pytest.raises(ValueError, match="empty input"):
        bio_span_scores([], [])
    with pytest.raises(ValueError, match="2 references but 1 predictions"):
        bio_span_scores([["O"], ["O"]], [["O"]])
    with pytest.raises(ValueError, match="sentence 1: 2 reference tags but 1 predicted"):
        bio_span_scores([["O"], ["O", "O"]], [["O"], ["O"]])
    with pytest.raises(ValueError, match="sentence 0, token 1: invalid IOB2 tag 'METAPHOR'"):
        bio_span_scores([["O", "METAPHOR"]], [["O", "O"]])
    with pytest.raises(ValueError, match="references: every tag must be a string"):
        bio_span_scores([[["x"]]], [["O"]])
    with pytest.raises(ValueError, match="predictions: tags must be strings, got 1"):
        bio_span_scores([["O"]], [[1]])
    with pytest.raises(ValueError, match="expected a list of tags"):
        bio_span_scores(["B-METAPHOR"], ["O"])


# ------------------------------------------------------------------------------- ePiC overlap

def _squad_f1(pred: str, gold: str) -> float:
    """Independent SQuAD v1.1 style F1, written out directly."""
    p, g = normalize_answer(pred).split(), normalize_answer(gold).split()
    if not p or not g:
        return float(p == g)
    common = sum((Counter(p) & Counter(g)).values())
    if common == 0:
        return 0.0
    prec, rec = common / len(p), common / len(g)
    return 2 * prec * rec / (prec + rec)


def test_span_overlap_hand_computed():
    got = span_overlap_scores(["the cat sat", "a dog", "bird"], ["cat sat down", "dog", "fish"])
    # ex1: pred {cat, sat}, gold {cat, sat, down}: P 1, R 2/3, F 0.8; ex2 exact; ex3 nothing
    assert got["precision"] == pytest.approx((1 + 1 + 0) / 3)
    assert got["recall"] == pytest.approx((2 / 3 + 1 + 0) / 3)
    assert got["f1"] == pytest.approx((0.8 + 1 + 0) / 3)
    assert got["exact_match"] == pytest.approx(1 / 3)
    assert got["micro_precision"] == pytest.approx(3 / 4)
    assert got["micro_recall"] == pytest.approx(3 / 5)
    assert got["n_examples"] == 3


def test_span_overlap_character_spans_and_tokens():
    passage = "The old man kept the light burning all night."
    # pred "kept the light" (11..25 covers 'kept', 'the', 'light'), gold "the light burning"
    pred = (passage.index("kept"), passage.index("light") + 5)
    gold = (passage.index("the light"), passage.index("burning") + 7)
    got = span_overlap_scores([pred], [gold], passages=[passage])
    assert got["precision"] == pytest.approx(2 / 3) and got["recall"] == pytest.approx(2 / 3)
    assert got["exact_match"] == 0.0
    assert span_overlap_scores([gold], [gold], passages=[passage])["exact_match"] == 1.0
    empty = span_overlap_scores([(3, 3), (0, 0)], [gold, (5, 5)], passages=[passage, passage])
    assert empty["f1"] == pytest.approx(0.5) and empty["exact_match"] == pytest.approx(0.5)  # empty vs empty = 1
    toks = span_overlap_scores([["kept", "the", "light"]], [["the", "light", "burning"]])
    assert toks["f1"] == pytest.approx(1 / 2)  # "the" is an article and is dropped: 1/2 each side
    assert toks["precision"] == pytest.approx(1 / 2)


@pytest.mark.parametrize("seed", range(10))
def test_span_overlap_random_equals_independent_squad(seed):
    rng = random.Random(seed)
    words = ["the", "a", "cat", "dog", "sat", "ran", "mat", "Cat,", "far", "away"]
    preds = [" ".join(rng.choices(words, k=rng.randint(0, 6))) for _ in range(50)]
    golds = [" ".join(rng.choices(words, k=rng.randint(0, 6))) for _ in range(50)]
    got = span_overlap_scores(preds, golds)
    want = sum(_squad_f1(p, g) for p, g in zip(preds, golds)) / 50
    assert got["f1"] == pytest.approx(want, abs=1e-12)
    em = sum(normalize_answer(p) == normalize_answer(g) for p, g in zip(preds, golds)) / 50
    assert got["exact_match"] == pytest.approx(em, abs=1e-12)


def test_span_overlap_bad_input():
    with pytest.raises(ValueError, match="empty input"):
        span_overlap_scores([], [])
    with pytest.raises(ValueError, match="1 references but 2 predictions"):
        span_overlap_scores(["a", "b"], ["a"])
    with pytest.raises(ValueError, match="prediction 0: character span .* needs the passage"):
        span_overlap_scores([(0, 3)], ["abc"])
    with pytest.raises(ValueError, match="reference 0: character span \\(0, 99\\) outside"):
        span_overlap_scores([(0, 3)], [(0, 99)], passages=["abc def"])
    with pytest.raises(ValueError, match="prediction 0: a span must be"):
        span_overlap_scores([3.5], ["abc"])


# ------------------------------------------------------------------------------- evaluate wrapper

def test_span_f1_metric_loads_offline():
    import evaluate

    import figbench

    metric = evaluate.load(figbench.metric_path("span_f1"))
    case = CASES[0]
    got = metric.compute(predictions=case["predictions"], references=case["references"])
    assert got["f1"] == pytest.approx(case["expected"]["f1"])
    assert got["token_f1"] == pytest.approx(case["expected"]["token_f1"])

    epic = evaluate.load(figbench.metric_path("span_f1"), "epic")
    assert epic.compute(predictions=["the cat sat"], references=["cat sat down"])["f1"] == pytest.approx(0.8)
    passage = "The old man kept the light burning."
    got = epic.compute(predictions=[[0, 7]], references=[[4, 11]], passages=[passage])
    assert got["f1"] == pytest.approx(0.5)


def test_bio_real_meta4xnli_equals_seqeval(data_root):
    """The English test split (with its orphan I-METAPHOR tag) against noisy predictions."""
    path = data_root / "meta4xnli" / "meta4xnli" / "detection" / "splits" / "en" / "meta4xnli_test.tsv"
    if not path.is_file():
        pytest.skip(f"{path} is not available")
    gold, cur = [], []
    for line in path.read_text(encoding="utf-8").split("\n"):
        if not line:
            if cur:
                gold.append(cur)
            cur = []
            continue
        cur.append(line.split("\t")[1])
    rng = random.Random(1)
    tags = ["O", "B-METAPHOR", "I-METAPHOR"]
    pred = [[t if rng.random() < 0.97 else rng.choice(tags) for t in s] for s in gold]
    got = bio_span_scores(gold, pred)
    for key, value in _seqeval(gold, pred).items():
        assert got[key] == pytest.approx(value, abs=1e-12), key
    assert got["n_gold_tokens"] == 1106  # metaphor tokens of the EN test split
    assert got["n_gold_spans"] == 1106 - 17 - 0  # B tags; the orphan I starts no span
