"""A probe for label leaks in example ids: how well do id substrings alone predict the label?

``id_probe(ids, labels)`` trains a multinomial naive Bayes classifier on the substrings (length 1-4,
with and without their position) of half of the ids and returns its accuracy on the other half,
together with the accuracy of always predicting the training half's majority label. Ids that carry
no label information give an accuracy at the majority level; ``Q12N3`` or ``test-event-0042`` give
nearly 1.0.
"""

from __future__ import annotations

import math
import random
from collections import Counter, defaultdict
from collections.abc import Sequence


def _features(i: str) -> list[str]:
    out = [f"{k}@{i[k]}" for k in range(len(i))]
    out += [i[a:a + n] for n in range(1, 5) for a in range(len(i) - n + 1)]
    return out


def id_probe(ids: Sequence[str], labels: Sequence[object], seed: int = 0) -> tuple[float, float, int]:
    """``(probe accuracy, majority accuracy, held-out size)`` on a seeded half/half split of the rows."""
    order = list(range(len(ids)))
    random.Random(seed).shuffle(order)
    train, test = order[: len(order) // 2], order[len(order) // 2:]
    prior = Counter(labels[k] for k in train)
    counts: dict[object, Counter] = defaultdict(Counter)
    for k in train:
        counts[labels[k]].update(_features(str(ids[k])))
    vocab = {f for c in counts.values() for f in c}
    totals = {y: sum(c.values()) for y, c in counts.items()}
    majority = prior.most_common(1)[0][0]
    right = 0
    for k in test:
        feats = _features(str(ids[k]))
        best = max(prior, key=lambda y: math.log(prior[y]) + sum(
            math.log((counts[y][f] + 1) / (totals[y] + len(vocab))) for f in feats))
        right += best == labels[k]
    maj = sum(labels[k] == majority for k in test) / len(test)
    return right / len(test), maj, len(test)


def assert_no_id_leak(ids: Sequence[str], labels: Sequence[object], seed: int = 0) -> None:
    """The probe does no better than the majority label, up to three standard errors (and 2 points)."""
    acc, maj, n = id_probe(ids, labels, seed)
    margin = 3 * math.sqrt(max(maj * (1 - maj), 0.01) / n) + 0.02
    assert acc <= maj + margin, f"ids predict labels: probe accuracy {acc:.3f}, majority {maj:.3f} (n={n})"
