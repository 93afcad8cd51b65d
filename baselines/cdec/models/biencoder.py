"""KNN bi-encoder (Held et al. 2021): mention embeddings fine-tuned with a triplet loss on gold clusters.

A mention is encoded in its marked context; its vector is the mean of its trigger sub-token vectors.
Training draws (anchor, positive from the same gold cluster, negative from another cluster of the
same topic when there is one) and minimises ``TripletMarginLoss(margin=10, p=2)`` with the shared
Accelerate loop (``figbench_baselines.common.training.train``), on length-grouped, dynamically
padded batches. Embeddings of a frozen or saved encoder are cached on disk (``artifacts``).

Three options address why that recipe trains badly (issue 22): random same-topic negatives rarely
share the anchor's trigger while positives often do, so the model learns "same word -> close"
(``negatives="hard"``: a negative of the same topic and another cluster that shares the anchor's
head lemma when one exists); margin 10 on un-normalised vectors (norm about 6) keeps nearly every
triplet active (``normalize``: unit vectors, so the margin is on the scale of the vectors, and the
KNN search on them ranks by cosine); and one epoch without model selection (``select_rows``: after
every epoch the KNN oracle B-cubed recall on held-out mentions is measured and the best epoch's
weights are kept). ``wise_ft.py`` mixes a trained encoder's weights with the untrained ones.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import torch
from figbench_baselines.cdec.steps.encoding import (
    MentionTokens,
    add_markers,
    count_parameters,
    length_sorted_batches,
    seed_everything,
    span_mean,
    to_numpy,
)
from figbench_baselines.cdec.steps.pipeline_defaults import method


class BiEncoder(torch.nn.Module):
    """A transformer encoder whose output is the mean vector of the mention's sub-tokens."""

    def __init__(self, encoder: torch.nn.Module, normalize: bool = False):
        super().__init__()
        self.encoder = encoder
        self.normalize = normalize  #: unit-length vectors (trained with ``normalize``; KNN then ranks by cosine)

    def forward(self, input_ids, attention_mask, span_mask):
        hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        vec = span_mean(hidden, span_mask)
        return torch.nn.functional.normalize(vec, dim=-1) if self.normalize else vec


def load_biencoder(model_name: str | None) -> tuple[Any, BiEncoder]:
    """(tokenizer, BiEncoder) for an HF id or path (the offline MiniLM by default)."""
    from figbench_baselines.common.encoder import load_tokenizer_and_model

    tokenizer, encoder = load_tokenizer_and_model(model_name)
    add_markers(tokenizer, encoder)
    return tokenizer, BiEncoder(encoder)


NEGATIVES = ("random", "hard", "mixed")


def make_triplets(rows: Sequence[Mapping], n_per_anchor: int = 1, seed: int = 0,
                  negatives: str = "random") -> list[tuple[int, int, int]]:
    """(anchor, positive, negative) row indices; anchors are mentions of clusters with 2+ mentions.

    ``negatives="random"``: a mention of another cluster of the same topic (else of the split);
    ``"hard"``: one of the same topic and another cluster sharing the anchor's head lemma when there is
    one (the lexical confusions KNN must learn to separate), else as ``random``; ``"mixed"``: hard or random
    with even odds per triplet (so same-word pairs are neither always negative nor never)."""
    if negatives not in NEGATIVES:
        raise ValueError(f"negatives must be one of {NEGATIVES}, not {negatives!r}")
    rng = random.Random(seed)
    by_cluster: dict[str, list[int]] = defaultdict(list)
    by_topic: dict[str, list[int]] = defaultdict(list)
    by_topic_lemma: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, r in enumerate(rows):
        by_cluster[str(r["cluster_id"])].append(i)
        by_topic[str(r.get("topic", ""))].append(i)
        by_topic_lemma[(str(r.get("topic", "")), str(r.get("head_lemma", "")).lower())].append(i)
    out = []
    for i, r in enumerate(rows):
        cluster = by_cluster[str(r["cluster_id"])]
        if len(cluster) < 2:
            continue
        same_topic = by_topic[str(r.get("topic", ""))]
        hard = []
        if negatives in ("hard", "mixed"):
            key = (str(r.get("topic", "")), str(r.get("head_lemma", "")).lower())
            hard = [j for j in by_topic_lemma[key] if str(rows[j]["cluster_id"]) != str(r["cluster_id"])]
        for _ in range(n_per_anchor):
            pos = rng.choice([j for j in cluster if j != i])
            if hard and (negatives == "hard" or rng.random() < 0.5):
                out.append((i, pos, rng.choice(hard)))
                continue
            neg = None
            for pool in (same_topic, range(len(rows))):
                for _try in range(20):
                    cand = rng.choice(pool) if isinstance(pool, list) else rng.randrange(len(rows))
                    if str(rows[cand]["cluster_id"]) != str(r["cluster_id"]):
                        neg = cand
                        break
                if neg is not None:
                    break
            if neg is not None:
                out.append((i, pos, neg))
    if not out:
        raise ValueError("no triplets: the training split has no gold cluster with two or more mentions")
    return out


