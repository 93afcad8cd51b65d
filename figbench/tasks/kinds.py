"""Kinds of task: how gold is read from a split's declared columns, how predictions are validated and
scored. A task module instantiates one kind with its declaration (:mod:`figbench.tasks.base`).

Predictions, per kind (what a predictions file's ``predictions`` holds):

* clustering: a list of clusters (lists of mention ids), every mention of the split exactly once;
  also ``{"clusters": [...]}``, ``[[clusters]]`` (one document) or ``{mention_id: cluster_id}``;
* tagging: ``{id: [tag, ...]}``, one tag per gold token, tags from the declared tag set;
* label: ``{id: label}`` with labels from the declared label set;
* ranking: ``{id: [candidate ids, best first]}`` (a single id is a list of one);
* span alignment: ``{id: [start, end]}`` character offsets into the passage, or ``{id: "span text"}``;
* neighbour: ``{id: id of the most similar other example}``;
* generation: ``{id: "generated text"}``.

Per-example kinds also accept a list of ``{"id": ..., "prediction": ...}`` objects.

Each kind declares its default metrics (``default_metrics``: what a task of the kind reports when its
declaration gives no ``metrics``) and the trivial baselines it offers (``trivial_baselines``, made by
:meth:`trivial_predictions` from the evaluated split's gold and, for label tasks, the training split's):
majority, random and prior for labels; all singletons and one cluster per topic for clustering.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from figbench.scoring import Scored
from figbench.tasks.base import Gold, Metric, PredictionsError, Task
from figbench.tasks.gold import ClusterGold, LabelGold, RankingGold, SpanGold, TagGold, TextGold

_MAX_LISTED = 5


def _prf(prefix: str, title: str) -> tuple[Metric, ...]:
    return tuple(Metric(f"{prefix}{m}", f"{title}{t}") for m, t in (("precision", "precision"),
                                                                   ("recall", "recall"), ("f1", "F1")))


_COREF_TITLES = {"muc": "MUC", "bcub": "B-cubed", "ceafm": "CEAF-m", "ceafe": "CEAF-e", "blanc": "BLANC",
                 "lea": "LEA", "mentions": "Mentions"}
#: every score :func:`figbench.scoring.coref.evaluate_coref` reports that the board shows
CLUSTERING_METRICS = (Metric("conll_f1", "CoNLL F1"),
                      *(m for k, t in _COREF_TITLES.items() for m in _prf(f"{k}_", f"{t} ")))
#: every score :func:`figbench.scoring.classification.score_labels` reports (without per-group accuracies)
LABEL_METRICS = (Metric("accuracy", "Accuracy"), *_prf("micro_", "Micro "), *_prf("macro_", "Macro "))
TAGGING_METRICS = (*_prf("", "Span "), *_prf("token_", "Token "), Metric("accuracy", "Tag accuracy"))
RANKING_METRICS = (Metric("accuracy", "Accuracy"), Metric("mrr", "MRR"), Metric("top5_accuracy", "Top-5 accuracy"))
SPAN_METRICS = (*_prf("token_", "Token "), Metric("exact_match", "Exact match"), *_prf("micro_token_", "Micro token "))
GENERATION_METRICS = (Metric("rougeL", "ROUGE-L F1"), Metric("bleu", "BLEU"),
                      Metric("keyword_recall", "Keyword recall"))


def _fill_metrics(task: Task) -> None:
    """A declaration without ``metrics`` reports its kind's ``default_metrics``."""
    if not task.metrics:
        object.__setattr__(task, "metrics", tuple(task.default_metrics))


def _rng(seed: int):
    import random

    return random.Random(seed)


# --- shared checks --------------------------------------------------------------------------

def listed(items) -> str:
    """The first five items in sorted order (without sorting them all), with a count of the rest."""
    import heapq

    items = list(items)
    more = f" (and {len(items) - _MAX_LISTED} more)" if len(items) > _MAX_LISTED else ""
    return ", ".join(repr(i) for i in heapq.nsmallest(_MAX_LISTED, items, key=str)) + more


