"""Alignment prediction as extractive QA: given narrative, proverb and a proverb span, score start and
end positions over the narrative's tokens and return the best narrative span (character offsets).

Question = proverb span + the proverb; context = narrative. Scored by the ``proverb_alignment`` task
(:func:`figbench.scoring.spans.score_alignment`: token P/R/F1 over the narrative's whitespace tokens,
by position). In the pipelined evaluation a narrative whose proverb was mispredicted gets an
empty span for every pair, which scores zero.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

MAX_ANSWER_TOKENS = 96


def pair_examples(rows: Sequence[dict], proverbs: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """One example per aligned span pair: question, narrative, gold character span (``start``/``end``; none for a
    hidden benchmark's inputs)."""
    out = []
    for r in rows:
        proverb = r.get("proverb") or (proverbs or {}).get(r.get("proverb_id"), "")
        for p in r["pairs"]:
            ex = {"id": p["pair_id"], "narrative_id": r["id"], "proverb_id": r.get("proverb_id"),
                  "question": f"{p['proverb_span']} | {proverb}", "narrative": r["narrative"]}
            if "narrative_start" in p:   # gold (absent from a hidden benchmark's inputs)
                ex.update(start=int(p["narrative_start"]), end=int(p["narrative_end"]))
            out.append(ex)
    return out


def qa_features(tok, examples: Sequence[dict], *, max_length: int = 256, with_labels: bool = True
                ) -> tuple[list[dict], list[list[tuple[int, int] | None]], int]:
    """Tokenise (question, narrative); gold start/end token positions; per-feature context offsets.

    Returns features, offsets (None outside the narrative) and the number of examples whose gold span
    was truncated away (their label points at [CLS], position 0, as in SQuAD v2 training).
    """
    enc = tok([e["question"] for e in examples], [e["narrative"] for e in examples], truncation="only_second",
              max_length=max_length, return_offsets_mapping=True)
    feats, offsets, truncated = [], [], 0
    for i, ex in enumerate(examples):
        seq = enc.sequence_ids(i)
        offs = [tuple(o) if s == 1 else None for o, s in zip(enc["offset_mapping"][i], seq)]
        item = {k: enc[k][i] for k in enc.keys() if k != "offset_mapping"}
        if with_labels:
            s_tok = next((k for k, o in enumerate(offs) if o and o[0] <= ex["start"] < o[1]), None)
            e_tok = next((k for k in range(len(offs) - 1, -1, -1)
                          if offs[k] and offs[k][0] < ex["end"] <= offs[k][1]), None)
            if s_tok is None or e_tok is None or e_tok < s_tok:
                truncated += 1
                s_tok = e_tok = 0
            item["start_positions"], item["end_positions"] = s_tok, e_tok
        feats.append(item)
        offsets.append(offs)
    return feats, offsets, truncated


def best_span(start_logits: np.ndarray, end_logits: np.ndarray, offsets: list, max_tokens: int = MAX_ANSWER_TOKENS
              ) -> tuple[int, int]:
    """Character span maximising start + end score with start <= end within the narrative."""
    ctx = np.array([o is not None for o in offsets])
    if not ctx.any():
        return 0, 0
    s = np.where(ctx, start_logits[:len(offsets)], -np.inf)
    e = np.where(ctx, end_logits[:len(offsets)], -np.inf)
    total = s[:, None] + e[None, :]
    n = len(offsets)
    valid = np.triu(np.ones((n, n), dtype=bool)) & ~np.triu(np.ones((n, n), dtype=bool), k=max_tokens)
    total = np.where(valid, total, -np.inf)
    i, j = np.unravel_index(int(np.argmax(total)), total.shape)
    return int(offsets[i][0]), int(offsets[j][1])


def finetune_qa(train: Sequence[dict], cfg, *, model_name: str | None, max_length: int = 256):
    """Fine-tune a start/end span scorer (``AutoModelForQuestionAnswering``) on the training pairs."""
    from figbench_baselines.common.encoder import load_tokenizer_and_model
    from figbench_baselines.common.figurative import finetune, pad_collate
    from transformers import AutoModelForQuestionAnswering

    tok, model = load_tokenizer_and_model(model_name, AutoModelForQuestionAnswering)
    feats, _, truncated = qa_features(tok, train, max_length=max_length)
    model, stats = finetune(model, feats, pad_collate(tok), cfg, desc="epic alignment")
    stats["n_train_truncated"] = float(truncated)
    return tok, model, stats


def predict_spans(tok, model, examples: Sequence[dict], *, max_length: int = 256
                  ) -> tuple[list[tuple[int, int]], dict[str, float]]:
    """Predicted character spans over each example's narrative."""
    from figbench_baselines.common.figurative import pad_collate, predict_logits

    feats, offsets, _ = qa_features(tok, examples, max_length=max_length, with_labels=False)
    outs, stats = predict_logits(model, feats, pad_collate(tok), keys=("start_logits", "end_logits"))
    return [best_span(s, e, o) for (s, e), o in zip(outs, offsets)], stats


def whole_spans(examples: Sequence[dict]) -> list[tuple[int, int]]:
    """Trivial reference: every pair's span is its whole narrative (recall 1; what a decoder that has
    learnt nothing returns when it maximises the expected token F1)."""
    out = []
    for ex in examples:
        text = ex["narrative"]
        start = len(text) - len(text.lstrip())
        out.append((start, len(text.rstrip())) if text.strip() else (0, 0))
    return out


def lexical_spans(examples: Sequence[dict]) -> list[tuple[int, int]]:
    """Untrained reference: the narrative sentence sharing most words with the question."""
    import re

    out = []
    for ex in examples:
        q = set(re.findall(r"[a-z']+", ex["question"].lower()))
        best, best_score = (0, len(ex["narrative"])), -1
        for m in re.finditer(r"[^.!?]+[.!?]*", ex["narrative"]):
            if not m.group().strip():
                continue
            score = len(q & set(re.findall(r"[a-z']+", m.group().lower())))
            if score > best_score:
                lead = len(m.group()) - len(m.group().lstrip())
                best, best_score = (m.start() + lead, m.end()), score
        out.append(best)
    return out


# ------------------------------------------------------------------ token tagger

def tagger_labels(k_max: int) -> list[str]:
    """``O`` plus ``B-k`` / ``I-k`` for the k-th proverb span of a narrative (k = 1..k_max)."""
    return ["O"] + [f"{p}-{k}" for k in range(1, k_max + 1) for p in ("B", "I")]


def tagger_examples(rows: Sequence[dict]) -> list[dict[str, Any]]:
    """One tagging example per narrative: the question lists the proverb spans, numbered in pair order
    (``(1) span ; (2) span``); every narrative word (whitespace token, with character offsets) is tagged
    ``B-k``/``I-k`` when it overlaps the narrative span aligned with proverb span k, else ``O`` (a word of
    two spans keeps the first; ``n_overlap`` counts them)."""
    import re

    out = []
    for r in rows:
        words = [(m.start(), m.end()) for m in re.finditer(r"\S+", r["narrative"])]
        tags = ["O"] * len(words)
        overlap = 0
        for k, p in enumerate(r["pairs"], 1):
            if "narrative_start" not in p:   # inputs only: nothing to tag
                continue
            inside = [i for i, (s, e) in enumerate(words) if s < p["narrative_end"] and e > p["narrative_start"]]
            for j, i in enumerate(inside):
                if tags[i] == "O":
                    tags[i] = f"{'B' if j == 0 else 'I'}-{k}"
                else:
                    overlap += 1
        question = " ; ".join(f"({k}) {p['proverb_span']}" for k, p in enumerate(r["pairs"], 1))
        out.append({"narrative_id": r["id"], "narrative": r["narrative"], "offsets": words, "tags": tags,
                    "question": question.split(), "pair_ids": [p["pair_id"] for p in r["pairs"]], "n_overlap": overlap})
    return out


def tagger_features(tok, examples: Sequence[dict], label2id: Mapping[str, int] | None, *, max_length: int = 256
                    ) -> tuple[list[dict], list[list[int]], int]:
    """(question words, narrative words) pairs; the first sub-token of each narrative word is labelled.

    Returns features, per example the word index of every labelled position, and the number of
    narrative words cut off by ``max_length`` (predicted as outside every span)."""
    from figbench_baselines.common.figurative import IGNORE_INDEX

    enc = tok([e["question"] for e in examples], [[e["narrative"][s:t] for s, t in e["offsets"]] for e in examples],
              is_split_into_words=True, truncation="only_second", max_length=max_length)
    feats, positions, cut = [], [], 0
    for i, ex in enumerate(examples):
        seq, wids = enc.sequence_ids(i), enc.word_ids(i)
        labels, pos, prev = [], [], None
        for s, w in zip(seq, wids):
            if s != 1 or w is None or w == prev:
                labels.append(IGNORE_INDEX)
            else:
                labels.append(label2id[ex["tags"][w]] if label2id is not None else 0)
                pos.append(w)
            prev = w if s == 1 else None
        cut += len(ex["offsets"]) - len(pos)
        item = {k: enc[k][i] for k in enc.keys()}
        item["labels"] = labels
        feats.append(item)
        positions.append(pos)
    return feats, positions, cut


#: exponent of the inverse label frequency in the tagger's class weights (0.5: square-root balancing)
WEIGHT_POWER = 0.5


def tagger_class_weights(examples: Sequence[dict], labels: Sequence[str], *, power: float = WEIGHT_POWER
                         ) -> np.ndarray:
    """Cross-entropy weight per label: ``(1 / frequency) ** power`` over the training words' tags, scaled so
    the mean weight of a training word is 1. ``O`` covers most words (61.6% of ePiC's training words), the
    ``B-k`` of the rare k very few: unweighted, the tagger learns little beyond the label frequencies.
    A label no training word carries gets weight 1 (it is never a target)."""
    from collections import Counter

    counts = Counter(t for e in examples for t in e["tags"])
    unknown = sorted(set(counts) - set(labels))
    if unknown:
        raise ValueError(f"tagger_class_weights: training tags {unknown} are not in the label set {list(labels)}")
    total = sum(counts.values())
    if total == 0:
        raise ValueError("tagger_class_weights: the training examples have no tagged words")
    freq = np.array([counts.get(lab, 0) / total for lab in labels])
    w = np.ones(len(labels))
    seen = freq > 0
    w[seen] = freq[seen] ** -power
    w[seen] /= float((freq[seen] * w[seen]).sum())
    return w


def weighted_token_loss(weights: Sequence[float]):
    """``loss_fn(model, batch)`` for :func:`~figbench_baselines.common.early_stopping.fit`: token
    cross-entropy with per-label ``weights``, positions labelled -100 ignored (weighted mean)."""
    import torch
    from figbench_baselines.common.figurative import IGNORE_INDEX

    w = torch.tensor(np.asarray(weights, dtype=np.float32))

    def loss_fn(model, batch):
        inputs = {k: v for k, v in batch.items() if k != "labels"}
        logits = model(**inputs).logits
        return torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]).float(),
                                                 batch["labels"].reshape(-1), weight=w.to(logits.device),
                                                 ignore_index=IGNORE_INDEX)

    return loss_fn


