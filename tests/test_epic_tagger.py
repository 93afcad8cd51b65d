"""ePiC alignment tagger: class weights from label frequencies, expected-F1 span decoding, a tiny model
learning a toy alignment (small tensors, no corpus)."""

from __future__ import annotations

import numpy as np
import pytest
from figbench_baselines.common.figurative import IGNORE_INDEX
from figbench_baselines.epic import alignment as A

from tests.conftest import tiny_models


def test_decoding_returns_a_multi_word_span_when_the_scores_say_so():
    # no word above 0.5 (the old "run of p > 0.5" decoding kept a single word here), three words clearly ahead
    p = np.array([0.05, 0.45, 0.45, 0.45, 0.05, 0.05])
    assert A.best_f1_span(p, 3.0) == (1, 3)
    # confident words inside a long span, one weaker word between them: one span across it
    p = np.array([0.0, 0.9, 0.8, 0.3, 0.9, 0.85, 0.0, 0.0])
    assert A.best_f1_span(p, 5.0) == (1, 5)
    # a single confident word and a short expected span: one word
    assert A.best_f1_span(np.array([0.0, 0.0, 1.0, 0.0, 0.0]), 1.0) == (2, 2)
    # the length prior matters: flat scores over two sentences, a long expected span covers both
    p = np.array([0.6, 0.6, 0.6, 0.3, 0.3, 0.3])
    assert A.best_f1_span(p, 1.0) == (0, 2)
    assert A.best_f1_span(p, 12.0) == (0, 5)


def test_decoding_brute_force_agrees():
    rng = np.random.default_rng(0)
    for _ in range(50):
        p, g = rng.random(int(rng.integers(1, 12))), float(rng.uniform(0.5, 15))
        best = max(((i, j) for i in range(len(p)) for j in range(i, len(p))),
                   key=lambda s: (2 * p[s[0]:s[1] + 1].sum() / (s[1] - s[0] + 1 + g), -s[0], -s[1]))
        i, j = A.best_f1_span(p, g)
        assert 2 * p[i:j + 1].sum() / (j - i + 1 + g) == pytest.approx(2 * p[best[0]:best[1] + 1].sum()
                                                                        / (best[1] - best[0] + 1 + g))


def test_decoding_rejects_bad_input():
    with pytest.raises(ValueError, match="no words"):
        A.best_f1_span(np.array([]), 3.0)
    with pytest.raises(ValueError, match="span_words"):
        A.best_f1_span(np.array([0.5]), 0.0)


def _example(tags: list[str], pair_ids: list[str]) -> dict:
    words = [f"w{i}" for i in range(len(tags))]
    text = " ".join(words)
    offsets, pos = [], 0
    for w in words:
        offsets.append((pos, pos + len(w)))
        pos += len(w) + 1
    return {"narrative": text, "offsets": offsets, "tags": tags, "pair_ids": pair_ids, "n_overlap": 0}


def test_tagger_spans_decode_logits_into_multi_word_character_spans():
    labels = A.tagger_labels(2)
    id2label = dict(enumerate(labels))
    ex = _example(["O"] * 8, ["p1", "p2"])
    # positions 0 ([CLS]) and 9 ([SEP]) unlabelled; words 0..7 at positions 1..8
    lab = [IGNORE_INDEX] + [0] * 8 + [IGNORE_INDEX]
    logits = np.full((10, len(labels)), -4.0)
    logits[:, labels.index("O")] = 0.0
    for w in (1, 2, 3):  # span 1: words 1-3, each only somewhat likely (p about 0.45)
        logits[1 + w, labels.index("I-1")] = -0.2
    for w in (5, 6):  # span 2: words 5-6
        logits[1 + w, labels.index("I-2")] = 2.0
    spans = A.tagger_spans([logits], [{"labels": lab}], [list(range(8))], [ex], id2label, span_words=3.0)
    text = ex["narrative"]
    assert text[slice(*spans["p1"])] == "w1 w2 w3"
    assert text[slice(*spans["p2"])] == "w5 w6"


def test_class_weights_from_label_frequencies():
    labels = A.tagger_labels(2)
    examples = [_example(["O"] * 6 + ["B-1", "I-1", "I-1", "I-1"], ["a"])]  # O 0.6, I-1 0.3, B-1 0.1
    w = dict(zip(labels, A.tagger_class_weights(examples, labels)))
    freq = {"O": 0.6, "I-1": 0.3, "B-1": 0.1}
    assert sum(f * w[k] for k, f in freq.items()) == pytest.approx(1.0)  # a training word weighs 1 on average
    assert w["B-1"] / w["O"] == pytest.approx(6 ** 0.5)
    assert w["I-1"] / w["O"] == pytest.approx(2 ** 0.5)
    assert w["B-2"] == w["I-2"] == 1.0  # never a target
    unweighted = A.tagger_class_weights(examples, labels, power=0.0)
    assert unweighted[labels.index("O")] == pytest.approx(unweighted[labels.index("B-1")])
    with pytest.raises(ValueError, match=r"\['B-3'\]"):
        A.tagger_class_weights([_example(["B-3"], ["a"])], labels)


