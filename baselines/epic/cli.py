"""``figbench baseline epic``: ePiC proverb prediction, alignment, narrative generation, similar narratives."""

from __future__ import annotations

import argparse

FAMILY = "epic"
#: task (figbench.tasks) -> its runner in figbench_baselines.epic.runners; the --task choices
RUNNERS = {"proverb_prediction": "run_prediction", "proverb_alignment": "run_alignment",
           "narrative_generation": "run_generation", "similar_narratives": "run_similar"}
ALIASES = {"prediction": "proverb_prediction", "alignment": "proverb_alignment",
           "generation": "narrative_generation", "similar": "similar_narratives"}
#: methods per task; the first is the default
TASK_METHODS = {
    "proverb_prediction": ("bm25", "embedding", "finetune"),
    "proverb_alignment": ("finetune", "lexical", "tagger", "whole"),
    "narrative_generation": ("keywords", "seq2seq"),
    "similar_narratives": ("embedding", "distribution"),
}
#: GPU-scale training defaults of the bi-encoder, span scorer and seq2seq model (ours, not from the paper)
TRAIN_DEFAULTS = {
    "proverb_prediction": dict(epochs=5, batch_size=16, lr=2e-5, weight_decay=0.01, warmup_ratio=0.06),
    "proverb_alignment": dict(epochs=3, batch_size=16, lr=3e-5, weight_decay=0.01, warmup_ratio=0.1),
    "narrative_generation": dict(epochs=5, batch_size=8, lr=3e-4, weight_decay=0.0, warmup_ratio=0.0),
}
QUICK = {
    "proverb_prediction": dict(max_steps=30, lr=3e-5, max_train=None, max_test=None),
    "proverb_alignment": dict(max_steps=40, lr=1e-4, max_train=300, max_test=None),
    "narrative_generation": dict(max_steps=20, lr=1e-3, max_train=200, max_test=100),
}


def register(bsub: argparse._SubParsersAction) -> None:
    from figbench_baselines.common.inputs_only import add_inputs_option
    from figbench_baselines.common.runs import add_common_args, add_task_option, add_training_run_args

    p = bsub.add_parser("epic", help="ePiC proverbs: prediction, alignment, generation, similar narratives",
                        description="ePiC baselines (Ghosh & Srivastava 2022); one result record per run.")
    add_task_option(p, FAMILY, RUNNERS, aliases=ALIASES, default="proverb_prediction")
    p.add_argument("--method", default=None,
                   help="; ".join(f"{t}: {' | '.join(m)}" for t, m in TASK_METHODS.items()) + " (default: the first)")
    p.add_argument("--config", choices=("seen", "unseen"), default="seen",
                   help="proverb setting for prediction / similar narratives (alignment uses the seen split)")
    p.add_argument("--scorer", choices=("bm25", "embedding", "finetune"), default="embedding",
                   help="similar/distribution: the proverb scorer whose softmax distributions are compared")
    p.add_argument("--distance", choices=("cosine", "js", "l2", "l1"), default="js",
                   help="similar/distribution: headline distance (all four are reported)")
    p.add_argument("--temperature", type=float, default=0.05,
                   help="softmax temperature for proverb distributions of cosine scorers (BM25 uses 1)")
    p.add_argument("--pipeline", default=None, metavar="bm25|embedding|RECORD.json",
                   help="alignment: pipelined evaluation; spans of narratives whose predicted proverb is wrong "
                        "score zero. Proverbs come from a zero-shot scorer or a proverb-prediction result record")
    p.add_argument("--max-train", type=int, default=None, help="subsample training narratives / pairs")
    p.add_argument("--max-test", type=int, default=None, help="subsample test narratives")
    p.add_argument("--num-beams", type=int, default=1, help="generation: beam size")
    add_common_args(p, trained=True)
    add_inputs_option(p)
    add_training_run_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from figbench.results import RunClock

    clock = RunClock()
    method = args.method or TASK_METHODS[args.task][0]
    if method not in TASK_METHODS[args.task]:
        raise ValueError(f"epic --task {args.task}: unknown method {method!r}; choose from {TASK_METHODS[args.task]}")
    args.method = method
    if args.quick and args.task in QUICK:
        q = QUICK[args.task]
        args.max_steps = args.max_steps or q["max_steps"]
        args.lr = args.lr or q["lr"]
        args.max_train = args.max_train or q["max_train"]
        args.max_test = args.max_test or q["max_test"]
    from figbench_baselines.epic import runners

    return getattr(runners, RUNNERS[args.task])(args, clock)