def check_count(n: int, gold: Gold, what: str) -> None:
    """Far more predicted ids than the split has (over twice as many, plus 100) cannot match it: refused
    before any of them is looked at (600,000 made-up ids cost the board a count, not a pass over each); a
    smaller surplus is reported id by id (:func:`check_ids`)."""
    if n > 2 * len(gold.id_set) + 100:
        raise PredictionsError(f"{n} predicted {what} ids, but {gold.key} has {len(gold.id_set)}: "
                               "predictions must cover exactly the split's ids")


def check_ids(seen, gold: Gold, what: str) -> None:
    """Predictions must cover exactly the gold ids."""
    seen = set(seen)
    unknown = seen - gold.id_set
    if unknown:
        raise PredictionsError(f"{len(unknown)} unknown {what} id(s) not in {gold.key}: {listed(unknown)}")
    absent = gold.id_set - seen
    if absent:
        raise PredictionsError(f"{len(absent)} {what} id(s) of {gold.key} missing from the predictions: "
                               f"{listed(absent)}")


def per_example(raw: Any, gold: Gold) -> dict[str, Any]:
    """``{id: value}`` from a mapping or a list of ``{"id", "prediction"}`` objects; ids checked against gold."""
    if isinstance(raw, (Mapping, list)):
        check_count(len(raw), gold, "example")
    if isinstance(raw, Mapping):
        out = {str(k): v for k, v in raw.items()}
    elif isinstance(raw, list):
        out = {}
        for i, item in enumerate(raw):
            if not isinstance(item, Mapping) or "id" not in item:
                raise PredictionsError(f"predictions[{i}]: expected an object with 'id' and 'prediction'")
            value = next((item[k] for k in ("prediction", "label", "tags", "ranking", "span") if k in item), None)
            if value is None:
                raise PredictionsError(f"predictions[{i}] (id {item['id']!r}): no 'prediction' field")
            ex_id = str(item["id"])
            if ex_id in out:
                raise PredictionsError(f"predictions[{i}]: duplicate id {ex_id!r}")
            out[ex_id] = value
    else:
        raise PredictionsError(f"predictions for {gold.key}: expected an object of id -> prediction, "
                               f"got {type(raw).__name__}")
    check_ids(out.keys(), gold, "example")
    return out


def _column(dataset, name: str, key: str) -> list:
    if name not in dataset.column_names:
        raise ValueError(f"gold for {key}: the split has no column {name!r} (columns: {dataset.column_names})")
    return list(dataset[name])


def _labels(dataset, column: str, key: str) -> list[str]:
    """A column's values as label names (``ClassLabel`` ids decoded by :func:`figbench.labels.decode_labels`)."""
    from figbench.labels import decode_labels, label_names

    values = _column(dataset, column, key)
    if label_names(dataset, column) is None:
        return [str(v) for v in values]
    try:
        return decode_labels(dataset, column, values)
    except ValueError as e:
        raise ValueError(f"gold for {key}: {e}") from None


def _label_set(dataset, column: str) -> tuple[str, ...] | None:
    from figbench.labels import label_names

    return label_names(dataset, column)


def _nonempty(dataset, key: str) -> None:
    if len(dataset) == 0:
        raise ValueError(f"gold for {key}: the split is empty")


# --- clustering (cross-document coreference) -------------------------------------------------

