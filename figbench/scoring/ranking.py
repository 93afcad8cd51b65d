"""Ranking: accuracy (gold ranked first), mean reciprocal rank and top-5 accuracy.

A prediction is a ranked list of candidate ids, best first; a gold id missing from the list has
reciprocal rank 0 (so a truncated list can only lose).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from figbench.scoring import Scored


def reciprocal_ranks(gold: Sequence[str], rankings: Sequence[Sequence[str]]) -> np.ndarray:
    """1/rank of each gold id in its ranking (0 when absent)."""
    if len(gold) != len(rankings):
        raise ValueError(f"{len(gold)} gold ids but {len(rankings)} rankings")
    rr = np.zeros(len(gold))
    for n, (g, ranking) in enumerate(zip(gold, rankings)):
        try:
            rr[n] = 1.0 / (list(ranking).index(g) + 1)
        except ValueError:
            continue
    return rr


def ranks_from_scores(scores: np.ndarray, gold: Sequence[int]) -> np.ndarray:
    """1-based rank of each gold candidate in the stable descending order of ``scores`` (ties: lower index first)."""
    gold = np.asarray(gold)
    g = scores[np.arange(len(gold)), gold][:, None]
    earlier = np.arange(scores.shape[1])[None, :] < gold[:, None]
    return 1 + (scores > g).sum(1) + ((scores == g) & earlier).sum(1)


def ranking_statistics(rr: np.ndarray) -> dict[str, float]:
    return {"accuracy": float((rr == 1.0).mean()), "mrr": float(rr.mean()),
            "top5_accuracy": float((rr >= 0.2).mean())}


def score_rankings(gold: Sequence[str], rankings: Sequence[Sequence[str]], *, n_resamples: int = 1000,
                   seed: int = 0, unit: str = "examples") -> Scored:
    """Accuracy, MRR and top-5 accuracy with percentile-bootstrap intervals over examples."""
    from figbench.bootstrap import bootstrap_ci

    rr = reciprocal_ranks(gold, rankings)
    if len(rr) == 0:
        raise ValueError("no examples to score")
    cis = bootstrap_ci(len(rr), lambda idx: ranking_statistics(rr[idx]), n_resamples=n_resamples, seed=seed,
                       unit=unit) if n_resamples else {}
    return Scored(ranking_statistics(rr), cis, {"examples": float(len(rr))})


def score_neighbours(labels: Mapping[str, str], nearest: Mapping[str, str], ids: Sequence[str], *,
                     n_resamples: int = 1000, seed: int = 0, unit: str = "examples") -> Scored:
    """Accuracy of nearest-other predictions: a hit when the chosen item has the same label."""
    from figbench.bootstrap import bootstrap_ci

    hits = np.array([float(labels[nearest[i]] == labels[i]) for i in ids])
    if len(hits) == 0:
        raise ValueError("no examples to score")
    cis = bootstrap_ci(len(hits), lambda idx: {"accuracy": float(hits[idx].mean())}, n_resamples=n_resamples,
                       seed=seed, unit=unit) if n_resamples else {}
    return Scored({"accuracy": float(hits.mean())}, cis, {"examples": float(len(hits))})
