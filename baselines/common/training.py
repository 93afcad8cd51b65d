"""Training loop shared by every trained baseline, driven by Hugging Face Accelerate.

The same code runs on one CPU (``figbench baseline ...``) and on several GPUs
(``accelerate launch -m figbench.cli baseline ...``): Accelerate picks the device(s), mixed
precision and gradient accumulation; checkpoints are Accelerate states, resumable mid-epoch and crash-safe
(:mod:`figbench_baselines.common.checkpoints`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch
from figbench_baselines.common import checkpoints


@dataclass
class TrainConfig:
    """Optimisation settings; paper settings are the defaults of each baseline's own config."""

    epochs: float = 1.0
    batch_size: int = 8
    lr: float = 5e-5
    weight_decay: float = 0.0
    warmup_ratio: float = 0.0
    grad_accum: int = 1
    max_grad_norm: float | None = 1.0
    mixed_precision: str = "no"  # "no" | "fp16" | "bf16"
    seed: int = 0
    max_steps: int | None = None  # optimiser steps; caps epochs (quick configurations)
    checkpoint_dir: str | None = None
    checkpoint_every: int = 0  # optimiser steps between checkpoints; 0 = end of each epoch only
    resume: bool = False
    #: learning rate per parameter-name prefix (e.g. {"head.": 1e-3} for a freshly initialised head)
    param_lrs: dict[str, float] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def make_accelerator(cfg: TrainConfig):
    """An Accelerator configured from ``cfg`` with all RNGs seeded."""
    from accelerate import Accelerator
    from accelerate.utils import set_seed

    accelerator = Accelerator(mixed_precision=cfg.mixed_precision,
                              gradient_accumulation_steps=cfg.grad_accum)
    set_seed(cfg.seed)
    return accelerator


class LengthGroupedBatchSampler(torch.utils.data.Sampler):
    """Shuffled batches of similar-length examples (less padding), in an order fixed by (seed, epoch).

    Each epoch: a seeded permutation, cut into windows of ``window`` batches, each window sorted by
    length and cut into batches, then the batches shuffled. The order depends only on the seed and
    the epoch (set by the training loop with :meth:`set_epoch_order`), so a resumed run sees exactly
    the batches the interrupted one would have seen. (Named so that Accelerate's own ``set_epoch``
    calls, which count iterations of a loader rather than epochs, leave it alone.)
    """

    def __init__(self, lengths, batch_size: int, *, seed: int = 0, window: int = 50, shuffle: bool = True):
        super().__init__()
        self.lengths = [int(x) for x in lengths]
        self.batch_size = int(batch_size)
        self.seed, self.window, self.shuffle = int(seed), int(window), shuffle
        self.epoch = 0

    def set_epoch_order(self, epoch: int) -> None:
        self.epoch = int(epoch)

    def batches(self) -> list[list[int]]:
        import numpy as np

        n = len(self.lengths)
        rng = np.random.default_rng([self.seed, self.epoch])
        order = rng.permutation(n) if self.shuffle else np.arange(n)
        lengths = np.asarray(self.lengths)
        out: list[list[int]] = []
        span = self.batch_size * max(1, self.window)
        for s in range(0, n, span):
            chunk = order[s:s + span]
            chunk = chunk[np.argsort(-lengths[chunk], kind="stable")]
            out.extend(chunk[k:k + self.batch_size].tolist() for k in range(0, len(chunk), self.batch_size))
        if self.shuffle:
            out = [out[k] for k in rng.permutation(len(out))]
        return out

    def __iter__(self):
        return iter(self.batches())

    def __len__(self) -> int:
        return (len(self.lengths) + self.batch_size - 1) // self.batch_size


def grouped_loader(n: int, lengths, batch_size: int, collate_fn, *, seed: int = 0):
    """A DataLoader over ``range(n)`` with length-grouped batches and its own seeded generator.

    The generator matters for exact resumes: without one, creating the loader's iterator draws from
    the global torch RNG, so a resumed run's dropout masks would be shifted by one draw.
    """
    from torch.utils.data import DataLoader

    sampler = LengthGroupedBatchSampler(lengths, batch_size, seed=seed)
    return DataLoader(list(range(n)), batch_sampler=sampler, collate_fn=collate_fn,
                      generator=torch.Generator().manual_seed(seed))


