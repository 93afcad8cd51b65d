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


def probe(train_ids: Sequence[str], train_labels: Sequence[object], test_ids: Sequence[str],
          test_labels: Sequence[object]) -> tuple[float, float, int]:
    """``(probe accuracy, majority accuracy, test size)``: naive Bayes on id substrings, fit on the train rows."""
    prior = Counter(train_labels)
    counts: dict[object, Counter] = defaultdict(Counter)
    for i, y in zip(train_ids, train_labels):
        counts[y].update(_features(str(i)))
    vocab = {f for c in counts.values() for f in c}
    totals = {y: sum(c.values()) for y, c in counts.items()}
    majority = prior.most_common(1)[0][0]
    right = 0
    for i, y in zip(test_ids, test_labels):
        feats = _features(str(i))
        best = max(prior, key=lambda c: math.log(prior[c]) + sum(
            math.log((counts[c][f] + 1) / (totals[c] + len(vocab))) for f in feats))
        right += best == y
    maj = sum(y == majority for y in test_labels) / len(test_labels)
    return right / len(test_labels), maj, len(test_labels)


def id_probe(ids: Sequence[str], labels: Sequence[object], seed: int = 0) -> tuple[float, float, int]:
    """:func:`probe` on a seeded half/half split of the rows."""
    order = list(range(len(ids)))
    random.Random(seed).shuffle(order)
    train, test = order[: len(order) // 2], order[len(order) // 2:]
    return probe([ids[k] for k in train], [labels[k] for k in train], [ids[k] for k in test], [labels[k] for k in test])


def assert_no_id_leak(ids: Sequence[str], labels: Sequence[object], seed: int = 0,
                      result: tuple[float, float, int] | None = None) -> None:
    """The probe (:func:`id_probe`, or a given ``result``) does no better than the majority label, up to
    three standard errors (and 2 points)."""
    acc, maj, n = result or id_probe(ids, labels, seed)
    margin = 3 * math.sqrt(max(maj * (1 - maj), 0.01) / n) + 0.02
    assert acc <= maj + margin, f"ids predict labels: probe accuracy {acc:.3f}, majority {maj:.3f} (n={n})"
