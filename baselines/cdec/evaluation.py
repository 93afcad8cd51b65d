"""Scoring predicted clusters with figbench's coreference metric (whole split = one document)."""

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


def split_scores(flat: Mapping[str, float]) -> tuple[dict[str, float], dict[str, float]]:
    """(fractions in [0, 1], other numbers) of a flat metric dict."""
    scores = {k: v for k, v in flat.items() if 0.0 <= v <= 1.0 and not k.startswith(("n_", "num_"))}
    counts = {k: v for k, v in flat.items() if k not in scores}
    return scores, counts


def evaluate(rows: Sequence[Mapping], labels: np.ndarray, *, remove_singletons: bool = False) -> dict[str, float]:
    """``figbench.scoring.coref.evaluate_coref`` on the whole split as one cross-document document."""
    from figbench.scoring.coref import evaluate_coref

    pred = predicted_document(rows, labels)
    gold = gold_clusters(rows)[0]
    return _flatten(evaluate_coref([pred], [gold], remove_singletons=remove_singletons))


def confidence_intervals(rows: Sequence[Mapping], labels: np.ndarray, *, n_resamples: int, seed: int,
                         remove_singletons: bool = False, groups: str | None = None) -> dict[str, dict]:
    """Bootstrap intervals of every metric value (``figbench.scoring.coref.bootstrap_coref``).

    ``groups``: a row field (``"topic"``, ``"subtopic"``) whose values are the resampling units;
    ``None`` uses bootstrap_coref's default for one document (connected groups of overlapping clusters).
    """
    from figbench.scoring.coref import bootstrap_coref

    pred = predicted_document(rows, labels)
    gold = gold_clusters(rows)[0]
    unit_of = {str(r["mention_id"]): str(r[groups]) for r in rows} if groups else None
    cis = bootstrap_coref([pred], [gold], n_resamples=n_resamples, seed=seed,
                          remove_singletons=remove_singletons, groups=unit_of,
                          unit=f"{groups}s" if groups else None)
    return {k: dict(v) for k, v in cis.items()}


def resampling_field(rows: Sequence[Mapping]) -> str | None:
    """``"topic"`` when the rows come from several topics (ECB+, ECB+META), else ``None`` (e.g. WEC-Eng)."""
    topics = {str(r.get("topic")) for r in rows if r.get("topic") is not None}
    return "topic" if len(topics) > 1 else None


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
