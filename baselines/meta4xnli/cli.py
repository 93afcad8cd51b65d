"""``figbench baseline meta4xnli``: metaphor detection (token classification) and interpretation (NLI).

Detection settings are options of one command: monolingual (``--train en --test en``), multilingual
(``--train en+es``), zero-shot cross-lingual (``--train en --test es``), cross-domain
(``--train vua --test en``, ``--train cometa --test es``) and per source side
(``--part premises|hypotheses``).
"""

from __future__ import annotations

import argparse

#: Sanchez-Bayona & Agerri: 4 epochs, batch 8, lr 5e-5, weight decay 0.1, warm-up 6%, max length 128
PAPER = dict(epochs=4, batch_size=8, lr=5e-5, weight_decay=0.1, warmup_ratio=0.06)
#: quick CPU configurations: subsampled training, few steps; the full test split is always scored
#: (so the record can be submitted to the leaderboard, which needs every test id)
QUICK = {"detection": dict(max_train=3200, max_steps=400, batch_size=8, lr=1e-4),
         "nli": dict(max_train=500, max_steps=60, batch_size=8, lr=3e-4)}


def register(bsub: argparse._SubParsersAction) -> None:
    from figbench_baselines.common.runs import add_common_args

    p = bsub.add_parser("meta4xnli", help="Meta4XNLI metaphor detection and interpretation (NLI)",
                        description="Meta4XNLI baselines (Sanchez-Bayona & Agerri); one result record per run. "
                                    "Paper settings are the defaults; --quick is a small CPU configuration.")
    p.add_argument("--task", choices=("detection", "nli"), default="detection")
    p.add_argument("--method", choices=("token_clf", "lexicon"), default="token_clf",
                   help="detection: fine-tuned token classifier, or the most-frequent-tag lexicon of the "
                        "training split (no training; seconds on CPU)")
    p.add_argument("--train", default="en",
                   help="detection training corpora, '+'-joined from en, es, vua, cometa (default en)")
    p.add_argument("--test", default=None, choices=("en", "es", "vua", "cometa"),
                   help="detection evaluation corpus (default: the first training corpus)")
    p.add_argument("--part", choices=("premises", "hypotheses"), default=None,
                   help="detection: evaluate only on premise or hypothesis sentences of the test corpus")
    p.add_argument("--split", default="test", help="evaluation split (default test)")
    p.add_argument("--train-on", choices=("no_met", "all"), default="all",
                   help="nli: train on pairs without metaphors or on all pairs")
    p.add_argument("--lang", choices=("en", "es", "both"), default="both", help="nli: language of train and test pairs")
    p.add_argument("--max-length", type=int, default=128)
    p.add_argument("--max-train", type=int, default=None, help="subsample training sentences/pairs")
    p.add_argument("--max-test", type=int, default=None, help="subsample evaluation sentences/pairs")
    add_common_args(p, trained=True)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from figbench.results import RunClock

    clock = RunClock()
    if args.quick:
        for k, value in QUICK[args.task].items():
            if getattr(args, k) is None:
                setattr(args, k, value)
    return (_run_detection if args.task == "detection" else _run_nli)(args, clock)


def _finish(args, clock, **kw) -> int:
    from figbench.results import make_result, provenance
    from figbench_baselines.common.figurative import write_predictions
    from figbench_baselines.common.runs import finish_run

    from figbench_baselines.common.figurative import is_main_process

    if not is_main_process():
        return 0
    path = write_predictions(args.predictions_file, kw["predictions"])
    record = make_result(task=kw["task"], dataset="meta4xnli", config=kw["config"], split=args.split,
                         model=kw["model"], scores=kw["scores"], confidence_intervals=kw["cis"],
                         predictions=None if path else kw["predictions"], predictions_path=path,
                         provenance=provenance(clock, seed=args.seed, throughput=kw["throughput"]),
                         method=kw["method"], counts=kw["counts"], options=kw["options"])
    finish_run(record, args)
    return 0


