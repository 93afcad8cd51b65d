"""Big request bodies reach the app one at a time, spaced out (issue 33: page loads during a flood).

Gradio parses a JSON request body with ``json.loads`` on the server's event loop: a 9 MB ``submit_json``
body holds the loop for about 50-100 ms, and six senders whose bodies arrive together held page loads for
half a second and more. :class:`BodyPacer` takes bodies of at least ``min_bytes`` once they are complete
(read by :class:`~figbench_leaderboard.access.http_limits.BodyLimit`, which buffers them), lets one at a
time into the app and, after each, keeps the next waiting for ``(1 - share) / share`` times as long as the
app held that one before answering (``share``: the event loop's share for big bodies, a tenth as served), so
page loads always find the loop free most of the time. Bodies wait rather than being refused: at most
``max_waiting`` complete bodies wait at once (bounded memory); a body arriving when that many wait is
answered 429 unread, which does not count against its sender (the board is busy, not the sender wrong).
The event loop's CPU seconds during a turn are charged like validation work
(:class:`~figbench_leaderboard.access.http_limits.CpuBudget`): to the sender and to all senders together.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

#: bodies of at least this many bytes are paced (a page load's bodies are a few hundred bytes)
MIN_BYTES = 256 * 1024
#: the event loop's share for big bodies as served (``serve --big-body-share``)
SHARE = 0.1
#: seconds :class:`~figbench_leaderboard.access.http_limits.BodyLimit` holds each 429 before sending it, the
#: body unread (``serve --tarpit-s``): a sender over its limits retries at most once per this
TARPIT_S = 1.0


class BodyPacer:
    """One big body at a time into the app, each followed by a pause in proportion to what it cost."""

    def __init__(self, *, min_bytes: int = MIN_BYTES, share: float = SHARE, max_waiting: int = 6,
                 min_gap_s: float = 0.05, max_gap_s: float = 1.0, max_hold_s: float = 5.0) -> None:
        if not 0 < share <= 1:
            raise ValueError(f"share must be in (0, 1], got {share}")
        self.min_bytes, self.share, self.max_waiting = min_bytes, share, max_waiting
        self.min_gap_s, self.max_gap_s, self.max_hold_s = min_gap_s, max_gap_s, max_hold_s
        self.waiting = 0
        self._lock: asyncio.Lock | None = None
        self._next = 0.0

    def paces(self, length: int | None) -> bool:
        """Whether a body of ``length`` bytes (None: not announced, chunked) waits for its turn."""
        return length is None or length >= self.min_bytes

    def full(self) -> bool:
        """Whether as many complete bodies wait as may (the next is refused unread)."""
        return self.waiting >= self.max_waiting

    async def acquire(self, charge: Callable[[float], None] | None = None) -> Turn:
        """Wait for this body's turn (the previous body's answer, then its pause); returns the turn to
        :meth:`Turn.release` once the app has answered. ``charge`` is given the event loop's CPU seconds
        during the turn (what the app spent on the body before answering: Gradio's parse of it)."""
        if self._lock is None:
            self._lock = asyncio.Lock()   # made on the server's loop, at its first big body
        self.waiting += 1
        try:
            await self._lock.acquire()
        finally:
            self.waiting -= 1
        try:
            delay = self._next - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
        except BaseException:
            self._lock.release()
            raise
        return Turn(self, charge)

    def _done(self, held_s: float) -> None:
        gap = held_s * (1 - self.share) / self.share
        self._next = time.monotonic() + min(self.max_gap_s, max(self.min_gap_s, gap))
        assert self._lock is not None
        self._lock.release()


class Turn:
    """One body's turn: released when the app starts its answer, when it returns, or after ``max_hold_s``
    (without a pacer: :data:`NO_TURN`, which holds nothing)."""

    def __init__(self, pacer: BodyPacer | None, charge: Callable[[float], None] | None = None) -> None:
        self.pacer, self.started, self.charge = pacer, time.monotonic(), charge
        self._cpu0 = time.thread_time()   # the event loop's thread (turns start and end on it)
        self.released = pacer is None
        self._timer = asyncio.get_running_loop().call_later(pacer.max_hold_s, self.release) if pacer else None

    def releasing(self, send: Any) -> Any:
        """``send`` that releases this turn when the app starts its answer (it has the body by then)."""
        if self.pacer is None:
            return send

        async def wrapped(message: dict) -> None:
            if message["type"] == "http.response.start":
                self.release()
            await send(message)
        return wrapped

    def release(self) -> None:
        if self.released:
            return
        self.released = True
        if self._timer is not None:
            self._timer.cancel()
        if self.pacer is not None:
            self.pacer._done(time.monotonic() - self.started)
        if self.charge is not None:
            self.charge(time.thread_time() - self._cpu0)


#: the turn of a body that is not paced
NO_TURN = Turn(None)
