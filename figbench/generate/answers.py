"""Reading the model's JSON answer (Fig. 2's four keys), repairing the usual slips."""

from __future__ import annotations

import ast
import json
import re

from figbench.generate.prompts import ANSWER_KEYS


class AnswerError(ValueError):
    """The answer is not a usable JSON object with a metaphoric sentence."""


_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S | re.I)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_SMART = str.maketrans({"\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'"})


def _norm(key: str) -> str:
    return re.sub(r"[^a-z]", "", key.lower())


_CANON = {_norm(k): k for k in ANSWER_KEYS}


def _candidates(text: str) -> list[str]:
    out = [m.group(1) for m in _FENCE.finditer(text)]
    start, end = text.find("{"), text.rfind("}")
    if start != -1 and end > start:
        out.append(text[start: end + 1])
    return out


def _load(blob: str) -> tuple[dict | None, bool]:
    """(object, repaired) or (None, False)."""
    try:
        obj = json.loads(blob)
        return (obj, False) if isinstance(obj, dict) else (None, False)
    except json.JSONDecodeError:
        pass
    fixed = _TRAILING_COMMA.sub(r"\1", blob.translate(_SMART) if '"' not in blob else blob)
    for attempt in (fixed, _TRAILING_COMMA.sub(r"\1", blob.translate(_SMART))):
        try:
            obj = json.loads(attempt)
            if isinstance(obj, dict):
                return obj, True
        except json.JSONDecodeError:
            pass
        try:  # single quotes, Python literals
            obj = ast.literal_eval(re.sub(r"\btrue\b|\bfalse\b|\bnull\b",
                                          lambda m: {"true": "True", "false": "False", "null": "None"}[m.group(0)],
                                          attempt))
            if isinstance(obj, dict):
                return obj, True
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            pass
    return None, False


def _as_list(value) -> list[str]:
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
            if isinstance(parsed, list):
                value = parsed
        except json.JSONDecodeError:
            return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, dict):
        return [str(v) for v in value.values()]
    if isinstance(value, list):
        return [str(v) if not isinstance(v, dict) else str(next(iter(v.values()), "")) for v in value]
    return []


def parse_answer(text: str) -> dict:
    """The answer as ``{"original_sentence", "original_words", "metaphoric_words", "metaphoric_sentence",
    "repaired"}``; :class:`AnswerError` when there is no JSON object with a non-empty "Metaphoric Sentence"."""
    if not text or not text.strip():
        raise AnswerError("empty answer")
    for blob in _candidates(text):
        obj, repaired = _load(blob)
        if obj is None:
            continue
        keys = {_CANON.get(_norm(k)): v for k, v in obj.items() if _norm(k) in _CANON}
        sentence = keys.get("Metaphoric Sentence")
        if not isinstance(sentence, str) or not sentence.strip():
            raise AnswerError('JSON without a "Metaphoric Sentence"')
        return {
            "original_sentence": str(keys.get("Original Sentence") or ""),
            "original_words": _as_list(keys.get("Original Word List")),
            "metaphoric_words": _as_list(keys.get("Metaphoric Word List")),
            "metaphoric_sentence": sentence.strip(),
            "repaired": repaired,
        }
    raise AnswerError(f"no JSON object in the answer: {text.strip()[:80]!r}")
