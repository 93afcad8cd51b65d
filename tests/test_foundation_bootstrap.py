"""figbench.bootstrap: n_units, degenerate-case warnings, interval_is_sane, and the record schema fields."""

from __future__ import annotations

import numpy as np
import pytest

from figbench.bootstrap import (
    DEFAULT_RESAMPLES,
    MIN_UNITS,
    bootstrap_ci,
    degenerate_reasons,
    interval_is_sane,
)
from figbench.results import ResultValidationError, validate_result


def _mean_ci(values, **kw):
    values = np.asarray(values, dtype=float)
    return bootstrap_ci(len(values), lambda idx: {"mean": values[idx].mean()}, **kw)["mean"]


def test_default_resamples_and_n_units():
    ci = _mean_ci(np.random.default_rng(0).random(50), seed=1)
    assert ci["n_resamples"] == DEFAULT_RESAMPLES == 1000
    assert ci["n_units"] == 50 and "warning" not in ci
    assert interval_is_sane(0.5, {"low": 0.4, "high": 0.6})


def test_few_units_warn():
    ci = _mean_ci(np.random.default_rng(0).random(5), n_resamples=50)
    assert ci["n_units"] == 5
    assert "only 5 examples to resample" in ci["warning"] and str(MIN_UNITS) in ci["warning"]


def test_dominant_unit_warns():
    values = np.random.default_rng(0).random(30)
    sizes = np.ones(30)
    sizes[3] = 100
    ci = _mean_ci(values, n_resamples=50, unit_sizes=sizes)
    assert "holds 78% of the data" in ci["warning"]  # 100 / 129
    assert degenerate_reasons(30, unit_sizes=np.ones(30)) == []


def test_zero_width_interval_away_from_bounds_warns():
    ci = _mean_ci(np.full(40, 0.27), n_resamples=50)
    assert ci["low"] == ci["high"] == pytest.approx(0.27)
    assert "zero-width interval" in ci["warning"]
    # at a bound a zero-width interval is expected (a perfect score)
    assert "warning" not in _mean_ci(np.ones(40), n_resamples=50)


@pytest.mark.parametrize("point, low, high, sane", [
    (0.5, 0.4, 0.6, True),
    (0.5, 0.45, 0.65, True),     # sides 0.05 / 0.15: ratio 3
    (0.5, 0.46, 0.65, False),    # ratio 3.75
    (0.531, 0.489, 0.831, False),  # the old WEC-Eng interval
    (0.2692, 0.2692, 0.2692, False),  # zero width away from the bounds
    (0.7, 0.72, 0.8, False),     # point outside
    (1.0, 1.0, 1.0, True),       # perfect score
    (1.0, 0.97, 1.0, True),      # squeezed against 1
    (0.995, 0.95, 1.0, True),
    (0.003, 0.0, 0.02, True),    # squeezed against 0
    (0.3, 0.25, 0.3, False),     # one side empty, away from the bounds
])
def test_interval_is_sane(point, low, high, sane):
    assert interval_is_sane(point, {"low": low, "high": high}) is sane


def _record(ci):
    from figbench.results import RunClock, make_result, provenance

    return make_result(
        task="cdec", dataset="ecbplus", config="events", split="test", method="lemma",
        model={"name": "x", "revision": None, "type": "heuristic", "parameters": 0},
        scores={"conll_f1": 0.5}, confidence_intervals={"conll_f1": ci}, predictions=[["a"]],
        provenance=provenance(RunClock(), seed=0, command="test"))


def test_schema_accepts_optional_n_units_and_warning():
    base = {"low": 0.4, "high": 0.6, "level": 0.95, "n_resamples": 10, "unit": "topics"}
    validate_result(_record(dict(base)))
    validate_result(_record({**base, "n_units": 10, "warning": "only 10 topics to resample"}))
    with pytest.raises(ResultValidationError, match="n_units"):
        validate_result(_record({**base, "n_units": 0}))
    with pytest.raises(ResultValidationError, match="warning"):
        validate_result(_record({**base, "warning": "x" * 501}))
    with pytest.raises(ResultValidationError, match="extra"):
        validate_result(_record({**base, "extra": 1}))


def test_statistic_may_omit_a_metric_in_some_resamples():
    values = np.random.default_rng(0).random(30)

    def stat(idx):
        out = {"mean": values[idx].mean()}
        if 0 in idx:
            out["with_first"] = values[idx].max()
        return out

    ci = bootstrap_ci(30, stat, n_resamples=100)
    assert set(ci) == {"mean", "with_first"} and ci["with_first"]["low"] <= ci["with_first"]["high"]
