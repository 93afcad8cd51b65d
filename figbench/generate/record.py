"""The record of a real generation run (``results/generation/<name>.json``): what the model answered, measured.

:func:`generation_record` reads a folder made by ``figbench generate metaphors`` (settings, answer cache,
parsed answers, the re-tagger's proposals, the report) and measures: answers that are valid JSON as written,
answers usable after repair and the checks, word-list entries that occur verbatim in their paraphrase,
mentions re-tagged and flagged (by flag), the model's own word lists as a re-tagging variant (its span
against the alignment's without a list, and how many of those disagreements are flagged: there is no
hand-corrected span for a new paraphrase), tokens per second, wall time and the machine's load.
:func:`validate_record` checks a committed record's fields and that its counts add up.
"""

from __future__ import annotations

import json
import os
import platform
from collections import Counter
from pathlib import Path
from typing import Any

from figbench.generate import folder

KIND = "figbench-generation-run"
#: top-level fields of a record
FIELDS = ("kind", "name", "command", "settings", "machine", "answers", "word_lists", "mentions", "own_word_lists",
          "speed", "failure_kinds", "examples")


def _answers(out: Path) -> dict[str, Any]:
    from figbench.generate.answers import AnswerError, parse_answer

    cache = folder.read_jsonl(out / folder.CACHE, "answer cache")
    strict = parsed = closed = 0
    for rec in cache:
        text = str(rec.get("text") or "")
        closed += bool(rec.get("figbench_appended"))
        try:
            strict += isinstance(json.loads(text.strip()), dict)
        except json.JSONDecodeError:
            pass
        try:
            parse_answer(text)
            parsed += 1
        except AnswerError:
            pass
    # "as written": with what figbench appended (the closing ``}`` of a --prefill inputs answer; counted apart)
    return {"answers": len(cache), "valid_json_as_written": strict, "json_with_metaphoric_sentence": parsed,
            "closed_by_figbench": closed}


def _own_lists(proposals: list[dict], style: str) -> dict[str, Any]:
    """The model's word lists as a re-tagging variant: its span against the alignment's span without a list."""
    from figbench.generate.retag import retag

    by_unit: dict[str, list[dict]] = {}
    for p in proposals:
        if p["status"] == "ok":
            by_unit.setdefault(p["unit"], []).append(p)
    n = same = flagged = differ_flagged = with_entry = 0
    for ps in by_unit.values():
        orig, para = ps[0]["original"], ps[0]["paraphrase"]
        blind = {t.mention_id: t for t in retag(orig, [(p["mention_id"], p["trigger_start"], p["trigger_end"])
                                                       for p in ps], para, None, style)}
        for p in ps:
            if not p.get("metaphor"):
                continue
            with_entry += 1
            if p["start"] is None:
                continue
            n += 1
            agree = (blind[p["mention_id"]].start, blind[p["mention_id"]].end) == (p["start"], p["end"])
            same += agree
            flagged += bool(p["flags"])
            differ_flagged += (not agree) and bool(p["flags"])
    return {"mentions_with_entry": with_entry, "compared": n, "agree_with_alignment": same, "flagged": flagged,
            "disagreements": n - same, "disagreements_flagged": differ_flagged}


def _word_lists(answers: list[dict]) -> dict[str, int]:
    from figbench.generate.retag import _find, tokenize

    entries = found = 0
    for a in answers:
        ans = a.get("answer")
        if not ans:
            continue
        para = tokenize(ans["metaphoric_sentence"])
        for w in ans["metaphoric_words"]:
            phrase = [t for t in tokenize(w)]
            while phrase and not any(c.isalnum() for c in phrase[-1]):
                phrase.pop()
            entries += 1
            found += bool(phrase) and bool(_find(para, phrase))
    return {"entries": entries, "in_paraphrase": found}


def _device_machine(device: dict) -> dict[str, Any]:
    """The machine of answers made elsewhere (``benchmarks/paraphrase_elsewhere.py answer``'s report)."""
    return {"cpu_count": None, "platform": device["platform"], "torch": device["torch"],
            "transformers": device["transformers"], "load_average_1min": None, "peak_rss_mb": None,
            "gpu": device.get("gpu"), "device": device["device"]}


def _speed(run: dict, wall_s: float, generate_s: float | None, device: dict | None) -> dict[str, Any]:
    if device:
        gen, completion, prompt = device["seconds"], device["completion_tokens"], device["prompt_tokens"]
    else:
        gen = generate_s if generate_s is not None else run["seconds"]
        completion, prompt = run["tokens"]["completion"], run["tokens"]["prompt"]
    return {"generate_s": round(gen, 1), "wall_s": round(wall_s, 1), "completion_tokens": completion,
            "prompt_tokens": prompt, "completion_tokens_per_s": round(completion / gen, 2) if gen else None}


