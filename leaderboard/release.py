"""What a hidden (test) split's scores look like when released: rounded to 0.001 (0.1 in percent).

Used when a score is written (the store keeps the released copy beside the exact one, so reading a
board of thousands of submissions needs no rounding) and when one submission is shown.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

HIDDEN_DECIMALS = 3   #: fractions of hidden splits are released rounded to 0.001 (0.1 in percent)


def is_hidden(split: str) -> bool:
    """Test splits are hidden; dev splits are released in full."""
    return split.startswith("test")


def round_hidden(value: float | None) -> float | None:
    return None if value is None else round(float(value), HIDDEN_DECIMALS)


def released_scores(split: str, scores: Mapping[str, Any] | None, cis: Mapping[str, Any] | None
                    ) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """``(scores, intervals)`` as released for ``split``."""
    if not is_hidden(split):
        return (dict(scores) if scores is not None else None), (dict(cis) if cis is not None else None)
    out_s = {k: round_hidden(v) for k, v in scores.items()} if scores is not None else None
    out_c = {k: {**ci, "low": round_hidden(ci.get("low")), "high": round_hidden(ci.get("high"))}
             for k, ci in cis.items()} if cis is not None else None
    return out_s, out_c


def release(row: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a submission row with scores, intervals and mismatches as released."""
    out = dict(row)
    if not is_hidden(row["split"]):
        return out
    out["scores"], out["confidence_intervals"] = released_scores(row["split"], row.get("scores"),
                                                                 row.get("confidence_intervals"))
    if out.get("mismatches"):
        out["mismatches"] = {k: {**m, "server": round_hidden(m.get("server"))} for k, m in out["mismatches"].items()}
    return out
