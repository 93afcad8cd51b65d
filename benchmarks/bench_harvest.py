"""Scale benchmark of ``figbench harvest wec`` (issue 25): pages/s per worker, 1 -> 2 workers, memory vs dump size.

Writes synthetic dumps in the real format (bz2 multistream + index, :mod:`figbench.harvest.synthetic`,
streams compressed in parallel) of growing size, harvests each with 1 and 2 local Dask workers, and
prints per run: compressed MB, pages, wall seconds, pages/s per worker (pages over the summed task
seconds), the speed-up of 2 workers over 1, and the peak RSS of the worker processes (flat as the dump
grows: pages are streamed). ``--filler`` sets the sizes (pages of filler articles); a 1 GB dump is
about ``--filler 1150000`` (6 paragraphs of 60 pseudo-words a page: ~0.9 KB of bz2 a page); measure
what the machine allows (see README).

Writes the rows as JSON (``--json``, default ``benchmarks/bench_harvest.json``: the README's scale table
and full-Wikipedia estimate are generated from it, ``figbench docs --write``), with the arguments, the
machine (cores, 1-minute load average range over the run) and per row the speed-up over 1 worker.

    python benchmarks/bench_harvest.py --filler 20000 120000 --out /tmp/bench_harvest
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    from figbench.harvest import synthetic, wec

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--filler", type=int, nargs="+", default=[20000, 120000])
    ap.add_argument("--paragraphs", type=int, default=6)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--partition-mb", type=float, default=4.0)
    ap.add_argument("--gen-processes", type=int, default=2)
    ap.add_argument("--out", default="/tmp/bench_harvest", help="folder of the dumps and harvests")
    ap.add_argument("--json", default=str(ROOT / "benchmarks" / "bench_harvest.json"), help="where the rows go")
    args = ap.parse_args()
    root = Path(args.out)
    rows = []
    loads = [os.getloadavg()[0]]
    for n in args.filler:
        d = root / f"dump{n}"
        shutil.rmtree(d, ignore_errors=True)
        t0 = time.perf_counter()
        path, _ = synthetic.write_large_dump(
            d / "enwiki-20240601-pages-articles-multistream.xml.bz2", n, paragraphs=args.paragraphs,
            processes=args.gen_processes, n_events=50, backlinks=200, n_towns=10)
        gen = time.perf_counter() - t0
        mb = path.stat().st_size / 2**20
        for w in args.workers:
            out = root / f"out{n}_{w}"
            shutil.rmtree(out, ignore_errors=True)
            t0 = time.perf_counter()
            rep = wec.harvest(path, out, wec.WecOptions(), workers=w, partition_bytes=int(args.partition_mb * 2**20))
            wall = time.perf_counter() - t0
            loads.append(os.getloadavg()[0])
            stats = rep["partitions"]["scan"] + rep["partitions"]["extract"]
            pages = sum(s["pages"] for s in rep["partitions"]["scan"])
            task_s = sum(s["seconds"] for s in stats)
            rss = max(s["max_rss_mb"] for s in stats)
            rows.append({"filler": n, "compressed_mb": round(mb, 1), "generate_s": round(gen, 1), "workers": w,
                         "pages": pages, "wall_s": round(wall, 1),
                         "pages_per_s_per_worker": round(2 * pages / task_s, 1),  # two passes over the pages
                         "worker_peak_rss_mb": rss, "mentions": sum(rep["kept"].values())})
            print(json.dumps(rows[-1]), flush=True)
    base = {r["filler"]: r["wall_s"] for r in rows if r["workers"] == 1}
    for r in rows:
        r["speed_up"] = None
        if r["workers"] > 1 and r["filler"] in base:
            r["speed_up"] = round(base[r["filler"]] / r["wall_s"], 2)
            print(f"filler {r['filler']}: speed-up 1 -> {r['workers']} workers: {r['speed_up']:.2f}x")
    machine = (f"{os.cpu_count()} CPU cores (1-minute load average {min(loads):.0f}-{max(loads):.0f} during the run)")
    record = {"args": {"filler": args.filler, "paragraphs": args.paragraphs, "workers": args.workers,
                    "partition_mb": args.partition_mb, "gen_processes": args.gen_processes},
           "machine": machine, "date": time.strftime("%Y-%m-%d"), "rows": rows}
    Path(args.json).write_text(json.dumps(record, indent=1) + "\n", "utf-8")
    print(f"written {args.json}")


if __name__ == "__main__":
    main()
