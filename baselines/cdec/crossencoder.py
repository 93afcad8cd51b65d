"""Pairwise cross-encoder (CE_LH / CE_KNN, Ahmed et al. 2023; the ECB+META paper).

Both marked mention contexts go into one input; the trigger vectors v_a, v_b (means of their
sub-token vectors) and v_a * v_b feed a small classifier trained with binary cross-entropy on the
candidate pairs (LH or KNN) of the training split. Training uses the shared Accelerate loop, so the
same command runs on CPU (``--quick``) and under ``accelerate launch`` on GPUs.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from figbench_baselines.cdec.encoding import add_markers, count_parameters, seed_everything, span_mean, tokenize_pairs


class CrossEncoder(torch.nn.Module):
    """Encoder + MLP over [v_a, v_b, v_a * v_b] -> one logit."""

    def __init__(self, encoder: torch.nn.Module, hidden: int | None = None):
        super().__init__()
        self.encoder = encoder
        h = encoder.config.hidden_size
        hidden = hidden or h
        self.head = torch.nn.Sequential(torch.nn.Linear(3 * h, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 1))

    def forward(self, input_ids, attention_mask, span_a, span_b):
        out = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        va, vb = span_mean(out, span_a), span_mean(out, span_b)
        return self.head(torch.cat([va, vb, va * vb], dim=-1)).squeeze(-1)


def load_crossencoder(model_name: str | None) -> tuple[Any, CrossEncoder]:
    from figbench_baselines.common.encoder import load_tokenizer_and_model

    tokenizer, encoder = load_tokenizer_and_model(model_name)
    add_markers(tokenizer, encoder)
    return tokenizer, CrossEncoder(encoder)


def train_crossencoder(model: CrossEncoder, tokenizer, rows: Sequence[Mapping], pairs: np.ndarray,
                       labels: np.ndarray, cfg, *, max_length: int = 256, context_words: int = 30) -> dict:
    """Binary cross-entropy training on labelled pairs of ``rows``; returns training statistics."""
    from torch.utils.data import DataLoader

    from figbench_baselines.common.training import make_accelerator, train

    if len(pairs) == 0:
        raise ValueError("cross-encoder training: the training split produced no candidate pairs")
    if labels.min() == labels.max():
        raise ValueError("cross-encoder training: all training pairs have the same label "
                         f"({int(labels[0])}); need coreferent and non-coreferent pairs")
    data = list(zip(pairs[:, 0].tolist(), pairs[:, 1].tolist(), labels.tolist()))
    pos_weight = torch.tensor(float((labels == 0).sum()) / max(1.0, float(labels.sum())))
    bce = torch.nn.BCEWithLogitsLoss(pos_weight=pos_weight)

    def collate(batch):
        a, b, y = zip(*batch)
        enc = tokenize_pairs(tokenizer, [rows[i] for i in a], [rows[j] for j in b], max_length=max_length,
                             context_words=context_words)
        enc["labels"] = torch.tensor(y, dtype=torch.float32)
        return enc

    loader = DataLoader(data, batch_size=cfg.batch_size, shuffle=True, collate_fn=collate,
                        generator=torch.Generator().manual_seed(cfg.seed))

    def loss_fn(m, batch):
        logits = m(batch["input_ids"], batch["attention_mask"], batch["span_a"], batch["span_b"])
        return bce(logits, batch["labels"].to(logits.dtype))

    accelerator = make_accelerator(cfg)
    return train(model, loader, loss_fn, cfg, accelerator, desc="cross-encoder")


@torch.no_grad()
def score_pairs(model: CrossEncoder, tokenizer, rows: Sequence[Mapping], pairs: np.ndarray, *,
                batch_size: int = 32, max_length: int = 256, context_words: int = 30,
                symmetric: bool = True) -> tuple[np.ndarray, float]:
    """Coreference probabilities of ``pairs`` (mean of both input orders when ``symmetric``) and pairs/s."""
    from tqdm.auto import tqdm

    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = getattr(model, "module", model).to(device).eval()
    orders = [(0, 1), (1, 0)] if symmetric else [(0, 1)]
    probs = np.zeros(len(pairs), dtype=np.float64)
    t0 = time.perf_counter()
    for x, y in orders:
        for s in tqdm(range(0, len(pairs), batch_size), desc="cross-encoder scoring", disable=len(pairs) < 500):
            chunk = pairs[s:s + batch_size]
            enc = tokenize_pairs(tokenizer, [rows[i] for i in chunk[:, x]], [rows[j] for j in chunk[:, y]],
                                 max_length=max_length, context_words=context_words)
            enc = {k: v.to(device) for k, v in enc.items()}
            logits = model(enc["input_ids"], enc["attention_mask"], enc["span_a"], enc["span_b"])
            probs[s:s + len(chunk)] += torch.sigmoid(logits.float()).cpu().numpy() / len(orders)
    secs = time.perf_counter() - t0
    return probs, (len(pairs) / secs if secs > 0 else 0.0)


def run_crossencoder(rows: Sequence[Mapping], pairs: np.ndarray, args: argparse.Namespace,
                     candidate_fn: Callable[[list[dict]], np.ndarray]) -> tuple[np.ndarray, dict]:
    """Train (or load) the cross-encoder, then score ``pairs`` of ``rows``."""
    from figbench_baselines.cdec.filters import gold_pair_labels
    from figbench_baselines.cdec.pipeline import training_rows
    from figbench_baselines.common.encoder import model_display_name
    from figbench_baselines.common.runs import train_config_from_args

    seed_everything(args.seed)
    tokenizer, model = load_crossencoder(args.model)
    info: dict[str, Any] = {"throughput": {}}
    if args.load_model:
        state = torch.load(Path(args.load_model) / "crossencoder.pt", map_location="cpu")
        model.load_state_dict(state)
        info["ce_loaded_from"] = str(args.load_model)
    else:
        train_rows, where = training_rows(args)
        train_pairs = candidate_fn(train_rows)
        labels = gold_pair_labels(train_rows, train_pairs)
        cap = args.max_train_pairs or (256 if args.quick else None)
        if cap and len(train_pairs) > cap:
            pos = np.flatnonzero(labels == 1)
            neg = np.flatnonzero(labels == 0)
            rng = random.Random(args.seed)
            half = cap // 2
            keep = rng.sample(list(pos), min(half, len(pos))) + rng.sample(list(neg), min(cap - min(half, len(pos)), len(neg)))
            keep = np.array(sorted(keep))
            train_pairs, labels = train_pairs[keep], labels[keep]
        cfg = train_config_from_args(args, epochs=2.0, batch_size=16, lr=1e-5, warmup_ratio=0.1)
        if args.quick and args.max_steps is None:
            cfg.max_steps = 8
        stats = train_crossencoder(model, tokenizer, train_rows, train_pairs, labels, cfg,
                                   max_length=args.max_length, context_words=args.context_words)
        info.update(ce_train_split=where, ce_train_pairs=int(len(train_pairs)),
                    ce_train_positive=int(labels.sum()), ce_train_steps=int(stats["train_steps"]),
                    ce_train_config={k: v for k, v in cfg.to_dict().items() if k != "extra"})
        info["throughput"]["ce_train_pairs_per_s"] = stats["train_examples_per_s"]
        if args.save_model:
            Path(args.save_model).mkdir(parents=True, exist_ok=True)
            torch.save(getattr(model, "module", model).state_dict(), Path(args.save_model) / "crossencoder.pt")
    scores, rate = score_pairs(model, tokenizer, rows, pairs, batch_size=args.encode_batch_size,
                               max_length=args.max_length, context_words=args.context_words)
    info["throughput"]["ce_pairs_per_s"] = rate
    info["model"] = {"name": model_display_name(args.model), "revision": None, "type": "fine-tuned encoder",
                     "parameters": count_parameters(model)}
    return scores, info
