"""The WEC-Eng pairwise model (Eirew et al. 2021), on a frozen encoder.

Each mention is represented by g = [first sub-token vector, last sub-token vector, attention-weighted
sum of its sub-token vectors] from a frozen encoder (the attention scorer is learned); an MLP over
[g_i, g_j, g_i * g_j] scores a pair. Training: every coreferent pair of the training split plus k=10
sampled non-coreferent pairs per positive (WEC-Eng), or every pair inside each subtopic (ECB+, as the
WEC code does with ``--topic=subtopic``); binary cross-entropy, Accelerate loop. Clustering:
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
from figbench_baselines.cdec.steps.encoding import MentionTokens, length_sorted_batches, seed_everything

MAX_SPAN = 8
THRESHOLDS = tuple(round(x, 2) for x in np.arange(0.3, 0.96, 0.05))


@torch.no_grad()
def span_token_vectors(encoder, tokenizer, rows: Sequence[Mapping], *, batch_size: int = 64, max_length: int = 128,
                       context_words: int = 30,
                       desc: str = "encode spans (frozen)") -> tuple[np.ndarray, np.ndarray, float]:
    """Frozen sub-token vectors of each mention's span: (n, MAX_SPAN, H), mask (n, MAX_SPAN), mentions/s."""
    from tqdm.auto import tqdm

    device = "cuda" if torch.cuda.is_available() else "cpu"
    encoder = encoder.to(device).eval()
    h = encoder.config.hidden_size
    tokens = MentionTokens(tokenizer, rows, context_words=context_words)
    vecs = np.zeros((len(rows), MAX_SPAN, h), dtype=np.float32)
    mask = np.zeros((len(rows), MAX_SPAN), dtype=np.float32)
    t0 = time.perf_counter()
    with tqdm(total=len(rows), desc=desc, unit="mention", mininterval=2.0) as bar:
        for idx in length_sorted_batches([tokens.single_length(i, max_length) for i in range(len(rows))], batch_size):
            batch = tokens.collate_singles(idx.tolist(), max_length)
            out = encoder(input_ids=batch["input_ids"].to(device),
                          attention_mask=batch["attention_mask"].to(device)).last_hidden_state.float().cpu().numpy()
            for b, i in enumerate(idx):
                pos = np.flatnonzero(batch["span_mask"][b].numpy())[:MAX_SPAN]
                vecs[i, :len(pos)] = out[b, pos]
                mask[i, :len(pos)] = 1.0
            bar.update(len(idx))
    secs = time.perf_counter() - t0
    return vecs, mask, (len(rows) / secs if secs > 0 else 0.0)


