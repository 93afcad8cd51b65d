"""``figbench baseline meta4xnli``: metaphor detection (token classification) and interpretation (NLI).

Detection settings are options of one command: monolingual (``--train en --test en``), multilingual
(``--train en+es``), zero-shot cross-lingual (``--train en --test es``), cross-domain
(``--train vua --test en``, ``--train cometa --test es``; also scored on every per-source set of the
test language, ``options.per_source_scores``) and per source side (``--part premises|hypotheses``).
NLI with ``--paper-settings``: non-relevant pairs left out, one model per language, lr 1e-5, max
length 512.
"""

from __future__ import annotations

import argparse

FAMILY = "meta4xnli"
#: task (figbench.tasks) -> its runner in this module; the --task choices
RUNNERS = {"metaphor_detection": "_run_detection", "metaphor_nli": "_run_nli"}
ALIASES = {"detection": "metaphor_detection", "nli": "metaphor_nli"}
#: Sanchez-Bayona & Agerri: 4 epochs, batch 8, lr 5e-5, weight decay 0.1, warm-up 6%, max length 128
PAPER = dict(epochs=4, batch_size=8, lr=5e-5, weight_decay=0.1, warmup_ratio=0.06)
MAX_LENGTH = 128
#: NLI as in the paper (``--paper-settings``): lr 1e-5, max length 512, non-relevant pairs out, a model per language
PAPER_NLI = dict(lr=1e-5, max_length=512)
#: quick CPU configurations: subsampled training, few steps; the full test split is always scored
#: (so the record can be submitted to the leaderboard, which needs every test id)
QUICK = {"metaphor_detection": dict(max_train=3200, max_steps=400, batch_size=8, lr=1e-4),
         "metaphor_nli": dict(max_train=500, max_steps=60, batch_size=8, lr=3e-4)}


def register(bsub: argparse._SubParsersAction) -> None:
    from figbench_baselines.common.inputs_only import add_inputs_option
    from figbench_baselines.common.runs import add_common_args, add_task_option, add_training_run_args

    p = bsub.add_parser("meta4xnli", help="Meta4XNLI metaphor detection and interpretation (NLI)",
                        description="Meta4XNLI baselines (Sanchez-Bayona & Agerri); one result record per run. "
                                    "Paper settings are the defaults; --quick is a small CPU configuration.")
    add_task_option(p, FAMILY, RUNNERS, aliases=ALIASES, default="metaphor_detection")
    p.add_argument("--method", choices=("token_clf", "lexicon"), default="token_clf",
                   help="detection: fine-tuned token classifier, or the most-frequent-tag lexicon of the "
                        "training split (no training; seconds on CPU)")
    p.add_argument("--train", default="en",
                   help="detection training corpora, '+'-joined from en, es, vua, cometa (default en)")
    p.add_argument("--test", default=None, choices=("en", "es", "vua", "cometa"),
                   help="detection evaluation corpus (default: the first training corpus)")
    p.add_argument("--part", choices=("premises", "hypotheses"), default=None,
                   help="detection: evaluate only on premise or hypothesis sentences of the test corpus")
    p.add_argument("--per-source", action="store_true",
                   help="detection: also score every per-source set (xnli_dev, xnli_test, esxnli; premises and "
                        "hypotheses) of the test language; automatic for cross-domain runs (VUA/CoMeta -> "
                        "Meta4XNLI), refused when training saw Meta4XNLI sentences")
    p.add_argument("--split", default="test", help="evaluation split (default test)")
    p.add_argument("--train-on", choices=("no_met", "all"), default="all",
                   help="nli: train on pairs without metaphors or on all pairs")
    p.add_argument("--lang", choices=("en", "es", "both"), default="both", help="nli: language of train and test pairs")
    p.add_argument("--paper-settings", action="store_true",
                   help="nli: the paper's protocol: non-relevant pairs excluded from training and test, one model "
                        "per language, lr 1e-5, max length 512 (explicit options still win)")
    p.add_argument("--max-length", type=int, default=None,
                   help=f"max sub-tokens per input (default {MAX_LENGTH}; 512 with --paper-settings)")
    p.add_argument("--max-train", type=int, default=None, help="subsample training sentences/pairs")
    p.add_argument("--max-test", type=int, default=None,
                   help="subsample evaluation sentences/pairs (each per-source set too)")
    p.add_argument("--eval-split", default="validation",
                   help="detection with --patience: the split of the training corpora early stopping scores "
                        "(default validation)")
    add_common_args(p, trained=True)
    add_inputs_option(p)
    add_training_run_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from figbench.results import RunClock

    clock = RunClock()
    if getattr(args, "paper_settings", False):
        if args.task != "metaphor_nli":
            raise ValueError("--paper-settings applies to --task metaphor_nli")
        for k, value in PAPER_NLI.items():
            if getattr(args, k) is None:
                setattr(args, k, value)
    if args.max_length is None:
        args.max_length = MAX_LENGTH
    if args.quick:
        for k, value in QUICK[args.task].items():
            if getattr(args, k) is None:
                setattr(args, k, value)
    return globals()[RUNNERS[args.task]](args, clock)


