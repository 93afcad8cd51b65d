"""The cdec pipeline: candidate pairs (filter) -> pair scores -> clustering -> metric -> result record.

Methods (``--method``):

==============  ======================  ==========================  ==========
method          candidates              pair scores                 clustering
==============  ======================  ==========================  ==========
lemma           same head lemma         1                           by key
lh              Lemma Heuristic         1                           cc
lh_oracle       Lemma Heuristic         gold labels                 cc
knn_oracle      KNN (bi-encoder)        gold labels                 cc (or greedy)
ce_lh / ce_knn  LH / KNN                cross-encoder               cc or greedy (0.5)
wec_pairwise    all pairs in the group  WEC pairwise MLP            average
llm_lh/llm_knn  LH / KNN                LLM yes/no                  cc (0.5)
==============  ======================  ==========================  ==========

Pairs are formed inside one group (``--within``): gold subtopics (default for ECB+/ECB+META), gold
topics, predicted topics (:mod:`figbench_baselines.cdec.steps.topics`, computed here for the evaluated split
and recorded in ``options.topic_clustering``) or the whole split.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from figbench_baselines.cdec.steps import clustering
from figbench_baselines.cdec.steps.data import (
    check_rows,
    inputs_only,
    load_mentions,
    read_mentions_file,
    training_rows,
)
from figbench_baselines.cdec.steps.filters import (
    DEFAULT_LH_THRESHOLD,
    gold_pair_labels,
    group_labels,
    knn_pairs,
    lh_pairs,
    same_lemma_labels,
    same_lemma_pairs,
    synonymous_lemma_pairs,
)
from figbench_baselines.cdec.steps.pipeline_defaults import METHODS, method, topic_source

HEURISTIC = {"name": "heuristic", "revision": None, "type": "heuristic", "parameters": None}


@dataclass
class Stage:
    """What one pipeline run produced besides the labels (for the record and the summary)."""

    options: dict[str, Any] = field(default_factory=dict)
    counts: dict[str, float] = field(default_factory=dict)
    throughput: dict[str, float] = field(default_factory=dict)
    model: dict[str, Any] = field(default_factory=lambda: dict(HEURISTIC))
    extra_scores: dict[str, float] = field(default_factory=dict)
    #: train_info of each trained component (biencoder, crossencoder, wec_pairwise), for the provenance
    training: dict[str, dict] = field(default_factory=dict)


def lh_candidates(rows, args, stage: Stage) -> np.ndarray:
    """LH pairs of ``rows`` with synonymous lemma pairs from the training split (see data.TRAIN_SOURCE)."""
    syn: set[tuple[str, str]] = set()
    if args.lh_lemma_pairs == "train":
        try:
            train_rows, where = training_rows(args, cap=False)
        except FileNotFoundError as e:
            if not args.lh_fallback:
                raise FileNotFoundError(
                    f"LH needs lemma pairs from a training split with gold clusters, which is missing: {e}\n"
                    "Pass --lh-fallback to use same-lemma matching only (recorded in the options).") from e
            where, train_rows = "none (fallback: same-lemma matching only)", []
            stage.options["lh_fallback"] = True
        syn = synonymous_lemma_pairs(train_rows)
        stage.options["lh_lemma_pairs_from"] = where
        stage.counts["train_mentions"] = len(train_rows)
    else:
        stage.options["lh_lemma_pairs_from"] = "none"
    stage.counts["synonymous_lemma_pairs"] = len(syn)
    t0 = time.perf_counter()
    pairs = lh_pairs(rows, syn, threshold=args.lh_threshold, within=args.within,
                     skip_same_sentence=not args.keep_same_sentence, sentence_tokens=args.lh_sentence_tokens)
    stage.throughput["filter_seconds"] = time.perf_counter() - t0
    stage.options.update(lh_threshold=args.lh_threshold, lh_sentence_tokens=args.lh_sentence_tokens)
    return pairs


def knn_candidates(rows, args, stage: Stage) -> np.ndarray:
    """KNN pairs from bi-encoder embeddings (trained with a triplet loss unless --no-train-biencoder)."""
    from figbench_baselines.cdec.models.biencoder import get_embeddings

    emb, info = get_embeddings(rows, args)
    stage.throughput.update(info.pop("throughput", {}))
    training = info.pop("biencoder_training", None)
    if training is not None:
        stage.training["biencoder"] = training
        stage.options["biencoder_train_steps"] = int(training.get("train_stats", {}).get("train_steps", 0))
        stage.counts["n_training_triplets"] = training.get("n_training_triplets", 0)
    stage.options.update(info)
    pairs = knn_pairs(emb, k=args.k, rows=rows, within=args.knn_within, index=args.faiss_index)
    stage.options.update(k=args.k, faiss_index=args.faiss_index, knn_within=args.knn_within)
    return pairs


def run_method(rows: list[dict], args: argparse.Namespace) -> tuple[np.ndarray, Stage]:
    """Cluster labels of ``rows`` by ``args.method`` (its :data:`~.steps.pipeline_defaults.METHOD_TABLE` entry); fills a
    :class:`Stage` with what was done. ``rows`` carry gold clusters (the pipeline scores against them)."""
    stage = Stage()
    m = method(args.method)
    within = args.within
    stage.options.update(method=m.name, within=within or "split",
                         skip_same_sentence=m.drops_same_sentence and not args.keep_same_sentence)
    if m.candidates == "all_pairs" and within == "predicted_topic":
        raise ValueError(f"{m.name} tunes its threshold on another split, which has no predicted topics; "
                         "use --within topic/subtopic/none")
    if m.candidates == "same_lemma":
        labels = same_lemma_labels(rows, within)
        stage.counts["candidate_pairs"] = len(same_lemma_pairs(rows, within))
        return labels, stage

    pairs = None
    if m.candidates in _CANDIDATES:
        pairs = _CANDIDATES[m.candidates](rows, args, stage)
        stage.counts["candidate_pairs"] = len(pairs)
        if len(pairs) == 0:
            raise ValueError(f"{args.dataset}/{args.config}/{args.split}: the {m.name} filter produced no "
                             "candidate pairs; nothing to score (check the threshold, k or the split)")
        from figbench_baselines.cdec.steps.oracle import gold_pair_recall

        if not inputs_only(rows):   # inputs only (a hidden benchmark): no gold to measure the filter with
            stage.extra_scores["candidate_gold_pair_recall"] = gold_pair_recall(rows, pairs)

    pairs, scores, model_threshold = _SCORERS[m.scorer](rows, pairs, args, stage)
    clusterer = args.clustering or m.clustering
    labels = clustering.cluster(clusterer, len(rows), pairs, scores, model_threshold, groups=group_labels(rows, within),
                                greedy_unscored=args.greedy_unscored)
    stage.options.update(clustering=clusterer, cluster_threshold=model_threshold)
    if clusterer == "greedy":
        stage.options["greedy_unscored"] = args.greedy_unscored
    return labels, stage


def _score_one(rows, pairs, args, stage: Stage):
    """LH: every candidate pair links."""
    return pairs, np.ones(len(pairs)), 0.5


def _score_gold(rows, pairs, args, stage: Stage):
    """The oracle: gold pair labels."""
    stage.model = {"name": "oracle (gold pair labels)", "revision": None, "type": "other", "parameters": None}
    return pairs, gold_pair_labels(rows, pairs), 0.5


def _score_crossencoder(rows, pairs, args, stage: Stage):
    from figbench_baselines.cdec.models.crossencoder import run_crossencoder

    scores, info = run_crossencoder(rows, pairs, args, candidate_fn=lambda r: _train_candidates(r, args))
    _take_training(stage, "crossencoder", info.pop("training"))
    stage.model = info.pop("model")
    stage.throughput.update(info.pop("throughput", {}))
    stage.options.update(info)
    return pairs, scores, args.threshold


def _score_llm(rows, pairs, args, stage: Stage):
    from figbench_baselines.cdec.models.llm import run_llm

    scores, info = run_llm(rows, pairs, args)
    stage.model = info.pop("model")
    stage.throughput.update(info.pop("throughput", {}))
    stage.options.update(info)
    return pairs, scores, args.threshold


def _score_wec_pairwise(rows, pairs, args, stage: Stage):
    """WEC's pairwise MLP over every pair of each group (its own candidates), threshold tuned."""
    from figbench_baselines.cdec.models.wec_pairwise import run_wec_pairwise

    pairs, scores, info = run_wec_pairwise(rows, args)
    _take_training(stage, "wec_pairwise", info.pop("training"))
    stage.counts["candidate_pairs"] = len(pairs)
    stage.model = info.pop("model")
    stage.throughput.update(info.pop("throughput", {}))
    threshold = info.pop("threshold")
    stage.options.update(info)
    return pairs, scores, threshold


