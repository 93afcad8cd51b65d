"""Step 1: prompting the model for every sentence, with a disk cache, bounded concurrency and a progress bar.

Every answer is cached under (backend, model, prompt, parameters, sample) before it is parsed; sample ``k``
is the ``k``-th try of a sentence (a malformed answer is retried as the next sample, up to
``json_retries``), so a rerun replays the same answers from the cache at no cost and a killed run resumes.
A sentence whose answers stay malformed, or whose requests keep failing (429 / 5xx / timeouts past the
client's retries), is recorded as a failure with its reason and last answer, never dropped silently.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field

from figbench.generate.answers import AnswerError, parse_answer
from figbench.generate.prompts import render
from figbench.generate.source import Unit
from figbench.llm import DiskCache, LLMRetriesExhausted


@dataclass
class Settings:
    """Generation parameters (all part of the cache key except concurrency)."""

    style: str
    temperature: float = 0.7
    max_tokens: int = 1024
    json_retries: int = 2
    json_mode: bool = False
    concurrency: int = 4

    def params(self) -> dict:
        return {"temperature": self.temperature, "max_tokens": self.max_tokens, "json_mode": self.json_mode}


@dataclass
class Outcome:
    """What one sentence got: the parsed answer (None on failure) and its cost."""

    key: str
    answer: dict | None = None
    failure: str = ""
    raw: str = ""
    samples: int = 0
    calls: int = 0
    http_attempts: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasons: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return dict(self.__dict__)


def _seed(key: str) -> int:
    return int(key[:8], 16)


def paraphrase_one(unit: Unit, client, cache: DiskCache, settings: Settings) -> Outcome:
    prompt = render(settings.style, unit.text, unit.words)
    out = Outcome(unit.key)
    for sample in range(settings.json_retries + 1):
        key = cache.key(client.backend, client.name, prompt, settings.params(), sample)
        rec = cache.get(key)
        if rec is None:
            try:
                got = client.complete(prompt, temperature=settings.temperature, max_tokens=settings.max_tokens,
                                      seed=_seed(key) if client.backend == "transformers" else None,
                                      json_mode=settings.json_mode)
            except LLMRetriesExhausted as e:
                out.failure, out.reasons = "endpoint", out.reasons + [str(e)]
                return out
            rec = {"text": got.text, "prompt_tokens": got.prompt_tokens, "completion_tokens": got.completion_tokens,
                   "unit": unit.key, "sample": sample, "attempts": got.attempts}
            cache.put(key, rec)
            out.calls += 1
            out.http_attempts += got.attempts
        else:
            out.cache_hits += 1
        out.samples += 1
        out.prompt_tokens += int(rec.get("prompt_tokens") or 0)
        out.completion_tokens += int(rec.get("completion_tokens") or 0)
        out.raw = str(rec.get("text") or "")
        try:
            out.answer = parse_answer(out.raw)
            out.failure = ""
            return out
        except AnswerError as e:
            out.failure = "not_json"
            out.reasons.append(str(e))
    return out


def paraphrase(units: list[Unit], client, cache: DiskCache, settings: Settings,
               progress: bool = True) -> tuple[dict[str, Outcome], float]:
    """Outcomes of all ``units`` (by key) and the wall seconds; a fatal endpoint error is raised."""
    from tqdm.auto import tqdm

    t0 = time.perf_counter()
    outcomes: dict[str, Outcome] = {}
    workers = max(1, settings.concurrency if client.backend != "transformers" else 1)
    with ThreadPoolExecutor(max_workers=workers) as pool, \
            tqdm(total=len(units), desc=f"paraphrasing ({client.name})", unit="sentence",
                 disable=not progress, mininterval=0.5) as bar:
        futures = {pool.submit(paraphrase_one, u, client, cache, settings): u for u in units}
        try:
            for fut in as_completed(futures):
                o = fut.result()
                outcomes[o.key] = o
                bar.update(1)
                bar.set_postfix(failed=sum(1 for x in outcomes.values() if x.failure), refresh=False)
        except BaseException:
            for f in futures:
                f.cancel()
            raise
    return {u.key: outcomes[u.key] for u in units}, time.perf_counter() - t0