def generation_record(out: str | Path, *, name: str, command: str, wall_s: float, load_average: list[float] | None,
                      peak_rss_mb: float | None = None, note: str = "",
                      generate_s: float | None = None, device: dict | None = None) -> dict[str, Any]:
    """The record of the run in ``out`` (see the module docstring); ``generate_s`` replaces the report's generation
    seconds for a run whose answers were replayed from its cache (``--cache-only`` after a stopped run); ``device``
    (the report of answers made on another machine) gives the machine, the generation seconds and the tokens
    actually generated there (a sentence repeated in the split is asked once per copy there and read from the
    cache twice here)."""
    import torch
    import transformers

    out = Path(out)
    settings = folder.read_json(out / folder.SETTINGS, "settings")
    report = folder.read_json(out / folder.REPORT, "report")
    answers = folder.read_jsonl(out / folder.ANSWERS, "parsed answers")
    proposals = folder.read_jsonl(out / folder.PROPOSALS, "proposals")
    run, build = report["run"], report["build"]
    ok = [p for p in proposals if p["status"] == "ok"]
    flags = Counter(f for p in ok for f in p["flags"])
    examples = [{"sentence": " ".join(a["answer"]["original_sentence"].split())[:300] if a.get("answer") else "",
                 "paraphrase": a["answer"]["metaphoric_sentence"][:300],
                 "metaphoric_words": a["answer"]["metaphoric_words"][:6]} for a in answers if a.get("answer")][:3]
    examples += [{"failure": a["failure"], "last_answer": a["raw"][:300]} for a in answers if a.get("failure")][:2]
    return {
        "kind": KIND, "name": name, "command": command, "note": note,
        "settings": {k: settings.get(k) for k in ("dataset", "config", "split", "style", "model", "backend",
                                                  "temperature", "max_tokens", "json_retries", "json_mode")}
        | {"prefill": settings.get("prefill", "none")}
        | {"batch_size": run.get("batch_size")},
        "machine": _device_machine(device) if device else
        {"cpu_count": os.cpu_count(), "platform": platform.platform(), "torch": torch.__version__,
         "transformers": transformers.__version__, "load_average_1min": load_average, "peak_rss_mb": peak_rss_mb},
        "answers": _answers(out) | {"sentences": run["sentences"], "usable": run["ok"], "failed": run["failed"],
                                    "repaired": run["repaired"],
                                    "sentence_keys": sorted(a["key"] for a in answers),
                                    "answered_sentences": sorted(a["key"] for a in answers if a.get("samples")),
                                    "usable_sentences": sorted(a["key"] for a in answers if a.get("answer"))},
        "word_lists": _word_lists(answers),
        "mentions": {"source": build["counts"].get("source_mentions", 0),
                     "retagged": sum(1 for p in ok if p["start"] is not None),
                     "in_corpus": build["counts"].get("mentions", 0), "flagged": build["counts"].get("flagged", 0),
                     "flags": dict(flags.most_common())},
        "own_word_lists": _own_lists(proposals, settings["style"]),
        "speed": _speed(run, wall_s, generate_s, device),
        "failure_kinds": run.get("failure_kinds", {}), "cache_only_rebuild": bool(run.get("cache_only")),
        "examples": examples,
    }


def validate_record(rec: dict, where: str = "record") -> None:
    """ValueError naming ``where`` and the field when a generation record is incomplete or does not add up."""
    missing = [f for f in FIELDS if f not in rec]
    if missing or rec.get("kind") != KIND:
        raise ValueError(f"{where}: not a generation record (kind {rec.get('kind')!r}, missing {missing})")
    a, m, w, o = rec["answers"], rec["mentions"], rec["word_lists"], rec["own_word_lists"]
    checks = {
        "answers.usable + failed == sentences": a["usable"] + a["failed"] == a["sentences"],
        "answers.valid_json_as_written <= answers": 0 <= a["valid_json_as_written"] <= a["answers"],
        "answers.closed_by_figbench <= answers": 0 <= a.get("closed_by_figbench", 0) <= a["answers"],
        "answers.json_with_metaphoric_sentence <= answers": a["json_with_metaphoric_sentence"] <= a["answers"],
        "answers.usable <= json_with_metaphoric_sentence": a["usable"] <= a["json_with_metaphoric_sentence"],
        "failure_kinds sum to answers.failed": sum(rec["failure_kinds"].values()) == a["failed"],
        "word_lists.in_paraphrase <= entries": 0 <= w["in_paraphrase"] <= w["entries"],
        "mentions.in_corpus <= retagged <= source": m["in_corpus"] <= m["retagged"] <= m["source"],
        "mentions.flagged <= in_corpus": m["flagged"] <= m["in_corpus"],
        "own_word_lists add up": o["agree_with_alignment"] + o["disagreements"] == o["compared"]
        and o["disagreements_flagged"] <= o["disagreements"],
        "speed is positive": rec["speed"]["generate_s"] > 0 and rec["speed"]["completion_tokens"] > 0,
    }
    bad = [k for k, ok in checks.items() if not ok]
    if bad:
        raise ValueError(f"{where}: generation record does not add up: {', '.join(bad)}")


__all__ = ["FIELDS", "KIND", "generation_record", "validate_record"]
