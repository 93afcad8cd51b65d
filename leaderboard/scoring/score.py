"""Server-side scoring: the task's own ``score`` (figbench's scoring path), and self-report mismatches."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from figbench.scoring import Scored
from figbench.tasks import Gold, Task, get_task

#: Absolute difference above which a self-reported score counts as a mismatch.
MISMATCH_TOLERANCE = 1e-6

__all__ = ["MISMATCH_TOLERANCE", "Scored", "mismatches", "score"]


def score(task: str | Task, predictions: Any, gold: Gold, *, n_resamples: int = 1000, seed: int = 0) -> Scored:
    """Scores of normalised predictions (``submission.parse_predictions``) with bootstrap intervals."""
    task = get_task(task) if isinstance(task, str) else task
    return task.score(predictions, gold, n_resamples=n_resamples, seed=seed)


def mismatches(reported: Mapping[str, float], server: Mapping[str, float],
               tolerance: float = MISMATCH_TOLERANCE) -> dict[str, dict[str, float]]:
    """Self-reported scores that differ from the server's by more than ``tolerance``."""
    out = {}
    for k, v in reported.items():
        if k in server and abs(float(v) - float(server[k])) > tolerance:
            out[k] = {"reported": float(v), "server": float(server[k])}
    return out
