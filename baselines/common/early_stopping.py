"""Fine-tuning loop of the figurative baselines: epochs, early stopping on a validation score, resumable.

The figurative trainers (Meta4XNLI detection and NLI, WiMCor, ePiC bi-encoder, alignment and
generation) train through :func:`fit`; the cross-document coreference trainers keep
:mod:`figbench_baselines.common.training`. What :func:`fit` adds:

- **Early stopping** (:class:`EarlyStopping`): after every epoch the model is scored on a validation
  split (``evaluate(model) -> {metric: value}``); the best epoch's weights are kept and restored at the
  end, and training stops after ``patience`` epochs without an improvement of more than ``min_delta``
  (or at ``max_epochs``). The learning-rate schedule (linear warm-up and decay) spans ``max_epochs``.
- **Dynamic padding with length grouping**: each epoch's order is a seeded permutation cut into
  mega-batches of ``50 x batch_size`` examples sorted by length, so a batch pads only to its own
  longest example; the batch order is shuffled again (``group_by_length=False``: plain shuffling).
- **Progress with ETA** for every epoch (tqdm over the epoch's batches) and a line per epoch with the
  validation score, the best epoch, the patience left and the time to the last possible epoch.
- **Checkpoints and resume**: with ``cfg.checkpoint_dir`` the Accelerate state (model, optimiser,
  scheduler, RNG) is saved after every epoch and every ``cfg.checkpoint_every`` optimiser steps, with
  the loop's position and the early-stopping state in its ``progress.json``; the best weights go to
  ``best-epochNNN.pt``. Saves are crash-safe (:mod:`figbench_baselines.common.checkpoints`).
  ``cfg.resume`` continues from the newest complete one (a finished run only restores its best weights).
  The training time and examples of every process are carried in ``progress.json`` up to its last save, so
  the stats cover the whole run (``train_seconds_all_sessions``, ``resumed``: how many processes continued
  it); work after a process's last save is lost with it and counted again when it is redone.
- **Determinism**: every order is a function of (seed, epoch); the same command with the same seed
  on the same hardware gives the same weights (tested on a tiny model).
- **Accelerate**: mixed precision, gradient accumulation and several processes
  (``accelerate launch``) as configured in ``cfg``; every process evaluates the same weights, so they
  all take the same stopping decision.
"""

from __future__ import annotations

import json
import math
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

#: examples per length-sorted mega-batch, in batches
MEGA_BATCHES = 50


@dataclass
class EarlyStopping:
    """Stop when ``metric`` on the validation split has not improved for ``patience`` epochs."""

    metric: str                  #: the validation score that decides (higher is better)
    patience: int = 2            #: epochs without improvement before stopping
    max_epochs: int = 10         #: hard cap on epochs
    min_delta: float = 0.0       #: an improvement must exceed this
    split: str = "validation"    #: for the record: the split ``evaluate`` scores

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _mininterval() -> float:
    """Refresh progress bars often on a terminal, every 30 s in a log file."""
    return 0.5 if sys.stderr.isatty() else 30.0


def progress(iterable=None, **kwargs):
    """A tqdm bar (with rate and ETA) that stays readable in log files."""
    from tqdm.auto import tqdm

    kwargs.setdefault("mininterval", _mininterval())
    kwargs.setdefault("dynamic_ncols", True)
    return tqdm(iterable, **kwargs)


