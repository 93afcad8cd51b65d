"""Alignment prediction as extractive QA: given narrative, proverb and a proverb span, score start and
end positions over the narrative's tokens and return the best narrative span (character offsets).

Question = proverb span + the proverb; context = narrative. Scored by the ``proverb_alignment`` task
(:func:`figbench.scoring.spans.score_alignment`: token P/R/F1 over the narrative's whitespace tokens,
by position). In the pipelined evaluation a narrative whose proverb was mispredicted gets an
empty span for every pair, which scores zero.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

MAX_ANSWER_TOKENS = 96


def pair_examples(rows: Sequence[dict], proverbs: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """One example per aligned span pair: question, narrative, gold character span."""
    out = []
    for r in rows:
        proverb = r.get("proverb") or (proverbs or {}).get(r["proverb_id"], "")
        for p in r["pairs"]:
            out.append({"id": p["pair_id"], "narrative_id": r["id"], "proverb_id": r["proverb_id"],
                        "question": f"{p['proverb_span']} | {proverb}", "narrative": r["narrative"],
                        "start": int(p["narrative_start"]), "end": int(p["narrative_end"])})
    return out


def qa_features(tok, examples: Sequence[dict], *, max_length: int = 256, with_labels: bool = True
                ) -> tuple[list[dict], list[list[tuple[int, int] | None]], int]:
    """Tokenise (question, narrative); gold start/end token positions; per-feature context offsets.

    Returns features, offsets (None outside the narrative) and the number of examples whose gold span
    was truncated away (their label points at [CLS], position 0, as in SQuAD v2 training).
    """
    enc = tok([e["question"] for e in examples], [e["narrative"] for e in examples], truncation="only_second",
              max_length=max_length, return_offsets_mapping=True)
    feats, offsets, truncated = [], [], 0
    for i, ex in enumerate(examples):
        seq = enc.sequence_ids(i)
        offs = [tuple(o) if s == 1 else None for o, s in zip(enc["offset_mapping"][i], seq)]
        item = {k: enc[k][i] for k in enc.keys() if k != "offset_mapping"}
        if with_labels:
            s_tok = next((k for k, o in enumerate(offs) if o and o[0] <= ex["start"] < o[1]), None)
            e_tok = next((k for k in range(len(offs) - 1, -1, -1) if offs[k] and offs[k][0] < ex["end"] <= offs[k][1]), None)
            if s_tok is None or e_tok is None or e_tok < s_tok:
                truncated += 1
                s_tok = e_tok = 0
            item["start_positions"], item["end_positions"] = s_tok, e_tok
        feats.append(item)
        offsets.append(offs)
    return feats, offsets, truncated


def best_span(start_logits: np.ndarray, end_logits: np.ndarray, offsets: list, max_tokens: int = MAX_ANSWER_TOKENS
              ) -> tuple[int, int]:
    """Character span maximising start + end score with start <= end within the narrative."""
    ctx = np.array([o is not None for o in offsets])
    if not ctx.any():
        return 0, 0
    s = np.where(ctx, start_logits[:len(offsets)], -np.inf)
    e = np.where(ctx, end_logits[:len(offsets)], -np.inf)
    total = s[:, None] + e[None, :]
    n = len(offsets)
    valid = np.triu(np.ones((n, n), dtype=bool)) & ~np.triu(np.ones((n, n), dtype=bool), k=max_tokens)
    total = np.where(valid, total, -np.inf)
    i, j = np.unravel_index(int(np.argmax(total)), total.shape)
    return int(offsets[i][0]), int(offsets[j][1])


def finetune_qa(train: Sequence[dict], cfg, *, model_name: str | None, max_length: int = 256):
    """Fine-tune a start/end span scorer (``AutoModelForQuestionAnswering``) on the training pairs."""
    from transformers import AutoModelForQuestionAnswering

    from figbench_baselines.common.encoder import load_tokenizer_and_model
    from figbench_baselines.common.figurative import finetune, pad_collate

    tok, model = load_tokenizer_and_model(model_name, AutoModelForQuestionAnswering)
    feats, _, truncated = qa_features(tok, train, max_length=max_length)
    model, stats = finetune(model, feats, pad_collate(tok), cfg, desc="epic alignment")
    stats["n_train_truncated"] = float(truncated)
    return tok, model, stats


def predict_spans(tok, model, examples: Sequence[dict], *, max_length: int = 256
                  ) -> tuple[list[tuple[int, int]], dict[str, float]]:
    """Predicted character spans over each example's narrative."""
    from figbench_baselines.common.figurative import pad_collate, predict_logits

    feats, offsets, _ = qa_features(tok, examples, max_length=max_length, with_labels=False)
    outs, stats = predict_logits(model, feats, pad_collate(tok), keys=("start_logits", "end_logits"))
    return [best_span(s, e, o) for (s, e), o in zip(outs, offsets)], stats


def lexical_spans(examples: Sequence[dict]) -> list[tuple[int, int]]:
    """Untrained reference: the narrative sentence sharing most words with the question."""
    import re

    out = []
    for ex in examples:
        q = set(re.findall(r"[a-z']+", ex["question"].lower()))
        best, best_score = (0, len(ex["narrative"])), -1
        for m in re.finditer(r"[^.!?]+[.!?]*", ex["narrative"]):
            if not m.group().strip():
                continue
            score = len(q & set(re.findall(r"[a-z']+", m.group().lower())))
            if score > best_score:
                lead = len(m.group()) - len(m.group().lstrip())
                best, best_score = (m.start() + lead, m.end()), score
        out.append(best)
    return out
