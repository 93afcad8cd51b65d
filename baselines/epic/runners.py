"""The four ePiC runs behind ``figbench baseline epic --task ...``; each writes one result record."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np
from figbench_baselines.common.figurative import (
    load_encoder,
    model_record,
    n_parameters,
    skip_summary,
    subsample,
    write_predictions,
)
from figbench_baselines.common.scoring import Evaluation, benchmark_key, extra_scores, score_with_task


def _score(args, task_name: str, config: str, rows, predictions: Any) -> Evaluation | None:
    """The task's scores of ``predictions`` on the split ``rows`` come from (the leaderboard's); None for an
    ``--inputs-file`` run (no gold: nothing is scored)."""
    from figbench.tasks import get_task

    if args.inputs_file:
        return None
    return score_with_task(get_task(task_name), rows.gold_split(), benchmark_key(task_name, "epic", config, "test"),
                           predictions, n_resamples=args.n_resamples, seed=args.seed)


def _finish(args, clock, *, task: str, ev: Evaluation | None, config: str, model: dict, predictions: Any,
            throughput: dict, method: str, counts: dict, options: dict, summary=None) -> int:
    """The result record; for an ``--inputs-file`` run the predictions file to submit instead."""
    from figbench_baselines.common.figurative import is_main_process
    from figbench_baselines.common.inputs_only import write_submission
    from figbench_baselines.common.runs import finish_run

    from figbench.results import make_result, provenance

    if args.inputs_file:
        return write_submission(args, task, {"dataset": "epic", "config": config, "split": "test"}, model=model,
                                method=method, predictions=predictions, clock=clock, throughput=throughput)
    if not is_main_process():
        return 0
    path = write_predictions(args.predictions_file, predictions)
    record = make_result(task=task, dataset="epic", config=config, split="test", model=model,
                         scores=ev.scores, confidence_intervals=ev.confidence_intervals,
                         predictions=None if path else predictions, predictions_path=path,
                         provenance=provenance(clock, seed=args.seed, throughput=throughput), method=method,
                         counts={**ev.counts, **counts}, options={**options, "quick": bool(args.quick)})
    finish_run(record, args, summary)
    return 0


def _with_inputs(args, data, task: str, **refused):
    """``data`` with its test rows: the config's test split (``--max-test`` of it), or for ``--inputs-file`` a hidden
    benchmark's rows (gold removed; the public train split and candidate proverbs kept)."""
    if not args.inputs_file:
        data.test = data.test.sample(args.max_test, args.seed)
        return data
    from figbench_baselines.common import inputs_only as io

    io.refuse_subsets(args, max_test=args.max_test, predictions_file=args.predictions_file, submit=args.submit,
                      **refused)
    data.test = io.task_inputs(args.inputs_file, task)
    return data


def _input_keywords(args, rows) -> list[list[str]]:
    """Generation from inputs: the keywords come with each row (``keywords``, a list of words); the narrative they
    are drawn from is the gold."""
    bad = next((r["id"] for r in rows if not isinstance(r.get("keywords"), list)), None)
    if bad is not None:
        raise ValueError(f"{args.inputs_file}: row {bad!r} has no 'keywords' list (generation inputs are a proverb "
                         "and its keywords; the narrative is the gold)")
    return [[str(k) for k in r["keywords"]] for r in rows]


# ------------------------------------------------------------------ proverb scores

def proverb_scores(args, data, scorer: str) -> tuple[np.ndarray, dict, dict, np.ndarray | None]:
    """Scores of every test narrative against every candidate proverb with ``scorer``.

    Returns (scores [n_test, n_candidates], throughput, model block, narrative embeddings or None).
    """
    from figbench_baselines.common.encoder import model_display_name
    from figbench_baselines.epic import prediction as P

    narratives = [r["narrative"] for r in data.test]
    cand_text = [data.proverbs[c] for c in data.candidates]
    if scorer == "bm25":
        scores, stats = P.bm25_scores(narratives, cand_text)
        return scores, stats, model_record("bm25", type="retrieval", parameters=0), None
    if scorer == "embedding":
        tok, enc = load_encoder(args.model)
        scores, stats, emb = P.embedding_scores(narratives, cand_text, tok, enc)
        return scores, stats, model_record(model_display_name(args.model), type="retrieval",
                                           parameters=n_parameters(enc)), emb
    tok, enc, training = trained_biencoder(args, data)
    scores, istats, emb = P.embedding_scores(narratives, cand_text, tok, enc, cache=False)
    stats = {"train_examples_per_s": training["train_examples_per_s"], **istats}
    return scores, stats, model_record(training["encoder"], type="fine-tuned encoder", parameters=n_parameters(enc),
                                       train_steps=int(training["train_steps"]), training=training), emb


