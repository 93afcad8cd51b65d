"""Metaphor detection scores split by vocabulary, as in Meta4XNLI.

Definition: the *metaphor vocabulary* is the set of lowercased word forms (or lowercased lemmas with
``use_lemma=True``) of the training tokens whose tag marks a metaphor (any tag other than ``O``;
for integer tags, any value other than 0). Tags must be ``O``, ``B-METAPHOR`` or ``I-METAPHOR``, or
the label ids 0, 1, 2 (``O`` = 0); anything else (``o``, ``-``, 3) is a ``ValueError`` naming the
sentence, position and tag. A test token is *in-vocabulary* when its lowercased form
(lemma) is in that set and *out-of-vocabulary* otherwise. Scores are binary token-level precision,
recall and F1 of the metaphor class (a token is positive iff its tag is not ``O``), over all test
tokens (``precision``, ``recall``, ``f1``) and over the in-/out-of-vocabulary tokens separately
(``in_vocab_*``, ``out_vocab_*``). Zero denominators score 0. Lemmas (``use_lemma=True``) are
spaCy lookup lemmas (``spacy-lookups-data`` tables, ``en`` or ``es``) of the lowercased tokens.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain

import numpy as np

from figbench.scoring.spans import _f1, _ratio

LANGS = ("en", "es")


def lemmatize(sentences: Sequence[Sequence[str]], lang: str = "en") -> list[list[str]]:
    """spaCy lookup lemmas of the lowercased tokens of pre-tokenised sentences, lowercased.

    One lemma per given token; a token missing from the lookup table is its own lemma. The lemmas are
    figbench's one lemmatizer (:func:`figbench.corpora.lemmas.lookup_lemma`, case rule ``"lower"``).
    """
    if lang not in LANGS:
        raise ValueError(f"vocab_scores: lemmas are supported for {LANGS}, not {lang!r}")
    from figbench.corpora.lemmas import lookup_lemma

    table = {w: lookup_lemma(w, lang, case="lower") for w in {w.lower() for s in sentences for w in s}}
    return [[table[w.lower()] for w in s] for s in sentences]


#: Accepted tags: the ``meta4xnli`` dataset's string tags and their ``ClassLabel`` ids (``O`` = 0).
STRING_TAGS = ("O", "B-METAPHOR", "I-METAPHOR")
INT_TAGS = (0, 1, 2)


def _positive(tags: Sequence, where: str, index: int) -> list[bool]:
    """Metaphor flag per tag; any tag outside :data:`STRING_TAGS` / :data:`INT_TAGS` is an error."""
    out = []
    for k, t in enumerate(tags):
        if isinstance(t, str):
            ok = t in STRING_TAGS
        elif isinstance(t, (int, np.integer)) and not isinstance(t, (bool, np.bool_)):
            ok = int(t) in INT_TAGS
        else:
            raise ValueError(f"vocab_scores: {where} sentence {index}, token {k}: tag {t!r} is not a string or int")
        if not ok:
            raise ValueError(f"vocab_scores: {where} sentence {index}, token {k}: unknown tag {t!r} "
                             f"(expected one of {', '.join(STRING_TAGS)} or the label ids 0, 1, 2)")
        out.append(t != "O" if isinstance(t, str) else int(t) != 0)
    return out


def _check(tokens: Sequence, tags: Sequence, what: str, name_tok: str, name_tag: str) -> None:
    if tokens is None or tags is None or len(tokens) == 0:
        raise ValueError(f"vocab_scores: empty input ({name_tok})")
    if len(tokens) != len(tags):
        raise ValueError(f"vocab_scores: {len(tokens)} {name_tok} sentences but {len(tags)} {name_tag}")
    for i, (a, b) in enumerate(zip(tokens, tags)):
        if isinstance(a, str) or isinstance(b, str):
            raise ValueError(f"vocab_scores: {what} sentence {i}: expected lists, got a string")
        if len(a) != len(b):
            raise ValueError(f"vocab_scores: {what} sentence {i}: {len(a)} tokens but {len(b)} {name_tag}")


def _keys(sentences: Sequence[Sequence[str]], use_lemma: bool, lang: str) -> list[str]:
    if use_lemma:
        return list(chain.from_iterable(lemmatize(sentences, lang)))
    return [t.lower() for t in chain.from_iterable(sentences)]


def _prf(gold: np.ndarray, pred: np.ndarray) -> tuple[float, float, float, int, int, int]:
    tp = int(np.count_nonzero(gold & pred))
    n_g, n_p = int(np.count_nonzero(gold)), int(np.count_nonzero(pred))
    p, r = _ratio(tp, n_p), _ratio(tp, n_g)
    return p, r, _f1(p, r), tp, n_g, n_p


def vocab_scores(
    train_tokens: Sequence[Sequence[str]],
    train_tags: Sequence[Sequence],
    test_tokens: Sequence[Sequence[str]],
    gold_tags: Sequence[Sequence],
    pred_tags: Sequence[Sequence],
    *,
    use_lemma: bool = False,
    lang: str = "en",
) -> dict:
    """Token-level metaphor P/R/F1 overall, in-vocabulary and out-of-vocabulary (see module doc).

    Returns ``precision``, ``recall``, ``f1``, ``in_vocab_precision|recall|f1``,
    ``out_vocab_precision|recall|f1`` and counts: ``vocab_size``, ``n_tokens``,
    ``n_in_vocab_tokens``, ``n_out_vocab_tokens``, and for ``all``/``in_vocab``/``out_vocab`` the
    ``n_<part>_gold``, ``n_<part>_pred``, ``n_<part>_correct`` metaphor tokens.
    """
    _check(train_tokens, train_tags, "train", "train_tokens", "train_tags")
    _check(test_tokens, gold_tags, "test", "test_tokens", "gold_tags")
    _check(test_tokens, pred_tags, "test", "test_tokens", "pred_tags")

    train_keys = _keys(train_tokens, use_lemma, lang)
    train_pos = list(chain.from_iterable(_positive(t, "train", i) for i, t in enumerate(train_tags)))
    vocab = {k for k, pos in zip(train_keys, train_pos) if pos}

    test_keys = _keys(test_tokens, use_lemma, lang)
    gold = np.fromiter(chain.from_iterable(_positive(t, "gold", i) for i, t in enumerate(gold_tags)), dtype=bool)
    pred = np.fromiter(chain.from_iterable(_positive(t, "prediction", i) for i, t in enumerate(pred_tags)), dtype=bool)
    in_vocab = np.fromiter((k in vocab for k in test_keys), dtype=bool, count=len(test_keys))

    out: dict = {}
    counts: dict = {}
    for part, mask in (("", slice(None)), ("in_vocab_", in_vocab), ("out_vocab_", ~in_vocab)):
        p, r, f, tp, n_g, n_p = _prf(gold[mask], pred[mask])
        out.update({f"{part}precision": p, f"{part}recall": r, f"{part}f1": f})
        name = part.rstrip("_") or "all"
        counts.update({f"n_{name}_gold": n_g, f"n_{name}_pred": n_p, f"n_{name}_correct": tp})
    out.update(
        vocab_size=len(vocab),
        n_tokens=len(test_keys),
        n_in_vocab_tokens=int(np.count_nonzero(in_vocab)),
        n_out_vocab_tokens=int(np.count_nonzero(~in_vocab)),
        **counts,
    )
    return out
