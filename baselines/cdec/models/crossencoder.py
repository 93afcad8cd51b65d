"""Pairwise cross-encoder (CE_LH / CE_KNN, Ahmed et al. 2023; the ECB+META paper).

Both marked mention contexts go into one input; the trigger vectors v_a, v_b (means of their
sub-token vectors) and v_a * v_b feed a small classifier trained with binary cross-entropy on the
candidate pairs (LH or KNN) of the training split. As in the reference code (``lemma_ce_coref``),
``--pair-order both`` averages the probabilities of the two input orders (a, b) and (b, a) in
training and scoring; ``--pair-order random`` (half the cost) shows each training pair in one seeded
random order and scores one order. Training uses the shared Accelerate loop, so the same command runs
on one CPU and under ``accelerate launch`` on GPUs. Mentions are tokenised once; batches group inputs
of similar length and are padded per batch.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import torch
from figbench_baselines.cdec.steps.encoding import (
    MentionTokens,
    add_markers,
    count_parameters,
    length_sorted_batches,
    seed_everything,
    span_mean,
)

PAIR_ORDERS = ("both", "random")


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


def _logits(model, batch: Mapping[str, torch.Tensor], key: str) -> torch.Tensor:
    b = batch[key]
    return model(b["input_ids"], b["attention_mask"], b["span_a"], b["span_b"])


def train_crossencoder(model: CrossEncoder, tokenizer, rows: Sequence[Mapping], pairs: np.ndarray,
                       labels: np.ndarray, cfg, *, max_length: int = 256, context_words: int = 30,
                       pair_order: str = "both", pos_weight: bool = False,
                       tokens: MentionTokens | None = None) -> dict:
    """Binary cross-entropy training on labelled pairs of ``rows``; returns training statistics."""
    from figbench_baselines.common.training import grouped_loader, make_accelerator, train

    if len(pairs) == 0:
        raise ValueError("cross-encoder training: the training split produced no candidate pairs")
    if labels.min() == labels.max():
        raise ValueError("cross-encoder training: all training pairs have the same label "
                         f"({int(labels[0])}); need coreferent and non-coreferent pairs")
    if pair_order not in PAIR_ORDERS:
        raise ValueError(f"pair order must be one of {PAIR_ORDERS}, got {pair_order!r}")
    tokens = tokens or MentionTokens(tokenizer, rows, context_words=context_words)
    pairs = np.asarray(pairs, dtype=np.int64).copy()
    if pair_order == "random":  # one seeded random order per pair, fixed for the whole run
        flip = np.random.default_rng([cfg.seed, 1]).random(len(pairs)) < 0.5
        pairs[flip] = pairs[flip][:, ::-1]
    y_all = torch.tensor(labels, dtype=torch.float32)
    w_pos = float((labels == 0).sum()) / max(1.0, float(labels.sum())) if pos_weight else 1.0
    lengths = [tokens.pair_length(a, b, max_length) for a, b in pairs.tolist()]

    def collate(idx: list[int]) -> dict:
        chosen = pairs[idx].tolist()
        batch = {"ab": tokens.collate_pairs(chosen, max_length), "labels": y_all[idx]}
        if pair_order == "both":
            batch["ba"] = tokens.collate_pairs([(b, a) for a, b in chosen], max_length)
        return batch

    loader = grouped_loader(len(pairs), lengths, cfg.batch_size, collate, seed=cfg.seed)

    def loss_fn(m, batch):
        y = batch["labels"]
        weight = torch.where(y > 0.5, torch.full_like(y, w_pos), torch.ones_like(y))
        if pair_order == "both":  # the reference code: BCE on the mean probability of both orders
            p = (torch.sigmoid(_logits(m, batch, "ab").float()) + torch.sigmoid(_logits(m, batch, "ba").float())) / 2
            return torch.nn.functional.binary_cross_entropy(p.clamp(1e-7, 1 - 1e-7), y, weight=weight)
        logits = _logits(m, batch, "ab").float()
        return torch.nn.functional.binary_cross_entropy_with_logits(logits, y, weight=weight)

    accelerator = make_accelerator(cfg)
    return train(model, loader, loss_fn, cfg, accelerator, batch_size_of=lambda b: len(b["labels"]),
                 desc="cross-encoder training")


@torch.no_grad()
def score_pairs(model: CrossEncoder, tokens: MentionTokens, pairs: np.ndarray, *, batch_size: int = 32,
                max_length: int = 256, pair_order: str = "both",
                desc: str = "cross-encoder scoring") -> tuple[np.ndarray, float]:
    """Coreference probabilities of ``pairs`` (mean over both input orders with ``pair_order="both"``) and pairs/s."""
    from tqdm.auto import tqdm

    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = getattr(model, "module", model).to(device).eval()
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    orders = [(0, 1), (1, 0)] if pair_order == "both" else [(0, 1)]
    probs = np.zeros(len(pairs), dtype=np.float64)
    batches = length_sorted_batches([tokens.pair_length(a, b, max_length) for a, b in pairs.tolist()], batch_size)
    t0 = time.perf_counter()
    with tqdm(total=len(pairs) * len(orders), desc=desc, unit="pair", mininterval=2.0) as bar:
        for x, y in orders:
            for idx in batches:
                chunk = pairs[idx]
                enc = tokens.collate_pairs(list(zip(chunk[:, x].tolist(), chunk[:, y].tolist())), max_length)
                enc = {k: v.to(device) for k, v in enc.items()}
                logits = model(enc["input_ids"], enc["attention_mask"], enc["span_a"], enc["span_b"])
                probs[idx] += torch.sigmoid(logits.float()).cpu().numpy() / len(orders)
                bar.update(len(idx))
    secs = time.perf_counter() - t0
    return probs, (len(pairs) / secs if secs > 0 else 0.0)


def _sample_training_pairs(rows, pairs: np.ndarray, labels: np.ndarray, args) -> tuple[np.ndarray, np.ndarray, dict]:
    """The training pairs actually used: all, the quick balanced cap, or a stated stratified sample."""
    from figbench_baselines.cdec.steps.sampling import describe, stratified_sample

    cap = args.max_train_pairs or (256 if args.quick else None)
    if cap and len(pairs) > cap and args.train_sample is None:
        rng = np.random.default_rng(args.seed)
        pos, neg = np.flatnonzero(labels == 1), np.flatnonzero(labels == 0)
        n_pos = min(cap // 2, len(pos))
        keep = np.sort(np.concatenate([rng.choice(pos, n_pos, replace=False),
                                       rng.choice(neg, min(cap - n_pos, len(neg)), replace=False)]))
        info = {"population_pairs": int(len(pairs)), "pairs": int(len(keep)), "positive": int(labels[keep].sum()),
                "allocation": "quick: balanced random cap", "seed": int(args.seed), "all_pairs": False}
        desc = f"{len(keep):,} pairs: quick balanced cap of {len(pairs):,}"
        return pairs[keep], labels[keep], {**info, "description": desc}
    keep, info = stratified_sample(rows, pairs, labels, args.train_sample, fraction=args.train_fraction,
                                   seed=args.seed)
    info["description"] = describe(info, "candidate pairs")
    return pairs[keep], labels[keep], info


def train_from_args(args: argparse.Namespace,
                    candidate_fn: Callable[[list[dict]], np.ndarray]) -> tuple[Any, CrossEncoder, dict]:
    """Train a cross-encoder on the training split's candidate pairs as the CLI options say; save it if asked."""
    from figbench_baselines.cdec.steps.artifacts import save_component
    from figbench_baselines.cdec.steps.data import training_rows
    from figbench_baselines.cdec.steps.filters import gold_pair_labels
    from figbench_baselines.cdec.steps.pipeline_defaults import setting
    from figbench_baselines.common.encoder import model_display_name
    from figbench_baselines.common.runs import train_config_from_args
    from figbench_baselines.common.training import wall_time_s

    t_start = time.perf_counter()
    max_length, context_words, order = (setting(args, k) for k in ("max_length", "context_words", "pair_order"))
    seed_everything(args.seed)
    tokenizer, model = load_crossencoder(args.model)
    train_rows, where = training_rows(args)
    all_pairs = candidate_fn(train_rows)
    all_labels = gold_pair_labels(train_rows, all_pairs)
    train_pairs, labels, sample = _sample_training_pairs(train_rows, all_pairs, all_labels, args)
    cfg = train_config_from_args(args, epochs=2.0, batch_size=16, lr=1e-5, warmup_ratio=0.1)
    cfg.param_lrs = {"head.": args.head_lr}
    if args.quick and args.max_steps is None:
        cfg.max_steps = 8
    tokens = MentionTokens(tokenizer, train_rows, context_words=context_words, desc="tokenise training mentions")
    stats = train_crossencoder(model, tokenizer, train_rows, train_pairs, labels, cfg, max_length=max_length,
                               context_words=context_words, pair_order=order,
                               pos_weight=args.pos_weight == "balanced", tokens=tokens)
    info = {
        "model": model_display_name(args.model), "model_arg": args.model, "method": args.method,
        "train_split": where, "train_mentions": len(train_rows),
        "n_training_pairs": int(len(train_pairs)), "n_training_positive": int(labels.sum()),
        "candidate_pairs_in_train_split": int(len(all_pairs)), "sample": sample,
        "pair_order": order, "pos_weight": args.pos_weight, "max_length": max_length,
        "context_words": context_words, "head_lr": args.head_lr,
        "filter": _filter_settings(args), "seed": args.seed,
        "config": {k: v for k, v in cfg.to_dict().items() if k != "extra"},
        "train_stats": stats, "train_wall_time_s": wall_time_s(t_start, stats),
    }
    if args.save_model:
        save_component(args.save_model, "crossencoder", getattr(model, "module", model).state_dict(), info)
    return tokenizer, model, info


