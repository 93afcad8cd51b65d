"""The learned edge rule of ``benchmarks/retag_edge_cv.py`` (the held-out estimate rendered into the README's
``retag`` block): its edge walk, back-off table, flag ranking and leave-one-topic-out split, on hand-made spans."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def cv():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import retag_edge_cv
    finally:
        sys.path.pop(0)
    return retag_edge_cv


PARA = ["the", "ringmaster", "of", "the", "show", "was", "fired"]


def test_edges_are_walked_outward_to_the_first_word_left_out(cv):
    """``ringmaster of``: the trailing ``of`` in, the ``the`` after it out (the walk stops), the leading ``the``
    out; ``decide`` rebuilds the span from its content core and multiplies the confidences it took."""
    assert cv.gold_edges(PARA, {5, 6}, 1, 3) == [
        (("trailing", "of", False, "ringmaster"), True), (("trailing", "the", False, "of"), False),
        (("leading", "the", False, "ringmaster"), False)]
    start, end, conf = cv.decide(PARA, set(), 0, 1 + 1, lambda f: 0.9 if f[1] == "of" else 0.2)
    assert (start, end) == (1, 3) and conf == pytest.approx(0.9 * 0.8 * 0.8)
    assert cv.decide(PARA, set(), 0, 1, lambda f: 1.0) == (0, 1, 1.0)   # no content word: left as it is


def test_the_table_backs_off_from_rare_fine_patterns(cv):
    of = ("trailing", "of", False)
    table = cv.fit_table([((*of, "x"), True)] * 3 + [((*of, "y"), False)])
    assert cv.FINE_MIN == 3
    assert table((*of, "x")) == pytest.approx(3.5 / 4)        # the fine pattern, seen 3 times
    assert table((*of, "y")) == pytest.approx(3.5 / 5)        # seen once: the coarse key (3 in, 1 out)
    assert table(("leading", "to", True, "z")) == 0.5         # nothing seen on that side


def test_flagging_takes_the_likeliest_first_and_ties_in_proportion(cv):
    chances = [(1.0, True), (0.5, True), (0.5, False)] + [(0.0, False)] * 6
    assert cv.to_flag(chances, 0.8) == pytest.approx(2.2 / 9)   # 1 + 0.6 of the tied pair's 2
    assert cv.caught_within(chances, 2 / 9) == pytest.approx(0.75)


def test_cross_validation_never_scores_a_topic_it_was_fitted_on(cv):
    """Topic A's release keeps the trailing ``of``, topic B's drops it: fitted on the other topic, every span is
    wrong (an in-sample fit would get one topic right)."""
    items = [{"mention_id": f"{topic}{i}", "topic": topic, "para": PARA, "kept": {5, 6}, "gold": gold}
             for topic, gold in (("A", (1, 3)), ("B", (1, 2))) for i in range(2)]
    proposals = {"v": {it["mention_id"]: (1, 2) for it in items}}
    out = cv.cross_validate(items, proposals, {"v": set()}, "table")
    assert out["folds"] == 2 and out["edges"] == 10 and out["edge_agreement"] == 0.6
    assert out["variants"]["v"]["exact"] == 0.0 and out["variants"]["v"]["edge_only"]["exact"] == 0.0
    out = cv.cross_validate(items, proposals, {"v": {"A0"}}, "logistic")
    assert out["variants"]["v"]["exact"] == 0.0 and out["variants"]["v"]["flagged_needed"] <= 1.0