#: candidate filters and pair scorers of the method table's ``candidates`` and ``scorer``
_CANDIDATES = {"lh": lh_candidates, "knn": knn_candidates}
_SCORERS = {"one": _score_one, "gold": _score_gold, "crossencoder": _score_crossencoder, "llm": _score_llm,
            "wec_pairwise": _score_wec_pairwise}


def _take_training(stage: Stage, component: str, info: dict) -> None:
    """File a component's train_info under the stage's training record and its key numbers in counts/options."""
    stage.training[component] = info
    for key in ("n_training_pairs", "n_training_positive"):
        if key in info:
            stage.counts[key] = info[key]
    sample = info.get("sample") or {}
    if sample.get("description"):
        stage.options["training_sample"] = sample["description"]
    if info.get("loaded_from"):
        stage.options["model_loaded_from"] = info["loaded_from"]


def _train_candidates(train_rows: list[dict], args) -> np.ndarray:
    """Candidate pairs of the training split for the cross-encoder (the same filter as at test time).

    CE_KNN: KNN pairs from the same bi-encoder that serves the test split (trained, loaded with
    ``--biencoder`` or frozen), as the ECB+META paper builds its training pairs.
    """
    if method(args.method).candidates == "lh":
        syn = synonymous_lemma_pairs(train_rows)
        within = "topic" if args.within == "predicted_topic" else args.within  # training: gold topics
        return lh_pairs(train_rows, syn, threshold=args.lh_threshold, within=within,
                        skip_same_sentence=not args.keep_same_sentence, sentence_tokens=args.lh_sentence_tokens)
    # predicted topics exist only for the evaluated split: training pairs lie within gold topics
    gold_groups = {"knn_within": "topic"} if args.knn_within == "predicted_topic" else {}
    return knn_candidates(train_rows, argparse.Namespace(**{**vars(args), **gold_groups}), Stage())