@dataclass(frozen=True)
class ClusteringTask(Task):
    """Predict a partition of the split's mentions; scored with the CoNLL metrics as one document."""

    mention_column: str = "mention_id"
    cluster_column: str = "cluster_id"
    group_column: str | None = None  #: resampling unit of the bootstrap (e.g. topic)

    kind: ClassVar[str] = "clustering"
    metrics: tuple[Metric, ...] = ()  #: default: the kind's ``default_metrics``
    default_metrics: ClassVar[tuple[Metric, ...]] = CLUSTERING_METRICS
    trivial_baselines: ClassVar[tuple[str, ...]] = ("singletons", "one_cluster_per_topic")
    gold_type: ClassVar[type[Gold]] = ClusterGold

    def __post_init__(self) -> None:
        _fill_metrics(self)
        super().__post_init__()

    def kind_gold_columns(self) -> tuple[str, ...]:
        return (self.cluster_column,)

    def gold_from_dataset(self, dataset, key: str) -> ClusterGold:
        from figbench.schema import clusters_from_assignments

        _nonempty(dataset, key)
        mentions = [str(m) for m in _column(dataset, self.mention_column, key)]
        clusters = clusters_from_assignments(mentions, [str(c) for c in _column(dataset, self.cluster_column, key)])
        groups = None
        if self.group_column:
            groups = dict(zip(mentions, (str(g) for g in _column(dataset, self.group_column, key)), strict=True))
        return ClusterGold.build(key, clusters, groups)

    def parse_predictions(self, raw: Any, gold: Gold) -> list[list[str]]:
        if raw is None:
            raise PredictionsError("no predictions")
        if isinstance(raw, Mapping) and "clusters" in raw:
            raw = raw["clusters"]
        elif isinstance(raw, Mapping):  # mention id -> cluster id
            groups: dict[str, list[str]] = {}
            for mid, cid in raw.items():
                if not isinstance(cid, (str, int)) or isinstance(cid, bool):
                    raise PredictionsError(f"predictions[{mid!r}]: cluster id must be a string or integer")
                groups.setdefault(str(cid), []).append(str(mid))
            raw = list(groups.values())
        if not isinstance(raw, list):
            raise PredictionsError("coreference predictions: expected a list of clusters (lists of mention ids)")
        if raw and all(isinstance(c, list) for c in raw) and all(
                c and all(isinstance(x, list) for x in c) for c in raw):
            if len(raw) != 1:
                raise PredictionsError(
                    f"coreference predictions: the split is one cross-document document, got {len(raw)} documents")
            raw = raw[0]
        check_count(sum(len(c) if isinstance(c, list) else 1 for c in raw), gold, "mention")
        clusters: list[list[str]] = []
        seen: set[str] = set()
        for ci, cluster in enumerate(raw):
            if not isinstance(cluster, list) or not cluster:
                raise PredictionsError(f"predictions cluster {ci}: expected a non-empty list of mention ids")
            for mid in cluster:
                if not isinstance(mid, str):
                    raise PredictionsError(f"predictions cluster {ci}: mention id {mid!r} is not a string")
                if mid in seen:
                    raise PredictionsError(f"predictions cluster {ci}: mention id {mid!r} appears more than once")
                seen.add(mid)
            clusters.append(list(cluster))
        check_ids(seen, gold, "mention")
        return clusters

    def bootstrap_groups(self, gold: ClusterGold) -> dict[str, Any]:
        """Keyword arguments of :func:`~figbench.scoring.coref.bootstrap_coref` for this gold: its groups
        (e.g. topics) when there are several, else none (the metric's default unit for one document)."""
        if not gold.groups or len(set(gold.groups.values())) < 2:
            return {}
        return {"groups": dict(gold.groups), "unit": f"{self.group_column}s"}

    def score(self, predictions: Any, gold: ClusterGold, *, n_resamples: int = 1000, seed: int = 0) -> Scored:
        from figbench.scoring.coref import bootstrap_coref, evaluate_coref

        ref = [list(c) for c in gold.clusters]
        raw = evaluate_coref([predictions], [ref])
        scores = {k: float(v) for k, v in raw.items() if k in self.metric_names}
        cis = bootstrap_coref([predictions], [ref], n_resamples=n_resamples, seed=seed,
                              **self.bootstrap_groups(gold)) if n_resamples else {}
        counts = {"mentions": float(len(gold.ids)), "gold_clusters": float(len(gold.clusters)),
                  "predicted_clusters": float(len(predictions))}
        return Scored(scores, {k: v for k, v in cis.items() if k in scores}, counts)

    def perfect_predictions(self, gold: ClusterGold) -> list[list[str]]:
        return [list(c) for c in gold.clusters]

    def wrong_predictions(self, gold: ClusterGold) -> list[list[str]]:
        if any(len(c) > 1 for c in gold.clusters):
            return [[m] for m in gold.ids]
        return [list(gold.ids)]

    def trivial_predictions(self, method: str, gold: ClusterGold, train: Gold | None = None, *,
                            seed: int = 0) -> list[list[str]]:
        """``singletons``: every mention alone; ``one_cluster_per_topic``: the mentions of each
        ``group_column`` value (e.g. topic) in one cluster."""
        if method == "singletons":
            return [[m] for m in gold.ids]
        if method == "one_cluster_per_topic":
            if not gold.groups:
                raise ValueError(f"{gold.key}: one_cluster_per_topic needs the task's group_column "
                                 f"({self.group_column or 'none declared'}) in the split")
            by_group: dict[str, list[str]] = {}
            for m in gold.ids:
                by_group.setdefault(gold.groups[m], []).append(m)
            return list(by_group.values())
        raise ValueError(f"task {self.name}: no trivial baseline {method!r}; "
                         f"choose from {', '.join(self.trivial_baselines)}")