def _set_epoch_order(loader, epoch: int) -> None:
    """Tell a :class:`LengthGroupedBatchSampler` (however wrapped) which epoch's order to produce."""
    seen = set()
    stack = [loader]
    while stack:
        obj = stack.pop()
        if obj is None or id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, LengthGroupedBatchSampler):
            obj.set_epoch_order(epoch)
            return
        stack.extend(getattr(obj, name, None) for name in ("batch_sampler", "sampler", "base_dataloader"))


#: parameters trained without weight decay (biases and normalisation weights), as BERT-style recipes do
NO_DECAY = ("bias", "LayerNorm.weight", "layer_norm.weight", "norm.weight")


def param_groups(model: torch.nn.Module, cfg: TrainConfig) -> list[dict[str, Any]]:
    """AdamW parameter groups: no weight decay on biases and norms; ``cfg.param_lrs`` by name prefix."""
    groups: dict[tuple[float, float], list] = {}
    for n, p in model.named_parameters():
        if not p.requires_grad:
            continue
        lr = next((v for k, v in cfg.param_lrs.items() if n.startswith(k)), cfg.lr)
        wd = 0.0 if n.endswith(NO_DECAY) else cfg.weight_decay
        groups.setdefault((lr, wd), []).append(p)
    return [{"params": ps, "lr": lr, "weight_decay": wd} for (lr, wd), ps in groups.items()]


def optimizer_step(accelerator, model, loss_fn, batch, optimizer, scheduler, max_grad_norm: float | None):
    """One (accumulated) step: loss, backward, gradient clipping when the gradients sync, optimizer and
    schedule; returns the loss."""
    with accelerator.accumulate(model):
        loss = loss_fn(model, batch)
        accelerator.backward(loss)
        if accelerator.sync_gradients and max_grad_norm:
            accelerator.clip_grad_norm_(model.parameters(), max_grad_norm)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
    return loss


