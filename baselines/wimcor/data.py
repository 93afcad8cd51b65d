"""WiMCor examples for the baselines: tokens, the PMW's token span, medium and coarse labels.

Rows come from the ``wimcor`` builder (``figbench.load_dataset("wimcor", config)``: ``text`` and
the PMW's character offsets); the text is split on whitespace around the PMW and a row becomes::

    {"id": str, "tokens": [str], "pmw_start": int, "pmw_end": int, "label": MEDIUM, "coarse": str}

with ``tokens[pmw_start:pmw_end]`` the potentially metonymic word (PMW).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

MEDIUM_LABELS = ("ARTIFACT", "EVENT", "INSTITUTE", "LOCATION", "TEAM")
LITERAL_MEDIUM = ("LOCATION",)


def coarse_of(medium: str) -> str:
    """WiMCor's coarse class: LOCATION is literal, every other medium class metonymic."""
    return "literal" if medium.upper() in LITERAL_MEDIUM else "metonymic"


@dataclass
class Loaded:
    """Examples of one split plus the records that could not be used (counted, with reasons)."""

    examples: list[dict[str, Any]]
    skipped: list[str] = field(default_factory=list)
    source: str = ""


def example_from_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """A builder row (label names, not ids) -> example; ValueError naming the row when the PMW
    offsets do not match the text or fall inside a word."""
    ident = str(row["id"])
    text, cs, ce = row["text"], int(row["pmw_start"]), int(row["pmw_end"])
    if not 0 <= cs < ce <= len(text):
        raise ValueError(f"wimcor row {ident}: PMW offsets [{cs}, {ce}) outside a text of {len(text)} characters")
    if row.get("pmw") is not None and text[cs:ce] != row["pmw"]:
        raise ValueError(f"wimcor row {ident}: text[{cs}:{ce}] = {text[cs:ce]!r} is not the PMW {row['pmw']!r}")
    before, pmw, after = text[:cs].split(), text[cs:ce].split(), text[ce:].split()
    medium = str(row["medium"]).upper()
    return {"id": ident, "tokens": before + pmw + after, "pmw_start": len(before),
            "pmw_end": len(before) + len(pmw), "label": medium,
            "coarse": str(row.get("coarse") or coarse_of(medium)).lower()}


def load_split(config: str, split: str, data_dir: str | None) -> Loaded:
    """Examples of ``config``/``split`` from the ``wimcor`` builder; unusable rows are counted skips."""
    from figbench import load_dataset

    ds = load_dataset("wimcor", config, split=split, data_dir=data_dir)
    names = {k: f.names for k, f in ds.features.items() if hasattr(f, "names")}
    out = Loaded([], source=f"wimcor/{config}/{split}")
    for i, row in enumerate(ds):
        row = {k: (names[k][v] if k in names and isinstance(v, int) else v) for k, v in row.items()}
        try:
            out.examples.append(example_from_row(row))
        except ValueError as e:
            out.skipped.append(str(e))
    return out