def oracle_recalls(model: BiEncoder, tokens: MentionTokens, rows: Sequence[Mapping], *, ks: Sequence[int] = (5,),
                   max_length: int = 128, within: str | None = "subtopic",
                   desc: str = "encode held-out mentions") -> dict[int, float]:
    """KNN oracle B-cubed recall (k neighbours within ``within``) of ``model`` on ``rows`` for each k of ``ks``,
    from one encoding; the model's train/eval mode is kept."""
    from figbench_baselines.cdec.steps.filters import knn_pairs
    from figbench_baselines.cdec.steps.oracle import oracle_bcubed_recall

    was_training = model.training
    emb, _ = encode(model, tokens, max_length=max_length, desc=desc)
    model.train(was_training)
    return {k: float(oracle_bcubed_recall(rows, knn_pairs(emb, k=k, rows=rows, within=within))) for k in ks}


def select_score(model: BiEncoder, tokens: MentionTokens, rows: Sequence[Mapping], *, k: int = 5,
                 max_length: int = 128, within: str | None = "subtopic") -> float:
    """KNN oracle B-cubed recall at ``k`` of ``model`` on ``rows``: the model selection score of
    :func:`train_biencoder`."""
    return oracle_recalls(model, tokens, rows, ks=(k,), max_length=max_length, within=within,
                          desc="select: encode held-out mentions")[k]


