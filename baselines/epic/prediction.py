"""Proverb prediction: rank candidate proverbs for each narrative.

Zero-shot scorers: lexical BM25 (``rank-bm25``, narrative as query, proverbs as documents) and
cosine similarity of sentence embeddings (MiniLM by default). Fine-tuned: a bi-encoder trained with
an in-batch softmax over (narrative, proverb) pairs, so it also ranks proverbs never seen in
training. A run submits the full ranking of the candidates (:func:`top_k`: stable descending order of
the scores, ties to the lower candidate index) and is scored by the ``proverb_prediction`` task.
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


def top_k(scores: np.ndarray, ids: Sequence[str], k: int = 10) -> list[list[str]]:
    """The ``k`` best candidate ids per row, best first (ties: lower candidate index first, as
    :func:`figbench.scoring.ranking.ranks_from_scores` ranks them)."""
    order = np.argsort(-scores, axis=1, kind="stable")[:, :k]
    return [[ids[j] for j in row] for row in order]


def finetune_biencoder(train: Sequence[dict], proverbs: dict[str, str], cfg, *, model_name: str | None,
                       max_length: int = 256, temperature: float = 0.05) -> tuple[Any, Any, dict[str, float]]:
    """Fine-tune an encoder as a bi-encoder (mean pooling, in-batch softmax over distinct proverbs), with
    :func:`figbench_baselines.common.early_stopping.fit` (length-grouped batches, ETA, checkpoints)."""
    import torch
    from figbench_baselines.common.early_stopping import fit, phase
    from figbench_baselines.common.encoder import load_tokenizer_and_model
    from figbench_baselines.common.figurative import seed_everything, set_threads

    set_threads()
    seed_everything(cfg.seed)
    with phase("load the encoder"):
        tok, model = load_tokenizer_and_model(model_name)
    items = [{"narrative": r["narrative"], "proverb_id": r["proverb_id"]} for r in train]

    def collate(batch):
        ids = list(dict.fromkeys(b["proverb_id"] for b in batch))
        n = tok([b["narrative"] for b in batch], padding=True, truncation=True, max_length=max_length,
                return_tensors="pt")
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

    model, stats = fit(model, items, collate, cfg, loss_fn=loss_fn, lengths=[len(r["narrative"]) for r in items],
                       desc="epic bi-encoder")
    return tok, model, stats
