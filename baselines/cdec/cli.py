"""``figbench baseline cdec``: cross-document event coreference baselines (light module: no heavy imports)."""

from __future__ import annotations

import argparse

from figbench_baselines.cdec.steps.pipeline_defaults import DEFAULT_WITHIN

DATASETS = ("ecbplus", "ecbmeta", "wec_eng")


def add_arguments(p: argparse.ArgumentParser) -> None:
    from figbench_baselines.cdec.steps.pipeline_defaults import DEFAULT_LH_THRESHOLD, METHODS
    from figbench_baselines.common.runs import add_common_args

    d = p.add_argument_group("data")
    d.add_argument("--dataset", required=True, choices=DATASETS)
    d.add_argument("--config", default=None,
                   help="builder config (default: the builder's default config: events; meta_m for ecbmeta)")
    d.add_argument("--split", default="test")
    d.add_argument("--train-data-dir", default=None,
                   help="corpus folder of the training split (default: ECB+ beside --data-dir for ecbmeta)")
    d.add_argument("--mention-class", default="event", choices=("event", "entity", "all"))
    d.add_argument("--max-mentions", type=int, default=None, help="use only the first N mentions (quick runs)")
    d.add_argument("--mentions-file", default=None,
                   help="JSON list (or JSON lines) of mention rows to evaluate instead of the builder's split")
    d.add_argument("--train-mentions-file", default=None,
                   help="JSON list (or JSON lines) of gold-clustered training mention rows instead of the training "
                        "split")

    m = p.add_argument_group("method")
    m.add_argument("--method", default="lh", choices=METHODS,
                   help="a pipeline method (the trivial references: figbench baseline trivial --task cdec)")
    m.add_argument("--within", default="auto", choices=("auto", "topic", "subtopic", "predicted_topic", "none"),
                   help="restrict pairs to one gold topic, gold subtopic or predicted topic (the split's documents "
                        "clustered by K-Means over tf-idf, as Barhom et al. 2019) (auto: subtopic for ECB+/META, "
                        "none for WEC-Eng)")
    m.add_argument("--topic-clusters", type=int, default=None,
                   help="predicted topics: number of K-Means clusters (default: the number of gold subtopics of the "
                        "clustered documents; Barhom et al. use 20 on ECB+ test)")
    m.add_argument("--predicted-topics", default=None, metavar="FILE",
                   help="predicted topics read from FILE instead of clustered (JSON list of lists of doc ids or "
                        "object doc_id -> topic, or Barhom et al.'s pickled data/external/document_clustering/"
                        "predicted_topics, read without executing code)")
    m.add_argument("--topic-seed", type=int, default=665,
                   help="predicted topics: K-Means random_state (Barhom et al.: 665)")
    m.add_argument("--topic-source", default="auto", choices=("auto", "documents", "mentions"),
                   help="predicted topics: cluster the split of the corpus's documents config (all documents of the "
                        "split, as the reference) or texts rebuilt from the mention rows (auto: documents, except "
                        "ECB+META_1, whose metaphoric text exists only in its mention sentences)")
    m.add_argument("--lh-threshold", type=float, default=DEFAULT_LH_THRESHOLD,
                   help=f"LH sentence Jaccard threshold (default {DEFAULT_LH_THRESHOLD}; ECB+META paper 0.005, its "
                        "code 0.1)")
    m.add_argument("--lh-sentence-tokens", default="all", choices=("all", "content_lemmas"),
                   help="LH sentence overlap over the lower-cased tokens (all, default) or, as the ECB+META code, "
                        "over the lemmas of the tokens that are not stop words or punctuation (content_lemmas)")
    m.add_argument("--lh-lemma-pairs", default="train", choices=("train", "none"),
                   help="where LH's synonymous lemma pairs come from")
    m.add_argument("--lh-fallback", action="store_true",
                   help="if no training split exists (WEC-Eng offline), run LH with same-lemma matching only")
    m.add_argument("--keep-same-sentence", action="store_true",
                   help="keep candidate pairs of two mentions in one sentence (dropped by default, as in the ECB+META "
                        "code)")
    m.add_argument("--clustering", default=None, choices=("cc", "greedy", "average"),
                   help="clustering of scored pairs (default: cc; average for wec_pairwise); greedy: Held et al. "
                        "2021's greedy agglomeration (the ECB+META paper's clustering for KNN-filtered methods)")
    m.add_argument("--greedy-unscored", default="zero", choices=("zero", "ignore"),
                   help="greedy: a pair that was never scored counts as 0 in the average between two clusters "
                        "(zero, as the ECB+META code) or is left out (ignore)")
    m.add_argument("--threshold", type=float, default=0.5, help="pair score threshold for clustering")
    m.add_argument("--remove-singletons", action="store_true", help="score without singletons")
    m.add_argument("--per-topic", action="store_true", help="also store scores per topic (options.per_topic_scores)")

    k = p.add_argument_group("KNN / encoders")
    k.add_argument("--k", type=int, default=5, help="KNN neighbours per mention (default 5)")
    k.add_argument("--faiss-index", default="flat", choices=("flat", "hnsw", "ivf"))
    k.add_argument("--knn-within", default="auto", choices=("auto", "topic", "subtopic", "predicted_topic", "none"),
                   help="search neighbours within a group (auto: as --within)")
    k.add_argument("--no-train-biencoder", action="store_true",
                   help="KNN on the frozen encoder (no triplet-loss fine-tuning)")
    k.add_argument("--biencoder", default=None, metavar="DIR",
                   help="KNN with the bi-encoder saved in DIR (by knn_oracle --save-model) instead of training one")
    k.add_argument("--biencoder-steps", type=int, default=None, help="triplet-loss optimiser steps (default: 1 epoch)")
    k.add_argument("--margin", type=float, default=10.0,
                   help="triplet margin (Held et al.: 10; on unit vectors with --biencoder-normalize, e.g. 0.3)")
    k.add_argument("--biencoder-negatives", default="random", choices=("random", "hard", "mixed"),
                   help="triplet negatives: a random mention of another cluster of the topic, (hard) one that "
                        "shares the anchor's head lemma when there is one, or (mixed) either with even odds")
    k.add_argument("--biencoder-normalize", action="store_true",
                   help="train and search on unit-length mention vectors (the margin is then on their scale); "
                        "with --no-train-biencoder: the frozen encoder's vectors, ranked by cosine")
    k.add_argument("--biencoder-wise-ft", action="store_true",
                   help="with --train-only --biencoder DIR --biencoder-select S --save-model OUT: interpolate the "
                        "trained bi-encoder in DIR with its untrained encoder (WiSE-FT), the weight chosen on S")
    k.add_argument("--biencoder-epochs", type=float, default=1.0, help="bi-encoder training epochs (default 1)")
    k.add_argument("--biencoder-select", default=None, metavar="SPLIT[,DATASET/CONFIG/SPLIT...]",
                   help="held-out splits whose KNN oracle B-cubed recall (over all their mentions) selects the best "
                        "epoch, the untrained encoder included: an ECB+ split (validation) or dataset/config/split "
                        "entries, comma-separated (e.g. validation,ecbmeta/meta_m/validation)")
    k.add_argument("--max-length", type=int, default=None,
                   help="encoder max tokens per input (default: a loaded model's, else 128)")
    k.add_argument("--context-words", type=int, default=None,
                   help="context words each side of a mention (default: a loaded model's, else 30)")
    k.add_argument("--max-train-mentions", type=int, default=None,
                   help="use only the first N training mentions (default with --quick: 400)")
    k.add_argument("--max-train-pairs", type=int, default=None, help="cap on training pairs (quick runs)")
    k.add_argument("--train-sample", type=int, default=None, metavar="N",
                   help="cross-encoders: train on a stratified sample of N candidate pairs (topic x label, "
                        "proportional; default: all pairs)")
    k.add_argument("--train-fraction", type=float, default=1.0, metavar="F",
                   help="cross-encoders: train on the first F of each stratum of the sample (nested: learning curves)")
    k.add_argument("--pair-order", default=None, choices=("both", "random"),
                   help="cross-encoders: 'both' averages the (a,b) and (b,a) inputs in training and scoring, as the "
                        "reference code (default); 'random' trains each pair in one random order and scores one "
                        "(half the cost)")
    k.add_argument("--pos-weight", default="none", choices=("none", "balanced"),
                   help="cross-encoders: weight positive pairs by #neg/#pos in the loss (default none, as the "
                        "reference code)")
    k.add_argument("--head-lr", type=float, default=1e-3,
                   help="cross-encoders: learning rate of the new classifier head (default 1e-3; --lr is the "
                        "encoder's)")
    k.add_argument("--encode-batch-size", type=int, default=64)
    k.add_argument("--tune-split", default="validation",
                   help="split on which wec_pairwise tunes its clustering threshold (default validation)")
    k.add_argument("--wec-negatives", default=None, choices=("within", "random"),
                   help="wec_pairwise training negatives: every non-coreferent pair inside each --within group "
                        "(default for ECB+, as the WEC code) or 10 random ones per positive (default for WEC-Eng)")
    k.add_argument("--tune-dataset", default=None, choices=DATASETS,
                   help="dataset of the tuning split (default: --dataset; e.g. ecbplus for ECB+ -> WEC-Eng transfer)")
    k.add_argument("--tune-config", default=None, help="config of the tuning dataset")
    k.add_argument("--tune-mentions-file", default=None,
                   help="JSON list (or JSON lines) of gold-clustered mention rows to tune on instead of --tune-split")
    k.add_argument("--save-model", default=None, metavar="DIR",
                   help="save the trained model (weights + train_info.json) in DIR")
    k.add_argument("--load-model", default=None, metavar="DIR",
                   help="evaluate the model saved in DIR instead of training (its settings are the defaults)")
    k.add_argument("--train-only", action="store_true",
                   help="train and --save-model, write no result record (evaluate later with --load-model)")
    k.add_argument("--no-cache", action="store_true",
                   help="do not read or write the on-disk cache of frozen/saved encoder embeddings")

    llm = p.add_argument_group("LLM scorer")
    llm.add_argument("--llm-model", default=None, help="transformers causal LM id/path for llm_* methods")
    llm.add_argument("--llm-endpoint", default=None,
                     help="OpenAI-compatible base URL (e.g. http://127.0.0.1:8000/v1); uses --llm-model as model name")
    llm.add_argument("--llm-api-key-env", default="OPENAI_API_KEY", help="env variable holding the endpoint's key")
    llm.add_argument("--llm-cache", default=".figbench_cache/cdec_llm.jsonl", help="answer cache (JSON lines)")
    add_common_args(p, trained=True, out_required=False)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="figbench baseline cdec")
    add_arguments(p)
    return p


