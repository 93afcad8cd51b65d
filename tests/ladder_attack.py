"""The probing attacker of issue 32's tests, written once: the boosting attack of Blum & Hardt (2015) on a
hidden single-label benchmark released by the Ladder. Random labellings are submitted from many identities,
each weighted by how far its released score lies above chance, and the labels are recovered by weighted vote.

The transport is the caller's: ``submit(predictions, identity_index, round_)`` returns the released headline
score, or ``None`` when the board refused the submission for its budget over all submitters (any other refusal
must raise). The in-process test passes a ``Leaderboard``; the wheel test passes HTTP calls to a served board.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from figbench_leaderboard.domain.release import leakage_bits

Submit = Callable[[dict[str, str], int, int], "float | None"]


@dataclass
class Attack:
    """What the attacker ends with: its recovered labels, the scores released to it, how many were accepted."""

    recovered: dict[str, str]
    released: list[float] = field(default_factory=list)

    @property
    def sent(self) -> int:
        return len(self.released)

    def accuracy(self, gold: dict[str, str]) -> float:
        return sum(self.recovered[i] == gold[i] for i in gold) / len(gold)


def majority_rate(gold: dict[str, str]) -> float:
    """The accuracy of predicting the gold's most frequent label everywhere (what no probing is needed for)."""
    values = list(gold.values())
    return max(values.count(v) for v in set(values)) / len(values)


def boosting_attack(ids: Sequence[str], labels: Sequence[str], n_identities: int, rounds: int, submit: Submit,
                    *, seed: int = 11) -> Attack:
    """``rounds`` passes over ``n_identities`` identities, one random labelling of ``ids`` per submission."""
    rng = np.random.default_rng(seed)
    votes = np.zeros((len(ids), len(labels)))
    released: list[float] = []
    for round_ in range(rounds):
        for k in range(n_identities):
            guess = rng.integers(len(labels), size=len(ids))
            score = submit({i: labels[g] for i, g in zip(ids, guess, strict=True)}, k, round_)
            if score is None:
                continue
            released.append(score)
            votes[np.arange(len(ids)), guess] += score - 1 / len(labels)   # above chance: leans towards gold
    return Attack({i: labels[int(np.argmax(votes[n]))] for n, i in enumerate(ids)}, released)


def readme_bound() -> tuple[int, float, float]:
    """The budget, eta and bits of the release rule as leaderboard/README.md states them."""
    text = (Path(__file__).resolve().parents[1] / "leaderboard" / "README.md").read_text("utf-8")
    budget = int(re.search(r"budget of \*\*(\d+) submissions", text).group(1))
    eta = float(re.search(r"step \*\*eta = ([0-9.]+)\*\*", text).group(1))
    assert "B * log2(1/eta + 2)" in text and "sqrt((bits * ln 2 + ln(1/alpha)) / (2n))" in text
    return budget, eta, leakage_bits(budget, eta)
