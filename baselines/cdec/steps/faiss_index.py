"""FAISS nearest-neighbour search: exact (flat L2) or approximate (HNSW, IVF-Flat)."""

from __future__ import annotations

import numpy as np

INDEX_KINDS = ("flat", "hnsw", "ivf")


def build_index(x: np.ndarray, index: str = "flat", *, nlist: int | None = None, hnsw_m: int = 32,
                ef_construction: int = 80, seed: int = 0):
    """A FAISS L2 index over ``x`` (float32, shape (n, d)); IVF trains on a sample of ``x``."""
    import faiss

    x = np.ascontiguousarray(x, dtype=np.float32)
    n, d = x.shape
    if index == "flat":
        idx = faiss.IndexFlatL2(d)
    elif index == "hnsw":
        idx = faiss.IndexHNSWFlat(d, hnsw_m)
        idx.hnsw.efConstruction = ef_construction
    elif index == "ivf":
        nlist = nlist or int(4 * np.sqrt(n))
        nlist = max(1, min(nlist, n // 39))  # FAISS wants >= 39 training points per centroid
        quantizer = faiss.IndexFlatL2(d)
        idx = faiss.IndexIVFFlat(quantizer, d, nlist)
        rng = np.random.default_rng(seed)
        sample = x[rng.choice(n, size=min(n, max(nlist * 40, 10_000)), replace=False)]
        idx.train(sample)
    else:
        raise ValueError(f"unknown FAISS index kind {index!r}; choose from {INDEX_KINDS}")
    idx.add(x)
    return idx


def search(base: np.ndarray, queries: np.ndarray, k: int, index: str = "flat", *, nprobe: int = 16,
           hnsw_m: int = 32, ef_search: int = 64, index_obj=None) -> tuple[np.ndarray, np.ndarray]:
    """(distances, ids) of the ``k`` nearest ``base`` vectors of each query."""
    idx = index_obj if index_obj is not None else build_index(base, index, hnsw_m=hnsw_m)
    if index == "ivf":
        idx.nprobe = nprobe
    elif index == "hnsw":
        idx.hnsw.efSearch = max(ef_search, k)
    q = np.ascontiguousarray(queries, dtype=np.float32)
    return idx.search(q, k)
