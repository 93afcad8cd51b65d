"""Steps 2-5: re-tag the triggers in the paraphrases, apply the reviewer's corrections, write the corpus.

The corpus is rebuilt from the folder's own files (source rows, parsed answers from the cache,
corrections), so it is reproducible: ``figbench generate build DIR`` after any review.

Rows follow the ``ecbmeta`` mention schema (:data:`figbench.schema.COREF_MENTION_FEATURES`): every source
mention keeps ``mention_id`` and ``cluster_id``; ``sentence`` is the paraphrase (spaCy tokens), ``text`` and
``token_start``/``token_end`` the re-tagged span on it, ``original_text`` the source trigger; ``context`` is
the source context with each paraphrased sentence spliced in.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from figbench.generate import folder
from figbench.generate.retag import FLAGS, retag, tokenize
from figbench.generate.source import sentence_span, units_of
from figbench.generate.wordlist import words_for_triggers

#: reviewer actions on a proposed span
ACTIONS = ("accept", "move", "unusable")
#: quality-control judgements (§4.1: can the paraphrased mention reasonably refer to the original event?)
QC = ("valid", "invalid")


def source_rows(out: Path) -> list[dict]:
    import pyarrow.parquet as pq

    path = out / folder.SOURCE
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no source rows; is this a folder made by `figbench generate metaphors`?")
    return pq.read_table(path).to_pylist()


def propose(out: Path) -> list[dict]:
    """Re-tag every mention of every paraphrased sentence; written to ``generation/retag.jsonl``."""
    settings = folder.read_json(out / folder.SETTINGS, "settings")
    answers = {a["key"]: a for a in folder.read_jsonl(out / folder.ANSWERS, "parsed answers")}
    units, skipped = units_of(source_rows(out), str(out / folder.SOURCE))
    proposals = [{"mention_id": mid, "unit": None, "status": "no_span", "failure": "no span on one sentence",
                  "original": [], "trigger": "", "paraphrase": [], "start": None, "end": None, "flags": []}
                 for mid in skipped]
    for unit in units:
        ans = answers.get(unit.key) or {}
        parsed = ans.get("answer")
        if not parsed:
            for mid, _, _, text in unit.triggers:
                proposals.append({"mention_id": mid, "unit": unit.key, "status": "failed",
                                  "failure": ans.get("failure", "not generated"), "original": unit.tokens,
                                  "trigger": text, "paraphrase": [], "start": None, "end": None, "flags": []})
            continue
        para = tokenize(parsed["metaphoric_sentence"])
        words = words_for_triggers([(m, t) for m, _, _, t in unit.triggers], parsed["original_words"],
                                   parsed["metaphoric_words"])
        tags = retag(unit.tokens, [(m, s, e) for m, s, e, _ in unit.triggers], para, words, settings["style"])
        for (mid, s, e, text), tag in zip(unit.triggers, tags, strict=True):
            proposals.append({"mention_id": mid, "unit": unit.key, "status": "ok", "original": unit.tokens,
                              "trigger_start": s, "trigger_end": e, "trigger": text, "paraphrase": para,
                              "metaphor": words.get(mid, ""), "start": tag.start, "end": tag.end,
                              "flags": tag.flags, "how": tag.how})
    folder.write_jsonl(out / folder.PROPOSALS, proposals)
    return proposals


def load_corrections(out: Path) -> dict[str, dict]:
    path = out / folder.CORRECTIONS
    if not path.is_file():
        return {}
    data = folder.read_json(path, "corrections")
    mentions = data.get("mentions") if isinstance(data, dict) else None
    if not isinstance(mentions, dict):
        raise ValueError(f"{path}: expected {{\"mentions\": {{mention_id: decision}}}}")
    _check_decisions(path, mentions)
    return mentions


def _check_decisions(path: Path, mentions: dict) -> None:
    for mid, d in mentions.items():
        if not isinstance(d, dict):
            raise ValueError(f"{path}: mention {mid!r}: a decision is an object, not {d!r}")
        if d.get("action") not in (None, *ACTIONS) or d.get("qc") not in (None, *QC):
            raise ValueError(f"{path}: mention {mid!r}: action must be one of {ACTIONS} and qc one of {QC}: {d}")
        if d.get("action") == "move" and not (isinstance(d.get("start"), int) and isinstance(d.get("end"), int)
                                               and 0 <= d["start"] < d["end"]):
            raise ValueError(f"{path}: mention {mid!r}: a moved span needs integer start < end, got {d}")


def save_correction(out: Path, mention_id: str, **decision) -> dict:
    """Record one decision (``action``, ``start``/``end`` for ``move``, ``qc``) in the corrections file."""
    mentions = load_corrections(out)
    entry = {**mentions.get(mention_id, {}), **{k: v for k, v in decision.items() if v is not None}}
    _check_decisions(out / folder.CORRECTIONS, {mention_id: entry})  # nothing invalid reaches the file
    mentions[mention_id] = entry
    folder.write_json(out / folder.CORRECTIONS, {"version": 1, "mentions": mentions})
    return entry


def _splice(rows: list[dict], para_of: dict[str, list[str]]) -> dict[str, tuple[list[str], int]]:
    """mention id -> (its context with the paraphrased sentences spliced in, offset of its own sentence)."""
    out: dict[str, tuple[list[str], int]] = {}
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        groups[(r["doc_id"], tuple(r.get("context") or ()))].append(r)
    for (_, ctx), members in groups.items():
        ctx = list(ctx)
        offsets: dict[str, int] = {}
        for r in members:
            span = sentence_span(r)
            if span is not None and span[2] is not None:
                offsets[f"{r['doc_id']}#{r['sentence_id']}"] = span[2]
        new_ctx, shift = list(ctx), {}
        for unit, off in sorted(offsets.items(), key=lambda kv: -kv[1]):
            para = para_of.get(unit)
            if para is None:
                continue
            old_len = len(next(r for r in members if f"{r['doc_id']}#{r['sentence_id']}" == unit)["sentence"])
            new_ctx[off: off + old_len] = para
            shift[unit] = (off, len(para) - old_len)
        for r in members:
            unit = f"{r['doc_id']}#{r['sentence_id']}"
            if unit not in offsets:
                out[r["mention_id"]] = (para_of.get(unit, list(r["sentence"])), 0)
                continue
            off = offsets[unit] + sum(d for o, d in shift.values() if o < offsets[unit])
            out[r["mention_id"]] = (new_ctx, off)
    return out


def build(out: str | Path, *, repropose: bool = True) -> dict:
    """Write ``data/<split>-*.parquet`` and the card from the folder's files; returns the counts."""
    from figbench.corpora.ecbmeta import phrase_head_index
    from figbench.corpora.ecbplus import ECB_LEMMA_CASE, head_index
    from figbench.corpora.lemmas import lookup_lemma
    from figbench.schema import COREF_MENTION_FEATURES

    out = Path(out)
    settings = folder.read_json(out / folder.SETTINGS, "settings")
    proposals = propose(out) if repropose or not (out / folder.PROPOSALS).is_file() \
        else folder.read_jsonl(out / folder.PROPOSALS, "proposals")
    corrections = load_corrections(out)
    rows = source_rows(out)
    by_id = {p["mention_id"]: p for p in proposals}
    para_of = {p["unit"]: p["paraphrase"] for p in proposals if p["status"] == "ok"}
    spliced = _splice(rows, para_of)
    counts = defaultdict(int)
    dropped: dict[str, list[str]] = defaultdict(list)
    kept = []
    for r in rows:
        p = by_id[r["mention_id"]]
        d = corrections.get(r["mention_id"], {})
        counts["source_mentions"] += 1
        if p["status"] == "no_span":
            dropped["no_sentence_span"].append(r["mention_id"])
            continue
        if p["status"] != "ok":
            dropped["failed_sentence"].append(r["mention_id"])
            continue
        start, end = p["start"], p["end"]
        if d.get("action") == "unusable":
            dropped["unusable"].append(r["mention_id"])
            continue
        if d.get("action") == "move":
            start, end = d["start"], d["end"]
            if end > len(p["paraphrase"]):
                raise ValueError(f"{out / folder.CORRECTIONS}: mention {r['mention_id']!r}: span {start}:{end} is "
                                 f"outside its paraphrase of {len(p['paraphrase'])} tokens")
            counts["moved"] += 1
        elif d.get("action") == "accept":
            counts["accepted"] += 1
        if start is None:
            dropped["untagged"].append(r["mention_id"])
            continue
        if p["flags"]:
            counts["flagged"] += 1
            counts["flagged_reviewed" if d.get("action") else "flagged_unreviewed"] += 1
        para = p["paraphrase"]
        words = para[start:end]
        hi = phrase_head_index(words) if settings["style"] == "multi" else head_index(words, "event")
        head = words[hi if hi is not None else 0]
        ctx, off = spliced[r["mention_id"]]
        kept.append({**{k: r[k] for k in COREF_MENTION_FEATURES if k in r},
                     "sentence": para, "token_start": start, "token_end": end, "text": " ".join(words),
                     "head": head, "head_lemma": lookup_lemma(head, "en", case=ECB_LEMMA_CASE), "pos": "",
                     "context": ctx, "context_start": off + start, "context_end": off + end,
                     "original_text": str(r.get("text") or "")})
    counts["mentions"] = len(kept)
    counts["clusters"] = len({r["cluster_id"] for r in kept})
    counts["documents"] = len({r["doc_id"] for r in kept})
    qc = [d["qc"] for d in corrections.values() if d.get("qc")]
    summary = {"counts": dict(counts), "dropped": {k: v for k, v in dropped.items()},
               "qc": {"judged": len(qc), "valid": qc.count("valid"),
                      "share_valid": qc.count("valid") / len(qc) if qc else None}}
    split = settings["split"]
    target = out / folder.data_file(split)
    target.parent.mkdir(parents=True, exist_ok=True)
    for old in target.parent.glob(f"{split}-*.parquet"):
        old.unlink()
    import pyarrow as pa
    import pyarrow.parquet as pq

    if kept:  # an empty split does not load (`datasets` cannot infer it), so neither it nor a card is written
        pq.write_table(pa.Table.from_pylist(kept, schema=COREF_MENTION_FEATURES.arrow_schema), target)
    report_path = out / folder.REPORT
    report = folder.read_json(report_path, "report") if report_path.is_file() else {}
    report["build"] = summary
    folder.write_json(report_path, report)
    from figbench.generate.card import write_card

    if kept:
        write_card(out, settings, report)
    else:
        (out / folder.CARD).unlink(missing_ok=True)
    return summary


__all__ = ["ACTIONS", "FLAGS", "QC", "build", "load_corrections", "propose", "save_correction"]
