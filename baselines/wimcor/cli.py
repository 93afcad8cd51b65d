"""``figbench baseline wimcor``: metonymy resolution baselines on WiMCor (one result record per run)."""

from __future__ import annotations

import argparse

#: the trivial baselines (majority, random, by class prior) are the metonymy task's, run by `figbench baseline trivial`
METHODS = ("imm", "predicate", "finetune")
TASK = "metonymy"
#: GPU-scale defaults of the fine-tuned PMW-marked transformer (ours; the paper does not list them here)
TRAIN_DEFAULTS = dict(epochs=3, batch_size=16, lr=3e-5, weight_decay=0.01, warmup_ratio=0.1)
QUICK = dict(max_train=800, max_steps=40, batch_size=16, lr=1e-4)


def register(bsub: argparse._SubParsersAction) -> None:
    from figbench_baselines.common.inputs_only import add_inputs_option
    from figbench_baselines.common.runs import add_common_args, add_training_run_args

    p = bsub.add_parser("wimcor", help="WiMCor metonymy resolution (imm, predicate, finetune; the trivial "
                                       "baselines: figbench baseline trivial --task metonymy)",
                        description="Classify the potentially metonymic word (PMW) of WiMCor into its medium "
                                    "class (or coarse literal/metonymic) and write a result record.")
    p.add_argument("--method", choices=METHODS, default="imm")
    p.add_argument("--config", default="sample", help="wimcor config (default: sample, the offline files)")
    p.add_argument("--train-split", default="train")
    p.add_argument("--train-config", default=None,
                   help="config the training (and validation) split comes from (default: --config); e.g. "
                        "sample_with_validation, whose train + validation are the sample's train split")
    p.add_argument("--validation-split", default="validation",
                   help="finetune with --patience: the split of --train-config early stopping scores (micro F1)")
    p.add_argument("--split", default="test", help="evaluation split (default test)")
    p.add_argument("--granularity", choices=("medium", "coarse"), default="medium",
                   help="medium labels (LOCATION, INSTITUTE, TEAM, ARTIFACT, EVENT) or literal/metonymic")
    p.add_argument("--window", type=int, default=50,
                   help="words either side of the PMW (imm, finetune) or of its predicate (predicate); "
                        "paper: 5, 10, 50")
    p.add_argument("--max-train", type=int, default=None, help="subsample training examples")
    p.add_argument("--max-test", type=int, default=None, help="subsample evaluation examples")
    add_common_args(p, trained=True)
    add_inputs_option(p)
    add_training_run_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from figbench_baselines.common import inputs_only as io
    from figbench_baselines.common.encoder import model_display_name
    from figbench_baselines.common.figurative import (
        check_label_sets,
        is_main_process,
        load_encoder,
        model_record,
        n_parameters,
        require_rows,
        skip_summary,
        subsample,
        write_predictions,
    )
    from figbench_baselines.common.runs import finish_run
    from figbench_baselines.common.scoring import benchmark_key, score_with_task
    from figbench_baselines.wimcor import methods
    from figbench_baselines.wimcor.data import load_inputs_examples, load_split_examples

    from figbench.results import RunClock, make_result, provenance
    from figbench.tasks import get_task

    clock = RunClock()
    if args.quick:
        args.max_train = args.max_train or QUICK["max_train"]
        args.max_steps = args.max_steps or QUICK["max_steps"]
        args.batch_size = args.batch_size or QUICK["batch_size"]
        args.lr = args.lr or QUICK["lr"]
    train_config = args.train_config or args.config
    train_l = load_split_examples(train_config, args.train_split, args.data_dir)
    if args.inputs_file:   # a hidden benchmark's inputs: medium labels predicted for every row, nothing scored
        io.refuse_subsets(args, max_test=args.max_test, granularity=args.granularity != "medium",
                          predictions_file=args.predictions_file, submit=args.submit)
        test_l = load_inputs_examples(args.inputs_file)
    else:
        test_l = load_split_examples(args.config, args.split, args.data_dir)
    if train_config != args.config and not args.inputs_file:
        leaked = {ex["id"] for ex in train_l.examples} & {ex["id"] for ex in test_l.examples}
        if leaked:
            raise ValueError(f"wimcor/{train_config}/{args.train_split} shares {len(leaked)} ids with "
                             f"wimcor/{args.config}/{args.split}, e.g. {sorted(leaked)[:3]}")
    require_rows(train_l.examples, f"wimcor/{args.config}/{args.train_split}")
    require_rows(test_l.examples, f"wimcor/{args.config}/{args.split}")
    train = subsample(train_l.examples, args.max_train, args.seed)
    test_rows = test_l.examples.sample(args.max_test, args.seed)
    test = list(test_rows)
    key = "label" if args.granularity == "medium" else "coarse"
    labels = check_label_sets([ex[key] for ex in train], [ex[key] for ex in test if key in ex],
                              where=f"wimcor/{args.config} {args.train_split} -> {args.split}")

    throughput: dict[str, float] = {}
    options = {"granularity": args.granularity, "n_train": len(train), "quick": bool(args.quick)}
    if args.method in ("imm", "predicate"):
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
        pred, throughput, options_ft, model, method = _run_finetune(args, train, test, key, labels, train_config)
        options.update(options_ft)

    if args.granularity == "coarse":
        method += "_coarse"  # another protocol: its own leaderboard name
    if not is_main_process():
        return 0
    predictions = {ex["id"]: p for ex, p in zip(test, pred)}
    if args.inputs_file:
        return io.write_submission(args, TASK, {"dataset": "wimcor", "config": args.config, "split": args.split},
                                   model=model, method=method, predictions=predictions, clock=clock,
                                   throughput=throughput)
    # medium labels are the task's gold column; the coarse level scores the builder's coarse column the same way
    task = get_task(TASK) if args.granularity == "medium" else replace(get_task(TASK), label_column="coarse")
    ev = score_with_task(task, test_rows.gold_split(), benchmark_key(TASK, "wimcor", args.config, args.split),
                         predictions, n_resamples=args.n_resamples, seed=args.seed)
    counts = {"n_train": options.get("training", {}).get("n_train_examples", len(train)), "n_test": len(test),
              "n_labels": len(ev.gold.label_set),
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


def _run_finetune(args, train, test, key: str, labels, train_config: str):
    """The PMW-marked fine-tuned classifier: train (early-stopped on validation micro F1 with --patience) or
    load a saved one (--load-model); returns predictions, throughput, options, model block, method."""
    from figbench_baselines.common.early_stopping import load_training_info, save_trained
    from figbench_baselines.common.encoder import model_display_name
    from figbench_baselines.common.figurative import early_stopping_from_args, model_record, training_summary
    from figbench_baselines.common.runs import train_config_from_args
    from figbench_baselines.wimcor import methods

    cfg = train_config_from_args(args, **TRAIN_DEFAULTS)
    early = early_stopping_from_args(args, "micro_f1", args.validation_split)
    if args.load_model:
        info = load_training_info(args.load_model)
        training = {**info["training"], "trained_by": info.get("command")}
        pred, stats, minfo = methods.predict_marked_saved(args.load_model, test, window=training["window"])
    else:
        evaluate = None
        if early is not None:
            evaluate = _validation_scorer(args, train_config, key, labels)
        pred, stats, minfo = methods.finetune_marked(train, test, key, labels, cfg, model_name=args.model,
                                                     window=args.window, evaluate=evaluate, early=early,
                                                     save_model=args.save_model)
        training = training_summary(stats, cfg, n_train=len(train), unit="examples",
                                    extra={"encoder": model_display_name(args.model), "window": args.window,
                                           "max_length": 128, "train_config": train_config,
                                           "validation": (f"wimcor/{train_config}/{args.validation_split}"
                                                          if early else None)})
        if args.save_model:
            save_trained(args.save_model, minfo["model"], minfo["tokenizer"], {"training": training,
                                                                              "command": _command()})
    throughput = {"train_examples_per_s": training["train_examples_per_s"],
                  "inference_examples_per_s": stats["inference_examples_per_s"]}
    options = {"window": training["window"], "train_steps": training["train_steps"], "epochs": training["epochs"],
               "epochs_run": training.get("epochs_run"), "best_epoch": training.get("best_epoch"),
               "batch_size": cfg.batch_size, "lr": cfg.lr, "max_steps": cfg.max_steps, "training": training,
               "n_train": training["n_train_examples"]}
    if args.load_model:
        options["scored_saved_model"] = args.load_model
    method = f"finetune_marked{training['window']}" + ("_earlystop" if training.get("early_stopping") else "")
    model = model_record(training["encoder"], type="fine-tuned encoder", parameters=minfo["parameters"],
                         train_steps=int(training["train_steps"]))
    return pred, throughput, options, model, method


def _validation_scorer(args, train_config: str, key: str, labels):
    """``evaluate(predict)``: the task's micro/macro F1 (no bootstrap) on the validation split."""
    from dataclasses import replace

    from figbench_baselines.common.scoring import benchmark_key, score_with_task
    from figbench_baselines.wimcor.data import load_split_examples

    from figbench.tasks import get_task

    loaded = load_split_examples(train_config, args.validation_split, args.data_dir)
    rows = loaded.examples
    task = get_task(TASK) if key == "label" else replace(get_task(TASK), label_column="coarse")

    def evaluate(predict) -> dict[str, float]:
        pred = predict(list(rows))
        ev = score_with_task(task, rows.gold_split(),
                             benchmark_key(TASK, "wimcor", train_config, args.validation_split),
                             {ex["id"]: p for ex, p in zip(rows, pred)}, n_resamples=0, seed=args.seed)
        return {k: v for k, v in ev.scores.items() if k in ("micro_f1", "macro_f1", "accuracy")}

    return evaluate


def _command() -> str:
    import shlex
    import sys
    from pathlib import Path

    return shlex.join([Path(sys.argv[0]).name, *sys.argv[1:]])
