"""Bootstrap confidence intervals (percentile method) for any score computed over resampled units.

Every interval is a result record's ``confidence_intervals`` entry: ``low``, ``high``, ``level``,
``n_resamples``, ``unit`` and ``n_units`` (how many units were resampled), plus ``warning`` (a plain
sentence) when the interval is degenerate and should not be read as a confident interval:

* fewer than :data:`MIN_UNITS` units (a percentile interval over so few units under-covers:
  about 88% for a nominal 95% at 10 units in figbench's coverage simulation, see the conll_coref card);
* one unit holding more than :data:`MAX_UNIT_SHARE` of the data (resamples then mostly differ by
  whether that unit was drawn, so the interval is bimodal rather than a sampling interval);
* a zero-width interval while the point estimate is not at a bound (nothing varied between resamples).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy is imported where used, so the CLI can read the defaults cheaply
    import numpy as np

#: The one default number of resamples (metric wrappers, CLIs and baselines use it).
DEFAULT_RESAMPLES = 1000
DEFAULT_LEVEL = 0.95
#: Fewer resampling units than this get a warning.
MIN_UNITS = 20
#: A unit holding more than this share of the data (by ``unit_sizes``) gets a warning.
MAX_UNIT_SHARE = 0.5
#: :func:`interval_is_sane`: largest allowed ratio of the two sides, and the slack near bounds 0 and 1.
SANE_RATIO = 3.0
SANE_EPS = 0.01
_WARNING_MAX = 500


def degenerate_reasons(n_units: int, *, unit_sizes: Sequence[float] | np.ndarray | None = None,
                       unit: str = "units") -> list[str]:
    """Reasons (plain sentences) why resampling ``n_units`` units cannot give a reliable interval."""
    import numpy as np

    reasons = []
    if n_units < MIN_UNITS:
        reasons.append(f"only {n_units} {unit} to resample (fewer than {MIN_UNITS}): the interval is unreliable")
    if unit_sizes is not None and n_units > 1:
        sizes = np.asarray(unit_sizes, dtype=np.float64)
        total = sizes.sum()
        if total > 0 and sizes.max() > MAX_UNIT_SHARE * total:
            reasons.append(f"one of the {n_units} {unit} holds {100 * sizes.max() / total:.0f}% of the data: "
                           "resamples differ mainly by whether it was drawn")
    return reasons


def percentile_intervals(samples: Mapping[str, np.ndarray], *, level: float, n_resamples: int, unit: str,
                         n_units: int, point: Mapping[str, float] | Callable[[], Mapping[str, float]] | None = None,
                         reasons: Sequence[str] = ()) -> dict[str, dict]:
    """Percentile intervals from resampled values (metric name -> array), with degenerate-case warnings.

    ``reasons`` are warnings that apply to every metric (e.g. from :func:`degenerate_reasons`); a
    metric whose interval has zero width while ``point[name]`` is not at 0 or 1 gets one more
    (``point`` may be a callable returning the mapping; it is called only if some interval has zero width).
    """
    import numpy as np

    alpha = (1 - level) / 2
    names = list(samples)
    if not names:
        return {}
    arrays = [np.asarray(samples[k], dtype=np.float64) for k in names]
    if len({len(a) for a in arrays}) == 1:  # one vectorised quantile call
        bounds = np.quantile(np.vstack(arrays), [alpha, 1 - alpha], axis=1)
    else:  # a statistic may omit a metric in some resamples (e.g. a language absent from the draw)
        bounds = np.array([np.quantile(a, [alpha, 1 - alpha]) for a in arrays]).T
    if callable(point) and bool(np.any(bounds[1] - bounds[0] <= 1e-12)):
        point = point()
    return {name: make_interval(float(bounds[0, i]), float(bounds[1, i]), level=level, n_resamples=n_resamples,
                                unit=unit, n_units=n_units,
                                point=None if point is None or callable(point) else point.get(name), reasons=reasons)
            for i, name in enumerate(names)}


def make_interval(low: float, high: float, *, level: float, n_resamples: int, unit: str, n_units: int,
                  point: float | None = None, reasons: Sequence[str] = ()) -> dict:
    """One ``confidence_intervals`` entry; ``warning`` joins ``reasons`` and the zero-width check."""
    ci: dict = {"low": low, "high": high, "level": level, "n_resamples": n_resamples, "unit": unit,
                "n_units": int(n_units)}
    why = list(reasons)
    if point is not None and high - low <= 1e-12 and 1e-12 < point < 1 - 1e-12:
        why.append(f"zero-width interval although the score ({point:.4g}) is not at 0 or 1: nothing varied "
                   "between resamples")
    if why:
        text = "; ".join(why)
        ci["warning"] = text if len(text) <= _WARNING_MAX else text[: _WARNING_MAX - 3] + "..."
    return ci


def bootstrap_ci(
    n_units: int,
    statistic: Callable[[np.ndarray], Mapping[str, float]],
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    level: float = DEFAULT_LEVEL,
    seed: int = 0,
    unit: str = "examples",
    unit_sizes: Sequence[float] | np.ndarray | None = None,
    point: Mapping[str, float] | None = None,
) -> dict[str, dict]:
    """Percentile bootstrap intervals.

    ``statistic(indices)`` scores the units at ``indices`` (drawn with replacement from
    ``range(n_units)``) and returns metric name -> value. Returns metric name ->
    ``{"low", "high", "level", "n_resamples", "unit", "n_units"}`` (+ ``"warning"`` for degenerate
    cases, see the module doc), the shape of a result record's ``confidence_intervals``.
    ``unit_sizes`` (one weight per unit, e.g. its number of mentions) enables the dominant-unit
    check; ``point`` (the point estimates) defaults to ``statistic(arange(n_units))``.
    """
    import numpy as np

    if n_units < 1:
        raise ValueError("bootstrap needs at least one unit to resample")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be >= 1, got {n_resamples}")
    rng = np.random.default_rng(seed)
    samples: dict[str, list[float]] = {}
    for _ in range(n_resamples):
        idx = rng.integers(0, n_units, size=n_units)
        for name, value in statistic(idx).items():
            samples.setdefault(name, []).append(float(value))
    if point is None:
        def point() -> dict[str, float]:
            return {k: float(v) for k, v in statistic(np.arange(n_units)).items()}
    reasons = degenerate_reasons(n_units, unit_sizes=unit_sizes, unit=unit)
    return percentile_intervals({k: np.asarray(v) for k, v in samples.items()}, level=level,
                                n_resamples=n_resamples, unit=unit, n_units=n_units, point=point,
                                reasons=reasons)


def interval_is_sane(point: float, ci: Mapping[str, float], *, max_ratio: float = SANE_RATIO,
                     eps: float = SANE_EPS) -> bool:
    """Whether ``ci`` (``low``/``high``) looks like a sampling interval around ``point``.

    True when ``low <= point <= high`` and neither side (``point - low``, ``high - point``) is more
    than ``max_ratio`` times the other. A side squeezed against a bound (the interval reaches within
    ``eps`` of 0 or 1 on that side) may be as short as it likes, and an interval within ``eps`` of a
    bound may have zero width (e.g. a perfect score). A zero-width interval away from the bounds is
    not sane. Warnings are not looked at: check ``ci.get("warning")`` separately.
    """
    low, high = float(ci["low"]), float(ci["high"])
    tol = 1e-12
    if not low - tol <= point <= high + tol:
        return False
    below, above = max(point - low, 0.0), max(high - point, 0.0)
    below_capped = low <= eps  # the lower side runs into 0
    above_capped = high >= 1 - eps  # the upper side runs into 1
    if below <= tol and above <= tol:
        return below_capped or above_capped
    if below < above:
        return below_capped or above <= max_ratio * below + tol
    return above_capped or below <= max_ratio * above + tol
