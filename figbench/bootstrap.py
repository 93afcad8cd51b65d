"""Bootstrap confidence intervals (percentile method) for any score computed over resampled units."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

DEFAULT_RESAMPLES = 1000
DEFAULT_LEVEL = 0.95


def bootstrap_ci(
    n_units: int,
    statistic: Callable[[np.ndarray], Mapping[str, float]],
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    level: float = DEFAULT_LEVEL,
    seed: int = 0,
    unit: str = "examples",
) -> dict[str, dict]:
    """Percentile bootstrap intervals.

    ``statistic(indices)`` scores the units at ``indices`` (drawn with replacement from
    ``range(n_units)``) and returns metric name -> value. Returns metric name ->
    ``{"low", "high", "level", "n_resamples", "unit"}``, the shape of a result record's
    ``confidence_intervals``.
    """
    if n_units < 1:
        raise ValueError("bootstrap needs at least one unit to resample")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    rng = np.random.default_rng(seed)
    samples: dict[str, list[float]] = {}
    for _ in range(n_resamples):
        idx = rng.integers(0, n_units, size=n_units)
        for name, value in statistic(idx).items():
            samples.setdefault(name, []).append(float(value))
    alpha = (1 - level) / 2
    out = {}
    for name, values in samples.items():
        arr = np.asarray(values)
        low, high = np.quantile(arr, [alpha, 1 - alpha])
        out[name] = {"low": float(low), "high": float(high), "level": level,
                     "n_resamples": n_resamples, "unit": unit}
    return out
