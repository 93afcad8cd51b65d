"""figbench's scoring path: every metric, baseline and the leaderboard score with these functions.

``coref`` (CoNLL metrics), ``spans`` (BIO span F1, ePiC span overlap), ``classification`` (micro/macro
over a declared label set, per-group accuracy), ``ranking`` (accuracy, MRR), ``text`` (BLEU,
ROUGE-L), ``vocab`` (in/out-of-vocabulary F1). Functions named ``score_*`` return :class:`Scored`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Scored:
    """Scores (fractions), their bootstrap intervals, and other numbers (counts, sizes)."""

    scores: dict[str, float]
    confidence_intervals: dict[str, dict[str, Any]]
    counts: dict[str, float] = field(default_factory=dict)


__all__ = ["Scored"]
