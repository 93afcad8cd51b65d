"""Oracle evaluation of a candidate filter (Table 1 of the ECB+META paper).

The candidate pairs are labelled with gold coreference (a perfect pairwise scorer), clustered with
connected components, and scored; the B-cubed recall of that clustering is the most any pairwise
scorer run on these candidates can recover.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np
from figbench_baselines.cdec.steps.clustering import connected_components
from figbench_baselines.cdec.steps.filters import gold_pair_labels


def oracle_labels(rows: Sequence[Mapping], pairs: np.ndarray) -> np.ndarray:
    """Cluster labels from the candidate pairs that are gold-coreferent (connected components)."""
    return connected_components(len(rows), pairs, gold_pair_labels(rows, pairs), threshold=0.5)


def gold_pair_recall(rows: Sequence[Mapping], pairs: np.ndarray) -> float:
    """Fraction of gold coreferent mention pairs that are among the candidate pairs."""
    sizes = Counter(str(r["cluster_id"]) for r in rows)
    total = sum(s * (s - 1) // 2 for s in sizes.values())
    if total == 0:
        return 1.0
    return float(gold_pair_labels(rows, pairs).sum()) / total


def oracle_bcubed_recall(rows: Sequence[Mapping], pairs: np.ndarray) -> float:
    """B-cubed recall (figbench's metric, singletons kept) of the oracle clustering of ``pairs``."""
    from figbench_baselines.cdec.steps.evaluation import evaluate, find_key

    scores = evaluate(rows, oracle_labels(rows, pairs))
    return scores[find_key(scores, "bcubed", "recall")]