def mean_span_words(examples: Sequence[dict]) -> float:
    """Mean number of words of the gold narrative spans of tagging examples (the decoder's length prior)."""
    lengths = [sum(t.partition("-")[2] == str(k) for t in e["tags"])
               for e in examples for k in range(1, len(e["pair_ids"]) + 1)]
    lengths = [n for n in lengths if n > 0]
    if not lengths:
        raise ValueError("mean_span_words: no training span covers a word")
    return float(np.mean(lengths))


def best_f1_span(word_p: np.ndarray, span_words: float) -> tuple[int, int]:
    """The contiguous run of words (first, last) maximising the expected token F1
    ``2 * sum(p over the run) / (run length + span_words)``, with ``word_p`` each word's probability of
    being in the gold span and ``span_words`` the expected gold length (learnt on train).

    Unlike a run of words with p > 0.5 this returns a span as long as the probabilities support, also
    when no word is above 0.5; ties go to the earlier, then shorter, run."""
    p = np.asarray(word_p, dtype=float)
    n = len(p)
    if n == 0:
        raise ValueError("best_f1_span: no words")
    if span_words <= 0:
        raise ValueError(f"best_f1_span: span_words must be > 0, got {span_words}")
    c = np.concatenate([[0.0], np.cumsum(p)])
    first, last = np.triu_indices(n)
    score = 2 * (c[last + 1] - c[first]) / (last - first + 1 + span_words)
    k = int(np.argmax(score))
    return int(first[k]), int(last[k])


