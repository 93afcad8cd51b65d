"""The re-tagger's span edges and its ``weak_boundary`` flag, one family each, on hand-made sentences (the rules
were designed on META_m validation and META_1 Dev_small: ``benchmarks/bench_retag.py``)."""

from __future__ import annotations

from tests.test_generate_honesty import _tags

AFTER = "A Vancouver man has been charged with first-degree murder after "


def test_a_leading_preposition_or_verb_stays_and_a_leading_article_goes():
    """``lead`` trimming drops articles, possessives, pronouns and conjunctions only (``NOT_LEADING``)."""
    from figbench.generate.retag import NOT_LEADING, _trim, tokenize

    assert _tags("A Vancouver man has been put in irons with first-degree murder after a killing at an office "
                 "party.", None)["charged"] == ("put in irons", [])
    assert _tags("A Vancouver man has been the target of the law with first-degree murder after a killing at an "
                 "office party.", None)["charged"] == ("target of the law", [])
    para = tokenize("was robbed of his life")
    assert _trim(para, 0, len(para)) == (0, 5)
    para = tokenize("his the grim end")
    assert {"his", "the"} <= NOT_LEADING and _trim(para, 0, len(para)) == (2, 4)
    assert _trim(para, 0, len(para), "both") == (2, 4)


def test_a_guessed_cut_in_a_shared_stretch_leaves_its_function_words_to_neither_side():
    """Two triggers in one rewritten stretch: the first piece ends at its last content word (``in the`` dropped)."""
    tags = _tags(AFTER + "the snuffing of life in the festive hall.", None)
    assert tags["killing"] == ("snuffing of life", ["shared", "extra_words"])
    assert tags["party"] == ("festive hall", ["shared", "extra_words"])


def test_a_word_list_entry_cut_short_between_two_content_words_runs_to_the_end_of_the_run():
    """``snuffing of the final`` stops before ``candle``, a rewritten content word of the aligned span: the span
    runs on to the end of that run of content words; an entry ending where the span's content words end is kept."""
    from figbench.generate.retag import retag, tokenize
    from figbench.generate.wordlist import cut_short
    from tests.test_generate import FIG3

    para = AFTER + "a snuffing of the final candle at an office party."
    assert _tags(para, {"killing": "snuffing of the final"})["killing"] == ("snuffing of the final candle", [])
    # a cut-short entry that starts later is extended the same way, and flagged as differing from the alignment
    assert _tags(para, {"killing": "final"})["killing"] == ("final candle", ["word_differs"])
    longer = AFTER + "a snuffing of the final candle flame at an office party."
    assert _tags(longer, {"killing": "snuffing of the final"})["killing"] == ("snuffing of the final candle flame", [])
    tag = retag(tokenize(FIG3), [("killing", 13, 14)], tokenize(para))[0]
    assert tag.how == "gap" and cut_short(tokenize(para), tag, tag.end - 1)
    assert not cut_short(tokenize(para), tag, tag.end - 1, style="single")
    # one-word metaphors: an entry is never cut short
    single = retag(tokenize(FIG3), [("killing", 13, 14)], tokenize(para), {"killing": "snuffing of the final"},
                   "single")[0]
    assert " ".join(tokenize(para)[single.start:single.end]) == "snuffing of the final"


def test_weak_boundary_is_raised_only_where_the_span_stops_short_of_a_kept_function_word():
    """A kept function word of a short block (``at a``) next to the stretch: the flag fires where trimming left words
    between it and the span (``a`` before ``gathering``), not where the span starts right after it (a known miss:
    ``a candle`` of ``the snuffing out of a candle`` goes unflagged)."""
    assert _tags(AFTER + "a snuffing out of the candle at a gathering.", None)["party"] == (
        "gathering", ["extra_words", "weak_boundary"])
    assert _tags(AFTER + "the snuffing out of a candle at an office party.", None)["killing"] == ("candle", [])


def test_a_cut_between_shared_triggers_keeps_of_phrases_and_possessives_whole():
    """Two triggers in one rewritten stretch: the guessed cut avoids an ``of`` where another place will do (``dance
    of death``, ``feast of suits``), never falls next to a possessive or hyphen (``town 's festive hall``), and
    leaves a content word to each side; both stay flagged ``shared``."""
    from figbench.generate.retag import _split, tokenize

    tags = _tags(AFTER + "the dance of death during the feast of suits.", None)
    assert tags["killing"] == ("dance of death", ["shared", "extra_words"])
    assert tags["party"] == ("feast of suits", ["shared", "extra_words"])
    tags = _tags(AFTER + "a final curtain in the town 's festive hall.", None)
    assert tags["killing"] == ("final curtain", ["shared", "extra_words"])
    assert tags["party"] == ("town 's festive hall", ["shared", "extra_words"])
    # the proportional place, right after "of", would split "dance of death": the cut moves past it
    para = tokenize("dance of death gala")
    assert _split(0, len(para), [(0, 1), (1, 2)], para) == [(0, 3), (3, 4)]
    # a piece is never left without a content word, even where the proportional place leaves only "on" to the last
    para = tokenize("wave of silence on")
    assert _split(0, len(para), [(0, 1), (5, 6)], para) == [(0, 2), (2, 4)]