def train_biencoder(model: BiEncoder, tokenizer, train_rows: Sequence[Mapping], cfg, *, margin: float = 10.0,
                    max_length: int = 128, context_words: int = 30, max_triplets: int | None = None,
                    tokens: MentionTokens | None = None, negatives: str = "random",
                    select_rows: Sequence[Mapping] | None = None, select_k: int = 5,
                    select_within: str | None = "subtopic") -> dict:
    """Fine-tune ``model`` in place with the triplet loss (p=2; on unit vectors when ``model.normalize``);
    returns training statistics. With ``select_rows`` the KNN oracle recall on them is measured before
    training and after every epoch, and the best weights are kept (``selection`` in the statistics)."""
    from figbench_baselines.common.training import grouped_loader, make_accelerator, train

    triplets = make_triplets(train_rows, seed=cfg.seed, negatives=negatives)
    if max_triplets:
        triplets = random.Random(cfg.seed).sample(triplets, min(max_triplets, len(triplets)))
    tokens = tokens or MentionTokens(tokenizer, train_rows, context_words=context_words)
    loss = torch.nn.TripletMarginLoss(margin=margin, p=2)
    lengths = [max(tokens.single_length(i, max_length) for i in t) for t in triplets]

    def collate(idx: list[int]) -> dict:
        chosen = [triplets[k] for k in idx]
        a, p, n = zip(*chosen)
        return tokens.collate_singles([*a, *p, *n], max_length)

    loader = grouped_loader(len(triplets), lengths, cfg.batch_size, collate, seed=cfg.seed)

    def loss_fn(m, batch):
        v = m(batch["input_ids"], batch["attention_mask"], batch["span_mask"])  # unit vectors if m.normalize
        a, p, n = v.chunk(3)
        return loss(a, p, n)

    select_tokens = (MentionTokens(tokenizer, select_rows, context_words=context_words,
                                   desc="tokenise held-out mentions") if select_rows else None)
    history: list[dict[str, float]] = []
    best: dict[str, Any] = {}

    def on_epoch_end(epoch: int) -> None:
        if select_tokens is None:
            return
        inner = getattr(model, "module", model)
        score = select_score(inner, select_tokens, select_rows, k=select_k, max_length=max_length,
                             within=select_within)
        history.append({"epoch": float(epoch + 1), "oracle_bcub_recall": score})
        if not best or score > best["score"]:
            best.update(score=score, epoch=epoch + 1,
                        state={k: v.detach().cpu().clone() for k, v in inner.state_dict().items()})

    if select_tokens is not None:  # epoch 0: the untrained encoder is a candidate too
        score = select_score(model, select_tokens, select_rows, k=select_k, max_length=max_length,
                             within=select_within)
        history.append({"epoch": 0.0, "oracle_bcub_recall": score})
        best.update(score=score, epoch=0, state={k: v.detach().cpu().clone() for k, v in model.state_dict().items()})
    accelerator = make_accelerator(cfg)
    stats = train(model, loader, loss_fn, cfg, accelerator, batch_size_of=lambda b: b["input_ids"].shape[0] // 3,
                  on_epoch_end=on_epoch_end, desc="bi-encoder training (triplet)")
    stats["triplets"] = float(len(triplets))
    if select_tokens is not None:
        inner = getattr(model, "module", model)
        inner.load_state_dict(best["state"])
        stats["selection"] = {"metric": f"KNN oracle B-cubed recall, k={select_k}, within {select_within or 'split'}",
                              "history": history, "best_epoch": float(best["epoch"]),
                              "best_score": float(best["score"])}
    return stats


@torch.no_grad()
def encode(model: BiEncoder, tokens: MentionTokens, *, batch_size: int = 64, max_length: int = 128,
           device: str | None = None, desc: str = "encode mentions") -> tuple[np.ndarray, float]:
    """Embeddings of every mention of ``tokens`` (n, hidden) and the encoding throughput in mentions/s."""
    from tqdm.auto import tqdm

    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    model = getattr(model, "module", model).to(device).eval()
    n = len(tokens)
    out: np.ndarray | None = None
    t0 = time.perf_counter()
    with tqdm(total=n, desc=desc, unit="mention", mininterval=2.0) as bar:
        for idx in length_sorted_batches([tokens.single_length(i, max_length) for i in range(n)], batch_size):
            batch = {k: v.to(device) for k, v in tokens.collate_singles(idx.tolist(), max_length).items()}
            vec = to_numpy(model(batch["input_ids"], batch["attention_mask"], batch["span_mask"]))
            if out is None:
                out = np.zeros((n, vec.shape[1]), dtype=np.float32)
            out[idx] = vec
            bar.update(len(idx))
    secs = time.perf_counter() - t0
    return (out if out is not None else np.zeros((0, 0), np.float32)), (n / secs if secs > 0 else 0.0)


def selection_sources(value: str) -> list[str]:
    """``--biencoder-select`` as ``dataset/config/split`` names: comma-separated entries, each an ECB+ split
    (``validation``) or ``dataset/config/split`` (``ecbmeta/meta_m/validation``)."""
    out = []
    for part in (p.strip() for p in value.split(",")):
        if not part:
            continue
        bits = part.split("/")
        if len(bits) == 1:
            bits = ["ecbplus", "events", bits[0]]
        if len(bits) != 3 or not all(bits):
            raise ValueError(f"--biencoder-select: {part!r} is neither a split nor dataset/config/split")
        out.append("/".join(bits))
    if not out:
        raise ValueError("--biencoder-select names no split")
    return out


