"""The training steps of the trained cdec specs, as idempotent queues; evaluation is ``figbench baseline run``.

    python -m figbench_baselines.cdec.reproduce list               # training commands, what is done, and
                                                                   # the specs each model serves
    python -m figbench_baselines.cdec.reproduce run --queue knn    # train one queue's missing models in order
    figbench baseline run 'cdec_ce_lh_*'                           # then evaluate: results/<spec>.json

A training step is done when its model folder holds the weights and ``train_info.json``; a training
passes ``--resume``, so a killed run continues from its last checkpoint (the WiSE-FT steps train
nothing: killed, they start again). Two queues (``lh``: WEC
pairwise and CE_LH; ``knn``: the bi-encoder, then CE_KNN) can run side by side (``--threads 1`` each
on two cores). The evaluations are the specs of ``baselines/cdec/specs/`` that load a model
(``--load-model`` / ``--biencoder``): ``figbench baseline run SPEC|PATTERN`` runs them and writes
``results/<spec>.json``; ``list`` prints, per model, the specs that need it. Models go to
``models/cdec`` (not committed; the specs' commands name that folder), checkpoints and logs to
``--runs`` (default ``runs/cdec``). Data: ``FIGBENCH_DATA_DIR``.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from figbench_baselines.cdec.specs.trained import (
    BIENCODER,
    BIENCODER_SELECTED,
    BIENCODER_WISE,
    CE_CURVE,
    CE_SAMPLE,
    MODELS,
    seed_suffix,
)
from figbench_baselines.specs import SEEDS

#: the CPU configuration of the committed runs (MiniLM); see baselines/README.md for the budget
CE_TRAIN = ["--epochs", "1", "--batch-size", "16", "--lr", "2e-5", "--head-lr", "1e-3", "--pair-order", "random",
            "--context-words", "15", "--max-length", "128", "--checkpoint-every", "50"]
BE_TRAIN = ["--epochs", "1", "--batch-size", "8", "--lr", "2e-5", "--margin", "10",
            "--context-words", "15", "--max-length", "128", "--checkpoint-every", "100"]
#: the grid's bi-encoder (issue 22): mixed negatives on unit vectors, 6 epochs, best validation epoch kept
BE_SELECTED_TRAIN = ["--epochs", "6", "--batch-size", "8", "--lr", "2e-5", "--margin", "0.5", "--biencoder-negatives",
                     "mixed", "--biencoder-normalize", "--biencoder-select", "validation,ecbmeta/meta_m/validation",
                     "--context-words", "15", "--max-length", "128"]


@dataclass
class Step:
    """One training command; done when ``model`` holds the component's weights and ``train_info.json``."""

    name: str
    queue: str
    args: list[str]
    model: str
    component: str
    needs: list[str] = field(default_factory=list)

    def done(self) -> bool:
        from figbench_baselines.cdec.steps.artifacts import is_complete

        return is_complete(self.model, self.component)

    def command(self) -> list[str]:
        return ["figbench", "baseline", "cdec", *self.args]


def steps(runs: str = "runs/cdec") -> list[Step]:
    """Every training step, in the order each queue runs them (the headline models first)."""
    knn = [_biencoder_step("biencoder", BIENCODER, BE_TRAIN, runs),
           _biencoder_step("biencoder_selected", BIENCODER_SELECTED, BE_SELECTED_TRAIN)]
    knn += _ce_steps("ce_knn", "knn", runs, extra=["--biencoder", BIENCODER], needs=[BIENCODER])
    knn += [_biencoder_step("biencoder_selected", BIENCODER_SELECTED, BE_SELECTED_TRAIN, seed=seed) for seed in SEEDS]
    knn += [_wise_ft_step(seed) for seed in (0, *SEEDS)]
    wec = f"{MODELS}/wec_pairwise"
    lh = [Step("train_wec_pairwise", "lh", ["--dataset", "ecbplus", "--method", "wec_pairwise", "--train-only",
               "--save-model", wec, "--checkpoint-dir", f"{runs}/ckpt/wec_pairwise", "--resume"],
               model=wec, component="wec_pairwise")]
    lh += _ce_steps("ce_lh", "lh", runs)
    for seed in SEEDS:  # the headline cross-encoders' other seeds (issue 22), after every seed-0 model
        biencoder = _biencoder_step("biencoder", BIENCODER, BE_TRAIN, runs, seed=seed)  # CE_KNN's, retrained too
        knn.append(biencoder)
        knn += _ce_steps("ce_knn", "knn", runs, extra=["--biencoder", biencoder.model], needs=[biencoder.model],
                         seed=seed)
        lh += _ce_steps("ce_lh", "lh", runs, seed=seed)
    return knn + lh


def _biencoder_step(tag: str, folder: str, recipe: list[str], runs: str | None = None, seed: int = 0) -> Step:
    """Train the bi-encoder ``recipe`` into ``folder`` (with ``--seed``: ``folder`` and ``tag`` gain its suffix);
    with ``runs``, checkpointed under ``runs/ckpt/<tag>`` and resumable."""
    tag, folder = tag + seed_suffix(seed), folder + seed_suffix(seed)
    checkpoints = ["--checkpoint-dir", f"{runs}/ckpt/{tag}", "--resume"] if runs else []
    return Step(f"train_{tag}", "knn", ["--dataset", "ecbplus", "--method", "knn_oracle", "--train-only",
                                        "--save-model", folder, *checkpoints, *recipe,
                                        *(("--seed", str(seed)) if seed else ())],
                model=folder, component="biencoder")


