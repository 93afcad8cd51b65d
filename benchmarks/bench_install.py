"""Install size and time of figbench's core (``pip install figbench``) against ``figbench[all]``, side by side, each
in a fresh virtual environment outside the checkout, with pip's cache off (every package downloaded or read from
the machine's wheel folders, as on a fresh machine with this machine's indexes). ``[all]`` follows ``make setup``:
``torch==2.13.0`` (the CPU wheel) first, then the extra. Writes ``benchmarks/bench_install.json`` (the README's
``install-size`` block is rendered from it) and prints a table.

Usage: python benchmarks/bench_install.py [--wheel dist/figbench-*.whl] [--out benchmarks/bench_install.json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: what each environment gets: (label, [pip install argument lists, run in order]); WHEEL is the built wheel
SETUPS = (("core", [["WHEEL"]]), ("all", [["torch==2.13.0"], ["WHEEL[all]"]]))
#: modules the core must not bring (the board, the harvester, the trainers and the harnesses)
NOT_IN_CORE = ("torch", "transformers", "accelerate", "faiss", "gradio", "dask", "icu", "sklearn", "lm_eval", "mteb")


def _size_mb(path: Path) -> float:
    total = sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())
    return round(total / 2**20, 1)


def _build_wheel(out: Path) -> Path:
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(ROOT)], check=True,
                   capture_output=True)
    return next(out.glob("figbench-*.whl"))


def measure(label: str, steps: list[list[str]], wheel: Path, work: Path) -> dict:
    venv = work / label
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = str(venv / "bin" / "python")
    site = next((venv / "lib").glob("python3*/site-packages"))
    before = _size_mb(site)
    t0 = time.perf_counter()
    for args in steps:
        argv = [a.replace("WHEEL", str(wheel)) for a in args]
        subprocess.run([py, "-m", "pip", "install", "--quiet", "--no-cache-dir", *argv], check=True,
                       env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    seconds = time.perf_counter() - t0
    dists = subprocess.run([py, "-m", "pip", "list", "--format=json"], check=True, capture_output=True,
                           text=True).stdout
    present = subprocess.run([py, "-c", "import importlib.util, json; print(json.dumps([m for m in "
                              f"{list(NOT_IN_CORE)!r} if importlib.util.find_spec(m)]))"],
                             check=True, capture_output=True, text=True).stdout
    return {"seconds": round(seconds, 1), "site_packages_mb": round(_size_mb(site) - before, 1),
            "distributions": len(json.loads(dists)) - 1, "heavy_modules": json.loads(present),
            "pip_install": [" ".join(a) for a in steps]}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--wheel", default=None, help="a built wheel (default: build one into a temporary folder)")
    p.add_argument("--out", default=str(ROOT / "benchmarks" / "bench_install.json"))
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="figbench-install-") as tmp:
        work = Path(tmp)
        wheel = Path(args.wheel) if args.wheel else _build_wheel(work / "dist")
        rows = {label: measure(label, steps, wheel, work) for label, steps in SETUPS}
    report = {"machine": f"{os.cpu_count()} cores, shared with other jobs (load average at the end "
                         f"{os.getloadavg()[0]:.1f})", "python": sys.version.split()[0],
              "pip_cache": "off (--no-cache-dir)", "wheel": wheel.name, **rows}
    Path(args.out).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"{'install':8s} {'seconds':>8s} {'MB':>8s} {'dists':>6s}  heavy modules present")
    for label in rows:
        r = rows[label]
        print(f"{label:8s} {r['seconds']:8.1f} {r['site_packages_mb']:8.1f} {r['distributions']:6d}  "
              f"{', '.join(r['heavy_modules']) or '-'}")
    if rows["core"]["heavy_modules"]:
        print(f"FAIL: the core brings {rows['core']['heavy_modules']}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
