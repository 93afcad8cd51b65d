"""Scoring predicted clusters through the ``cdec`` task (whole split = one cross-document document).

:func:`score_clusters` is a run's score: gold from the evaluated mentions, predictions as clusters,
:meth:`Task.score` of the ``cdec`` task, exactly what the leaderboard computes. ``evaluate`` (the
metric on any rows, no intervals) serves the oracle, per-topic scores and threshold tuning.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from figbench.schema import Document, clusters_from_assignments, gold_clusters


def predicted_document(rows: Sequence[Mapping], labels: np.ndarray) -> Document:
    """Predicted clusters (lists of mention ids) from one label per row."""
    return clusters_from_assignments((str(r["mention_id"]) for r in rows), (str(int(x)) for x in labels))


def _flatten(scores: Mapping[str, Any], prefix: str = "") -> dict[str, float]:
    out: dict[str, float] = {}
    for k, v in scores.items():
        name = f"{prefix}{k}"
        if isinstance(v, Mapping):
            out.update(_flatten(v, f"{name}_"))
        elif isinstance(v, (int, float, np.floating, np.integer)) and not isinstance(v, bool):
            out[name] = float(v)
    return out


def evaluate(rows: Sequence[Mapping], labels: np.ndarray, *, remove_singletons: bool = False) -> dict[str, float]:
    """``figbench.scoring.coref.evaluate_coref`` on ``rows`` as one cross-document document (no intervals)."""
    from figbench.scoring.coref import evaluate_coref

    pred = predicted_document(rows, labels)
    gold = gold_clusters(rows)[0]
    return _flatten(evaluate_coref([pred], [gold], remove_singletons=remove_singletons))


def mention_split(rows: Sequence[Mapping], task=None):
    """The evaluated mentions as a ``datasets.Dataset`` of the columns the ``cdec`` task reads gold from."""
    import datasets
    from figbench.tasks import get_task

    task = task or get_task("cdec")
    columns = [c for c in (task.mention_column, task.cluster_column, task.group_column) if c]
    return datasets.Dataset.from_dict({c: [str(r[c]) for r in rows] for c in columns})


def score_clusters(rows: Sequence[Mapping], labels: np.ndarray, key: str, *, n_resamples: int, seed: int,
                   remove_singletons: bool = False):
    """The ``cdec`` task's scores of the predicted clusters against the gold of ``rows``.

    ``remove_singletons`` scores the same metric (:mod:`figbench.scoring.coref`) with clusters of one
    mention dropped from both sides first: a protocol the leaderboard does not use (it keeps singletons).
    """
    from figbench_baselines.common.scoring import Evaluation, score_with_task

    from figbench.tasks import get_task

    task = get_task("cdec")
    split = mention_split(rows, task)
    clusters = predicted_document(rows, labels)
    if not remove_singletons:
        return score_with_task(task, split, key, clusters, n_resamples=n_resamples, seed=seed)
    from figbench.scoring.coref import bootstrap_coref, evaluate_coref

    # TODO(tasks): a remove_singletons protocol option of ClusteringTask.score would make this branch the task's
    gold = task.gold_from_dataset(split, key)
    preds = task.parse_predictions(clusters, gold)
    ref = [list(c) for c in gold.clusters]
    scores = {k: float(v) for k, v in evaluate_coref([preds], [ref], remove_singletons=True).items()
              if k in task.metric_names}
    cis = bootstrap_coref([preds], [ref], n_resamples=n_resamples, seed=seed, remove_singletons=True,
                          **task.bootstrap_groups(gold)) if n_resamples else {}
    counts = {"mentions": float(len(gold.ids)), "gold_clusters": float(len(gold.clusters)),
              "predicted_clusters": float(len(preds))}
    return Evaluation(task, gold, preds, scores, {k: dict(v) for k, v in cis.items() if k in scores}, counts)


def per_group_scores(rows: Sequence[Mapping], labels: np.ndarray, by: str = "topic", *,
                     remove_singletons: bool = False) -> dict[str, dict[str, float]]:
    """Scores of each ``by`` group (e.g. topic) with the predictions restricted to its mentions."""
    groups: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(rows):
        groups[str(r[by])].append(i)
    out = {}
    for g, idx in sorted(groups.items()):
        sub_rows = [rows[i] for i in idx]
        out[g] = evaluate(sub_rows, np.asarray(labels)[idx], remove_singletons=remove_singletons)
    return out


def find_key(scores: Mapping[str, float], metric: str, stat: str) -> str:
    """The key of ``scores`` for a metric ("muc", "bcubed", "ceafe", "conll") and statistic ("recall"...)."""
    aliases = {"bcubed": ("bcubed", "b_cubed", "b3", "bcub"), "muc": ("muc",), "ceafe": ("ceafe", "ceaf_e", "ceaf-e"),
               "conll": ("conll",), "lea": ("lea",)}[metric]
    stats = {"recall": ("recall", "_r"), "precision": ("precision", "_p"), "f1": ("f1", "_f")}[stat]
    for k in scores:
        low = k.lower()
        if any(low.startswith(a) for a in aliases) and any(low.endswith(s) or f"_{s.strip('_')}" in low for s in stats):
            return k
    raise KeyError(f"no {metric} {stat} among metric keys {sorted(scores)}")