def cached_span_vectors(encoder, tokenizer, rows: Sequence[Mapping], model_arg: str | None, *, enabled: bool = True,
                        **kw) -> tuple[np.ndarray, np.ndarray, float, bool]:
    """:func:`span_token_vectors` through the on-disk cache (frozen encoder: same inputs, same vectors)."""
    from figbench_baselines.cdec.steps.artifacts import cached_arrays, encoder_fingerprint, rows_fingerprint

    rate: dict[str, float] = {}

    def compute() -> dict[str, np.ndarray]:
        v, m, rate["r"] = span_token_vectors(encoder, tokenizer, rows, **kw)
        return {"vecs": v, "mask": m}

    key = {"encoder": encoder_fingerprint(model_arg), "rows": rows_fingerprint(rows, kw.get("context_words", 30)),
           "max_length": kw.get("max_length", 128), "max_span": MAX_SPAN}
    arrays, hit = cached_arrays("wec_spans", key, compute, enabled=enabled)
    return arrays["vecs"], arrays["mask"], rate.get("r", 0.0), hit


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
                   max_positive: int | None = None, negatives: str = "random",
                   within: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Coreferent pairs (capped at ``max_positive``) and non-coreferent pairs.

    ``negatives="random"``: ``k_neg`` random non-coreferent pairs per positive, drawn from the whole
    split (the WEC code's setting for WEC-Eng train, ``--ratio=10``). ``negatives="within"``: every
    non-coreferent pair inside each ``within`` group (the WEC code's setting for ECB+,
    ``--topic=subtopic``); positives are then also restricted to the groups.
    """
    rng = random.Random(seed)
    by_cluster: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(rows):
        by_cluster[str(r["cluster_id"])].append(i)
    cids = [str(r["cluster_id"]) for r in rows]
    if negatives == "within":
        from figbench_baselines.cdec.steps.filters import group_index

        pos, neg = [], []
        for idx in group_index(rows, within).values():
            for x, a in enumerate(idx):
                for b in idx[x + 1:]:
                    (pos if cids[a] == cids[b] else neg).append((a, b))
        if not pos:
            raise ValueError("WEC pairwise training: no coreferent pair in the training split")
        if max_positive and len(pos) > max_positive:
            pos = rng.sample(pos, max_positive)
            neg = rng.sample(neg, min(len(neg), k_neg * max_positive))
    elif negatives == "random":
        pos = [(a, b) for m in by_cluster.values() for x, a in enumerate(m) for b in m[x + 1:]]
        if not pos:
            raise ValueError("WEC pairwise training: no coreferent pair in the training split")
        if max_positive and len(pos) > max_positive:
            pos = rng.sample(pos, max_positive)
        neg = []
        for a, _ in pos:
            for _ in range(k_neg):
                for _try in range(20):
                    b = rng.randrange(len(rows))
                    if cids[b] != cids[a]:
                        neg.append((a, b))
                        break
    else:
        raise ValueError(f"unknown negative sampling {negatives!r}; choose 'within' or 'random'")
    pairs = np.array(pos + neg, dtype=np.int64).reshape(-1, 2)
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
    from figbench_baselines.cdec.steps.filters import group_index, knn_pairs

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


def _train_mlp(args, encoder, tokenizer, enc_kw: dict, model_arg) -> tuple[PairwiseMLP, dict]:
    """Train the pairwise MLP on the training split's frozen span vectors; returns (model, train info)."""
    from figbench_baselines.cdec.steps.data import training_rows
    from figbench_baselines.common.encoder import model_display_name
    from figbench_baselines.common.runs import train_config_from_args
    from figbench_baselines.common.training import make_accelerator, train, wall_time_s
    from torch.utils.data import DataLoader, TensorDataset

    t_start = time.perf_counter()
    train_rows, where = training_rows(args)
    tv, tm, rate, hit = cached_span_vectors(encoder, tokenizer, train_rows, model_arg, enabled=not args.no_cache,
                                            desc="encode training spans (frozen)", **enc_kw)
    negatives = args.wec_negatives or ("random" if args.dataset == "wec_eng" else "within")
    pairs, labels = training_pairs(train_rows, k_neg=10, seed=args.seed, negatives=negatives, within=args.within,
                                   max_positive=args.max_train_pairs or (500 if args.quick else None))
    seed_everything(args.seed)
    model = PairwiseMLP(encoder.config.hidden_size)
    v, m = torch.from_numpy(tv), torch.from_numpy(tm)
    ds = TensorDataset(torch.from_numpy(pairs), torch.from_numpy(labels).float())  # vectors gathered per batch
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
                  desc="WEC pairwise MLP training")
    info = {"model": model_display_name(model_arg), "model_arg": model_arg, "train_split": where,
            "train_mentions": len(train_rows), "n_training_pairs": int(len(pairs)),
            "n_training_positive": int(labels.sum()), "negatives": negatives, "within": args.within,
            "sample": {"description": _sample_description(negatives, labels, where, args)},
            "encoder_frozen": True, "max_length": enc_kw["max_length"], "context_words": enc_kw["context_words"],
            "seed": args.seed, "config": {k: val for k, val in cfg.to_dict().items() if k != "extra"},
            "train_stats": stats, "train_wall_time_s": wall_time_s(t_start, stats),
            "encode_mentions_per_s": rate, "train_vectors_from_cache": hit}
    if args.save_model:
        from figbench_baselines.cdec.steps.artifacts import save_component

        save_component(args.save_model, "wec_pairwise", getattr(model, "module", model).state_dict(), info)
    return model, info


def _sample_description(negatives: str, labels: np.ndarray, where: str, args) -> str:
    n_pos, n_neg = int(labels.sum()), int((labels == 0).sum())
    capped = bool(args.max_train_pairs or args.quick)
    if negatives == "within":
        scope = f"every pair inside each {args.within or 'split'} of {where}"
        return (f"{n_pos + n_neg:,} pairs ({n_pos:,} coreferent): " + (scope if not capped else f"a sample of {scope}"))
    return (f"{n_pos + n_neg:,} pairs: {'all' if not capped else 'a sample of'} {n_pos:,} coreferent pairs of {where} "
            "+ 10 random non-coreferent pairs per positive")


