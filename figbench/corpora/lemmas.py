"""Head lemmas: one spaCy lookup lemmatizer for every builder (and the metaphor-vocabulary scores).

The lemmas come from ``spacy.blank(lang)`` with the ``lemmatizer`` pipe in lookup mode, whose
tables ship in ``spacy-lookups-data``; one table per language is loaded once per process. Lookup
lemmas ignore context: a word form maps to one lemma, and a form missing from the table is its own
lemma. The result is always lower-cased.

The corpora look a form up under one of three case rules (kept as they were, so no published
``head_lemma`` changes):

* ``"exact_then_lower"`` (ECB+, ECB+META_1): the form as written, then its lower-cased form;
* ``"exact"`` (WEC-Eng records without a lemma; spaCy's own lookup lemmatizer): only as written,
  so ``"Arrested"`` stays ``"arrested"``;
* ``"lower"`` (metaphor vocabulary of :mod:`figbench.scoring.vocab`): only the lower-cased form.

``tokenize=True`` (WEC-Eng) first splits the text with spaCy's tokenizer and joins the tokens'
lemmas with spaces, as running the pipeline on the text did.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache, lru_cache
from typing import Literal

CaseRule = Literal["exact_then_lower", "exact", "lower"]
CASE_RULES: tuple[str, ...] = ("exact_then_lower", "exact", "lower")


@cache
def _pipeline(lang: str):
    from figbench.imports import spacy as import_spacy

    spacy = import_spacy()

    try:
        nlp = spacy.blank(lang)
    except (ImportError, ValueError, KeyError) as e:
        raise ValueError(f"lemmas: spaCy has no language {lang!r} ({e})") from None
    lemmatizer = nlp.add_pipe("lemmatizer", config={"mode": "lookup"})
    try:
        lemmatizer.initialize()
    except (ValueError, KeyError) as e:  # no table for this language in spacy-lookups-data
        raise ValueError(f"lemmas: no lookup lemma table for {lang!r} (install spacy-lookups-data): {e}") from None
    return nlp, lemmatizer.lookups.get_table("lemma_lookup")


def lemma_table(lang: str = "en") -> Mapping[str, str]:
    """The lookup table (form -> lemma) of a language, loaded once."""
    return _pipeline(lang)[1]


def _one(word: str, table: Mapping[str, str], case: str) -> str:
    if case == "exact_then_lower":
        return table.get(word) or table.get(word.lower()) or word
    if case == "exact":
        return table.get(word) or word
    lower = word.lower()
    return table.get(lower) or lower


@lru_cache(maxsize=1 << 17)
def lookup_lemma(word: str, lang: str = "en", *, case: CaseRule = "exact_then_lower", tokenize: bool = False) -> str:
    """Lower-cased lookup lemma of ``word`` under a case rule (see the module docstring).

    With ``tokenize`` the text is split by spaCy's tokenizer first and the lemmas of its tokens are
    joined with single spaces.
    """
    if case not in CASE_RULES:
        raise ValueError(f"lemmas: unknown case rule {case!r}; use one of {', '.join(CASE_RULES)}")
    nlp, table = _pipeline(lang)
    if tokenize:
        return " ".join(_one(t.text, table, case) for t in nlp.tokenizer(word)).lower()
    return _one(word, table, case).lower()
