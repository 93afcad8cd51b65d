"""Validation of one submission body into the row the store keeps (:func:`parse_submission`): size, strict
JSON, the record's schema, metadata, names, the benchmark and the predictions against the split's gold.

Pure of the store and the server: the board runs it in its own process for small bodies and in the parse
worker (:mod:`figbench_leaderboard.scoring.parse_worker`) for big ones.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from figbench_leaderboard.domain.benchmarks import BenchmarkRegistry
from figbench_leaderboard.domain.submission import (
    PREDICTIONS_FORMAT,
    SubmissionError,
    check_declared_scores,
    check_freeform,
    check_name,
    check_text,
    loads_strict,
    normalise_model,
    parse_predictions,
)
from figbench_leaderboard.scoring.gold import GoldProvider

_PREDICTIONS_FILE_KEYS = {"format", "task", "dataset", "config", "split", "model", "predictions",
                          "submitter", "description", "paper", "provenance", "method"}
_REQUIRED = ("task", "dataset", "config", "split", "predictions")
_MAX_COUNTS = 50


def _sha256(obj: Any) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, separators=(",", ":")).encode("utf-8")).hexdigest()


def _counts(obj: Any) -> dict[str, float]:
    if not isinstance(obj, Mapping):
        return {}
    out = {str(k)[:100]: float(v) for k, v in obj.items()
           if isinstance(v, (int, float)) and not isinstance(v, bool) and abs(v) < 1e18}
    return dict(list(out.items())[:_MAX_COUNTS])



@dataclass(frozen=True)
class Limits:
    """Upload size limit and scoring settings."""

    max_bytes: int = 10 * 1024 * 1024
    n_resamples: int = 1000
    seed: int = 0


def _load(data: bytes | str | Mapping, limits: Limits) -> Mapping:
    """The submission's JSON object (size, emptiness, strict JSON, an object at the top)."""
    if isinstance(data, (bytes, str)):
        size = len(data.encode("utf-8") if isinstance(data, str) else data)
        if size > limits.max_bytes:
            raise SubmissionError(f"upload is {size:,} bytes; the limit is {limits.max_bytes:,} bytes")
        if size == 0:
            raise SubmissionError("upload is empty")
        obj = loads_strict(data)
    else:
        obj = data
    if not isinstance(obj, Mapping):
        raise SubmissionError(f"expected a JSON object, got {type(obj).__name__}")
    return obj

def parse_submission(data: bytes | str | Mapping, registry: BenchmarkRegistry, gold_provider: GoldProvider,
                     limits: Limits, *, submitter: str | None = None,
                     overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Validate a submission and return the row to store (raises :class:`SubmissionError`): ``_n_ids`` and
    ``_disguised`` are for :meth:`Leaderboard.submit`, the rest is the row."""
    obj = _load(data, limits)
    overrides = {k: v for k, v in (overrides or {}).items() if v not in (None, "")}
    if "schema_version" in obj:
        from figbench.results import ResultValidationError, validate_result

        try:
            validate_result(obj, source="result record")
        except ResultValidationError as e:
            raise SubmissionError(str(e)) from None
        kind = "result"
        raw_preds = obj["predictions"].get("inline")
        reported, reported_cis = dict(obj["scores"]), dict(obj["confidence_intervals"])
        provenance = obj["provenance"]
    elif obj.get("format") == PREDICTIONS_FORMAT:
        extra = set(obj) - _PREDICTIONS_FILE_KEYS
        if extra:
            listed = sorted(str(k)[:40] for k in extra)[:10]
            raise SubmissionError(f"predictions file: unknown field(s) {listed}; allowed: "
                                  f"{sorted(_PREDICTIONS_FILE_KEYS)}")
        missing = [k for k in _REQUIRED if k not in obj]
        if missing:
            raise SubmissionError(f"predictions file: missing field(s) {missing}")
        kind = "predictions"
        raw_preds = obj["predictions"]
        reported, reported_cis = {}, {}
        provenance = obj.get("provenance")
    else:
        raise SubmissionError(
            "not a figbench submission: expected a result record (with 'schema_version') or a predictions "
            f"file (with \"format\": \"{PREDICTIONS_FORMAT}\")")
    for k in ("task", "dataset", "config", "split"):
        if not isinstance(obj.get(k), str) or len(obj[k]) > 100:
            raise SubmissionError(f"{k}: must be text (at most 100 characters)")
    provenance = check_freeform(provenance, "provenance")

    model_in = dict(obj.get("model") or {}) if isinstance(obj.get("model"), Mapping) else obj.get("model")
    if isinstance(model_in, dict):
        for f in ("name", "revision", "type", "parameters", "link", "licence"):
            if f in overrides:
                model_in[f] = overrides[f]
    model = normalise_model(model_in)
    raw_name = model_in.get("name") if isinstance(model_in, Mapping) else None
    who = overrides.get("submitter", submitter if submitter is not None else obj.get("submitter"))
    if who is not None and not isinstance(who, str):
        raise SubmissionError("submitter: expected text")
    who = check_name(who, "submitter") if who else None
    description = check_text(overrides.get("description", obj.get("description")), "description")
    paper = check_text(overrides.get("paper", obj.get("paper")), "paper")
    method = check_text(obj.get("method"), "method")

    bench = registry.find(obj["task"], obj["dataset"], obj["config"], obj["split"])
    task = registry.task(bench)
    usable = raw_preds is not None and raw_preds != [] and raw_preds != {}
    reported, reported_cis = check_declared_scores(task, reported, reported_cis, strict=not usable)
    row: dict[str, Any] = {
        "task": bench.task, "dataset": bench.dataset, "config": bench.config, "split": bench.split,
        "model_name": model["name"], "model_revision": model["revision"] or "", "model_type": model["type"],
        "model_parameters": model["parameters"], "submitter": who,
        "metadata": {"kind": kind, "model": model, "description": description, "paper": paper,
                     "method": method, "provenance": provenance},
        "reported_scores": reported or None,
        "_disguised": isinstance(raw_name, str) and raw_name.strip() != model["name"],
    }
    if usable:
        gold = gold_provider.get(bench)
        preds = parse_predictions(task, raw_preds, gold)
        row.update(status="PENDING", verified=True, predictions=preds, sha256=_sha256(preds),
                   _n_ids=len(gold.ids))
    else:
        if task.headline not in reported:
            raise SubmissionError(f"no predictions to score and no self-reported {task.headline!r} "
                                  f"(the headline of {task.name})")
        row.update(status="FINISHED", verified=False, predictions=None, sha256=_sha256(reported),
                   reason="unverified: self-reported scores without predictions",
                   scores=reported, confidence_intervals=reported_cis, counts=_counts(obj.get("counts")))
    return row