def trained_biencoder(args, data) -> tuple[Any, Any, dict[str, Any]]:
    """The fine-tuned bi-encoder: trained on ``data.train`` (saved with --save-model), or loaded (--load-model);
    returns (tokenizer, model, training summary)."""
    from figbench_baselines.common.early_stopping import load_training_info, phase, save_trained
    from figbench_baselines.common.encoder import load_tokenizer_and_model, model_display_name
    from figbench_baselines.common.figurative import set_threads, training_summary
    from figbench_baselines.common.runs import train_config_from_args
    from figbench_baselines.epic import prediction as P
    from figbench_baselines.epic.cli import TRAIN_DEFAULTS

    if getattr(args, "load_model", None):
        from figbench_baselines.epic.data import check_loaded_model

        set_threads()
        info = load_training_info(args.load_model)
        check_loaded_model(info, args.load_model, data.config, {str(r["id"]) for r in data.test}, args.data_dir)
        with phase(f"load the saved bi-encoder {args.load_model}"):
            tok, enc = load_tokenizer_and_model(args.load_model)
        enc.eval()
        enc._figbench_finetuned = True
        return tok, enc, {**info["training"], "trained_by": info.get("command")}
    cfg = train_config_from_args(args, **TRAIN_DEFAULTS["proverb_prediction"])
    train = subsample(data.train, args.max_train, args.seed)
    tok, enc, tstats = P.finetune_biencoder(train, data.proverbs, cfg, model_name=args.model)
    training = training_summary(tstats, cfg, n_train=len(train), unit="narratives",
                                extra={"encoder": model_display_name(args.model), "config": args.config,
                                       "loss": "in-batch softmax over the batch's distinct proverbs, temperature 0.05"})
    if getattr(args, "save_model", None):
        save_trained(args.save_model, enc, tok, {"training": training, "command": _command()})
    return tok, enc, training


def _command() -> str:
    import shlex
    import sys

    return shlex.join([Path(sys.argv[0]).name, *sys.argv[1:]])


def run_prediction(args: argparse.Namespace, clock) -> int:
    from figbench_baselines.epic import prediction as P
    from figbench_baselines.epic.data import load_prediction

    data = _with_inputs(args, load_prediction(args.config, args.data_dir), "proverb_prediction")
    scores, throughput, model, _ = proverb_scores(args, data, args.method)
    # the full ranking: the leaderboard scores it (a truncated list would score a missing gold 0)
    top = P.top_k(scores, data.candidates, len(data.candidates))
    preds = {r["id"]: t for r, t in zip(data.test, top)}
    ev = _score(args, "proverb_prediction", args.config, data.test, preds)
    training = model.pop("training", None)
    options: dict[str, Any] = {"candidates": "all 250 proverbs" if args.config == "seen"
                               else "the 100 unseen test proverbs"}
    method = args.method
    counts = {"n_test": len(data.test), "n_candidates": len(data.candidates), "n_train": len(data.train)}
    if training is not None:
        options["training"] = training
        counts["n_train"] = training["n_train_narratives"]
        if not args.quick and training.get("max_steps") is None:
            method = f"biencoder_{training['epochs']:g}ep"  # a full run: its own leaderboard row
        if getattr(args, "load_model", None):
            options["scored_saved_model"] = args.load_model
    return _finish(args, clock, task="proverb_prediction", ev=ev, config=args.config, model=model, predictions=preds,
                   throughput=throughput, method=method, counts=counts, options=options)


# ------------------------------------------------------------------ similar narratives

