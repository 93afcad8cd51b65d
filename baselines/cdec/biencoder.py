"""KNN bi-encoder (Held et al. 2021): mention embeddings fine-tuned with a triplet loss on gold clusters.

A mention is encoded in its marked context; its vector is the mean of its trigger sub-token vectors.
Training draws (anchor, positive from the same gold cluster, negative from another cluster of the
same topic when there is one) and minimises ``TripletMarginLoss(margin=10, p=2)`` with the shared
Accelerate loop (``figbench_baselines.common.training.train``).
"""

from __future__ import annotations

import argparse
import random
import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import torch

from figbench_baselines.cdec.encoding import (
    add_markers,
    count_parameters,
    seed_everything,
    span_mean,
    to_numpy,
    tokenize_mentions,
)


class BiEncoder(torch.nn.Module):
    """A transformer encoder whose output is the mean vector of the mention's sub-tokens."""

    def __init__(self, encoder: torch.nn.Module):
        super().__init__()
        self.encoder = encoder

    def forward(self, input_ids, attention_mask, span_mask):
        hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        return span_mean(hidden, span_mask)


def load_biencoder(model_name: str | None) -> tuple[Any, BiEncoder]:
    """(tokenizer, BiEncoder) for an HF id or path (the offline MiniLM by default)."""
    from figbench_baselines.common.encoder import load_tokenizer_and_model

    tokenizer, encoder = load_tokenizer_and_model(model_name)
    add_markers(tokenizer, encoder)
    return tokenizer, BiEncoder(encoder)


def make_triplets(rows: Sequence[Mapping], n_per_anchor: int = 1, seed: int = 0) -> list[tuple[int, int, int]]:
    """(anchor, positive, negative) row indices; anchors are mentions of clusters with 2+ mentions."""
    rng = random.Random(seed)
    by_cluster: dict[str, list[int]] = defaultdict(list)
    by_topic: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(rows):
        by_cluster[str(r["cluster_id"])].append(i)
        by_topic[str(r.get("topic", ""))].append(i)
    out = []
    for i, r in enumerate(rows):
        cluster = by_cluster[str(r["cluster_id"])]
        if len(cluster) < 2:
            continue
        same_topic = by_topic[str(r.get("topic", ""))]
        for _ in range(n_per_anchor):
            pos = rng.choice([j for j in cluster if j != i])
            neg = None
            for pool in (same_topic, range(len(rows))):
                for _try in range(20):
                    cand = rng.choice(pool) if isinstance(pool, list) else rng.randrange(len(rows))
                    if str(rows[cand]["cluster_id"]) != str(r["cluster_id"]):
                        neg = cand
                        break
                if neg is not None:
                    break
            if neg is not None:
                out.append((i, pos, neg))
    if not out:
        raise ValueError("no triplets: the training split has no gold cluster with two or more mentions")
    return out


def train_biencoder(model: BiEncoder, tokenizer, train_rows: Sequence[Mapping], cfg, *, margin: float = 10.0,
                    max_length: int = 128, context_words: int = 30, max_triplets: int | None = None) -> dict:
    """Fine-tune ``model`` in place with the triplet loss (p=2); returns training statistics."""
    from torch.utils.data import DataLoader

    from figbench_baselines.common.training import make_accelerator, train

    triplets = make_triplets(train_rows, seed=cfg.seed)
    if max_triplets:
        triplets = random.Random(cfg.seed).sample(triplets, min(max_triplets, len(triplets)))
    loss = torch.nn.TripletMarginLoss(margin=margin, p=2)

    def collate(batch):
        a, p, n = zip(*batch)
        rows = [train_rows[i] for i in (*a, *p, *n)]
        return tokenize_mentions(tokenizer, rows, max_length=max_length, context_words=context_words)

    loader = DataLoader(triplets, batch_size=cfg.batch_size, shuffle=True, collate_fn=collate,
                        generator=torch.Generator().manual_seed(cfg.seed))

    def loss_fn(m, batch):
        v = m(batch["input_ids"], batch["attention_mask"], batch["span_mask"])
        a, p, n = v.chunk(3)
        return loss(a, p, n)

    accelerator = make_accelerator(cfg)
    stats = train(model, loader, loss_fn, cfg, accelerator, batch_size_of=lambda b: b["input_ids"].shape[0] // 3,
                  desc="bi-encoder (triplet)")
    stats["triplets"] = float(len(triplets))
    return stats


@torch.no_grad()
def encode(model: BiEncoder, tokenizer, rows: Sequence[Mapping], *, batch_size: int = 64, max_length: int = 128,
           context_words: int = 30, device: str | None = None) -> tuple[np.ndarray, float]:
    """Embeddings of ``rows`` (n, hidden) and the encoding throughput in mentions/s."""
    from tqdm.auto import tqdm

    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    model = getattr(model, "module", model).to(device).eval()
    out = []
    t0 = time.perf_counter()
    for s in tqdm(range(0, len(rows), batch_size), desc="encode mentions", disable=len(rows) < 2000):
        batch = tokenize_mentions(tokenizer, rows[s:s + batch_size], max_length=max_length, context_words=context_words)
        batch = {k: v.to(device) for k, v in batch.items()}
        out.append(to_numpy(model(batch["input_ids"], batch["attention_mask"], batch["span_mask"])))
    secs = time.perf_counter() - t0
    return np.concatenate(out, axis=0), (len(rows) / secs if secs > 0 else 0.0)


def get_embeddings(rows: Sequence[Mapping], args: argparse.Namespace) -> tuple[np.ndarray, dict]:
    """Embeddings for the KNN filter: train the bi-encoder on the training split unless told not to."""
    from figbench_baselines.cdec.pipeline import training_rows
    from figbench_baselines.common.encoder import model_display_name
    from figbench_baselines.common.runs import train_config_from_args

    seed_everything(args.seed)
    tokenizer, model = load_biencoder(args.model)
    info: dict[str, Any] = {"biencoder_model": model_display_name(args.model), "biencoder_margin": args.margin,
                            "biencoder_trained": not args.no_train_biencoder, "throughput": {}}
    if not args.no_train_biencoder:
        train_rows, where = training_rows(args)
        cfg = train_config_from_args(args, epochs=1.0, batch_size=8, lr=1e-5)
        if args.biencoder_steps is not None:
            cfg.max_steps = args.biencoder_steps
        if args.quick and cfg.max_steps is None:
            cfg.max_steps = 20
        stats = train_biencoder(model, tokenizer, train_rows, cfg, margin=args.margin, max_length=args.max_length,
                                context_words=args.context_words)
        info.update(biencoder_train_split=where, biencoder_train_steps=int(stats["train_steps"]))
        info["throughput"]["biencoder_train_triplets_per_s"] = stats["train_examples_per_s"]
    emb, rate = encode(model, tokenizer, rows, batch_size=args.encode_batch_size, max_length=args.max_length,
                       context_words=args.context_words)
    info["throughput"]["encode_mentions_per_s"] = rate
    info["biencoder_parameters"] = count_parameters(model)
    return emb, info
