"""`make test` leaves the CI stage (marker ``ci_stage``) out and `.ci/run` always runs it after `make test`."""

from __future__ import annotations

import re

from tests.conftest import ROOT


def _recipe(target: str) -> str:
    text = (ROOT / "Makefile").read_text()
    m = re.search(rf"^{re.escape(target)}:[^\n]*\n((?:\t[^\n]*\n)+)", text, re.M)
    assert m, f"Makefile has no {target} target"
    return m.group(1)


def test_make_test_deselects_the_ci_stage_and_test_ci_runs_it():
    assert '-m "not ci_stage"' in _recipe("test")
    assert "-m ci_stage" in _recipe("test-ci")


def test_ci_run_runs_the_ci_stage_after_make_test():
    lines = [ln.split("#")[0].strip() for ln in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert "make test" in lines and "make test-ci" in lines
    assert lines.index("make test-ci") > lines.index("make test")


def test_the_wheel_smoke_and_the_coverage_simulations_are_in_the_ci_stage():
    import tests.test_contributing_example as example
    import tests.test_coref_bootstrap_coverage as coverage
    import tests.test_leaderboard_probing_wheel as probing
    import tests.test_wheel as wheel

    assert coverage.pytestmark.name == "ci_stage" and example.pytestmark.name == "ci_stage"
    marks = {m.name for m in wheel.test_wheel_installs_and_space_serves_the_board.pytestmark}
    assert "ci_stage" in marks
    probe = probing.test_probing_a_board_served_from_the_wheel_recovers_no_more_than_the_readme_bound
    assert "ci_stage" in {m.name for m in probe.pytestmark}
