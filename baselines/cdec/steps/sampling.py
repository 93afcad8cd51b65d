"""Stratified, nested samples of training pairs (for training on a stated subset and learning curves)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

import numpy as np


def stratified_sample(rows: Sequence[Mapping], pairs: np.ndarray, labels: np.ndarray, size: int | None, *,
                      fraction: float = 1.0, seed: int = 0, by: str = "topic") -> tuple[np.ndarray, dict]:
    """Indices of a stratified sample of ``pairs`` and a description of it (for the result record).

    Strata are (``by`` of the first mention, label); each stratum gets a share of ``size`` proportional
    to its size (largest remainders), drawn in a seeded random order. ``fraction`` keeps the first
    ``fraction`` of each stratum's draw, so the samples for fractions 0.25 < 0.5 < 1 are nested and
    each is itself stratified. ``size=None`` (or ``size >= len(pairs)``) starts from all pairs.
    """
    n = len(pairs)
    if not 0 < fraction <= 1:
        raise ValueError(f"--train-fraction must be in (0, 1], got {fraction}")
    size = n if size is None or size >= n else int(size)
    if size < 1:
        raise ValueError("--train-sample must be at least 1")
    strata: dict[tuple[str, int], list[int]] = defaultdict(list)
    for k, (a, _) in enumerate(pairs.tolist()):
        strata[(str(rows[a].get(by, "")), int(labels[k]))].append(k)
    keys = sorted(strata)
    exact = np.array([size * len(strata[k]) / n for k in keys])
    alloc = np.floor(exact).astype(int)
    for k in np.argsort(-(exact - alloc), kind="stable")[: size - int(alloc.sum())]:
        alloc[k] += 1
    rng = np.random.default_rng(seed)
    keep: list[int] = []
    for key, m in zip(keys, alloc):
        members = np.array(strata[key])
        drawn = members[rng.permutation(len(members))[:m]]
        keep.extend(drawn[: int(round(fraction * m))].tolist())
    keep_arr = np.array(sorted(keep), dtype=np.int64)
    pos = int(labels[keep_arr].sum()) if len(keep_arr) else 0
    info = {
        "population_pairs": int(n),
        "population_positive": int(labels.sum()),
        "sample_size": int(size),
        "fraction": float(fraction),
        "pairs": int(len(keep_arr)),
        "positive": pos,
        "strata": f"{by} x label",
        "allocation": "proportional (largest remainders), nested fractions",
        "seed": int(seed),
        "all_pairs": bool(size == n and fraction == 1.0),
    }
    return keep_arr, info


def describe(info: Mapping, what: str) -> str:
    """One line for tables and records: what the model was trained on."""
    if info.get("all_pairs"):
        return f"all {info['pairs']:,} {what} ({info['positive']:,} positive)"
    frac = f"{info['fraction']:.0%} of " if info["fraction"] < 1 else ""
    return (f"{info['pairs']:,} {what} ({info['positive']:,} positive) = {frac}a stratified sample of "
            f"{info['sample_size']:,} of {info['population_pairs']:,} ({info['strata']}, seed {info['seed']})")