def tagger_spans(logits: Sequence[np.ndarray], feats: Sequence[dict], positions: Sequence[list[int]],
                 examples: Sequence[dict], id2label: Mapping[int, str], span_words: float
                 ) -> dict[str, tuple[int, int]]:
    """Predicted narrative span (character offsets) of every pair: for span k, each word's probability of
    ``B-k`` or ``I-k`` (from its first sub-token; 0 for words cut off), then :func:`best_f1_span`."""
    from figbench_baselines.common.figurative import IGNORE_INDEX

    index = {lab: i for i, lab in id2label.items()}
    out: dict[str, tuple[int, int]] = {}
    for lg, ft, pos, ex in zip(logits, feats, positions, examples):
        rows = [k for k, lab in enumerate(ft["labels"]) if lab != IGNORE_INDEX]
        z = lg[rows] - lg[rows].max(axis=1, keepdims=True)
        prob = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
        for k, pair_id in enumerate(ex["pair_ids"], 1):
            cols = [index[f"B-{k}"], index[f"I-{k}"]] if f"B-{k}" in index else []
            word_p = np.zeros(len(ex["offsets"]))
            if cols:
                word_p[pos] = prob[:, cols].sum(axis=1)
            first, last = best_f1_span(word_p, span_words)
            out[pair_id] = (int(ex["offsets"][first][0]), int(ex["offsets"][last][1]))
    return out