def _finish(args, clock, *, ev, config: str, model: dict, predictions: dict, throughput: dict, method: str,
            counts: dict, options: dict) -> int:
    from figbench_baselines.common.figurative import is_main_process, write_predictions
    from figbench_baselines.common.runs import finish_run

    from figbench.results import make_result, provenance

    if not is_main_process():
        return 0
    path = write_predictions(args.predictions_file, predictions)
    record = make_result(task=ev.task.name, dataset="meta4xnli", config=config, split=args.split, model=model,
                         scores=ev.scores, confidence_intervals=ev.confidence_intervals,
                         predictions=None if path else predictions, predictions_path=path,
                         provenance=provenance(clock, seed=args.seed, throughput=throughput),
                         method=method, counts={**ev.counts, **counts}, options=options)
    finish_run(record, args)
    return 0


def _model_block(args, model, stats, encoder: str | None = None) -> dict:
    from figbench_baselines.common.encoder import model_display_name
    from figbench_baselines.common.figurative import model_record, n_parameters

    return model_record(encoder or model_display_name(args.model), type="fine-tuned encoder",
                        parameters=n_parameters(model), train_steps=int(stats["train_steps"]))


def _score_detection(train, test, pred, config: str, split: str, *, n_resamples: int, seed: int):
    """The task's scores of ``pred`` on ``test`` (Rows), plus in-/out-of-vocabulary scores at both levels."""
    from figbench_baselines.common.scoring import benchmark_key, score_with_task

    from figbench.scoring.vocab_spans import score_vocab
    from figbench.tasks import get_task

    task = get_task("metaphor_detection")
    ev = score_with_task(task, test.gold_split(), benchmark_key(task.name, "meta4xnli", config, split),
                         {r["id"]: t for r, t in zip(test, pred)}, n_resamples=n_resamples, seed=seed)
    ev.add(score_vocab([r["tokens"] for r in train], [r["tags"] for r in train], [r["tokens"] for r in test],
                       [r["tags"] for r in test], pred, n_resamples=n_resamples, seed=seed))
    return ev


def _per_source(args, corpora, test_corpus, predict, train) -> dict[str, dict[str, float]]:
    """Scores (no intervals) of the trained model on every per-source set of the test language (each capped
    at ``--max-test`` sentences, like the test set)."""
    from figbench_baselines.meta4xnli.data import CORPUS_LANG, load_source_sets

    if set(corpora) & {"en", "es"}:
        raise ValueError("--per-source scores sentences of every Meta4XNLI split (train included); the model "
                         f"was trained on {'+'.join(corpora)}, so only cross-domain runs (vua, cometa) may use it")
    out = {}
    for (config, split), rows in load_source_sets(CORPUS_LANG[test_corpus], args.data_dir).items():
        rows = rows.sample(args.max_test, args.seed)  # --max-test caps every evaluation set
        ev = _score_detection(train, rows, predict(rows), config, split, n_resamples=0, seed=args.seed)
        out[f"meta4xnli/{config}/{split}"] = {**ev.scores, "n_sentences": float(len(rows))}
    return out


