"""Scoring a baseline run exactly as the leaderboard does: through its task.

Gold comes from :meth:`~figbench.tasks.base.Task.gold_from_dataset` of the evaluated split, the
predictions (in the task's submission format) pass :meth:`~figbench.tasks.base.Task.parse_predictions`
and are scored by :meth:`~figbench.tasks.base.Task.score`; a record's scores therefore equal the
server's for the same predictions. Scores only a baseline can compute (they need the training data or
the method's internals) are added on top with :meth:`Evaluation.add`, under metric names the task
declares.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from figbench.scoring import Scored
from figbench.tasks import Benchmark, Gold, Task


def benchmark_key(task: str, dataset: str, config: str, split: str) -> str:
    """``task/dataset/config/split``, the key a benchmark (and its gold) is known by."""
    return Benchmark(task, dataset, config, split, label="").key


@dataclass
class Evaluation:
    """A run's scores: the task's (the server's) plus declared extras, with intervals and counts."""

    task: Task
    gold: Gold
    predictions: Any                      #: normalised by the task
    scores: dict[str, float]
    confidence_intervals: dict[str, dict[str, Any]]
    counts: dict[str, float] = field(default_factory=dict)

    def add(self, extra: Scored) -> None:
        """Add baseline-only scores; each must be a metric the task declares and not a server score."""
        unknown = sorted(set(extra.scores) - set(self.task.metric_names))
        if unknown:
            raise ValueError(f"task {self.task.name} declares no metric {unknown}; declare it in "
                             f"figbench/tasks/{self.task.name}.py")
        clash = sorted(set(extra.scores) & set(self.scores))
        if clash:
            raise ValueError(f"{clash} are already scored by task {self.task.name}")
        self.scores.update(extra.scores)
        self.confidence_intervals.update({k: v for k, v in extra.confidence_intervals.items() if k in extra.scores})
        self.counts.update(extra.counts)


def score_with_task(task: Task, split, key: str, predictions: Any, *, n_resamples: int, seed: int) -> Evaluation:
    """Gold of ``split`` -> parsed predictions -> the task's scores, as the leaderboard computes them."""
    gold = task.gold_from_dataset(split, key)
    parsed = task.parse_predictions(predictions, gold)
    scored = task.score(parsed, gold, n_resamples=n_resamples, seed=seed)
    return Evaluation(task, gold, parsed, dict(scored.scores), dict(scored.confidence_intervals), dict(scored.counts))


def extra_scores(values: dict[str, Any], n_units: int, *, n_resamples: int, seed: int, unit: str) -> Scored:
    """Means of per-unit arrays (``name -> array of n_units``) with intervals over the same resamples as
    the task's bootstrap (same ``seed`` and number of units)."""
    import numpy as np

    from figbench.bootstrap import bootstrap_ci

    arrays = {k: np.asarray(v, dtype=float) for k, v in values.items()}
    for k, a in arrays.items():
        if len(a) != n_units:
            raise ValueError(f"{k}: {len(a)} values for {n_units} units")
    scores = {k: float(a.mean()) for k, a in arrays.items()}
    cis = bootstrap_ci(n_units, lambda idx: {k: float(a[idx].mean()) for k, a in arrays.items()},
                       n_resamples=n_resamples, seed=seed, unit=unit) if n_resamples else {}
    return Scored(scores, cis)
