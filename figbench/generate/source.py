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


def check_rows(rows: list[dict], where: str) -> None:
    """:class:`NoTriggerSpansError` naming ``where`` and the mention when a row cannot be paraphrased."""
    if not rows:
        raise NoTriggerSpansError(f"{where}: no mentions to paraphrase")
    missing = [f for f in TRIGGER_FIELDS if f not in rows[0]]
    if missing:
        raise NoTriggerSpansError(f"{where} has no trigger spans: its rows lack {missing} "
                                  "(a coreference mention config is needed, e.g. --config events)")
    seen = set()
    for n, r in enumerate(rows):
        mid = r.get("mention_id")
        if mid in seen:
            raise NoTriggerSpansError(f"{where}: duplicate mention_id {mid!r}")
        seen.add(mid)
        sent = r.get("sentence") or []
        s, e = r.get("token_start"), r.get("token_end")
        if not sent or s is None or e is None or not (0 <= s < e <= len(sent)):
            raise NoTriggerSpansError(
                f"{where}: mention #{n} ({mid!r}) has no trigger span on its sentence "
                f"(token_start={s}, token_end={e}, {len(sent)} sentence tokens)")
        if r.get("cluster_id") in (None, ""):
            raise NoTriggerSpansError(f"{where}: mention {mid!r} has no cluster_id; the paraphrase keeps the "
                                      "gold clusters, so a split without gold cannot be used")


def units_of(rows: list[dict], where: str) -> list[Unit]:
    """The sentences of ``rows`` (in first-seen order), each with its triggers in sentence order."""
    check_rows(rows, where)
    units: dict[tuple[str, int], Unit] = {}
    by_unit: dict[tuple[str, int], list[dict]] = defaultdict(list)
    for r in rows:
        k = (str(r["doc_id"]), int(r["sentence_id"]))
        if k not in units:
            units[k] = Unit(f"{k[0]}#{k[1]}", k[0], k[1], [str(t) for t in r["sentence"]])
        elif list(r["sentence"]) != units[k].tokens:
            raise NoTriggerSpansError(f"{where}: mention {r['mention_id']!r}: sentence {k[1]} of {k[0]} differs "
                                      "from the one of another mention of that sentence")
        by_unit[k].append(r)
    for k, unit in units.items():
        for r in sorted(by_unit[k], key=lambda r: (r["token_start"], r["token_end"])):
            text = str(r.get("text") or "") or " ".join(unit.tokens[r["token_start"]: r["token_end"]])
            unit.triggers.append((str(r["mention_id"]), int(r["token_start"]), int(r["token_end"]), text))
    return list(units.values())