def _run_detection(args, clock) -> int:
    from figbench_baselines.common.early_stopping import phase, save_trained
    from figbench_baselines.common.encoder import model_display_name
    from figbench_baselines.common.figurative import early_stopping_from_args, subsample, training_summary
    from figbench_baselines.common.runs import train_config_from_args
    from figbench_baselines.meta4xnli import methods as M
    from figbench_baselines.meta4xnli.data import CORPUS_CONFIG, check_corpus, load_detection

    corpora = [c for c in args.train.split("+") if c]
    unknown = [c for c in corpora if c not in CORPUS_CONFIG]
    if not corpora or unknown:
        raise ValueError(f"--train {args.train!r}: unknown corpora {unknown}; use en, es, vua, cometa joined by '+'")
    test_corpus = args.test or corpora[0]
    check_corpus(test_corpus, args.part)
    train = []
    tags = None
    for c in corpora:
        rows = load_detection(c, "train", args.data_dir)
        tags = tags or _tag_set(rows)
        M.check_tags(rows, f"meta4xnli/{c}/train", tags)
        train += rows
    if args.inputs_file:   # a hidden benchmark's sentences: tags predicted for every one, nothing scored
        from figbench_baselines.common import inputs_only as io

        io.refuse_subsets(args, max_test=args.max_test, part=args.part, per_source=args.per_source,
                          predictions_file=args.predictions_file, submit=args.submit)
        test = io.task_inputs(args.inputs_file, "metaphor_detection")
    else:
        test = load_detection(test_corpus, args.split, args.data_dir, part=args.part)
        M.check_tags(test, f"meta4xnli/{test_corpus}/{args.split}", tags)
    train = subsample(train, args.max_train, args.seed)
    test = test.sample(args.max_test, args.seed)
    if not any(t != "O" for r in train for t in r["tags"]):
        raise ValueError("meta4xnli detection: the training sentences hold no metaphor tag")
    setting = ("monolingual" if corpora == [test_corpus] else "multilingual" if len(corpora) > 1
               else "cross-domain" if corpora[0] in ("vua", "cometa") or test_corpus in ("vua", "cometa")
               else "cross-lingual")
    per_source = not args.inputs_file and (args.per_source or (setting == "cross-domain"
                                                               and test_corpus in ("en", "es")))
    suffix = f"_{args.part}" if args.part else ""
    config = CORPUS_CONFIG[test_corpus]

    if args.method == "lexicon":
        return _run_lexicon(args, clock, corpora, test_corpus, train, test, per_source)
    cfg = train_config_from_args(args, **PAPER)
    early = early_stopping_from_args(args, "f1", args.eval_split)
    if args.load_model:
        tok, model, training = _load_saved(args.load_model, "token_classification")
    else:
        evaluate = _validation_scorer(corpora, args) if early is not None else None
        tok, model, tstats = M.train_token_classifier(train, cfg, tags=tags, model_name=args.model,
                                                      max_length=args.max_length, evaluate=evaluate, early=early)
        training = training_summary(tstats, cfg, n_train=len(train), unit="sentences",
                                    extra={"encoder": model_display_name(args.model), "max_length": args.max_length,
                                           "validation": ({c: f"meta4xnli/{CORPUS_CONFIG[c]}/{args.eval_split}"
                                                           for c in corpora} if early else None)})
        if args.save_model:
            save_trained(args.save_model, model, tok, {"training": training, "command": _command()})
    with phase(f"predict {len(test)} test sentences"):
        pred, istats = M.predict_tags(tok, model, test, max_length=args.max_length)
    early_stopped = bool(training.get("early_stopping"))
    method = f"token_clf_{'+'.join(corpora)}_to_{test_corpus}{suffix}" + ("_earlystop" if early_stopped else "")
    model_block = _model_block(args, model, {"train_steps": training["train_steps"]}, encoder=training.get("encoder"))
    if args.inputs_file:
        return _submission(args, clock, "metaphor_detection", config, model_block, method,
                           {r["id"]: t for r, t in zip(test, pred)},
                           {"inference_examples_per_s": istats["inference_examples_per_s"]})
    with phase(f"score (task scores and vocabulary scores, {args.n_resamples} bootstrap resamples)"):
        ev = _score_detection(train, test, pred, config, args.split, n_resamples=args.n_resamples, seed=args.seed)
    options = {"setting": setting, "train": corpora, "test": test_corpus, "part": args.part,
               "epochs": training["epochs"], "epochs_run": training.get("epochs_run"),
               "best_epoch": training.get("best_epoch"), "batch_size": cfg.batch_size, "lr": cfg.lr,
               "weight_decay": cfg.weight_decay, "warmup_ratio": cfg.warmup_ratio, "max_steps": cfg.max_steps,
               "max_length": args.max_length, "quick": bool(args.quick), "training": training}
    if args.load_model:
        options["scored_saved_model"] = args.load_model
    if per_source:
        options["per_source_scores"] = _per_source(
            args, corpora, test_corpus, lambda rows: M.predict_tags(tok, model, rows, max_length=args.max_length)[0],
            train)
    return _finish(
        args, clock, ev=ev, config=config, model=model_block,
        predictions={r["id"]: t for r, t in zip(test, pred)},
        throughput={"train_examples_per_s": training["train_examples_per_s"],
                    "inference_examples_per_s": istats["inference_examples_per_s"]},
        method=method,
        counts={"n_train_sentences": training["n_train_sentences"], "n_test_sentences": len(test),
                "n_test_tokens": sum(len(r["tokens"]) for r in test)},
        options=options)


