"""Proverb prediction: rank candidate proverbs for each narrative.

Zero-shot scorers: lexical BM25 (``rank-bm25``, narrative as query, proverbs as documents) and
cosine similarity of sentence embeddings (MiniLM by default). Fine-tuned: a bi-encoder trained with
an in-batch softmax over (narrative, proverb) pairs, so it also ranks proverbs never seen in
training. Scores: accuracy (top-1) and mean reciprocal rank, with bootstrap intervals over narratives.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from figbench_baselines.common.figurative import rate

_WORD = re.compile(r"[a-z0-9']+")


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def bm25_scores(narratives: Sequence[str], proverbs: Sequence[str]) -> tuple[np.ndarray, dict[str, float]]:
    """BM25Okapi scores, one row per narrative, one column per proverb."""
    from rank_bm25 import BM25Okapi

    t0 = time.perf_counter()
    bm25 = BM25Okapi([words(p) or ["<empty>"] for p in proverbs])
    scores = np.stack([bm25.get_scores(words(n)) for n in narratives]) if narratives else np.zeros((0, len(proverbs)))
    return scores, {"inference_examples_per_s": rate(len(narratives), time.perf_counter() - t0)}


def embedding_scores(narratives: Sequence[str], proverbs: Sequence[str], tokenizer, model, *, cache: bool = True
                     ) -> tuple[np.ndarray, dict[str, float], np.ndarray]:
    """Cosine similarities of mean-pooled embeddings; also returns the narrative embeddings."""
    from figbench_baselines.common.figurative import embed_texts

    n_emb, n_stats = embed_texts(list(narratives), tokenizer, model, desc="embed narratives", cache=cache)
    p_emb, _ = embed_texts(list(proverbs), tokenizer, model, desc="embed proverbs", cache=cache)
    return n_emb @ p_emb.T, {"inference_examples_per_s": n_stats["embed_examples_per_s"]}, n_emb


def ranking_scores(scores: np.ndarray, gold: Sequence[int]) -> dict[str, float]:
    """Accuracy (gold ranked first) and MRR, with ranks as in the submitted ranking (:func:`top_k`)."""
    rank = per_item_rank(scores, gold)
    return {"accuracy": float(np.mean(rank == 1)), "mrr": float(np.mean(1.0 / rank))}


def per_item_rank(scores: np.ndarray, gold: Sequence[int]) -> np.ndarray:
    """1-based rank of each gold candidate in the stable descending order of :func:`top_k`.

    Ties are broken by candidate index, exactly as the ranking a run submits, so the leaderboard's
    re-scoring of the predictions gives the same accuracy and MRR.
    """
    gold = np.asarray(gold)
    g = scores[np.arange(len(gold)), gold][:, None]
    earlier = np.arange(scores.shape[1])[None, :] < gold[:, None]
    return 1 + (scores > g).sum(1) + ((scores == g) & earlier).sum(1)


def top_k(scores: np.ndarray, ids: Sequence[str], k: int = 10) -> list[list[str]]:
    order = np.argsort(-scores, axis=1, kind="stable")[:, :k]
    return [[ids[j] for j in row] for row in order]


def finetune_biencoder(train: Sequence[dict], proverbs: dict[str, str], cfg, *, model_name: str | None,
                       max_length: int = 256, temperature: float = 0.05) -> tuple[Any, Any, dict[str, float]]:
    """Fine-tune an encoder as a bi-encoder (mean pooling, in-batch softmax over distinct proverbs)."""
    import torch

    from figbench_baselines.common.encoder import load_tokenizer_and_model
    from figbench_baselines.common.figurative import make_loader, set_threads
    from figbench_baselines.common.training import make_accelerator, train as train_loop

    set_threads()
    tok, model = load_tokenizer_and_model(model_name)
    items = [{"narrative": r["narrative"], "proverb_id": r["proverb_id"]} for r in train]

    def collate(batch):
        ids = list(dict.fromkeys(b["proverb_id"] for b in batch))
        n = tok([b["narrative"] for b in batch], padding=True, truncation=True, max_length=max_length, return_tensors="pt")
        p = tok([proverbs[i] for i in ids], padding=True, truncation=True, max_length=64, return_tensors="pt")
        target = torch.tensor([ids.index(b["proverb_id"]) for b in batch])
        return {"n": dict(n), "p": dict(p), "target": target, "size": len(batch)}

    def pool(m, enc):
        h = m(**enc).last_hidden_state
        mask = enc["attention_mask"].unsqueeze(-1).to(h.dtype)
        return torch.nn.functional.normalize((h * mask).sum(1) / mask.sum(1).clamp(min=1e-9), dim=-1)

    def loss_fn(m, batch):
        logits = pool(m, batch["n"]) @ pool(m, batch["p"]).T / temperature
        return torch.nn.functional.cross_entropy(logits, batch["target"])

    accelerator = make_accelerator(cfg)
    loader = make_loader(items, cfg.batch_size, collate, True, cfg.seed)
    stats = train_loop(model, loader, loss_fn, cfg, accelerator, batch_size_of=lambda b: b["size"],
                       desc="epic bi-encoder")
    model = accelerator.unwrap_model(model).eval()
    model._figbench_finetuned = True  # never served from the frozen-embedding cache
    return tok, model, stats
