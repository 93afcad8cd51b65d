"""Submission formats: how a predictions file looks per task, and its validation against gold ids.

A submission is UTF-8 JSON, either

* a figbench **result record** (``figbench.results``; predictions inline), or
* a **predictions file**: ``{"format": "figbench-predictions/1", "task", "dataset", "config",
  "split", "model": {...}, "predictions": ...}`` plus optional ``submitter``, ``description``,
  ``paper``, ``provenance``.

``predictions`` per task (see ``leaderboard/README.md``):

* ``cdec``: a list of clusters, each a list of mention ids; every mention id of the split exactly
  once (singletons included). Also accepted: ``{"clusters": [...]}``, ``[[clusters]]`` (one
  document) or ``{mention_id: cluster_id}``.
* ``metaphor_detection``: ``{example_id: ["O", "B-METAPHOR", ...]}``, one tag per gold token.
* ``metaphor_nli``, ``metonymy``: ``{example_id: label}``.
* ``proverb_prediction``: ``{example_id: [proverb ids, best first]}`` (a single id is a list of one).
* ``proverb_alignment``: ``{pair_id: [start, end]}`` character offsets into the narrative, or
  ``{pair_id: "predicted narrative span"}`` as text.

Lists of ``{"id": ..., "prediction": ...}`` objects are accepted for the per-example tasks.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from figbench_leaderboard.gold import Gold

PREDICTIONS_FORMAT = "figbench-predictions/1"
BIO_TAGS = frozenset({"O", "B-METAPHOR", "I-METAPHOR"})
_MAX_LISTED = 5


class SubmissionError(ValueError):
    """A submission cannot be accepted; the message says which field, id or record is wrong."""


def _reject_constant(name: str) -> Any:
    raise SubmissionError(f"JSON contains {name}: scores and predictions must be finite numbers")


def loads_strict(text: str | bytes, *, source: str = "submission") -> Any:
    """Parse JSON, rejecting NaN/Infinity and duplicate object keys."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as e:
            raise SubmissionError(f"{source}: not UTF-8 text ({e.reason} at byte {e.start})") from None

    def no_dup_keys(pairs):
        obj = {}
        for k, v in pairs:
            if k in obj:
                raise SubmissionError(f"{source}: duplicate key {k!r} in a JSON object")
            obj[k] = v
        return obj

    try:
        return json.loads(text, parse_constant=_reject_constant, object_pairs_hook=no_dup_keys)
    except json.JSONDecodeError as e:
        raise SubmissionError(f"{source}: not valid JSON: {e}") from None
    except RecursionError:
        raise SubmissionError(f"{source}: JSON nested too deeply") from None


def _listed(items) -> str:
    items = sorted(items)
    more = f" (and {len(items) - _MAX_LISTED} more)" if len(items) > _MAX_LISTED else ""
    return ", ".join(repr(i) for i in items[:_MAX_LISTED]) + more


def _check_ids(seen: set[str] | list[str], gold: Gold, what: str) -> None:
    seen = set(seen)
    unknown = seen - gold.id_set
    if unknown:
        raise SubmissionError(f"{len(unknown)} unknown {what} id(s) not in {gold.key}: {_listed(unknown)}")
    missing = gold.id_set - seen
    if missing:
        raise SubmissionError(f"{len(missing)} {what} id(s) of {gold.key} missing from the predictions: {_listed(missing)}")


def _per_example(raw: Any, key: str) -> dict[str, Any]:
    """``{id: value}`` from a mapping or a list of ``{"id", "prediction"}`` objects."""
    if isinstance(raw, Mapping):
        return {str(k): v for k, v in raw.items()}
    if isinstance(raw, list):
        out: dict[str, Any] = {}
        for i, item in enumerate(raw):
            if not isinstance(item, Mapping) or "id" not in item:
                raise SubmissionError(f"predictions[{i}]: expected an object with 'id' and 'prediction'")
            value = next((item[k] for k in ("prediction", "label", "tags", "ranking", "span") if k in item), None)
            if value is None:
                raise SubmissionError(f"predictions[{i}] (id {item['id']!r}): no 'prediction' field")
            ex_id = str(item["id"])
            if ex_id in out:
                raise SubmissionError(f"predictions[{i}]: duplicate id {ex_id!r}")
            out[ex_id] = value
        return out
    raise SubmissionError(f"predictions for {key}: expected an object of id -> prediction, got {type(raw).__name__}")


