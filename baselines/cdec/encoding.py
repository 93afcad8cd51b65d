"""Turning mention rows into encoder inputs with the mention span tracked through tokenisation."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import torch

MARK_OPEN, MARK_CLOSE = "<m>", "</m>"


def mention_words(row: Mapping, context_words: int = 30, markers: bool = True) -> tuple[list[str], int, int]:
    """Context words around a mention, with the mention marked; returns (words, span_start, span_end).

    Uses ``context`` / ``context_start`` / ``context_end`` when present, else the sentence with
    ``token_start``/``token_end`` taken as sentence offsets, else the mention text alone.
    """
    words = list(row.get("context") or [])
    s, e = int(row.get("context_start", 0) or 0), int(row.get("context_end", 0) or 0)
    if not words or not (0 <= s < e <= len(words)):
        words = list(row.get("sentence") or [])
        s, e = int(row.get("token_start", 0)), int(row.get("token_end", 0))
        if not words or not (0 <= s < e <= len(words)):
            words = str(row.get("text", "")).split() or ["[UNK]"]
            s, e = 0, len(words)
    lo, hi = max(0, s - context_words), min(len(words), e + context_words)
    left, span, right = words[lo:s], words[s:e], words[e:hi]
    if markers:
        return left + [MARK_OPEN] + span + [MARK_CLOSE] + right, len(left) + 1, len(left) + 1 + len(span)
    return left + span + right, len(left), len(left) + len(span)


def tokenize_mentions(tokenizer, rows: Sequence[Mapping], *, max_length: int = 128,
                      context_words: int = 30) -> dict[str, torch.Tensor]:
    """Batch encoding of single mentions with ``span_mask`` marking the mention's sub-tokens."""
    items = [mention_words(r, context_words) for r in rows]
    enc = tokenizer([w for w, _, _ in items], is_split_into_words=True, truncation=True,
                    max_length=max_length, padding=True, return_tensors="pt")
    span = torch.zeros_like(enc["input_ids"], dtype=torch.float32)
    for b, (_, s, e) in enumerate(items):
        for t, w in enumerate(enc.word_ids(b)):
            if w is not None and s <= w < e:
                span[b, t] = 1.0
        if span[b].sum() == 0:  # span truncated away: fall back to the first token
            span[b, 0] = 1.0
    out = {"input_ids": enc["input_ids"], "attention_mask": enc["attention_mask"], "span_mask": span}
    return out


def tokenize_pairs(tokenizer, rows_a: Sequence[Mapping], rows_b: Sequence[Mapping], *, max_length: int = 256,
                   context_words: int = 30) -> dict[str, torch.Tensor]:
    """Both marked mention contexts in one input, with ``span_a`` / ``span_b`` masks of the two triggers."""
    ia = [mention_words(r, context_words) for r in rows_a]
    ib = [mention_words(r, context_words) for r in rows_b]
    enc = tokenizer([w for w, _, _ in ia], [w for w, _, _ in ib], is_split_into_words=True,
                    truncation="longest_first", max_length=max_length, padding=True, return_tensors="pt")
    span_a = torch.zeros_like(enc["input_ids"], dtype=torch.float32)
    span_b = torch.zeros_like(span_a)
    for b in range(len(ia)):
        seq = enc.sequence_ids(b)
        for t, w in enumerate(enc.word_ids(b)):
            if w is None:
                continue
            if seq[t] == 0 and ia[b][1] <= w < ia[b][2]:
                span_a[b, t] = 1.0
            elif seq[t] == 1 and ib[b][1] <= w < ib[b][2]:
                span_b[b, t] = 1.0
        for m in (span_a, span_b):
            if m[b].sum() == 0:
                m[b, 0] = 1.0
    return {"input_ids": enc["input_ids"], "attention_mask": enc["attention_mask"],
            "span_a": span_a, "span_b": span_b}


def span_mean(hidden: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Mean of the hidden vectors under ``mask`` (B, T) -> (B, H)."""
    mask = mask.to(hidden.dtype).unsqueeze(-1)
    return (hidden * mask).sum(1) / mask.sum(1).clamp(min=1.0)


def add_markers(tokenizer, model) -> None:
    """Register the mention markers as special tokens (resizing the embeddings) if the tokenizer lacks them."""
    missing = [m for m in (MARK_OPEN, MARK_CLOSE) if m not in tokenizer.get_vocab()]
    if missing:
        tokenizer.add_tokens(missing, special_tokens=True)
        model.resize_token_embeddings(len(tokenizer))


def seed_everything(seed: int) -> None:
    """Seed Python, NumPy and torch before building a model (new heads and marker embeddings are random)."""
    from accelerate.utils import set_seed

    set_seed(seed)


def count_parameters(model: torch.nn.Module) -> int:
    return int(sum(p.numel() for p in model.parameters()))


def to_numpy(t: torch.Tensor) -> np.ndarray:
    return t.detach().float().cpu().numpy()
