"""The cdec specs' shared vocabulary: the corpora's data versions, the shown metrics, and a row's
protocol column derived from its command as the cdec CLI parses it (:func:`protocol_of`), with the
helpers that build one spec (:func:`_spec`) or the protocol rows of one method on one split
(:func:`_topic_rows`)."""

from __future__ import annotations

import argparse

from figbench_baselines.specs import BaselineSpec, Historical, Published

ECBPLUS = ("ECB+ 1.0 (cltl/ecbPlus XML via uCDCR; validated sentences: train 574 documents, 3,808 mentions); "
           "ecbplus builder 1.0.0, events")
META_M = "ECB+META_m (llms_coref data, uCDCR processing); ecbmeta builder 1.0.0"
META_1 = "ECB+META_1 Dev_small, 277 mentions (llms_coref ecb_meta_analysis.xlsx); ecbmeta builder 1.0.0"
WEC = "WEC-Eng test, 1,893 mentions (uCDCR unified format); wec_eng builder 1.0.0"
DATA = {("ecbplus", "events"): ECBPLUS, ("ecbmeta", "meta_m"): META_M, ("ecbmeta", "meta_1"): META_1,
        ("wec_eng", "events"): WEC}
CONLL = ("muc_f1", "bcub_f1", "ceafe_f1", "conll_f1")
#: the LH rows also show B-cubed recall and precision (the ECB+META paper's Table 4 reports them)
LH_METRICS = ("muc_f1", "bcub_recall", "bcub_precision", "bcub_f1", "ceafe_f1", "conll_f1")
ORACLE = ("bcub_recall", "candidate_gold_pair_recall")
_C = "c4a6e5b"  # the commit whose code measured the historical cdec values
META_PAPER = "Ahmed et al. 2024, the ECB+META paper"
WEC_PAPER = "Eirew et al. 2021, the WEC paper"
BARHOM = "Barhom et al. 2019, as quoted by the WEC paper (Eirew et al. 2021)"
ISSUE = "issue 11's audit"
EARLIER = "earlier figbench tables"
RELEASED = "the ECB+META code's released pairs (ahmeshaf/llms_coref project/outputs/mention_pairs/{})"

#: the topics protocol of each --within value
TOPICS = {"subtopic": "gold subtopics", "topic": "gold topics", "predicted_topic": "predicted topics",
          None: "none: pairs over the whole split"}
#: corpus names in the protocol column
TUNE_NAMES = {"ecbplus": "ECB+", "ecbmeta": "ECB+META", "wec_eng": "WEC-Eng"}
#: --lh-sentence-tokens
SENTENCES = {"all": "all lower-cased tokens", "content_lemmas": "content-word lemmas (the ECB+META code)"}
#: the ECB+META code's LH: pairs within gold topics, content-word lemma overlap > 0.1
PAPER_LH = ("--within", "topic", "--lh-sentence-tokens", "content_lemmas", "--lh-threshold", "0.1")
PAPER_LH_PROTOCOL = ("gold topics; singletons kept; connected components; LH: lemma match and Jaccard of the two "
                     "sentences' content-word lemma sets > 0.1 (the code's README; App. C states 0.005), "
                     "same-sentence pairs dropped")


def _parsed(argv: tuple[str, ...]):
    """A spec's command (``cdec --dataset ...``) parsed by the cdec CLI itself: its defaults, no copies."""
    from figbench_baselines.cdec.cli import build_parser

    return build_parser().parse_args([*argv[1:], "--out", "unused.json"])


def _num(value: float) -> str:
    return f"{value:g}"


def _topics(dataset: str, config: str, args) -> str:
    """The topics part of the protocol: the pairs' groups (and how predicted topics are made)."""
    from figbench_baselines.cdec.steps.pipeline_defaults import DEFAULT_WITHIN, topic_source

    default = args.within == "auto"
    within = DEFAULT_WITHIN[dataset] if default else None if args.within == "none" else args.within
    topics = TOPICS[within] + (" (default)" if default and within else "")
    if within != "predicted_topic":
        return topics
    if args.predicted_topics:
        return topics + " read from a file"
    mentions = topic_source(argparse.Namespace(topic_source=args.topic_source, dataset=dataset, config=config))
    return (topics + ": K-Means over tf-idf of the split's "
            + ("mention sentences" if mentions == "mentions" else "documents")
            + f", k = {args.topic_clusters or 'gold subtopics'}, seed {args.topic_seed} (Barhom et al. 2019)")


