"""The leaderboard service: accept submissions, queue them, score them against hidden gold.

``Leaderboard.submit`` validates a submission completely (size, JSON, schema, metadata, the
benchmark, the predictions against the split's ids) before anything is stored, so a rejected
upload leaves the store unchanged; an accepted one is stored PENDING and scored by
``Leaderboard.process`` (the queue worker) to FINISHED or FAILED with a reason. A result record
without inline predictions is stored FINISHED but flagged unverified.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from figbench_leaderboard.benchmarks import BenchmarkRegistry
from figbench_leaderboard.formats import (
    PREDICTIONS_FORMAT,
    SubmissionError,
    check_name,
    check_text,
    loads_strict,
    normalise_model,
    parse_predictions,
)
from figbench_leaderboard.gold import BuilderGoldProvider, GoldProvider
from figbench_leaderboard.store import Store

_PREDICTIONS_FILE_KEYS = {"format", "task", "dataset", "config", "split", "model", "predictions",
                          "submitter", "description", "paper", "provenance", "method"}
_REQUIRED = ("task", "dataset", "config", "split", "predictions")


@dataclass(frozen=True)
class Limits:
    """Upload size limit and scoring settings."""

    max_bytes: int = 10 * 1024 * 1024
    n_resamples: int = 1000
    seed: int = 0


def _sha256(obj: Any) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, separators=(",", ":")).encode("utf-8")).hexdigest()


class Leaderboard:
    """Submissions in a :class:`Store`, scored against a :class:`GoldProvider`."""

    def __init__(self, store: Store, gold: GoldProvider | None = None, *,
                 registry: BenchmarkRegistry | None = None, limits: Limits | None = None) -> None:
        self.store = store
        self.gold = gold if gold is not None else BuilderGoldProvider()
        self.registry = registry or BenchmarkRegistry()
        self.limits = limits or Limits()

    # --- submission ---------------------------------------------------------------------------
    def parse_submission(self, data: bytes | str | Mapping, *, submitter: str | None = None,
                         overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Validate a submission and return the row to store (raises :class:`SubmissionError`)."""
        if isinstance(data, (bytes, str)):
            size = len(data.encode("utf-8") if isinstance(data, str) else data)
            if size > self.limits.max_bytes:
                raise SubmissionError(f"upload is {size:,} bytes; the limit is {self.limits.max_bytes:,} bytes")
            if size == 0:
                raise SubmissionError("upload is empty")
            obj = loads_strict(data)
        else:
            obj = data
        if not isinstance(obj, Mapping):
            raise SubmissionError(f"expected a JSON object, got {type(obj).__name__}")
        overrides = {k: v for k, v in (overrides or {}).items() if v not in (None, "")}
        if "schema_version" in obj:
            from figbench.results import ResultValidationError, validate_result

            try:
                validate_result(obj, source="result record")
            except ResultValidationError as e:
                raise SubmissionError(str(e)) from None
            kind = "result"
            preds_block = obj["predictions"]
            raw_preds = preds_block.get("inline")
            reported = dict(obj["scores"])
            reported_cis = dict(obj["confidence_intervals"])
            provenance = obj["provenance"]
        elif obj.get("format") == PREDICTIONS_FORMAT:
            extra = set(obj) - _PREDICTIONS_FILE_KEYS
            if extra:
                raise SubmissionError(f"predictions file: unknown field(s) {sorted(extra)}; allowed: {sorted(_PREDICTIONS_FILE_KEYS)}")
            missing = [k for k in _REQUIRED if k not in obj]
            if missing:
                raise SubmissionError(f"predictions file: missing field(s) {missing}")
            for k in ("task", "dataset", "config", "split"):
                if not isinstance(obj[k], str):
                    raise SubmissionError(f"predictions file: {k} must be text")
            kind = "predictions"
            raw_preds = obj["predictions"]
            reported, reported_cis = {}, {}
            provenance = obj.get("provenance") or {}
            if not isinstance(provenance, Mapping):
                raise SubmissionError("predictions file: provenance must be an object")
        else:
            raise SubmissionError(
                "not a figbench submission: expected a result record (with 'schema_version') or a predictions "
                f"file (with \"format\": \"{PREDICTIONS_FORMAT}\")")

        model_in = dict(obj.get("model") or {})
        for f in ("name", "revision", "type", "parameters", "link", "licence"):
            if f in overrides:
                model_in[f] = overrides[f]
        model = normalise_model(model_in)
        who = overrides.get("submitter", submitter if submitter is not None else obj.get("submitter"))
        if who is not None and not isinstance(who, str):
            raise SubmissionError("submitter: expected text")
        who = check_name(who, "submitter") if who else None
        if who and len(who) > 100:
            raise SubmissionError("submitter: longer than 100 characters")
        description = check_text(overrides.get("description", obj.get("description")), "description")
        paper = check_text(overrides.get("paper", obj.get("paper")), "paper")
        method = check_text(obj.get("method"), "method")

        bench = self.registry.find(obj["task"], obj["dataset"], obj["config"], obj["split"])
        usable = raw_preds is not None and raw_preds != [] and raw_preds != {}
        row: dict[str, Any] = {
            "task": bench.task, "dataset": bench.dataset, "config": bench.config, "split": bench.split,
            "model_name": model["name"], "model_revision": model["revision"] or "", "model_type": model["type"],
            "model_parameters": model["parameters"], "submitter": who,
            "metadata": {"kind": kind, "model": model, "description": description, "paper": paper,
                         "method": method, "provenance": dict(provenance)},
            "reported_scores": reported or None,
        }
        if usable:
            gold = self.gold.get(bench)
            preds = parse_predictions(bench.task, raw_preds, gold)
            row.update(status="PENDING", verified=True, predictions=preds, sha256=_sha256(preds))
        else:
            if not reported:
                raise SubmissionError("no predictions to score and no self-reported scores")
            row.update(status="FINISHED", verified=False, predictions=None, sha256=_sha256(reported),
                       reason="unverified: self-reported scores without predictions",
                       scores=reported, confidence_intervals=reported_cis, counts=obj.get("counts") or {})
        return row

    def submit(self, data: bytes | str | Mapping, *, submitter: str | None = None, client: str | None = None,
               overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Validate and store a submission; returns ``{"id", "status", "verified", "benchmark"}``."""
        row = self.parse_submission(data, submitter=submitter, overrides=overrides)
        row["client"] = client
        sid = self.store.add(row)
        return {"id": sid, "status": row["status"], "verified": row["verified"],
                "benchmark": f"{row['task']}/{row['dataset']}/{row['config']}/{row['split']}"}

    # --- the queue ----------------------------------------------------------------------------
    def process(self, sid: str | None = None) -> dict[str, Any] | None:
        """Score one PENDING submission (``sid``, else the oldest): RUNNING -> FINISHED or FAILED."""
        from figbench_leaderboard.scoring import mismatches, score

        sub = self.store.claim(sid) if sid else self.store.claim_next()
        if sub is None:
            return None
        try:
            bench = self.registry.find(sub["task"], sub["dataset"], sub["config"], sub["split"])
            gold = self.gold.get(bench)
            preds = parse_predictions(bench.task, sub["predictions"], gold)
            result = score(bench.task, preds, gold, n_resamples=self.limits.n_resamples, seed=self.limits.seed)
            flagged = mismatches(sub.get("reported_scores") or {}, result.scores)
        except Exception as e:  # the reason is shown to the submitter
            self.store.fail(sub["id"], f"{type(e).__name__}: {e}")
        else:
            self.store.finish(sub["id"], scores=result.scores, confidence_intervals=result.confidence_intervals,
                              counts=result.counts, mismatches=flagged)
        return self.store.get(sub["id"])

    def run_pending(self, limit: int | None = None) -> int:
        """Process PENDING submissions until none is left (or ``limit``); returns how many."""
        n = 0
        while limit is None or n < limit:
            if self.process() is None:
                break
            n += 1
        return n
