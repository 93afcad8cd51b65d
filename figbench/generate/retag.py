"""Automatic re-tagging of the original event triggers in a paraphrased sentence (ECB+META §3.1, step 2).

The paraphrase keeps most of the sentence and rewrites the triggers (and sometimes words next to them).
:func:`retag` aligns the two token sequences (``difflib``'s longest matching blocks over normalised
tokens); each trigger's span in the paraphrase is the rewritten stretch between the unchanged tokens
around it, without edge punctuation and leading articles, possessives, pronouns and conjunctions
(:data:`NOT_LEADING`; a leading preposition or verb stays: ``put an end to``); where several triggers share a
stretch, the guessed cut between them (in proportion to their places in the sentence, keeping ``of`` phrases,
possessives and hyphenated words whole where it can) leaves its function words to neither side. The metaphoric word list
of the model's answer, when given, then places or extends each span (:mod:`figbench.generate.wordlist`:
verbatim, by lemmas, then fuzzily).

Ambiguous cases are flagged (:data:`FLAGS`) for review: a stretch holding several triggers (split by a
guess), a trigger whose stretch also rewrote other content words, a span that stops short of a kept function word
next to it (``weak_boundary``: not raised where the span meets it, which on META_m validation was as often right
as the spans overall), no stretch at all, a long stretch, a
word-list phrase found only fuzzily, several times, away from the stretch or other than the stretch, a
trigger kept word for word, a sentence rewritten beyond its triggers. An entry that differs from the aligned span
is itself a flag (``word_differs``) and clears none; only an entry that is exactly the aligned span and no
fragment of a longer metaphor answers the doubts about its edges (:data:`figbench.generate.wordlist.RESOLVED_BY_MATCH`).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass, field
from difflib import SequenceMatcher

#: flag -> what a reviewer should check
FLAGS = {
    "shared": "the rewritten stretch holds several triggers; the split between them is a guess",
    "extra_words": "other content words around the trigger were rewritten too; the span may be too wide",
    "missing": "the trigger has no counterpart in the paraphrase (deleted or moved)",
    "long": "the proposed span is long",
    "partial": "only part of the trigger was rewritten",
    "weak_boundary": "the span stops short of a function word the model kept; the words between may belong to it",
    "fuzzy_word": "the metaphoric word list entry is not in the sentence verbatim; a close match was taken",
    "word_elsewhere": "the metaphoric word list entry is not where the alignment puts the trigger",
    "word_repeated": "the metaphoric word list entry occurs several times",
    "word_differs": "the metaphoric word list entry differs from the span the alignment finds; the entry was taken",
    "word_unaligned": "the alignment found no span; the metaphoric word list entry was taken",
    "untouched": "the trigger is kept word for word (the metaphor may have been put next to it, or left out)",
    "rewritten": "the paraphrase keeps few of the sentence's other words (rewritten, or another language)",
}
#: a sentence whose paraphrase keeps under this share of its other content words flags its mentions ``rewritten``
KEPT_SHARE = 0.5
#: a proposed span longer than this many tokens is flagged ``long``
LONG_SPAN = 8
_QUOTES = {"``": '"', "''": '"', "\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'", "`": "'"}


@dataclass
class Tag:
    """The proposed span of one trigger on the paraphrase tokens (``start``/``end`` None when missing)."""

    mention_id: str
    start: int | None
    end: int | None
    flags: list[str] = field(default_factory=list)
    how: str = ""

    @property
    def flagged(self) -> bool:
        return bool(self.flags)


def norm(token: str) -> str:
    t = _QUOTES.get(token, token).lower()
    return t.replace("\u2019", "'")


def is_punct(token: str) -> bool:
    return not any(c.isalnum() for c in token)


@functools.lru_cache(maxsize=1)
def _stop_words() -> frozenset[str]:
    from figbench.corpora.ecbplus import _stop_words

    return frozenset(_stop_words())


def is_content(token: str) -> bool:
    return not is_punct(token) and token.lower() not in _stop_words()


def _stem(token: str) -> str:
    return norm(token)[:5]


def tokenize(text: str) -> list[str]:
    """spaCy's English tokenizer (as ECB+META_1's released sentences), spaces dropped."""
    from figbench.corpora.ecbmeta import _tokenizer

    return [t.text for t in _tokenizer()(text) if not t.is_space]


def _anchors(orig: list[str], para: list[str], weak: set[int] | None = None) -> dict[int, int]:
    """orig index -> para index of the tokens the paraphrase kept (longest matching blocks); ``weak``
    receives the orig indices of short blocks of function words and punctuation only.

    A weak block is slid next to the strong anchor it touches in the original when the paraphrase has the
    same words there too (``hosting the 81st`` -> ``conducting the orchestra for the 81st``: the ``the``
    of ``the 81st``, not the one inside the metaphor).
    """
    po = [norm(t) for t in orig]
    pp = [norm(t) for t in para]
    blocks = [(a, b, size) for a, b, size in SequenceMatcher(None, po, pp, autojunk=False).get_matching_blocks()
              if size]
    out: dict[int, int] = {}
    for a, b, size in blocks:
        for k in range(size):
            out[a + k] = b + k
    for a, b, size in blocks:
        if size > 2 or any(is_content(t) for t in orig[a: a + size]) or all(is_punct(t) for t in orig[a: a + size]):
            continue
        if weak is not None:
            weak.update(range(a, a + size))
        nxt, prv = out.get(a + size), out.get(a - 1)
        if nxt is not None and nxt > b + size and pp[nxt - size: nxt] == po[a: a + size]:
            shift = nxt - size
        elif prv is not None and prv < b - 1 and pp[prv + 1: prv + 1 + size] == po[a: a + size]:
            shift = prv + 1
        elif prv is None or nxt is None:
            # between two rewritten stretches: take its last occurrence before the next kept token, since a
            # metaphor tends to start with the rewritten word and run on ("conducting the orchestra for the")
            lo = max((out[i] for i in out if i < a), default=-1) + 1
            hi = min((out[i] for i in out if i >= a + size), default=len(para))
            hits = [j for j in range(lo, hi - size + 1) if pp[j: j + size] == po[a: a + size]]
            if not hits or hits[-1] == b:
                continue
            shift = hits[-1]
            for k in range(size):
                out[a + k] = shift + k
            continue
        else:
            continue
        for k in range(size):
            out[a + k] = shift + k
        if weak is not None:
            weak.difference_update(range(a, a + size))  # now bound to its strong neighbour
    return out


#: function words a multi-word metaphor does not start with (articles, possessives, pronouns, conjunctions):
#: ``lead`` trimming drops only these, so a leading preposition or verb of the stop list stays (``put an end
#: to``, ``was robbed of``, ``under the cloud of``); designed on META_m validation
NOT_LEADING = frozenset({"a", "an", "the", "'s", "his", "her", "their", "its", "my", "our", "your", "this", "that",
                         "these", "those", "some", "any", "every", "each", "and", "or", "but", "who", "which", "i",
                         "he", "she", "it", "they", "we", "you"})


def _trim(para: list[str], start: int, end: int, stop: str | None = "lead") -> tuple[int, int]:
    """Without edge punctuation, and (``stop``) without edge function words when a content word remains: ``lead``
    drops the leading ones of :data:`NOT_LEADING`, ``both`` every function word at both edges."""
    while start < end and is_punct(para[start]):
        start += 1
    while end > start and is_punct(para[end - 1]):
        end -= 1
    if stop and any(is_content(t) for t in para[start:end]):
        while not is_content(para[start]) and (stop == "both" or norm(para[start]) in NOT_LEADING):
            start += 1
        while stop == "both" and not is_content(para[end - 1]):
            end -= 1
    return start, end


def _find(para: list[str], phrase: list[str]) -> list[int]:
    n = len(phrase)
    p = [norm(t) for t in para]
    q = [norm(t) for t in phrase]
    return [i for i in range(len(p) - n + 1) if n and p[i: i + n] == q]


#: how many tokens further from its proportional place a cut may move to fall at a function word or punctuation
#: rather than between two content words (designed on META_m validation)
CUT_BETWEEN_CONTENT = 1.5
#: tokens joining the words on either side into one (a cut between shared triggers never falls next to them)
JOINERS = frozenset({"'s", "'", "-"})


def _joined(para: list[str], j: int) -> bool:
    """Whether a cut before ``para[j]`` would split words a possessive or hyphen joins (``Hollywood 's``)."""
    return norm(para[j]) in JOINERS or norm(para[j - 1]) in JOINERS


def _binds(para: list[str], j: int) -> bool:
    """Whether a cut before ``para[j]`` touches an ``of`` (``storm | of gunfire``, ``storm of | gunfire``,
    ``tip of the | hat``): a cut elsewhere is preferred."""
    return "of" in (norm(para[j]), norm(para[j - 1])) or (j >= 2 and norm(para[j - 2]) == "of"
                                                          and not is_content(para[j - 1]))


def _split(start: int, end: int, parts: list[tuple[int, int]], para: list[str]) -> list[tuple[int, int]]:
    """Divide the para stretch [start, end) among triggers whose original spans are ``parts`` (in order),
    in proportion to where they sit in the original stretch: each cut leaves a content word to every piece,
    never splits words a possessive or hyphen joins, avoids an ``of`` (``storm of gunfire``, ``tip of the hat``)
    where it can, and moves up to :data:`CUT_BETWEEN_CONTENT` tokens to fall next to a function word."""
    n = len(parts)
    if n == 1:
        return [(start, end)]
    lo, hi = parts[0][0], parts[-1][1]
    width = max(1, hi - lo)
    content = [i for i in range(start, end) if is_content(para[i])]
    cuts = [start]
    for k in range(1, n):
        target = start + round((parts[k][0] - lo) / width * (end - start))
        allowed = [j for j in range(cuts[-1] + 1, end) if not _joined(para, j)
                   and any(cuts[-1] <= i < j for i in content) and sum(i >= j for i in content) >= n - k]
        best = min(allowed or range(cuts[-1] + 1, end), key=lambda j: (
            _binds(para, j), abs(j - target) + CUT_BETWEEN_CONTENT * (is_content(para[j - 1]) and is_content(para[j]))),
            default=cuts[-1])
        cuts.append(best)
    cuts.append(end)
    return [(cuts[k], cuts[k + 1]) for k in range(n)]


def retag(orig: list[str], triggers: list[tuple[str, int, int]], para: list[str],
          words: dict[str, str] | None = None, style: str = "multi") -> list[Tag]:
    """Spans on ``para`` of the ``triggers`` ``(mention_id, start, end)`` of ``orig``.

    ``words``: mention id -> the metaphoric word/phrase the model says replaced it (its word list).
    ``style``: ``single`` (one-word metaphors: function words at both edges of a stretch are dropped, and a
    stretch with several content words is flagged ``long``) or ``multi`` (phrases: only leading ones).
    """
    trim = "both" if style == "single" else "lead"
    weak: set[int] = set()
    anchored = _anchors(orig, para, weak)
    tags, gaps = _unchanged_and_gaps(orig, triggers, anchored)
    trigger_tokens = {i for _, s, e in triggers for i in range(s, e)}
    for (left, right), group in gaps.items():
        tags.update(_tag_gap(orig, para, anchored, weak, trigger_tokens, left, right, group, trim))
    kept_as_is = {mid for mid, tag in tags.items() if tag.how == "unchanged"}
    if words:
        from figbench.generate.wordlist import apply_word_list

        apply_word_list(tags, triggers, para, words, style)
    _flag_long(tags.values(), para, style)
    _flag_untouched(tags, triggers, orig, para, kept_as_is)
    if kept_share(orig, para, triggers, anchored) < KEPT_SHARE:
        for tag in tags.values():
            tag.flags.append("rewritten")
    return [tags[mid] for mid, _, _ in triggers]


def _flag_untouched(tags: dict[str, Tag], triggers: list[tuple[str, int, int]], orig: list[str],
                    para: list[str], kept_as_is: set[str]) -> None:
    """Flag ``untouched`` a trigger the paraphrase kept word for word (wherever the word list put its span)."""
    for mid, s, e in triggers:
        tag = tags[mid]
        same = tag.start is not None and [norm(t) for t in para[tag.start: tag.end]] == [norm(t) for t in orig[s:e]]
        if mid in kept_as_is or same:
            _add(tag, "untouched")


def kept_share(orig: list[str], para: list[str], triggers: list[tuple[str, int, int]],
               anchored: dict[int, int] | None = None) -> float:
    """Share of the sentence's content words outside the triggers that the paraphrase keeps (1.0 when it has
    under four such words: too few to judge)."""
    anchored = _anchors(orig, para) if anchored is None else anchored
    inside = {i for _, s, e in triggers for i in range(s, e)}
    other = [i for i, t in enumerate(orig) if i not in inside and is_content(t)]
    if len(other) < 4:
        return 1.0
    return sum(i in anchored for i in other) / len(other)


def _unchanged_and_gaps(orig: list[str], triggers: list[tuple[str, int, int]], anchored: dict[int, int]
                        ) -> tuple[dict[str, Tag], dict[tuple[int, int], list[tuple[str, int, int]]]]:
    """Tags of the triggers kept word for word, and the others grouped by the anchors around them
    ``(left, right)`` (-1 / ``len(orig)`` at the edges)."""
    anchored_set = set(anchored)
    tags: dict[str, Tag] = {}
    gaps: dict[tuple[int, int], list[tuple[str, int, int]]] = {}
    for mid, s, e in triggers:
        free = [i for i in range(s, e) if i not in anchored_set]
        if not free:
            tags[mid] = Tag(mid, anchored[s], anchored[e - 1] + 1, [], "unchanged")
            continue
        left = max((i for i in anchored_set if i < free[0]), default=-1)
        right = min((i for i in anchored_set if i > free[-1]), default=len(orig))
        gaps.setdefault((left, right), []).append((mid, s, e))
    return tags, gaps


def _tag_gap(orig: list[str], para: list[str], anchored: dict[int, int], weak: set[int], trigger_tokens: set[int],
             left: int, right: int, group: list[tuple[str, int, int]], trim: str) -> dict[str, Tag]:
    """Tags of the triggers between the anchors ``left`` and ``right``: the paraphrase's stretch between their
    images, trimmed and split among them in order."""
    pstart = anchored[left] + 1 if left >= 0 else 0
    pend = anchored[right] if right < len(orig) else len(para)
    edges = _trim(para, pstart, pend, None)  # the whole stretch, without edge punctuation
    pstart, pend = _trim(para, pstart, pend, trim)
    group.sort(key=lambda t: t[1])
    extra = any(is_content(orig[i]) and i not in trigger_tokens for i in range(left + 1, right))
    if right in weak and trim == "lead":  # a kept function word ends it: drop function words before it
        pstart, pend = _trim(para, pstart, pend, "both")
    if pend <= pstart:
        return {mid: Tag(mid, None, None, ["missing"], "gap") for mid, _, _ in group}
    tags: dict[str, Tag] = {}
    pieces = _split(pstart, pend, [(s, e) for _, s, e in group], para)
    for (mid, s, e), (a, b) in zip(group, pieces, strict=True):
        a, b = _trim(para, a, b, trim)
        if b < pend and trim == "lead" and any(is_content(t) for t in para[a:b]):
            while not is_content(para[b - 1]):  # a guessed cut: its function words belong to neither side
                b -= 1
        flags = []
        if len(group) > 1:
            flags.append("shared")
        if extra:
            flags.append("extra_words")
        if any(i in anchored for i in range(s, e)):
            flags.append("partial")
        if (left in weak and a > edges[0]) or (right in weak and b < edges[1]):
            flags.append("weak_boundary")
        tags[mid] = Tag(mid, a, b, flags, "gap") if b > a else Tag(mid, None, None, flags + ["missing"], "gap")
    return tags


def _flag_long(tags: Iterable[Tag], para: list[str], style: str) -> None:
    """Flag ``long`` the changed spans longer than a metaphor of ``style`` should be."""
    longest = 1 if style == "single" else LONG_SPAN
    for tag in tags:
        if tag.how == "unchanged" or tag.start is None:
            continue
        size = tag.end - tag.start if style != "single" else sum(is_content(t) for t in para[tag.start: tag.end])
        if size > longest and "long" not in tag.flags:
            tag.flags.append("long")


def _add(tag: Tag, *flags: str) -> None:
    tag.flags.extend(f for f in flags if f not in tag.flags)
