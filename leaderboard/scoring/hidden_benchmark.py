"""Making a hidden benchmark (the maintainer's path): a never-released split in, gold into the server's
private store (:class:`~figbench_leaderboard.scoring.gold.PrivateGoldStore`), inputs out for submitters.

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

from figbench_leaderboard.scoring.gold import PrivateGoldStore

from figbench.tasks import Benchmark, get_task

_SECRET = ".id-secret"


def load_source(bench: Benchmark, *, data_files: list[str] | None = None, data_dir: str | None = None):
    """The source split: ``data_files`` (JSON, JSONL or Parquet files, or one Hub-layout dataset folder such
    as a built ``figbench generate`` output folder) or the builder's split under ``data_dir``."""
    import datasets

    if data_files:
        folders = [f for f in data_files if Path(f).is_dir()]
        if folders:
            if len(data_files) > 1:
                raise ValueError(f"--data-files {folders[0]}: a dataset folder is given alone, not with other files")
            return load_folder(Path(folders[0]), bench)
        for f in data_files:
            if not any(ch in f for ch in "*?[") and not Path(f).is_file():
                raise FileNotFoundError(f"--data-files {f}: no such file or folder")
        kind = "parquet" if Path(data_files[0]).suffix.lower() == ".parquet" else "json"
        return datasets.load_dataset(kind, data_files=list(data_files), split="train")
    import figbench

    return figbench.load_dataset(bench.dataset, bench.config, split=bench.split, data_dir=data_dir)


def load_folder(path: Path, bench: Benchmark):
    """``bench.split`` of a Hub-layout dataset folder (``datasets.load_dataset(path)``): its one config, or
    ``bench.config`` among several. A ``figbench generate metaphors`` folder must have been built."""
    import datasets

    if (path / "generation").is_dir() and not (path / "data").is_dir():
        raise ValueError(f"{path}: a `figbench generate metaphors` folder without its corpus (no data/); "
                         f"run `figbench generate build {path}` first")
    try:
        configs = datasets.get_dataset_config_names(str(path))
    except Exception as e:  # datasets raises several kinds for a folder it cannot read
        raise ValueError(f"{path}: not a dataset folder datasets can load ({type(e).__name__}: {e})") from None
    if len(configs) > 1 and bench.config not in configs:
        raise ValueError(f"{path}: several configs ({', '.join(configs)}) and none is --config {bench.config}")
    config = bench.config if bench.config in configs else configs[0]
    splits = datasets.get_dataset_split_names(str(path), config)
    if bench.split not in splits:
        raise ValueError(f"{path}: config {config} has no split {bench.split!r} (its splits: {', '.join(splits)}); "
                         "name the benchmark's --split as the folder does, or pass the split's file")
    return datasets.load_dataset(str(path), config, split=bench.split)


def _id_columns(task) -> list[str]:
    return [c for c in (getattr(task, "mention_column", None), getattr(task, "id_column", None)) if c]


def _opaque(store: PrivateGoldStore, bench: Benchmark, what: str):
    """``value -> opaque id``: an HMAC under the private store's secret (the same value, the same id)."""
    store.root.mkdir(parents=True, exist_ok=True)
    path = store.root / _SECRET
    if not path.is_file():
        path.write_text(secrets.token_hex(32), "utf-8")
        os.chmod(path, 0o600)
    key = bytes.fromhex(path.read_text("utf-8").strip())
    salt = bench.key if what == "id" else f"{bench.key}\x1f{what}"

    def new(value: Any) -> str:
        return hmac.new(key, f"{salt}\x1f{value}".encode(), hashlib.sha256).hexdigest()[:16]

    return new