def selection_sets(value: str, args: argparse.Namespace) -> list[tuple[str, list[dict]]]:
    """(``dataset/config/split``, held-out mentions) of every ``--biencoder-select`` source."""
    from figbench_baselines.cdec.steps.data import load_mentions, sibling_data_dir

    named = []
    for source in selection_sources(value):
        dataset, config, split = source.split("/")
        data_dir = (args.data_dir if dataset == args.dataset else sibling_data_dir(args.data_dir, dataset))
        if dataset == "ecbplus" and args.train_data_dir:
            data_dir = args.train_data_dir
        named.append((source, load_mentions(dataset, config, split, data_dir)))
    return named


def selection_rows(value: str, args: argparse.Namespace) -> list[dict]:
    """The held-out mentions of every ``--biencoder-select`` source, one list; the ids, topics and clusters of
    every source after the first are prefixed with its name, so sources never share a group or a cluster
    (ECB+META paraphrases ECB+'s documents under the same ids)."""
    return merge_sources(selection_sets(value, args))


def merge_sources(named: Sequence[tuple[str, Sequence[Mapping]]]) -> list[dict]:
    """One list of the mentions of several (name, rows) sources; every source after the first has its ids,
    topics, subtopics and clusters prefixed with its name."""
    keys = ("mention_id", "doc_id", "topic", "subtopic", "cluster_id")
    out: list[dict] = []
    for n, (name, rows) in enumerate(named):
        out.extend(dict(r) if not n else {**r, **{k: f"{name}:{r[k]}" for k in keys if k in r}} for r in rows)
    return out


def _trained_biencoder(args: argparse.Namespace) -> dict:
    """Load (``--biencoder DIR``) or train the bi-encoder once per run; memoised on ``args``."""
    from figbench_baselines.cdec.steps.artifacts import load_component, save_component
    from figbench_baselines.cdec.steps.data import training_rows
    from figbench_baselines.cdec.steps.pipeline_defaults import setting
    from figbench_baselines.common.encoder import model_display_name
    from figbench_baselines.common.runs import train_config_from_args
    from figbench_baselines.common.training import wall_time_s

    memo = getattr(args, "_biencoder_memo", None)
    if memo is not None:
        return memo
    seed_everything(args.seed)
    folder = args.biencoder or (args.load_model if method(args.method).trains == "biencoder" else None)
    if folder:
        state, tinfo = load_component(folder, "biencoder")
        model_arg = args.model if args.model is not None else tinfo.get("model_arg")
        if model_display_name(model_arg) != tinfo.get("model"):
            raise ValueError(f"{folder} holds a bi-encoder on {tinfo.get('model')!r}, not on "
                             f"{model_display_name(model_arg)!r} (drop --model or pass the same one)")
        tokenizer, model = load_biencoder(model_arg)
        model.load_state_dict(state)
        model.normalize = bool(tinfo.get("normalize", False) or getattr(args, "biencoder_normalize", False))
        memo = {"tokenizer": tokenizer, "model": model, "info": {**tinfo, "loaded_from": str(folder)},
                "folder": str(folder), "trained": True}
    elif args.no_train_biencoder:
        tokenizer, model = load_biencoder(args.model)
        model.normalize = bool(getattr(args, "biencoder_normalize", False))  # the frozen encoder, cosine
        memo = {"tokenizer": tokenizer, "model": model, "info": {"model": model_display_name(args.model),
                "model_arg": args.model}, "folder": None, "trained": False}
    else:
        t_start = time.perf_counter()
        max_length, context_words = setting(args, "max_length"), setting(args, "context_words")
        tokenizer, model = load_biencoder(args.model)
        train_rows, where = training_rows(args)
        cfg = train_config_from_args(args, epochs=float(getattr(args, "biencoder_epochs", 1) or 1), batch_size=8,
                                     lr=1e-5)
        model.normalize = bool(getattr(args, "biencoder_normalize", False))
        select_rows = getattr(args, "select_rows", None)  # given programmatically (tests)
        if select_rows is None and getattr(args, "biencoder_select", None):
            select_rows = selection_rows(args.biencoder_select, args)
        if args.biencoder_steps is not None:
            cfg.max_steps = args.biencoder_steps
        if args.quick and cfg.max_steps is None:
            cfg.max_steps = 20
        tokens = MentionTokens(tokenizer, train_rows, context_words=context_words, desc="tokenise training mentions")
        negatives = getattr(args, "biencoder_negatives", "random")
        stats = train_biencoder(model, tokenizer, train_rows, cfg, margin=args.margin, max_length=max_length,
                                context_words=context_words, tokens=tokens, negatives=negatives,
                                select_rows=select_rows, select_k=args.k, select_within=args.knn_within)
        tinfo = {"model": model_display_name(args.model), "model_arg": args.model, "train_split": where,
                 "train_mentions": len(train_rows), "n_training_triplets": int(stats["triplets"]),
                 "margin": args.margin, "max_length": max_length, "context_words": context_words, "seed": args.seed,
                 "negatives": negatives, "normalize": model.normalize,
                 "selection_split": (", ".join(selection_sources(args.biencoder_select))
                                     if getattr(args, "biencoder_select", None)
                                     else "given rows" if select_rows else None),
                 "config": {k: v for k, v in cfg.to_dict().items() if k != "extra"}, "train_stats": stats,
                 "train_wall_time_s": wall_time_s(t_start, stats)}
        folder = None
        if args.save_model:
            folder = args.save_model if method(args.method).trains == "biencoder" else f"{args.save_model}/biencoder"
            save_component(folder, "biencoder", getattr(model, "module", model).state_dict(), tinfo)
        memo = {"tokenizer": tokenizer, "model": model, "info": tinfo, "folder": folder, "trained": True}
    args._biencoder_memo = memo
    return memo