# --- token tagging ---------------------------------------------------------------------------

@dataclass(frozen=True)
class TaggingTask(Task):
    """Predict a tag per token; strict IOB2 span P/R/F1 (headline) and token scores."""

    id_column: str = "id"
    tags_column: str = "tags"
    tag_set: tuple[str, ...] = ()   #: used when the dataset's features carry no tag names
    outside: str = "O"

    kind: ClassVar[str] = "tagging"
    metrics: tuple[Metric, ...] = ()  #: default: the kind's ``default_metrics``
    default_metrics: ClassVar[tuple[Metric, ...]] = TAGGING_METRICS
    trivial_baselines: ClassVar[tuple[str, ...]] = ()
    gold_type: ClassVar[type[Gold]] = TagGold

    def __post_init__(self) -> None:
        _fill_metrics(self)
        super().__post_init__()

    def kind_gold_columns(self) -> tuple[str, ...]:
        return (self.tags_column,)

    def gold_from_dataset(self, dataset, key: str) -> TagGold:
        _nonempty(dataset, key)
        ids = [str(i) for i in _column(dataset, self.id_column, key)]
        from figbench.labels import label_decoder

        names = _label_set(dataset, self.tags_column)
        seqs = _column(dataset, self.tags_column, key)
        decode = label_decoder(dataset, self.tags_column)
        tags = {i: tuple(decode(seq) if names else (str(t) for t in seq)) for i, seq in zip(ids, seqs, strict=True)}
        return TagGold(key, tuple(ids), tags, tuple(names or self.tag_set))

    def parse_predictions(self, raw: Any, gold: TagGold) -> dict[str, list[str]]:
        preds = per_example(raw, gold)
        allowed = set(gold.tag_set or self.tag_set)
        for ex_id, tags in preds.items():
            if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
                raise PredictionsError(f"predictions[{ex_id!r}]: expected a list of tag strings")
            if len(tags) != len(gold.tags[ex_id]):
                raise PredictionsError(f"predictions[{ex_id!r}]: {len(tags)} tags for {len(gold.tags[ex_id])} tokens")
            bad = set(tags) - allowed
            if bad:
                raise PredictionsError(f"predictions[{ex_id!r}]: unknown tag(s) {listed(bad)}; use {sorted(allowed)}")
        return preds

    def score(self, predictions: Any, gold: TagGold, *, n_resamples: int = 1000, seed: int = 0) -> Scored:
        from figbench.scoring.spans import score_bio

        ids = list(gold.ids)
        return score_bio([list(gold.tags[i]) for i in ids], [list(predictions[i]) for i in ids],
                         n_resamples=n_resamples, seed=seed)

    def perfect_predictions(self, gold: TagGold) -> dict[str, list[str]]:
        return {i: list(t) for i, t in gold.tags.items()}

    def wrong_predictions(self, gold: TagGold) -> dict[str, list[str]]:
        inside = next(t for t in gold.tag_set if t != self.outside and t.startswith("B-"))
        return {i: [inside if t == self.outside else self.outside for t in tags] for i, tags in gold.tags.items()}


# --- single-label classification -------------------------------------------------------------

