"""The one LLM client of figbench: an OpenAI-compatible chat endpoint or a local ``transformers`` causal LM,
and a disk cache of their answers.

Used by the GPT_LH / GPT_KNN pairwise baseline (:mod:`figbench_baselines.cdec.models.llm`) and by the metaphoric
paraphrasing pipeline (:mod:`figbench.generate`).

* :class:`ChatEndpoint`: ``POST <base>/chat/completions`` over plain HTTP (``urllib``). 429, 5xx and timeouts
  are retried with exponential back-off (``Retry-After`` honoured); a refused connection or another 4xx is
  an immediate :class:`LLMEndpointError` naming the URL.
* :class:`CausalLM`: a ``transformers`` causal LM (model id or folder): sampled completions, and the
  probability of "Yes" against "No" as the next token.
* :class:`DiskCache`: append-only JSON lines keyed by sha256 of (backend, model, prompt, parameters, sample);
  one line per answer, flushed as it is written, so a killed run loses at most the answer in flight.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class LLMEndpointError(ValueError):
    """The endpoint could not be reached, refused the request, or gave an unusable reply."""


class LLMRetriesExhausted(LLMEndpointError):
    """429 / 5xx / timeouts went on past the retries (the request may succeed later); ``attempts`` HTTP
    attempts were made."""

    def __init__(self, message: str, attempts: int = 1):
        super().__init__(message)
        self.attempts = attempts


class LLMLoadError(ValueError):
    """A local causal LM could not be loaded (offline, misspelt id, missing files)."""


@dataclass
class Completion:
    """One answer: its text and token counts (prompt, completion) and how many HTTP attempts it took."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    attempts: int = 1
    #: what figbench wrote after the model's last kept character (``--prefill inputs``: the ``}`` closing the
    #: JSON object once the model closed its "Metaphoric Sentence"); part of ``text``, not the model's
    appended: str = ""


#: HTTP statuses worth retrying (rate limit, server trouble).
RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


class ChatEndpoint:
    """An OpenAI-compatible ``/chat/completions`` endpoint."""

    backend = "openai-chat"

    def __init__(self, base_url: str, model: str, api_key: str | None = None, timeout: float = 60.0,
                 retries: int = 5, backoff: float = 1.0, max_backoff: float = 60.0):
        if not base_url.startswith(("http://", "https://")):
            raise LLMEndpointError(f"--llm-endpoint must be an http(s) URL, not {base_url!r}")
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.name, self.api_key, self.timeout = model, api_key, timeout
        self.retries, self.backoff, self.max_backoff = retries, backoff, max_backoff

    def _post(self, body: dict) -> dict:
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        req = urllib.request.Request(self.url, data=json.dumps(body).encode("utf-8"), headers=headers, method="POST")
        # a private opener: urlopen's global one would keep the proxy settings of its first use
        opener = urllib.request.build_opener()
        with opener.open(req, timeout=self.timeout) as resp:
            return json.loads(resp.read().decode("utf-8"))

    def complete(self, prompt: str, *, temperature: float = 0.0, max_tokens: int | None = None,
                 seed: int | None = None, json_mode: bool = False) -> Completion:
        """The model's answer to one user message; transient failures retried, others raised."""
        body: dict[str, Any] = {"model": self.name, "temperature": temperature,
                                "messages": [{"role": "user", "content": prompt}]}
        if max_tokens is not None:
            body["max_tokens"] = max_tokens
        if seed is not None:
            body["seed"] = seed
        if json_mode:
            body["response_format"] = {"type": "json_object"}
        for attempt in range(1, self.retries + 2):
            try:
                return self._completion(self._post_once(body), attempt)
            except _Transient as t:
                if attempt > self.retries:
                    raise LLMRetriesExhausted(f"LLM endpoint {self.url}: gave up after {attempt} attempts; "
                                              f"last: {t}", attempt) from None
                backoff = self.backoff * 2 ** (attempt - 1) if t.retry_after is None else t.retry_after
                time.sleep(min(self.max_backoff, backoff))
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _post_once(self, body: dict) -> dict:
        """One POST; :class:`_Transient` for what is worth retrying, :class:`LLMEndpointError` for the rest."""
        try:
            return self._post(body)
        except urllib.error.HTTPError as e:
            detail = e.read()[:300].decode("utf-8", "replace") if e.fp else ""
            if e.code not in RETRY_STATUS:
                raise LLMEndpointError(f"LLM endpoint {self.url}: HTTP {e.code} {e.reason}: {detail}") from None
            retry_after = e.headers.get("Retry-After") if e.headers else None
            wait = float(retry_after) if retry_after and retry_after.replace(".", "", 1).isdigit() else None
            raise _Transient(f"HTTP {e.code} {e.reason}", wait) from None
        except TimeoutError as e:
            raise _Transient(f"timed out after {self.timeout:g} s ({e})") from None
        except urllib.error.URLError as e:
            if isinstance(e.reason, TimeoutError):
                raise _Transient(f"timed out after {self.timeout:g} s") from None
            if isinstance(e.reason, ConnectionRefusedError):
                raise LLMEndpointError(f"LLM endpoint {self.url}: connection refused") from e
            raise LLMEndpointError(f"LLM endpoint {self.url}: {e.reason}") from e
        except (ConnectionError, OSError) as e:
            if isinstance(e, ConnectionRefusedError):
                raise LLMEndpointError(f"LLM endpoint {self.url}: connection refused") from e
            raise _Transient(f"{type(e).__name__}: {e}") from None
        except json.JSONDecodeError as e:
            raise LLMEndpointError(f"LLM endpoint {self.url}: reply is not JSON ({e})") from None

    def _completion(self, reply: Any, attempts: int) -> Completion:
        """The answer's text and token counts, or :class:`LLMEndpointError` for a reply of another shape."""
        try:
            text = str(reply["choices"][0]["message"]["content"] or "")
        except (KeyError, IndexError, TypeError):
            raise LLMEndpointError(f"LLM endpoint {self.url}: unexpected reply {str(reply)[:200]!r}") from None
        usage = reply.get("usage") or {}
        return Completion(text, int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0),
                          attempts)