def run_similar(args: argparse.Namespace, clock) -> int:
    from figbench_baselines.epic import similar as S
    from figbench_baselines.epic.data import load_prediction

    data = _with_inputs(args, load_prediction(args.config, args.data_dir), "proverb_prediction")
    ids = [r["id"] for r in data.test]
    if args.method == "embedding":
        from figbench_baselines.common.encoder import model_display_name
        from figbench_baselines.common.figurative import embed_texts

        if getattr(args, "load_model", None):
            tok, enc, training = trained_biencoder(args, data)
            model = model_record(training["encoder"], type="fine-tuned encoder", parameters=n_parameters(enc),
                                 train_steps=int(training["train_steps"]))
            method = f"biencoder_{training['epochs']:g}ep_cosine"
            options = {"training": training, "scored_saved_model": args.load_model}
        else:
            tok, enc = load_encoder(args.model)
            model = model_record(model_display_name(args.model), type="retrieval", parameters=n_parameters(enc))
            method, options = "embedding_cosine", {}
        emb, stats = embed_texts([r["narrative"] for r in data.test], tok, enc, desc="embed narratives",
                                 cache=not getattr(args, "load_model", None))
        nearest = {"": S.by_embedding(emb)}
        throughput = {"inference_examples_per_s": stats["embed_examples_per_s"]}
    else:
        scores, throughput, model, _ = proverb_scores(args, data, args.scorer)
        training = model.pop("training", None)
        dists = S.softmax(scores, 1.0 if args.scorer == "bm25" else args.temperature)
        nearest = {"": S.by_distribution(dists, args.distance),
                   **{f"_{d}": S.by_distribution(dists, d) for d in S.DISTANCES}}
        method = f"distribution_{args.scorer}_{args.distance}"
        options = {"scorer": args.scorer, "distance": args.distance, "temperature": args.temperature}
        if training is not None:
            options["training"] = training
            if getattr(args, "load_model", None):
                options["scored_saved_model"] = args.load_model
                method = f"distribution_biencoder_{training['epochs']:g}ep_{args.distance}"
    # the headline distance is the submission; every distance's choices are scored by the task as well
    preds = {ids[i]: ids[j] for i, j in enumerate(nearest[""])}
    ev = _score(args, "similar_narratives", args.config, data.test, preds)
    for suffix, nn in nearest.items():
        if suffix and ev is not None:
            other = _score(args, "similar_narratives", args.config, data.test,
                           {ids[i]: ids[j] for i, j in enumerate(nn)})
            ev.add(_renamed(other, suffix))
    return _finish(args, clock, task="similar_narratives", ev=ev, config=args.config, model=model, predictions=preds,
                   throughput=throughput, method=method, counts={"n_test": len(ids)}, options=options)


def _renamed(ev: Evaluation, suffix: str):
    """``ev``'s accuracy as ``accuracy<suffix>`` (a per-distance score of the similar-narratives task)."""
    from figbench.scoring import Scored

    return Scored({f"accuracy{suffix}": ev.scores["accuracy"]},
                  {f"accuracy{suffix}": ev.confidence_intervals["accuracy"]} if ev.confidence_intervals else {})


# ------------------------------------------------------------------ alignment

def _pipeline_proverbs(args, data_dir, test_rows) -> dict[str, str]:
    """Predicted proverb id per test narrative for the pipelined evaluation."""
    src = args.pipeline
    if src in ("bm25", "embedding"):
        from figbench_baselines.epic.data import load_prediction

        data = load_prediction("seen", data_dir)
        wanted = {r["id"] for r in test_rows}
        data.test = [r for r in data.test if r["id"] in wanted]
        scores, _, _, _ = proverb_scores(args, data, src)
        best = np.argmax(scores, axis=1)
        return {r["id"]: data.candidates[j] for r, j in zip(data.test, best)}
    path = Path(src)
    if not path.is_file():
        raise ValueError(f"--pipeline {src!r}: neither bm25/embedding nor an existing result record")
    from figbench.results import read_result

    rec = read_result(path)
    if rec["task"] != "proverb_prediction" or rec["config"] != "seen":
        raise ValueError(f"{path}: expected a seen proverb_prediction record, got {rec['task']}/{rec['config']}")
    preds = rec["predictions"].get("inline")
    if preds is None:
        preds = json.loads(Path(rec["predictions"]["path"]).read_text("utf-8"))
    missing = [r["id"] for r in test_rows if r["id"] not in preds]
    if missing:
        raise ValueError(f"{path}: no predicted proverb for {len(missing)} test narratives, e.g. {missing[:3]}")
    return {k: (v[0] if isinstance(v, list) else v) for k, v in preds.items()}


