"""The sentences of a coreference split to paraphrase: each with its tokens and event triggers."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

#: Fields a mention row needs to be paraphrased and kept (``figbench.schema.COREF_MENTION_FEATURES``).
TRIGGER_FIELDS = ("mention_id", "doc_id", "sentence_id", "sentence", "token_start", "token_end", "cluster_id")


class NoTriggerSpansError(ValueError):
    """The split has no usable trigger spans (no token offsets or sentence tokens)."""


@dataclass
class Unit:
    """One sentence: its id ``<doc_id>#<sentence_id>``, tokens and triggers ``(mention_id, start, end, text)``."""

    key: str
    doc_id: str
    sentence_id: int
    tokens: list[str]
    triggers: list[tuple[str, int, int, str]] = field(default_factory=list)

    @property
    def words(self) -> list[str]:
        return [t for _, _, _, t in self.triggers]

    @property
    def text(self) -> str:
        return " ".join(self.tokens)


def sentence_span(r: dict) -> tuple[int, int, int | None] | None:
    """``(start, end, offset)``: a mention's span on its ``sentence`` and the sentence's offset in its
    ``context`` (None when the context does not hold it), or None when the row has no usable span.

    ECB+ rows give sentence-relative offsets (``context_start - token_start`` is the sentence's offset);
    WEC-Eng rows give context-relative ones, so the sentence is looked up around the mention.
    """
    sent, s, e = list(r.get("sentence") or []), r.get("token_start"), r.get("token_end")
    if not sent or s is None or e is None:
        return None
    ctx, cs, ce = list(r.get("context") or []), r.get("context_start"), r.get("context_end")
    if ctx and cs is not None and ce is not None and 0 <= cs < ce <= len(ctx):
        off = cs - s
        if 0 <= off and ctx[off: off + len(sent)] == sent and 0 <= s < e <= len(sent):
            return s, e, off
        for off in range(max(0, ce - len(sent)), min(cs, len(ctx) - len(sent)) + 1):
            if ctx[off: off + len(sent)] == sent:
                return cs - off, ce - off, off
    return (s, e, None) if 0 <= s < e <= len(sent) else None


def check_rows(rows: list[dict], where: str) -> None:
    """:class:`NoTriggerSpansError` naming ``where`` and the mention when a row cannot be paraphrased."""
    if not rows:
        raise NoTriggerSpansError(f"{where}: no mentions to paraphrase")
    missing = [f for f in TRIGGER_FIELDS if f not in rows[0]]
    if missing:
        raise NoTriggerSpansError(f"{where} has no trigger spans: its rows lack {missing} "
                                  "(a coreference mention config is needed, e.g. --config events)")
    seen = set()
    for r in rows:
        mid = r.get("mention_id")
        if mid in seen:
            raise NoTriggerSpansError(f"{where}: duplicate mention_id {mid!r}")
        seen.add(mid)
        if r.get("cluster_id") in (None, ""):
            raise NoTriggerSpansError(f"{where}: mention {mid!r} has no cluster_id; the paraphrase keeps the "
                                      "gold clusters, so a split without gold cannot be used")


def units_of(rows: list[dict], where: str) -> tuple[list[Unit], list[str]]:
    """The sentences of ``rows`` (in first-seen order), each with its triggers in sentence order, and the ids
    of the mentions without a span on one sentence (e.g. a WEC-Eng mention across a sentence break), which
    are reported, not paraphrased. A split where no mention has a span is a :class:`NoTriggerSpansError`."""
    check_rows(rows, where)
    units: dict[tuple[str, int], Unit] = {}
    by_unit: dict[tuple[str, int], list[dict]] = defaultdict(list)
    skipped = [str(r["mention_id"]) for r in rows if sentence_span(r) is None]
    if len(skipped) == len(rows):
        r = rows[0]
        raise NoTriggerSpansError(
            f"{where} has no trigger spans: no mention has a span on its sentence (e.g. {r['mention_id']!r}: "
            f"token_start={r.get('token_start')}, token_end={r.get('token_end')}, "
            f"{len(r.get('sentence') or [])} sentence tokens)")
    lost = set(skipped)
    for r in rows:
        if str(r["mention_id"]) in lost:
            continue
        k = (str(r["doc_id"]), int(r["sentence_id"]))
        if k not in units:
            units[k] = Unit(f"{k[0]}#{k[1]}", k[0], k[1], [str(t) for t in r["sentence"]])
        elif list(r["sentence"]) != units[k].tokens:
            raise NoTriggerSpansError(f"{where}: mention {r['mention_id']!r}: sentence {k[1]} of {k[0]} differs "
                                      "from the one of another mention of that sentence")
        by_unit[k].append(r)
    for k, unit in units.items():
        spans = sorted(((sentence_span(r), r) for r in by_unit[k]), key=lambda x: x[0][:2])
        for (s, e, _), r in spans:
            text = str(r.get("text") or "") or " ".join(unit.tokens[s:e])
            unit.triggers.append((str(r["mention_id"]), s, e, text))
    return list(units.values()), skipped