def protocol_of(dataset: str, config: str, method_name: str, argv: tuple[str, ...], **extra: str) -> dict[str, str]:
    """The protocol column of a run (topics, singletons, clustering, thresholds): its command as the CLI
    parses it, described through the method table (:data:`~.steps.pipeline_defaults.METHOD_TABLE`)."""
    from figbench_baselines.cdec.steps.pipeline_defaults import method

    args, m = _parsed(argv), method(method_name)
    clustering = args.clustering or m.clustering
    if m.candidates == "same_lemma":
        clusters = "one cluster per (group, head lemma)"
    elif clustering == "greedy":
        clusters = ("greedy agglomeration (Held et al. 2021), unscored pairs "
                    + ("count 0" if args.greedy_unscored == "zero" else "left out of the average"))
    elif clustering == "average":
        clusters = "average link, threshold tuned"
    else:
        clusters = "connected components"
    out = {"topics": _topics(dataset, config, args), "singletons": "removed" if args.remove_singletons else "kept",
           "clustering": clusters}
    if m.candidates == "lh":
        out["threshold"] = (f"LH sentence Jaccard > {_num(args.lh_threshold)} over "
                            f"{SENTENCES[args.lh_sentence_tokens]}")
    if m.pair_threshold:
        out["pair threshold"] = _num(args.threshold)
    if m.candidates == "knn":
        out["candidates"] = f"k={args.k} neighbours within the group (FAISS flat)"
    if m.scorer == "wec_pairwise":
        tune = args.tune_dataset or dataset
        out["threshold"] = f"tuned on {TUNE_NAMES.get(tune, tune)} {args.tune_split}"
    out.update(extra)
    return out


def _spec(name: str, table: str, dataset: str, config: str, split: str, method: str, *extra_argv: str,
          protocol_extra: dict[str, str] | None = None, **kw) -> BaselineSpec:
    argv = ("cdec", "--dataset", dataset, "--config", config, "--split", split, "--method", method, *extra_argv)
    from figbench_baselines.cdec.steps.pipeline_defaults import method as method_of

    m = method_of(method)
    needs = kw.pop("needs", ("ecbplus",) if dataset == "ecbmeta" and m.uses_training_split else ())
    kw.setdefault("metrics", ORACLE if m.oracle else LH_METRICS if m.scorer == "one" else CONLL)
    kw.setdefault("protocol", protocol_of(dataset, config, method, argv, **(protocol_extra or {})))
    return BaselineSpec(name=name, table=table, family="cdec", task="cdec", dataset=dataset, config=config,
                        split=split, method=method, argv=argv, data_version=DATA[(dataset, config)], needs=needs, **kw)


def _see(row: str, what: str) -> str:
    return f"{what}: see `{row}`"


def _topic_rows(prefix: str, table: str, dataset: str, config: str, split: str, method: str, title: str,
                notes: dict[str, str], published: dict[str, Published] | None = None,
                historical: dict[str, Historical] | None = None, fast: tuple[str, ...] = (),
                paper: bool = False) -> list[BaselineSpec]:
    """The protocol rows of one method on one split: default (gold subtopics), gold topics, predicted
    topics and (``paper``) the ECB+META code's LH. ``notes`` / ``published`` / ``historical`` are keyed
    by protocol ("", "topic", "predtopic", "paper")."""
    published, historical = published or {}, historical or {}
    argvs = {"": (), "topic": ("--within", "topic"), "predtopic": ("--within", "predicted_topic")}
    if paper:
        argvs["paper"] = PAPER_LH
    labels = {"": "", "topic": ", gold topics", "predtopic": ", predicted topics",
              "paper": ", the ECB+META code's LH (gold topics, content-lemma overlap > 0.1)"}
    rows = []
    for key, argv in argvs.items():
        name = f"cdec_{prefix}{'_' + key if key else ''}_{dataset if dataset != 'ecbmeta' else config}_{split}"
        pub = published.get(key)
        rows.append(_spec(name, table, dataset, config, split, method, *argv, title=title + labels[key],
                          fast=key in fast, published=pub, historical=historical.get(key),
                          comparability=notes.get(key, "")))
    return rows


def _lh_notes(paper_row: str, has_paper_value: bool, what: str) -> dict[str, str]:
    value = f"the {what}" if has_paper_value else "no published value for this split is known here"
    return {"": _see(paper_row, f"{value} used gold topics and content-word overlap") if has_paper_value else value,
            "topic": (_see(paper_row, f"{value} also used content-word lemma overlap > 0.1")
                      if has_paper_value else value),
            "predtopic": "no paper ran LH with predicted topics on this split (the ECB+META code pairs within gold "
                         "topics)"}


def _short(dataset: str, config: str) -> str:
    return dataset if dataset != "ecbmeta" else config