def _submission(args, clock, task: str, config: str, model: dict, method: str, predictions: dict,
                throughput: dict) -> int:
    """An ``--inputs-file`` run's predictions file (for the benchmark named beside the inputs)."""
    from figbench_baselines.common.inputs_only import write_submission

    return write_submission(args, task, {"dataset": FAMILY, "config": config, "split": args.split}, model=model,
                            method=method, predictions=predictions, clock=clock, throughput=throughput)


def _command() -> str:
    import shlex
    import sys
    from pathlib import Path

    return shlex.join([Path(sys.argv[0]).name, *sys.argv[1:]])


def _load_saved(path: str, kind: str):
    """(tokenizer, model, training summary) of a model saved with --save-model."""
    from figbench_baselines.common.early_stopping import load_training_info, phase
    from figbench_baselines.common.encoder import load_tokenizer_and_model
    from figbench_baselines.common.figurative import set_threads
    from transformers import AutoModelForSequenceClassification, AutoModelForTokenClassification

    set_threads()
    info = load_training_info(path)
    cls = AutoModelForTokenClassification if kind == "token_classification" else AutoModelForSequenceClassification
    with phase(f"load the saved model {path}"):
        tok, model = load_tokenizer_and_model(path, cls)
    model.eval()
    model._figbench_finetuned = True
    return tok, model, {**info["training"], "trained_by": info.get("command")}


def _validation_scorer(corpora, args):
    """``evaluate(tok, model)``: span F1 (the task's, no bootstrap) on the validation split of every training
    corpus (their mean when there are several)."""
    from figbench_baselines.common.scoring import benchmark_key, score_with_task
    from figbench_baselines.meta4xnli import methods as M
    from figbench_baselines.meta4xnli.data import CORPUS_CONFIG, load_detection

    from figbench.tasks import get_task

    task = get_task("metaphor_detection")
    sets = {c: load_detection(c, args.eval_split, args.data_dir) for c in corpora}

    def evaluate(tok, model) -> dict[str, float]:
        out: dict[str, float] = {}
        for c, rows in sets.items():
            pred, _ = M.predict_tags(tok, model, rows, max_length=args.max_length)
            ev = score_with_task(task, rows.gold_split(),
                                 benchmark_key(task.name, "meta4xnli", CORPUS_CONFIG[c], args.eval_split),
                                 {r["id"]: t for r, t in zip(rows, pred)}, n_resamples=0, seed=args.seed)
            out.update({f"{c}_{k}": v for k, v in ev.scores.items() if k in ("f1", "precision", "recall", "token_f1")})
        out["f1"] = sum(out[f"{c}_f1"] for c in sets) / len(sets)
        return out

    return evaluate


def _tag_set(rows) -> list[str]:
    """The tag names of a detection split (the builder's ``ClassLabel``, in id order)."""
    from figbench.labels import label_names

    return list(label_names(rows.split, "tags"))


def _run_lexicon(args, clock, corpora, test_corpus, train, test, per_source: bool) -> int:
    import time

    from figbench_baselines.common.figurative import model_record, rate
    from figbench_baselines.meta4xnli import methods as M
    from figbench_baselines.meta4xnli.data import CORPUS_CONFIG

    t0 = time.perf_counter()
    lexicon = M.most_frequent_tags(train)
    t1 = time.perf_counter()
    pred = M.lexicon_predict(lexicon, test)
    t2 = time.perf_counter()
    config = CORPUS_CONFIG[test_corpus]
    suffix = f"_{args.part}" if args.part else ""
    model = model_record("most-frequent-tag lexicon", type="heuristic", parameters=0)
    method = f"lexicon_{'+'.join(corpora)}_to_{test_corpus}{suffix}"
    if args.inputs_file:
        return _submission(args, clock, "metaphor_detection", config, model, method,
                           {r["id"]: t for r, t in zip(test, pred)},
                           {"inference_examples_per_s": rate(len(test), t2 - t1)})
    ev = _score_detection(train, test, pred, config, args.split, n_resamples=args.n_resamples, seed=args.seed)
    options = {"train": corpora, "test": test_corpus, "part": args.part}
    if per_source:
        options["per_source_scores"] = _per_source(args, corpora, test_corpus,
                                                   lambda rows: M.lexicon_predict(lexicon, rows), train)
    return _finish(
        args, clock, ev=ev, config=config, model=model,
        predictions={r["id"]: t for r, t in zip(test, pred)},
        throughput={"train_examples_per_s": rate(len(train), t1 - t0),
                    "inference_examples_per_s": rate(len(test), t2 - t1)},
        method=method,
        counts={"n_train_sentences": len(train), "n_test_sentences": len(test), "lexicon_size": len(lexicon)},
        options=options)


