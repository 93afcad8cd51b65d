"""A learned edge rule for the trigger re-tagger, scored on ECB+ topics it was not fitted on (used by
``benchmarks/retag_ceiling.py``; META_m validation only, never test).

An edge is a function word just beyond a span's outermost content words (``trailing`` after the last, ``leading``
before the first), walked outward until punctuation, a content word or the sentence's end; the release's span
decides each such word in or out (the walk stops at the first out). Its features: side, the word, whether the
paraphrase kept it from the sentence (``kept``) and the token on its inner side (``neighbour``). Two learners, both
fixed before any scoring:

* ``table``: the majority decision of the fine key ``(side, word, kept, neighbour)`` where seen at least
  :data:`FINE_MIN` times, else of ``(side, word, kept)``, else ``(side, kept)``, else ``side``; its confidence is
  the add-half smoothed share of that decision;
* ``logistic``: scikit-learn's ``LogisticRegression`` (default ``C``) on one-hot features of those keys.

:func:`cross_validate` fits a learner on all topics but one and applies it to the held-out topic's spans: to the
re-tagger's span of each word-list variant (its content core kept, its edges decided anew) and, for the edge-only
estimate, to the released span's own content core. A mention's chance of disagreeing is one minus the product of
the confidences of the edge decisions it took (1 where no span was proposed); flagging the mentions with the
highest chance gives the flags trade-off (:func:`to_flag`).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterator

from bench_retag import FLAGGED_AT_MOST, FLAGGED_TARGET

#: a fine pattern decides only when seen at least this often in the fitted topics (fixed before scoring)
FINE_MIN = 3
SIDES = ("trailing", "leading")


def walk(para: list[str], core: int, side: str) -> Iterator[int]:
    """Positions of the function words beyond the content word ``core`` on ``side``, outward."""
    from figbench.generate.retag import is_content, is_punct

    step = 1 if side == "trailing" else -1
    k = core + step
    while 0 <= k < len(para) and not is_punct(para[k]) and not is_content(para[k]):
        yield k
        k += step


def features(para: list[str], kept: set[int], k: int, side: str) -> tuple[str, str, bool, str]:
    """``(side, word, kept, neighbour)`` of the edge word ``para[k]``."""
    from figbench.generate.retag import norm

    return side, norm(para[k]), k in kept, norm(para[k - 1] if side == "trailing" else para[k + 1])


def _core(para: list[str], start: int, end: int) -> tuple[int, int] | None:
    from figbench.generate.retag import is_content

    content = [i for i in range(start, end) if is_content(para[i])]
    return (content[0], content[-1]) if content else None


def gold_edges(para: list[str], kept: set[int], start: int, end: int) -> list[tuple[tuple, bool]]:
    """The edge decisions of the released span ``[start, end)``: ``(features, included)``, outward per side."""
    core = _core(para, start, end)
    out: list[tuple[tuple, bool]] = []
    for side, c in zip(SIDES, reversed(core or ()), strict=False):
        for k in walk(para, c, side):
            inside = start <= k < end
            out.append((features(para, kept, k, side), inside))
            if not inside:
                break
    return out


def decide(para: list[str], kept: set[int], start: int, end: int, p_in: Callable[[tuple], float]
           ) -> tuple[int, int, float]:
    """The span ``[start, end)`` with its edges decided anew by ``p_in`` (the chance a word is inside), and the
    confidence of those decisions (their product); a span without content words is returned as it is."""
    core = _core(para, start, end)
    if core is None:
        return start, end, 1.0
    (s, e), conf = (core[0], core[1] + 1), 1.0
    for side, c in zip(SIDES, reversed(core), strict=True):
        for k in walk(para, c, side):
            p = p_in(features(para, kept, k, side))
            conf *= max(p, 1 - p)
            if p <= 0.5:
                break
            s, e = (s, k + 1) if side == "trailing" else (k, e)
    return s, e, conf


def _keys(f: tuple) -> tuple[tuple, ...]:
    side, word, kept, neighbour = f
    return (side, word, kept, neighbour), (side, word, kept), (side, kept), (side,)


def fit_table(examples: list[tuple[tuple, bool]]) -> Callable[[tuple], float]:
    """The back-off majority table's chance that an edge word is inside."""
    counts: dict[tuple, Counter] = defaultdict(Counter)
    for f, inside in examples:
        for key in _keys(f):
            counts[key][inside] += 1

    def p_in(f: tuple) -> float:
        for level, key in enumerate(_keys(f)):
            c = counts.get(key)
            if c and sum(c.values()) >= (FINE_MIN if level == 0 else 1):
                return (c[True] + 0.5) / (c[True] + c[False] + 1)
        return 0.5
    return p_in


