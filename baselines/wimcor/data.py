"""WiMCor examples for the baselines: tokens, the PMW's token span, medium and coarse labels.

Rows come from the ``wimcor`` builder (``text`` and the PMW's character offsets; label names from its
``ClassLabel`` features); the text is split on whitespace around the PMW and a row becomes::

    {"id": str, "tokens": [str], "pmw_start": int, "pmw_end": int, "label": MEDIUM, "coarse": str}

with ``tokens[pmw_start:pmw_end]`` the potentially metonymic word (PMW).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from figbench_baselines.common.splits import Rows, load_split

from figbench.corpora.wimcor import coarse_for_medium as coarse_of
from figbench.labels import decode_labels

_LABEL_COLUMNS = ("medium", "coarse")


@dataclass
class Loaded:
    """Examples of one split (with the rows they come from) plus the records that could not be used."""

    examples: Rows
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
    example = {"id": ident, "tokens": before + pmw + after, "pmw_start": len(before),
               "pmw_end": len(before) + len(pmw)}
    if row.get("medium") is None:   # a hidden benchmark's inputs: no labels
        return example
    medium = str(row["medium"]).upper()
    return {**example, "label": medium, "coarse": str(row.get("coarse") or coarse_of(medium)).lower()}


def load_inputs_examples(path: str) -> Loaded:
    """Examples of a hidden benchmark's inputs file (no labels); an unusable row is an error naming the file, since
    a submission predicts every row."""
    from figbench_baselines.common.inputs_only import task_inputs

    rows = task_inputs(path, "metonymy")
    examples = []
    for row in rows:
        try:
            examples.append(example_from_row(row))
        except ValueError as e:
            raise ValueError(f"{path}: {e}") from None
    return Loaded(Rows.of(rows.split, examples), source=str(path))


def load_split_examples(config: str, split: str, data_dir: str | None) -> Loaded:
    """Examples of ``config``/``split`` from the ``wimcor`` builder; unusable rows are counted skips."""
    ds = load_split("wimcor", config, split, data_dir)
    labels = {c: decode_labels(ds, c, ds[c]) for c in _LABEL_COLUMNS if c in ds.column_names}
    examples, index, skipped = [], [], []
    for i, row in enumerate(ds):
        row = {**row, **{c: values[i] for c, values in labels.items()}}
        try:
            examples.append(example_from_row(row))
            index.append(i)
        except ValueError as e:
            skipped.append(str(e))
    return Loaded(Rows.of(ds, examples, index), skipped, source=f"wimcor/{config}/{split}")