def train(
    model: torch.nn.Module,
    train_loader: Iterable,
    loss_fn: Callable[[torch.nn.Module, Mapping[str, Any]], torch.Tensor],
    cfg: TrainConfig,
    accelerator=None,
    *,
    batch_size_of: Callable[[Mapping[str, Any]], int] | None = None,
    on_epoch_end: Callable[[int], None] | None = None,
    desc: str = "train",
) -> dict[str, float]:
    """Train ``model`` with AdamW + linear warm-up/decay; returns loss and throughput figures.

    ``loss_fn(model, batch)`` returns a scalar loss. Checkpoints (model, optimiser, scheduler, RNG,
    position in the epoch) go to ``cfg.checkpoint_dir``; with ``cfg.resume`` the loop continues from
    the last one, skipping the batches already seen. A resumed run equals an uninterrupted one when
    the loader has its own generator and a fixed batch order per epoch (:func:`grouped_loader`).
    The checkpoints carry the training seconds of every process up to its last save: the stats give this
    process's (``train_seconds``), the earlier processes' (``train_seconds_earlier_processes``), their sum
    (``train_seconds_all_sessions``) and how many times the run was resumed (``resumed``).
    """
    from accelerate.utils import set_seed
    from tqdm.auto import tqdm
    from transformers import get_linear_schedule_with_warmup

    accelerator = accelerator or make_accelerator(cfg)
    set_seed(cfg.seed)
    optimizer = torch.optim.AdamW(param_groups(model, cfg), lr=cfg.lr)
    model, optimizer, train_loader = accelerator.prepare(model, optimizer, train_loader)
    steps_per_epoch = max(1, math.ceil(len(train_loader) / cfg.grad_accum))
    total_steps = max(1, math.ceil(steps_per_epoch * cfg.epochs))
    if cfg.max_steps is not None:
        total_steps = min(total_steps, cfg.max_steps)
    scheduler = get_linear_schedule_with_warmup(optimizer, int(cfg.warmup_ratio * total_steps), total_steps)
    scheduler = accelerator.prepare(scheduler)

    ckpt = Path(cfg.checkpoint_dir) if cfg.checkpoint_dir else None
    step, start_epoch, skip_batches = 0, 0, 0
    earlier, resumed = 0.0, 0  # training seconds of the earlier processes of this run; resumes
    progress = checkpoints.load(accelerator, ckpt) if cfg.resume else None
    if progress is not None:
        step, start_epoch, skip_batches = progress["step"], progress["epoch"], progress["batch"]
        earlier, resumed = float(progress.get("seconds", 0.0)), int(progress.get("resumed", 0)) + 1
        accelerator.print(f"resumed from {ckpt} at step {step} (epoch {start_epoch}, batch {skip_batches})")
    t_start = time.perf_counter()

    def save(epoch: int, batch: int) -> None:
        if ckpt is not None:
            seconds = round(earlier + time.perf_counter() - t_start, 3)
            checkpoints.save(accelerator, ckpt, {"step": step, "epoch": epoch, "batch": batch, "seconds": seconds,
                                                 "resumed": resumed})

    model.train()
    examples, losses, t0 = 0, [], time.perf_counter()
    n_epochs = math.ceil(cfg.epochs)
    bar = tqdm(total=total_steps, initial=step, desc=desc, disable=not accelerator.is_local_main_process)
    done = step >= total_steps
    for epoch in range(start_epoch, n_epochs):
        if done:
            break
        _set_epoch_order(train_loader, epoch)
        loader = train_loader
        if epoch == start_epoch and skip_batches:
            loader = accelerator.skip_first_batches(train_loader, skip_batches)
        for i, batch in enumerate(loader, start=skip_batches if epoch == start_epoch else 0):
            loss = optimizer_step(accelerator, model, loss_fn, batch, optimizer, scheduler, cfg.max_grad_norm)
            examples += batch_size_of(batch) if batch_size_of else _guess_batch_size(batch)
            losses.append(float(loss.detach()))
            if accelerator.sync_gradients:
                step += 1
                bar.update(1)
                bar.set_postfix(loss=f"{sum(losses[-20:]) / len(losses[-20:]):.4f}")
                if cfg.checkpoint_every and step % cfg.checkpoint_every == 0:
                    save(epoch, i + 1)
                if step >= total_steps:
                    done = True
                    break
        if on_epoch_end is not None:
            on_epoch_end(epoch)
        save(epoch + 1, 0)
    bar.close()
    seconds = time.perf_counter() - t0
    stats = {
        "train_steps": float(step),
        "train_examples": float(examples),
        "train_seconds": seconds,
        "train_examples_per_s": examples / seconds if seconds > 0 else 0.0,
        "train_seconds_earlier_processes": earlier,
        "train_seconds_all_sessions": earlier + seconds,
        "resumed": resumed,
    }
    if losses:
        stats["final_loss"] = float(sum(losses[-20:]) / len(losses[-20:]))
    return stats


def wall_time_s(t_start: float, stats: Mapping[str, Any]) -> float:
    """Wall time of a training since ``t_start`` (a ``time.perf_counter()`` of this process) plus the training
    seconds of the earlier processes of a resumed run (``stats`` of :func:`train`)."""
    return round(time.perf_counter() - t_start + float(stats.get("train_seconds_earlier_processes", 0.0)), 3)


def _guess_batch_size(batch: Any) -> int:
    if isinstance(batch, Mapping):
        for v in batch.values():
            if hasattr(v, "shape") and len(v.shape) > 0:
                return int(v.shape[0])
            if isinstance(v, (list, tuple)):
                return len(v)
    if isinstance(batch, (list, tuple)) and batch:
        return _guess_batch_size(batch[0]) if isinstance(batch[0], Mapping) else len(batch)
    return 1
