"""Span scores: strict BIO span/token P/R/F1 (metaphor detection) and ePiC span-overlap scores.

``bio_span_scores`` gives the numbers of ``seqeval`` in strict IOB2 mode (``mode="strict",
scheme=IOB2``, micro average): a span starts at ``B-X`` and extends over the following ``I-X``
tokens of the same type; an ``I-X`` that does not continue a ``B-X``/``I-X`` of type X starts no
span. Spans match when sentence, start, end and type are equal. Its ``token_*`` keys are binary
token-level scores (a token is positive iff its tag is not ``O``).

``span_overlap_scores`` scores predicted against gold text spans (ePiC alignment): SQuAD-style
token-overlap precision/recall/F1 and exact match per example, averaged over examples.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Sequence
from itertools import chain

import numpy as np

from figbench.scoring import Scored

OUTSIDE = "O"
_PREFIX_O, _PREFIX_B, _PREFIX_I = 0, 1, 2


def _ratio(num: float, den: float) -> float:
    """``num / den``, or 0.0 when ``den`` is 0 (as seqeval and the CoNLL scorer do)."""
    return float(num) / float(den) if den else 0.0


def _f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r else 0.0


def _check_pairs(references: Sequence, predictions: Sequence, what: str) -> None:
    if references is None or predictions is None:
        raise ValueError(f"{what}: references and predictions are required")
    if len(references) == 0:
        raise ValueError(f"{what}: empty input (no references)")
    if len(references) != len(predictions):
        raise ValueError(
            f"{what}: {len(references)} references but {len(predictions)} predictions"
        )


def _encode_tags(seqs: Sequence[Sequence[str]], side: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Map every tag to (prefix code, type index); the type list is returned for naming."""
    vocab: dict[str, int] = {}
    try:
        codes = np.fromiter(
            (vocab.setdefault(t, len(vocab)) for t in chain.from_iterable(seqs)), dtype=np.int64
        )
    except TypeError as e:  # an unhashable tag, e.g. a nested list
        raise ValueError(f"{side}: every tag must be a string ({e})") from None
    types: dict[str, int] = {}
    prefix_of = np.zeros(len(vocab), dtype=np.int8)
    type_of = np.full(len(vocab), -1, dtype=np.int64)
    for tag, idx in vocab.items():
        if not isinstance(tag, str):
            raise ValueError(f"{side}: tags must be strings, got {tag!r} ({type(tag).__name__})")
        if tag == OUTSIDE:
            continue
        if len(tag) < 2 or tag[:2] not in ("B-", "I-"):
            # name the first sentence/position holding the bad tag
            for s, seq in enumerate(seqs):
                for k, t in enumerate(seq):
                    if t == tag:
                        raise ValueError(
                            f"{side}: sentence {s}, token {k}: invalid IOB2 tag {tag!r} "
                            f"(expected 'O', 'B-<type>' or 'I-<type>')"
                        )
        prefix_of[idx] = _PREFIX_B if tag[0] == "B" else _PREFIX_I
        type_of[idx] = types.setdefault(tag[2:], len(types))
    return prefix_of[codes], type_of[codes], list(types)


