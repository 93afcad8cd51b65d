"""What every baseline run shares: common CLI options, writing the result record, submitting it."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any


def _resamples(text: str) -> int:
    """``--n-resamples`` value; ``"default"`` is the leaderboard's (imported when parsing, not at --help)."""
    if text == "default":
        from figbench.bootstrap import DEFAULT_RESAMPLES

        return DEFAULT_RESAMPLES
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"--n-resamples must be >= 0, got {value}")
    return value


def add_resamples_option(p: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """The one bootstrap option of every figbench command that reports intervals."""
    p.add_argument("--n-resamples", type=_resamples, default="default", metavar="N",
                   help="bootstrap resamples for the 95%% confidence intervals (default: the leaderboard's, "
                        "figbench.bootstrap.DEFAULT_RESAMPLES); 0 for none")


def add_task_option(p: argparse.ArgumentParser, family: str, runners: Mapping[str, Any], *,
                    aliases: Mapping[str, str], default: str) -> None:
    """``--task``: a task of task family ``family`` (:mod:`figbench.tasks`) this baseline has a runner for.

    The declarations are read when the option is parsed (not for ``--help``, which stays import-light);
    ``aliases`` maps the short names of earlier versions (``--task nli``) to task names.
    """

    def task_name(text: str) -> str:
        from figbench.tasks import family_tasks

        name = aliases.get(text, text)
        choices = [t.name for t in family_tasks(family) if t.name in runners]
        if name not in choices:
            raise argparse.ArgumentTypeError(f"invalid choice {text!r} (choose from {', '.join(choices)})")
        return name

    p.add_argument("--task", type=task_name, default=default, metavar="TASK",
                   help=f"one of {', '.join(runners)} (default {default}); short names: "
                        + ", ".join(f"{a} = {t}" for a, t in aliases.items()))


def add_common_args(p: argparse.ArgumentParser, *, trained: bool = False, out_required: bool = True) -> None:
    """Options every baseline takes; ``trained=True`` adds the Accelerate training options."""
    g = p.add_argument_group("run")
    g.add_argument("--out", required=out_required, default=None, help="result record to write (JSON)")
    g.add_argument("--data-dir", default=None,
                   help="data root holding one folder per corpus, or several roots separated by os.pathsep "
                        "(default $FIGBENCH_DATA_DIR); a corpus folder itself is accepted too")
    g.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    add_resamples_option(g)
    g.add_argument("--predictions-file", default=None,
                   help="write predictions to this file and reference it, instead of inline")
    g.add_argument("--submit", metavar="STORE_OR_URL", default=None,
                   help="submit the result record to a leaderboard store folder or Space URL")
    if trained:
        t = p.add_argument_group("training (Accelerate)")
        t.add_argument("--model", default=None,
                       help="encoder: HF model id or path (default: offline all-MiniLM-L6-v2)")
        t.add_argument("--epochs", type=float, default=None, help="training epochs")
        t.add_argument("--batch-size", type=int, default=None, help="per-device batch size")
        t.add_argument("--lr", type=float, default=None, help="learning rate")
        t.add_argument("--max-steps", type=int, default=None, help="cap on optimiser steps")
        t.add_argument("--grad-accum", type=int, default=1, help="gradient accumulation steps")
        t.add_argument("--mixed-precision", choices=("no", "fp16", "bf16"), default="no")
        t.add_argument("--checkpoint-dir", default=None, help="save Accelerate checkpoints here")
        t.add_argument("--checkpoint-every", type=int, default=0, help="optimiser steps between checkpoints")
        t.add_argument("--resume", action="store_true", help="resume from --checkpoint-dir")
        t.add_argument("--quick", action="store_true",
                       help="small CPU configuration (few steps, subsampled data); no quality claims")


def train_config_from_args(args: argparse.Namespace, **defaults: Any):
    """A TrainConfig from CLI options, falling back to the baseline's (paper) ``defaults``."""
    from figbench_baselines.common.training import TrainConfig

    cfg = TrainConfig(**defaults)
    for name in ("epochs", "batch_size", "lr", "max_steps"):
        value = getattr(args, name, None)
        if value is not None:
            setattr(cfg, name, value)
    cfg.grad_accum = getattr(args, "grad_accum", 1)
    cfg.mixed_precision = getattr(args, "mixed_precision", "no")
    cfg.checkpoint_dir = getattr(args, "checkpoint_dir", None)
    cfg.checkpoint_every = getattr(args, "checkpoint_every", 0)
    cfg.resume = getattr(args, "resume", False)
    cfg.seed = args.seed
    return cfg


def finish_run(record: Mapping[str, Any], args: argparse.Namespace,
               summary: Mapping[str, Any] | None = None) -> Path:
    """Write the record atomically to ``--out`` (never a partial file), print a summary, and submit."""
    from figbench.results import write_result

    record = with_system_name(record)
    out = write_result(record, args.out)
    print_summary(record, summary)
    print(f"result record: {out}")
    if getattr(args, "submit", None):
        from figbench_leaderboard.client import submit

        reply = submit(str(out), args.submit)
        print(f"submitted to {args.submit}: {json.dumps(reply, default=str)}")
    return out


def system_name(method: str, encoder: str | None = None) -> str:
    """The leaderboard name of a baseline: ``figbench-<method>``, plus ``(<encoder>)`` for methods with one."""
    return f"figbench-{method} ({encoder})" if encoder else f"figbench-{method}"


def with_system_name(record: Mapping[str, Any]) -> dict[str, Any]:
    """Name a baseline run after its method, so each baseline is its own leaderboard row.

    ``model.name`` becomes :func:`system_name`: ``figbench-<method>``, followed by the encoder for
    trained or embedding methods (``figbench-ce_knn (sentence-transformers/all-MiniLM-L6-v2)``); the
    encoder's own id stays in ``model.encoder``. Records without a ``method`` are returned unchanged.
    """
    method = record.get("method")
    if not method or record["model"]["name"].startswith("figbench-"):
        return dict(record)
    model = dict(record["model"])
    encoder = model["name"]
    if model.get("parameters"):
        model["encoder"] = encoder
        model["name"] = system_name(method, encoder)
    else:
        model["name"] = system_name(method)
    return {**record, "model": model}


def print_summary(record: Mapping[str, Any], extra: Mapping[str, Any] | None = None) -> None:
    """Scores (in %), confidence intervals and throughput, on stdout."""
    w = sys.stdout.write
    w(f"\n{record['task']} | {record['dataset']}/{record['config']}/{record['split']}"
      f" | {record.get('method', '')} | model {record['model']['name']}\n")
    cis = record.get("confidence_intervals", {})
    for name, value in record["scores"].items():
        ci = cis.get(name)
        ci_txt = f"  [{100 * ci['low']:.1f}, {100 * ci['high']:.1f}]" if ci else ""
        w(f"  {name:24s} {100 * value:6.2f}{ci_txt}\n")
    for name, value in record["provenance"].get("throughput", {}).items():
        w(f"  {name:24s} {value:,.1f}\n")
    for name, value in (extra or {}).items():
        w(f"  {name:24s} {value}\n")
    w(f"  wall time {record['provenance']['wall_time_s']:.1f} s\n")


def add_training_run_args(p) -> None:
    """Options of the trained figurative runs: early stopping on a validation split, saving and re-using
    the trained model (re-scoring a saved model is one cheap command: ``--load-model DIR``)."""
    g = p.add_argument_group("early stopping and saved models")
    g.add_argument("--patience", type=int, default=None,
                   help="early stopping: stop after this many epochs without a better validation score and keep "
                        "the best epoch's weights (default: no early stopping, train --epochs)")
    g.add_argument("--max-epochs", type=int, default=None, help="early stopping: at most this many epochs (default 10)")
    g.add_argument("--min-delta", type=float, default=0.0, help="early stopping: smallest improvement that counts")
    g.add_argument("--save-model", default=None, metavar="DIR",
                   help="save the trained model, its tokenizer and how it was trained (figbench_training.json)")
    g.add_argument("--load-model", default=None, metavar="DIR",
                   help="score a model saved with --save-model instead of training (re-scoring in one command)")
