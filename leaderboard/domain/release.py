"""What a benchmark's scores look like when released, decided by its declared gold (``Benchmark.gold``).

* **public** benchmarks (gold released with the corpus: anyone can score the test split) are released
  in full: exact scores, intervals, counts and self-reported-score mismatches;
* **hidden** benchmarks (gold only in the server's private store) are released rounded to 0.001 (0.1
  in percent), and never with exact counts (``n_correct_spans`` ...) or the self-reported-score
  mismatch flag: either would give the exact number of correct items, an oracle for the gold.

A benchmark this process does not know is treated as hidden (the conservative side). Used when a
score is written (the store keeps the released copy beside the exact one) and whenever a row leaves
the server (board, API, ``leaderboard list``/``export``, the Hub's public results files).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from figbench.tasks import HIDDEN, PUBLIC, Benchmark, find_benchmark

HIDDEN_DECIMALS = 3   #: fractions of hidden benchmarks are released rounded to 0.001 (0.1 in percent)

Where = Benchmark | Mapping[str, Any] | str


def row_key(row: Mapping[str, Any]) -> str:
    return f"{row['task']}/{row['dataset']}/{row['config']}/{row['split']}"


def gold_kind(where: Where) -> str:
    """``"public"`` or ``"hidden"`` for a benchmark, a row (its task/dataset/config/split) or a benchmark key."""
    if isinstance(where, Benchmark):
        return where.gold
    key = row_key(where) if isinstance(where, Mapping) else str(where)
    bench = find_benchmark(key)
    return bench.gold if bench is not None else HIDDEN


def is_hidden(where: Where) -> bool:
    """True when the benchmark's gold is held only by the server (unknown benchmarks count as hidden)."""
    return gold_kind(where) == HIDDEN


def round_hidden(value: float | None) -> float | None:
    return None if value is None else round(float(value), HIDDEN_DECIMALS)


def released_scores(where: Where, scores: Mapping[str, Any] | None, cis: Mapping[str, Any] | None
                    ) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """``(scores, intervals)`` as released for the benchmark ``where``."""
    if not is_hidden(where):
        return (dict(scores) if scores is not None else None), (dict(cis) if cis is not None else None)
    out_s = {k: round_hidden(v) for k, v in scores.items()} if scores is not None else None
    out_c = {k: {**ci, "low": round_hidden(ci.get("low")), "high": round_hidden(ci.get("high"))}
             for k, ci in cis.items()} if cis is not None else None
    return out_s, out_c


def release(row: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a submission row as it may leave the server, with ``gold`` (public/hidden) added; on a
    hidden benchmark scores and intervals rounded, exact counts and mismatch flags withheld."""
    out = dict(row)
    kind = gold_kind(row)
    out["gold"] = kind
    if kind == PUBLIC:
        return out
    if "scores" in out or "confidence_intervals" in out:
        out["scores"], out["confidence_intervals"] = released_scores(HIDDEN_BENCHMARK, row.get("scores"),
                                                                     row.get("confidence_intervals"))
    if "counts" in out:
        out["counts"] = {}
    if "mismatches" in out:
        out["mismatches"] = {}
    return out


#: stands for "some hidden benchmark" where only the rounding matters
HIDDEN_BENCHMARK = Benchmark("", "", "", "", "", gold=HIDDEN)
