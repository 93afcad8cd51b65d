"""Helpers shared by the figurative-language baselines (Meta4XNLI, WiMCor, ePiC).

Sentence/word embeddings from any HF encoder (mean pooling), label-set checks, fine-tuning and
prediction loops for sequence and token classification built on
:mod:`figbench_baselines.common.training`. Scoring is the tasks' (:mod:`figbench_baselines.common.scoring`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

IGNORE_INDEX = -100


# ------------------------------------------------------------------ small utilities

def set_threads() -> None:
    """Use at most 2 CPU threads for torch on CPU (the machines are shared)."""
    import os

    import torch

    if not torch.cuda.is_available():
        torch.set_num_threads(max(1, min(2, int(os.environ.get("OMP_NUM_THREADS", "2")))))


def subsample(rows: Sequence, n: int | None, seed: int) -> list:
    """A seeded random subset of ``n`` rows in their original order (all rows when ``n`` is None)."""
    from figbench_baselines.common.splits import sample_indices

    rows = list(rows)
    return [rows[i] for i in sample_indices(len(rows), n, seed)]


def require_rows(rows: Sequence, what: str) -> None:
    """Raise a clear error for an empty split."""
    if len(rows) == 0:
        raise ValueError(f"{what}: the split is empty; nothing to train on or score")


def check_label_sets(train_labels: Sequence[str], test_labels: Sequence[str], *, where: str) -> list[str]:
    """The sorted label set of training (a trained model's output labels); raise if the test split has
    labels training never saw. Scores use the task's declared label set, not this one."""
    train_set, test_set = set(train_labels), set(test_labels)
    unseen = sorted(test_set - train_set)
    if unseen:
        raise ValueError(f"{where}: mismatched label sets: test labels {unseen} never occur in training "
                         f"(training labels: {sorted(train_set)})")
    return sorted(train_set)


def rate(n: float, seconds: float) -> float:
    return float(n) / seconds if seconds > 0 else 0.0


def model_record(name: str, *, type: str, parameters: int | None = None, revision: str | None = None,
                 **extra: Any) -> dict[str, Any]:
    """The ``model`` block of a result record."""
    out = {"name": name, "revision": revision, "type": type, "parameters": parameters}
    out.update(extra)
    return out


def n_parameters(model) -> int:
    return int(sum(p.numel() for p in model.parameters()))


# ------------------------------------------------------------------ embeddings

def _device():
    import torch

    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def load_encoder(name: str | None):
    """(tokenizer, model) of an encoder in eval mode, on GPU when there is one."""
    from figbench_baselines.common.encoder import load_tokenizer_and_model

    set_threads()
    tok, model = load_tokenizer_and_model(name)
    model.eval().to(_device())
    return tok, model


def embed_texts(texts: Sequence[str], tokenizer, model, *, batch_size: int = 32, max_length: int = 256,
                normalize: bool = True, desc: str = "embed", cache: bool = True) -> tuple[np.ndarray, dict[str, float]]:
    """Mean-pooled (optionally L2-normalised) embeddings; returns (array, throughput stats).

    Frozen-encoder outputs are cached on disk (see :func:`embedding_cache_path`), one process computing an
    entry while others asking for it wait; a cache hit reports the throughput measured when it was computed.
    """
    cache = embedding_cache_path(model, texts, max_length=max_length, normalize=normalize) if cache else None
    if cache is None:
        return _embed(texts, tokenizer, model, batch_size=batch_size, max_length=max_length, normalize=normalize,
                      desc=desc)
    from filelock import FileLock

    cache.parent.mkdir(parents=True, exist_ok=True)
    # one process computes an entry; others asking for the same texts at the same time wait and read it
    with FileLock(str(cache.with_suffix(".lock"))):
        if cache.is_file():
            with np.load(cache) as z:
                return z["emb"], {"embed_examples_per_s": float(z["rate"]), "embed_seconds": float(z["seconds"]),
                                  "embed_cached": 1.0}
        arr, stats = _embed(texts, tokenizer, model, batch_size=batch_size, max_length=max_length,
                            normalize=normalize, desc=desc)
        tmp = cache.with_suffix(".tmp.npz")
        np.savez(tmp, emb=arr, rate=stats["embed_examples_per_s"], seconds=stats["embed_seconds"])
        tmp.replace(cache)
    return arr, stats


def _embed(texts: Sequence[str], tokenizer, model, *, batch_size: int, max_length: int, normalize: bool,
           desc: str) -> tuple[np.ndarray, dict[str, float]]:
    """Mean-pooled embeddings of ``texts`` in length-sorted batches (no cache)."""
    import torch
    from figbench_baselines.common.early_stopping import progress

    out, t0 = [], time.perf_counter()
    order = np.argsort([-len(t) for t in texts], kind="stable")  # length-sorted batches
    with torch.inference_mode():
        for i in progress(range(0, len(texts), batch_size), desc=desc, leave=False):
            idx = order[i:i + batch_size]
            enc = tokenizer([texts[j] for j in idx], padding=True, truncation=True, max_length=max_length,
                            return_tensors="pt").to(model.device)
            hidden = model(**enc).last_hidden_state
            mask = enc["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            emb = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            if normalize:
                emb = torch.nn.functional.normalize(emb, dim=-1)
            out.append((idx, emb.float().cpu().numpy()))
    dim = model.config.hidden_size
    arr = np.zeros((len(texts), dim), dtype=np.float32)
    for idx, emb in out:
        arr[idx] = emb
    seconds = time.perf_counter() - t0
    return arr, {"embed_examples_per_s": rate(len(texts), seconds), "embed_seconds": seconds}


def embedding_cache_path(model, texts: Sequence[str], *, max_length: int, normalize: bool):
    """Cache file for frozen embeddings of ``texts``: ``$FIGBENCH_CACHE`` (default
    ``~/.cache/figbench``)/embeddings/<sha256 of model path, settings, texts>.npz; None when disabled
    (``FIGBENCH_CACHE=off``) or for a model in training mode."""
    import hashlib
    import os
    from pathlib import Path

    root = os.environ.get("FIGBENCH_CACHE", str(Path.home() / ".cache" / "figbench"))
    name = getattr(model, "name_or_path", "") or ""
    if (root.lower() == "off" or model.training or getattr(model, "_figbench_finetuned", False)
            or not name or not os.path.isdir(name)):
        return None  # only local, unmodified checkpoints: a fine-tuned in-memory model is never cached
    h = hashlib.sha256()
    for part in (os.path.abspath(name), str(max_length), str(normalize), str(len(texts))):
        h.update(part.encode() + b"\0")
    for t in texts:
        h.update(t.encode("utf-8") + b"\0")
    return Path(root) / "embeddings" / f"{h.hexdigest()}.npz"


# ------------------------------------------------------------------ fine-tuning loops

def make_loader(features: list[dict], batch_size: int, collate, shuffle: bool, seed: int):
    """A DataLoader over in-memory features with a seeded shuffle."""
    import torch
    from torch.utils.data import DataLoader

    g = torch.Generator()
    g.manual_seed(seed)
    return DataLoader(features, batch_size=batch_size, shuffle=shuffle, collate_fn=collate, generator=g)


def _loss_from_outputs(model, batch):
    return model(**batch).loss


def finetune(model, features: list[dict], collate, cfg, *, desc: str, evaluate=None, early=None,
             loss_fn=None, lengths=None) -> tuple[Any, dict[str, Any]]:
    """Train ``model`` (an HF model returning ``.loss``, or any model with ``loss_fn``) on pre-tokenised
    ``features`` with :func:`figbench_baselines.common.early_stopping.fit`: Accelerate, length-grouped
    dynamic padding, progress with ETA, checkpoints/resume, and early stopping on a validation score
    when ``early`` (an :class:`~figbench_baselines.common.early_stopping.EarlyStopping`) and
    ``evaluate(model) -> {metric: value}`` are given."""
    from figbench_baselines.common.early_stopping import fit

    set_threads()
    return fit(model, features, collate, cfg, loss_fn=loss_fn, evaluate=evaluate, early=early, lengths=lengths,
               desc=desc)


def predict_logits(model, features: list[dict], collate, *, batch_size: int = 64, desc: str = "predict",
                   keys: Sequence[str] = ("logits",)) -> tuple[list[np.ndarray], dict[str, float]]:
    """Run ``model`` over ``features``; returns one array per key per example (in the order of
    ``features``) and throughput. Batches are formed from length-sorted features (dynamic padding: each
    batch pads to its own longest example); a progress bar shows the ETA."""
    import torch
    from figbench_baselines.common.early_stopping import feature_lengths, progress

    model.eval()
    device = next(model.parameters()).device
    lengths = feature_lengths(features)
    order = (np.argsort([-n for n in lengths], kind="stable") if lengths is not None
             else np.arange(len(features)))
    outs: list = [None] * len(features)
    t0 = time.perf_counter()
    with torch.inference_mode():
        for i in progress(range(0, len(features), batch_size), desc=desc, leave=False):
            idx = order[i:i + batch_size]
            batch = collate([features[j] for j in idx])
            batch.pop("labels", None)
            batch = {k: v.to(device) for k, v in batch.items() if hasattr(v, "to")}
            res = model(**batch)
            arrays = [getattr(res, k).float().cpu().numpy() for k in keys]
            for pos, j in enumerate(idx):
                if lengths is not None and arrays[0].ndim == 3:  # per-token outputs: drop this batch's padding
                    n = lengths[j]
                    outs[j] = tuple(a[pos, :n] for a in arrays) if len(keys) > 1 else arrays[0][pos, :n]
                else:
                    outs[j] = tuple(a[pos] for a in arrays) if len(keys) > 1 else arrays[0][pos]
    seconds = time.perf_counter() - t0
    return outs, {"inference_examples_per_s": rate(len(features), seconds), "inference_seconds": seconds}


def pad_collate(tokenizer, label_pad: int = IGNORE_INDEX):
    """Collate dicts of token-id lists into padded tensors; ``labels`` of lists are padded with -100."""
    import torch

    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0

    def collate(items: list[dict]) -> dict:
        width = max(len(it["input_ids"]) for it in items)
        batch: dict[str, Any] = {}
        for key in items[0]:
            vals = [it[key] for it in items]
            if isinstance(vals[0], (list, tuple)):
                fill = pad_id if key == "input_ids" else (label_pad if key == "labels" else 0)
                batch[key] = torch.tensor([list(v) + [fill] * (width - len(v)) for v in vals])
            else:
                batch[key] = torch.tensor(vals)
        return batch

    return collate


# ------------------------------------------------------------------ token classification

def word_label_features(tokenizer, words: Sequence[Sequence[str]], labels: Sequence[Sequence[int]] | None, *,
                        max_length: int = 128) -> tuple[list[dict], list[list[int]]]:
    """Tokenise pre-split words; label only the first sub-token of each word (others -100).

    Returns features and, per example, the word index of every labelled position (to map predictions
    back; words cut off by ``max_length`` have no position and are predicted as the ``O`` label).
    """
    enc = tokenizer([list(w) for w in words], is_split_into_words=True, truncation=True, max_length=max_length)
    feats, word_pos = [], []
    for i in range(len(words)):
        wids = enc.word_ids(i)
        lab, positions, prev = [], [], None
        for _k, w in enumerate(wids):
            if w is None or w == prev:
                lab.append(IGNORE_INDEX)
            else:
                lab.append(labels[i][w] if labels is not None else 0)
                positions.append(w)
            prev = w
        item = {"input_ids": enc["input_ids"][i], "attention_mask": enc["attention_mask"][i]}
        if "token_type_ids" in enc:
            item["token_type_ids"] = enc["token_type_ids"][i]
        item["labels"] = lab
        feats.append(item)
        word_pos.append(positions)
    return feats, word_pos


def word_predictions(logits: list[np.ndarray], feats: list[dict], word_pos: list[list[int]],
                     n_words: Sequence[int], id2label: Mapping[int, str], outside: str = "O") -> list[list[str]]:
    """Map first-sub-token logits back to one label per word (truncated words get ``outside``)."""
    out = []
    for lg, ft, pos, n in zip(logits, feats, word_pos, n_words):
        tags = [outside] * n
        first = [k for k, lab in enumerate(ft["labels"]) if lab != IGNORE_INDEX]
        for k, w in zip(first, pos):
            tags[w] = id2label[int(np.argmax(lg[k]))]
        out.append(tags)
    return out


def write_predictions(path: str | None, predictions: Any) -> str | None:
    """Write predictions as JSON to ``path`` (for ``--predictions-file``); returns the path or None."""
    if not path:
        return None
    import json
    from pathlib import Path

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(predictions, ensure_ascii=False, indent=1), encoding="utf-8")
    return str(path)


def skip_summary(skipped: Sequence[str], limit: int = 3) -> dict[str, str] | None:
    """A run-summary line reporting skipped records (count and the first reasons)."""
    if not skipped:
        return None
    return {f"skipped {len(skipped)} record(s)": "; ".join(skipped[:limit])}


def is_main_process() -> bool:
    """False on the non-main ranks of ``accelerate launch`` (they evaluate too but write nothing)."""
    import os

    return int(os.environ.get("RANK", os.environ.get("LOCAL_RANK", "0")) or 0) == 0


# ------------------------------------------------------------------ trained runs: early stopping, saved models

def early_stopping_from_args(args, metric: str, split: str):
    """An :class:`~figbench_baselines.common.early_stopping.EarlyStopping` when ``--patience`` is given."""
    from figbench_baselines.common.early_stopping import EarlyStopping

    if getattr(args, "patience", None) is None:
        if getattr(args, "max_epochs", None) is not None:
            raise ValueError("--max-epochs applies with early stopping (--patience N)")
        return None
    if args.patience < 1:
        raise ValueError(f"--patience must be >= 1, got {args.patience}")
    return EarlyStopping(metric=metric, patience=args.patience, max_epochs=args.max_epochs or 10,
                         min_delta=args.min_delta, split=split)


def training_summary(stats: Mapping[str, Any], cfg, *, n_train: int, unit: str, extra: Mapping[str, Any] | None = None
                     ) -> dict[str, Any]:
    """What a record says about its training: settings, examples, epochs, early stopping, time, hardware.

    ``epochs`` is the cap that governed the run (early stopping's ``max_epochs``, else ``cfg.epochs``) and
    ``epochs_run`` the epochs it ran; ``train_seconds`` sums every process of a resumed run (``resumed``
    counts the resumes; ``train_seconds_last_process`` is the last one's share)."""
    from figbench.results import hardware

    out: dict[str, Any] = {
        f"n_train_{unit}": int(n_train), "epochs": stats.get("epochs_planned", cfg.epochs),
        "batch_size": cfg.batch_size, "lr": cfg.lr,
        "weight_decay": cfg.weight_decay, "warmup_ratio": cfg.warmup_ratio, "grad_accum": cfg.grad_accum,
        "mixed_precision": cfg.mixed_precision, "max_steps": cfg.max_steps, "seed": cfg.seed,
        "train_steps": int(stats.get("train_steps", 0)), "epochs_run": stats.get("epochs_run"),
        "train_seconds": round(float(stats.get("train_seconds_all_sessions", stats.get("train_seconds", 0.0))), 3),
        "train_seconds_last_process": round(float(stats.get("train_seconds", 0.0)), 3),
        "resumed": int(stats.get("resumed", 0)),
        "train_examples_per_s": round(float(stats.get("train_examples_per_s", 0.0)), 2),
        "group_by_length": stats.get("group_by_length"), "hardware": hardware(),
    }
    for key in ("early_stopping", "best_epoch", "best_score", "stopped_early", "history"):
        if key in stats:
            out[key] = stats[key]
    out.update(extra or {})
    return out


def seed_everything(seed: int) -> None:
    """Seed Python, NumPy and torch before a model is built (its new head's initial weights)."""
    from accelerate.utils import set_seed

    set_seed(seed)
