"""Can gold be read off the ids handed to submitters? A "model" that only parses ids, measured.

For each benchmark's gold, :func:`id_leak` derives one label per id from the gold's kind (the class
of a label or ranking task; whether a tagged example has a span; a mention's cluster; a span's start;
a reference's first word), then, in k-fold cross-validation over the ids, learns which id substring
predicts which label and predicts held-out ids from their substrings alone. It also tries the
direct read: a label written inside the id. Both must stay at chance (the majority label of the
training folds), within a binomial margin. ``python -m figbench_leaderboard.scoring.id_leak`` checks every
benchmark whose gold loads.

Assumed id scheme (what the builders hand out): opaque, stable ids derived from the data, e.g. a
fixed prefix plus a hex digest of the record's position and text; constant prefixes carry nothing.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from figbench.tasks import Gold
from figbench.tasks.gold import ClusterGold, LabelGold, RankingGold, SpanGold, TagGold, TextGold

MIN_N, MAX_N = 2, 8    #: substring lengths the learner tries


def id_labels(gold: Gold) -> dict[str, str]:
    """One label per id, from the gold's kind."""
    if isinstance(gold, (LabelGold, RankingGold)):
        return {i: str(gold.labels[i]) for i in gold.ids}
    if isinstance(gold, TagGold):
        outside = {"O"}
        return {i: "span" if any(t not in outside for t in gold.tags[i]) else "none" for i in gold.ids}
    if isinstance(gold, ClusterGold):
        return {m: f"c{k}" for k, cluster in enumerate(gold.clusters) for m in cluster}
    if isinstance(gold, SpanGold):
        return {i: str(gold.spans[i].get("start", gold.spans[i]["answer"][:1])) for i in gold.ids}
    if isinstance(gold, TextGold):
        return {i: (gold.references[i].split() or [""])[0].lower() for i in gold.ids}
    raise TypeError(f"no id labels for gold of type {type(gold).__name__}")


def features(ex_id: str) -> set[str]:
    """Tokens (split at non-alphanumerics, and at letter/digit changes) and substrings of 2-8 characters."""
    s = ex_id.lower()
    out = {t for t in re.split(r"[^0-9a-z]+", s) if t}
    out |= {t for t in re.findall(r"[a-z]+|[0-9]+", s)}
    for n in range(MIN_N, MAX_N + 1):
        out |= {s[k:k + n] for k in range(len(s) - n + 1)}
    return out


def _feature_matrix(ids: list[str]):
    """Binary id x feature matrix (:func:`features`) as a SciPy CSR matrix."""
    from sklearn.feature_extraction.text import CountVectorizer

    return CountVectorizer(analyzer=features, binary=True, lowercase=False).fit_transform(ids).tocsr()


def _row_max(m) -> tuple[np.ndarray, np.ndarray]:
    """Per row of a CSR matrix with non-negative entries: (column of its largest entry, lowest column on ties;
    that entry, 0 for an empty row), vectorised (SciPy's own ``argmax(axis=1)`` loops over rows in Python)."""
    m = m.tocsr(copy=True)
    m.eliminate_zeros()
    m.sum_duplicates()
    m.sort_indices()
    n = m.shape[0]
    lengths = np.diff(m.indptr)
    value = np.zeros(n)
    col = np.zeros(n, dtype=np.int64)
    if m.nnz == 0:
        return col, value
    filled = lengths > 0
    value[filled] = np.maximum.reduceat(m.data, m.indptr[:-1][filled])
    row = np.repeat(np.arange(n), lengths)
    at_max = np.flatnonzero(m.data == value[row])
    first = at_max[np.r_[True, row[at_max][1:] != row[at_max][:-1]]]
    col[row[first]] = m.indices[first]
    return col, value


