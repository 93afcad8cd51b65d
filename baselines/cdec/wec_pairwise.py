"""The WEC-Eng pairwise model (Eirew et al. 2021), on a frozen encoder.

Each mention is represented by g = [first sub-token vector, last sub-token vector, attention-weighted
sum of its sub-token vectors] from a frozen encoder (the attention scorer is learned); an MLP over
[g_i, g_j, g_i * g_j] scores a pair. Training: every coreferent pair of the training split plus k=10
sampled non-coreferent pairs per positive (binary cross-entropy, Accelerate loop). Clustering:
average-link agglomerative, with the stop threshold tuned on a tuning split (validation by default)
for the best CoNLL F1.
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

from figbench_baselines.cdec.encoding import seed_everything, tokenize_mentions

MAX_SPAN = 8
THRESHOLDS = tuple(round(x, 2) for x in np.arange(0.3, 0.96, 0.05))


@torch.no_grad()
def span_token_vectors(encoder, tokenizer, rows: Sequence[Mapping], *, batch_size: int = 64, max_length: int = 128,
                       context_words: int = 30) -> tuple[np.ndarray, np.ndarray, float]:
    """Frozen sub-token vectors of each mention's span: (n, MAX_SPAN, H), mask (n, MAX_SPAN), mentions/s."""
    from tqdm.auto import tqdm

    device = "cuda" if torch.cuda.is_available() else "cpu"
    encoder = encoder.to(device).eval()
    h = encoder.config.hidden_size
    vecs = np.zeros((len(rows), MAX_SPAN, h), dtype=np.float32)
    mask = np.zeros((len(rows), MAX_SPAN), dtype=np.float32)
    t0 = time.perf_counter()
    for s in tqdm(range(0, len(rows), batch_size), desc="encode spans (frozen)", disable=len(rows) < 2000):
        batch = tokenize_mentions(tokenizer, rows[s:s + batch_size], max_length=max_length, context_words=context_words)
        out = encoder(input_ids=batch["input_ids"].to(device),
                      attention_mask=batch["attention_mask"].to(device)).last_hidden_state.float().cpu().numpy()
        for b in range(out.shape[0]):
            idx = np.flatnonzero(batch["span_mask"][b].numpy())[:MAX_SPAN]
            vecs[s + b, :len(idx)] = out[b, idx]
            mask[s + b, :len(idx)] = 1.0
    secs = time.perf_counter() - t0
    return vecs, mask, (len(rows) / secs if secs > 0 else 0.0)


