"""Issue 33: look-alike model names. Every (code point, ASCII letter or digit) pair that ICU's confusables data
calls confusable gets the board key of its ASCII form; the issue's examples, accepted as new names before,
collide with the ASCII name; long names sharing a prefix look different in the table and the plots."""

from __future__ import annotations

import string

import pytest
from figbench_leaderboard.domain.names import name_keys

ALNUM = string.ascii_letters + string.digits


def collide(a: str, b: str) -> bool:
    return bool(set(name_keys(a)) & set(name_keys(b)))


def confusable_pairs() -> list[tuple[str, str]]:
    """(code point, ASCII letter/digit) with equal TR39 skeletons, from ICU's own data (the independent reference)."""
    import icu

    sc = icu.SpoofChecker()
    by_skeleton: dict[str, list[str]] = {}
    for a in ALNUM:
        by_skeleton.setdefault(sc.getSkeleton(0, a), []).append(a)
    pairs = []
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF or chr(cp) in ALNUM:
            continue
        for a in by_skeleton.get(sc.getSkeleton(0, chr(cp)), ()):
            pairs.append((chr(cp), a))
    return pairs


def test_every_icu_confusable_of_an_ascii_letter_or_digit_gets_its_key():
    pairs = confusable_pairs()
    assert len(pairs) > 1500, len(pairs)
    bad = [(f"U+{ord(c):04X}", a) for c, a in pairs if not collide(f"model-{c}x", f"model-{a}x")]
    print(f"\n{len(pairs)} confusable pairs, {len(bad)} with another key")
    assert not bad, bad   # before: 8 (U+017F f, U+02DB i, U+037A i, U+03F2 c, U+03F9 C, U+FFE8 l/I/1)


@pytest.mark.parametrize("name", [
    "acmecffb/figben\u03f2h lemma 7b",      # ϲ GREEK LUNATE SIGMA (ICU: confusable with c; case folded: σ)
    "acmecffb/figbench-\uffe8emma 7b",      # HALFWIDTH FORMS LIGHT VERTICAL (NFKC: │)
    "acmecffb/fi\u0307gbench-lemma 7b",     # i + COMBINING DOT ABOVE
    "acmecffb/figbench-lemm\u2c81 7b",      # ⲁ COPTIC SMALL LETTER ALFA
    "acmecffb/figbench-le\u1d0d\u1d0da 7b",  # ᴍ LATIN LETTER SMALL CAPITAL M
    "acmecffb/figbench-lemma\u28007b",      # U+2800 BRAILLE PATTERN BLANK as a space
    "acmecffb/figbench-lem\U00013430ma 7b",  # EGYPTIAN HIEROGLYPH VERTICAL JOINER (format)
    "acmecffb/figbench-lem\ufff9ma 7b",     # INTERLINEAR ANNOTATION ANCHOR (format)
])
def test_the_issues_lookalikes_get_the_ascii_key(name):
    assert collide(name, "acmecffb/figbench-lemma 7b"), (name, name_keys(name), name_keys("acmecffb/figbench-lemma 7b"))


@pytest.mark.parametrize(("name", "other"), [("figbench-lemma", "figbench-llama"), ("bert-base", "bert-large"),
                                             ("model-1", "model-2"), ("xlm-r", "xlm-roberta"), ("gpt2", "gpt-3")])
def test_different_names_still_differ(name, other):
    assert not collide(name, other)


def test_long_names_show_their_distinguishing_tail():
    import pandas as pd
    from figbench_leaderboard.ui.formatting import TABLE_NAME_CHARS, elide, html_table, plot_text

    a, b = "acme/" + "x" * 80 + "-base", "acme/" + "x" * 80 + "-evil"
    assert plot_text(a) != plot_text(b) and len(plot_text(a)) <= 60 and plot_text(a).endswith("-base")
    assert elide(a, TABLE_NAME_CHARS) != elide(b, TABLE_NAME_CHARS)
    table = html_table(pd.DataFrame({"Model": [a, b]}), table_id="t")
    assert elide(a, TABLE_NAME_CHARS) + "</td>" in table and elide(b, TABLE_NAME_CHARS) + "</td>" in table
    assert f'title="{a}"' in table   # the whole name on hover