def fit_logistic(examples: list[tuple[tuple, bool]]) -> Callable[[tuple], float]:
    """scikit-learn logistic regression on one-hot features of the back-off keys."""
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression

    def row(f: tuple) -> dict[str, int]:
        return {"|".join(map(str, key)): 1 for key in _keys(f)}

    vec = DictVectorizer()
    x = vec.fit_transform([row(f) for f, _ in examples])
    labels = [inside for _, inside in examples]
    if len(set(labels)) < 2:
        return lambda f: float(labels[0])
    model = LogisticRegression(max_iter=2000).fit(x, labels)
    memo: dict[tuple, float] = {}

    def p_in(f: tuple) -> float:
        if f not in memo:
            memo[f] = float(model.predict_proba(vec.transform([row(f)]))[0, list(model.classes_).index(True)])
        return memo[f]
    return p_in


LEARNERS = {"table": fit_table, "logistic": fit_logistic}


def to_flag(chances: list[tuple[float, bool]], share: float = FLAGGED_TARGET) -> float:
    """The smallest share of all mentions that, flagged highest ``chance`` first (ties taken in proportion),
    flags ``share`` of those that disagree: ``chances`` is ``(chance, disagrees)`` per mention."""
    need, caught, flagged = share * sum(w for _, w in chances), 0.0, 0.0
    for _, (n, wrong) in sorted(_grouped(chances).items(), reverse=True):
        if caught + wrong >= need:
            return (flagged + (n * (need - caught) / wrong if wrong else 0)) / len(chances)
        caught, flagged = caught + wrong, flagged + n
    return flagged / len(chances)


def caught_within(chances: list[tuple[float, bool]], most: float = FLAGGED_AT_MOST) -> float:
    """The share of the disagreements flagged when the ``most`` share of mentions with the highest chance is."""
    budget, caught = most * len(chances), 0.0
    total = sum(w for _, w in chances)
    for _, (n, wrong) in sorted(_grouped(chances).items(), reverse=True):
        take = min(n, budget)
        caught += wrong * take / n
        budget -= take
        if budget <= 0:
            break
    return caught / total if total else 1.0


def _grouped(chances: list[tuple[float, bool]]) -> dict[float, tuple[int, int]]:
    groups: dict[float, list[int]] = defaultdict(lambda: [0, 0])
    for chance, wrong in chances:
        groups[chance][0] += 1
        groups[chance][1] += wrong
    return {c: (n, w) for c, (n, w) in groups.items()}


def cross_validate(items: list[dict], proposals: dict[str, dict[str, tuple[int | None, int | None]]],
                   unreachable: dict[str, set[str]], learner: str) -> dict:
    """Leave-one-topic-out over ``items`` (per mention: ``mention_id``, ``topic``, ``para``, ``kept``, ``gold``):
    per variant of ``proposals`` (mention id -> the re-tagger's span), exact agreement and the flags trade-off of
    its spans with the edges the fitted ``learner`` decides; ``edge_only``: the released span's own core with
    learned edges, the variant's ``unreachable`` mentions lost (the held-out analogue of the ceiling)."""
    fit = LEARNERS[learner]
    by_topic: dict[str, list[dict]] = defaultdict(list)
    for it in items:
        by_topic[it["topic"]].append(it)
    edges_right = edges = 0
    gold_chance: dict[str, tuple[float, bool]] = {}
    chances: dict[str, list[tuple[float, bool]]] = {v: [] for v in proposals}
    for topic, held in by_topic.items():
        p_in = fit([e for t, its in by_topic.items() if t != topic for it in its
                    for e in gold_edges(it["para"], it["kept"], *it["gold"])])
        for it in held:
            para, kept, gold = it["para"], it["kept"], it["gold"]
            for f, inside in gold_edges(para, kept, *gold):
                edges += 1
                edges_right += (p_in(f) > 0.5) == inside
            s, e, conf = decide(para, kept, *gold, p_in)
            gold_chance[it["mention_id"]] = (round(1 - conf, 9), (s, e) != gold)
            for variant, spans in proposals.items():
                start, end = spans[it["mention_id"]]
                if start is None:
                    chances[variant].append((1.0, True))
                    continue
                s, e, conf = decide(para, kept, start, end, p_in)
                chances[variant].append((round(1 - conf, 9), (s, e) != gold))
    out: dict = {"folds": len(by_topic), "edges": edges, "edge_agreement": round(edges_right / edges, 4),
                 "variants": {}}
    for variant, ch in chances.items():
        alone = [(1.0, True) if mid in unreachable[variant] else c for mid, c in gold_chance.items()]
        out["variants"][variant] = {**_tradeoff(ch), "edge_only": _tradeoff(alone)}
    return out


def _tradeoff(chances: list[tuple[float, bool]]) -> dict[str, float]:
    return {"exact": round(1 - sum(w for _, w in chances) / len(chances), 4),
            "flagged_needed": round(to_flag(chances), 4), "caught_within_limit": round(caught_within(chances), 4)}