def with_fresh_ids(store: PrivateGoldStore, bench: Benchmark, dataset):
    """``dataset`` with its id columns replaced by opaque ids (HMAC of the old id under the store's secret)."""
    new = _opaque(store, bench, "id")
    task = get_task(bench.task)
    cols = [c for c in _id_columns(task) if c in dataset.column_names]
    pairs = getattr(task, "pairs_column", None)
    if pairs in dataset.column_names:   # span alignment: each pair's id is an example id, its passage's id a link
        cols += [c for c in ("id",) if c in dataset.column_names and c not in cols]
        return dataset.map(lambda ex: {**{c: new(ex[c]) for c in cols},
                                       pairs: [{**p, "pair_id": new(p["pair_id"])} for p in ex[pairs]]})
    return dataset.map(lambda ex: {c: new(ex[c]) for c in cols})


#: columns that name the source (a document, a topic): replaced by opaque values, the grouping kept
SOURCE_NAMING = ("doc_id", "topic", "subtopic", "document", "doc", "article_id", "page_id")
#: columns a submitter never needs: dropped
NEVER_NEEDED = ("original_text", "url", "page_url", "title", "page_title", "source", "source_file", "revision_id")


def sanitise(store: PrivateGoldStore, bench: Benchmark, inputs):
    """The inputs a submitter gets: every column that names the source replaced by an opaque value (the same
    document, the same value: the grouping a task needs survives), every column no task input needs dropped.
    Returns ``(inputs, {"dropped": [...], "opaque": [...]})``."""
    task = get_task(bench.task)
    group = getattr(task, "group_column", None)
    drop = [c for c in inputs.column_names if c in NEVER_NEEDED]
    inputs = inputs.remove_columns(drop) if drop else inputs
    opaque = [c for c in inputs.column_names if c in SOURCE_NAMING or (group and c == group)]
    makers = {c: _opaque(store, bench, c) for c in opaque}
    if opaque:
        inputs = inputs.map(lambda ex: {c: makers[c](ex[c]) for c in opaque})
    return inputs, {"dropped": drop, "opaque": opaque}


def make_hidden(store: PrivateGoldStore, bench: Benchmark, dataset, inputs_out: str | os.PathLike, *,
                fresh_ids: bool = False, public=None, report=None,
                audit_corpora: list[str] | None = None, audit_dump: Any = None) -> dict[str, Any]:
    """Sanitise ``dataset``'s inputs (:func:`sanitise`), audit them against public text (``public``: a
    :class:`~figbench_leaderboard.scoring.linkage_audit.PublicIndex`, default every public corpus figbench can
    load locally) BEFORE anything is written, then write ``bench``'s gold (with the audited share) into
    ``store`` and its inputs to ``inputs_out`` (``inputs.parquet`` and ``inputs.jsonl``); returns a summary (no
    gold in it). ``report``: called with the audit's one-line summary before anything is written. ``audit_dump``:
    the MediaWiki dump a harvested split was made from, whose page text the audit reads as public text too."""
    from dataclasses import replace

    from figbench_leaderboard.scoring.linkage_audit import audit, local_public_index

    if fresh_ids:
        dataset = with_fresh_ids(store, bench, dataset)
    task = get_task(bench.task)
    gold = task.gold_from_dataset(dataset, bench.key)
    inputs, changed = sanitise(store, bench, task.inputs_only(dataset))
    if public is None:
        public = local_public_index(task, corpora=audit_corpora)
    if audit_dump is not None:
        public.add_dump(audit_dump)
    found = audit(task, inputs, gold, public)
    line = (f"linkage audit: {found.reconstructed} of {found.items} items ({100 * found.share:.1f}%) have their gold "
            f"reconstructed from public text ({found.linked} linked; {dict(found.sources) or 'no public match'})")
    if report is not None:
        report(line)
    bench = replace(bench, derivable=round(found.share, 4))
    folder = store.add(bench, gold)
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
         "note": bench.note, "derivable": bench.derivable}, indent=2), "utf-8")
    return {"benchmark": bench.key, "gold": "hidden", "examples": len(inputs), "private": folder.name,
            "inputs": [str(out / "inputs.parquet"), str(out / "inputs.jsonl")],
            "left_out": list(task.gold_columns()), "dropped": changed["dropped"], "opaque": changed["opaque"],
            "audit": found.to_json()}