def register(bsub: argparse._SubParsersAction) -> None:
    p = bsub.add_parser(
        "cdec", help="cross-document event coreference (ECB+, ECB+META, WEC-Eng)",
        description="Filter candidate pairs, score them, cluster, score the split as one cross-document "
                    "document with figbench's CoNLL metric, and write a result record.",
    )
    add_arguments(p)
    p.set_defaults(func=main, _parser=p)


def normalise(args: argparse.Namespace) -> argparse.Namespace:
    """Fill dataset-dependent defaults (config, within)."""
    if args.config is None:
        from figbench.loading import builder_configs

        args.config = builder_configs(args.dataset)[1]
    if args.within == "auto":
        args.within = DEFAULT_WITHIN[args.dataset]
    elif args.within == "none":
        args.within = None
    if args.knn_within == "auto":
        args.knn_within = args.within
    elif args.knn_within == "none":
        args.knn_within = None
    return args


def main(args: argparse.Namespace) -> int:
    from figbench_baselines.cdec.pipeline import run
    from figbench_baselines.cdec.training import train_only
    from figbench_baselines.common.encoder import ModelLoadError
    from figbench_baselines.common.runs import finish_run

    if args.biencoder_wise_ft and not args.train_only:
        raise ValueError("--biencoder-wise-ft writes a model: use it with --train-only --biencoder DIR "
                         "--biencoder-select S --save-model OUT, then evaluate OUT with --biencoder OUT")
    if args.train_only:
        info = train_only(normalise(args))
        from accelerate import PartialState

        if PartialState().is_main_process:
            for component, tinfo in info.items():
                if "wise_ft" in tinfo:
                    w = tinfo["wise_ft"]
                    print(f"interpolated {component}: alpha {w['alpha']} (worst validation gain "
                          f"{100 * w['worst_gain']:+.2f}) in {w['seconds']:.0f} s -> {args.save_model}")
                    continue
                n = tinfo.get("n_training_pairs", tinfo.get("n_training_triplets"))
                print(f"trained {component}: {n} training examples in {tinfo.get('train_wall_time_s')} s "
                      f"-> {args.save_model}")
        return 0
    if not args.out:
        raise ValueError("--out FILE is required (unless --train-only)")
    try:
        record = run(normalise(args))
    except ModelLoadError as e:  # reported as a clean CLI error, no results file
        raise ValueError(str(e)) from e
    from accelerate import PartialState

    if not PartialState().is_main_process:  # under `accelerate launch`: one record, one submission
        return 0
    if record.get("format") == "figbench-predictions/1":   # inputs only: a predictions file to submit
        from figbench_baselines.common.inputs_only import write_predictions_file

        write_predictions_file(record, args.out)
        return 0
    summary = {k: v for k, v in record.get("counts", {}).items() if k in ("mentions", "candidate_pairs")}
    finish_run(record, args, summary)
    return 0
