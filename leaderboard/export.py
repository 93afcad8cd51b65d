"""``figbench leaderboard export``: the whole board as a Parquet/JSON dataset folder.

Writes ``submissions.{parquet,jsonl}`` (one row per submission: metadata, ``score.*``,
``ci_low.*``/``ci_high.*``; no predictions, never gold) and ``overview.{parquet,jsonl}`` (one
row per model, headline scores in percent), plus a dataset card ``README.md`` whose ``configs:``
make ``datasets.load_dataset(DIR, "submissions")`` work. ``gold`` says per row whether the benchmark's
gold is public (released with the corpus) or hidden (server only). Hidden benchmarks are written as the
board releases them (the Ladder's headline only, no intervals, counts or mismatch flags) unless ``exact``
(for the operator's own use).
"""

from __future__ import annotations

import os
from pathlib import Path

from figbench_leaderboard.domain.benchmarks import BenchmarkRegistry
from figbench_leaderboard.domain.release import gold_kind, release
from figbench_leaderboard.store.sqlite import Store
from figbench_leaderboard.ui.submission_tables import submissions_frame
from figbench_leaderboard.ui.tables import overview

_CARD = """---
pretty_name: figbench leaderboard export
configs:
{configs}
---
# figbench leaderboard export

Every submission of a figbench leaderboard (`submissions`: metadata, status, scores as fractions in
[0, 1] under `score.<metric>`, bootstrap intervals under `ci_low.<metric>`/`ci_high.<metric>`) and the
overview table (`overview`: one row per model, headline scores in percent). Written by
`figbench leaderboard export`. Predictions and gold labels are not included.
"""


def export_board(store: Store, out_dir: str | os.PathLike, *, fmt: str = "both",
                 registry: BenchmarkRegistry | None = None, exact: bool = False) -> list[Path]:
    """Write the board under ``out_dir``; returns the files written."""
    if fmt not in ("parquet", "json", "both"):
        raise ValueError(f"format must be parquet, json or both, got {fmt!r}")
    registry = registry or BenchmarkRegistry()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rows = store.list()
    rows = [{**r, "gold": gold_kind(r)} if exact else release(r) for r in rows]
    frames = {"submissions": submissions_frame(rows), "overview": overview(rows, registry)}
    written: list[Path] = []
    configs = []
    for name, df in frames.items():
        data_files = []
        if fmt in ("parquet", "both"):
            p = out / f"{name}.parquet"
            df.to_parquet(p, index=False)
            written.append(p)
            data_files.append(p.name)
        if fmt in ("json", "both"):
            p = out / f"{name}.jsonl"
            df.to_json(p, orient="records", lines=True, force_ascii=False)
            written.append(p)
            if not data_files:
                data_files.append(p.name)
        configs.append(f"- config_name: {name}\n  data_files:\n  - split: train\n    path: {data_files[0]}")
    card = out / "README.md"
    card.write_text(_CARD.format(configs="\n".join(configs)), "utf-8")
    written.append(card)
    return written