def _substring_predictions(x_train, y_train: np.ndarray, x_test, n_labels: int, fallback: int) -> np.ndarray:
    """Learn, for every feature seen at least twice in training, its most frequent label and that label's
    share; predict each held-out id by its feature with the highest (share, support), if that share is
    above one half, else ``fallback``. Ties go to the lowest label / feature index."""
    from scipy.sparse import csr_matrix

    onehot = csr_matrix((np.ones(len(y_train)), (np.arange(len(y_train)), y_train)), shape=(len(y_train), n_labels))
    counts = (x_train.T @ onehot).tocsr()                     # feature x label
    support = np.asarray(counts.sum(axis=1)).ravel()
    top, top_count = _row_max(counts)
    share = top_count / np.maximum(support, 1)
    # lexicographic (share, support) as one number: shares differ by at least 1 / support^2 (< 1e-8 here)
    key = np.where(support >= 2, share * 1e12 + support, 0.0)
    best, best_key = _row_max(x_test.multiply(key))
    return np.where((best_key > 0) & (share[best] > 0.5), top[best], fallback)


def _label_inside(ex_id: str, label_set: list[str]) -> str | None:
    low = ex_id.lower()
    inside = [lab for lab in label_set if len(lab) >= 2 and lab.lower() in low]
    return max(inside, key=len) if inside else None


@dataclass
class LeakReport:
    key: str
    n: int
    n_labels: int
    chance: float          #: majority label of the training folds
    from_substrings: float  #: accuracy of the substring learner on held-out ids
    label_inside: float    #: accuracy of "a label written in the id" (else the majority label)
    margin: float

    @property
    def leaks(self) -> bool:
        return max(self.from_substrings, self.label_inside) > self.chance + self.margin

    def __str__(self) -> str:
        verdict = "LEAKS" if self.leaks else "at chance"
        return (f"{self.key}: {self.n} ids, {self.n_labels} labels; chance {self.chance:.3f}, from id substrings "
                f"{self.from_substrings:.3f}, label written in the id {self.label_inside:.3f} (margin "
                f"{self.margin:.3f}): {verdict}")


def id_leak(gold: Gold, *, folds: int = 5, seed: int = 0, max_ids: int = 4000) -> LeakReport:
    """Cross-validated accuracy of predicting ``gold``'s per-id labels from the ids alone."""
    labels = id_labels(gold)
    ids = sorted(labels)
    rng = np.random.default_rng(seed)
    if len(ids) > max_ids:
        ids = sorted(rng.choice(ids, max_ids, replace=False).tolist())
    order = rng.permutation(len(ids))
    label_set = sorted(set(labels.values()))
    label_index = {lab: j for j, lab in enumerate(label_set)}
    y = np.asarray([label_index[labels[i]] for i in ids], dtype=np.int64)
    x = _feature_matrix(ids)
    hits_sub = hits_in = hits_chance = 0
    for k in range(folds):
        held = np.zeros(len(ids), dtype=bool)
        held[order[k::folds]] = True
        test, train = np.flatnonzero(held), np.flatnonzero(~held)
        majority = int(np.bincount(y[train], minlength=len(label_set)).argmax()) if len(train) else 0
        pred = _substring_predictions(x[train], y[train], x[test], len(label_set), majority)
        hits_chance += int((y[test] == majority).sum())
        hits_sub += int((pred == y[test]).sum())
        for j in test:
            hits_in += (_label_inside(ids[j], label_set) or label_set[majority]) == labels[ids[j]]
    n = len(ids)
    chance = hits_chance / n
    margin = max(0.05, 4 * math.sqrt(max(chance * (1 - chance), 1.0 / n) / n))
    return LeakReport(gold.key, n, len(label_set), chance, hits_sub / n, hits_in / n, margin)


if __name__ == "__main__":  # pragma: no cover - a check to run by hand on real corpora
    from figbench_leaderboard.domain.benchmarks import BenchmarkRegistry
    from figbench_leaderboard.scoring.gold import BuilderGoldProvider

    provider = BuilderGoldProvider()
    for b in BenchmarkRegistry():
        try:
            print(id_leak(provider.get(b)))
        except ValueError as e:
            print(f"{b.key}: gold not loadable here: {e}")
