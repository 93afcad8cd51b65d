"""The four ePiC runs behind ``figbench baseline epic --task ...``; each writes one result record."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from figbench_baselines.common.figurative import (
    bootstrap_scores, load_encoder, model_record, n_parameters, skip_summary, subsample, write_predictions)


def _finish(args, clock, *, task: str, config: str, split: str, model: dict, scores: dict, cis: dict,
            predictions: Any, throughput: dict, method: str, counts: dict, options: dict, summary=None) -> int:
    from figbench.results import make_result, provenance
    from figbench_baselines.common.runs import finish_run

    from figbench_baselines.common.figurative import is_main_process

    if not is_main_process():
        return 0
    path = write_predictions(args.predictions_file, predictions)
    record = make_result(task=task, dataset="epic", config=config, split=split, model=model, scores=scores,
                         confidence_intervals=cis, predictions=None if path else predictions, predictions_path=path,
                         provenance=provenance(clock, seed=args.seed, throughput=throughput), method=method,
                         counts=counts, options={**options, "quick": bool(args.quick)})
    finish_run(record, args, summary)
    return 0


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
    from figbench_baselines.common.runs import train_config_from_args
    from figbench_baselines.epic.cli import TRAIN_DEFAULTS

    cfg = train_config_from_args(args, **TRAIN_DEFAULTS["prediction"])
    train = subsample(data.train, args.max_train, args.seed)
    tok, enc, tstats = P.finetune_biencoder(train, data.proverbs, cfg, model_name=args.model)
    scores, istats, emb = P.embedding_scores(narratives, cand_text, tok, enc, cache=False)
    stats = {"train_examples_per_s": tstats["train_examples_per_s"], **istats}
    return scores, stats, model_record(model_display_name(args.model), type="fine-tuned encoder",
                                       parameters=n_parameters(enc), train_steps=int(tstats["train_steps"])), emb


def run_prediction(args: argparse.Namespace, clock) -> int:
    from figbench_baselines.epic import prediction as P
    from figbench_baselines.epic.data import load_prediction

    data = load_prediction(args.config, args.data_dir)
    data.test = subsample(data.test, args.max_test, args.seed)
    scores, throughput, model, _ = proverb_scores(args, data, args.method)
    index = {c: i for i, c in enumerate(data.candidates)}
    gold = np.array([index[r["proverb_id"]] for r in data.test])
    ranks = P.per_item_rank(scores, gold)
    acc, rr = (ranks == 1).astype(float), 1.0 / ranks
    result = P.ranking_scores(scores, gold)
    cis = bootstrap_scores(len(gold), lambda idx: {"accuracy": acc[idx].mean(), "mrr": rr[idx].mean()},
                           n_resamples=args.n_resamples, seed=args.seed, unit="narratives")
    # the full ranking: the leaderboard recomputes MRR from it (a truncated list scores missing golds 0)
    top = P.top_k(scores, data.candidates, len(data.candidates))
    preds = {r["id"]: t for r, t in zip(data.test, top)}
    return _finish(args, clock, task="proverb_prediction", config=args.config, split="test", model=model,
                   scores=result, cis=cis, predictions=preds, throughput=throughput, method=args.method,
                   counts={"n_test": len(gold), "n_candidates": len(data.candidates), "n_train": len(data.train)},
                   options={"candidates": "all 250 proverbs" if args.config == "seen" else "the 100 unseen test proverbs"})


# ------------------------------------------------------------------ similar narratives

def run_similar(args: argparse.Namespace, clock) -> int:
    from figbench_baselines.epic import similar as S
    from figbench_baselines.epic.data import load_prediction

    data = load_prediction(args.config, args.data_dir)
    data.test = subsample(data.test, args.max_test, args.seed)
    labels = [r["proverb_id"] for r in data.test]
    if args.method == "embedding":
        from figbench_baselines.common.encoder import model_display_name
        from figbench_baselines.common.figurative import embed_texts

        tok, enc = load_encoder(args.model)
        emb, stats = embed_texts([r["narrative"] for r in data.test], tok, enc, desc="embed narratives")
        nearest = S.by_embedding(emb)
        per = {"accuracy": S.hits(nearest, labels)}
        model = model_record(model_display_name(args.model), type="retrieval", parameters=n_parameters(enc))
        throughput = {"inference_examples_per_s": stats["embed_examples_per_s"]}
        method, options = "embedding_cosine", {}
    else:
        scores, throughput, model, _ = proverb_scores(args, data, args.scorer)
        dists = S.softmax(scores, 1.0 if args.scorer == "bm25" else args.temperature)
        per, nearest = {}, None
        for d in S.DISTANCES:
            nn = S.by_distribution(dists, d)
            per[f"accuracy_{d}"] = S.hits(nn, labels)
            if d == args.distance:
                nearest = nn
                per["accuracy"] = per[f"accuracy_{d}"]
        method = f"distribution_{args.scorer}_{args.distance}"
        options = {"scorer": args.scorer, "distance": args.distance, "temperature": args.temperature}
    scores_out = {k: float(v.mean()) for k, v in per.items()}
    cis = bootstrap_scores(len(labels), lambda idx: {k: v[idx].mean() for k, v in per.items()},
                           n_resamples=args.n_resamples, seed=args.seed, unit="narratives")
    preds = {r["id"]: data.test[j]["id"] for r, j in zip(data.test, nearest)}
    return _finish(args, clock, task="similar_narratives", config=args.config, split="test", model=model,
                   scores=scores_out, cis=cis, predictions=preds, throughput=throughput, method=method,
                   counts={"n_test": len(labels)}, options=options)


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
    from figbench.scoring.spans import span_overlap_scores
    from figbench_baselines.common.encoder import model_display_name
    from figbench_baselines.epic import alignment as A
    from figbench_baselines.epic.data import load_alignment

    data = load_alignment(args.data_dir)
    train_rows = subsample(data.train, args.max_train, args.seed)
    test_rows = subsample(data.test, args.max_test, args.seed)
    train, test = A.pair_examples(train_rows), A.pair_examples(test_rows)
    throughput: dict[str, float] = {}
    options: dict[str, Any] = {}
    if args.method == "lexical":
        spans = A.lexical_spans(test)
        model = model_record("lexical-overlap sentence", type="heuristic", parameters=0)
    else:
        from figbench_baselines.common.runs import train_config_from_args
        from figbench_baselines.epic.cli import TRAIN_DEFAULTS

        cfg = train_config_from_args(args, **TRAIN_DEFAULTS["alignment"])
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
    passages = [ex["narrative"] for ex in test]
    gold = [(ex["start"], ex["end"]) for ex in test]
    total = span_overlap_scores(spans, gold, passages=passages)
    per = [span_overlap_scores([s], [g], passages=[p]) for s, g, p in zip(spans, gold, passages)]
    arrays = {name: np.array([x[key] for x in per]) for name, key in
              (("token_precision", "precision"), ("token_recall", "recall"), ("token_f1", "f1"),
               ("exact_match", "exact_match"))}
    assert abs(arrays["token_f1"].mean() - total["f1"]) < 1e-9
    scores = {k: float(v.mean()) for k, v in arrays.items()}
    scores.update(micro_token_f1=total["micro_f1"])
    cis = bootstrap_scores(len(test), lambda idx: {k: v[idx].mean() for k, v in arrays.items()},
                           n_resamples=args.n_resamples, seed=args.seed, unit="span pairs")
    preds = {ex["id"]: list(s) for ex, s in zip(test, spans)}
    counts = {"n_test_pairs": len(test), "n_train_pairs": len(train), "n_skipped_pairs": len(data.skipped),
              "n_wrong_proverb_narratives": wrong}
    return _finish(args, clock, task="proverb_alignment", config="alignment", split="test", model=model,
                   scores=scores, cis=cis, predictions=preds, throughput=throughput, method=method,
                   counts=counts, options=options, summary=skip_summary(data.skipped))


# ------------------------------------------------------------------ generation

def run_generation(args: argparse.Namespace, clock) -> int:
    from figbench_baselines.epic import generation as G
    from figbench_baselines.epic.data import load_prediction

    data = load_prediction("seen", args.data_dir)
    train = subsample(data.train, args.max_train, args.seed)
    test = subsample(data.test, args.max_test, args.seed)
    nlp = G.find_tagger_pipeline("en")
    kw_test = G.keywords([r["narrative"] for r in test], nlp)
    src_test = [G.prompt(r["proverb"], k) for r, k in zip(test, kw_test)]
    throughput: dict[str, float] = {}
    options: dict[str, Any] = {"keywords": nlp.meta["name"] if nlp else "heuristic (lookup verbs + capitalised names)"}
    if args.method == "keywords":
        hyps = G.keyword_baseline([r["proverb"] for r in test], kw_test)
        model = model_record("proverb+keywords copy", type="heuristic", parameters=0)
    else:
        if not args.model:
            raise ValueError("epic --task generation --method seq2seq needs --model (a seq2seq HF id or path, e.g. t5-small)")
        from figbench_baselines.common.encoder import model_display_name
        from figbench_baselines.common.figurative import set_threads
        from figbench_baselines.common.runs import train_config_from_args
        from figbench_baselines.epic.cli import TRAIN_DEFAULTS

        set_threads()
        tok, s2s = G.load_seq2seq(args.model)
        cfg = train_config_from_args(args, **TRAIN_DEFAULTS["generation"])
        kw_train = G.keywords([r["narrative"] for r in train], nlp)
        src_train = [G.prompt(r["proverb"], k) for r, k in zip(train, kw_train)]
        s2s, tstats = G.finetune_seq2seq(tok, s2s, src_train, [r["narrative"] for r in train], cfg)
        hyps, istats = G.generate(tok, s2s, src_test, num_beams=args.num_beams)
        throughput = {"train_examples_per_s": tstats["train_examples_per_s"], **istats}
        options.update(train_steps=int(tstats["train_steps"]), num_beams=args.num_beams)
        model = model_record(model_display_name(args.model), type="other", parameters=n_parameters(s2s))
    refs = [r["narrative"] for r in test]
    bleu, stats, rouge, recall = G.generation_unit_stats(hyps, refs, kw_test)
    scores = G.generation_scores(bleu, stats, rouge, recall)
    cis = bootstrap_scores(len(refs), lambda idx: G.generation_scores(bleu, stats, rouge, recall, idx),
                           n_resamples=args.n_resamples, seed=args.seed, unit="narratives")
    preds = {r["id"]: h for r, h in zip(test, hyps)}
    counts = {"n_test": len(test), "n_train": len(train) if args.method == "seq2seq" else 0,
              "mean_keywords": float(np.mean([len(k) for k in kw_test]))}
    return _finish(args, clock, task="narrative_generation", config="seen", split="test", model=model,
                   scores=scores, cis=cis, predictions=preds, throughput=throughput, method=args.method,
                   counts=counts, options=options)
