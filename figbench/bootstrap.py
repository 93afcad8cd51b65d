"""Bootstrap confidence intervals (percentile method) for any score computed over resampled units."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

DEFAULT_RESAMPLES = 1000
DEFAULT_LEVEL = 0.95

_PROGRESS: ContextVar[str | None] = ContextVar("figbench_bootstrap_progress", default=None)


@contextmanager
def progress_bar(desc: str = "bootstrap") -> Iterator[None]:
    """Show a progress bar (with an ETA) for every :func:`bootstrap_ci` call made inside this block.

    Callers several layers up (a baseline run) can ask for progress without every scoring function
    in between taking a parameter for it.
    """
    token = _PROGRESS.set(desc)
    try:
        yield
    finally:
        _PROGRESS.reset(token)


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
    desc = _PROGRESS.get()
    bar = None
    if desc is not None:
        from tqdm.auto import tqdm

        bar = tqdm(total=n_resamples, desc=desc, unit="resample", mininterval=1.0)
    for _ in range(n_resamples):
        idx = rng.integers(0, n_units, size=n_units)
        for name, value in statistic(idx).items():
            samples.setdefault(name, []).append(float(value))
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    alpha = (1 - level) / 2
    out = {}
    for name, values in samples.items():
        arr = np.asarray(values)
        low, high = np.quantile(arr, [alpha, 1 - alpha])
        out[name] = {"low": float(low), "high": float(high), "level": level,
                     "n_resamples": n_resamples, "unit": unit}
    return out
