"""Step 1: prompting the model for every sentence, with a disk cache, bounded concurrency and a progress bar.

Every answer is cached under (backend, model, prompt, parameters, sample) before it is parsed; sample ``k``
is the ``k``-th try of a sentence (an unusable answer is retried as the next sample, up to ``json_retries``),
so a rerun replays the same answers from the cache at no cost and a killed run resumes. Sentences go in
rounds (every sentence's sample 0, then the next sample of those still without a usable answer): an endpoint
gets ``concurrency`` requests in flight, a local model ``batch_size`` prompts a batch. The answer is bounded
by the sentence (:func:`~figbench.generate.answers.answer_token_budget` completion tokens asked for, a longer
paraphrase or raw answer is ``too_long``) and must keep the source's script. A sentence whose answers stay
unusable, or whose requests keep failing (429 / 5xx / timeouts past the client's retries), is recorded as a
failure of a named kind (:data:`~figbench.generate.answers.FAILURE_KINDS`) with its reasons and last answer,
never dropped silently; after ``max_endpoint_failures`` consecutive endpoint failures the run stops
(:class:`EndpointDown`), the sentences not asked yet recorded as ``not_requested``.
"""

from __future__ import annotations

import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field

from figbench.generate.answers import (
    AnswerError,
    answer_token_budget,
    check_answer,
    check_raw_length,
    parse_answer,
)
from figbench.generate.prompts import ANSWER_KEYS, prefill, render
from figbench.generate.source import Unit
from figbench.llm import Completion, DiskCache, LLMRetriesExhausted, json_close, string_close

#: how ``--prefill inputs`` ends the model's "Metaphoric Sentence" (in the cache key), and what figbench appends
SENTENCE_STOP = "string_close"
SENTENCE_CLOSE = "}"


@dataclass
class Settings:
    """Generation parameters (all part of the cache key except concurrency)."""

    style: str
    temperature: float = 0.7
    max_tokens: int = 1024
    json_retries: int = 2
    json_mode: bool = False
    concurrency: int = 4
    batch_size: int = 8
    max_endpoint_failures: int = 3
    cache_only: bool = False
    #: how a local model's answer is started (:data:`~figbench.generate.prompts.PREFILLS`); ``--json-mode`` on a
    #: local model is ``key``
    prefill: str = "none"

    def max_tokens_for(self, unit: Unit) -> int:
        """Completion tokens asked for ``unit``: ``max_tokens``, or less for a short sentence."""
        return min(self.max_tokens, answer_token_budget(len(unit.tokens), len(unit.triggers), self.prefill))

    def prefix(self, unit: Unit) -> str:
        """The start of ``unit``'s answer written by figbench (empty without a prefill)."""
        kind = self.prefill if self.prefill != "none" else ("key" if self.json_mode else "none")
        return prefill(kind, unit.text, unit.words)

    def params(self, unit: Unit) -> dict:
        p = {"temperature": self.temperature, "max_tokens": self.max_tokens_for(unit), "json_mode": self.json_mode}
        if self.prefill == "inputs":  # the sentence's stop is part of the key: answers under an earlier stop differ
            return p | {"prefill": self.prefill, "sentence_stop": SENTENCE_STOP}
        return p | {"prefill": self.prefill} if self.prefill != "none" else p  # earlier runs' cache keys kept


class EndpointDown(RuntimeError):
    """``max_endpoint_failures`` requests in a row failed at the endpoint; the outcomes so far are kept."""

    def __init__(self, message: str, outcomes: dict, seconds: float):
        super().__init__(message)
        self.outcomes, self.seconds = outcomes, seconds


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


def tally(out: Outcome, rec: dict) -> None:
    """Count one answer (cached or new) on ``out``: a sample and its tokens."""
    out.samples += 1
    out.prompt_tokens += int(rec.get("prompt_tokens") or 0)
    out.completion_tokens += int(rec.get("completion_tokens") or 0)


def _accept(out: Outcome, unit: Unit, rec: dict) -> bool:
    """Record one answer (cached or new) on ``out``; True when it is usable."""
    from figbench.generate.retag import tokenize

    tally(out, rec)
    raw = str(rec.get("text") or "")
    out.raw = raw[:2000]
    try:
        check_raw_length(raw, unit.text, len(unit.triggers))
        answer = parse_answer(raw)
        check_answer(answer, raw, unit.text, unit.tokens, len(unit.triggers), tokenize)
    except AnswerError as e:
        out.failure = e.kind
        out.reasons.append(f"{e.kind}: {e}")
        return False
    out.answer, out.failure = answer, ""
    return True