def _run_nli(args, clock) -> int:
    from figbench_baselines.common.figurative import require_rows, subsample
    from figbench_baselines.common.runs import train_config_from_args
    from figbench_baselines.common.scoring import benchmark_key, score_with_task
    from figbench_baselines.meta4xnli import methods as M
    from figbench_baselines.meta4xnli.data import load_nli

    from figbench.labels import label_names
    from figbench.tasks import get_task

    train = load_nli("train", args.data_dir)
    if args.inputs_file:   # a hidden benchmark's pairs: every one predicted (none left out), nothing scored
        from figbench_baselines.common import inputs_only as io

        io.refuse_subsets(args, max_test=args.max_test, lang=args.lang != "both",
                          predictions_file=args.predictions_file, submit=args.submit)
        test = io.task_inputs(args.inputs_file, "metaphor_nli")
    else:
        test = load_nli(args.split, args.data_dir)
    labels = list(label_names(train.split, "gold_label"))
    if args.lang != "both":
        train = train.where(lambda r: r["language"] == args.lang)
        test = test.where(lambda r: r["language"] == args.lang)
    if args.paper_settings:
        train = train.where(M.is_relevant)
        test = test if args.inputs_file else test.where(M.is_relevant)
    train = M.select_training(train, args.train_on)
    require_rows(train, f"meta4xnli/interpretation/train ({args.train_on}, {args.lang})")
    require_rows(test, f"meta4xnli/interpretation/{args.split} ({args.lang})")
    M.nli_label_check(train, [] if args.inputs_file else test, labels)
    train = subsample(train, args.max_train, args.seed)
    test = test.sample(args.max_test, args.seed)

    cfg = train_config_from_args(args, **PAPER)
    # one model for every pair, or (paper settings) one model per language
    langs = sorted({r["language"] for r in test}) if args.paper_settings else [None]
    pred_of: dict[str, str] = {}
    steps, train_rates, inf_rates, models = 0, [], [], []
    for lang in langs:
        tr = [r for r in train if lang is None or r["language"] == lang]
        te = [r for r in test if lang is None or r["language"] == lang]
        require_rows(tr, f"meta4xnli/interpretation/train ({args.train_on}, {lang})")
        tok, model, tstats = M.train_nli(tr, cfg, labels=labels, model_name=args.model, max_length=args.max_length)
        pred, istats = M.predict_nli(tok, model, te, max_length=args.max_length)
        pred_of.update({r["id"]: p for r, p in zip(te, pred)})
        steps += int(tstats["train_steps"])
        train_rates.append(tstats["train_examples_per_s"])
        inf_rates.append(istats["inference_examples_per_s"])
        models.append(model)
    predictions = {r["id"]: pred_of[r["id"]] for r in test}
    model_block = _model_block(args, models[0], {"train_steps": steps})
    method = (f"nli_train_{args.train_on}" + ("" if args.lang == "both" else f"_{args.lang}")
              + ("_paper" if args.paper_settings else ""))
    if args.inputs_file:
        return _submission(args, clock, "metaphor_nli", "interpretation", model_block, method, predictions,
                           {"inference_examples_per_s": sum(inf_rates) / len(inf_rates)})
    task = get_task("metaphor_nli")
    ev = score_with_task(task, test.gold_split(), benchmark_key(task.name, "meta4xnli", "interpretation", args.split),
                         predictions, n_resamples=args.n_resamples, seed=args.seed)
    return _finish(
        args, clock, ev=ev, config="interpretation", model=model_block, predictions=predictions,
        # one model: its rates; one per language: their mean
        throughput={"train_examples_per_s": sum(train_rates) / len(train_rates),
                    "inference_examples_per_s": sum(inf_rates) / len(inf_rates)},
        method=method,
        counts={"n_train": len(train), "n_test": len(test)},
        options={"train_on": args.train_on, "lang": args.lang, "paper_settings": bool(args.paper_settings),
                 "models": [lang or "all" for lang in langs], "non_relevant_excluded": bool(args.paper_settings),
                 "epochs": cfg.epochs, "batch_size": cfg.batch_size, "lr": cfg.lr, "max_steps": cfg.max_steps,
                 "max_length": args.max_length, "quick": bool(args.quick)})
