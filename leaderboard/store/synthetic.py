"""Synthetic boards for benchmarks and demos: random gold and many stored submissions.

Nothing here is used for real scoring; it fills a store with plausible rows (``fill_store``, optionally
with every free-form field at its limit) and makes coreference gold of a given size
(``synthetic_coref_gold``) so speed can be measured without the corpora.
"""

from __future__ import annotations

import hashlib
import json
import time
from typing import Any

import numpy as np
from figbench_leaderboard.domain.benchmarks import BenchmarkRegistry
from figbench_leaderboard.domain.submission import MAX_FREEFORM_BYTES, TEXT_LIMITS
from figbench_leaderboard.store.sqlite import Store

from figbench.results import MODEL_TYPES
from figbench.tasks.gold import ClusterGold


def synthetic_coref_gold(n_mentions: int, n_clusters: int, *, seed: int = 0,
                         key: str = "synthetic/clusters") -> ClusterGold:
    rng = np.random.default_rng(seed)
    assign = np.concatenate([np.arange(n_clusters), rng.integers(0, n_clusters, n_mentions - n_clusters)])
    rng.shuffle(assign)
    clusters: dict[int, list[str]] = {}
    for i, c in enumerate(assign):
        clusters.setdefault(int(c), []).append(f"m{i}")
    return ClusterGold.build(key, list(clusters.values()))


def noisy_clusters(gold: ClusterGold, *, seed: int = 0, split_p: float = 0.3, merge_p: float = 0.1) -> list[list[str]]:
    """A response: gold clusters randomly split in two, and neighbouring clusters merged."""
    rng = np.random.default_rng(seed)
    out: list[list[str]] = []
    for c in gold.clusters:
        c = list(c)
        if len(c) > 1 and rng.random() < split_p:
            cut = int(rng.integers(1, len(c)))
            out += [c[:cut], c[cut:]]
        else:
            out.append(c)
    merged: list[list[str]] = []
    for c in out:
        if merged and rng.random() < merge_p:
            merged[-1] = merged[-1] + c
        else:
            merged.append(c)
    return merged


def maximal_metadata(i: int) -> dict[str, Any]:
    """Submission metadata with every free-form field at (or just under) its limit."""
    prov: dict[str, Any] = {"figbench_version": "0.1.0", "command": "x" * 1000, "seed": i,
                            "hardware": {f"k{j}": "y" * 60 for j in range(60)}}
    prov["notes"] = "z" * (MAX_FREEFORM_BYTES - len(json.dumps(prov)) - 200)
    model = {"name": f"model-{i}", "revision": "r" * TEXT_LIMITS["revision"], "type": "other", "parameters": 10**9,
             "link": "https://example.org/" + "l" * (TEXT_LIMITS["link"] - 20), "licence": "c" * TEXT_LIMITS["licence"]}
    return {"kind": "predictions", "model": model, "description": "d" * TEXT_LIMITS["description"],
            "paper": "https://arxiv.org/" + "p" * (TEXT_LIMITS["paper"] - 20), "method": "m" * TEXT_LIMITS["method"],
            "provenance": prov}


def fill_store(store: Store, n: int, *, registry: BenchmarkRegistry | None = None, seed: int = 0,
               n_models: int | None = None, maximal: bool = False) -> int:
    """Insert ``n`` FINISHED submissions spread over models and benchmarks in one transaction.

    ``maximal``: every free-form field at its limit (the worst case for reading the store).
    """
    from figbench_leaderboard.domain.names import name_keys

    registry = registry or BenchmarkRegistry()
    benches = list(registry)
    rng = np.random.default_rng(seed)
    n_models = n_models or max(1, n // len(benches))
    now = time.time()
    rows: list[dict[str, Any]] = []
    for i in range(n):
        b = benches[i % len(benches)]
        task = registry.task(b)
        model = i // len(benches) % n_models
        rev = f"r{i // (len(benches) * n_models)}"
        scores = {m: float(rng.uniform(0.2, 0.9)) for m in task.table_columns()}
        cis = {k: {"low": max(0.0, v - 0.03), "high": min(1.0, v + 0.03), "level": 0.95, "n_resamples": 1000,
                   "unit": "examples"} for k, v in scores.items()}
        name = f"org{model % 17}/model-{model}"
        rows.append({"id": hashlib.sha1(f"{seed}-{i}".encode()).hexdigest()[:32], "created_at": now - n + i,
                     "updated_at": now - n + i, "status": "FINISHED", "task": b.task, "dataset": b.dataset,
                     "config": b.config, "split": b.split, "model_name": name,
                     **dict(zip(("name_key", "name_key2"), name_keys(name), strict=True)),
                     "model_revision": rev, "model_type": MODEL_TYPES[model % len(MODEL_TYPES)],
                     "model_parameters": int(10 ** rng.uniform(6, 11)), "submitter": f"user{model % 50}",
                     "verified": 1, "sha256": hashlib.sha256(str(i).encode()).hexdigest(),
                     "metadata": maximal_metadata(i) if maximal else {"kind": "predictions", "model": {},
                                                                       "provenance": {}},
                     "scores": scores, "confidence_intervals": cis, "counts": {}, "mismatches": {}})
    cols = ["id", "created_at", "updated_at", "status", "task", "dataset", "config", "split", "model_name",
            "name_key", "name_key2", "model_revision", "model_type", "model_parameters", "submitter", "verified",
            "sha256", "metadata", "scores", "confidence_intervals", "counts", "mismatches"]
    with store.transaction() as db:
        db.executemany(
            f"INSERT INTO submissions ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)})",
            [[json.dumps(r[c]) if isinstance(r[c], dict) else r[c] for c in cols] for r in rows])
    return n