def _clusters(raw: Any, gold: Gold) -> list[list[str]]:
    if isinstance(raw, Mapping) and "clusters" in raw:
        raw = raw["clusters"]
    elif isinstance(raw, Mapping):  # mention id -> cluster id
        groups: dict[str, list[str]] = {}
        for mid, cid in raw.items():
            if not isinstance(cid, (str, int)) or isinstance(cid, bool):
                raise SubmissionError(f"predictions[{mid!r}]: cluster id must be a string or integer")
            groups.setdefault(str(cid), []).append(str(mid))
        raw = list(groups.values())
    if not isinstance(raw, list):
        raise SubmissionError("coreference predictions: expected a list of clusters (lists of mention ids)")
    if raw and all(isinstance(c, list) for c in raw) and all(
            c and all(isinstance(x, list) for x in c) for c in raw):
        if len(raw) != 1:
            raise SubmissionError(f"coreference predictions: the split is one cross-document document, got {len(raw)} documents")
        raw = raw[0]
    clusters: list[list[str]] = []
    seen: set[str] = set()
    for ci, cluster in enumerate(raw):
        if not isinstance(cluster, list) or not cluster:
            raise SubmissionError(f"predictions cluster {ci}: expected a non-empty list of mention ids")
        for mid in cluster:
            if not isinstance(mid, str):
                raise SubmissionError(f"predictions cluster {ci}: mention id {mid!r} is not a string")
            if mid in seen:
                raise SubmissionError(f"predictions cluster {ci}: mention id {mid!r} appears more than once")
            seen.add(mid)
        clusters.append(list(cluster))
    _check_ids(seen, gold, "mention")
    return clusters


def parse_predictions(task: str, raw: Any, gold: Gold) -> Any:
    """Validate ``raw`` predictions against ``gold`` and return them normalised.

    Returns a list of clusters for ``cdec`` and ``{id: value}`` otherwise. Raises
    :class:`SubmissionError` naming the id or field at fault.
    """
    if raw is None:
        raise SubmissionError("no predictions")
    if task == "cdec":
        return _clusters(raw, gold)
    preds = _per_example(raw, gold.key)
    _check_ids(preds.keys(), gold, "example")
    if task == "metaphor_detection":
        assert gold.tags is not None
        for ex_id, tags in preds.items():
            if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
                raise SubmissionError(f"predictions[{ex_id!r}]: expected a list of BIO tag strings")
            if len(tags) != len(gold.tags[ex_id]):
                raise SubmissionError(f"predictions[{ex_id!r}]: {len(tags)} tags for {len(gold.tags[ex_id])} tokens")
            bad = set(tags) - BIO_TAGS
            if bad:
                raise SubmissionError(f"predictions[{ex_id!r}]: unknown tag(s) {_listed(bad)}; use {sorted(BIO_TAGS)}")
        return preds
    if task in ("metaphor_nli", "metonymy"):
        allowed = set(gold.label_set)
        for ex_id, label in preds.items():
            if not isinstance(label, str):
                raise SubmissionError(f"predictions[{ex_id!r}]: label must be a string, got {type(label).__name__}")
            if allowed and label not in allowed:
                raise SubmissionError(f"predictions[{ex_id!r}]: unknown label {label!r}; labels: {sorted(allowed)}")
        return preds
    if task == "proverb_prediction":
        out = {}
        for ex_id, ranking in preds.items():
            ranking = [ranking] if isinstance(ranking, (str, int)) and not isinstance(ranking, bool) else ranking
            if not isinstance(ranking, list) or not ranking:
                raise SubmissionError(f"predictions[{ex_id!r}]: expected a non-empty list of proverb ids")
            ranked = []
            for p in ranking:
                if isinstance(p, bool) or not isinstance(p, (str, int)):
                    raise SubmissionError(f"predictions[{ex_id!r}]: proverb id {p!r} must be a string or integer")
                ranked.append(str(p))
            if len(set(ranked)) != len(ranked):
                raise SubmissionError(f"predictions[{ex_id!r}]: a proverb id is ranked twice")
            out[ex_id] = ranked
        return out
    if task == "proverb_alignment":
        out = {}
        for ex_id, span in preds.items():
            if isinstance(span, str):
                out[ex_id] = span
                continue
            if not (isinstance(span, list) and len(span) == 2
                    and all(isinstance(x, int) and not isinstance(x, bool) for x in span)):
                raise SubmissionError(f"predictions[{ex_id!r}]: expected the predicted span as text or "
                                      "[start, end] character offsets into the narrative")
            passage = gold.spans[ex_id]["passage"]
            if not 0 <= span[0] <= span[1] <= len(passage):
                raise SubmissionError(f"predictions[{ex_id!r}]: offsets {span} outside the narrative "
                                      f"({len(passage)} characters)")
            out[ex_id] = [int(span[0]), int(span[1])]
        return out
    raise SubmissionError(f"task {task!r} is not scored by the leaderboard")


