"""Similar narratives: for each test narrative, the most similar *other* test narrative (scored by the
``similar_narratives`` task: correct when both illustrate the same proverb).

Similarity comes either directly from sentence embeddings (cosine) or from distances between the
narratives' predicted proverb distributions (softmax over a proverb scorer's candidate scores):
cosine, Jensen-Shannon, L2 and L1 (``scipy.spatial.distance.cdist``).
"""

from __future__ import annotations

import numpy as np

DISTANCES = {"cosine": "cosine", "js": "jensenshannon", "l2": "euclidean", "l1": "cityblock"}


def softmax(scores: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    z = scores / temperature
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def nearest_other(dist: np.ndarray) -> np.ndarray:
    """Index of the nearest other item per row (the diagonal is excluded; ties: lowest index)."""
    if dist.shape[0] < 2:
        raise ValueError("similar narratives needs at least two test narratives")
    d = dist.astype(float).copy()
    np.fill_diagonal(d, np.inf)
    return np.argmin(d, axis=1)


def by_distribution(dists: np.ndarray, distance: str) -> np.ndarray:
    """Nearest other narrative under ``distance`` (cosine | js | l2 | l1) between distributions."""
    from scipy.spatial.distance import cdist

    if distance not in DISTANCES:
        raise ValueError(f"unknown distance {distance!r}; choose from {sorted(DISTANCES)}")
    return nearest_other(cdist(dists, dists, metric=DISTANCES[distance]))


def by_embedding(emb: np.ndarray) -> np.ndarray:
    """Nearest other narrative by cosine similarity of (normalised) sentence embeddings."""
    e = emb / np.clip(np.linalg.norm(emb, axis=1, keepdims=True), 1e-12, None)
    return nearest_other(-(e @ e.T))