def test_weighted_loss_is_torch_weighted_cross_entropy():
    import torch

    class Toy(torch.nn.Module):
        def forward(self, input_ids, labels=None):
            class Out:
                logits = torch.tensor([[[2.0, 0.0, 1.0], [0.5, 0.5, 0.0], [0.0, 3.0, 0.0]]])
            return Out()

    weights = [0.5, 2.0, 1.0]
    batch = {"input_ids": torch.zeros((1, 3), dtype=torch.long), "labels": torch.tensor([[1, IGNORE_INDEX, 0]])}
    got = A.weighted_token_loss(weights)(Toy(), batch)
    logp = torch.log_softmax(Toy()(None).logits[0], dim=-1)
    expected = -(2.0 * logp[0, 1] + 0.5 * logp[2, 0]) / (2.0 + 0.5)
    assert float(got) == pytest.approx(float(expected))


def test_mean_span_words():
    examples = [_example(["O", "B-1", "I-1", "I-1", "O", "B-2"], ["a", "b"]), _example(["B-1", "O"], ["c"])]
    assert A.mean_span_words(examples) == pytest.approx((3 + 1 + 1) / 3)


COLOURS = ("red", "blue", "green")
FILLER = ("the", "a", "cat", "sat", "on", "mat", "and", "then", "it", "was")


def _toy_rows(n: int, seed: int) -> list[dict]:
    """Narratives of filler words with runs of two colour words; proverb span k names the k-th colour used,
    and its narrative span is the run of that colour."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        colours = list(rng.choice(COLOURS, size=2, replace=False))
        words = list(rng.choice(FILLER, size=int(rng.integers(3, 6))))
        pairs = []
        for k, c in enumerate(colours, 1):
            run = [c] * int(rng.integers(2, 5))
            start = len(" ".join(words)) + 1
            words += run
            pairs.append({"pair_id": f"n{i}-{k}", "proverb_span": c, "narrative_start": start,
                          "narrative_end": start + len(" ".join(run))})
            words += list(rng.choice(FILLER, size=int(rng.integers(2, 5))))
        rows.append({"id": f"n{i}", "proverb_id": "p", "narrative": " ".join(words), "pairs": pairs})
    return rows


def test_tiny_tagger_learns_a_toy_alignment(tmp_path):
    from figbench_baselines.common.training import TrainConfig

    from figbench.scoring.spans import score_alignment

    model_dir = tiny_models().tiny_bert(tmp_path / "tiny")
    train, test = _toy_rows(48, 0), _toy_rows(12, 1)
    cfg = TrainConfig(epochs=12, batch_size=8, lr=5e-3, warmup_ratio=0.05, seed=0)
    tok, model, stats = A.finetune_tagger(train, cfg, model_name=model_dir, k_max=2)
    assert set(stats["class_weights"]) == set(A.tagger_labels(2))
    assert stats["class_weights"]["O"] < stats["class_weights"]["I-1"] < stats["class_weights"]["B-1"]
    assert 2.0 <= stats["mean_span_words"] <= 4.0
    spans, _ = A.predict_tagger(tok, model, test, span_words=stats["mean_span_words"])
    pairs = A.pair_examples(test)
    scores = score_alignment([spans[p["id"]] for p in pairs], [(p["start"], p["end"]) for p in pairs],
                             [p["narrative"] for p in pairs], n_resamples=0).scores
    assert scores["token_f1"] > 0.9, scores
    lengths = [len(p["narrative"][slice(*spans[p["id"]])].split()) for p in pairs]
    assert max(lengths) >= 2  # multi-word spans, not the single best word


def test_whole_narrative_reference_spans_the_narrative_without_outer_spaces():
    from figbench.scoring.spans import score_alignment

    examples = [{"narrative": "  One two. Three four  "}, {"narrative": "Solo"}]
    spans = A.whole_spans(examples)
    assert [ex["narrative"][slice(*s)] for ex, s in zip(examples, spans)] == ["One two. Three four", "Solo"]
    scores = score_alignment(spans, [(2, 10), (0, 4)], [e["narrative"] for e in examples], n_resamples=0).scores
    assert scores["token_recall"] == 1.0 and scores["token_precision"] == pytest.approx((2 / 4 + 1) / 2)
