"""The record of ``bench_coref.py --json``: one entry per run in ``benchmarks/bench_coref.json`` (README's
``coref-speed`` block is rendered from it by ``figbench docs --write``)."""

from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def commit() -> str:
    """The checkout's short commit, ``+changes`` when the scorer's code (``figbench/scoring``, the metric's module)
    or this benchmark differs from it; taken when the run starts."""
    def git(*a: str) -> str:
        return subprocess.run(["git", *a], cwd=ROOT, capture_output=True, text=True).stdout.strip()

    head = git("rev-parse", "--short=7", "HEAD") or "unknown"
    dirty = git("status", "--porcelain", "--untracked-files=no", "--", "figbench/scoring",
                "metrics/conll_coref/conll_coref.py", "benchmarks/bench_coref.py", "benchmarks/bench_coref_record.py")
    return head + ("+changes" if dirty else "")


def machine() -> str:
    """CPU model and count, e.g. ``AMD EPYC 7B13, 2 CPUs``."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} CPUs"


def write_json(path: Path, results: list[dict], *, commit: str, load_start: float, note: str, warm_up: str) -> None:
    """Append this run to ``path``; an earlier run of the same commit, sizes and shapes is replaced."""
    data = json.loads(path.read_text("utf-8")) if path.is_file() else {}
    sizes = sorted({r["size"] for r in results})
    shapes = list(dict.fromkeys(r["shape"] for r in results))
    run = {"commit": commit, "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
           "load_avg_start": round(load_start, 2), "load_avg_end": round(os.getloadavg()[0], 2),
           "machine": machine(), "cpu": "one core (sched_setaffinity), one BLAS/OpenMP thread; time.process_time",
           "warm_up": warm_up, "note": note, "sizes": sizes, "shapes": shapes, "results": results}
    runs = [r for r in data.get("runs", [])
            if not (r["commit"] == run["commit"] and r["sizes"] == sizes and r["shapes"] == shapes)]
    runs.append(run)
    out = {"about": "benchmarks/bench_coref.py --json: figbench's coreference scorer (core function and `evaluate` "
                    "wrapper), CPU seconds on one core, median of the repeats; one entry per run with the commit, "
                    "date, load and machine; `figbench docs --write` renders README's coref-speed block from it",
           "targets_s": {"50000": 1.0, "200000": 4.0}, "runs": runs}
    path.write_text(json.dumps(out, indent=1) + "\n", "utf-8")