@dataclass(frozen=True)
class LabelTask(Task):
    """Predict one label per example; accuracy, micro/macro P/R/F1 over the declared label set."""

    id_column: str = "id"
    label_column: str = "label"
    group_columns: tuple[str, ...] = ()  #: per-group accuracy (``accuracy_<value>``)

    kind: ClassVar[str] = "label"
    metrics: tuple[Metric, ...] = ()  #: default: the kind's ``default_metrics``
    default_metrics: ClassVar[tuple[Metric, ...]] = LABEL_METRICS
    trivial_baselines: ClassVar[tuple[str, ...]] = ("majority", "random", "prior")
    gold_type: ClassVar[type[Gold]] = LabelGold

    def __post_init__(self) -> None:
        _fill_metrics(self)
        super().__post_init__()

    def kind_gold_columns(self) -> tuple[str, ...]:
        return (self.label_column,)

    def gold_from_dataset(self, dataset, key: str) -> LabelGold:
        _nonempty(dataset, key)
        ids = [str(i) for i in _column(dataset, self.id_column, key)]
        labels = dict(zip(ids, _labels(dataset, self.label_column, key), strict=True))
        label_set = _label_set(dataset, self.label_column) or tuple(sorted(set(labels.values())))
        groups = {c: dict(zip(ids, (str(v) for v in _column(dataset, c, key)), strict=True))
                  for c in self.group_columns} or None
        return LabelGold(key, tuple(ids), labels, label_set, groups)

    def parse_predictions(self, raw: Any, gold: LabelGold) -> dict[str, str]:
        preds = per_example(raw, gold)
        allowed = set(gold.label_set)
        for ex_id, label in preds.items():
            if not isinstance(label, str):
                raise PredictionsError(f"predictions[{ex_id!r}]: label must be a string, got {type(label).__name__}")
            if label not in allowed:
                raise PredictionsError(f"predictions[{ex_id!r}]: unknown label {label!r}; labels: {sorted(allowed)}")
        return preds

    def score(self, predictions: Any, gold: LabelGold, *, n_resamples: int = 1000, seed: int = 0) -> Scored:
        from figbench.scoring.classification import score_labels

        ids = list(gold.ids)
        groups = {c: [m[i] for i in ids] for c, m in gold.groups.items()} if gold.groups else None
        return score_labels([gold.labels[i] for i in ids], [predictions[i] for i in ids], gold.label_set,
                            groups=groups, ids=ids, n_resamples=n_resamples, seed=seed, unit=self.resample_unit)

    def perfect_predictions(self, gold: LabelGold) -> dict[str, str]:
        return dict(gold.labels)

    def wrong_predictions(self, gold: LabelGold) -> dict[str, str]:
        ls = list(gold.label_set)
        return {i: ls[(ls.index(lab) + 1) % len(ls)] for i, lab in gold.labels.items()}

    def trivial_predictions(self, method: str, gold: LabelGold, train: LabelGold | None = None, *,
                            seed: int = 0) -> dict[str, str]:
        """A label per example of ``gold`` from the training labels (``train``): ``majority`` (the most
        frequent, ties: alphabetically first), ``random`` (uniform over the training label set) or ``prior``
        (drawn by the training class frequencies), seeded, in the split's order."""
        from collections import Counter

        if method not in self.trivial_baselines:
            raise ValueError(f"task {self.name}: no trivial baseline {method!r}; "
                             f"choose from {', '.join(self.trivial_baselines)}")
        if train is None or not train.labels:
            raise ValueError(f"{gold.key}: the {method} baseline needs the training split's labels")
        counts = Counter(train.labels[i] for i in train.ids)
        labels = sorted(counts)
        if method == "majority":
            best = max(labels, key=lambda lab: counts[lab])
            return {i: best for i in gold.ids}
        rng = _rng(seed)
        if method == "random":
            return {i: rng.choice(labels) for i in gold.ids}
        return dict(zip(gold.ids, rng.choices(labels, weights=[counts[lab] for lab in labels], k=len(gold.ids))))