def _model_block(args, model, stats) -> dict:
    from figbench_baselines.common.encoder import model_display_name
    from figbench_baselines.common.figurative import model_record, n_parameters

    return model_record(model_display_name(args.model), type="fine-tuned encoder", parameters=n_parameters(model),
                        train_steps=int(stats["train_steps"]))


def _run_detection(args, clock) -> int:
    from figbench_baselines.common.figurative import bootstrap_scores, subsample
    from figbench_baselines.common.runs import train_config_from_args
    from figbench_baselines.meta4xnli import methods as M
    from figbench_baselines.meta4xnli.data import CORPUS_CONFIG, load_detection

    corpora = [c for c in args.train.split("+") if c]
    unknown = [c for c in corpora if c not in CORPUS_CONFIG]
    if not corpora or unknown:
        raise ValueError(f"--train {args.train!r}: unknown corpora {unknown}; use en, es, vua, cometa joined by '+'")
    test_corpus = args.test or corpora[0]
    train = []
    for c in corpora:
        rows = load_detection(c, "train", args.data_dir)
        M.check_tags(rows, f"meta4xnli/{c}/train")
        train += rows
    test = load_detection(test_corpus, args.split, args.data_dir, part=args.part)
    M.check_tags(test, f"meta4xnli/{test_corpus}/{args.split}")
    train = subsample(train, args.max_train, args.seed)
    test = subsample(test, args.max_test, args.seed)
    if not any(t != "O" for r in train for t in r["tags"]):
        raise ValueError("meta4xnli detection: the training sentences hold no metaphor tag")

    if args.method == "lexicon":
        return _run_lexicon(args, clock, corpora, test_corpus, train, test)
    cfg = train_config_from_args(args, **PAPER)
    tok, model, tstats = M.train_token_classifier(train, cfg, model_name=args.model, max_length=args.max_length)
    pred, istats = M.predict_tags(tok, model, test, max_length=args.max_length)
    scores = M.detection_scores(train, test, pred)
    vocab_rows = M.metaphor_vocabulary_rows(train)
    cis = bootstrap_scores(len(test), lambda idx: M.detection_scores(vocab_rows, test, pred, idx=idx),
                           n_resamples=args.n_resamples, seed=args.seed, unit="sentences")
    setting = ("monolingual" if corpora == [test_corpus] else "multilingual" if len(corpora) > 1
               else "cross-domain" if corpora[0] in ("vua", "cometa") or test_corpus in ("vua", "cometa")
               else "cross-lingual")
    method = f"token_clf_{'+'.join(corpora)}_to_{test_corpus}" + (f"_{args.part}" if args.part else "")
    config = CORPUS_CONFIG[test_corpus]
    return _finish(
        args, clock, task="metaphor_detection", config=config, model=_model_block(args, model, tstats),
        scores=scores, cis=cis, predictions={r["id"]: t for r, t in zip(test, pred)},
        throughput={"train_examples_per_s": tstats["train_examples_per_s"],
                    "inference_examples_per_s": istats["inference_examples_per_s"]},
        method=method,
        counts={"n_train_sentences": len(train), "n_test_sentences": len(test),
                "n_test_tokens": sum(len(r["tokens"]) for r in test)},
        options={"setting": setting, "train": corpora, "test": test_corpus, "part": args.part,
                 "epochs": cfg.epochs, "batch_size": cfg.batch_size, "lr": cfg.lr, "weight_decay": cfg.weight_decay,
                 "warmup_ratio": cfg.warmup_ratio, "max_steps": cfg.max_steps, "max_length": args.max_length,
                 "quick": bool(args.quick)})