def _record(rec_of: Completion, unit: Unit, sample: int) -> dict:
    return {"text": rec_of.text, "prompt_tokens": rec_of.prompt_tokens, "completion_tokens": rec_of.completion_tokens,
            "unit": unit.key, "sample": sample, "attempts": rec_of.attempts} \
        | ({"figbench_appended": rec_of.appended} if rec_of.appended else {})


class _Runner:
    """One run's rounds: cache look-ups, requests (threads for an endpoint, batches for a local model), and
    the count of consecutive endpoint failures."""

    def __init__(self, client, cache: DiskCache, settings: Settings, bar):
        self.client, self.cache, self.settings, self.bar = client, cache, settings, bar
        self.failures_in_a_row = self.failed = 0
        self.last_error = ""

    def key(self, unit: Unit, sample: int) -> tuple[str, str]:
        prompt = render(self.settings.style, unit.text, unit.words)
        return prompt, self.cache.key(self.client.backend, self.client.name, prompt, self.settings.params(unit), sample)

    def round(self, todo: list[Unit], outcomes: dict[str, Outcome], sample: int) -> list[Unit]:
        """Sample ``sample`` of every unit of ``todo``; the units still without a usable answer."""
        misses: list[tuple[Unit, str, str]] = []
        retry: list[Unit] = []
        for u in todo:
            prompt, key = self.key(u, sample)
            rec = self.cache.get(key)
            if rec is None:
                misses.append((u, prompt, key))
                continue
            outcomes[u.key].cache_hits += 1
            if not self._done(u, outcomes[u.key], rec, sample):
                retry.append(u)
        if misses and self.settings.cache_only:
            for u, _, _ in misses:
                outcomes[u.key].failure = "not_requested"
                outcomes[u.key].reasons.append("not_requested: no cached answer (--cache-only)")
            self.bar.update(len(misses))
            misses = []
        if misses:
            fresh = self._batched(misses, outcomes, sample) if self.client.backend == "transformers" \
                else self._threaded(misses, outcomes, sample)
            retry += fresh
        return retry

    def _done(self, u: Unit, out: Outcome, rec: dict, sample: int) -> bool:
        ok = _accept(out, u, rec)
        if not ok and sample >= self.settings.json_retries:
            self.failed += 1
        if ok or sample >= self.settings.json_retries:
            self.bar.update(1)
            self.bar.set_postfix(failed=self.failed, refresh=False)
        return ok

    def _got(self, u: Unit, out: Outcome, got: Completion, key: str, sample: int) -> bool:
        self.failures_in_a_row = 0
        rec = _record(got, u, sample)
        self.cache.put(key, rec)
        out.calls += 1
        out.http_attempts += got.attempts
        return self._done(u, out, rec, sample)

    def _threaded(self, misses: list[tuple[Unit, str, str]], outcomes: dict[str, Outcome], sample: int) -> list[Unit]:
        s, retry = self.settings, []
        with ThreadPoolExecutor(max_workers=max(1, s.concurrency)) as pool:
            queue = list(misses)
            running: dict = {}
            while queue or running:
                while queue and len(running) < max(1, s.concurrency):
                    u, prompt, key = queue.pop(0)
                    running[pool.submit(self.client.complete, prompt, temperature=s.temperature,
                                        max_tokens=s.max_tokens_for(u), json_mode=s.json_mode)] = (u, key)
                finished, _ = wait(running, return_when=FIRST_COMPLETED)
                for fut in finished:
                    u, key = running.pop(fut)
                    out = outcomes[u.key]
                    try:
                        got = fut.result()
                    except LLMRetriesExhausted as e:
                        out.failure, out.reasons = "endpoint", out.reasons + [f"endpoint: {e}"]
                        out.calls += 1
                        out.http_attempts += e.attempts
                        self.failed += 1
                        self.bar.update(1)
                        self.failures_in_a_row += 1
                        self.last_error = str(e)
                        if self.failures_in_a_row >= s.max_endpoint_failures:
                            raise _Stop() from None  # the requests in flight end with the pool, unused
                        continue
                    except BaseException:
                        for f in running:
                            f.cancel()
                        raise
                    if not self._got(u, out, got, key, sample):
                        retry.append(u)
        return retry

    def _batched(self, misses: list[tuple[Unit, str, str]], outcomes: dict[str, Outcome], sample: int) -> list[Unit]:
        s, retry = self.settings, []
        size = max(1, s.batch_size)
        # similar lengths together: less padding
        order = sorted(misses, key=lambda m: len(m[1]))
        for i in range(0, len(order), size):
            batch = order[i: i + size]
            got = _complete_batch(self.client, s, batch)
            for (u, _, key), g in zip(batch, got, strict=True):
                if not self._got(u, outcomes[u.key], g, key, sample):
                    retry.append(u)
        return retry