# --- ranking ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class RankingTask(Task):
    """Rank candidates per example (best first); accuracy, MRR and top-5 accuracy."""

    id_column: str = "id"
    label_column: str = "label"

    kind: ClassVar[str] = "ranking"
    metrics: tuple[Metric, ...] = ()  #: default: the kind's ``default_metrics``
    default_metrics: ClassVar[tuple[Metric, ...]] = RANKING_METRICS
    trivial_baselines: ClassVar[tuple[str, ...]] = ()
    gold_type: ClassVar[type[Gold]] = RankingGold

    def __post_init__(self) -> None:
        _fill_metrics(self)
        super().__post_init__()

    def kind_gold_columns(self) -> tuple[str, ...]:
        return (self.label_column,)

    def gold_from_dataset(self, dataset, key: str) -> RankingGold:
        _nonempty(dataset, key)
        ids = [str(i) for i in _column(dataset, self.id_column, key)]
        labels = dict(zip(ids, _labels(dataset, self.label_column, key), strict=True))
        return RankingGold(key, tuple(ids), labels)

    def parse_predictions(self, raw: Any, gold: RankingGold) -> dict[str, list[str]]:
        out = {}
        for ex_id, ranking in per_example(raw, gold).items():
            ranking = [ranking] if isinstance(ranking, (str, int)) and not isinstance(ranking, bool) else ranking
            if not isinstance(ranking, list) or not ranking:
                raise PredictionsError(f"predictions[{ex_id!r}]: expected a non-empty list of candidate ids")
            ranked = []
            for p in ranking:
                if isinstance(p, bool) or not isinstance(p, (str, int)):
                    raise PredictionsError(f"predictions[{ex_id!r}]: candidate id {p!r} must be a string or integer")
                ranked.append(str(p))
            if len(set(ranked)) != len(ranked):
                raise PredictionsError(f"predictions[{ex_id!r}]: a candidate id is ranked twice")
            out[ex_id] = ranked
        return out

    def score(self, predictions: Any, gold: RankingGold, *, n_resamples: int = 1000, seed: int = 0) -> Scored:
        from figbench.scoring.ranking import score_rankings

        ids = list(gold.ids)
        return score_rankings([gold.labels[i] for i in ids], [predictions[i] for i in ids],
                              n_resamples=n_resamples, seed=seed, unit=self.resample_unit)

    def perfect_predictions(self, gold: RankingGold) -> dict[str, list[str]]:
        return {i: [lab] for i, lab in gold.labels.items()}

    def wrong_predictions(self, gold: RankingGold) -> dict[str, list[str]]:
        values = sorted(set(gold.labels.values())) + ["no such candidate"]
        return {i: [next(v for v in values if v != lab)] for i, lab in gold.labels.items()}


# --- span alignment --------------------------------------------------------------------------