def assign_predicted_topics(rows: list[dict], args: argparse.Namespace) -> tuple[list[dict], dict]:
    """``rows`` with their document's predicted topic (:mod:`figbench_baselines.cdec.steps.topics`) and the
    clustering's description and quality. ``args.documents`` (rows of a documents config) replaces
    loading the split of the corpus's ``documents`` config."""
    from figbench_baselines.cdec.steps import topics

    source = topic_source(args)
    documents = getattr(args, "documents", None)
    if source == "documents":
        where = "given documents"
        if documents is None:
            from figbench_baselines.common.splits import load_split

            where = f"{args.dataset}/documents/{args.split}"
            try:
                documents = load_split(args.dataset, "documents", args.split, args.data_dir)
            except ValueError as e:
                raise ValueError(f"predicted topics need the split's documents ({where}): {e}; "
                                 "--topic-source mentions clusters texts rebuilt from the mentions") from e
        texts, gold = topics.texts_from_documents(documents)
    else:
        where = f"{args.dataset}/{args.config}/{args.split} mention rows"
        texts, gold = topics.texts_from_mentions(rows)
    if getattr(args, "predicted_topics", None):
        clustering = topics.given_topics(topics.load_topic_file(args.predicted_topics), gold,
                                         f"--predicted-topics {args.predicted_topics}")
    else:
        clustering = topics.predict_topics(texts, gold, n_topics=args.topic_clusters, seed=args.topic_seed,
                                           source=where)
    rows = topics.with_predicted_topics(rows, clustering)
    clustering.info["mention_pairs_vs_gold_subtopics"] = topics.mention_agreement(rows)
    return rows, clustering.info