def _run_lexicon(args, clock, corpora, test_corpus, train, test) -> int:
    import time

    from figbench_baselines.common.figurative import bootstrap_scores, model_record, rate
    from figbench_baselines.meta4xnli import methods as M
    from figbench_baselines.meta4xnli.data import CORPUS_CONFIG

    t0 = time.perf_counter()
    lexicon = M.most_frequent_tags(train)
    t1 = time.perf_counter()
    pred = M.lexicon_predict(lexicon, test)
    t2 = time.perf_counter()
    scores = M.detection_scores(train, test, pred)
    vocab_rows = M.metaphor_vocabulary_rows(train)
    cis = bootstrap_scores(len(test), lambda idx: M.detection_scores(vocab_rows, test, pred, idx=idx),
                           n_resamples=args.n_resamples, seed=args.seed, unit="sentences")
    suffix = f"_{args.part}" if args.part else ""
    return _finish(
        args, clock, task="metaphor_detection", config=CORPUS_CONFIG[test_corpus],
        model=model_record("most-frequent-tag lexicon", type="heuristic", parameters=0),
        scores=scores, cis=cis, predictions={r["id"]: t for r, t in zip(test, pred)},
        throughput={"train_examples_per_s": rate(len(train), t1 - t0),
                    "inference_examples_per_s": rate(len(test), t2 - t1)},
        method=f"lexicon_{'+'.join(corpora)}_to_{test_corpus}{suffix}",
        counts={"n_train_sentences": len(train), "n_test_sentences": len(test), "lexicon_size": len(lexicon)},
        options={"train": corpora, "test": test_corpus, "part": args.part})


def _run_nli(args, clock) -> int:
    import numpy as np

    from figbench_baselines.common.figurative import bootstrap_scores, require_rows, subsample
    from figbench_baselines.common.runs import train_config_from_args
    from figbench_baselines.meta4xnli import methods as M
    from figbench_baselines.meta4xnli.data import load_nli

    train = load_nli("train", args.data_dir)
    test = load_nli(args.split, args.data_dir)
    if args.lang != "both":
        train = [r for r in train if r["language"] == args.lang]
        test = [r for r in test if r["language"] == args.lang]
    train = M.select_training(train, args.train_on)
    require_rows(train, f"meta4xnli/interpretation/train ({args.train_on}, {args.lang})")
    require_rows(test, f"meta4xnli/interpretation/{args.split} ({args.lang})")
    M.nli_label_check(train, test)
    train = subsample(train, args.max_train, args.seed)
    test = subsample(test, args.max_test, args.seed)

    cfg = train_config_from_args(args, **PAPER)
    tok, model, tstats = M.train_nli(train, cfg, model_name=args.model, max_length=args.max_length)
    pred, istats = M.predict_nli(tok, model, test, max_length=args.max_length)
    correct = np.array([p == r["gold_label"] for p, r in zip(pred, test)], dtype=float)
    groups = M.nli_groups(test)
    scores = M.nli_accuracies(correct, groups)
    cis = bootstrap_scores(len(test), lambda idx: M.nli_accuracies(correct, groups, idx),
                           n_resamples=args.n_resamples, seed=args.seed, unit="pairs")
    cis = {k: v for k, v in cis.items() if k in scores}
    return _finish(
        args, clock, task="metaphor_nli", config="interpretation", model=_model_block(args, model, tstats),
        scores=scores, cis=cis, predictions={r["id"]: p for r, p in zip(test, pred)},
        throughput={"train_examples_per_s": tstats["train_examples_per_s"],
                    "inference_examples_per_s": istats["inference_examples_per_s"]},
        method=f"nli_train_{args.train_on}" + ("" if args.lang == "both" else f"_{args.lang}"),
        counts={"n_train": len(train), "n_test": len(test),
                **{f"n_test{k}": float(v.sum()) for k, v in groups.items() if k}},
        options={"train_on": args.train_on, "lang": args.lang, "epochs": cfg.epochs, "batch_size": cfg.batch_size,
                 "lr": cfg.lr, "max_steps": cfg.max_steps, "max_length": args.max_length, "quick": bool(args.quick)})
