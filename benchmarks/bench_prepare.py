"""Benchmark: writing a corpus's rows to Arrow when a builder prepares it, side by side in one run.

For each corpus config found under the data root, the builder's rows are generated once (timed:
parsing and row building, the same for both paths), then encoded and written two ways: (1)
``datasets``' generator-builder path, ``Features.encode_example`` per row through its ``ArrowWriter``
(what figbench's builders did before), and (2) figbench's batch path, :func:`rows_to_table` (a column
at a time, plain columns converted by Arrow). The two tables must be equal; the script exits
non-zero if any differs.

Usage: python benchmarks/bench_prepare.py [--data-root ../shared/data] [--corpora ecbplus wimcor ...]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

ROOT = Path(__file__).resolve().parent.parent
#: corpus -> configs timed (the largest of each kind)
CONFIGS = {"ecbplus": ["events_all", "documents"], "ecbmeta": ["meta_m"], "wec_eng": ["events"],
           "meta4xnli": ["detection_en", "interpretation"], "wimcor": ["sample"], "epic": ["seen"]}


def generated_rows(corpus: str, config: str, data_root: Path, cache: str):
    """(features, rows of every split, seconds to generate them) from the builder's own generator."""
    from figbench.loading import builder_class

    builder = builder_class(corpus)(config_name=config, cache_dir=cache, source_dir=str(data_root / corpus))
    t0 = time.perf_counter()
    rows = []
    for split in builder._split_generators(None):
        rows.extend(row for _, row in builder._generate_examples(**split.gen_kwargs))
    return builder.info.features, rows, time.perf_counter() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-root", type=Path,
                    default=Path(os.environ.get("FIGBENCH_DATA_DIR", ROOT.parent / "shared" / "data")))
    ap.add_argument("--corpora", nargs="+", default=list(CONFIGS))
    args = ap.parse_args(argv)
    from figbench.corpora.builder import rows_to_table, rows_to_table_one_by_one

    print(f"{'corpus/config':28} {'rows':>8} {'generate':>9} {'one by one':>11} {'batches':>8} {'speed-up':>9}  equal")
    bad = []
    with tempfile.TemporaryDirectory() as cache:
        for corpus in args.corpora:
            if not (args.data_root / corpus).is_dir():
                print(f"{corpus}: no data under {args.data_root / corpus}, skipped")
                continue
            for config in CONFIGS[corpus]:
                features, rows, t_gen = generated_rows(corpus, config, args.data_root, cache)
                t0 = time.perf_counter()
                old = rows_to_table_one_by_one(rows, features)
                t_old = time.perf_counter() - t0
                t0 = time.perf_counter()
                new = rows_to_table(rows, features)
                t_new = time.perf_counter() - t0
                same = new.equals(old)
                bad += [] if same else [f"{corpus}/{config}"]
                print(f"{corpus + '/' + config:28} {len(rows):>8,} {t_gen:>8.2f}s {t_old:>10.2f}s {t_new:>7.2f}s "
                      f"{t_old / max(t_new, 1e-9):>8.1f}x  {'yes' if same else 'NO'}", flush=True)
    if bad:
        print(f"tables differ: {bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
