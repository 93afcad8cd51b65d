"""The flood benchmark's numbers in README "Measured" and leaderboard/README "Speed" (a provider of
:data:`figbench.commands.docs.PROVIDERS`), rendered from ``benchmarks/bench_flood.json``: one entry per run of
``benchmarks/bench_flood.py``, each with the commit it measured, its date and the machine's load."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from figbench.commands.docs import Block
from figbench.commands.docs_benchmarks import BENCHMARKS, field, load

FLOOD_JSON = "bench_flood.json"
#: what each shape sends (bench_flood.shape_payload)
SHAPES = {"lists": "9.9 MB bombs of 3.3 million empty lists", "keys": "9.5 MB objects of 800,000 keys",
          "cluster": "cdec clusters of 600,000 made-up ids"}


def _runs(benchmarks: Path) -> tuple[list[dict[str, Any]], float]:
    data = load(benchmarks, FLOOD_JSON, "bench_flood.py")
    path = Path(benchmarks) / FLOOD_JSON
    return field(data, path, "runs"), field(data, path, "target_p95_s")


def _load(run: dict, r: dict | None = None) -> str:
    lo, hi = (f"{x:.0f}" for x in (r or {}).get("load_avg") or ("", ""))
    during = f", {lo if lo == hi else f'{lo}-{hi}'} during the flood" if r and r.get("load_avg") else ""
    return f"load average {run['load_avg_start']:.1f} at the start{during} on {run['cpus']} CPUs"


def _answers(r: dict) -> str:
    return ", ".join(f"{n:,} answered {code if code != '0' else 'with a cut connection'}"
                     for code, n in sorted(r["answers"].items()))


def _server(r: dict) -> str:
    """The server's peak RSS and CPU, and its parse worker's where the run measured it (runs before it did
    not count the worker)."""
    out = f"{r['server_peak_mb']:,.0f} MB, {r['server_cpu']:.2f} cores"
    if "worker_cpu" in r:
        out += f" + parse worker {r['worker_peak_mb']:,.0f} MB, {r['worker_cpu']:.2f} cores"
    return out


def render_flood(benchmarks: Path = BENCHMARKS) -> str:
    """One table row per run and shape: page loads idle and during the flood, what the bombs got, the server's
    memory and CPU, and the target."""
    runs, target = _runs(benchmarks)
    lines = ["| commit, date, load | mode, shape | page loads idle p50 / p95 | during the flood: loads, p50 / "
             f"p95 / max | bombs | server peak RSS, CPU | p95 < {target:g} s |", "|---|---|---|---|---|---|---|"]
    for run in runs:
        for r in run["results"]:
            ok = "met" if r["flood_p95"] < target else "**not met**"
            note = f"; {run['note']}" if run["note"] else ""
            lines.append(f"| `{run['commit']}`, {run['date']}, {_load(run, r)}{note}"
                         f" | {r['mode']}, `{r['shape']}` ({SHAPES.get(r['shape'], r['shape'])}), {run['clients']} "
                         f"clients, {run['seconds']:g} s | {r['idle_p50']:.3f} / {r['idle_p95']:.3f} s "
                         f"| {r['flood_n']}, {r['flood_p50']:.3f} / {r['flood_p95']:.3f} / {r['flood_max']:.3f} s "
                         f"| {r['bombs']:,} sent: {_answers(r)} | {_server(r)} | {ok} |")
    return "\n".join(lines) + "\n"


def measured_rows(benchmarks: Path = BENCHMARKS) -> list[dict[str, str]]:
    """The latest run's shapes as rows of README "Measured" (see ``render_measured``)."""
    runs, target = _runs(benchmarks)
    if not runs:
        return []
    run = runs[-1]
    rows = []
    for r in run["results"]:
        ok = "met" if r["flood_p95"] < target else "not met"
        rows.append({
            "what": f"page loads while {run['clients']} clients flood `submit_json` with "
                    f"{SHAPES.get(r['shape'], r['shape'])} (`benchmarks/bench_flood.py --modes {r['mode']} --shapes "
                    f"{r['shape']} --seconds {run['seconds']:g}`, {run['rows']} submissions on the board; "
                    "`benchmarks/bench_flood.json`)",
            "measured": f"idle p50 {r['idle_p50']:.3f} s; during the flood p50 {r['flood_p50']:.3f} s, p95 "
                        f"{r['flood_p95']:.3f} s (target under {target:g} s: {ok}), max {r['flood_max']:.3f} s over "
                        f"{r['flood_n']} loads; {r['bombs']:,} bombs ({_answers(r)}); server peak RSS, CPU "
                        f"{_server(r)}",
            "commit": run["commit"], "date": run["date"], "load": _load(run, r)})
    return rows


def blocks(benchmarks: Path = BENCHMARKS) -> list[Block]:
    return [Block("leaderboard/README.md", "flood", lambda _results: render_flood(benchmarks),
                  anchor="Runs of `benchmarks/bench_flood.py` (generated from `benchmarks/bench_flood.json`):")]


__all__ = ["FLOOD_JSON", "blocks", "measured_rows", "render_flood"]
