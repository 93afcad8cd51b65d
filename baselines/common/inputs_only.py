"""Baselines on a hidden benchmark's inputs (no gold): a submittable predictions file instead of a record.

``figbench leaderboard hidden add --inputs-out DIR`` writes ``inputs.jsonl`` / ``inputs.parquet`` and
``benchmark.json`` (task, dataset, config, split). A baseline given such a file predicts it and writes a
``figbench-predictions/1`` file for that benchmark, which ``figbench submit`` sends to the board.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

FORMAT = "figbench-predictions/1"


def read_inputs(path: str | os.PathLike) -> list[dict]:
    """Rows of an inputs file: JSON lines, a JSON list, or Parquet."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such inputs file")
    if path.suffix.lower() == ".parquet":
        import datasets

        return datasets.Dataset.from_parquet(str(path)).to_list()
    text = path.read_text("utf-8")
    try:
        rows = json.loads(text)
    except json.JSONDecodeError:
        rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    if isinstance(rows, dict):   # JSON lines of one row
        rows = [rows]
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise ValueError(f"{path}: expected JSON lines (or a JSON list) of input rows")
    return rows


def benchmark_of(inputs: str | os.PathLike, task: str, fallback: Mapping[str, str]) -> dict[str, str]:
    """The benchmark an inputs file belongs to: ``benchmark.json`` beside it (what ``hidden add`` writes), else
    ``fallback`` (``dataset``, ``config``, ``split`` from the command line)."""
    decl = Path(inputs).parent / "benchmark.json"
    if decl.is_file():
        found = json.loads(decl.read_text("utf-8"))
        if found.get("task") != task:
            raise ValueError(f"{decl}: a benchmark of task {found.get('task')!r}, not {task}")
        return {k: str(found[k]) for k in ("task", "dataset", "config", "split")}
    return {"task": task, **{k: str(fallback[k]) for k in ("dataset", "config", "split")}}


def predictions_file(bench: Mapping[str, str], model: Mapping[str, Any], method: str, predictions: Any,
                     provenance: Mapping[str, Any] | None = None) -> dict[str, Any]:
    return {"format": FORMAT, **bench, "model": dict(model), "method": method, "predictions": predictions,
            **({"provenance": dict(provenance)} if provenance else {})}


def write_predictions_file(preds: Mapping[str, Any], out: str | os.PathLike) -> None:
    """Write a submittable predictions file (atomically) and say how to submit it."""
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(preds, ensure_ascii=False), "utf-8")
    os.replace(tmp, path)
    key = "/".join(preds[k] for k in ("task", "dataset", "config", "split"))
    print(f"{len(preds['predictions'])} predictions for {key} (inputs only: not scored here) -> {path}\n"
          f"submit: figbench submit {path} --to BOARD_URL --token YOUR_TOKEN", file=sys.stderr)


def add_inputs_option(p) -> None:
    """``--inputs-file``: a hidden benchmark's inputs (no gold); the run writes a predictions file to ``--out``."""
    p.add_argument("--inputs-file", default=None, metavar="FILE",
                   help="a hidden benchmark's inputs (inputs.jsonl/.parquet from `figbench leaderboard hidden add`, "
                        "no gold): train on the public train split as usual, predict every input row and write a "
                        "submittable predictions file to --out (nothing is scored)")


def task_inputs(path: str | os.PathLike, task_name: str):
    """The rows of an inputs file as :class:`~figbench_baselines.common.splits.Rows`, with whatever the task counts
    as gold removed first (``Task.inputs_only``), so a baseline cannot read gold even from a file that holds it."""
    from figbench_baselines.common.splits import Rows

    import datasets
    from figbench.tasks import get_task

    task = get_task(task_name)
    rows = read_inputs(path)
    if not rows:
        raise ValueError(f"{path}: no input rows")
    id_col = next(getattr(task, c) for c in ("mention_column", "id_column", "pairs_column") if hasattr(task, c))
    missing = [i for i, r in enumerate(rows) if id_col not in r]
    if missing:
        raise ValueError(f"{path}: row #{missing[0]} lacks the {task.name} input column {id_col!r}")
    ds = task.inputs_only(datasets.Dataset.from_list(rows))
    return Rows.of(ds, ds.to_list())


def refuse_subsets(args, **options: Any) -> None:
    """A predictions file covers every input row: options that evaluate a subset or read test gold are refused."""
    if not getattr(args, "out", None):
        raise ValueError("--inputs-file: --out FILE (the predictions file to submit) is required")
    for name, value in options.items():
        if value:
            raise ValueError(f"--inputs-file: --{name.replace('_', '-')} does not apply (the run predicts every input "
                             "row of the task's benchmark, scores nothing and writes a predictions file to --out for "
                             "`figbench submit`)")


def write_submission(args, task: str, fallback: Mapping[str, str], *, model: Mapping[str, Any], method: str,
                     predictions: Any, clock, throughput: Mapping[str, float] | None = None) -> int:
    """Write the predictions of an ``--inputs-file`` run for the benchmark its ``benchmark.json`` names."""
    from figbench_baselines.common.figurative import is_main_process

    from figbench.results import provenance

    if not is_main_process():   # under `accelerate launch`: one file
        return 0
    bench = benchmark_of(args.inputs_file, task, fallback)
    prov = provenance(clock, seed=args.seed, throughput=dict(throughput or {}))
    write_predictions_file(predictions_file(bench, model, method, predictions, prov), args.out)
    return 0
