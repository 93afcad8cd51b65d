"""Every trained cdec run of the reproduction tables as a list of idempotent steps.

    python -m figbench_baselines.cdec.reproduce list                 # the exact commands, and what is done
    python -m figbench_baselines.cdec.reproduce run --queue knn      # run one queue's missing steps in order
    python -m figbench_baselines.cdec.reproduce run --only eval --redo meta_m   # re-evaluate META_m from the saved models

A training step is done when its model folder holds the weights and ``train_info.json``; an
evaluation step is done when its result record exists. Training steps always pass ``--resume``, so a
killed run continues from its last checkpoint. ``--redo PATTERN`` re-runs the finished evaluation
steps whose name contains PATTERN (e.g. after a data fix), never the training. Two queues (``lh``:
WEC pairwise and CE_LH; ``knn``: the bi-encoder, the KNN oracle and CE_KNN) can run side by side.
Data: ``FIGBENCH_DATA_DIR``; models go to ``--models`` (default ``models/cdec``, not committed),
records to ``--results`` (default ``results/cdec``), checkpoints and logs to ``runs/cdec``.
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

#: the CPU configuration of the measured runs (MiniLM); see baselines/README.md for the budget
CE_SAMPLE = 4000
CE_FRACTIONS = (1.0, 0.5, 0.25)
CE_TRAIN = ["--epochs", "1", "--batch-size", "16", "--lr", "2e-5", "--head-lr", "1e-3", "--pair-order", "random",
            "--context-words", "15", "--max-length", "128", "--checkpoint-every", "50"]
BE_TRAIN = ["--epochs", "1", "--batch-size", "8", "--lr", "2e-5", "--margin", "10",
            "--context-words", "15", "--max-length", "128", "--checkpoint-every", "100"]
KNN_ENC = ["--context-words", "15", "--max-length", "128"]
ORACLE_KS = (5, 10, 20)

#: (short name, dataset, config, split)
SPLITS = {
    "ecb_test": ("ecbplus", "events", "test"),
    "ecb_dev": ("ecbplus", "events", "validation"),
    "ecb_dev_small": ("ecbplus", "events", "dev_small"),
    "metam_test": ("ecbmeta", "meta_m", "test"),
    "metam_dev": ("ecbmeta", "meta_m", "validation"),
    "metam_dev_small": ("ecbmeta", "meta_m", "dev_small"),
    "meta1_dev_small": ("ecbmeta", "meta_1", "dev_small"),
}
CE_EVAL_FULL = ("ecb_test", "metam_test", "ecb_dev_small", "metam_dev_small", "meta1_dev_small")
CE_EVAL_CURVE = ("ecb_test", "metam_test")


@dataclass
class Step:
    """One command: a training step (done when ``model`` is complete) or an evaluation (done when ``out`` exists)."""

    name: str
    queue: str
    args: list[str]
    out: str | None = None
    model: str | None = None
    component: str | None = None
    needs: list[str] = field(default_factory=list)

    @property
    def kind(self) -> str:
        return "train" if self.model else "eval"

    def done(self) -> bool:
        from figbench_baselines.cdec.artifacts import is_complete

        if self.model:
            return is_complete(self.model, self.component or "")
        return bool(self.out) and Path(self.out).is_file()

    def command(self) -> list[str]:
        return ["figbench", "baseline", "cdec", *self.args]


def _data(short: str) -> list[str]:
    dataset, config, split = SPLITS[short]
    return ["--dataset", dataset, "--config", config, "--split", split]


def steps(models: str = "models/cdec", results: str = "results/cdec", runs: str = "runs/cdec",
          sample: int = CE_SAMPLE) -> list[Step]:
    """All steps, in the order each queue runs them (headline models and evaluations first)."""
    be = f"{models}/biencoder"
    # --- queue knn: bi-encoder, CE_KNN (headline model first), KNN oracle recall (Table 1), CE_KNN curve ---
    knn = [Step("train_biencoder", "knn", ["--dataset", "ecbplus", "--method", "knn_oracle", "--train-only",
                "--save-model", be, "--checkpoint-dir", f"{runs}/ckpt/biencoder", "--resume", *BE_TRAIN],
                model=be, component="biencoder")]
    ce_knn = _ce_steps("ce_knn", "knn", models, results, runs, sample, extra=["--biencoder", be], needs=[be])
    oracle = []
    for enc in ("trained", "frozen"):
        src = ["--biencoder", be] if enc == "trained" else ["--no-train-biencoder"]
        for short in ("ecb_test", "metam_test", "ecb_dev", "metam_dev", "ecb_dev_small", "metam_dev_small",
                      "meta1_dev_small"):
            for k in ORACLE_KS:
                name = f"knn_oracle_{enc}_k{k}_{short}"
                oracle.append(Step(name, "knn", [*_data(short), "--method", "knn_oracle", "--k", str(k), *src,
                                                 *KNN_ENC, "--out", f"{results}/{name}.json"],
                                   out=f"{results}/{name}.json", needs=[be] if enc == "trained" else []))
    full = [s for s in ce_knn if "_f0" not in s.name]
    knn += full + oracle + [s for s in ce_knn if s not in full]
    # --- queue lh: WEC pairwise (frozen encoder + MLP), CE_LH ---
    wec = f"{models}/wec_pairwise"
    lh = [Step("train_wec_pairwise", "lh", ["--dataset", "ecbplus", "--method", "wec_pairwise", "--train-only",
               "--save-model", wec, "--checkpoint-dir", f"{runs}/ckpt/wec_pairwise", "--resume"],
               model=wec, component="wec_pairwise")]
    for name, data, tune in (
        ("wec_pairwise_ecb_test", _data("ecb_test"), ["--tune-dataset", "ecbplus", "--tune-split", "validation"]),
        ("wec_pairwise_wec_test", ["--dataset", "wec_eng", "--split", "test"],
         ["--tune-dataset", "ecbplus", "--tune-split", "validation"]),
        ("wec_pairwise_wec_test_tuned_wec_dev", ["--dataset", "wec_eng", "--split", "test"],
         ["--tune-dataset", "wec_eng", "--tune-split", "validation"]),
    ):
        lh.append(Step(name, "lh", [*data, "--method", "wec_pairwise", "--load-model", wec, *tune,
                                    "--out", f"{results}/{name}.json"], out=f"{results}/{name}.json", needs=[wec]))
    lh += _ce_steps("ce_lh", "lh", models, results, runs, sample)
    return knn + lh


def _ce_steps(method: str, queue: str, models: str, results: str, runs: str, sample: int,
              extra: list[str] | None = None, needs: list[str] | None = None) -> list[Step]:
    extra, needs = extra or [], needs or []
    out = []
    for frac in CE_FRACTIONS:
        tag = f"{method}_s{sample}" + ("" if frac == 1.0 else f"_f{frac:g}")
        model = f"{models}/{tag}"
        out.append(Step(f"train_{tag}", queue, ["--dataset", "ecbplus", "--method", method, "--train-only",
                        "--save-model", model, "--train-sample", str(sample), "--train-fraction", f"{frac:g}",
                        *CE_TRAIN, *extra, "--checkpoint-dir", f"{runs}/ckpt/{tag}", "--resume"],
                        model=model, component="crossencoder", needs=needs))
        for short in (CE_EVAL_FULL if frac == 1.0 else CE_EVAL_CURVE):
            name = f"{tag}_{short}"
            out.append(Step(name, queue, [*_data(short), "--method", method, "--load-model", model, *extra,
                                          "--out", f"{results}/{name}.json"],
                            out=f"{results}/{name}.json", needs=[model, *needs]))
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
    p.add_argument("--only", choices=("train", "eval"), default=None, help="only training or only evaluation steps")
    p.add_argument("--match", default=None, help="only steps whose name contains this")
    p.add_argument("--redo", default=None, metavar="PATTERN",
                   help="re-run finished evaluation steps whose name contains PATTERN (training is never redone)")
    p.add_argument("--models", default="models/cdec")
    p.add_argument("--results", default="results/cdec")
    p.add_argument("--runs", default="runs/cdec", help="checkpoints and logs")
    p.add_argument("--sample", type=int, default=CE_SAMPLE, help="cross-encoder training sample size")
    p.add_argument("--threads", type=int, default=None, help="OMP/MKL threads per step (e.g. 1 when two queues share 2 cores)")
    p.add_argument("--keep-going", action="store_true", help="continue with the next steps when one fails")
    a = p.parse_args(argv)
    todo = [s for s in steps(a.models, a.results, a.runs, a.sample)
            if (a.queue is None or s.queue == a.queue) and (a.only is None or s.kind == a.only)
            and (a.match is None or a.match in s.name)]
    if a.action == "list":
        for s in todo:
            state = "done" if s.done() else "todo"
            if a.redo and s.kind == "eval" and a.redo in s.name:
                state = "redo"
            print(f"[{state}] {s.queue:3s} {s.name}\n    {shlex.join(s.command())}")
        return 0
    failed = 0
    for s in todo:
        redo = a.redo is not None and s.kind == "eval" and a.redo in s.name
        if s.done() and not redo:
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
