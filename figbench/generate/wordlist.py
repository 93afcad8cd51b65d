"""The model's metaphoric word list on the re-tagger's spans (:func:`figbench.generate.retag.retag`).

An entry is looked up in the paraphrase verbatim, then by lemmas (a list in base form: ``ensnare`` finds
``ensnared``), then fuzzily by word stems (flagged ``fuzzy_word``). Where it lands decides the span:

* on the span the alignment finds, around it or beside it: the entry's own span, flagged ``word_differs``
  when the two differ (and ``word_elsewhere`` when they do not even overlap);
* inside the alignment's rewritten stretch as a fragment of a longer metaphor (one word, or ending with a
  function word: ``ensnared`` of ``ensnared in the web of the law``, ``robbed of`` of ``robbed of life``; never
  for one-word metaphors, style ``single``): the span runs from the entry to the stretch's end, flagged
  ``word_differs`` only when that is not the aligned span (the entry starts later);
* inside the aligned span, cut short between two of its content words (``crossed the final`` of ``crossed the
  final frontier``, :func:`cut_short`; never for style ``single``): the span runs on to the end of that run of
  content words, flagged ``word_differs`` when that is not the aligned span;
* nowhere: the alignment's span stays.

Tuned on META_m validation and META_1 Dev_small (``benchmarks/bench_retag.py``). A differing entry clears no
flag; only an entry that is exactly the aligned span and no fragment (a one-word entry is one, except for
one-word metaphors) answers the doubts about its edges (:data:`RESOLVED_BY_MATCH`: they are not raised for
it). Every other flag stays.
"""

from __future__ import annotations

import functools
import re

from figbench.generate.retag import Tag, _add, _find, _stem, _trim, is_content, is_punct, norm, tokenize


def apply_word_list(tags: dict[str, Tag], triggers: list[tuple[str, int, int]], para: list[str],
                    words: dict[str, str], style: str = "multi") -> None:
    """Move each tag onto the phrase the model's word list gives for it (trailing punctuation dropped); with
    ``style`` ``single`` (one-word metaphors) an entry is never a fragment of a longer one."""
    for mid, _, _ in triggers:
        phrase = tokenize(words[mid]) if words.get(mid) else []
        while phrase and is_punct(phrase[-1]):
            phrase.pop()
        if phrase:
            use_word(tags[mid], para, phrase, style)


#: doubts about the aligned span's edges that an entry naming exactly that span answers
RESOLVED_BY_MATCH = ("weak_boundary", "extra_words")


def fragment(phrase: list[str], style: str = "multi") -> bool:
    """Whether a word-list entry reads as part of a longer (``multi``) metaphor: one word, or ending with a
    function word."""
    return style != "single" and (len(phrase) == 1 or not is_content(phrase[-1]))


def cut_short(para: list[str], tag: Tag, end: int, style: str = "multi") -> bool:
    """Whether an entry ending at ``end`` inside the aligned span stops between two of its content words (a
    metaphor does not end there: ``crossed the final`` of ``crossed the final frontier``)."""
    return (style != "single" and tag.start is not None and end < tag.end and is_content(para[end - 1])
            and is_content(para[end]))


def _confirms_or_extends(tag: Tag, para: list[str], phrase: list[str], start: int, end: int, how: str,
                         style: str) -> bool:
    """Handle an entry found on the aligned stretch ``tag`` (True when handled, the tag's span kept or extended).

    An entry that is exactly the aligned span and no fragment confirms its edges: the doubts of
    :data:`RESOLVED_BY_MATCH` are not raised (every other flag stays). A fragment strictly inside the stretch
    names part of it: the span runs from the entry to the stretch's end (a metaphor starts with its first
    content word; function words before the entry are left out, as the alignment leaves them out).
    """
    if (start, end) == (tag.start, tag.end):
        if fragment(phrase, style):
            return False
        tag.flags = [f for f in tag.flags if f not in RESOLVED_BY_MATCH]
        tag.how = how + "_confirms"
        return True
    if tag.start <= start and end <= tag.end and fragment(phrase, style):
        _move(tag, start, tag.end, how + "_in_stretch", [])
        return True
    if tag.start <= start and cut_short(para, tag, end, style):
        while end < tag.end and is_content(para[end]):
            end += 1
        _move(tag, start, end, how + "_cut_short", [])
        return True
    return False


