"""What ``evaluate.load`` of a figbench metric costs, and what of it is figbench's (issue 21).

Side by side, each in N fresh processes (median): ``python -c pass``; ``import figbench`` (target:
under 0.3 s); ``import evaluate``; and, per metric, ``import evaluate`` followed by
``evaluate.load(<the metric's folder>)``, timed inside the process, so the load's own time (the
metric module and the figbench modules it imports, on top of ``evaluate``, ``datasets`` and numpy that
``import evaluate`` already brought in) is separated from ``import evaluate``. The figbench modules
costing most in that load are listed from ``python -X importtime``.

Usage: python benchmarks/bench_import.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

METRICS = ("conll_coref", "span_f1", "vocab_f1")
IMPORT_TARGET_S = 0.3
LOAD = """import sys, time
t0 = time.perf_counter()
import evaluate
t1 = time.perf_counter()
import figbench
evaluate.load(figbench.metric_path(sys.argv[1]))
t2 = time.perf_counter()
print(t1 - t0, t2 - t1)
"""


def _env(modules: str) -> dict[str, str]:
    return {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "HF_MODULES_CACHE": modules,
            "HF_EVALUATE_OFFLINE": "1"}


def wall(argv: list[str], runs: int, env: dict[str, str]) -> list[float]:
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        out.append(time.perf_counter() - t0)
    return out


def load_split(metric: str, runs: int, env: dict[str, str]) -> tuple[list[float], list[float]]:
    """(``import evaluate`` seconds, ``evaluate.load`` seconds) per run, timed inside each process."""
    evaluate_s, load_s = [], []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", LOAD, metric], env=env, capture_output=True, text=True, check=True)
        a, b = (float(x) for x in out.stdout.split()[-2:])
        evaluate_s.append(a)
        load_s.append(b)
    return evaluate_s, load_s


def figbench_modules(metric: str, env: dict[str, str], top: int = 6) -> list[tuple[str, float]]:
    """The figbench modules with the largest cumulative import time in one load (``-X importtime``)."""
    out = subprocess.run([sys.executable, "-X", "importtime", "-c", LOAD, metric], env=env, capture_output=True,
                         text=True, check=True)
    rows = []
    for line in out.stderr.splitlines():
        m = re.match(r"import time:\s+\d+ \|\s+(\d+) \|\s+(\S.*)$", line)
        if m and m.group(2).strip().startswith(("figbench", "conll_coref", "span_f1", "vocab_f1")):
            rows.append((m.group(2).strip(), int(m.group(1)) / 1e6))
    return sorted(rows, key=lambda r: -r[1])[:top]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=5)
    args = p.parse_args()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{args.runs} runs each, fresh processes; load average {load:.1f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory(prefix="bench-import-modules-") as modules:
        env = _env(modules)
        rows = {
            "python -c pass (floor)": wall([sys.executable, "-c", "pass"], args.runs, env),
            "import figbench": wall([sys.executable, "-c", "import figbench"], args.runs, env),
            "import evaluate": wall([sys.executable, "-c", "import evaluate"], args.runs, env),
        }
        print(f"{'process':40s} {'median s':>9s} {'min s':>7s} {'max s':>7s}")
        for name, ts in rows.items():
            print(f"{name:40s} {statistics.median(ts):9.3f} {min(ts):7.3f} {max(ts):7.3f}")
        print(f"\n{'evaluate.load(metric), inside one process':40s} {'import evaluate s':>18s} {'load s':>8s} "
              f"{'load share':>10s}")
        for metric in METRICS:
            ev, ld = load_split(metric, args.runs, env)
            e, lo = statistics.median(ev), statistics.median(ld)
            print(f"{metric:40s} {e:18.3f} {lo:8.3f} {100 * lo / (e + lo):9.0f}%")
        print("\nfigbench modules costing most in evaluate.load('conll_coref') (-X importtime, cumulative):")
        for name, seconds in figbench_modules("conll_coref", env):
            print(f"  {name:50s} {seconds:7.3f} s")
    imp = statistics.median(rows["import figbench"]) - statistics.median(rows["python -c pass (floor)"])
    ok = statistics.median(rows["import figbench"]) < IMPORT_TARGET_S
    print(f"\nimport figbench: {statistics.median(rows['import figbench']):.3f} s ({imp:.3f} s over the floor); "
          f"target under {IMPORT_TARGET_S} s: {'met' if ok else 'MISSED'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
