"""Reading the model's JSON answer (Fig. 2's four keys), repairing the usual slips."""

from __future__ import annotations

import ast
import json
import re

from figbench.generate.prompts import ANSWER_KEYS

#: failure kinds of an answer -> what they mean (the run report and the card name them)
FAILURE_KINDS = {
    "empty": "the answer is empty",
    "not_json": "no JSON object in the answer",
    "wrong_keys": 'valid JSON without a non-empty "Metaphoric Sentence"',
    "too_long": "the answer or its paraphrase is far longer than the sentence allows",
    "wrong_script": "the paraphrase is written in another script than the source sentence",
    "endpoint": "the endpoint kept failing (429 / 5xx / timeouts past the retries)",
    "not_requested": "not asked: the run stopped after consecutive endpoint failures, or --cache-only had no answer",
}


class AnswerError(ValueError):
    """The answer is not a usable JSON object with a metaphoric sentence; ``kind`` is a key of
    :data:`FAILURE_KINDS`."""

    def __init__(self, message: str, kind: str = "not_json"):
        super().__init__(message)
        self.kind = kind


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
        raise AnswerError("empty answer", "empty")
    for blob in _candidates(text):
        obj, repaired = _load(blob)
        if obj is None:
            continue
        keys = {_CANON.get(_norm(k)): v for k, v in obj.items() if _norm(k) in _CANON}
        sentence = keys.get("Metaphoric Sentence")
        if not isinstance(sentence, str) or not sentence.strip():
            raise AnswerError(f'JSON without a "Metaphoric Sentence" (keys: {sorted(map(str, obj))[:8]})', "wrong_keys")
        return {
            "original_sentence": str(keys.get("Original Sentence") or ""),
            "original_words": _as_list(keys.get("Original Word List")),
            "metaphoric_words": _as_list(keys.get("Metaphoric Word List")),
            "metaphoric_sentence": sentence.strip(),
            "repaired": repaired,
        }
    raise AnswerError(f"no JSON object in the answer: {text.strip()[:80]!r}")


#: a paraphrase may be at most this many times the sentence's tokens, plus :data:`LONG_SPAN_PER_TRIGGER` a trigger
PARAPHRASE_GROWTH = 2
LONG_SPAN_PER_TRIGGER = 8
#: a letter-script share of the paraphrase that the source sentence does not use above which it is ``wrong_script``
FOREIGN_SCRIPT_SHARE = 0.2


def answer_token_budget(sentence_words: int, triggers: int, prefill: str = "none") -> int:
    """Completion tokens asked for one sentence: Fig. 2's JSON repeats the sentence twice and lists the
    triggers and their metaphors (about 1.3 subword tokens a word), with room to spare. Under ``--prefill
    inputs`` the model writes only the metaphors (a multi-word one about 8 tokens) and the paraphrase (up to
    :data:`PARAPHRASE_GROWTH` times the sentence)."""
    if prefill == "inputs":
        return 3 * sentence_words + 16 * triggers + 40
    return 6 * sentence_words + 40 * triggers + 100


def max_paraphrase_tokens(sentence_tokens: int, triggers: int) -> int:
    """The longest paraphrase accepted for a sentence of ``sentence_tokens`` tokens and ``triggers`` triggers."""
    return PARAPHRASE_GROWTH * sentence_tokens + LONG_SPAN_PER_TRIGGER * triggers


def max_answer_chars(sentence: str, triggers: int) -> int:
    """The longest raw answer parsed at all (a longer one is ``too_long`` unread)."""
    return 8 * len(sentence) + 200 * triggers + 1000


def scripts(text: str) -> dict[str, int]:
    """Letters of ``text`` by Unicode script (the first word of the character's name: LATIN, CYRILLIC, ...)."""
    import unicodedata

    out: dict[str, int] = {}
    for c in text:
        if c.isalpha():
            name = unicodedata.name(c, "UNKNOWN").split()[0]
            out[name] = out.get(name, 0) + 1
    return out


def check_answer(answer: dict, raw: str, sentence: str, sentence_tokens: list[str], triggers: int,
                 tokenize) -> None:
    """:class:`AnswerError` (``too_long`` / ``wrong_script``) when a parsed answer is not usable for
    ``sentence``: its paraphrase longer than :func:`max_paraphrase_tokens` or mostly in a script the source
    does not use. ``tokenize`` is the paraphrase tokenizer."""
    para = tokenize(answer["metaphoric_sentence"])
    limit = max_paraphrase_tokens(len(sentence_tokens), triggers)
    if len(para) > limit:
        raise AnswerError(f"the paraphrase has {len(para):,} tokens; a sentence of {len(sentence_tokens)} tokens "
                          f"with {triggers} trigger(s) allows {limit}", "too_long")
    src, got = scripts(sentence), scripts(answer["metaphoric_sentence"])
    foreign = sum(n for s, n in got.items() if s not in src)
    if got and foreign / sum(got.values()) > FOREIGN_SCRIPT_SHARE:
        raise AnswerError(f"the paraphrase is {foreign / sum(got.values()):.0%} letters of scripts the source does "
                          f"not use ({', '.join(sorted(set(got) - set(src)))})", "wrong_script")


def check_raw_length(raw: str, sentence: str, triggers: int) -> None:
    """``too_long`` before parsing an answer far longer than the sentence allows."""
    limit = max_answer_chars(sentence, triggers)
    if len(raw) > limit:
        raise AnswerError(f"the answer has {len(raw):,} characters; a sentence of {len(sentence)} characters "
                          f"allows {limit:,}", "too_long")