def _filter_settings(args) -> dict:
    from figbench_baselines.cdec.steps.pipeline_defaults import method

    if method(args.method).candidates == "lh":
        return {"filter": "lh", "lh_threshold": args.lh_threshold, "within": args.within,
                "skip_same_sentence": not args.keep_same_sentence}
    return {"filter": "knn", "k": args.k, "knn_within": args.knn_within, "biencoder": args.biencoder,
            "biencoder_trained": not args.no_train_biencoder}


def run_crossencoder(rows: Sequence[Mapping], pairs: np.ndarray, args: argparse.Namespace,
                     candidate_fn: Callable[[list[dict]], np.ndarray]) -> tuple[np.ndarray, dict]:
    """Train (or load) the cross-encoder, then score ``pairs`` of ``rows``."""
    from figbench_baselines.cdec.steps.artifacts import load_component
    from figbench_baselines.cdec.steps.pipeline_defaults import setting
    from figbench_baselines.common.encoder import model_display_name

    if args.load_model:
        state, tinfo = load_component(args.load_model, "crossencoder")
        model_arg = args.model if args.model is not None else tinfo.get("model_arg")
        if model_display_name(model_arg) != tinfo.get("model"):
            raise ValueError(f"{args.load_model} holds a cross-encoder on {tinfo.get('model')!r}, "
                             f"not on {model_display_name(model_arg)!r} (drop --model or pass the same one)")
        seed_everything(args.seed)
        tokenizer, model = load_crossencoder(model_arg)
        model.load_state_dict(state)
        tinfo = {**tinfo, "loaded_from": str(args.load_model)}
    else:
        tokenizer, model, tinfo = train_from_args(args, candidate_fn)
        model_arg = args.model
    # score with the settings the model was trained with unless the command line says otherwise
    max_length, context_words, order = (setting(args, k, tinfo) for k in ("max_length", "context_words", "pair_order"))
    tokens = MentionTokens(tokenizer, rows, context_words=context_words, desc="tokenise mentions")
    scores, rate = score_pairs(model, tokens, pairs, batch_size=args.encode_batch_size,
                               max_length=max_length, pair_order=order)
    info: dict[str, Any] = {
        "throughput": {"ce_pairs_per_s": rate},
        "training": tinfo,
        "ce_pair_order": order, "ce_max_length": max_length, "context_words": context_words,
        "model": {"name": model_display_name(model_arg), "revision": None, "type": "fine-tuned encoder",
                  "parameters": count_parameters(model)},
    }
    if "train_stats" in tinfo and tinfo["train_stats"].get("train_examples_per_s"):
        info["throughput"]["ce_train_pairs_per_s"] = tinfo["train_stats"]["train_examples_per_s"]
    return scores, info