class _Transient(Exception):
    """A failure worth retrying: why, and the server's ``Retry-After`` in seconds (if it gave one)."""

    def __init__(self, why: str, retry_after: float | None = None):
        super().__init__(why)
        self.retry_after = retry_after


#: how a local model's answer starts under ``--json-mode`` (an endpoint gets ``response_format`` instead): the
#: first key of Fig. 2's JSON answer, so a small model continues a JSON object rather than prose
JSON_PREFIX = '{"Original Sentence": "'  # figbench.generate.prompts.prefill("key", ...)


def json_close(text: str, start: int = 0, depth: int = 0) -> int | None:
    """The index just past the first closing bracket at or after ``start`` that brings the JSON nesting of
    ``text`` down to ``depth`` (0: the object ``text`` opens is closed); brackets inside strings do not count.
    None while it is still open."""
    level, in_string, escaped = 0, False, False
    for i, c in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "{[":
            level += 1
        elif c in "}]":
            level -= 1
            if i >= start and level <= depth:
                return i + 1
    return None


def string_close(text: str, start: int) -> int | None:
    """The index just past the first unescaped ``"`` at or after ``start``, where ``text[start:]`` is inside a
    JSON string (the string a prefix opened closes there); None while it is still open."""
    escaped = False
    for i in range(start, len(text)):
        c = text[i]
        if escaped:
            escaped = False
        elif c == "\\":
            escaped = True
        elif c == '"':
            return i + 1
    return None


def _json_stop(tokenizer, width: int, prefixes: list[str], closed: Callable[[str, int], int | None]):
    """A ``transformers`` stopping criterion: a row is done once ``closed(text, len(prefix))`` finds the end."""
    import torch
    from transformers import StoppingCriteria

    class _Closed(StoppingCriteria):
        def __call__(self, input_ids, scores, **kwargs):
            done = [closed(pre + tokenizer.decode(row[width:], skip_special_tokens=True), len(pre))
                    is not None for pre, row in zip(prefixes, input_ids.tolist(), strict=True)]
            return torch.tensor(done, dtype=torch.bool, device=input_ids.device)

    return _Closed()


