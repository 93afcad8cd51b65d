"""Synthetic boards for benchmarks and demos: random gold and many stored submissions.

Nothing here is used for real scoring; it fills a store with plausible rows (``fill_store``) and
makes coreference gold of a given size (``synthetic_coref_gold``) so speed can be measured without
the corpora.
"""

from __future__ import annotations

import hashlib
import time
from typing import Any

import numpy as np

from figbench_leaderboard.benchmarks import BenchmarkRegistry
from figbench_leaderboard.formats import MODEL_TYPES
from figbench_leaderboard.gold import Gold, gold_for_clusters
from figbench_leaderboard.store import Store


def synthetic_coref_gold(n_mentions: int, n_clusters: int, *, seed: int = 0,
                         key: str = "cdec/ecbplus/events/test") -> Gold:
    rng = np.random.default_rng(seed)
    assign = np.concatenate([np.arange(n_clusters), rng.integers(0, n_clusters, n_mentions - n_clusters)])
    rng.shuffle(assign)
    clusters: dict[int, list[str]] = {}
    for i, c in enumerate(assign):
        clusters.setdefault(int(c), []).append(f"m{i}")
    return gold_for_clusters(key, list(clusters.values()))


def noisy_clusters(gold: Gold, *, seed: int = 0, split_p: float = 0.3, merge_p: float = 0.1) -> list[list[str]]:
    """A response: gold clusters randomly split in two, and neighbouring clusters merged."""
    rng = np.random.default_rng(seed)
    out: list[list[str]] = []
    for c in gold.clusters:
        if len(c) > 1 and rng.random() < split_p:
            cut = int(rng.integers(1, len(c)))
            out += [c[:cut], c[cut:]]
        else:
            out.append(list(c))
    merged: list[list[str]] = []
    for c in out:
        if merged and rng.random() < merge_p:
            merged[-1] = merged[-1] + c
        else:
            merged.append(c)
    return merged


def fill_store(store: Store, n: int, *, registry: BenchmarkRegistry | None = None, seed: int = 0,
               n_models: int | None = None) -> int:
    """Insert ``n`` FINISHED submissions spread over models and benchmarks in one transaction."""

    registry = registry or BenchmarkRegistry()
    benches = list(registry)
    rng = np.random.default_rng(seed)
    n_models = n_models or max(1, n // len(benches))
    now = time.time()
    rows: list[dict[str, Any]] = []
    for i in range(n):
        b = benches[i % len(benches)]
        model = i // len(benches) % n_models
        rev = f"r{i // (len(benches) * n_models)}"
        value = float(rng.uniform(0.2, 0.9))
        scores = {b.headline: value, "extra_metric": float(rng.uniform(0, 1))}
        cis = {k: {"low": max(0.0, v - 0.03), "high": min(1.0, v + 0.03), "level": 0.95, "n_resamples": 1000,
                   "unit": "examples"} for k, v in scores.items()}
        rows.append({"id": hashlib.sha1(f"{seed}-{i}".encode()).hexdigest()[:32], "created_at": now - n + i,
                     "updated_at": now - n + i, "status": "FINISHED", "task": b.task, "dataset": b.dataset,
                     "config": b.config, "split": b.split, "model_name": f"org{model % 17}/model-{model}",
                     "model_revision": rev, "model_type": MODEL_TYPES[model % len(MODEL_TYPES)],
                     "model_parameters": int(10 ** rng.uniform(6, 11)), "submitter": f"user{model % 50}",
                     "verified": 1, "sha256": hashlib.sha256(str(i).encode()).hexdigest(),
                     "metadata": {"kind": "predictions", "model": {}, "provenance": {}}, "scores": scores,
                     "confidence_intervals": cis, "counts": {}, "mismatches": {}})
    import json

    cols = ["id", "created_at", "updated_at", "status", "task", "dataset", "config", "split", "model_name",
            "model_revision", "model_type", "model_parameters", "submitter", "verified", "sha256", "metadata",
            "scores", "confidence_intervals", "counts", "mismatches"]
    with store.transaction() as db:
        db.executemany(
            f"INSERT INTO submissions ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)})",
            [[json.dumps(r[c]) if isinstance(r[c], dict) else r[c] for c in cols] for r in rows])
    return n
