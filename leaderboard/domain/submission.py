"""The submission envelope: strict JSON, model metadata, names and bounded free-form fields.

A submission is UTF-8 JSON, either a figbench **result record** (``figbench.results``; predictions
inline) or a **predictions file**: ``{"format": "figbench-predictions/1", "task", "dataset",
"config", "split", "model": {...}, "predictions": ...}`` plus optional ``submitter``,
``description``, ``paper``, ``method``, ``provenance``. What ``predictions`` holds is the task's
business (``task.parse_predictions``, documented by ``task.predictions_doc``); this module checks
everything around it. :class:`SubmissionError` is a :class:`figbench.tasks.PredictionsError`, so
one ``except`` catches both.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from figbench_leaderboard.domain.names import has_control, normalise_name

from figbench.results import MODEL_TYPES
from figbench.tasks import Gold, PredictionsError, Task, get_task

PREDICTIONS_FORMAT = "figbench-predictions/1"

#: text fields: longest accepted value (characters)
TEXT_LIMITS = {"name": 200, "revision": 100, "link": 500, "licence": 100, "submitter": 100,
               "description": 2000, "paper": 500, "method": 200}
#: free-form objects (provenance): serialised size, nesting depth, number of keys, key and string length
MAX_FREEFORM_BYTES = 16 * 1024
MAX_FREEFORM_DEPTH = 8  # a training record nests provenance.training.<part>.config.<option>.<key>
MAX_FREEFORM_KEYS = 200
MAX_KEY_CHARS = 100
MAX_STRING_CHARS = 2000
#: the most JSON arrays+objects and separators (``,`` and ``:``) one upload may hold, counted on the raw bytes
#: before anything is parsed: 3.3 million empty lists fit in 10 MB and cost seconds and 250 MB to build;
#: the largest real predictions file (a cluster per mention, tags per token) is far below either
MAX_CONTAINERS = 250_000
MAX_SEPARATORS = 2_500_000
#: the largest parameter count accepted (10^15: far above any model, far below SQLite's 2^63)
MAX_PARAMETERS = 10**15
_INT64 = 2**63 - 1

__all__ = ["MODEL_TYPES", "PREDICTIONS_FORMAT", "JsonShape", "StructureError", "SubmissionError",
           "check_declared_scores", "check_freeform", "check_name", "check_text", "loads_strict", "normalise_model",
           "parse_predictions"]


class SubmissionError(PredictionsError):
    """A submission cannot be accepted; the message says which field, id or record is wrong."""


class StructureError(SubmissionError):
    """An upload holds more JSON arrays/objects or separators than any submission needs (a structure bomb)."""


#: the JSON escapes of ``[ {`` and ``, :`` (the text of a submission sent inside a JSON string may use them)
_OPEN_ESCAPES = (b"\\u005b", b"\\u005B", b"\\u007b", b"\\u007B")
_SEP_ESCAPES = (b"\\u002c", b"\\u002C", b"\\u003a", b"\\u003A")
_ALL = bytes(range(256))
_NOT_OPEN, _NOT_SEP = _ALL.translate(None, b"[{"), _ALL.translate(None, b",:")


class JsonShape:
    """Counts, chunk by chunk and without parsing, an upper bound of the JSON arrays/objects and separators in
    raw bytes (every ``[ {``, ``, :`` and their ``\\u`` escapes, inside strings too, so a submission sent as a
    JSON string inside a request is bounded as well): two ``bytes.translate`` passes, a few ms per MB."""

    def __init__(self, max_containers: int = MAX_CONTAINERS, max_separators: int = MAX_SEPARATORS) -> None:
        self.max_containers, self.max_separators = max_containers, max_separators
        self.containers = self.separators = 0
        self._tail = b""

    def feed(self, chunk: bytes) -> str | None:
        """Count ``chunk``; returns what is over the limit (None while within)."""
        self.containers += len(chunk.translate(None, _NOT_OPEN))   # one C pass each (bytes.count: one per byte)
        self.separators += len(chunk.translate(None, _NOT_SEP))
        edge = self._tail + chunk[:5]   # an escape split across chunks (6 bytes: never whole in the 5-byte tail)
        for text in (edge, chunk) if b"\\u" in edge or b"\\u00" in chunk else ():
            self.containers += sum(text.count(e) for e in _OPEN_ESCAPES)
            self.separators += sum(text.count(e) for e in _SEP_ESCAPES)
        self._tail = (self._tail + chunk[-5:])[-5:]
        return self.problem()

    def problem(self) -> str | None:
        if self.containers > self.max_containers:
            return (f"more than {self.max_containers:,} JSON arrays and objects (no figbench submission needs "
                    "that many); refused before parsing")
        if self.separators > self.max_separators:
            return (f"more than {self.max_separators:,} JSON values (no figbench submission needs that many); "
                    "refused before parsing")
        return None


def check_shape(data: str | bytes, *, source: str = "submission") -> None:
    """:class:`StructureError` when ``data`` holds more JSON structure than any submission needs."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    problem = JsonShape().feed(raw)
    if problem:
        raise StructureError(f"{source}: {problem}")


def _reject_constant(name: str) -> Any:
    raise SubmissionError(f"JSON contains {name}: scores and predictions must be finite numbers")


def loads_strict(text: str | bytes, *, source: str = "submission") -> Any:
    """Parse JSON, rejecting structure bombs (counted on the raw text first, see :class:`JsonShape`),
    NaN/Infinity, duplicate object keys and absurd nesting."""
    check_shape(text, source=source)
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as e:
            raise SubmissionError(f"{source}: not UTF-8 text ({e.reason} at byte {e.start})") from None

    def no_dup_keys(pairs):
        obj = dict(pairs)   # in C; only an object with a duplicate is looked at key by key
        if len(obj) != len(pairs):
            seen: set = set()
            dup = next(k for k, _ in pairs if k in seen or seen.add(k))
            raise SubmissionError(f"{source}: duplicate key {dup!r} in a JSON object")
        return obj

    try:
        return json.loads(text, parse_constant=_reject_constant, object_pairs_hook=no_dup_keys)
    except json.JSONDecodeError as e:
        raise SubmissionError(f"{source}: not valid JSON: {e}") from None
    except RecursionError:
        raise SubmissionError(f"{source}: JSON nested too deeply") from None


def parse_predictions(task: str | Task, raw: Any, gold: Gold) -> Any:
    """The task's own validation of ``raw`` against ``gold`` (normalised predictions, or SubmissionError)."""
    task = get_task(task) if isinstance(task, str) else task
    if raw is None:
        raise SubmissionError("no predictions")
    try:
        return task.parse_predictions(raw, gold)
    except SubmissionError:
        raise
    except PredictionsError as e:
        raise SubmissionError(str(e)) from None
    except (TypeError, AttributeError, KeyError) as e:   # a shape the task's checks did not foresee
        raise SubmissionError(f"predictions for {gold.key}: malformed ({type(e).__name__}: {e})") from None


# --- names and text ---------------------------------------------------------------------------

def check_name(value: str, field: str) -> str:
    """A model or submitter name: normalised (NFKC, no zero-width or bidi characters), printable,
    usable as one path component (``org/name`` allowed), at most ``TEXT_LIMITS``."""
    if not isinstance(value, str):
        raise SubmissionError(f"{field}: expected text")
    if has_control(value.strip()):
        raise SubmissionError(f"{field}: contains control characters")
    value = normalise_name(value)
    if not value:
        raise SubmissionError(f"{field}: must not be empty")
    limit = TEXT_LIMITS["submitter" if field == "submitter" else "name"]
    if len(value) > limit:
        raise SubmissionError(f"{field}: longer than {limit} characters")
    if "\\" in value or value.startswith("/") or value.endswith("/") or value.count("/") > 1 \
            or any(part in ("", ".", "..") for part in value.split("/")):
        raise SubmissionError(f"{field}: {value!r} is not a valid name (no path separators other than one "
                              "'org/name' slash, no '..')")
    return value


def check_text(value: Any, field: str) -> str | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise SubmissionError(f"{field}: expected text, got {type(value).__name__}")
    limit = TEXT_LIMITS.get(field.rsplit(".", 1)[-1], 2000)
    if len(value) > limit:
        raise SubmissionError(f"{field}: longer than {limit} characters")
    if has_control(value.replace("\t", " ").replace("\n", " ").replace("\r", " ")):
        raise SubmissionError(f"{field}: contains control characters")
    return value


def _check_freeform_leaf(value: Any, path: str) -> None:
    """A scalar of a free-form object: a bounded string, a boolean, null, an int64 or a finite float."""
    if isinstance(value, str):
        if len(value) > MAX_STRING_CHARS:
            raise SubmissionError(f"{path}: longer than {MAX_STRING_CHARS} characters")
    elif isinstance(value, bool) or value is None:
        pass
    elif isinstance(value, int):
        if abs(value) > _INT64:
            raise SubmissionError(f"{path}: integer out of range")
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise SubmissionError(f"{path}: not a finite number")
    else:
        raise SubmissionError(f"{path}: unsupported value {type(value).__name__}")


def check_freeform(obj: Any, field: str) -> dict[str, Any]:
    """A bounded free-form object (provenance): size, depth, keys and strings limited; ``seed`` an integer."""
    if obj is None:
        return {}
    if not isinstance(obj, Mapping):
        raise SubmissionError(f"{field}: must be an object")
    size = len(json.dumps(obj, ensure_ascii=False, allow_nan=False, default=str).encode("utf-8"))
    if size > MAX_FREEFORM_BYTES:
        raise SubmissionError(f"{field}: {size:,} bytes; at most {MAX_FREEFORM_BYTES:,} bytes are kept")
    n_keys = 0

    def walk(value: Any, path: str, depth: int) -> None:
        nonlocal n_keys
        if depth > MAX_FREEFORM_DEPTH:
            raise SubmissionError(f"{path}: nested deeper than {MAX_FREEFORM_DEPTH} levels")
        if isinstance(value, Mapping):
            n_keys += len(value)
            if n_keys > MAX_FREEFORM_KEYS:
                raise SubmissionError(f"{field}: more than {MAX_FREEFORM_KEYS} keys")
            for k, v in value.items():
                if len(k) > MAX_KEY_CHARS or has_control(k):
                    raise SubmissionError(f"{path}: key {k[:40]!r}... is too long or has control characters")
                walk(v, f"{path}.{k}", depth + 1)
        elif isinstance(value, list):
            for i, v in enumerate(value):
                walk(v, f"{path}[{i}]", depth + 1)
        else:
            _check_freeform_leaf(value, path)

    walk(obj, field, 1)
    seed = obj.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise SubmissionError(f"{field}.seed: expected an integer or null, got {type(seed).__name__}")
    return dict(obj)


def normalise_model(model: Any) -> dict[str, Any]:
    """Validate submission model metadata (name, revision, type, parameters, link, licence)."""
    if not isinstance(model, Mapping):
        raise SubmissionError("model: expected an object with name, revision, type, parameters")
    name = model.get("name")
    if not isinstance(name, str):
        raise SubmissionError("model.name: required text")
    out: dict[str, Any] = {"name": check_name(name, "model.name")}
    out["revision"] = check_text(model.get("revision"), "model.revision")
    if out["revision"] is not None:
        out["revision"] = normalise_name(out["revision"]) or None
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
        if params > MAX_PARAMETERS:
            raise SubmissionError(f"model.parameters: {params:.3g} is more than {MAX_PARAMETERS:.0e}; "
                                  "give the parameter count as a plain integer")
        params = int(params)
    out["parameters"] = params
    for f in ("link", "licence"):
        out[f] = check_text(model.get(f), f"model.{f}")
    return out


def check_declared_scores(task: Task, scores: Mapping[str, Any], cis: Mapping[str, Any], *,
                          strict: bool) -> tuple[dict[str, float], dict[str, dict[str, Any]]]:
    """Self-reported scores and intervals restricted to the metrics ``task`` declares.

    ``strict`` (unverified records, whose scores are shown as they are): an undeclared metric is
    refused. Otherwise (the server rescores) undeclared ones are dropped.
    """
    declared = set(task.metric_names)
    unknown = sorted(set(scores) - declared) + sorted(set(cis) - declared - set(scores))
    if unknown and strict:
        more = f" (and {len(unknown) - 5} more)" if len(unknown) > 5 else ""
        raise SubmissionError(f"scores: {', '.join(repr(k[:40]) for k in unknown[:5])}{more} not declared by task "
                              f"{task.name}; declared metrics: {', '.join(task.metric_names)}")
    out_s: dict[str, float] = {}
    for k, v in scores.items():
        if k not in declared:
            continue
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise SubmissionError(f"scores.{k}: expected a finite number")
        if task.metric(k).fraction and not 0.0 <= v <= 1.0:
            raise SubmissionError(f"scores.{k}: a fraction in [0, 1], got {v!r}")
        out_s[k] = float(v)
    out_c: dict[str, dict[str, Any]] = {}
    for k, ci in cis.items():
        if k not in declared:
            continue
        if not isinstance(ci, Mapping) or not all(isinstance(ci.get(b), (int, float))
                                                  and not isinstance(ci.get(b), bool)
                                                  and math.isfinite(ci[b]) for b in ("low", "high")):
            raise SubmissionError(f"confidence_intervals.{k}: expected numbers low and high")
        out_c[k] = {"low": float(ci["low"]), "high": float(ci["high"]),
                    **{f: ci[f] for f in ("level", "n_resamples", "unit") if isinstance(ci.get(f), (int, float, str))
                       and not isinstance(ci.get(f), bool) and len(str(ci.get(f))) <= 40}}
    return out_s, out_c