def run(args: argparse.Namespace, rows: list[dict] | None = None) -> dict:
    """Run the pipeline for CLI ``args`` and return a validated result record (not yet written).

    ``rows`` (mention rows of the split) replaces loading through the builder; training rows can be
    given as ``args.train_rows`` likewise.
    """
    from figbench_baselines.cdec.steps.compare import UNIT, unit_counts
    from figbench_baselines.cdec.steps.evaluation import per_group_scores, predicted_document, score_clusters
    from figbench_baselines.common.scoring import benchmark_key

    from figbench.results import RunClock, make_result, provenance

    clock = RunClock()
    np.random.seed(args.seed)
    if rows is None and getattr(args, "mentions_file", None):
        rows = read_mentions_file(args.mentions_file)
    if rows is None:
        rows = load_mentions(args.dataset, args.config, args.split, args.data_dir, args.mention_class)
    where = f"{args.dataset}/{args.config}/{args.split}"
    if inputs_only(rows):   # a hidden benchmark's inputs: predictions to submit, nothing to score here
        check_rows(rows, where, need_gold=False)
        return predictions_file(args, rows)
    check_rows(rows, where, need_gold=True)
    if args.max_mentions:
        rows = rows[: args.max_mentions]
    topic_info = None
    if "predicted_topic" in (args.within, getattr(args, "knn_within", None)):
        rows, topic_info = assign_predicted_topics(rows, args)
    t0 = time.perf_counter()
    labels, stage = run_method(rows, args)
    if topic_info is not None:
        stage.options["topic_clustering"] = topic_info
        stage.counts.update(predicted_topics=float(topic_info["n_topics"]),
                            topic_documents=float(topic_info["documents"]))
    pipe_s = time.perf_counter() - t0
    stage.throughput.setdefault("pipeline_seconds", pipe_s)
    stage.throughput["mentions_per_s"] = len(rows) / pipe_s if pipe_s > 0 else 0.0

    # the cdec task's scores (the leaderboard's), plus the filter's gold-pair recall
    ev = score_clusters(rows, labels, benchmark_key("cdec", args.dataset, args.config or "default", args.split),
                        n_resamples=args.n_resamples, seed=args.seed, remove_singletons=args.remove_singletons)
    if stage.extra_scores:
        from figbench.scoring import Scored

        ev.add(Scored(dict(stage.extra_scores), {}))
    scores, cis = ev.scores, ev.confidence_intervals
    counts = {**ev.counts, **stage.counts}
    options = dict(stage.options)
    options.update(mention_class=args.mention_class, remove_singletons=args.remove_singletons)
    if args.per_topic:
        options["per_topic_scores"] = per_group_scores(rows, labels, "topic", remove_singletons=args.remove_singletons)
    doc = predicted_document(rows, labels)
    if len({str(r.get(UNIT, "")) for r in rows}) > 1 and all(r.get(UNIT) not in (None, "") for r in rows):
        # metric counts per gold topic: paired comparisons of two records (compare.py)
        options["unit_counts"] = unit_counts(rows, doc, by=UNIT, remove_singletons=args.remove_singletons)
    predictions = {"format": "clusters", "clusters": doc}
    prov = provenance(clock, seed=args.seed, throughput=stage.throughput, **_time_provenance(clock, stage))
    if args.predictions_file:
        import json
        from pathlib import Path

        Path(args.predictions_file).parent.mkdir(parents=True, exist_ok=True)
        Path(args.predictions_file).write_text(json.dumps(predictions), encoding="utf-8")
    return make_result(
        task="cdec", dataset=args.dataset, config=args.config or "default", split=args.split,
        model=stage.model, scores=scores, confidence_intervals=cis,
        predictions=None if args.predictions_file else predictions,
        predictions_path=args.predictions_file, provenance=prov, method=args.method,
        counts=counts, options=options,
    )


def predictions_file(args: argparse.Namespace, rows: list[dict]) -> dict:
    """A submittable predictions file (``figbench-predictions/1``) of ``args.method`` on inputs-only ``rows``: the
    benchmark named by ``benchmark.json`` beside ``--mentions-file`` (what ``hidden add --inputs-out`` writes),
    else ``--dataset/--config/--split``."""
    from figbench_baselines.cdec.steps.evaluation import predicted_document
    from figbench_baselines.common import inputs_only as io

    from figbench.results import RunClock, provenance

    clock = RunClock()
    fallback = {"dataset": args.dataset, "config": args.config or "default", "split": args.split}
    bench = io.benchmark_of(args.mentions_file, "cdec", fallback) if getattr(args, "mentions_file", None) else \
        {"task": "cdec", **fallback}
    if args.max_mentions:
        raise ValueError("--max-mentions: a predictions file for submission covers every mention of the inputs")
    try:
        labels, stage = run_method(rows, args)
    except KeyError as e:
        if e.args == ("cluster_id",):
            raise ValueError(f"--method {args.method} reads gold clusters of the evaluated split (an oracle); "
                             f"{args.mentions_file} holds inputs only: choose a method that does not") from None
        raise
    return io.predictions_file(bench, stage.model, args.method, predicted_document(rows, labels),
                               provenance(clock, seed=args.seed, throughput=stage.throughput))


def _time_provenance(clock, stage: Stage) -> dict[str, Any]:
    """Training and evaluation wall times (training may have run in an earlier, saved-model run)."""
    if not stage.training:
        return {}
    train_s = sum(float(t.get("train_wall_time_s", 0.0)) for t in stage.training.values())
    trained_here = sum(float(t.get("train_wall_time_s", 0.0)) for t in stage.training.values()
                       if not t.get("loaded_from") and t.get("train_wall_time_s") is not None)
    eval_s = max(0.0, clock.elapsed() - trained_here)
    return {"training": stage.training, "train_wall_time_s": round(train_s, 3),
            "eval_wall_time_s": round(eval_s, 3), "total_wall_time_s": round(train_s + eval_s, 3)}


def default_args(**overrides: Any) -> argparse.Namespace:
    """The CLI defaults as a Namespace (for programmatic use and tests)."""
    from figbench_baselines.cdec.cli import build_parser, normalise

    parser = build_parser()
    base = ["--out", overrides.pop("out", "unused.json"), "--dataset", overrides.pop("dataset", "ecbplus")]
    ns = parser.parse_args(base)
    for k, v in overrides.items():
        if not hasattr(ns, k):
            raise ValueError(f"unknown cdec option {k!r}")
        setattr(ns, k, v)
    return normalise(ns)


__all__ = ["METHODS", "DEFAULT_LH_THRESHOLD", "run", "run_method", "default_args", "topic_source"]