def use_word(tag: Tag, para: list[str], phrase: list[str], style: str = "multi") -> None:
    """Put ``tag`` on the word-list phrase's position when it is in the paraphrase (see the module docstring)."""
    hits, how = _find(para, phrase), "word_list"
    if not hits:
        hits, how = find_lemmas(para, phrase), "word_list_lemma"
    had_span = tag.start is not None
    near = [i for i in hits if had_span and i < tag.end and i + len(phrase) > tag.start]
    if len(near) == 1 or len(hits) == 1:
        i = (near or hits)[0]
        start, end = i, i + len(phrase)
        if near and tag.how == "gap" and _confirms_or_extends(tag, para, phrase, start, end, how, style):
            return
        _move(tag, start, end, how, [] if near or not had_span else ["word_elsewhere"])
    elif len(hits) > 1:
        if not had_span:
            _move(tag, hits[0], hits[0] + len(phrase), how, [])
        _add(tag, "word_repeated")
        tag.how = how
    else:
        found = _fuzzy(para, phrase)
        if found is None:
            return
        a, b = _trim(para, found[0], found[1])
        if b <= a or (had_span and tag.how == "unchanged"):
            return
        _move(tag, a, b, "word_list_fuzzy", ["fuzzy_word"])


@functools.lru_cache(maxsize=1 << 16)
def _lemma(token: str) -> str:
    from figbench.corpora.lemmas import lookup_lemma

    return lookup_lemma(norm(token), case="lower") if any(c.isalpha() for c in token) else norm(token)


def find_lemmas(para: list[str], phrase: list[str]) -> list[int]:
    """Starts of the windows of ``para`` whose tokens have the lemmas of ``phrase``'s (a base-form entry)."""
    n = len(phrase)
    want = [_lemma(t) for t in phrase]
    got = [_lemma(t) for t in para]
    return [i for i in range(len(para) - n + 1) if n and got[i: i + n] == want]


def _fuzzy(para: list[str], phrase: list[str]) -> tuple[int, int, float] | None:
    """Best window of the paraphrase by stem overlap with ``phrase`` (Dice), or None."""
    want = [_stem(t) for t in phrase if not is_punct(t)]
    if not want:
        return None
    best = None
    for size in {max(1, len(phrase) - 1), len(phrase), len(phrase) + 1}:
        for i in range(len(para) - size + 1):
            got = [_stem(t) for t in para[i: i + size] if not is_punct(t)]
            common = sum(min(got.count(s), want.count(s)) for s in set(want))
            score = 2 * common / (len(got) + len(want)) if got else 0.0
            if best is None or score > best[2] + 1e-9:
                best = (i, i + size, score)
    return best if best and best[2] >= 0.5 else None


def _move(tag: Tag, start: int, end: int, how: str, flags: list[str]) -> None:
    """Move ``tag`` to ``start:end`` (the word list's), flagging a span other than the aligned one; a ``missing``
    tag that gets a span becomes ``word_unaligned``."""
    if tag.start is None:
        tag.flags = [f for f in tag.flags if f != "missing"]
        _add(tag, "word_unaligned")
    elif (tag.start, tag.end) != (start, end):
        _add(tag, "word_differs")
    _add(tag, *flags)
    tag.start, tag.end, tag.how = start, end, how


def words_for_triggers(triggers: list[tuple[str, str]], original_words: list[str],
                       metaphoric_words: list[str]) -> dict[str, str]:
    """mention id -> metaphoric phrase from the answer's two word lists (``triggers``: (mention id, text)).

    A trigger takes the entry of the original word list equal to its text (case-insensitive, first unused),
    else the entry at its own position when both lists are as long as the trigger list.
    """
    out: dict[str, str] = {}
    if len(original_words) != len(metaphoric_words):
        if len(metaphoric_words) == len(triggers):
            return {mid: w for (mid, _), w in zip(triggers, metaphoric_words, strict=True)}
        return out
    used: set[int] = set()
    key = [re.sub(r"\s+", " ", w).strip().lower() for w in original_words]
    for n, (mid, text) in enumerate(triggers):
        want = re.sub(r"\s+", " ", text).strip().lower()
        k = next((i for i, w in enumerate(key) if w == want and i not in used), None)
        if k is None and len(key) == len(triggers) and n not in used:
            k = n
        if k is not None:
            used.add(k)
            out[mid] = metaphoric_words[k]
    return out