def get_embeddings(rows: Sequence[Mapping], args: argparse.Namespace) -> tuple[np.ndarray, dict]:
    """Embeddings for the KNN filter (trained, loaded or frozen bi-encoder), cached on disk when possible."""
    from figbench_baselines.cdec.steps.artifacts import cached_arrays, encoder_fingerprint, rows_fingerprint
    from figbench_baselines.cdec.steps.pipeline_defaults import setting

    be = _trained_biencoder(args)
    tinfo = be["info"]
    max_length, context_words = setting(args, "max_length", tinfo), setting(args, "context_words", tinfo)
    info: dict[str, Any] = {"biencoder_model": tinfo["model"], "biencoder_margin": args.margin,
                            "biencoder_trained": be["trained"], "biencoder_context_words": context_words,
                            "biencoder_max_length": max_length, "throughput": {}}
    if be["trained"]:
        info["biencoder_training"] = tinfo
        if tinfo.get("train_stats", {}).get("train_examples_per_s") and "loaded_from" not in tinfo:
            info["throughput"]["biencoder_train_triplets_per_s"] = tinfo["train_stats"]["train_examples_per_s"]
    cacheable = (not be["trained"]) or be["folder"] is not None
    key = {"encoder": encoder_fingerprint(tinfo.get("model_arg"), be["folder"]) if cacheable else None,
           "rows": rows_fingerprint(rows, context_words), "max_length": max_length}
    if getattr(be["model"], "normalize", False):  # same weights, other vectors
        key["normalize"] = True
        info["biencoder_normalize"] = True
    timing: dict[str, float] = {}

    def compute() -> dict[str, np.ndarray]:
        tokens = MentionTokens(be["tokenizer"], rows, context_words=context_words)
        emb, rate = encode(be["model"], tokens, batch_size=args.encode_batch_size, max_length=max_length)
        timing["rate"] = rate
        return {"embeddings": emb}

    arrays, hit = cached_arrays("biencoder", key, compute, enabled=cacheable and not args.no_cache)
    if "rate" in timing:
        info["throughput"]["encode_mentions_per_s"] = timing["rate"]
    info["embeddings_from_cache"] = hit
    info["biencoder_parameters"] = count_parameters(be["model"])
    return arrays["embeddings"], info
