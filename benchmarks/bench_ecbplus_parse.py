"""Benchmark: ECB+ preparation speed (target: all 982 XML files in under 30 s), side by side in one run.

Rows: (1) parsing the 982 XML files with ``figbench.corpora.ecbplus`` (stdlib ElementTree), (2) the
same files read with ``xml.dom.minidom`` (a DOM baseline, parse only, no annotation handling), (3) a
cold ``ecbplus``/``events`` build into an empty ``datasets`` cache (parse + rows + Arrow), (4) the
cached reload of that build, (5) a cold ``ecbmeta``/``meta_m`` build (uCDCR tables + ECB+ alignment).
Exits non-zero when (1) or (3) takes 30 s or more.

Usage: python benchmarks/bench_ecbplus_parse.py [--data-root ../shared/data] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "2")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

TARGET_S = 30.0


def _best(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-root", default=str(Path(__file__).resolve().parents[2] / "shared" / "data"))
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    root = Path(args.data_root)
    ecb_root = root / "ecbplus"
    if not (ecb_root / "ECB+").is_dir():
        print(f"ECB+ not found under {ecb_root}", file=sys.stderr)
        return 2

    from xml.dom import minidom

    import datasets
    import figbench
    from figbench.corpora import ecbplus as ecb_io

    files = ecb_io.ecb_files(ecb_root / "ECB+")
    datasets.disable_progress_bars()
    rows = []
    parse = _best(lambda: ecb_io.parse_ecb_corpus(ecb_root / "ECB+"), args.repeats)
    rows.append(("ecb_io.parse_ecb_corpus (ElementTree)", parse, len(files)))
    dom = _best(lambda: [minidom.parse(str(p)) for p in files], args.repeats)
    rows.append(("xml.dom.minidom parse only (baseline)", dom, len(files)))
    with tempfile.TemporaryDirectory() as cache:
        t = time.perf_counter()
        ds = figbench.load_dataset("ecbplus", "events", data_dir=str(ecb_root), cache_dir=cache)
        cold = time.perf_counter() - t
        n = sum(len(d) for d in ds.values())
        rows.append(("ecbplus/events cold build (all 5 splits)", cold, n))
        warm = _best(lambda: figbench.load_dataset("ecbplus", "events", data_dir=str(ecb_root), cache_dir=cache),
                     args.repeats)
        rows.append(("ecbplus/events cached reload", warm, n))
        if (root / "ecbmeta" / "ucdcr").is_dir():
            t = time.perf_counter()
            dm = figbench.load_dataset("ecbmeta", "meta_m", data_dir=str(root / "ecbmeta"), cache_dir=cache)
            rows.append(("ecbmeta/meta_m cold build (all 4 splits)", time.perf_counter() - t,
                         sum(len(d) for d in dm.values())))
    width = max(len(r[0]) for r in rows)
    print(f"{'step':<{width}}  {'seconds':>8}  {'items':>7}  {'items/s':>9}")
    for name, secs, items in rows:
        print(f"{name:<{width}}  {secs:8.2f}  {items:7d}  {items / secs:9.0f}")
    print(f"ElementTree parse vs minidom: {dom / parse:.2f}x; cold build vs cached reload: {cold / warm:.1f}x")
    ok = parse < TARGET_S and cold < TARGET_S
    print(f"target: 982 XML files in under {TARGET_S:.0f} s -> parse {parse:.2f} s, cold build {cold:.2f} s: "
          f"{'OK' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