def _complete_batch(client, s: Settings, batch: list[tuple[Unit, str, str]]) -> list[Completion]:
    """A local model's answers to one batch. Under ``--prefill inputs`` the answer is guided through Fig. 2's
    keys in two steps: the model writes the "Metaphoric Word List" until it closes the list, then figbench writes
    the last key (``, "Metaphoric Sentence": "``) and the model writes the sentence until it closes that string
    (its first unescaped ``"``); figbench then closes the object (``}``, :attr:`Completion.appended`). What the
    model wrote after the list's ``]`` or the sentence's ``"`` in the same token is dropped; an answer that never
    closes the list gets no second step, one that never closes the sentence is kept as written (not JSON). Only
    the model's tokens count as completion tokens."""
    prompts = [p for _, p, _ in batch]
    prefixes = [s.prefix(u) for u, _, _ in batch]
    kw = {"temperature": s.temperature, "max_tokens": max(s.max_tokens_for(u) for u, _, _ in batch),
          "seed": _seed(batch[0][2])}
    if s.prefill != "inputs":
        return client.complete_many(prompts, prefix=prefixes, stop_at_json_depth=0 if s.prefill == "key" else None,
                                    **kw)
    got = client.complete_many(prompts, prefix=prefixes, stop_at_json_depth=1, **kw)
    todo: list[tuple[int, str]] = []
    for i, (pre, g) in enumerate(zip(prefixes, got, strict=True)):
        end = json_close(g.text, len(pre), 1)
        if end is not None and g.text[end - 1] == "]":
            todo.append((i, g.text[:end] + f', "{ANSWER_KEYS[3]}": "'))
    if todo:
        more = client.complete_many([prompts[i] for i, _ in todo], prefix=[t for _, t in todo],
                                    stop_at_string_close=True, **kw)
        for (i, pre), g in zip(todo, more, strict=True):
            end = string_close(g.text, len(pre))
            text, appended = (g.text[:end] + SENTENCE_CLOSE, SENTENCE_CLOSE) if end is not None else (g.text, "")
            got[i] = Completion(text, got[i].prompt_tokens, got[i].completion_tokens + g.completion_tokens,
                                appended=appended)
    return got


class _Stop(Exception):
    """Too many endpoint failures in a row."""


def paraphrase(units: list[Unit], client, cache: DiskCache, settings: Settings,
               progress: bool = True) -> tuple[dict[str, Outcome], float]:
    """Outcomes of all ``units`` (by key) and the wall seconds; a fatal endpoint error is raised, and
    :class:`EndpointDown` (with the outcomes so far) after ``max_endpoint_failures`` endpoint failures in a row."""
    from tqdm.auto import tqdm

    t0 = time.perf_counter()
    outcomes = {u.key: Outcome(u.key) for u in units}
    with tqdm(total=len(units), desc=f"paraphrasing ({client.name})", unit="sentence", disable=not progress,
              mininterval=0.5) as bar:
        runner = _Runner(client, cache, settings, bar)
        todo = list(units)
        try:
            for sample in range(settings.json_retries + 1):
                todo = runner.round(todo, outcomes, sample)
                if not todo:
                    break
        except _Stop:
            for o in outcomes.values():  # a sentence tried before keeps its last failure kind
                if o.answer is None and not o.failure:
                    o.failure = "not_requested"
            raise EndpointDown(f"stopped after {settings.max_endpoint_failures} requests in a row failed at the "
                               f"endpoint (--max-endpoint-failures); last: {runner.last_error}",
                               outcomes, time.perf_counter() - t0) from None
    return outcomes, time.perf_counter() - t0
