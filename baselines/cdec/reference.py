"""The trivial coreference references: every mention alone, and one cluster per gold topic.

They need no candidate pairs, model or threshold, so they do not go through the pipeline's filters:
:func:`run` loads the split like the pipeline, labels the mentions, and scores them through the same
``cdec`` task path (:func:`figbench_baselines.cdec.evaluation.score_clusters`, with the per-topic metric
counts that the paired drop of :mod:`figbench_baselines.cdec.compare` reads), so their records read like
every other cdec record. Every coreference table of ``baselines/README.md`` shows them as reference
rows: a system must be read against what a split gives for free (singletons weigh heavily in B-cubed
and CEAF-e; one cluster per topic in MUC).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence

import numpy as np


def all_singletons(rows: Sequence[Mapping], within: str | None = None) -> np.ndarray:
    """Every mention in a cluster of its own (``within`` is ignored)."""
    return np.arange(len(rows), dtype=np.int64)


def one_cluster_per_topic(rows: Sequence[Mapping], within: str | None = "topic") -> np.ndarray:
    """One cluster per group: the gold field ``within`` (``topic``, ``subtopic``); ``None`` (WEC-Eng's
    whole-split protocol) puts every mention in one cluster."""
    keys: dict[str, int] = {}
    return np.array([keys.setdefault(str(r[within]) if within else "", len(keys)) for r in rows], dtype=np.int64)


#: method name -> labelling, and the clustering text of the spec's protocol column
METHODS: dict[str, tuple[Callable[..., np.ndarray], str]] = {
    "all_singletons": (all_singletons, "every mention alone (reference)"),
    "one_cluster_per_topic": (one_cluster_per_topic, "one cluster per group of --within (reference)"),
}


def run(args: argparse.Namespace, rows: list[dict] | None = None) -> dict:
    """A validated result record of the reference ``args.method`` on ``args``' split (not yet written);
    ``rows`` (the split's mention rows) replaces loading it through the builder."""
    import json
    from pathlib import Path

    from figbench_baselines.cdec.compare import UNIT, unit_counts
    from figbench_baselines.cdec.data import check_rows, load_mentions
    from figbench_baselines.cdec.evaluation import predicted_document, score_clusters
    from figbench_baselines.common.scoring import benchmark_key

    from figbench.results import RunClock, make_result, provenance

    if args.method not in METHODS:
        raise ValueError(f"unknown reference method {args.method!r}; choose from {', '.join(METHODS)}")
    clock = RunClock()
    if rows is None:
        rows = load_mentions(args.dataset, args.config, args.split, args.data_dir, args.mention_class)
    check_rows(rows, f"{args.dataset}/{args.config}/{args.split}", need_gold=True)
    if args.within == "predicted_topic":
        raise ValueError(f"--method {args.method}: a reference groups by gold fields; use --within topic, "
                         "subtopic or none")
    label, _ = METHODS[args.method]
    labels = label(rows, args.within)
    ev = score_clusters(rows, labels, benchmark_key("cdec", args.dataset, args.config or "default", args.split),
                        n_resamples=args.n_resamples, seed=args.seed, remove_singletons=args.remove_singletons)
    doc = predicted_document(rows, labels)
    options = {"method": args.method, "within": args.within or "split", "mention_class": args.mention_class,
               "remove_singletons": args.remove_singletons, "reference": True}
    if len({str(r.get(UNIT, "")) for r in rows}) > 1 and all(r.get(UNIT) not in (None, "") for r in rows):
        options["unit_counts"] = unit_counts(rows, doc, by=UNIT, remove_singletons=args.remove_singletons)
    predictions = {"format": "clusters", "clusters": doc}
    if args.predictions_file:
        Path(args.predictions_file).parent.mkdir(parents=True, exist_ok=True)
        Path(args.predictions_file).write_text(json.dumps(predictions), encoding="utf-8")
    model = {"name": f"reference: {args.method.replace('_', ' ')}", "revision": None, "type": "heuristic",
             "parameters": 0}
    return make_result(
        task="cdec", dataset=args.dataset, config=args.config or "default", split=args.split, model=model,
        scores=ev.scores, confidence_intervals=ev.confidence_intervals,
        predictions=None if args.predictions_file else predictions, predictions_path=args.predictions_file,
        provenance=provenance(clock, seed=args.seed), method=args.method,
        counts={**ev.counts, "candidate_pairs": 0.0}, options=options)


__all__ = ["METHODS", "all_singletons", "one_cluster_per_topic", "run"]
