"""LLM yes/no pairwise scorer (GPT_LH / GPT_KNN of the ECB+META paper), with answers cached on disk.

Two back-ends, both :mod:`figbench.llm` clients (the one LLM client of figbench, shared with
``figbench generate metaphors``):

* a ``transformers`` causal LM (``--llm-model`` id or path): the score is P("Yes") / (P("Yes") + P("No"))
  of the next token after the prompt;
* an OpenAI-compatible chat endpoint (``--llm-endpoint http://host/v1``, model ``--llm-model``), over
  plain HTTP (``urllib``): temperature 0, the reply's first word yes/no gives 1.0/0.0.

Answers are cached in a JSON-lines file keyed by (back-end, model, prompt), so a rerun costs nothing.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from figbench.llm import CausalLM, ChatEndpoint, DiskCache, LLMEndpointError
from figbench.tasks.cdec import PAIR_PROMPT as PROMPT  # declared with the task: lm-evaluation-harness asks it too

__all__ = ["AnswerCache", "EndpointScorer", "LLMEndpointError", "TransformersScorer", "build_prompt", "run_llm",
           "score_pairs"]


def marked_sentence(row: Mapping, context_words: int = 30) -> str:
    from figbench_baselines.cdec.steps.encoding import mention_words

    words, _, _ = mention_words(row, context_words)
    return " ".join(words)


def build_prompt(a: Mapping, b: Mapping, context_words: int = 30) -> str:
    return PROMPT.format(a=marked_sentence(a, context_words), b=marked_sentence(b, context_words))


class AnswerCache(DiskCache):
    """The pairwise scores' cache: :class:`figbench.llm.DiskCache` records ``{"key", "score", "answer"}``
    keyed by sha256(backend, model, prompt)."""

    @staticmethod
    def key(backend: str, model: str, prompt: str, params: dict | None = None, sample: int | None = None) -> str:
        return DiskCache.key(backend, model, prompt, params, sample)

    def get(self, key: str) -> float | None:  # type: ignore[override]
        rec = self.data.get(key)
        if rec is None:
            return None
        try:
            return float(rec["score"])
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"{self.path}: record {key[:12]} has no numeric score") from None

    def put(self, key: str, score: float, answer: str = "") -> None:  # type: ignore[override]
        super().put(key, {"score": score, "answer": answer})


class TransformersScorer:
    """P(Yes) from a causal LM's next-token distribution (:meth:`figbench.llm.CausalLM.yes_probability`)."""

    backend = CausalLM.backend

    def __init__(self, model_name: str):
        from figbench_baselines.common.encoder import ModelLoadError

        from figbench.llm import LLMLoadError

        try:
            self.lm = CausalLM(model_name)
        except LLMLoadError as e:
            raise ModelLoadError(str(e)) from e
        self.name, self.model = model_name, self.lm.model

    def __call__(self, prompt: str) -> tuple[float, str]:
        score = self.lm.yes_probability(prompt)
        return score, "Yes" if score > 0.5 else "No"


class EndpointScorer:
    """Yes/no from an OpenAI-compatible endpoint (:class:`figbench.llm.ChatEndpoint`, temperature 0)."""

    backend = ChatEndpoint.backend

    def __init__(self, base_url: str, model: str, api_key: str | None = None, timeout: float = 60.0):
        self.client = ChatEndpoint(base_url, model, api_key, timeout=timeout)
        self.url, self.name = self.client.url, model

    def __call__(self, prompt: str) -> tuple[float, str]:
        text = self.client.complete(prompt, temperature=0, max_tokens=3).text.strip()
        word = text.split()[0].strip(".,!:;\"'").lower() if text.split() else ""
        if word not in ("yes", "no"):
            raise LLMEndpointError(f"LLM endpoint {self.url}: answer {text!r} is neither yes nor no")
        return (1.0 if word == "yes" else 0.0), text


def score_pairs(scorer, rows: Sequence[Mapping], pairs: np.ndarray, cache: AnswerCache,
                context_words: int = 30) -> tuple[np.ndarray, dict[str, float]]:
    """Scores of ``pairs`` (cached answers reused); returns scores and call/cache counts."""
    from tqdm.auto import tqdm

    out = np.zeros(len(pairs))
    hits = calls = 0
    for n, (a, b) in enumerate(tqdm(pairs.tolist(), desc=f"LLM ({scorer.name})", disable=len(pairs) < 200)):
        prompt = build_prompt(rows[a], rows[b], context_words)
        key = cache.key(scorer.backend, scorer.name, prompt)
        got = cache.get(key)
        if got is None:
            got, answer = scorer(prompt)
            cache.put(key, got, answer)
            calls += 1
        else:
            hits += 1
        out[n] = got
    return out, {"llm_calls": calls, "llm_cache_hits": hits}


def run_llm(rows: Sequence[Mapping], pairs: np.ndarray, args: argparse.Namespace) -> tuple[np.ndarray, dict]:
    """Score candidate pairs with the configured LLM back-end."""
    if not args.llm_model:
        raise ValueError("llm_* methods need --llm-model (a transformers causal LM, or the endpoint's model name)")
    if args.llm_endpoint:
        scorer = EndpointScorer(args.llm_endpoint, args.llm_model, os.environ.get(args.llm_api_key_env))
        params = None
    else:
        scorer = TransformersScorer(args.llm_model)
        params = int(sum(p.numel() for p in scorer.model.parameters()))
    cache = AnswerCache(args.llm_cache)
    t0 = time.perf_counter()
    from figbench_baselines.cdec.steps.pipeline_defaults import setting

    scores, counts = score_pairs(scorer, rows, pairs, cache, setting(args, "context_words"))
    secs = time.perf_counter() - t0
    name = args.llm_model if not os.path.isdir(args.llm_model) else os.path.basename(os.path.normpath(args.llm_model))
    info: dict[str, Any] = {
        "model": {"name": name, "revision": None, "type": "prompted LLM", "parameters": params},
        "llm_backend": scorer.backend, "llm_endpoint": args.llm_endpoint, "llm_cache": str(args.llm_cache),
        "throughput": {"llm_pairs_per_s": len(pairs) / secs if secs > 0 else 0.0},
        **counts,
    }
    return scores, info