def run_wec_pairwise(rows: Sequence[Mapping], args: argparse.Namespace) -> tuple[np.ndarray, np.ndarray, dict]:
    """Train (or load) the pairwise MLP, tune the average-link threshold on the tuning split, score ``rows``' pairs."""
    from figbench_baselines.cdec.steps.artifacts import load_component
    from figbench_baselines.cdec.steps.clustering import average_link
    from figbench_baselines.cdec.steps.data import check_rows, load_mentions, sibling_data_dir
    from figbench_baselines.cdec.steps.evaluation import evaluate
    from figbench_baselines.cdec.steps.filters import group_labels
    from figbench_baselines.cdec.steps.pipeline_defaults import DEFAULT_WITHIN, setting
    from figbench_baselines.common.encoder import load_tokenizer_and_model, model_display_name
    from tqdm.auto import tqdm

    from figbench.loading import builder_configs

    seed_everything(args.seed)
    state = tinfo = None
    if args.load_model:
        state, tinfo = load_component(args.load_model, "wec_pairwise")
    model_arg = args.model if args.model is not None else (tinfo or {}).get("model_arg")
    if tinfo is not None and model_display_name(model_arg) != tinfo.get("model"):
        raise ValueError(f"{args.load_model} was trained on {tinfo.get('model')!r} vectors, not "
                         f"{model_display_name(model_arg)!r} (drop --model or pass the same one)")
    tokenizer, encoder = load_tokenizer_and_model(model_arg)
    enc_kw = dict(batch_size=args.encode_batch_size, max_length=setting(args, "max_length", tinfo),
                  context_words=setting(args, "context_words", tinfo))
    if state is not None:
        model = PairwiseMLP(encoder.config.hidden_size)
        model.load_state_dict(state)
        tinfo = {**tinfo, "loaded_from": str(args.load_model)}
    else:
        model, tinfo = _train_mlp(args, encoder, tokenizer, enc_kw, model_arg)

    # tune the stop threshold on the tuning split (its own dataset's grouping)
    tune_dataset = args.tune_dataset or args.dataset
    tune_config = args.tune_config or (args.config if tune_dataset == args.dataset
                                       else builder_configs(tune_dataset)[1])
    tune_within = args.within if tune_dataset == args.dataset else DEFAULT_WITHIN[tune_dataset]
    tune_rows = getattr(args, "tune_rows", None)
    if tune_rows is None and getattr(args, "tune_mentions_file", None):
        from figbench_baselines.cdec.steps.data import read_mentions_file

        tune_rows = read_mentions_file(args.tune_mentions_file)
    if tune_rows is None:
        tune_dir = args.data_dir if tune_dataset == args.dataset else sibling_data_dir(args.data_dir, tune_dataset)
        tune_rows = load_mentions(tune_dataset, tune_config, args.tune_split, tune_dir, args.mention_class)
    where_tune = f"{tune_dataset}/{tune_config}/{args.tune_split}"
    check_rows(tune_rows, where_tune, need_gold=True)
    uv, um, _, _ = cached_span_vectors(encoder, tokenizer, tune_rows, model_arg, enabled=not args.no_cache,
                                       desc="encode tuning spans (frozen)", **enc_kw)
    upairs = candidate_pairs(tune_rows, tune_within, uv)
    uscores = score(model, uv, um, upairs)
    ugroups = group_labels(tune_rows, tune_within)
    tune_scores = {}
    for t in tqdm(THRESHOLDS, desc=f"tune threshold on {where_tune}", unit="threshold"):
        labels = average_link(len(tune_rows), upairs, uscores, t, groups=ugroups)
        tune_scores[t] = evaluate(tune_rows, labels)["conll_f1"]
    best = max(THRESHOLDS, key=lambda t: tune_scores[t])

    xv, xm, rate_test, hit = cached_span_vectors(encoder, tokenizer, rows, model_arg, enabled=not args.no_cache,
                                                 **enc_kw)
    xpairs = candidate_pairs(rows, args.within, xv)
    t0 = time.perf_counter()
    xscores = score(model, xv, xm, xpairs)
    secs = time.perf_counter() - t0
    params = int(sum(p.numel() for p in model.parameters()) + sum(p.numel() for p in encoder.parameters()))
    info: dict[str, Any] = {
        "model": {"name": model_display_name(model_arg), "revision": None, "type": "fine-tuned encoder",
                  "parameters": params},
        "threshold": float(best), "training": tinfo,
        "wec_train_split": tinfo.get("train_split"), "wec_negatives": tinfo.get("negatives", "random"),
        "wec_tune_split": where_tune, "wec_tune_conll_f1": {str(t): round(v, 4) for t, v in tune_scores.items()},
        "encoder_frozen": True, "context_words": enc_kw["context_words"], "max_length": enc_kw["max_length"],
        "vectors_from_cache": hit,
        "throughput": {"pairs_per_s": len(xpairs) / secs if secs > 0 else 0.0},
    }
    if rate_test:
        info["throughput"]["encode_mentions_per_s"] = rate_test
    if tinfo.get("train_stats", {}).get("train_examples_per_s") and "loaded_from" not in tinfo:
        info["throughput"]["train_pairs_per_s"] = tinfo["train_stats"]["train_examples_per_s"]
    return xpairs, xscores, info
