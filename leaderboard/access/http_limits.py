"""Limits on request bodies, enforced before the app reads them (ASGI middleware), and what a refusal costs.

* **Size.** A request announcing a larger ``Content-Length`` is answered 413 at once, without reading its
  body; a chunked body is counted as it arrives and cut off at the cap.
* **Structure.** Each body is scanned as it arrives (:class:`~figbench_leaderboard.domain.submission.JsonShape`: every
  ``[ {`` and ``, :``, escapes included, counted on the raw bytes) and cut off with 413 once it holds more
  JSON structure than any submission needs, before Gradio or the board builds a single Python object.
* **Work per sender.** The CPU seconds the board spends validating an identity's submissions are charged to
  it (:class:`CpuBudget`): past ``max_cpu_s`` a minute its bodies are answered 429 unread; past the board's
  budget for all senders together (1 s in 10 as served), every body sent to the submission API is.
* **Cost to the sender.** Each refusal, whatever its status (the API's ``200 {"ok": false}`` too: the
  handlers record theirs in the same :class:`Refusals`), counts against the sender's identity (the client address as
  :func:`~figbench_leaderboard.access.identity.client_address` finds it); with ``max_refusals`` refusals in
  ``window_s`` (the board's rate limit) every further body from that identity is answered 429 before a byte
  of it is read.
* **Pace.** A body of 256 KB or more (not an upload) is read whole, then waits its turn in the
  :class:`~figbench_leaderboard.access.pacing.BodyPacer`: one at a time into the app, spaced so that big
  bodies take about a tenth of the event loop; the loop's CPU time on it (Gradio's parse) is charged to
  the sender and to the board like validation work.

Gradio's routes (``/gradio_api/queue/join``, ``/gradio_api/upload``...) therefore never hold more than the
cap in memory, and a flood of bombs costs the board a few milliseconds per request.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from collections import deque
from typing import Any

from figbench_leaderboard.access.pacing import NO_TURN, TARPIT_S, BodyPacer, Turn
from figbench_leaderboard.domain.submission import JsonShape

log = logging.getLogger(__name__)


class Refusals:
    """Refused requests per identity in a sliding window (thread-safe, bounded in memory)."""

    def __init__(self, max_refusals: int | None, window_s: float = 3600.0, *, max_identities: int = 100_000) -> None:
        self.max_refusals = max_refusals
        self.window_s = window_s
        self.max_identities = max_identities
        self._seen: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, who: str, now: float) -> deque[float] | None:
        times = self._seen.get(who)
        while times and now - times[0] > self.window_s:
            times.popleft()
        return times

    def record(self, who: str | None, now: float | None = None) -> None:
        if who is None or self.max_refusals is None:
            return
        now = time.monotonic() if now is None else now
        with self._lock:
            if who not in self._seen and len(self._seen) >= self.max_identities:
                for k in [k for k, v in self._seen.items() if not self._recent(k, now)]:
                    del self._seen[k]
                if len(self._seen) >= self.max_identities:   # still full: forget the oldest identity
                    del self._seen[next(iter(self._seen))]
            self._seen.setdefault(who, deque()).append(now)

    def retry_after(self, who: str | None, now: float | None = None) -> float | None:
        """Seconds until ``who`` may send a body again; None when not blocked."""
        if who is None or self.max_refusals is None:
            return None
        now = time.monotonic() if now is None else now
        with self._lock:
            times = self._recent(who, now)
            if not times or len(times) < self.max_refusals:
                return None
            return max(1.0, self.window_s - (now - times[-self.max_refusals]))

    def count(self, who: str) -> int:
        with self._lock:
            return len(self._recent(who, time.monotonic()) or ())


class CpuBudget:
    """Server CPU seconds spent validating each identity's submissions in a sliding window (thread-safe):
    at ``max_cpu_s`` in ``window_s`` the identity's next bodies are refused unread (429) until enough of
    that work has left the window. A refusal answered ``200 {"ok": false}`` (a key bomb, a cluster of
    made-up ids) costs its sender here as well as in :class:`Refusals`.

    All identities together get ``max_total_s`` in ``total_window_s`` (:meth:`busy_for`): many addresses
    flooding at once cannot take more of the server than that, whatever their number (page loads stay fast);
    past it every body is refused unread until the work leaves the window."""

    def __init__(self, max_cpu_s: float | None = 2.0, window_s: float = 60.0, *, max_identities: int = 100_000,
                 max_total_s: float | None = None, total_window_s: float = 10.0) -> None:
        self.max_cpu_s, self.window_s, self.max_identities = max_cpu_s, window_s, max_identities
        self.max_total_s, self.total_window_s = max_total_s, total_window_s
        self._spent: dict[str, deque[tuple[float, float]]] = {}
        self._total: deque[tuple[float, float]] = deque()
        self._lock = threading.Lock()

    def _recent(self, who: str, now: float) -> deque[tuple[float, float]]:
        spent = self._spent.get(who) or deque()
        while spent and now - spent[0][0] > self.window_s:
            spent.popleft()
        return spent

    def charge(self, who: str | None, cpu_s: float, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        if self.max_total_s is not None:
            with self._lock:
                self._total.append((now, cpu_s))
        if who is None or self.max_cpu_s is None:
            return
        with self._lock:
            if who not in self._spent and len(self._spent) >= self.max_identities:
                for k in [k for k in self._spent if not self._recent(k, now)]:
                    del self._spent[k]
                if len(self._spent) >= self.max_identities:
                    del self._spent[next(iter(self._spent))]
            self._spent.setdefault(who, deque()).append((now, cpu_s))

    def retry_after(self, who: str | None, now: float | None = None) -> float | None:
        """Seconds until ``who`` may send work again; None while within its budget."""
        if who is None or self.max_cpu_s is None:
            return None
        now = time.monotonic() if now is None else now
        with self._lock:
            return _wait(self._recent(who, now), self.max_cpu_s, self.window_s, now)

    def busy_for(self, now: float | None = None) -> float | None:
        """Seconds until the board takes validation work from anyone again; None while all senders together
        are within ``max_total_s``."""
        if self.max_total_s is None:
            return None
        now = time.monotonic() if now is None else now
        with self._lock:
            while self._total and now - self._total[0][0] > self.total_window_s:
                self._total.popleft()
            return _wait(self._total, self.max_total_s, self.total_window_s, now)

    def refusal(self, who: str | None, *, board: bool = True) -> str | None:
        """Why a body from ``who`` is refused now (its own budget, or with ``board`` the board's), None when it
        is not."""
        wait = self.retry_after(who)
        if wait is not None:
            return f"too much validation work for {who} in the last {self.window_s:.0f} s; try again in {wait:.0f} s"
        wait = self.busy_for() if board else None
        if wait is not None:
            return (f"too much validation work for the board (all senders) in the last {self.total_window_s:.0f} s; "
                    f"try again in {wait:.0f} s")
        return None


def _wait(spent: deque[tuple[float, float]], budget: float, window_s: float, now: float) -> float | None:
    """Seconds until the ``(time, cpu_s)`` charges in ``spent`` total under ``budget``; None when they do."""
    total = sum(c for _, c in spent)
    if total < budget:
        return None
    for t, c in spent:   # the earliest moment the window's total falls under the budget
        total -= c
        if total < budget:
            return max(1.0, window_s - (now - t))
    return 1.0


#: the API's submission routes, refused unread while the board's validation budget is spent (the Submit tab's
#: upload is not validated when it arrives: its submission is refused by the handler, see ``Submissions``)
SUBMISSION_PREFIXES = ("/gradio_api/call/submit_json", "/gradio_api/call/v2/submit_json")


def scope_identity(scope: dict) -> str | None:
    """``ip:<address>`` of an ASGI request, as the board's rate limits see it (``request_identity``)."""
    from figbench_leaderboard.access.identity import client_address
    from starlette.datastructures import Headers

    peer = (scope.get("client") or (None,))[0]
    host = client_address(Headers(scope=scope), peer)
    return f"ip:{host}" if host else None


class BodyLimit:
    """ASGI middleware: refuse HTTP request bodies over ``max_bytes`` or with more JSON structure than
    ``shape`` allows with 413, and every body of an identity refused ``max_refusals`` times in ``window_s``
    with 429 (``rate_limit``: a :class:`~figbench_leaderboard.store.limits.RateLimit` giving both), each 429
    after ``tarpit_s`` (the body unread: a flood's refused senders cost the board next to nothing);
    ``structure=False`` turns the structure scan off (benchmarks' baseline)."""

    def __init__(self, app: Any, max_bytes: int, *, rate_limit: Any = None, max_refusals: int | None = 20,
                 window_s: float = 3600.0, structure: bool = True, max_containers: int | None = None,
                 max_separators: int | None = None, refusals: Refusals | None = None,
                 cpu: CpuBudget | None = None, tarpit_s: float = TARPIT_S, pacer: BodyPacer | None = None) -> None:
        self.app = app
        self.pacer = pacer
        self.tarpit_s = tarpit_s
        self.max_bytes = int(max_bytes)
        if rate_limit is not None:
            max_refusals, window_s = rate_limit.max_submissions, rate_limit.window_s
        #: shared with the app's handlers, which record their own refusals and charge their CPU time
        self.refusals = refusals if refusals is not None else Refusals(max_refusals, window_s)
        self.cpu = cpu
        self.structure = structure
        self._shape_args = {k: v for k, v in (("max_containers", max_containers), ("max_separators", max_separators))
                            if v is not None}

    async def _refuse(self, send: Any, status: int, message: str, headers: list | None = None) -> None:
        if status == 429 and self.tarpit_s:
            await asyncio.sleep(self.tarpit_s)   # a sender over its limits retries at most once per tarpit_s
        body = json.dumps({"error": message}).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close"), *(headers or [])]})
        await send({"type": "http.response.body", "body": body})

    async def _refused_early(self, send: Any, who: str | None, length: bytes | None, submission: bool) -> bool:
        """Answer a sender over its refusal limit or CPU budget, or a submission (``submission``: the API, an
        upload) while the board's validation budget is spent (429); a declared length over the limit (413)."""
        wait = self.refusals.retry_after(who)
        if wait is not None:
            await self._refuse(send, 429, f"too many refused requests from {who}; try again in {wait:.0f} s",
                               [(b"retry-after", str(int(wait)).encode())])
            return True
        cpu = self.cpu
        why = (cpu.refusal(who) if submission else cpu.refusal(who, board=False)) if cpu is not None else None
        if why is not None:
            wait = max(cpu.retry_after(who) or 0, (cpu.busy_for() if submission else 0) or 0, 1.0)
            await self._refuse(send, 429, why, [(b"retry-after", str(int(wait)).encode())])
            return True
        declared = _length(length)
        if length is not None and (declared is None or declared > self.max_bytes):   # unreadable: refused too
            self.refusals.record(who)
            await self._refuse(send, 413, self._too_big())
            return True
        return False

    async def _handoff(self, path: str, length: bytes | None, receive: Any, send: Any,
                       who: str | None = None) -> tuple[Any, Turn] | None:
        """The ``receive`` the app gets and the body's turn in the pacer: a big body (not an upload) is read
        whole, then waits for its turn (a ``receive`` replaying it); others go on as they arrive. None when it
        was refused or aborted while it arrived, or when too many wait already (429 unread, not counted
        against the sender)."""
        if self.pacer is None or path.startswith(UPLOAD_PREFIX) or not self.pacer.paces(_length(length)):
            return receive, NO_TURN
        body = await _read_all(receive)
        if body is None:
            return None
        if self.pacer.full():
            await self._refuse(send, 429, "the board is busy with other large requests; try again in a few "
                               "seconds", [(b"retry-after", b"2")])
            return None
        cpu = self.cpu
        turn = await self.pacer.acquire(None if cpu is None else lambda cpu_s: cpu.charge(who, cpu_s))
        return _replay(body, receive), turn

    def _too_big(self) -> str:
        return f"request body larger than {self.max_bytes:,} bytes"

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        has_body, length = _body_headers(scope)
        who = scope_identity(scope) if has_body else None
        path = scope.get("path", "")
        submission = path.startswith(SUBMISSION_PREFIXES)
        if has_body and await self._refused_early(send, who, length, submission):
            return
        seen = 0
        shape = JsonShape(**self._shape_args) if self.structure and has_body else None
        started = refused = aborted = False

        async def tracked_send(message: dict) -> None:
            nonlocal started
            if refused:
                return   # the app's late answer to a body it never fully got
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        async def counted_receive() -> dict:
            nonlocal seen, refused, aborted
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.disconnect" and has_body and not started and not aborted:
                aborted = True   # the client hung up before its body was complete
                log.warning("aborted body from %s: %s %s, %s of %s bytes received", who, scope.get("method"),
                            scope.get("path", "")[:80], f"{seen:,}", (length or b"?").decode(errors="replace"))
            if message["type"] == "http.request":
                chunk = message.get("body", b"")
                seen += len(chunk)
                why = self._too_big() if seen > self.max_bytes else (shape.feed(chunk) if shape else None)
                if why:
                    self.refusals.record(who)
                    if not started:
                        await self._refuse(send, 413, why)
                    refused = True
                    return {"type": "http.disconnect"}
            return message

        handoff = await self._handoff(path, length, counted_receive, send, who) if has_body \
            else (counted_receive, NO_TURN)
        if handoff is None:
            return   # refused (answered) or aborted (logged) while it arrived, or too many big bodies wait
        app_receive, turn = handoff
        try:
            await self.app(scope, app_receive, turn.releasing(tracked_send))
        except Exception:
            if not (refused or aborted):
                raise   # the app's own error; a refused or aborted body's disconnect is expected (logged above)
        finally:
            turn.release()


#: Gradio's upload route streams its multipart body to disk: not buffered or paced here
UPLOAD_PREFIX = "/gradio_api/upload"


def _length(length: bytes | None) -> int | None:
    """A declared Content-Length as a number; None when absent or not a number."""
    try:
        return int(length) if length is not None else None
    except ValueError:
        return None


async def _read_all(receive: Any) -> bytes | None:
    """The whole request body from ``receive``; None when it ended in a disconnect (a refusal or an abort)."""
    chunks = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(chunks)


def _replay(body: bytes, receive: Any) -> Any:
    """An ASGI ``receive`` that gives ``body`` in one message, then whatever ``receive`` says (a disconnect)."""
    held: list[bytes] = [body]

    async def replayed() -> dict:
        if held:
            return {"type": "http.request", "body": held.pop(), "more_body": False}
        return await receive()
    return replayed


def _body_headers(scope: dict) -> tuple[bool, bytes | None]:
    """(whether the request has a body, its declared Content-Length)."""
    headers = dict(scope.get("headers") or [])
    length = headers.get(b"content-length")
    return length not in (None, b"0") or b"chunked" in headers.get(b"transfer-encoding", b""), length
