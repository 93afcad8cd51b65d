"""The coreference scorer's speed per shape family in README "Measured" (a provider of
:data:`figbench.commands.docs.PROVIDERS`), rendered from ``benchmarks/bench_coref.json``: one entry per run of
``benchmarks/bench_coref.py --json``, each with the commit it measured, its date, the load and the machine."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from figbench.commands.docs import Block
from figbench.commands.docs_benchmarks import BENCHMARKS, field, load

COREF_JSON = "bench_coref.json"
#: the README line after which the block is created
ANCHOR = "Generated from `benchmarks/bench_coref.json` (`benchmarks/bench_coref.py --no-scorch --json`):"


def _runs(benchmarks: Path) -> list[dict[str, Any]]:
    data = load(benchmarks, COREF_JSON, "bench_coref.py --json")
    runs = field(data, Path(benchmarks) / COREF_JSON, "runs")
    for i, run in enumerate(runs):
        for key in ("commit", "date", "load_avg_start", "load_avg_end", "machine", "warm_up", "results"):
            field(run, f"{Path(benchmarks) / COREF_JSON} (runs[{i}])", key)
    return runs


def _letter(i: int) -> str:
    return chr(ord("a") + i) if i < 26 else f"r{i}"


def _size(n: int) -> str:
    return f"{n // 1000}K" if n % 1000 == 0 else f"{n:,}"


def _verdict(r: dict) -> str:
    if r.get("target_s") is None:
        return ""
    return f", {'met' if r['core_cpu'] < r['target_s'] else '**not met**'}"


def _cell(r: dict, letter: str) -> str:
    return f"{r['core_cpu']:.3f} / {r['wrapper_cpu']:.3f} s ({r['repeats']}x{_verdict(r)}; {letter})"


def render_coref(benchmarks: Path = BENCHMARKS) -> str:
    """One row per shape family: at each size, the core function's and the wrapper's CPU seconds (median of the
    repeats) of the latest run that measured it, with the target's verdict; earlier runs whose verdict differs
    are shown beside it; then the runs (commit, date, load, machine) and the warm-up."""
    runs = _runs(benchmarks)
    latest: dict[tuple[str, int], tuple[int, dict]] = {}
    history: dict[tuple[str, int], list[tuple[int, dict]]] = {}
    for i, run in enumerate(runs):
        for r in run["results"]:
            latest[(r["shape"], r["size"])] = (i, r)
            history.setdefault((r["shape"], r["size"]), []).append((i, r))
    shapes = list(dict.fromkeys(s for s, _ in latest))
    sizes = sorted({n for _, n in latest})
    targets = {n: r["target_s"] for (_, n), (_, r) in latest.items() if r.get("target_s") is not None}
    head = " | ".join(f"{_size(n)} mentions: core / wrapper CPU" + (f" (target < {targets[n]:g} s)" if n in targets
                                                                      else "") for n in sizes)
    lines = [f"| family | {head} |", "|---|" + "---|" * len(sizes)]
    for shape in shapes:
        cells = []
        for n in sizes:
            if (shape, n) not in latest:
                cells.append("")
                continue
            i, r = latest[(shape, n)]
            cell = _cell(r, _letter(i))
            differ = [f"{_cell(o, _letter(j))}" for j, o in history[(shape, n)][:-1] if _verdict(o) != _verdict(r)]
            cells.append(cell + "".join(f"; earlier {d}" for d in differ))
        lines.append(f"| `{shape}` | " + " | ".join(cells) + " |")
    shown = sorted({i for i, _ in latest.values()} | {j for key, h in history.items() for j, o in h[:-1]
                                                      if _verdict(o) != _verdict(latest[key][1])})
    rows = [r for _, r in latest.values() if r.get("target_s") is not None]
    met = sum(r["core_cpu"] < r["target_s"] for r in rows)
    lines += ["", f"Target (core function, CPU seconds on one core) met on {met} of {len(rows)} family and size "
              "pairs, each from the latest run that measured it. Runs (CPU time is `time.process_time` on one "
              "pinned core; median of the repeats shown as `3x`):", ""]
    for i in shown:
        run = runs[i]
        note = f"; {run['note']}" if run.get("note") else ""
        lines.append(f"- {_letter(i)}: `{run['commit']}`, {run['date']}, load average {run['load_avg_start']:.1f} "
                     f"at the start and {run['load_avg_end']:.1f} at the end, {run['machine']}{note}")
    lines += ["", f"Warm-up (latest run): {runs[-1]['warm_up']}."]
    return "\n".join(lines) + "\n"


def blocks(benchmarks: Path = BENCHMARKS) -> list[Block]:
    return [Block("README.md", "coref-speed", lambda _results: render_coref(benchmarks), anchor=ANCHOR)]


__all__ = ["COREF_JSON", "blocks", "render_coref"]