def _wise_ft_step(seed: int = 0) -> Step:
    """Interpolate the selected bi-encoder of ``seed`` with its untrained encoder (WiSE-FT), alpha chosen on
    the selection splits of its training (``wise_ft.py``); seconds, no training."""
    trained, folder = BIENCODER_SELECTED + seed_suffix(seed), BIENCODER_WISE + seed_suffix(seed)
    select = BE_SELECTED_TRAIN[BE_SELECTED_TRAIN.index("--biencoder-select") + 1]
    return Step(f"wise_ft_biencoder{seed_suffix(seed)}", "knn",
                ["--dataset", "ecbplus", "--method", "knn_oracle", "--train-only", "--biencoder", trained,
                 "--biencoder-wise-ft", "--biencoder-select", select, "--save-model", folder],
                model=folder, component="biencoder", needs=[trained])


def _ce_steps(method: str, queue: str, runs: str, extra: list[str] | None = None,
              needs: list[str] | None = None, seed: int = 0) -> list[Step]:
    """The full-sample cross-encoder, then (seed 0 only) the learning curve's smaller samples."""
    out = []
    shares = (("", 1.0), *((s, f) for _, s, f in CE_CURVE[::-1])) if seed == 0 else ((seed_suffix(seed), 1.0),)
    for suffix, share in shares:
        tag = f"{method}_s{CE_SAMPLE}{suffix}"
        model = f"{MODELS}/{tag}"
        out.append(Step(f"train_{tag}", queue, ["--dataset", "ecbplus", "--method", method, "--train-only",
                        "--save-model", model, "--train-sample", str(CE_SAMPLE), "--train-fraction", f"{share:g}",
                        *CE_TRAIN, *(extra or []), "--checkpoint-dir", f"{runs}/ckpt/{tag}", "--resume",
                        *(("--seed", str(seed)) if seed else ())],
                        model=model, component="crossencoder", needs=list(needs or [])))
    return out


def specs_needing(model: str) -> list[str]:
    """The specs whose command loads ``model`` (``--load-model`` or ``--biencoder``)."""
    from figbench_baselines.specs import all_specs

    out = []
    for spec in all_specs():
        argv = spec.argv
        loads = {argv[i + 1] for i, a in enumerate(argv[:-1]) if a in ("--load-model", "--biencoder")}
        if model in loads:
            out.append(spec.name)
    return out


def _run_step(step: Step, log_dir: Path, threads: int | None) -> int:
    log_dir.mkdir(parents=True, exist_ok=True)
    log = log_dir / f"{step.name}.log"
    env = dict(os.environ)
    if threads:
        env.update(OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    cmd = [sys.executable, "-m", "figbench.cli", *step.command()[1:]]
    t0 = time.time()
    print(f"[{time.strftime('%H:%M:%S')}] {step.name}: {shlex.join(step.command())}  (log {log})", flush=True)
    with open(log, "a", encoding="utf-8") as f:
        f.write(f"\n=== {time.strftime('%Y-%m-%d %H:%M:%S')} {shlex.join(cmd)}\n")
        f.flush()
        rc = subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT, env=env)
    print(f"[{time.strftime('%H:%M:%S')}] {step.name}: exit {rc} after {time.time() - t0:.0f} s", flush=True)
    return rc


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m figbench_baselines.cdec.reproduce", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("action", choices=("list", "run"))
    p.add_argument("--queue", choices=("lh", "knn"), default=None, help="only this queue (default: both, in order)")
    p.add_argument("--match", default=None, help="only steps whose name contains this")
    p.add_argument("--runs", default="runs/cdec", help="checkpoints and logs")
    p.add_argument("--threads", type=int, default=None,
                   help="OMP/MKL threads per step (e.g. 1 when two queues share 2 cores)")
    p.add_argument("--keep-going", action="store_true", help="continue with the next steps when one fails")
    a = p.parse_args(argv)
    todo = [s for s in steps(a.runs)
            if (a.queue is None or s.queue == a.queue) and (a.match is None or a.match in s.name)]
    if a.action == "list":
        for s in todo:
            print(f"[{'done' if s.done() else 'todo'}] {s.queue:3s} {s.name}\n    {shlex.join(s.command())}")
            served = specs_needing(s.model)
            if served:
                print(f"    then: figbench baseline run {' '.join(served)}")
        return 0
    failed = 0
    for s in todo:
        if s.done():
            continue
        missing = [n for n in s.needs if not Path(n, "train_info.json").is_file()]
        if missing:
            print(f"{s.name}: skipped, needs the trained model(s) {missing}", flush=True)
            failed += 1
            continue
        if _run_step(s, Path(a.runs) / "logs", a.threads) != 0:
            failed += 1
            if not a.keep_going:
                return 1
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