@dataclass(frozen=True)
class SpanAlignmentTask(Task):
    """Find, per (passage, query span) pair, the passage span it aligns with; token-overlap P/R/F1.

    Gold comes from a ``pairs`` list column: one example per pair (``pair_id``), pairs whose spans
    the builder could not locate in their text are left out.
    """

    passage_column: str = "narrative"
    pairs_column: str = "pairs"

    kind: ClassVar[str] = "span_alignment"
    metrics: tuple[Metric, ...] = ()  #: default: the kind's ``default_metrics``
    default_metrics: ClassVar[tuple[Metric, ...]] = SPAN_METRICS
    trivial_baselines: ClassVar[tuple[str, ...]] = ()
    gold_type: ClassVar[type[Gold]] = SpanGold

    def __post_init__(self) -> None:
        _fill_metrics(self)
        super().__post_init__()

    #: the fields of a pair that are inputs (the query span); the narrative side is the answer
    input_pair_fields: ClassVar[tuple[str, ...]] = ("pair_id", "proverb_span", "proverb_start", "proverb_end",
                                                    "proverb_match", "proverb_occurrences")

    def kind_gold_columns(self) -> tuple[str, ...]:
        return (self.pairs_column,)

    def inputs_only(self, dataset):
        """Without the answers: each scored pair (:meth:`scored_pair`) keeps its id and query span only (the
        narrative span is gold; a pair in no gold is left out)."""
        import datasets

        out = dataset.remove_columns([c for c in self.extra_gold_columns if c in dataset.column_names])
        if self.pairs_column not in out.column_names:
            return out
        feat = out.features[self.pairs_column]
        inner = feat[0] if isinstance(feat, list) else getattr(feat, "feature", feat)
        keep = [k for k in self.input_pair_fields if k in inner]
        features = out.features.copy()
        features[self.pairs_column] = [{k: inner[k] for k in keep}] if isinstance(feat, list) else \
            datasets.List({k: inner[k] for k in keep})
        col, text = self.pairs_column, self.passage_column
        scored = self.scored_pair if all(k in inner for k in ("narrative_start", "narrative_end")) \
            and text in out.column_names else (lambda p, t: True)
        return out.map(lambda ex: {col: [{k: p[k] for k in keep} for p in ex[col] if scored(p, ex.get(text))]},
                       features=features)

    @staticmethod
    def scored_pair(pair: Mapping[str, Any], passage: str) -> bool:
        """Whether a pair is scored: both spans were located in their texts (the others are in no gold)."""
        start, end = int(pair["narrative_start"]), int(pair["narrative_end"])
        return pair.get("narrative_match") != "none" and pair.get("proverb_match") != "none" \
            and 0 <= start < end <= len(passage)

    def gold_from_dataset(self, dataset, key: str) -> SpanGold:
        _nonempty(dataset, key)
        spans: dict[str, dict[str, Any]] = {}
        for passage, pairs in zip(_column(dataset, self.passage_column, key), _column(dataset, self.pairs_column, key),
                                  strict=True):
            for pair in pairs:
                pid = str(pair["pair_id"])
                if pid in spans:
                    raise ValueError(f"gold for {key}: duplicate pair id {pid!r}")
                if not self.scored_pair(pair, passage):
                    continue
                start, end = int(pair["narrative_start"]), int(pair["narrative_end"])
                spans[pid] = {"passage": passage, "query": pair.get("proverb_span", ""),
                              "answer": pair["narrative_span"], "start": start, "end": end}
        return SpanGold(key, tuple(spans), spans)

    def parse_predictions(self, raw: Any, gold: SpanGold) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for ex_id, span in per_example(raw, gold).items():
            if isinstance(span, str):
                out[ex_id] = span
                continue
            if not (isinstance(span, list) and len(span) == 2
                    and all(isinstance(x, int) and not isinstance(x, bool) for x in span)):
                raise PredictionsError(f"predictions[{ex_id!r}]: expected the predicted span as text or "
                                       "[start, end] character offsets into the passage")
            passage = gold.spans[ex_id]["passage"]
            if not 0 <= span[0] <= span[1] <= len(passage):
                raise PredictionsError(f"predictions[{ex_id!r}]: offsets {span} outside the passage "
                                       f"({len(passage)} characters)")
            out[ex_id] = [int(span[0]), int(span[1])]
        return out

    def score(self, predictions: Any, gold: SpanGold, *, n_resamples: int = 1000, seed: int = 0) -> Scored:
        from figbench.scoring.spans import score_alignment

        ids = list(gold.ids)
        preds = [predictions[i] for i in ids]
        # offsets are scored by position against the gold offsets, text against the gold span's text
        refs = [(gold.spans[i]["start"], gold.spans[i]["end"]) if isinstance(p, list) and "start" in gold.spans[i]
                else gold.spans[i]["answer"] for i, p in zip(ids, preds)]
        preds = [tuple(p) if isinstance(p, list) else p for p in preds]
        return score_alignment(preds, refs, [gold.spans[i]["passage"] for i in ids], n_resamples=n_resamples,
                               seed=seed)

    def perfect_predictions(self, gold: SpanGold) -> dict[str, list[int]]:
        return {i: [int(s["start"]), int(s["end"])] for i, s in gold.spans.items()}

    def wrong_predictions(self, gold: SpanGold) -> dict[str, list[int]]:
        return {i: [0, 0] for i in gold.spans}