class PairwiseMLP(torch.nn.Module):
    """Span representation g (first, last, attention-weighted head) and an MLP over [g_i, g_j, g_i*g_j]."""

    def __init__(self, hidden: int, mlp: int = 256):
        super().__init__()
        self.att = torch.nn.Linear(hidden, 1)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(9 * hidden, mlp), torch.nn.ReLU(), torch.nn.Dropout(0.1),
                                       torch.nn.Linear(mlp, mlp), torch.nn.ReLU(), torch.nn.Linear(mlp, 1))

    def g(self, vecs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        first = vecs[:, 0]
        last_idx = (mask.sum(1).long() - 1).clamp(min=0)
        last = vecs[torch.arange(len(vecs)), last_idx]
        logits = self.att(vecs).squeeze(-1).masked_fill(mask == 0, -1e4)
        head = (torch.softmax(logits, dim=-1).unsqueeze(-1) * vecs).sum(1)
        return torch.cat([first, last, head], dim=-1)

    def forward(self, va, ma, vb, mb):
        gi, gj = self.g(va, ma), self.g(vb, mb)
        return self.mlp(torch.cat([gi, gj, gi * gj], dim=-1)).squeeze(-1)


def training_pairs(rows: Sequence[Mapping], k_neg: int = 10, seed: int = 0,
                   max_positive: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """All coreferent pairs (capped at ``max_positive``) plus ``k_neg`` random non-coreferent pairs per positive."""
    rng = random.Random(seed)
    by_cluster: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(rows):
        by_cluster[str(r["cluster_id"])].append(i)
    pos = [(a, b) for m in by_cluster.values() for x, a in enumerate(m) for b in m[x + 1:]]
    if not pos:
        raise ValueError("WEC pairwise training: no coreferent pair in the training split")
    if max_positive and len(pos) > max_positive:
        pos = rng.sample(pos, max_positive)
    cids = [str(r["cluster_id"]) for r in rows]
    neg = []
    for a, _ in pos:
        for _ in range(k_neg):
            for _try in range(20):
                b = rng.randrange(len(rows))
                if cids[b] != cids[a]:
                    neg.append((a, b))
                    break
    pairs = np.array(pos + neg, dtype=np.int64)
    labels = np.array([1.0] * len(pos) + [0.0] * len(neg))
    return pairs, labels


@torch.no_grad()
def score(model: PairwiseMLP, vecs: np.ndarray, mask: np.ndarray, pairs: np.ndarray, batch: int = 8192) -> np.ndarray:
    model = getattr(model, "module", model).cpu().eval()
    v, m = torch.from_numpy(vecs), torch.from_numpy(mask)
    out = []
    for s in range(0, len(pairs), batch):
        p = torch.from_numpy(pairs[s:s + batch])
        out.append(torch.sigmoid(model(v[p[:, 0]], m[p[:, 0]], v[p[:, 1]], m[p[:, 1]])).numpy())
    return np.concatenate(out) if out else np.zeros(0)


def candidate_pairs(rows: Sequence[Mapping], within: str | None, vecs: np.ndarray, max_group: int = 1500,
                    k: int = 50) -> np.ndarray:
    """All pairs inside each group; groups larger than ``max_group`` use the top-``k`` neighbours instead."""
    from figbench_baselines.cdec.filters import group_index, knn_pairs

    out = []
    for idx in group_index(rows, within).values():
        idx = np.asarray(idx)
        if len(idx) <= max_group:
            a, b = np.triu_indices(len(idx), k=1)
            out.append(np.stack([idx[a], idx[b]], axis=1))
        else:
            mean = vecs[idx].mean(1)
            local = knn_pairs(mean, k=k, normalize=True)
            out.append(idx[local])
    return np.concatenate(out).astype(np.int64) if out else np.zeros((0, 2), dtype=np.int64)


def run_wec_pairwise(rows: Sequence[Mapping], args: argparse.Namespace) -> tuple[np.ndarray, np.ndarray, dict]:
    """Train the pairwise MLP, tune the average-link threshold on the tuning split, score ``rows``' pairs."""
    from torch.utils.data import DataLoader, TensorDataset

    from figbench_baselines.cdec.clustering import average_link
    from figbench_baselines.cdec.data import check_rows, load_mentions
    from figbench_baselines.cdec.evaluation import evaluate
    from figbench_baselines.cdec.pipeline import _groups, training_rows
    from figbench_baselines.common.encoder import load_tokenizer_and_model, model_display_name
    from figbench_baselines.common.runs import train_config_from_args
    from figbench_baselines.common.training import make_accelerator, train

    seed_everything(args.seed)
    tokenizer, encoder = load_tokenizer_and_model(args.model)
    enc_kw = dict(batch_size=args.encode_batch_size, max_length=args.max_length, context_words=args.context_words)
    train_rows, where = training_rows(args)
    tv, tm, rate = span_token_vectors(encoder, tokenizer, train_rows, **enc_kw)
    pairs, labels = training_pairs(train_rows, k_neg=10, seed=args.seed,
                                   max_positive=args.max_train_pairs or (500 if args.quick else None))
    model = PairwiseMLP(encoder.config.hidden_size)
    v, m = torch.from_numpy(tv), torch.from_numpy(tm)
    p = torch.from_numpy(pairs)
    ds = TensorDataset(p, torch.from_numpy(labels).float())  # vectors are gathered per batch
    cfg = train_config_from_args(args, epochs=2.0, batch_size=128, lr=1e-3)
    if args.quick and args.max_steps is None:
        cfg.max_steps = 60
    loader = DataLoader(ds, batch_size=cfg.batch_size, shuffle=True, generator=torch.Generator().manual_seed(args.seed))
    bce = torch.nn.BCEWithLogitsLoss()

    def loss_fn(mdl, b):
        idx, y = b[0].cpu(), b[1]
        dev = y.device
        logits = mdl(v[idx[:, 0]].to(dev), m[idx[:, 0]].to(dev), v[idx[:, 1]].to(dev), m[idx[:, 1]].to(dev))
        return bce(logits, y)

    stats = train(model, loader, loss_fn, cfg, make_accelerator(cfg), batch_size_of=lambda b: len(b[1]),
                  desc="WEC pairwise MLP")

    # tune the stop threshold on the tuning split
    tune_split = args.tune_split
    tune_rows = getattr(args, "tune_rows", None)
    if tune_rows is None:
        tune_rows = load_mentions(args.dataset, args.config, tune_split, args.data_dir, args.mention_class)
    check_rows(tune_rows, f"{args.dataset}/{args.config}/{tune_split}", need_gold=True)
    uv, um, _ = span_token_vectors(encoder, tokenizer, tune_rows, **enc_kw)
    upairs = candidate_pairs(tune_rows, args.within, uv)
    uscores = score(model, uv, um, upairs)
    ugroups = _groups(tune_rows, args.within)
    best = max(THRESHOLDS, key=lambda t: evaluate(
        tune_rows, average_link(len(tune_rows), upairs, uscores, t, groups=ugroups))["conll_f1"])

    xv, xm, rate_test = span_token_vectors(encoder, tokenizer, rows, **enc_kw)
    xpairs = candidate_pairs(rows, args.within, xv)
    t0 = time.perf_counter()
    xscores = score(model, xv, xm, xpairs)
    secs = time.perf_counter() - t0
    params = int(sum(p.numel() for p in model.parameters()) + sum(p.numel() for p in encoder.parameters()))
    info: dict[str, Any] = {
        "model": {"name": model_display_name(args.model), "revision": None, "type": "fine-tuned encoder",
                  "parameters": params},
        "threshold": float(best),
        "wec_train_split": where, "wec_train_pairs": int(len(pairs)), "wec_negatives_per_positive": 10,
        "wec_tune_split": tune_split, "wec_train_steps": int(stats["train_steps"]), "encoder_frozen": True,
        "throughput": {"encode_mentions_per_s": rate_test, "pairs_per_s": len(xpairs) / secs if secs > 0 else 0.0,
                       "train_pairs_per_s": stats["train_examples_per_s"]},
    }
    return xpairs, xscores, info