class CausalLM:
    """A local ``transformers`` causal LM (hub id or folder; :mod:`figbench.local_models` turns a GGUF file or a
    registered short name into such a folder), on ``device`` (default: the GPU when torch sees one, else the CPU).
    An instruction-tuned model's chat template, when its tokenizer has one, wraps each prompt as one user
    message."""

    backend = "transformers"

    def __init__(self, model_name: str, label: str | None = None, device: str | None = None):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(model_name)
            self.model = AutoModelForCausalLM.from_pretrained(model_name).eval().to(device)
        except (OSError, ValueError) as e:
            raise LLMLoadError(f"cannot load causal LM {model_name!r}: {e}") from e
        self.name = label or model_name
        self.chat = bool(getattr(self.tokenizer, "chat_template", None))
        self._lock = threading.Lock()  # one forward pass at a time: the model is not thread-safe to share

    @property
    def parameters(self) -> int:
        return int(sum(p.numel() for p in self.model.parameters()))

    def _max_len(self) -> int:
        return int(getattr(self.model.config, "max_position_embeddings", 0)
                   or getattr(self.model.config, "n_positions", 0) or 1024)

    def _text(self, prompt: str) -> str:
        if not self.chat:
            return prompt
        return self.tokenizer.apply_chat_template([{"role": "user", "content": prompt}], tokenize=False,
                                                  add_generation_prompt=True)

    def complete(self, prompt: str, *, temperature: float = 0.0, max_tokens: int | None = None,
                 seed: int | None = None, json_mode: bool = False) -> Completion:
        """A sampled (temperature > 0) or greedy continuation of ``prompt``."""
        return self.complete_many([prompt], temperature=temperature, max_tokens=max_tokens, seed=seed,
                                  prefix=JSON_PREFIX if json_mode else "")[0]

    def complete_many(self, prompts: list[str], *, temperature: float = 0.0, max_tokens: int | None = None,
                      seed: int | None = None, prefix: str | list[str] = "",
                      stop_at_json_depth: int | None = None, stop_at_string_close: bool = False) -> list[Completion]:
        """Continuations of ``prompts`` generated as one left-padded batch (``seed`` seeds the batch); ``prefix``
        (one for all, or one a prompt) starts every answer as the assistant's own turn, and is part of the returned
        text (a local model's "JSON mode" starts it with :data:`JSON_PREFIX`; ``--prefill inputs`` with Fig. 2's
        first keys filled in). ``stop_at_json_depth``: a row stops once the JSON its prefix opened closes down to that
        nesting depth (0: the object is closed; :func:`json_close`); ``stop_at_string_close``: a row stops once the
        JSON string its prefix opened closes (:func:`string_close`); only generated tokens count as completion
        tokens."""
        import torch

        new = int(max_tokens or 256)
        tok = self.tokenizer
        pad = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id
        side = tok.padding_side
        with self._lock:
            tok.padding_side = "left"
            try:
                if tok.pad_token_id is None:
                    tok.pad_token = tok.eos_token
                prefixes = [prefix] * len(prompts) if isinstance(prefix, str) else list(prefix)
                if len(prefixes) != len(prompts):
                    raise ValueError(f"{len(prefixes)} prefixes for {len(prompts)} prompts")
                enc = tok([self._text(p) + pre for p, pre in zip(prompts, prefixes, strict=True)], return_tensors="pt",
                          truncation=True, padding=True,
                          max_length=max(1, self._max_len() - new), add_special_tokens=False).to(self.model.device)
            finally:
                tok.padding_side = side
            if seed is not None:
                torch.manual_seed(seed)
            kw: dict[str, Any] = {"max_new_tokens": new, "pad_token_id": pad}
            if temperature > 0:
                kw.update(do_sample=True, temperature=temperature, top_k=0)
            else:
                kw.update(do_sample=False)
            if stop_at_string_close:
                kw["stopping_criteria"] = [_json_stop(tok, enc["input_ids"].shape[1], prefixes, string_close)]
            elif stop_at_json_depth is not None:
                kw["stopping_criteria"] = [_json_stop(tok, enc["input_ids"].shape[1], prefixes,
                                                      lambda t, i, d=stop_at_json_depth: json_close(t, i, d))]
            with torch.no_grad():
                out = self.model.generate(**enc, **kw)
        width = enc["input_ids"].shape[1]
        ends = self.model.generation_config.eos_token_id
        stops = {i for i in (tok.eos_token_id, pad, *(ends if isinstance(ends, list) else [ends])) if i is not None}
        done = []
        for row, mask, pre in zip(out, enc["attention_mask"], prefixes, strict=True):
            gen = row[width:].tolist()
            n = next((i + 1 for i, t in enumerate(gen) if t in stops), len(gen))  # the end token counts, padding not
            done.append(Completion(pre + tok.decode(gen[:n], skip_special_tokens=True), int(mask.sum()), n))
        return done

    def _first_id(self, text: str) -> int:
        ids = self.tokenizer(text, add_special_tokens=False)["input_ids"]
        if not ids:
            raise ValueError(f"tokenizer of {self.name!r} encodes {text!r} to nothing")
        return int(ids[0])

    def yes_probability(self, prompt: str) -> float:
        """P("Yes") / (P("Yes") + P("No")) of the next token after ``prompt`` (both with and without a space)."""
        import torch

        yes = {self._first_id(" Yes"), self._first_id("Yes")}
        no = {self._first_id(" No"), self._first_id("No")}
        enc = self.tokenizer(prompt, return_tensors="pt", truncation=True, max_length=self._max_len())
        enc = enc.to(self.model.device)
        with self._lock, torch.no_grad():
            logits = self.model(**enc).logits[0, -1].float()
        probs = torch.softmax(logits, dim=-1)
        p_yes = float(sum(probs[i] for i in yes))
        p_no = float(sum(probs[i] for i in no))
        return p_yes / (p_yes + p_no) if p_yes + p_no > 0 else 0.0


