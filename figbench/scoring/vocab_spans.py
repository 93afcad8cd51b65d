"""Metaphor detection split by vocabulary at both levels, span and token, with bootstrap intervals.

*Span level* (the level of the strict IOB2 span F1 ``f1``): the metaphor vocabulary is the set of
lowercased texts (tokens joined by one space) of the strict IOB2 metaphor spans of the training
sentences (:func:`figbench.scoring.spans.bio_spans`). A gold or predicted test span is
*in-vocabulary* when its lowercased text is in that set, *out-of-vocabulary* otherwise; precision,
recall and F1 are computed over the in- and out-of-vocabulary spans separately (a correct predicted
span equals a gold span, so both carry the same status, and the two parts partition the span
counts of ``f1``). Keys ``in_vocab_precision|recall|f1``, ``out_vocab_precision|recall|f1``.

*Token level* (the level of ``token_f1``): :func:`figbench.scoring.vocab.vocab_scores` (vocabulary =
lowercased word forms of metaphor-tagged training tokens). Keys ``in_vocab_token_*``,
``out_vocab_token_*``.

Intervals resample sentences (percentile bootstrap, :func:`figbench.bootstrap.bootstrap_ci`), with
the same resamples as :func:`figbench.scoring.spans.score_bio` for the same seed.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from figbench.scoring import Scored
from figbench.scoring.spans import _f1, _ratio, bio_spans

_PARTS = ("in_vocab", "out_vocab")
_STATS = ("precision", "recall", "f1")


def _span_texts(tokens: Sequence[str], tags: Sequence[str]) -> dict[tuple[str, int, int], str]:
    return {(t, s, e): " ".join(tokens[s:e]).lower() for t, s, e in bio_spans(list(tags))}


def span_vocabulary(train_tokens: Sequence[Sequence[str]], train_tags: Sequence[Sequence[str]]) -> set[str]:
    """Lowercased texts of the strict IOB2 spans of the training sentences."""
    return {text for toks, tags in zip(train_tokens, train_tags, strict=True)
            for text in _span_texts(toks, tags).values()}


def span_vocab_counts(vocab: set[str], tokens: Sequence[Sequence[str]], gold_tags: Sequence[Sequence[str]],
                      pred_tags: Sequence[Sequence[str]]) -> np.ndarray:
    """Per sentence: correct, predicted and gold span counts, in-vocabulary then out-of-vocabulary (n x 6)."""
    out = np.zeros((len(tokens), 6))
    for i, (toks, gold, pred) in enumerate(zip(tokens, gold_tags, pred_tags, strict=True)):
        g, p = _span_texts(toks, gold), _span_texts(toks, pred)
        for j, inside in enumerate((True, False)):
            keep = lambda spans, inside=inside: {k for k, text in spans.items() if (text in vocab) == inside}
            gk, pk = keep(g), keep(p)
            out[i, 3 * j:3 * j + 3] = len(gk & pk), len(pk), len(gk)
    return out


def _token_vocab_counts(train_tokens, train_tags, tokens, gold_tags, pred_tags) -> np.ndarray:
    """Per sentence: :func:`vocab_scores` correct, predicted and gold metaphor tokens, in then out (n x 6)."""
    from figbench.scoring.vocab import vocab_scores

    # one sentence of the metaphor-tagged training forms has the same vocabulary and keeps each call small
    forms = sorted({t.lower() for toks, tags in zip(train_tokens, train_tags) for t, g in zip(toks, tags) if g != "O"})
    stand_in = ([forms or ["<none>"]], [["B-METAPHOR"] * len(forms) if forms else ["O"]])
    out = np.zeros((len(tokens), 6))
    for i, (toks, gold, pred) in enumerate(zip(tokens, gold_tags, pred_tags, strict=True)):
        s = vocab_scores(*stand_in, [toks], [gold], [pred])
        out[i] = [s[f"n_{part}_{c}"] for part in _PARTS for c in ("correct", "pred", "gold")]
    return out


def _prf(counts: np.ndarray, suffix: str) -> dict[str, float]:
    out = {}
    for j, part in enumerate(_PARTS):
        c, p, g = counts[3 * j:3 * j + 3]
        prec, rec = _ratio(c, p), _ratio(c, g)
        out.update({f"{part}{suffix}_precision": prec, f"{part}{suffix}_recall": rec,
                    f"{part}{suffix}_f1": _f1(prec, rec)})
    return out


def score_vocab(train_tokens: Sequence[Sequence[str]], train_tags: Sequence[Sequence[str]],
                tokens: Sequence[Sequence[str]], gold_tags: Sequence[Sequence[str]],
                pred_tags: Sequence[Sequence[str]], *, n_resamples: int = 1000, seed: int = 0) -> Scored:
    """In-/out-of-vocabulary P/R/F1 at span level (``in_vocab_*``) and token level (``in_vocab_token_*``)."""
    from figbench.bootstrap import bootstrap_ci

    if not len(tokens):
        raise ValueError("score_vocab: no test sentences")
    spans = span_vocab_counts(span_vocabulary(train_tokens, train_tags), tokens, gold_tags, pred_tags)
    toks = _token_vocab_counts(train_tokens, train_tags, tokens, gold_tags, pred_tags)

    def stat(idx: np.ndarray) -> dict[str, float]:
        return {**_prf(spans[idx].sum(0), ""), **_prf(toks[idx].sum(0), "_token")}

    everything = np.arange(len(tokens))
    cis = bootstrap_ci(len(tokens), stat, n_resamples=n_resamples, seed=seed, unit="sentences") if n_resamples else {}
    totals = {f"n_{part}_{lvl}_{c}": float(arr[:, 3 * j + k].sum())
              for lvl, arr in (("spans", spans), ("tokens", toks)) for j, part in enumerate(_PARTS)
              for k, c in enumerate(("correct", "pred", "gold"))}
    return Scored(stat(everything), cis, totals)


__all__ = ["score_vocab", "span_vocab_counts", "span_vocabulary"]
