"""Can gold be read off the ids handed to submitters? A "model" that only parses ids, measured.

For each benchmark's gold, :func:`id_leak` derives one label per id from the gold's kind (the class
of a label or ranking task; whether a tagged example has a span; a mention's cluster; a span's start;
a reference's first word), then, in k-fold cross-validation over the ids, learns which id substring
predicts which label and predicts held-out ids from their substrings alone. It also tries the
direct read: a label written inside the id. Both must stay at chance (the majority label of the
training folds), within a binomial margin. ``python -m figbench_leaderboard.idleak`` checks every
benchmark whose gold loads.

Assumed id scheme (what the builders hand out): opaque, stable ids derived from the data, e.g. a
fixed prefix plus a hex digest of the record's position and text; constant prefixes carry nothing.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Mapping
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


def _fit(ids: list[str], labels: Mapping[str, str]) -> dict[str, tuple[str, float, int]]:
    """feature -> (its most frequent label, that label's share, support)."""
    by_feat: dict[str, Counter] = defaultdict(Counter)
    for i in ids:
        for f in features(i):
            by_feat[f][labels[i]] += 1
    model = {}
    for f, c in by_feat.items():
        n = sum(c.values())
        if n >= 2:
            lab, k = c.most_common(1)[0]
            model[f] = (lab, k / n, n)
    return model


def _predict(model, ex_id: str, fallback: str) -> str:
    best = None
    for f in features(ex_id):
        hit = model.get(f)
        if hit is not None and (best is None or (hit[1], hit[2]) > (best[1], best[2])):
            best = hit
    return best[0] if best is not None and best[1] > 0.5 else fallback


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
    hits_sub = hits_in = hits_chance = 0
    for k in range(folds):
        held = set(order[k::folds].tolist())
        test = [ids[j] for j in sorted(held)]
        train = [ids[j] for j in range(len(ids)) if j not in held]
        majority = Counter(labels[i] for i in train).most_common(1)[0][0] if train else label_set[0]
        model = _fit(train, labels)
        for i in test:
            hits_chance += labels[i] == majority
            hits_sub += _predict(model, i, majority) == labels[i]
            hits_in += (_label_inside(i, label_set) or majority) == labels[i]
    n = len(ids)
    chance = hits_chance / n
    margin = max(0.05, 4 * math.sqrt(max(chance * (1 - chance), 1.0 / n) / n))
    return LeakReport(gold.key, n, len(label_set), chance, hits_sub / n, hits_in / n, margin)


if __name__ == "__main__":  # pragma: no cover - a check to run by hand on real corpora
    from figbench_leaderboard.benchmarks import BenchmarkRegistry
    from figbench_leaderboard.gold import BuilderGoldProvider

    provider = BuilderGoldProvider()
    for b in BenchmarkRegistry():
        try:
            print(id_leak(provider.get(b)))
        except ValueError as e:
            print(f"{b.key}: gold not loadable here: {e}")
