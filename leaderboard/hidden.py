"""Making a hidden benchmark (the maintainer's path): a never-released split in, gold into the server's
private store (:class:`~figbench_leaderboard.gold.PrivateGoldStore`), inputs out for submitters.

``figbench leaderboard hidden add`` calls :func:`load_source` and :func:`make_hidden`. The source is a
split with the task's gold columns that was never published: a maintainer's own ``figbench generate
metaphors`` run, a fresh harvest, or a builder split under a private ``--data-dir``. If its ids are
public (e.g. a generated variant of ECB+ test keeps ECB+'s mention ids), ``fresh_ids`` replaces them by
opaque ids derived from a secret kept in the private store, so the ids do not lead back to released gold.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from pathlib import Path
from typing import Any

from figbench_leaderboard.gold import PrivateGoldStore

from figbench.tasks import Benchmark, get_task

_SECRET = ".id-secret"


def load_source(bench: Benchmark, *, data_files: list[str] | None = None, data_dir: str | None = None):
    """The source split: ``data_files`` (JSON, JSONL or Parquet) or the builder's split under ``data_dir``."""
    import datasets

    if data_files:
        suffix = Path(data_files[0]).suffix.lower()
        kind = "parquet" if suffix == ".parquet" else "json"
        return datasets.load_dataset(kind, data_files=list(data_files), split="train")
    import figbench

    return figbench.load_dataset(bench.dataset, bench.config, split=bench.split, data_dir=data_dir)


def _id_columns(task) -> list[str]:
    return [c for c in (getattr(task, "mention_column", None), getattr(task, "id_column", None)) if c]


def with_fresh_ids(store: PrivateGoldStore, bench: Benchmark, dataset):
    """``dataset`` with its id columns replaced by opaque ids (HMAC of the old id under the store's secret)."""
    store.root.mkdir(parents=True, exist_ok=True)
    path = store.root / _SECRET
    if not path.is_file():
        path.write_text(secrets.token_hex(32), "utf-8")
        os.chmod(path, 0o600)
    key = bytes.fromhex(path.read_text("utf-8").strip())

    def new(value: Any) -> str:
        return hmac.new(key, f"{bench.key}\x1f{value}".encode(), hashlib.sha256).hexdigest()[:16]

    cols = [c for c in _id_columns(get_task(bench.task)) if c in dataset.column_names]
    return dataset.map(lambda ex: {c: new(ex[c]) for c in cols})


def make_hidden(store: PrivateGoldStore, bench: Benchmark, dataset, inputs_out: str | os.PathLike, *,
                fresh_ids: bool = False) -> dict[str, Any]:
    """Write ``bench``'s gold from ``dataset`` into ``store`` and its inputs to ``inputs_out``
    (``inputs.parquet`` and ``inputs.jsonl``); returns a summary (no gold in it)."""
    if fresh_ids:
        dataset = with_fresh_ids(store, bench, dataset)
    task = get_task(bench.task)
    folder, inputs = store.add_split(bench, dataset)
    left = [c for c in task.gold_columns() if c in inputs.column_names and c != getattr(task, "pairs_column", None)]
    if left:   # pragma: no cover - inputs_only removes them; kept as a guard against a new kind forgetting to
        raise ValueError(f"inputs of {bench.key} still hold gold columns {left}")
    out = Path(inputs_out)
    out.mkdir(parents=True, exist_ok=True)
    inputs.to_parquet(str(out / "inputs.parquet"))
    inputs.to_json(str(out / "inputs.jsonl"), lines=True, force_ascii=False)
    (out / "benchmark.json").write_text(json.dumps(
        {"task": bench.task, "dataset": bench.dataset, "config": bench.config, "split": bench.split,
         "label": bench.label, "gold": "hidden", "examples": len(inputs), "columns": inputs.column_names,
         "note": bench.note}, indent=2), "utf-8")
    return {"benchmark": bench.key, "gold": "hidden", "examples": len(inputs), "private": folder.name,
            "inputs": [str(out / "inputs.parquet"), str(out / "inputs.jsonl")],
            "left_out": list(task.gold_columns())}
