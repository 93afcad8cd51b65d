"""LLM yes/no pairwise scorer (GPT_LH / GPT_KNN of the ECB+META paper), with answers cached on disk.

Two back-ends:

* a ``transformers`` causal LM (``--llm-model`` id or path): the score is P("Yes") / (P("Yes") + P("No"))
  of the next token after the prompt;
* an OpenAI-compatible chat endpoint (``--llm-endpoint http://host/v1``, model ``--llm-model``), over
  plain HTTP (``urllib``): temperature 0, the reply's first word yes/no gives 1.0/0.0.

Answers are cached in a JSON-lines file keyed by (back-end, model, prompt), so a rerun costs nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

PROMPT = (
    "Two sentences from news articles each contain a marked event (between <m> and </m>).\n"
    "Sentence A: {a}\nSentence B: {b}\n"
    "Do the two marked events refer to the same real-world event? Answer Yes or No.\nAnswer:"
)


def marked_sentence(row: Mapping, context_words: int = 30) -> str:
    from figbench_baselines.cdec.encoding import mention_words

    words, _, _ = mention_words(row, context_words)
    return " ".join(words)


def build_prompt(a: Mapping, b: Mapping, context_words: int = 30) -> str:
    return PROMPT.format(a=marked_sentence(a, context_words), b=marked_sentence(b, context_words))


class LLMEndpointError(ValueError):
    """The endpoint could not be reached or gave an answer that is not yes/no."""


class AnswerCache:
    """Append-only JSON-lines cache of scores keyed by sha256(backend, model, prompt)."""

    def __init__(self, path: str | os.PathLike | None):
        self.path = Path(path) if path else None
        self.data: dict[str, float] = {}
        if self.path and self.path.is_file():
            for n, line in enumerate(self.path.read_text("utf-8").splitlines(), 1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                    self.data[rec["key"]] = float(rec["score"])
                except (json.JSONDecodeError, KeyError, TypeError, ValueError) as e:
                    raise ValueError(f"{self.path}: line {n} is not a cache record: {e}") from None

    @staticmethod
    def key(backend: str, model: str, prompt: str) -> str:
        return hashlib.sha256(json.dumps([backend, model, prompt]).encode("utf-8")).hexdigest()

    def get(self, key: str) -> float | None:
        return self.data.get(key)

    def put(self, key: str, score: float, answer: str = "") -> None:
        self.data[key] = score
        if self.path:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as f:
                f.write(json.dumps({"key": key, "score": score, "answer": answer}) + "\n")


class TransformersScorer:
    """P(Yes) from a causal LM's next-token distribution."""

    backend = "transformers"

    def __init__(self, model_name: str):
        from figbench_baselines.common.encoder import ModelLoadError
        from transformers import AutoModelForCausalLM, AutoTokenizer

        try:
            self.tokenizer = AutoTokenizer.from_pretrained(model_name)
            self.model = AutoModelForCausalLM.from_pretrained(model_name).eval()
        except (OSError, ValueError) as e:
            raise ModelLoadError(f"cannot load causal LM {model_name!r}: {e}") from e
        self.name = model_name
        self.yes = self._first_id(" Yes"), self._first_id("Yes")
        self.no = self._first_id(" No"), self._first_id("No")

    def _first_id(self, text: str) -> int:
        ids = self.tokenizer(text, add_special_tokens=False)["input_ids"]
        if not ids:
            raise ValueError(f"tokenizer of {self.name!r} encodes {text!r} to nothing")
        return int(ids[0])

    def __call__(self, prompt: str) -> tuple[float, str]:
        import torch

        enc = self.tokenizer(prompt, return_tensors="pt", truncation=True,
                             max_length=getattr(self.model.config, "max_position_embeddings", 1024) or 1024)
        with torch.no_grad():
            logits = self.model(**enc).logits[0, -1].float()
        probs = torch.softmax(logits, dim=-1)
        p_yes = float(sum(probs[i] for i in set(self.yes)))
        p_no = float(sum(probs[i] for i in set(self.no)))
        score = p_yes / (p_yes + p_no) if p_yes + p_no > 0 else 0.0
        return score, "Yes" if score > 0.5 else "No"


class EndpointScorer:
    """An OpenAI-compatible ``/chat/completions`` endpoint over plain HTTP."""

    backend = "openai-chat"

    def __init__(self, base_url: str, model: str, api_key: str | None = None, timeout: float = 60.0):
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.name, self.api_key, self.timeout = model, api_key, timeout

    def __call__(self, prompt: str) -> tuple[float, str]:
        body = json.dumps({"model": self.name, "temperature": 0, "max_tokens": 3,
                           "messages": [{"role": "user", "content": prompt}]}).encode("utf-8")
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        req = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                reply = json.loads(resp.read().decode("utf-8"))
        except (urllib.error.URLError, OSError) as e:
            raise LLMEndpointError(f"LLM endpoint {self.url}: {e}") from e
        try:
            text = str(reply["choices"][0]["message"]["content"]).strip()
        except (KeyError, IndexError, TypeError):
            raise LLMEndpointError(f"LLM endpoint {self.url}: unexpected reply {str(reply)[:200]!r}") from None
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
    from figbench_baselines.cdec.pipeline_defaults import setting

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
