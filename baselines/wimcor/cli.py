"""``figbench baseline wimcor``: metonymy resolution baselines on WiMCor (one result record per run)."""

from __future__ import annotations

import argparse

METHODS = ("random", "random_prior", "majority", "imm", "predicate", "finetune")
TASK = "metonymy"
#: GPU-scale defaults of the fine-tuned PMW-marked transformer (ours; the paper does not list them here)
TRAIN_DEFAULTS = dict(epochs=3, batch_size=16, lr=3e-5, weight_decay=0.01, warmup_ratio=0.1)
QUICK = dict(max_train=800, max_steps=40, batch_size=16, lr=1e-4)


def register(bsub: argparse._SubParsersAction) -> None:
    from figbench_baselines.common.runs import add_common_args

    p = bsub.add_parser("wimcor", help="WiMCor metonymy resolution (random, random_prior, majority, imm, predicate, "
                                       "finetune)",
                        description="Classify the potentially metonymic word (PMW) of WiMCor into its medium "
                                    "class (or coarse literal/metonymic) and write a result record.")
    p.add_argument("--method", choices=METHODS, default="majority")
    p.add_argument("--config", default="sample", help="wimcor config (default: sample, the offline files)")
    p.add_argument("--train-split", default="train")
    p.add_argument("--split", default="test", help="evaluation split (default test)")
    p.add_argument("--granularity", choices=("medium", "coarse"), default="medium",
                   help="medium labels (LOCATION, INSTITUTE, TEAM, ARTIFACT, EVENT) or literal/metonymic")
    p.add_argument("--window", type=int, default=50,
                   help="words either side of the PMW (imm, finetune) or of its predicate (predicate); paper: 5, 10, 50")
    p.add_argument("--max-train", type=int, default=None, help="subsample training examples")
    p.add_argument("--max-test", type=int, default=None, help="subsample evaluation examples")
    add_common_args(p, trained=True)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from figbench.results import RunClock, make_result, provenance
    from figbench.tasks import get_task
    from figbench_baselines.common.encoder import model_display_name
    from figbench_baselines.common.figurative import (
        check_label_sets, is_main_process, load_encoder, model_record, n_parameters, require_rows, skip_summary,
        subsample, write_predictions)
    from figbench_baselines.common.runs import finish_run, train_config_from_args
    from figbench_baselines.common.scoring import benchmark_key, score_with_task
    from figbench_baselines.wimcor import methods
    from figbench_baselines.wimcor.data import load_split_examples

    clock = RunClock()
    if args.quick:
        args.max_train = args.max_train or QUICK["max_train"]
        args.max_steps = args.max_steps or QUICK["max_steps"]
        args.batch_size = args.batch_size or QUICK["batch_size"]
        args.lr = args.lr or QUICK["lr"]
    train_l = load_split_examples(args.config, args.train_split, args.data_dir)
    test_l = load_split_examples(args.config, args.split, args.data_dir)
    require_rows(train_l.examples, f"wimcor/{args.config}/{args.train_split}")
    require_rows(test_l.examples, f"wimcor/{args.config}/{args.split}")
    train = subsample(train_l.examples, args.max_train, args.seed)
    test_rows = test_l.examples.sample(args.max_test, args.seed)
    test = list(test_rows)
    key = "label" if args.granularity == "medium" else "coarse"
    labels = check_label_sets([ex[key] for ex in train], [ex[key] for ex in test],
                              where=f"wimcor/{args.config} {args.train_split} -> {args.split}")

    throughput: dict[str, float] = {}
    options = {"granularity": args.granularity, "n_train": len(train), "quick": bool(args.quick)}
    if args.method in ("random", "random_prior", "majority"):
        if args.method == "majority":
            pred = methods.majority_baseline(train, test, key)
        else:
            draw = "prior" if args.method == "random_prior" else "uniform"
            pred = methods.random_baseline(train, test, key, seed=args.seed, draw=draw)
            options["draw"] = draw
        model = model_record(args.method, type="heuristic", parameters=0)
        method = args.method
    elif args.method in ("imm", "predicate"):
        if args.method == "predicate":
            nlp = methods.find_parser("en")
            w_train = methods.predicate_windows(train, args.window, nlp)
            w_test = methods.predicate_windows(test, args.window, nlp)
            options["parser"] = nlp.meta.get("name", "?")
        else:
            w_train = [methods.immediate_window(ex, args.window) for ex in train]
            w_test = [methods.immediate_window(ex, args.window) for ex in test]
        tok, enc = load_encoder(args.model)
        x_train, s1 = methods.window_features(w_train, tok, enc, desc="embed train")
        x_test, s2 = methods.window_features(w_test, tok, enc, desc="embed test")
        pred, s3 = methods.pooled_classifier(x_train, [ex[key] for ex in train], x_test, seed=args.seed)
        throughput.update({"train_embed_examples_per_s": s1["embed_examples_per_s"],
                           "inference_embed_examples_per_s": s2["embed_examples_per_s"], **s3})
        method = f"{'imm' if args.method == 'imm' else 'prewin'}{args.window}"
        model = model_record(model_display_name(args.model), type="other", parameters=n_parameters(enc),
                             classifier="frozen mean-pooled embeddings + logistic regression")
        options["window"] = args.window
    else:
        cfg = train_config_from_args(args, **TRAIN_DEFAULTS)
        pred, stats, info = methods.finetune_marked(train, test, key, labels, cfg, model_name=args.model,
                                                    window=args.window)
        throughput.update({k: v for k, v in stats.items() if k.endswith("_per_s")})
        options.update(window=args.window, train_steps=stats.get("train_steps"), epochs=cfg.epochs,
                       batch_size=cfg.batch_size, lr=cfg.lr, max_steps=cfg.max_steps)
        method = f"finetune_marked{args.window}"
        model = model_record(model_display_name(args.model), type="fine-tuned encoder",
                             parameters=info["parameters"])

    if args.granularity == "coarse":
        method += "_coarse"  # another protocol: its own leaderboard name
    if not is_main_process():
        return 0
    predictions = {ex["id"]: p for ex, p in zip(test, pred)}
    # medium labels are the task's gold column; the coarse level scores the builder's coarse column the same way
    task = get_task(TASK) if args.granularity == "medium" else replace(get_task(TASK), label_column="coarse")
    ev = score_with_task(task, test_rows.gold_split(), benchmark_key(TASK, "wimcor", args.config, args.split),
                         predictions, n_resamples=args.n_resamples, seed=args.seed)
    counts = {"n_train": len(train), "n_test": len(test), "n_labels": len(ev.gold.label_set),
              "n_skipped_train": len(train_l.skipped), "n_skipped_test": len(test_l.skipped)}
    record = make_result(
        task=TASK, dataset="wimcor", config=args.config, split=args.split, model=model,
        scores=ev.scores, confidence_intervals=ev.confidence_intervals,
        predictions=predictions if not args.predictions_file else None,
        predictions_path=write_predictions(args.predictions_file, predictions),
        provenance=provenance(clock, seed=args.seed, throughput=throughput), method=method,
        counts=counts, options=options)
    skipped = skip_summary(train_l.skipped + test_l.skipped)
    finish_run(record, args, skipped)
    return 0
