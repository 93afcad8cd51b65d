"""Start-up time of everyday commands (issue target: under 0.5 s wall on a 2-core machine).

Runs each command N times in fresh processes and prints the median and the spread, beside a bare
``python -c pass`` (the interpreter's own start, which no command can beat) and the import-time cost
of ``import figbench``. Usage: python benchmarks/bench_cli.py [--runs 9]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

BIN = Path(sys.executable).parent
COMMANDS = {
    "python -c pass (floor)": [sys.executable, "-c", "pass"],
    "python -c 'import figbench'": [sys.executable, "-c", "import figbench"],
    "figbench --help": [str(BIN / "figbench"), "--help"],
    "figbench metrics list": [str(BIN / "figbench"), "metrics", "list"],
    "figbench data where": [str(BIN / "figbench"), "data", "where"],
    "figbench baseline --help": [str(BIN / "figbench"), "baseline", "--help"],
}
TARGET_S = 0.5


def time_command(argv: list[str], runs: int) -> list[float]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        out.append(time.perf_counter() - t0)
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=9)
    args = p.parse_args()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{args.runs} runs each; load average {load:.1f} on {os.cpu_count()} cores (other work inflates wall times)")
    print(f"{'command':34s} {'median s':>9s} {'min s':>7s} {'max s':>7s}  target")
    ok = True
    for name, argv in COMMANDS.items():
        ts = time_command(argv, args.runs)
        med = statistics.median(ts)
        floor = name.startswith("python -c pass")
        meets = floor or med < TARGET_S
        ok &= meets
        print(f"{name:34s} {med:9.3f} {min(ts):7.3f} {max(ts):7.3f}  "
              f"{'-' if floor else ('< 0.5 s' if meets else 'MISSED')}")
    print(f"every command under {TARGET_S} s (median): {ok}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