def run_alignment(args: argparse.Namespace, clock) -> int:
    from figbench_baselines.common.encoder import model_display_name
    from figbench_baselines.epic import alignment as A
    from figbench_baselines.epic.data import load_alignment

    data = _with_inputs(args, load_alignment(args.data_dir), "proverb_alignment", pipeline=args.pipeline)
    train_rows = subsample(data.train, args.max_train, args.seed)
    test_rows = data.test
    train, test = A.pair_examples(train_rows), A.pair_examples(test_rows)
    throughput: dict[str, float] = {}
    options: dict[str, Any] = {}
    if args.method == "lexical":
        spans = A.lexical_spans(test)
        model = model_record("lexical-overlap sentence", type="heuristic", parameters=0)
    elif args.method == "whole":
        spans = A.whole_spans(test)
        model = model_record("whole narrative", type="heuristic", parameters=0)
    elif args.method == "tagger":
        tok, tagger, training = _trained_tagger(args, train_rows, list(test_rows))
        by_pair, istats = A.predict_tagger(tok, tagger, test_rows, span_words=training["mean_span_words"])
        spans = [by_pair[ex["id"]] for ex in test]
        throughput = {"train_examples_per_s": training["train_examples_per_s"],
                      "inference_examples_per_s": istats["inference_examples_per_s"]}
        options.update(training=training, n_test_words_cut=int(istats["n_test_words_cut"]))
        if args.load_model:
            options["scored_saved_model"] = args.load_model
        model = model_record(training["encoder"], type="fine-tuned encoder", parameters=n_parameters(tagger),
                             train_steps=int(training["train_steps"]))
    else:
        from figbench_baselines.common.runs import train_config_from_args
        from figbench_baselines.epic.cli import TRAIN_DEFAULTS

        cfg = train_config_from_args(args, **TRAIN_DEFAULTS["proverb_alignment"])
        tok, qa, tstats = A.finetune_qa(train, cfg, model_name=args.model)
        spans, istats = A.predict_spans(tok, qa, test)
        throughput = {"train_examples_per_s": tstats["train_examples_per_s"],
                      "inference_examples_per_s": istats["inference_examples_per_s"]}
        options.update(train_steps=int(tstats["train_steps"]), n_train_truncated=int(tstats["n_train_truncated"]))
        model = model_record(model_display_name(args.model), type="fine-tuned encoder", parameters=n_parameters(qa))
    method = args.method
    wrong = 0
    if args.pipeline:
        predicted = _pipeline_proverbs(args, args.data_dir, test_rows)
        ok = {r["id"]: predicted.get(r["id"]) == r["proverb_id"] for r in test_rows}
        wrong = sum(not v for v in ok.values())
        spans = [s if ok[ex["narrative_id"]] else (0, 0) for s, ex in zip(spans, test)]
        method = f"{args.method}_pipelined"
        options["pipeline"] = args.pipeline
    preds = {ex["id"]: list(s) for ex, s in zip(test, spans)}
    ev = _score(args, "proverb_alignment", "alignment", test_rows, preds)
    counts = {"n_test_pairs": len(test), "n_train_pairs": len(train), "n_skipped_pairs": len(data.skipped),
              "n_wrong_proverb_narratives": wrong}
    if args.method == "tagger":
        counts["n_train_narratives"] = options["training"]["n_train_narratives"]
    return _finish(args, clock, task="proverb_alignment", ev=ev, config="alignment", model=model, predictions=preds,
                   throughput=throughput,
                   method=method, counts=counts, options=options, summary=skip_summary(data.skipped))


def _trained_tagger(args, train_rows, test_rows):
    """The alignment token tagger: trained (saved with --save-model) or loaded (--load-model)."""
    from figbench_baselines.common.early_stopping import TRAIN_INFO, load_training_info, phase, save_trained
    from figbench_baselines.common.encoder import load_tokenizer_and_model, model_display_name
    from figbench_baselines.common.figurative import set_threads, training_summary
    from figbench_baselines.common.runs import train_config_from_args
    from figbench_baselines.epic import alignment as A
    from figbench_baselines.epic.cli import TRAIN_DEFAULTS
    from transformers import AutoModelForTokenClassification

    if args.load_model:
        from figbench_baselines.epic.data import check_loaded_model

        set_threads()
        info = load_training_info(args.load_model)
        # a tagger trains on the alignment config only; one saved before training.config was recorded is that
        info = {**info, "training": {"config": "alignment", **info["training"]}}
        check_loaded_model(info, args.load_model, "alignment", {str(r["id"]) for r in test_rows}, args.data_dir)
        with phase(f"load the saved tagger {args.load_model}"):
            tok, model = load_tokenizer_and_model(args.load_model, AutoModelForTokenClassification)
        model.eval()
        if "mean_span_words" not in info["training"]:
            raise ValueError(f"--load-model {args.load_model}: its {TRAIN_INFO} has no training.mean_span_words "
                             "(a tagger saved before the weighted loss and F1 decoding): train it again")
        return tok, model, {**info["training"], "trained_by": info.get("command")}
    cfg = train_config_from_args(args, **TRAIN_DEFAULTS["proverb_alignment"])
    k_max = max(len(r["pairs"]) for r in [*train_rows, *test_rows])
    tok, model, tstats = A.finetune_tagger(train_rows, cfg, model_name=args.model, k_max=k_max)
    training = training_summary(tstats, cfg, n_train=len(train_rows), unit="narratives",
                                extra={"encoder": model_display_name(args.model), "config": "alignment",
                                       "k_max": k_max, "max_length": 256,
                                       "n_train_pairs": sum(len(r["pairs"]) for r in train_rows),
                                       "n_train_words_cut": int(tstats["n_train_words_cut"]),
                                       "tags": "O, B-k/I-k for the narrative words aligned with proverb span k",
                                       "loss": f"cross-entropy weighted by (1 / label frequency) ** {A.WEIGHT_POWER}, "
                                               "mean word weight 1",
                                       "class_weights": tstats["class_weights"],
                                       "decoding": "per span k the run of words maximising 2 * sum p(B-k or I-k) / "
                                                   "(run length + mean_span_words)",
                                       "mean_span_words": tstats["mean_span_words"]})
    if args.save_model:
        save_trained(args.save_model, model, tok, {"training": training, "command": _command()})
    return tok, model, training