def make_client(model: str, endpoint: str | None = None, api_key: str | None = None, **endpoint_kw: Any):
    """:class:`ChatEndpoint` when ``endpoint`` is given, else a local :class:`CausalLM`: ``model`` is a registered
    short name or ``gguf:PATH`` (:func:`figbench.local_models.resolve`, converted once and cached), a folder or
    a hub id."""
    if not model:
        raise ValueError("an LLM needs --llm-model (a transformers causal LM, or the endpoint's model name)")
    if endpoint:
        return ChatEndpoint(endpoint, model, api_key, **endpoint_kw)
    from figbench.local_models import is_local_spec, resolve

    if is_local_spec(model):
        return CausalLM(str(resolve(model)), label=model)
    return CausalLM(model)


def model_label(model: str) -> str:
    """A model name for reports: a GGUF file's base name, a local folder's base name, else the id as given."""
    if model.startswith("gguf:"):
        return "gguf:" + os.path.basename(model[len("gguf:"):])
    return os.path.basename(os.path.normpath(model)) if os.path.isdir(model) else model


class DiskCache:
    """Append-only JSON-lines answer cache; thread-safe.

    Each line is ``{"key": ..., **record}``. A torn last line (a run killed mid-write) is ignored; any
    other unreadable line is an error naming the file and line.
    """

    def __init__(self, path: str | os.PathLike | None):
        self.path = Path(path) if path else None
        self.data: dict[str, dict] = {}
        self.torn_lines = 0
        self._lock = threading.Lock()
        if self.path and self.path.is_file():
            lines = self.path.read_text("utf-8").splitlines()
            for n, line in enumerate(lines, 1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                    self.data[str(rec["key"])] = rec
                except (json.JSONDecodeError, KeyError, TypeError) as e:
                    if n == len(lines):
                        self.torn_lines += 1
                        continue
                    raise ValueError(f"{self.path}: line {n} is not a cache record: {e}") from None

    @staticmethod
    def key(backend: str, model: str, prompt: str, params: dict | None = None, sample: int | None = None) -> str:
        """sha256 of (backend, model, prompt[, parameters, sample]): the cache key of one answer."""
        parts: list[Any] = [backend, model, prompt]
        if params is not None or sample is not None:
            parts += [params or {}, sample]
        return hashlib.sha256(json.dumps(parts, sort_keys=True).encode("utf-8")).hexdigest()

    def get(self, key: str) -> dict | None:
        return self.data.get(key)

    def put(self, key: str, record: dict) -> None:
        rec = {"key": key, **record}
        with self._lock:
            self.data[key] = rec
            if self.path:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                if self.torn_lines:
                    self._drop_torn_tail()
                with self.path.open("a", encoding="utf-8") as f:
                    f.write(json.dumps(rec, ensure_ascii=False) + "\n")
                    f.flush()

    def _drop_torn_tail(self) -> None:
        text = self.path.read_text("utf-8")
        keep = text[: text.rstrip("\n").rfind("\n") + 1] if "\n" in text.rstrip("\n") else ""
        self.path.write_text(keep, "utf-8")
        self.torn_lines = 0

    def __len__(self) -> int:
        return len(self.data)