# --- nearest other example -------------------------------------------------------------------

@dataclass(frozen=True)
class NeighbourTask(LabelTask):
    """Name, per example, the most similar *other* example; a hit when both have the same label
    (gold as for :class:`LabelTask`)."""

    kind: ClassVar[str] = "neighbour"
    default_metrics: ClassVar[tuple[Metric, ...]] = (Metric("accuracy", "Accuracy"),)
    trivial_baselines: ClassVar[tuple[str, ...]] = ()

    def parse_predictions(self, raw: Any, gold: LabelGold) -> dict[str, str]:
        preds = per_example(raw, gold)
        for ex_id, other in preds.items():
            if not isinstance(other, str) or other not in gold.id_set:
                raise PredictionsError(f"predictions[{ex_id!r}]: {other!r} is not an id of {gold.key}")
            if other == ex_id:
                raise PredictionsError(f"predictions[{ex_id!r}]: the most similar *other* example, not itself")
        return preds

    def score(self, predictions: Any, gold: LabelGold, *, n_resamples: int = 1000, seed: int = 0) -> Scored:
        from figbench.scoring.ranking import score_neighbours

        return score_neighbours(gold.labels, predictions, list(gold.ids), n_resamples=n_resamples, seed=seed,
                                unit=self.resample_unit)

    def perfect_predictions(self, gold: LabelGold) -> dict[str, str]:
        by_label: dict[str, list[str]] = {}
        for i, lab in gold.labels.items():
            by_label.setdefault(lab, []).append(i)
        out = {}
        for i, lab in gold.labels.items():
            same = [j for j in by_label[lab] if j != i]
            if not same:
                raise ValueError(f"gold for {gold.key}: {i!r} has no other example with its label")
            out[i] = same[0]
        return out

    def wrong_predictions(self, gold: LabelGold) -> dict[str, str]:
        return {i: next(j for j, lab_j in gold.labels.items() if lab_j != lab) for i, lab in gold.labels.items()}


# --- generation ------------------------------------------------------------------------------

@dataclass(frozen=True)
class GenerationTask(Task):
    """Generate a text per example; corpus BLEU and ROUGE-L F1 against the reference."""

    id_column: str = "id"
    reference_column: str = "text"

    kind: ClassVar[str] = "generation"
    metrics: tuple[Metric, ...] = ()  #: default: the kind's ``default_metrics``
    default_metrics: ClassVar[tuple[Metric, ...]] = GENERATION_METRICS
    trivial_baselines: ClassVar[tuple[str, ...]] = ()
    gold_type: ClassVar[type[Gold]] = TextGold

    def __post_init__(self) -> None:
        _fill_metrics(self)
        super().__post_init__()

    def kind_gold_columns(self) -> tuple[str, ...]:
        return (self.reference_column,)

    def gold_from_dataset(self, dataset, key: str) -> TextGold:
        _nonempty(dataset, key)
        ids = [str(i) for i in _column(dataset, self.id_column, key)]
        refs = dict(zip(ids, (str(t) for t in _column(dataset, self.reference_column, key)), strict=True))
        return TextGold(key, tuple(ids), refs)

    def parse_predictions(self, raw: Any, gold: TextGold) -> dict[str, str]:
        preds = per_example(raw, gold)
        for ex_id, text in preds.items():
            if not isinstance(text, str):
                raise PredictionsError(f"predictions[{ex_id!r}]: expected generated text")
        return preds

    def score(self, predictions: Any, gold: TextGold, *, n_resamples: int = 1000, seed: int = 0) -> Scored:
        from figbench.scoring.text import score_generation

        ids = list(gold.ids)
        return score_generation([gold.references[i] for i in ids], [predictions[i] for i in ids],
                                n_resamples=n_resamples, seed=seed, unit=self.resample_unit)

    def perfect_predictions(self, gold: TextGold) -> dict[str, str]:
        return dict(gold.references)

    def wrong_predictions(self, gold: TextGold) -> dict[str, str]:
        return {i: "zzz qqq" for i in gold.references}

