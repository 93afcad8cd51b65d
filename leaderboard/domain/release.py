"""What a benchmark's scores look like when released, decided by its declared gold (``Benchmark.gold``).

* **public** benchmarks (gold released with the corpus: anyone can score the test split) are released
  in full: exact scores, intervals, counts and self-reported-score mismatches;
* **hidden** benchmarks (gold only in the server's private store) release one number per submission, the
  headline as the **Ladder** gives it (Blum & Hardt 2015, "The Ladder: A Reliable Leaderboard for Machine
  Learning Competitions"): a submission's score is released only when it beats the best released score of
  the same identity on the benchmark by at least ``eta``, rounded to a multiple of ``eta``; otherwise that
  best is repeated. Nothing else: no other metric, no interval (its ``n_units`` and its bootstrap would give
  the exact count and which items changed), no counts, no mismatch flag. The released value is computed
  when the submission is scored (:func:`ladder_step`, in the store's transaction) and kept in the row's
  ``public_scores``; a row without it releases nothing.

:func:`leakage_bits` and :func:`accuracy_bound` are the bound the README states: with ``eta`` and a budget of
``B`` submissions per benchmark per day over all identities, one day of transcripts carries at most
``B * log2(1/eta + 2)`` bits (each submission: the best repeated, one of at most ``1/eta`` higher grid values,
or refused as a probe), so a labelling chosen from them beats the best fixed guess by more than
``sqrt((bits * ln 2 + ln(1/alpha)) / (2 n))`` with probability at most ``alpha`` (Hoeffding and a union
bound over the at most ``2**bits`` labellings a transcript can select).

**Reveal.** A maintainer may reveal a hidden benchmark once (``figbench leaderboard hidden reveal``;
:mod:`~figbench_leaderboard.store.reveals` records it, closes its submissions and tells this module with
:func:`note_reveals`). From then on its rows are released in full, like a public benchmark's: exact scores,
intervals with ``n_units``, counts. Before it, nothing of that leaves the server.

A benchmark this process does not know is treated as hidden (the conservative side).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from figbench.tasks import HIDDEN, PUBLIC, Benchmark, find_benchmark

LADDER_ETA = 0.01   #: the Ladder's step: a new hidden score is released only 0.01 (one point) above the best
RELEASE_VERSION = 2   #: 1: hidden scores rounded to 0.001 with intervals; 2: the Ladder's headline only

Where = Benchmark | Mapping[str, Any] | str
#: revealed hidden benchmarks: key -> when (Unix time), as the store holds them (:func:`note_reveals`)
_REVEALED: dict[str, float] = {}


def note_reveals(reveals: Mapping[str, float]) -> None:
    """The store's reveals (every one: the mapping replaces what was known)."""
    _REVEALED.clear()
    _REVEALED.update({str(k): float(v) for k, v in reveals.items()})


def _key(where: Where) -> str:
    return where.key if isinstance(where, Benchmark) else row_key(where) if isinstance(where, Mapping) else str(where)


def revealed_at(where: Where) -> float | None:
    """When the maintainer revealed this hidden benchmark, or None (not revealed, or public)."""
    return _REVEALED.get(_key(where)) if is_hidden(where) else None


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


def gold_marker(where: Where) -> str:
    """How the board names a benchmark's gold: *public test set*; a hidden one by its linkage audit: *hidden,
    private gold* (the audit linked no item's gold to public text), *hidden, derivable from public text (N%)*,
    or *hidden (server only)* when it was not audited."""
    bench = where if isinstance(where, Benchmark) else find_benchmark(
        row_key(where) if isinstance(where, Mapping) else str(where))
    if bench is not None and not bench.hidden:
        return "public test set"
    share = bench.derivable if bench is not None else None
    if share is None:
        mark = "hidden (server only)"
    elif share <= 0:
        mark = "hidden, private gold"
    else:
        mark = f"hidden, derivable from public text ({100 * share:.0f}%)" if share >= 0.01 else \
            "hidden, derivable from public text (<1%)"
    when = revealed_at(bench if bench is not None else where)
    if when is not None:
        from datetime import UTC, datetime

        mark += f"; revealed {datetime.fromtimestamp(when, UTC):%Y-%m-%d}: scores in full, submissions closed"
    return mark


def ladder_step(best: float | None, score: float, *, eta: float = LADDER_ETA,
                higher_is_better: bool = True) -> tuple[float, bool]:
    """The Ladder: ``(released, new)``. A score at least ``eta`` better than ``best`` is released rounded to a
    multiple of ``eta`` (``new``); otherwise ``best`` is repeated. ``best=None``: nothing released yet."""
    sign = 1.0 if higher_is_better else -1.0
    if best is None or sign * (score - best) >= eta:
        released = round(round(score / eta) * eta, 10)
        if best is not None and sign * (released - best) < eta - 1e-12:   # rounding never steps back
            released = round(best + sign * eta, 10)
        return released, True
    return best, False


def leakage_bits(submissions: int, eta: float = LADDER_ETA) -> float:
    """Bits a transcript of ``submissions`` Ladder answers can carry: each is the repeated best, one of at most
    ``1/eta`` higher grid values, or a probe refusal: ``submissions * log2(1/eta + 2)``."""
    return submissions * math.log2(1.0 / eta + 2.0)


def accuracy_bound(bits: float, n_items: int, alpha: float = 0.01) -> float:
    """How far above the best fixed guess's accuracy a labelling selected by ``bits`` of transcript can get, except
    with probability ``alpha`` over independently drawn gold labels (Hoeffding, union over ``2**bits`` labellings)."""
    return math.sqrt((bits * math.log(2.0) + math.log(1.0 / alpha)) / (2.0 * n_items))


def hidden_released(row: Mapping[str, Any], public: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A hidden row's released copy made under an older rule, cut to what this rule releases: its headline alone,
    on the Ladder's grid (``None`` for a public or revealed row or an unknown task: left as it is)."""
    from figbench.tasks import TASKS

    task = TASKS.get(row.get("task"))
    if not is_hidden(row) or task is None or revealed_at(row) is not None:
        return None
    value = (public or {}).get(task.headline)
    if not isinstance(value, (int, float)):
        return {}
    return {task.headline: ladder_step(None, float(value))[0]}


def released_scores(where: Where, scores: Mapping[str, Any] | None, cis: Mapping[str, Any] | None
                    ) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """``(scores, intervals)`` as released for the benchmark ``where`` without its Ladder: in full on a public
    benchmark (or a revealed hidden one), nothing on a hidden one (the Ladder's value is written when the
    submission is scored)."""
    if not is_hidden(where) or revealed_at(where) is not None:
        return (dict(scores) if scores is not None else None), (dict(cis) if cis is not None else None)
    return {}, {}


def release(row: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a submission row as it may leave the server, with ``gold`` (public/hidden) added; on a
    hidden benchmark only the Ladder's released headline (``public_scores``), no intervals, counts or mismatch
    flags; a revealed hidden benchmark in full, with ``revealed`` (when)."""
    out = {k: v for k, v in row.items() if k not in ("public_scores", "public_cis")}
    kind = gold_kind(row)
    out["gold"] = kind
    if kind == PUBLIC:
        return out
    when = revealed_at(row)
    if when is not None:
        out["revealed"] = when
        return out
    if "scores" in out:
        out["scores"] = dict(row.get("public_scores") or {})
    if "confidence_intervals" in out:
        out["confidence_intervals"] = {}
    if "counts" in out:
        out["counts"] = {}
    if "mismatches" in out:
        out["mismatches"] = {}
    return out
