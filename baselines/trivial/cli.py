"""``figbench baseline trivial``: the trivial baselines a task's kind offers, on any benchmark split."""

from __future__ import annotations

import argparse


def register(bsub: argparse._SubParsersAction) -> None:
    from figbench_baselines.common.runs import add_common_args

    p = bsub.add_parser("trivial", help="trivial baselines of any task (majority, random, prior; singletons, "
                                        "one cluster per topic)",
                        description="Predict a split with a trivial baseline its task's kind offers "
                                    "(figbench.tasks.kinds: trivial_baselines) and write a result record.")
    p.add_argument("--task", required=True, help="a task of figbench.tasks.TASKS")
    p.add_argument("--dataset", required=True)
    p.add_argument("--config", default=None, help="builder config (default: the builder's default)")
    p.add_argument("--split", default="test")
    p.add_argument("--method", required=True, help="one of the task kind's trivial_baselines")
    p.add_argument("--train-split", default="train", help="where label baselines take their label counts")
    p.add_argument("--label-column", default=None,
                   help="label tasks: score this column instead of the task's (e.g. WiMCor's coarse labels)")
    p.add_argument("--record-method", default=None,
                   help="the record's method (its leaderboard name figbench-<method>; default --method)")
    p.add_argument("--max-test", type=int, default=None, help="score a seeded subsample of N examples")
    p.add_argument("--inputs-file", default=None, metavar="FILE",
                   help="a hidden benchmark's inputs (inputs.jsonl/.parquet, no gold): predict it and write a "
                        "submittable predictions file to --out (label counts from --dataset's --train-split)")
    add_common_args(p)
    p.set_defaults(func=run)


def _task(args: argparse.Namespace):
    from dataclasses import replace

    from figbench.tasks import get_task

    task = get_task(args.task)
    if args.method not in task.trivial_baselines:
        offered = ", ".join(task.trivial_baselines) or "none"
        raise ValueError(f"task {task.name} ({task.kind}) offers no trivial baseline {args.method!r}; "
                         f"it offers: {offered}")
    if args.label_column:
        if not hasattr(task, "label_column"):
            raise ValueError(f"--label-column: task {task.name} ({task.kind}) has no label column")
        task = replace(task, label_column=args.label_column)
    return task


def _unit_counts(task, gold, clusters: list[list[str]]) -> dict:
    """``unit_counts``: the metric counts of each gold group (e.g. topic) of a clustering split with several,
    which the paired drop of :mod:`figbench_baselines.cdec.steps.compare` reads; none for one group."""
    from figbench_baselines.cdec.steps.compare import unit_counts

    if not gold.groups or len(set(gold.groups.values())) < 2:
        return {}
    cluster_of = {m: i for i, c in enumerate(gold.clusters) for m in c}
    rows = [{"mention_id": m, "cluster_id": cluster_of[m], task.group_column: gold.groups[m]} for m in gold.ids]
    return {"unit_counts": unit_counts(rows, clusters, by=task.group_column)}


def _inputs_only(args: argparse.Namespace, task, config: str, clock) -> int:
    """Predict a hidden benchmark's inputs file with a trivial baseline: a predictions file to submit."""
    from types import SimpleNamespace

    from figbench_baselines.common import inputs_only as io
    from figbench_baselines.common.figurative import model_record
    from figbench_baselines.common.splits import load_splits

    from figbench.results import provenance

    if not args.out:
        raise ValueError("--inputs-file: --out FILE (the predictions file to submit) is required")
    rows = io.read_inputs(args.inputs_file)
    id_col = getattr(task, "mention_column", None) or getattr(task, "id_column", None)
    missing = [i for i, r in enumerate(rows) if id_col not in r]
    if id_col is None or missing:
        raise ValueError(f"{args.inputs_file}: row #{missing[0] if missing else 0} lacks the {task.name} id column "
                         f"{id_col!r}")
    group = getattr(task, "group_column", None)
    ids = tuple(str(r[id_col]) for r in rows)
    inputs = SimpleNamespace(key=args.inputs_file, ids=ids,
                             groups={str(r[id_col]): str(r[group]) for r in rows if group and group in r} or None)
    train = None
    if task.kind == "label":
        splits = load_splits(args.dataset, config, args.data_dir)
        if args.train_split not in splits:
            raise ValueError(f"{args.dataset}/{config} has no {args.train_split!r} split for the {args.method} "
                             f"baseline's label counts (splits: {sorted(splits)})")
        train = task.gold_from_dataset(splits[args.train_split], f"{args.dataset}/{config}/{args.train_split}")
    predictions = task.trivial_predictions(args.method, inputs, train, seed=args.seed)
    bench = io.benchmark_of(args.inputs_file, task.name, {"dataset": args.dataset, "config": config,
                                                          "split": args.split})
    method = args.record_method or args.method
    io.write_predictions_file(io.predictions_file(bench, model_record(method, type="heuristic", parameters=0),
                                                  method, predictions, provenance(clock, seed=args.seed)), args.out)
    return 0


def run(args: argparse.Namespace) -> int:
    from figbench_baselines.common.figurative import model_record, write_predictions
    from figbench_baselines.common.runs import finish_run
    from figbench_baselines.common.scoring import benchmark_key, score_with_task
    from figbench_baselines.common.splits import load_splits, sample_indices

    from figbench.loading import builder_configs
    from figbench.results import RunClock, make_result, provenance

    clock = RunClock()
    task = _task(args)
    config = args.config or builder_configs(args.dataset)[1]
    if args.inputs_file:
        return _inputs_only(args, task, config, clock)
    splits = load_splits(args.dataset, config, args.data_dir)
    where = f"{args.dataset}/{config}"
    if args.split not in splits:
        raise ValueError(f"{where} has no {args.split!r} split (splits: {sorted(splits)})")
    test = splits[args.split]
    if args.max_test is not None:
        test = test.select(sample_indices(len(test), args.max_test, args.seed))
    key = benchmark_key(task.name, args.dataset, config, args.split)
    gold = task.gold_from_dataset(test, key)
    train = None
    counts: dict[str, float] = {"n_test": float(len(gold.ids))}
    if task.kind == "label":
        if args.train_split not in splits:
            raise ValueError(f"{where} has no {args.train_split!r} split for the {args.method} baseline's label "
                             f"counts (splits: {sorted(splits)})")
        train = task.gold_from_dataset(splits[args.train_split], f"{where}/{args.train_split}")
        counts.update(n_train=float(len(train.ids)), n_labels=float(len(gold.label_set)))
    predictions = task.trivial_predictions(args.method, gold, train, seed=args.seed)
    ev = score_with_task(task, test, key, predictions, n_resamples=args.n_resamples, seed=args.seed)
    method = args.record_method or args.method
    options = {"trivial": args.method, "train_split": args.train_split if train is not None else None}
    if args.label_column:
        options["label_column"] = args.label_column
    if task.kind == "clustering":
        options.update(_unit_counts(task, gold, predictions))
    record = make_result(
        task=task.name, dataset=args.dataset, config=config, split=args.split,
        model=model_record(method, type="heuristic", parameters=0),
        scores=ev.scores, confidence_intervals=ev.confidence_intervals,
        predictions=predictions if not args.predictions_file else None,
        predictions_path=write_predictions(args.predictions_file, predictions),
        provenance=provenance(clock, seed=args.seed), method=method,
        counts={**counts, **ev.counts}, options=options)
    finish_run(record, args)
    return 0