# ------------------------------------------------------------------ generation

def run_generation(args: argparse.Namespace, clock) -> int:
    from figbench_baselines.epic import generation as G
    from figbench_baselines.epic.data import load_prediction

    if args.method != "keywords" and not args.model:   # before the data and the tagger are loaded
        raise ValueError("epic --task generation --method seq2seq needs --model "
                         "(a seq2seq HF id or path, e.g. t5-small)")
    data = _with_inputs(args, load_prediction("seen", args.data_dir), "narrative_generation")
    train = subsample(data.train, args.max_train, args.seed)
    test = data.test
    nlp = G.find_tagger_pipeline("en")
    kw_test = _input_keywords(args, test) if args.inputs_file else G.keywords([r["narrative"] for r in test], nlp)
    src_test = [G.prompt(r["proverb"], k) for r, k in zip(test, kw_test)]
    throughput: dict[str, float] = {}
    options: dict[str, Any] = {"keywords": nlp.meta["name"] if nlp else "heuristic (lookup verbs + capitalised names)"}
    if args.method == "keywords":
        hyps = G.keyword_baseline([r["proverb"] for r in test], kw_test)
        model = model_record("proverb+keywords copy", type="heuristic", parameters=0)
    else:
        from figbench_baselines.common.encoder import model_display_name
        from figbench_baselines.common.figurative import set_threads
        from figbench_baselines.common.runs import train_config_from_args
        from figbench_baselines.epic.cli import TRAIN_DEFAULTS

        set_threads()
        tok, s2s = G.load_seq2seq(args.model)
        cfg = train_config_from_args(args, **TRAIN_DEFAULTS["narrative_generation"])
        kw_train = G.keywords([r["narrative"] for r in train], nlp)
        src_train = [G.prompt(r["proverb"], k) for r, k in zip(train, kw_train)]
        s2s, tstats = G.finetune_seq2seq(tok, s2s, src_train, [r["narrative"] for r in train], cfg)
        hyps, istats = G.generate(tok, s2s, src_test, num_beams=args.num_beams)
        throughput = {"train_examples_per_s": tstats["train_examples_per_s"], **istats}
        options.update(train_steps=int(tstats["train_steps"]), num_beams=args.num_beams)
        model = model_record(model_display_name(args.model), type="other", parameters=n_parameters(s2s))
    preds = {r["id"]: h for r, h in zip(test, hyps)}
    ev = _score(args, "narrative_generation", "seen", test, preds)
    if ev is not None:
        ev.add(extra_scores({"keyword_recall": [G.keyword_recall(h, k) for h, k in zip(hyps, kw_test)]}, len(test),
                        n_resamples=args.n_resamples, seed=args.seed, unit="narratives"))
    counts = {"n_test": len(test), "n_train": len(train) if args.method == "seq2seq" else 0,
              "mean_keywords": float(np.mean([len(k) for k in kw_test]))}
    return _finish(args, clock, task="narrative_generation", ev=ev, config="seen", model=model, predictions=preds,
                   throughput=throughput,
                   method=args.method, counts=counts, options=options)