@contextmanager
def phase(what: str, enabled: bool = True):
    """Announce a phase that has no natural progress bar (loading, scoring) and say how long it took."""
    t0 = time.perf_counter()
    if enabled:
        print(f"[figbench] {what} ...", file=sys.stderr, flush=True)
    yield
    if enabled:
        print(f"[figbench] {what}: done in {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)


def _fmt_seconds(s: float) -> str:
    s = int(round(s))
    return f"{s // 3600}h{(s % 3600) // 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s"


def epoch_batches(lengths: Sequence[int] | None, n: int, batch_size: int, seed: int, epoch: int, *,
                  group_by_length: bool = True) -> list[list[int]]:
    """The batches (example indices) of one epoch: a function of (seed, epoch) only.

    With lengths and ``group_by_length``: a seeded permutation cut into mega-batches of
    ``MEGA_BATCHES * batch_size`` examples, each sorted by decreasing length, cut into batches whose
    order is then shuffled (dynamic padding pads each batch to its own longest example).
    """
    rng = np.random.default_rng([int(seed), int(epoch)])
    perm = rng.permutation(n)
    if group_by_length and lengths is not None:
        mega = MEGA_BATCHES * batch_size
        chunks = [perm[i:i + mega] for i in range(0, n, mega)]
        perm = np.concatenate([c[np.argsort([-lengths[j] for j in c], kind="stable")] for c in chunks]) if n else perm
        batches = [perm[i:i + batch_size].tolist() for i in range(0, n, batch_size)]
        order = rng.permutation(len(batches))
        return [batches[i] for i in order]
    return [perm[i:i + batch_size].tolist() for i in range(0, n, batch_size)]


def feature_lengths(features: Sequence[Any]) -> list[int] | None:
    """Token counts of pre-tokenised features (``input_ids``), else None (no length grouping)."""
    if features and isinstance(features[0], Mapping) and "input_ids" in features[0]:
        return [len(f["input_ids"]) for f in features]
    return None


def _default_loss(model, batch):
    return model(**batch).loss


def _batch_size(batch) -> int:
    if isinstance(batch, Mapping):
        if "size" in batch:
            return int(batch["size"])
        for v in batch.values():
            if hasattr(v, "shape") and len(v.shape) > 0:
                return int(v.shape[0])
    return 1


def _state_dict_cpu(model) -> dict:
    return {k: v.detach().to("cpu", copy=True) for k, v in model.state_dict().items()}


def fit(model, features: Sequence[Any], collate: Callable[[list], Any], cfg, *,
        loss_fn: Callable[[Any, Any], Any] | None = None,
        evaluate: Callable[[Any], Mapping[str, float]] | None = None,
        early: EarlyStopping | None = None,
        lengths: Sequence[int] | None = None,
        group_by_length: bool = True,
        desc: str = "train") -> tuple[Any, dict[str, Any]]:
    """Train ``model`` on ``features`` (collated by ``collate``) with AdamW and a linear schedule.

    ``cfg`` is a :class:`~figbench_baselines.common.training.TrainConfig` (epochs, batch size, lr,
    weight decay, warm-up, grad accumulation, mixed precision, seed, max steps, checkpoints, resume).
    With ``early`` (and ``evaluate``) the run is early-stopped on the validation score and ends with the
    best epoch's weights; ``cfg.epochs`` is then ignored for ``early.max_epochs``. Returns the unwrapped
    model (in eval mode) and statistics: steps, examples, seconds, examples/s, the per-epoch history
    (loss, validation scores, seconds), the best epoch and whether training stopped early.
    """
    import torch
    from accelerate.utils import set_seed
    from figbench_baselines.common import checkpoints
    from figbench_baselines.common.training import make_accelerator, optimizer_step, param_groups
    from torch.utils.data import DataLoader
    from transformers import get_linear_schedule_with_warmup

    if early is not None and evaluate is None:
        raise ValueError("early stopping needs an evaluate(model) function scoring the validation split")
    loss_fn = loss_fn or _default_loss
    accelerator = make_accelerator(cfg)
    set_seed(cfg.seed)
    main = accelerator.is_local_main_process
    n = len(features)
    if n == 0:
        raise ValueError(f"{desc}: no training examples")
    lengths = list(lengths) if lengths is not None else feature_lengths(features)
    max_epochs, local_batches, steps_per_epoch, total_steps = _plan(n, cfg, early, accelerator.num_processes)

    optimizer = torch.optim.AdamW(param_groups(model, cfg), lr=cfg.lr)
    scheduler = get_linear_schedule_with_warmup(optimizer, int(cfg.warmup_ratio * total_steps), total_steps)
    model, optimizer, scheduler = accelerator.prepare(model, optimizer, scheduler)

    ckpt = Path(cfg.checkpoint_dir) if cfg.checkpoint_dir else None
    state = {"epoch": 0, "batch": 0, "step": 0, "best": None, "best_epoch": None, "bad_epochs": 0,
             "history": [], "done": False, "stopped_early": False, "seconds": 0.0, "examples": 0,
             "best_file": None, "resumed": 0}
    best_weights: dict | None = None
    if cfg.resume:
        _resume(state, checkpoints.load(accelerator, ckpt), accelerator, ckpt, desc)

    clock = _Clock(state)

    def save(*, best: bool = False) -> None:
        clock.account()
        _save(ckpt, accelerator, model, state, best=best)

    examples, losses, t0 = 0, [], time.perf_counter()
    t_epochs: list[float] = []
    while not state["done"] and state["epoch"] < max_epochs and state["step"] < total_steps:
        epoch = state["epoch"]
        batches = epoch_batches(lengths, n, cfg.batch_size, cfg.seed, epoch, group_by_length=group_by_length)
        skip = state["batch"] * accelerator.num_processes  # global batches already consumed this epoch
        # an own generator: a DataLoader without one draws its seed from the global RNG when iterated, which
        # would shift the dropout masks of a resumed run
        generator = torch.Generator().manual_seed(int(cfg.seed) * 1000003 + epoch)
        loader = accelerator.prepare(DataLoader(features, batch_sampler=batches[skip:], collate_fn=collate,
                                                generator=generator))
        model.train()
        te = time.perf_counter()
        epoch_losses: list[float] = []
        epoch_examples = 0
        bar = progress(total=local_batches, initial=state["batch"], disable=not main,
                       desc=f"{desc} epoch {epoch + 1}/{max_epochs}")
        for batch in loader:
            loss = optimizer_step(accelerator, model, loss_fn, batch, optimizer, scheduler, cfg.max_grad_norm)
            epoch_examples += _batch_size(batch)
            clock.examples += _batch_size(batch)
            epoch_losses.append(float(loss.detach()))
            state["batch"] += 1
            bar.update(1)
            bar.set_postfix(loss=f"{np.mean(epoch_losses[-50:]):.4f}", refresh=False)
            if accelerator.sync_gradients and _optimizer_stepped(state, cfg, total_steps, save):
                break
        bar.close()
        examples += epoch_examples
        losses.extend(epoch_losses)
        finished_epoch = state["batch"] >= local_batches
        record: dict[str, Any] = {"epoch": epoch + 1, "loss": float(np.mean(epoch_losses)) if epoch_losses else None,
                                  "train_seconds": round(time.perf_counter() - te, 3)}
        improved = False
        if early is not None:
            improved = _validate(early, evaluate, accelerator, model, state, record, epoch)
            if improved and ckpt is None:
                best_weights = _state_dict_cpu(accelerator.unwrap_model(model))
        state["history"].append(record)
        state.update(epoch=epoch + 1, batch=0) if finished_epoch else None
        if state["step"] >= total_steps or state["epoch"] >= max_epochs:
            state["done"] = True
        t_epochs.append(time.perf_counter() - te)
        save(best=improved)
        if main:
            print(_epoch_line(desc, epoch, max_epochs, record, early, state, t_epochs), file=sys.stderr, flush=True)

    model = accelerator.unwrap_model(model)
    if early is not None and state["best_epoch"] is not None:
        _restore_best(model, ckpt, state, best_weights)
    model.eval()
    model._figbench_finetuned = True  # never served from the frozen-embedding cache
    clock.account()
    seconds = time.perf_counter() - t0
    stats: dict[str, Any] = {
        "train_steps": float(state["step"]),
        "train_examples": float(examples),
        "train_seconds": seconds,
        "train_examples_per_s": examples / seconds if seconds > 0 and examples else 0.0,
        # over every process of a resumed run (training and validation, without loading)
        "train_seconds_all_sessions": float(state["seconds"]),
        "train_examples_all_sessions": float(state["examples"]),
        "resumed": int(state["resumed"]),
        "epochs_planned": early.max_epochs if early is not None else cfg.epochs,
        "epochs_run": len(state["history"]),
        "history": state["history"],
        "steps_per_epoch": steps_per_epoch,
        "total_steps_planned": total_steps,
        "group_by_length": bool(group_by_length and lengths is not None),
    }
    if losses:
        stats["final_loss"] = float(np.mean(losses[-20:]))
    if early is not None:
        stats.update(early_stopping=early.to_dict(), best_epoch=state["best_epoch"], best_score=state["best"],
                     stopped_early=bool(state["stopped_early"]))
    return model, stats


def _resume(state: dict, saved: dict | None, accelerator, ckpt: Path | None, desc: str) -> None:
    """Continue from a checkpoint's state (None: nothing saved yet, start afresh)."""
    if saved is None:
        return
    state.update(saved)
    state["resumed"] += 1
    if state["best_file"] is None and state["best_epoch"] is not None:
        state["best_file"] = "best.pt"  # a checkpoint folder of the layout before checkpoints.py
    accelerator.print(f"[figbench] resumed {desc} from {ckpt} at epoch {state['epoch'] + 1}, "
                      f"batch {state['batch']}, step {state['step']} (best so far: {state['best']})")


class _Clock:
    """This process's training time and examples not yet added to the run's ``state`` (which every
    checkpoint carries, so a resumed run's totals cover all its processes up to their last saves)."""

    def __init__(self, state: dict) -> None:
        self.state, self.mark, self.examples = state, time.perf_counter(), 0

    def account(self) -> None:
        now = time.perf_counter()
        self.state["seconds"] = round(self.state["seconds"] + now - self.mark, 3)
        self.state["examples"] += self.examples
        self.mark, self.examples = now, 0


def _save(ckpt: Path | None, accelerator, model, state: dict, *, best: bool = False) -> None:
    """Checkpoint the run (``best``: also the weights of the new best epoch, in a new file)."""
    import torch
    from figbench_baselines.common import checkpoints

    if ckpt is None:
        return
    if best:  # a new file per best epoch: the checkpoint that names it is complete before the old one goes
        state["best_file"] = f"best-epoch{state['best_epoch']:03d}.pt"
        if accelerator.is_main_process:
            ckpt.mkdir(parents=True, exist_ok=True)
            tmp = ckpt / (state["best_file"] + ".tmp")
            torch.save(_state_dict_cpu(accelerator.unwrap_model(model)), tmp)
            tmp.replace(ckpt / state["best_file"])
    checkpoints.save(accelerator, ckpt, state, keep=[state["best_file"]] if state["best_file"] else [])


def _optimizer_stepped(state: dict, cfg, total_steps: int, save: Callable[[], None]) -> bool:
    """Count an optimizer step (checkpointing every ``cfg.checkpoint_every``); whether training is at its end."""
    state["step"] += 1
    if cfg.checkpoint_every and state["step"] % cfg.checkpoint_every == 0:
        save()
    return state["step"] >= total_steps


def _restore_best(model, ckpt: Path | None, state: dict, best_weights: dict | None) -> None:
    """Load the best epoch's weights: from its checkpoint file when there is one, else from memory."""
    import torch

    if ckpt is not None and state["best_file"] and (ckpt / state["best_file"]).is_file():
        best_weights = torch.load(ckpt / state["best_file"], map_location="cpu")
    if best_weights is not None:
        model.load_state_dict(best_weights)


def _plan(n: int, cfg, early: EarlyStopping | None, num_processes: int) -> tuple[int, int, int, int]:
    """Epochs at most, batches per process and epoch, optimizer steps per epoch, and steps in all."""
    max_epochs = early.max_epochs if early is not None else max(1, math.ceil(cfg.epochs))
    local_batches = math.ceil(math.ceil(n / cfg.batch_size) / num_processes)
    steps_per_epoch = max(1, math.ceil(local_batches / cfg.grad_accum))
    planned = early.max_epochs if early is not None else cfg.epochs
    total_steps = max(1, math.ceil(steps_per_epoch * planned))
    if cfg.max_steps is not None:
        total_steps = min(total_steps, cfg.max_steps)
    return max_epochs, local_batches, steps_per_epoch, total_steps


def _validate(early: EarlyStopping, evaluate, accelerator, model, state: dict, record: dict, epoch: int) -> bool:
    """Score the validation split after ``epoch`` (into ``record``), update the best/patience ``state``;
    whether the epoch is the new best."""
    tv = time.perf_counter()
    scores = dict(evaluate(accelerator.unwrap_model(model)))
    model.train()
    record.update({"validation": scores, "eval_seconds": round(time.perf_counter() - tv, 3)})
    value = float(scores[early.metric])
    improved = state["best"] is None or value > state["best"] + early.min_delta
    if improved:
        state.update(best=value, best_epoch=epoch + 1, bad_epochs=0)
    else:
        state["bad_epochs"] += 1
    if state["bad_epochs"] >= early.patience:
        state.update(done=True, stopped_early=True)
    return improved


def _epoch_line(desc: str, epoch: int, max_epochs: int, record: dict, early: EarlyStopping | None, state: dict,
                t_epochs: list[float]) -> str:
    """The progress line printed after an epoch: loss, validation, time, and an ETA for the epochs left."""
    left = max_epochs - state["epoch"]
    line = f"[figbench] {desc} epoch {epoch + 1}/{max_epochs}: loss {record['loss']:.4f}"
    if early is not None:
        value = float(record["validation"][early.metric])
        line += (f", validation {early.metric} {100 * value:.2f} (best {100 * state['best']:.2f} at epoch "
                 f"{state['best_epoch']}; patience left {early.patience - state['bad_epochs']})")
    line += f", {_fmt_seconds(t_epochs[-1])}"
    if not state["done"] and left:
        line += f"; at most {left} more epoch(s), ETA <= {_fmt_seconds(left * float(np.mean(t_epochs)))}"
    return line


# ------------------------------------------------------------------ saved models

TRAIN_INFO = "figbench_training.json"


def save_trained(path: str | Path, model, tokenizer, info: Mapping[str, Any]) -> Path:
    """Save a fine-tuned model, its tokenizer and how it was trained (``figbench_training.json``)."""
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(path)
    if tokenizer is not None:
        tokenizer.save_pretrained(path)
    (path / TRAIN_INFO).write_text(json.dumps(dict(info), indent=1, default=str), "utf-8")
    return path


def load_training_info(path: str | Path) -> dict[str, Any]:
    """How a saved model was trained (written by :func:`save_trained`); a clear error when absent."""
    f = Path(path) / TRAIN_INFO
    if not f.is_file():
        raise ValueError(f"--load-model {path}: no {TRAIN_INFO}; save models with --save-model")
    return json.loads(f.read_text("utf-8"))


__all__ = ["EarlyStopping", "epoch_batches", "feature_lengths", "fit", "load_training_info", "phase",
           "progress", "save_trained"]