def finetune_tagger(train_rows: Sequence[dict], cfg, *, model_name: str | None, k_max: int, max_length: int = 256):
    """Fine-tune ``AutoModelForTokenClassification`` as the alignment tagger (one example per narrative),
    cross-entropy weighted by :func:`tagger_class_weights`. The stats carry the class weights and the
    decoder's length prior (:func:`mean_span_words`)."""
    from figbench_baselines.common.early_stopping import phase
    from figbench_baselines.common.encoder import load_tokenizer_and_model
    from figbench_baselines.common.figurative import finetune, pad_collate, seed_everything, set_threads
    from transformers import AutoModelForTokenClassification

    set_threads()
    seed_everything(cfg.seed)
    labels = tagger_labels(k_max)
    label2id = {lab: i for i, lab in enumerate(labels)}
    with phase("load the encoder"):
        tok, model = load_tokenizer_and_model(model_name, AutoModelForTokenClassification, num_labels=len(labels),
                                              id2label=dict(enumerate(labels)), label2id=label2id)
    examples = tagger_examples(train_rows)
    weights = tagger_class_weights(examples, labels)
    with phase(f"tokenise {len(examples)} training narratives"):
        feats, _, cut = tagger_features(tok, examples, label2id, max_length=max_length)
    model, stats = finetune(model, feats, pad_collate(tok), cfg, desc="epic alignment tagger",
                            loss_fn=weighted_token_loss(weights))
    stats.update(n_train_words_cut=float(cut), n_train_overlapping_words=float(sum(e["n_overlap"] for e in examples)),
                 class_weights={lab: round(float(w), 4) for lab, w in zip(labels, weights)},
                 mean_span_words=round(mean_span_words(examples), 3))
    return tok, model, stats


def predict_tagger(tok, model, test_rows: Sequence[dict], *, span_words: float, max_length: int = 256
                   ) -> tuple[dict[str, tuple[int, int]], dict[str, float]]:
    """Predicted span per pair id of ``test_rows`` (narratives with their pairs); ``span_words``: the
    length prior of :func:`best_f1_span` (the training spans' mean length in words)."""
    from figbench_baselines.common.figurative import pad_collate, predict_logits

    examples = tagger_examples(test_rows)
    feats, positions, cut = tagger_features(tok, examples, None, max_length=max_length)
    logits, stats = predict_logits(model, feats, pad_collate(tok), desc=f"tag {len(examples)} narratives")
    stats["n_test_words_cut"] = float(cut)
    return tagger_spans(logits, feats, positions, examples, model.config.id2label, span_words), stats
