"""KNN candidate generation at scale: exact vs approximate FAISS search, and a 40K-mention end-to-end run.

Part 1 (``--n`` synthetic mention vectors, 1M x 384 float32 = 1.5 GB by default): builds an exact
index (IndexFlatL2) and approximate ones (HNSW, IVF-Flat), searches ``--queries`` random base vectors
for their top-``k`` neighbours, and reports build time, query time and recall@k against the exact
neighbours, side by side in one run.

Part 2 (``--e2e``): the cdec pipeline (``knn_oracle``: encoder -> FAISS top-k -> oracle pair labels
-> connected components -> CoNLL metric) on ``--e2e-mentions`` synthetic mentions (WEC-Eng train has
40,529; that split is not available offline, so the mentions are generated: short sentences over a
random vocabulary, cluster sizes from a Zipf law), with the offline MiniLM encoder, timing each stage.

Usage: python benchmarks/bench_knn_faiss.py [--n 1000000] [--dim 384] [--queries 1000] [--k 10]
       [--e2e] [--e2e-mentions 40000] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time

import numpy as np


def synthetic_vectors(n: int, dim: int, n_centers: int, seed: int = 0) -> np.ndarray:
    """Mixture of Gaussians: mentions of one event lie near one centre (float32, built in chunks)."""
    rng = np.random.default_rng(seed)
    centers = rng.normal(size=(n_centers, dim)).astype(np.float32)
    x = np.empty((n, dim), dtype=np.float32)
    for s in range(0, n, 100_000):
        e = min(n, s + 100_000)
        x[s:e] = centers[rng.integers(0, n_centers, e - s)] + 0.35 * rng.normal(size=(e - s, dim)).astype(np.float32)
    return x


def rss_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 ** 2


def faiss_part(args) -> list[dict]:
    import faiss
    from figbench_baselines.cdec.steps.faiss_index import build_index

    faiss.omp_set_num_threads(args.threads)
    t = time.perf_counter()
    x = synthetic_vectors(args.n, args.dim, args.centers)
    print(f"{args.n:,} x {args.dim} vectors ({x.nbytes / 1e9:.2f} GB) generated in {time.perf_counter() - t:.1f} s")
    rng = np.random.default_rng(1)
    q = x[rng.choice(args.n, size=args.queries, replace=False)]
    rows = []
    exact_ids = None
    for kind, params in [("flat", {}), ("hnsw", {"hnsw_m": 16, "ef_construction": 40}), ("ivf", {"nlist": args.nlist})]:
        t0 = time.perf_counter()
        idx = build_index(x, kind, **params)
        build = time.perf_counter() - t0
        settings = [None] if kind == "flat" else ([32, 64, 128] if kind == "hnsw" else [8, 32])
        for setting in settings:
            if kind == "hnsw":
                idx.hnsw.efSearch = setting
            elif kind == "ivf":
                idx.nprobe = setting
            t1 = time.perf_counter()
            _, ids = idx.search(q, args.k)
            search = time.perf_counter() - t1
            if kind == "flat":
                exact_ids = ids
            recall = np.mean([len(set(a) & set(b)) / args.k for a, b in zip(ids, exact_ids)])
            row = {"index": kind, "param": {"hnsw": "efSearch", "ivf": "nprobe"}.get(kind, "-"),
                   "value": setting, "build_s": round(build, 2), "search_s": round(search, 3),
                   "queries_per_s": round(args.queries / search, 1), f"recall@{args.k}": round(float(recall), 4),
                   "peak_rss_gb": round(rss_gb(), 2)}
            if kind == "ivf":
                row["nlist"] = idx.nlist
            rows.append(row)
            print(json.dumps(row))
        del idx
    return rows


def synthetic_rows(n: int, seed: int = 0) -> list[dict]:
    """``n`` synthetic mention rows (figbench schema) with Zipf cluster sizes and trigger words per cluster."""
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(5000)]
    rows, i, c = [], 0, 0
    while i < n:
        size = int(min(n - i, rng.zipf(2.0), 200))
        trigger = vocab[rng.integers(0, 5000)]
        topic_words = list(rng.choice(vocab, 6))
        for _ in range(size):
            words = list(rng.choice(topic_words, 4)) + [trigger] + list(rng.choice(vocab, 6))
            rows.append({"mention_id": f"m{i}", "doc_id": f"d{i}", "topic": "0", "subtopic": "0", "sentence_id": 0,
                         "token_start": 4, "token_end": 5, "text": trigger, "head": trigger, "head_lemma": trigger,
                         "pos": "", "mention_class": "event", "mention_type": "", "cluster_id": f"c{c}",
                         "sentence": words, "context": words, "context_start": 4, "context_end": 5,
                         "original_text": ""})
            i += 1
        c += 1
    return rows


def tiny_encoder(layers: int = 1, hidden: int = 384) -> str:
    """A randomly initialised BERT (MiniLM's tokenizer, ``layers`` layers, 384-d) saved to a temp folder:
    the encoder stand-in when the shared CPU is too slow to run MiniLM over 40K mentions."""
    import tempfile

    from figbench_baselines.common.encoder import default_model_path
    from transformers import AutoTokenizer, BertConfig, BertModel

    path = tempfile.mkdtemp(prefix="bench_tiny_bert_")
    tok = AutoTokenizer.from_pretrained(default_model_path())
    BertModel(BertConfig(vocab_size=len(tok), hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=6,
                         intermediate_size=4 * hidden)).save_pretrained(path)
    tok.save_pretrained(path)
    return path


def e2e_part(args) -> dict:
    from figbench_baselines.cdec.pipeline import default_args, run

    if args.e2e_tiny_encoder:
        args.e2e_model = tiny_encoder()
    rows = synthetic_rows(args.e2e_mentions)
    t0 = time.perf_counter()
    ns = default_args(dataset="wec_eng", method="knn_oracle", no_train_biencoder=True, k=args.k_e2e,
                      faiss_index=args.e2e_index, n_resamples=args.e2e_resamples, max_length=32, context_words=8,
                      encode_batch_size=128, model=args.e2e_model)
    rec = run(ns, rows=rows)
    wall = time.perf_counter() - t0
    out = {"encoder": "tiny 1-layer BERT (random)" if args.e2e_tiny_encoder else (args.e2e_model or "MiniLM"),
           "index": args.e2e_index, "k": args.k_e2e, "mentions": len(rows),
           "gold_clusters": rec["counts"]["gold_clusters"],
           "candidate_pairs": rec["counts"]["candidate_pairs"], "wall_s": round(wall, 1),
           "throughput": rec["provenance"]["throughput"], "oracle_bcub_recall": rec["scores"]["bcub_recall"],
           "conll_f1": rec["scores"]["conll_f1"], "peak_rss_gb": round(rss_gb(), 2)}
    print(json.dumps(out))
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=1_000_000)
    p.add_argument("--dim", type=int, default=384)
    p.add_argument("--centers", type=int, default=20_000)
    p.add_argument("--queries", type=int, default=1000)
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--nlist", type=int, default=1024, help="IVF lists")
    p.add_argument("--threads", type=int, default=int(os.environ.get("OMP_NUM_THREADS", 2)))
    p.add_argument("--skip-faiss", action="store_true")
    p.add_argument("--e2e", action="store_true", help="also run the 40K-mention end-to-end pipeline")
    p.add_argument("--e2e-mentions", type=int, default=40_000)
    p.add_argument("--e2e-model", default=None, help="encoder (default: offline MiniLM)")
    p.add_argument("--e2e-tiny-encoder", action="store_true",
                   help="use a random 1-layer 384-d BERT instead of MiniLM (pipeline scale only, no quality)")
    p.add_argument("--e2e-index", default="flat", choices=("flat", "hnsw", "ivf"))
    p.add_argument("--k-e2e", type=int, default=5)
    p.add_argument("--e2e-resamples", type=int, default=100)
    p.add_argument("--json", default=None, help="write all measurements to this JSON file")
    args = p.parse_args()
    result = {}
    if not args.skip_faiss:
        result["faiss"] = faiss_part(args)
    if args.e2e:
        result["e2e"] = e2e_part(args)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
