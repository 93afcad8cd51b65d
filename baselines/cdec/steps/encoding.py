"""Turning mention rows into encoder inputs with the mention span tracked through tokenisation.

:class:`MentionTokens` tokenises each mention's marked context once; single-mention and pair inputs
are concatenations of the cached ids (dynamic padding per batch).
"""

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


class MentionTokens:
    """Each mention's marked context tokenised once; pair and single inputs are built from the cache.

    Building an input is a list concatenation, so training and scoring never re-tokenise, batches are
    padded to their own longest input (dynamic padding) and inputs can be grouped by length. Too long
    inputs are trimmed on the side of each context farther from its mention, so the trigger survives.
    """

    def __init__(self, tokenizer, rows: Sequence[Mapping], *, context_words: int = 30, progress: bool = True,
                 desc: str = "tokenise mentions", chunk: int = 512):
        from tqdm.auto import tqdm

        self.tokenizer = tokenizer
        self.ids: list[list[int]] = []
        self.spans: list[tuple[int, int]] = []
        items = [mention_words(r, context_words) for r in rows]
        with tqdm(total=len(items), desc=desc, unit="mention", disable=not progress or len(items) < chunk) as bar:
            for s in range(0, len(items), chunk):
                part = items[s:s + chunk]
                enc = tokenizer([w for w, _, _ in part], is_split_into_words=True, add_special_tokens=False,
                                truncation=False)
                for b, (_, ws, we) in enumerate(part):
                    word_ids = enc.word_ids(b)
                    pos = [t for t, w in enumerate(word_ids) if w is not None and ws <= w < we]
                    self.ids.append(list(enc["input_ids"][b]))
                    self.spans.append((pos[0], pos[-1] + 1) if pos else (0, min(1, len(word_ids))))
                bar.update(len(part))
        self._single = self._template(1)
        self._pair = self._template(2)

    def _template(self, n: int) -> list[list[int]]:
        """The special tokens around ``n`` (1 or 2) segments: [prefix, suffix] or [prefix, middle, suffix]."""
        words = [["x"], ["y"]][:n]
        enc = self.tokenizer(*words, is_split_into_words=True, add_special_tokens=True)
        ids, seq = enc["input_ids"], enc.sequence_ids(0)
        parts, last = [], 0
        for k in range(n):
            start = seq.index(k)
            end = len(seq) - seq[::-1].index(k)
            parts.append(ids[last:start])
            last = end
        parts.append(ids[last:])
        return parts

    def __len__(self) -> int:
        return len(self.ids)

    @staticmethod
    def _trim(ids: list[int], span: tuple[int, int], keep: int) -> tuple[list[int], tuple[int, int]]:
        """At most ``keep`` tokens of ``ids``: the span with as balanced a context as fits around it."""
        if len(ids) <= keep:
            return ids, span
        s, e = span
        if e - s >= keep:
            return ids[s:s + keep], (0, keep)
        room = keep - (e - s)
        kl = min(s, room // 2)
        kr = min(len(ids) - e, room - kl)
        kl = min(s, room - kr)
        lo = s - kl
        return ids[lo:e + kr], (s - lo, e - lo)

    def single(self, i: int, max_length: int) -> tuple[list[int], tuple[int, int]]:
        """Input ids of mention ``i`` alone and its span (token positions) in them."""
        pre, post = self._single
        ids, (s, e) = self._trim(self.ids[i], self.spans[i], max_length - len(pre) - len(post))
        return pre + ids + post, (s + len(pre), e + len(pre))

    def pair(self, i: int, j: int, max_length: int) -> tuple[list[int], tuple[int, int], tuple[int, int]]:
        """Input ids of mentions ``i`` and ``j`` in one sequence and their spans in it."""
        pre, mid, post = self._pair
        budget = max_length - len(pre) - len(mid) - len(post)
        la, lb = len(self.ids[i]), len(self.ids[j])
        ka, kb = la, lb
        while ka + kb > budget:  # longest first
            if ka >= kb:
                ka -= 1
            else:
                kb -= 1
        a, (as_, ae) = self._trim(self.ids[i], self.spans[i], ka)
        b, (bs, be) = self._trim(self.ids[j], self.spans[j], kb)
        off_b = len(pre) + len(a) + len(mid)
        return pre + a + mid + b + post, (as_ + len(pre), ae + len(pre)), (bs + off_b, be + off_b)

    def pair_length(self, i: int, j: int, max_length: int) -> int:
        return min(max_length, len(self.ids[i]) + len(self.ids[j]) + sum(map(len, self._pair)))

    def single_length(self, i: int, max_length: int) -> int:
        return min(max_length, len(self.ids[i]) + sum(map(len, self._single)))

    def _pad(self, seqs: list[list[int]]) -> tuple[torch.Tensor, torch.Tensor]:
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0
        width = max(len(s) for s in seqs)
        ids = torch.full((len(seqs), width), pad, dtype=torch.long)
        mask = torch.zeros((len(seqs), width), dtype=torch.long)
        for b, s in enumerate(seqs):
            ids[b, :len(s)] = torch.tensor(s, dtype=torch.long)
            mask[b, :len(s)] = 1
        return ids, mask

    def collate_singles(self, idx: Sequence[int], max_length: int) -> dict[str, torch.Tensor]:
        """Padded batch of single mentions with ``span_mask``."""
        built = [self.single(i, max_length) for i in idx]
        ids, mask = self._pad([b[0] for b in built])
        span = torch.zeros(ids.shape, dtype=torch.float32)
        for b, (_, (s, e)) in enumerate(built):
            span[b, s:e] = 1.0
        return {"input_ids": ids, "attention_mask": mask, "span_mask": span}

    def collate_pairs(self, pairs: Sequence[tuple[int, int]], max_length: int) -> dict[str, torch.Tensor]:
        """Padded batch of pair inputs with ``span_a`` / ``span_b`` masks."""
        built = [self.pair(i, j, max_length) for i, j in pairs]
        ids, mask = self._pad([b[0] for b in built])
        span_a = torch.zeros(ids.shape, dtype=torch.float32)
        span_b = torch.zeros_like(span_a)
        for b, (_, (s, e), (t, u)) in enumerate(built):
            span_a[b, s:e] = 1.0
            span_b[b, t:u] = 1.0
        return {"input_ids": ids, "attention_mask": mask, "span_a": span_a, "span_b": span_b}


def length_sorted_batches(lengths: Sequence[int], batch_size: int) -> list[np.ndarray]:
    """Index batches in decreasing length order (inference: least padding; first batch shows peak memory)."""
    order = np.argsort(-np.asarray(lengths), kind="stable")
    return [order[s:s + batch_size] for s in range(0, len(order), batch_size)]
