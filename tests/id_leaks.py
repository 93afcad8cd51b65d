"""A probe for label leaks in example ids: how well do id substrings alone predict the label?

``id_probe(ids, labels)`` trains a multinomial naive Bayes classifier (scikit-learn) on the substrings (length 1-4,
with and without their position) of half of the ids and returns its accuracy on the other half,
together with the accuracy of always predicting the training half's majority label. Ids that carry
no label information give an accuracy at the majority level; ``Q12N3`` or ``test-event-0042`` give
nearly 1.0.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Sequence


def _features(i: str) -> list[str]:
    out = [f"{k}@{i[k]}" for k in range(len(i))]
    out += [i[a:a + n] for n in range(1, 5) for a in range(len(i) - n + 1)]
    return out


def probe(train_ids: Sequence[str], train_labels: Sequence[object], test_ids: Sequence[str],
          test_labels: Sequence[object]) -> tuple[float, float, int]:
    """``(probe accuracy, majority accuracy, test size)``: naive Bayes on id substrings, fit on the train rows
    (scikit-learn's ``CountVectorizer`` over :func:`_features` and ``MultinomialNB`` with add-one smoothing)."""
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.naive_bayes import MultinomialNB

    vectorizer = CountVectorizer(analyzer=lambda i: _features(str(i)), lowercase=False)
    x_train = vectorizer.fit_transform(list(train_ids))
    labels = [str(y) for y in train_labels]   # one comparable type for the classes
    model = MultinomialNB(alpha=1.0).fit(x_train, labels)
    predicted = model.predict(vectorizer.transform(list(test_ids)))
    truth = [str(y) for y in test_labels]
    majority = Counter(labels).most_common(1)[0][0]
    right = sum(p == y for p, y in zip(predicted, truth))
    maj = sum(y == majority for y in truth) / len(truth)
    return right / len(truth), maj, len(truth)


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