def _spans(prefix: np.ndarray, typ: np.ndarray, sent_start: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Strict IOB2 spans over the flattened corpus: (start, end exclusive, type index) arrays."""
    n = len(prefix)
    cont = np.zeros(n, dtype=bool)
    if n > 1:
        cont[1:] = (
            (prefix[1:] == _PREFIX_I)
            & (prefix[:-1] != _PREFIX_O)
            & (typ[1:] == typ[:-1])
        )
    cont[sent_start] = False
    starts = np.flatnonzero(prefix == _PREFIX_B)
    breaks = np.append(np.flatnonzero(~cont), n)
    ends = breaks[np.searchsorted(breaks, starts, side="right")]
    return starts, ends, typ[starts]


def _keys(starts: np.ndarray, ends: np.ndarray, types: np.ndarray, n: int, n_types: int) -> np.ndarray:
    return (starts * (n + 1) + ends) * max(n_types, 1) + types


def bio_span_scores(references: Sequence[Sequence[str]], predictions: Sequence[Sequence[str]]) -> dict:
    """Strict IOB2 span scores (micro over the corpus) and binary token scores.

    Returns ``precision``/``recall``/``f1`` (exact span match, = seqeval strict IOB2 micro),
    ``token_precision``/``token_recall``/``token_f1`` (token positive iff tag != ``O``),
    ``accuracy`` (token tag accuracy), counts ``n_gold_spans``, ``n_pred_spans``,
    ``n_correct_spans``, ``n_gold_tokens``, ``n_pred_tokens``, ``n_correct_tokens``,
    ``n_sentences``, ``n_tokens``, and ``per_type`` (type -> precision/recall/f1/support).
    """
    _check_pairs(references, predictions, "bio_span_scores")
    for i, (ref, pred) in enumerate(zip(references, predictions)):
        if isinstance(ref, str) or isinstance(pred, str):
            raise ValueError(f"bio_span_scores: sentence {i}: expected a list of tags, got a string")
        if len(ref) != len(pred):
            raise ValueError(
                f"bio_span_scores: sentence {i}: {len(ref)} reference tags but {len(pred)} predicted tags"
            )
    lengths = np.fromiter((len(r) for r in references), dtype=np.int64, count=len(references))
    n = int(lengths.sum())
    sent_start = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    sent_start = sent_start[lengths > 0]

    g_prefix, g_type, g_types = _encode_tags(references, "references")
    p_prefix, p_type, p_types = _encode_tags(predictions, "predictions")
    # one type index space for both sides
    names = list(dict.fromkeys(g_types + p_types))
    index = {t: i for i, t in enumerate(names)}
    g_map = np.array([index[t] for t in g_types] + [-1], dtype=np.int64)
    p_map = np.array([index[t] for t in p_types] + [-1], dtype=np.int64)
    g_type = g_map[g_type]
    p_type = p_map[p_type]

    gs, ge, gt = _spans(g_prefix, g_type, sent_start)
    ps, pe, pt = _spans(p_prefix, p_type, sent_start)
    g_keys = _keys(gs, ge, gt, n, len(names))
    p_keys = _keys(ps, pe, pt, n, len(names))
    common = np.intersect1d(g_keys, p_keys, assume_unique=True)
    tp_types = common % max(len(names), 1)

    n_gold, n_pred, n_tp = len(g_keys), len(p_keys), len(common)
    precision, recall = _ratio(n_tp, n_pred), _ratio(n_tp, n_gold)

    g_pos = g_prefix != _PREFIX_O
    p_pos = p_prefix != _PREFIX_O
    tok_tp = int(np.count_nonzero(g_pos & p_pos))
    tok_gold, tok_pred = int(np.count_nonzero(g_pos)), int(np.count_nonzero(p_pos))
    tp_p, tok_r = _ratio(tok_tp, tok_pred), _ratio(tok_tp, tok_gold)
    same_tag = (g_prefix == p_prefix) & ((g_prefix == _PREFIX_O) | (g_type == p_type))

    per_type = {}
    k = len(names)
    g_count = np.bincount(gt, minlength=k) if k else np.zeros(0, int)
    p_count = np.bincount(pt, minlength=k) if k else np.zeros(0, int)
    t_count = np.bincount(tp_types, minlength=k) if k else np.zeros(0, int)
    for i, name in enumerate(names):
        tp_, pp = _ratio(t_count[i], p_count[i]), _ratio(t_count[i], g_count[i])
        per_type[name] = {"precision": tp_, "recall": pp, "f1": _f1(tp_, pp), "support": int(g_count[i])}

    return {
        "precision": precision,
        "recall": recall,
        "f1": _f1(precision, recall),
        "token_precision": tp_p,
        "token_recall": tok_r,
        "token_f1": _f1(tp_p, tok_r),
        "accuracy": _ratio(int(np.count_nonzero(same_tag)), n),
        "n_gold_spans": n_gold,
        "n_pred_spans": n_pred,
        "n_correct_spans": n_tp,
        "n_gold_tokens": tok_gold,
        "n_pred_tokens": tok_pred,
        "n_correct_tokens": tok_tp,
        "n_sentences": len(references),
        "n_tokens": n,
        "per_type": per_type,
    }


def bio_spans(tags: Sequence[str]) -> list[tuple[str, int, int]]:
    """Strict IOB2 spans of one sentence as ``(type, start, end_exclusive)``."""
    prefix, typ, names = _encode_tags([tags], "tags")
    starts, ends, types = _spans(prefix, typ, np.array([0], dtype=np.int64) if len(tags) else np.zeros(0, np.int64))
    return [(names[t], int(s), int(e)) for s, e, t in zip(starts, ends, types)]


# ---------------------------------------------------------------- ePiC span overlap

_ARTICLES = re.compile(r"\b(a|an|the)\b", re.UNICODE)
_PUNCT = set(string.punctuation)
_TOKEN = re.compile(r"\S+")


def normalize_answer(text: str) -> str:
    """SQuAD v1.1 normalisation: lowercase, drop punctuation and articles, squeeze whitespace."""
    text = text.lower()
    text = "".join(ch for ch in text if ch not in _PUNCT)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def _overlap(pred: list, gold: list) -> tuple[int, int, int]:
    common = Counter(pred) & Counter(gold)
    return sum(common.values()), len(pred), len(gold)


def _span_tokens(item, passage: str | None, normalize: bool, where: str) -> tuple[list, str]:
    """Tokens of one span and its exact-match key.

    A string is whitespace-tokenised after (optional) SQuAD normalisation; a list/tuple of strings
    is taken as tokens; a ``(start, end)`` pair of ints is a character span of ``passage``, whose
    tokens are the passage's whitespace tokens overlapping it, identified by position.
    """
    if isinstance(item, str):
        norm = normalize_answer(item) if normalize else " ".join(item.split())
        return norm.split(), norm
    if isinstance(item, (list, tuple)) and len(item) == 2 and all(isinstance(x, (int, np.integer)) for x in item):
        if passage is None:
            raise ValueError(f"{where}: character span {tuple(item)} needs the passage (passages=...)")
        start, end = int(item[0]), int(item[1])
        if not 0 <= start <= end <= len(passage):
            raise ValueError(f"{where}: character span {(start, end)} outside a passage of {len(passage)} characters")
        toks = ([i for i, m in enumerate(_TOKEN.finditer(passage)) if m.start() < end and m.end() > start]
                if end > start else [])
        return toks, "|".join(map(str, toks))
    if isinstance(item, (list, tuple)) and all(isinstance(x, str) for x in item):
        toks = [normalize_answer(t) for t in item] if normalize else list(item)
        toks = [t for t in toks if t]
        return toks, " ".join(toks)
    raise ValueError(
        f"{where}: a span must be a string, a list of token strings or a (start, end) character pair; got {item!r}"
    )


def span_overlap_scores(
    predictions: Sequence,
    references: Sequence,
    *,
    passages: Sequence[str] | None = None,
    normalize: bool = True,
) -> dict:
    """ePiC alignment scores: per-example token-overlap P/R/F1 and exact match, averaged.

    Each prediction/reference is a span given as text (whitespace tokens after SQuAD normalisation
    when ``normalize``), a list of tokens, or a ``(start, end)`` character span over
    ``passages[i]`` (tokens are the passage's whitespace tokens overlapping the span, matched by
    position). Per example, overlap = size of the multiset intersection; precision = overlap /
    predicted tokens, recall = overlap / gold tokens, F1 their harmonic mean (SQuAD v1.1); when
    either side is empty the example scores 1 if both are empty, else 0. ``precision``, ``recall``,
    ``f1`` and ``exact_match`` are means over examples; ``micro_*`` pool the token counts.
    """
    _check_pairs(references, predictions, "span_overlap_scores")
    if passages is not None and len(passages) != len(references):
        raise ValueError(f"span_overlap_scores: {len(passages)} passages for {len(references)} examples")
    sums = np.zeros(4)
    tot_overlap = tot_pred = tot_gold = 0
    for i, (pred, gold) in enumerate(zip(predictions, references)):
        passage = passages[i] if passages is not None else None
        p_toks, p_key = _span_tokens(pred, passage, normalize, f"span_overlap_scores: prediction {i}")
        g_toks, g_key = _span_tokens(gold, passage, normalize, f"span_overlap_scores: reference {i}")
        overlap, n_p, n_g = _overlap(p_toks, g_toks)
        tot_overlap, tot_pred, tot_gold = tot_overlap + overlap, tot_pred + n_p, tot_gold + n_g
        if n_p == 0 or n_g == 0:
            same = float(n_p == n_g)
            p = r = f = same
        else:
            p, r = overlap / n_p, overlap / n_g
            f = _f1(p, r)
        sums += (p, r, f, float(p_key == g_key))
    n = len(references)
    mp, mr = _ratio(tot_overlap, tot_pred), _ratio(tot_overlap, tot_gold)
    return {
        "precision": float(sums[0] / n),
        "recall": float(sums[1] / n),
        "f1": float(sums[2] / n),
        "exact_match": float(sums[3] / n),
        "micro_precision": mp,
        "micro_recall": mr,
        "micro_f1": _f1(mp, mr),
        "n_examples": n,
    }


# --------------------------------------------------------------------------------------------
# Scored versions with bootstrap intervals (the tasks' and baselines' scoring path)

def _prf_counts(correct: np.ndarray, predicted: np.ndarray, gold: np.ndarray) -> tuple[float, float, float]:
    c, p, g = float(correct.sum()), float(predicted.sum()), float(gold.sum())
    prec, rec = _ratio(c, p), _ratio(c, g)
    return prec, rec, _f1(prec, rec)


_BIO_COUNTS = ("n_correct_spans", "n_pred_spans", "n_gold_spans", "n_correct_tokens", "n_pred_tokens",
               "n_gold_tokens", "n_tokens")


def score_bio(references: Sequence[Sequence[str]], predictions: Sequence[Sequence[str]], *,
              n_resamples: int = 1000, seed: int = 0) -> Scored:
    """:func:`bio_span_scores` (span and token P/R/F1, tag accuracy) with intervals over resampled sentences."""
    from figbench.bootstrap import bootstrap_ci

    raw = bio_span_scores(references, predictions)
    scores = {k: float(v) for k, v in raw.items() if k in ("precision", "recall", "f1", "token_precision",
                                                              "token_recall", "token_f1", "accuracy")}
    counts = {k: float(v) for k, v in raw.items() if k.startswith("n_")}
    cis: dict = {}
    if n_resamples:
        per = np.zeros((len(references), len(_BIO_COUNTS) + 1))
        for j, (r, p) in enumerate(zip(references, predictions)):
            one = bio_span_scores([r], [p])
            per[j, :-1] = [one[n] for n in _BIO_COUNTS]
            per[j, -1] = one["accuracy"] * one["n_tokens"]

        def stat(idx: np.ndarray) -> dict[str, float]:
            s = per[idx]
            p, r, f = _prf_counts(s[:, 0], s[:, 1], s[:, 2])
            tp_, tr, tf = _prf_counts(s[:, 3], s[:, 4], s[:, 5])
            n_tok = s[:, 6].sum()
            return {"precision": p, "recall": r, "f1": f, "token_precision": tp_, "token_recall": tr,
                    "token_f1": tf, "accuracy": float(s[:, 7].sum() / n_tok) if n_tok else 0.0}

        cis = bootstrap_ci(len(references), stat, n_resamples=n_resamples, seed=seed, unit="sentences")
    return Scored(scores, {k: v for k, v in cis.items() if k in scores}, counts)


#: :func:`span_overlap_scores` key -> the alignment task's key (its headline is ``token_f1``)
ALIGNMENT_NAMES = {"precision": "token_precision", "recall": "token_recall", "f1": "token_f1",
                   "micro_precision": "micro_token_precision", "micro_recall": "micro_token_recall",
                   "micro_f1": "micro_token_f1"}


def score_alignment(predictions: Sequence, references: Sequence, passages: Sequence[str], *,
                    n_resamples: int = 1000, seed: int = 0) -> Scored:
    """ePiC alignment: token-overlap P/R/F1 and exact match averaged over pairs, with intervals over pairs.

    ``predictions`` and ``references`` are span texts or ``(start, end)`` character offsets into the
    passage (offsets are compared by position, text by normalised tokens: :func:`span_overlap_scores`).
    """
    from figbench.bootstrap import bootstrap_ci

    raw = span_overlap_scores(predictions, references, passages=passages)
    scores = {ALIGNMENT_NAMES.get(k, k): float(v) for k, v in raw.items()
              if not k.startswith("n_") and isinstance(v, float)}
    counts = {k: float(v) for k, v in raw.items() if k.startswith("n_")}
    cis: dict = {}
    if n_resamples:
        names = ("precision", "recall", "f1", "exact_match")
        per = np.array([[one[n] for n in names] for one in
                        (span_overlap_scores([p], [r], passages=[t])
                         for p, r, t in zip(predictions, references, passages))])

        def stat(idx: np.ndarray) -> dict[str, float]:
            return {ALIGNMENT_NAMES.get(n, n): float(x) for n, x in zip(names, per[idx].mean(axis=0))}

        cis = bootstrap_ci(len(predictions), stat, n_resamples=n_resamples, seed=seed, unit="examples")
    return Scored(scores, cis, counts)
