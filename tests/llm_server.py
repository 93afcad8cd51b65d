"""A scripted OpenAI-compatible chat server on 127.0.0.1 for the generate tests (real HTTP, real sockets).

It answers Fig. 2 prompts the way a model would: the sentence and word list are read from the prompt, each
trigger replaced by a fixed metaphor, and the four JSON keys returned. ``script`` maps a sentence substring
to the behaviour of its successive requests: ``json`` (a plain JSON answer), ``fenced`` (in a code fence,
with a trailing comma: repairable), ``prose`` (no JSON), ``429`` (rate limited, ``Retry-After: 0``),
``500``, ``nolist`` (JSON with an empty word list), ``timeout`` (answers after ``delay``
seconds), and misbehaving models: ``wrongkeys`` (valid JSON with other keys), ``huge`` (a paraphrase of about
a megabyte), ``appended`` (each metaphor put after the untouched trigger), ``cyrillic`` (the paraphrase in
Cyrillic letters). ``slow`` (seconds) delays every answer.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

METAPHORS = {"checked into": "stormed the gates of", "rehab": "the harbour of healing",
             "checks into": "sails into", "fired": "cast out", "arrested": "netted"}


_CYRILLIC = dict(zip(map(ord, "abcdefghijklmnopqrstuvwxyz"), "абцдефгхийклмнопярстувшхыз", strict=True))


def answer_for(prompt: str, what: str = "json") -> dict:
    quoted = re.findall(r'"""(.*?)"""', prompt, re.S)
    sentence, words = quoted[0], json.loads(quoted[1])
    metaphoric = [METAPHORS.get(w, "danced with fate") for w in words]
    out = sentence
    for w, m in zip(words, metaphoric):
        new = f"{w} {m}" if what == "appended" else m
        out = out.replace(w, new, 1) if w in out else out.replace(w.split()[0], new, 1)
    if what == "huge":
        out += " and so on" * 100_000
    if what == "cyrillic":
        out = out.translate(_CYRILLIC)
    return {"Original Sentence": sentence, "Original Word List": words, "Metaphoric Word List": metaphoric,
            "Metaphoric Sentence": out}


class ScriptedLLM:
    def __init__(self, script: dict[str, list[str]] | None = None, delay: float = 3.0, slow: float = 0.0,
                 port: int = 0):
        self.script, self.delay, self.slow = script or {}, delay, slow
        self.requests: list[dict] = []
        self.seen: dict[str, int] = defaultdict(int)
        self.inflight = self.max_inflight = 0
        self.lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                owner.handle(self, body)

            def log_message(self, *a):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def behaviour(self, prompt: str) -> str:
        with self.lock:
            for needle, steps in self.script.items():
                if needle in prompt:
                    n = self.seen[needle]
                    self.seen[needle] += 1
                    return steps[n] if n < len(steps) else steps[-1]
        return "json"

    def handle(self, h: BaseHTTPRequestHandler, body: dict) -> None:
        prompt = body["messages"][0]["content"]
        with self.lock:
            self.requests.append(body)
            self.inflight += 1
            self.max_inflight = max(self.max_inflight, self.inflight)
        done = []

        def finish() -> None:   # a request stops counting before its body is sent: once the client has
            if not done:        # its answer it may send the next one, which must not look concurrent
                done.append(True)
                with self.lock:
                    self.inflight -= 1

        try:
            self._answer(h, body, prompt, finish)
        finally:
            finish()

    def _answer(self, h: BaseHTTPRequestHandler, body: dict, prompt: str, finish) -> None:
        what = self.behaviour(prompt)
        if self.slow:
            time.sleep(self.slow)
        if what in ("429", "500"):
            data = b'{"error": "busy"}'
            h.send_response(int(what))
            h.send_header("Retry-After", "0")
        else:
            if what == "timeout":
                time.sleep(self.delay)
            ans = answer_for(prompt, what)
            if what == "nolist":  # a model that leaves its word list out
                ans["Metaphoric Word List"] = []
            if what == "wrongkeys":
                ans = {"sentence": ans["Metaphoric Sentence"], "metaphors": ans["Metaphoric Word List"]}
            text = {"json": json.dumps(ans),
                    "fenced": "Here you go:\n```json\n" + json.dumps(ans, indent=1)[:-2] + ",\n}\n```",
                    "prose": "I would turn the words into vivid images, for example a storm."}[
                what if what in ("fenced", "prose") else "json"]
            reply = {"choices": [{"message": {"role": "assistant", "content": text}}],
                     "usage": {"prompt_tokens": len(prompt.split()), "completion_tokens": len(text.split())}}
            data = json.dumps(reply).encode()
            h.send_response(200)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        finish()
        try:
            h.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def __enter__(self) -> ScriptedLLM:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