# --- metadata -------------------------------------------------------------------------------

MODEL_TYPES = ("heuristic", "fine-tuned encoder", "prompted LLM", "retrieval", "other")
TEXT_LIMITS = {"name": 200, "revision": 100, "link": 500, "licence": 100, "submitter": 100,
               "description": 2000, "paper": 500}
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")   # tab, newline and CR are allowed


def check_name(value: str, field: str) -> str:
    """Model and submitter names: printable text usable as one path component (``org/name`` allowed)."""
    value = value.strip()
    if not value:
        raise SubmissionError(f"{field}: must not be empty")
    if _CONTROL.search(value) or "\n" in value:
        raise SubmissionError(f"{field}: contains control characters")
    if "\\" in value or value.startswith("/") or value.endswith("/") or value.count("/") > 1 \
            or any(part in ("", ".", "..") for part in value.split("/")):
        raise SubmissionError(f"{field}: {value!r} is not a valid name (no path separators other than one 'org/name' slash, no '..')")
    return value


def check_text(value: Any, field: str) -> str | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise SubmissionError(f"{field}: expected text, got {type(value).__name__}")
    limit = TEXT_LIMITS.get(field.rsplit(".", 1)[-1], 2000)
    if len(value) > limit:
        raise SubmissionError(f"{field}: longer than {limit} characters")
    if _CONTROL.search(value):
        raise SubmissionError(f"{field}: contains control characters")
    return value


def normalise_model(model: Any) -> dict[str, Any]:
    """Validate submission model metadata (name, revision, type, parameters, link, licence)."""
    if not isinstance(model, Mapping):
        raise SubmissionError("model: expected an object with name, revision, type, parameters")
    name = model.get("name")
    if not isinstance(name, str):
        raise SubmissionError("model.name: required text")
    out: dict[str, Any] = {"name": check_name(name, "model.name")}
    if len(out["name"]) > TEXT_LIMITS["name"]:
        raise SubmissionError("model.name: longer than 200 characters")
    out["revision"] = check_text(model.get("revision"), "model.revision")
    if out["revision"] is not None and ("/" in out["revision"] or "\\" in out["revision"] or ".." in out["revision"]):
        raise SubmissionError(f"model.revision: {out['revision']!r} must not contain path separators")
    mtype = model.get("type", "other")
    if mtype not in MODEL_TYPES:
        raise SubmissionError(f"model.type: {mtype!r} is not one of {list(MODEL_TYPES)}")
    out["type"] = mtype
    params = model.get("parameters")
    if params is not None:
        if isinstance(params, bool) or not isinstance(params, (int, float)) or not math.isfinite(params) \
                or params < 0 or int(params) != params:
            raise SubmissionError(f"model.parameters: expected a non-negative integer, got {params!r}")
        params = int(params)
    out["parameters"] = params
    for f in ("link", "licence"):
        out[f] = check_text(model.get(f), f"model.{f}")
    return out
