"""Issue 34 on the board: every score of a test-informed submission (``provenance.selection.kind``) carries ‡ in
the overview, the task and family tables, the plots' hover text and the detail view; a validation-only one's none."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from figbench_leaderboard.domain.selection import LEGEND, row_test_informed
from figbench_leaderboard.scoring.board import Leaderboard, Limits
from figbench_leaderboard.scoring.gold import JsonGoldProvider
from figbench_leaderboard.store.sqlite import Store
from figbench_leaderboard.ui import plots, tables, task_tables
from figbench_leaderboard.ui.about_text import about_markdown
from figbench_leaderboard.ui.detail_html import detail_html

from figbench.results import TEST_INFORMED

FIX = Path(__file__).parent / "fixtures" / "leaderboard"


@pytest.fixture()
def board(tmp_path):
    board = Leaderboard(Store(tmp_path / "store"), JsonGoldProvider(FIX / "gold.json"), limits=Limits(n_resamples=50))
    for name, kind in (("informed", "test-informed"), ("plain", "validation-only"), ("untrained", None)):
        sub = json.loads((FIX / "predictions_metonymy.json").read_text())
        sub["model"].update(name=name, parameters=1_000_000)   # sized: on the score-vs-size plot
        if kind:
            sub["provenance"] = {"selection": {"kind": kind, "note": f"{kind} choice"}}
        board.submit(sub)
    board.run_pending()
    return board


def _numbers(cells) -> list[str]:
    return [c for c in cells if isinstance(c, str) and c[:1].isdigit()]


@pytest.mark.parametrize("source", ["board_rows", "list"])
def test_a_test_informed_submissions_scores_carry_the_mark_in_the_tables(board, source):
    rows = getattr(board.store, source)()
    assert {r["model_name"]: row_test_informed(r) for r in rows} == {"informed": True, "plain": False,
                                                                     "untrained": False}
    label = board.registry.get("metonymy/wimcor/sample/test").label
    ov = tables.overview(rows, board.registry, "WiMCor")
    shown = tables.display_overview(ov, [label]).set_index("Model")
    for col in (label, "Average"):
        assert shown.loc["informed", col].endswith(TEST_INFORMED) and shown.loc["informed", col][0].isdigit()
        assert TEST_INFORMED not in shown.loc["plain", col] + shown.loc["untrained", col]
    assert shown.loc["plain", label] + TEST_INFORMED == shown.loc["informed", label]   # same scores, one mark

    for table in (task_tables.task_table(rows, board.registry, "metonymy"),
                  task_tables.family_table(rows, board.registry, board.registry.task("metonymy").family)):
        by_model = table.drop(columns="Submission").set_index("Model")
        informed, plain = _numbers(by_model.loc["informed"]), _numbers(by_model.loc["plain"])
        assert informed and len(informed) == len(plain)
        assert all(c.endswith(TEST_INFORMED) and c.count(TEST_INFORMED) == 1 for c in informed)
        assert not any(TEST_INFORMED in c for c in plain + _numbers(by_model.loc["untrained"]))
        assert (by_model.loc["informed"] == "–").tolist() == (by_model.loc["plain"] == "–").tolist()


def test_plot_hover_and_detail_view_mark_only_the_test_informed_submission(board):
    rows = board.store.board_rows()
    t, p = next((t, p) for t, p in plots.declared_plots(board.registry) if t.name == "metonymy"
                and p.kind == "distribution")
    fig = plots.distribution_figure(plots.distribution_frame(rows, board.registry, t, p), t, p)
    points = {c[0]: c[1] for trace in fig.data for c in trace.customdata}
    assert points == {"informed@v1": TEST_INFORMED, "plain@v1": "", "untrained@v1": ""}
    assert all("%{y:.1f}%{customdata[1]}" in trace.hovertemplate for trace in fig.data)
    size = plots.size_figure(tables.overview(rows, board.registry, "WiMCor"), "WiMCor")
    hover = {c[0]: c[2] for trace in size.data for c in trace.customdata}
    assert hover == {"informed": TEST_INFORMED, "plain": "", "untrained": ""}

    by_name = {r["model_name"]: r for r in board.store.list()}
    informed = detail_html(by_name["informed"], board.registry)
    plain = detail_html(by_name["plain"], board.registry)
    assert f"{TEST_INFORMED}</td>" in informed and TEST_INFORMED not in plain


def test_the_legend_is_on_the_about_page():
    from figbench_leaderboard.domain.benchmarks import BenchmarkRegistry

    assert LEGEND.startswith(TEST_INFORMED) and LEGEND in about_markdown(BenchmarkRegistry())
