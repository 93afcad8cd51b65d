"""Write the record of a finished ``figbench generate metaphors`` run (``results/generation/<name>.json``).

The run itself is made with the command the record states, under ``/usr/bin/time -v`` (its log gives the wall
time and peak memory) while a loop appends ``<epoch seconds> <1-minute load average>`` lines to a load file:

    /usr/bin/time -v figbench generate metaphors ... --out DIR 2> time.log
    python benchmarks/record_generation.py DIR --name NAME --time-log time.log --load-log load.txt \\
        --command "figbench generate metaphors ..."

A run whose answers were made on another machine (``benchmarks/paraphrase_elsewhere.py answer`` on a lent GPU,
then ``--cache-only`` here) gives that step's JSON report with ``--device-report``: the record's machine, generation
seconds and tokens per second are then that machine's, and no load log is needed (the lent machine ran nothing else).

The record (:func:`figbench.generate.record.generation_record`) is rendered into the README's generation
blocks (``figbench docs --write``) and checked by ``tests/test_generation_records.py``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def time_log(path: Path) -> tuple[float, float | None]:
    """(wall seconds, peak RSS in MB) from a GNU time -v log."""
    text = path.read_text("utf-8", "replace")
    m = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", text)
    if not m:
        raise ValueError(f"{path}: no 'Elapsed (wall clock) time' line (is it a /usr/bin/time -v log?)")
    wall = int(m.group(1) or 0) * 3600 + int(m.group(2)) * 60 + float(m.group(3))
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
    return wall, round(int(rss.group(1)) / 1024, 1) if rss else None


def load_log(path: Path, start: float | None = None, end: float | None = None) -> list[float]:
    """[min, mean, max] of the 1-minute load averages logged (between ``start`` and ``end``)."""
    vals = [float(v) for t, v in (line.split() for line in path.read_text().splitlines() if line.strip())
            if (start is None or float(t) >= start) and (end is None or float(t) <= end)]
    if not vals:
        raise ValueError(f"{path}: no load samples in the run's time span")
    return [min(vals), round(sum(vals) / len(vals), 2), max(vals)]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("dir")
    p.add_argument("--name", required=True)
    p.add_argument("--command", required=True)
    p.add_argument("--time-log", default=None)
    p.add_argument("--load-log", default=None, help="required unless --device-report")
    p.add_argument("--since", type=float, default=None, help="epoch seconds the run started (load samples after)")
    p.add_argument("--note", default="")
    p.add_argument("--generate-seconds", type=float, default=None,
                   help="the generation's seconds, for a run stopped and rebuilt with --cache-only")
    p.add_argument("--wall-seconds", type=float, default=None, help="instead of --time-log's wall time")
    p.add_argument("--device-report", default=None,
                   help="the JSON report of `paraphrase_elsewhere.py answer` (answers made on another machine)")
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    if not args.load_log and not args.device_report:
        p.error("--load-log is required unless --device-report is given")
    from figbench.generate.record import generation_record, validate_record

    wall, rss = time_log(Path(args.time_log)) if args.time_log else (args.wall_seconds, None)
    if args.wall_seconds is not None:
        wall = args.wall_seconds
    end = args.since + wall if args.since is not None else None
    device = json.loads(Path(args.device_report).read_text("utf-8")) if args.device_report else None
    if device and wall is None:
        wall = device["seconds"] + device["load_seconds"]
    rec = generation_record(args.dir, name=args.name, command=args.command, wall_s=wall,
                            load_average=load_log(Path(args.load_log), args.since, end) if args.load_log else None,
                            peak_rss_mb=rss, note=args.note, generate_s=args.generate_seconds, device=device)
    validate_record(rec, args.name)
    out = Path(args.out or ROOT / "results" / "generation" / f"{args.name}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(rec, indent=1, ensure_ascii=False) + "\n", "utf-8")
    print(f"written {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
