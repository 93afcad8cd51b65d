"""How the board marks a test-informed submission's scores: :data:`~figbench.results.TEST_INFORMED` after every
number of a submission whose ``provenance.selection.kind`` is ``test-informed`` (as ``figbench docs`` marks a
record's), in every table cell and plot hover that shows it; :data:`LEGEND` says what the mark means."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from figbench.results import TEST_INFORMED, is_test_informed

LEGEND = (f"{TEST_INFORMED} test-informed: a choice behind this number (recipe, epoch, interpolation weight or a "
          "redesign) was made after seeing test results; the submission's detail view says which.")


def row_test_informed(row: Mapping[str, Any]) -> bool:
    """True for a stored row whose submission is test-informed: its ``selection`` column (board rows) or its
    ``metadata.provenance.selection`` (full rows)."""
    if "selection" in row:
        return is_test_informed(row["selection"])
    meta = row.get("metadata")
    prov = meta.get("provenance") if isinstance(meta, Mapping) else None
    return is_test_informed(prov.get("selection")) if isinstance(prov, Mapping) else False


def marked(text: str, informed: bool, *, blank: str = "–") -> str:
    """``text`` (a printed number) followed by :data:`TEST_INFORMED` when ``informed``; a ``blank`` stays blank."""
    return text + mark(informed) if text != blank else text


def mark(informed: bool) -> str:
    """:data:`TEST_INFORMED` when ``informed``, else "" (for text placed after a number, e.g. a plot's hover)."""
    return TEST_INFORMED if informed else ""
