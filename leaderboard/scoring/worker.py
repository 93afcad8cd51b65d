"""The queue worker: a background thread scoring PENDING submissions (PENDING -> RUNNING -> FINISHED/FAILED).

Each submission is scored under a lease the worker renews; a row left RUNNING by a scorer that died
(this worker's predecessor, a killed ``figbench submit`` or ``leaderboard work``) is recovered once its
lease runs out, never while its scorer is alive, so a row is never scored twice at the same time.

When the queue cannot be worked (a full disk, a read-only store) the worker backs off exponentially
(``interval_s`` doubling up to ``max_backoff_s``) and logs one line when it starts failing, one when the
error changes and one when it works again, never one traceback per poll.
"""

from __future__ import annotations

import logging
import threading

from figbench_leaderboard.scoring.board import Leaderboard
from figbench_leaderboard.store.errors import StoreError

log = logging.getLogger(__name__)


class Worker:
    """Polls the store every ``interval_s`` seconds and scores what is pending."""

    def __init__(self, board: Leaderboard, *, interval_s: float = 0.5, max_backoff_s: float = 60.0) -> None:
        self.board = board
        self.interval_s = interval_s
        self.max_backoff_s = max(max_backoff_s, interval_s)
        self.failing: str | None = None   #: the error the queue is failing with now (None: working)
        self.delay_s = interval_s         #: the wait before the next poll
        self.failed_polls = 0             #: polls that failed since start
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> Worker:
        if self._thread is not None and self._thread.is_alive():
            return self
        try:
            recovered = self.board.store.recover_expired()
            if recovered:
                log.warning("recovered %d submission(s) whose scorer stopped", recovered)
        except Exception:  # a read-only store can still be served
            log.exception("cannot recover expired leases")
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name="figbench-leaderboard-worker", daemon=True)
        self._thread.start()
        return self

    def wake(self) -> None:
        """Process the queue now instead of at the next poll."""
        self._wake.set()

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self.board.run_pending()
            except Exception as e:  # keep serving; the submission is failed or its lease runs out
                self._failed(e)
            else:
                if self.failing is not None:
                    log.warning("queue worker: working again after: %s", self.failing)
                self.failing, self.delay_s = None, self.interval_s
            self._wake.wait(self.delay_s)
            self._wake.clear()

    def _failed(self, e: Exception) -> None:
        """Back off (doubling, capped); one log line when the error is new, none while it repeats."""
        what = f"{type(e).__name__}: {e}"
        self.failed_polls += 1
        if what != self.failing:
            if isinstance(e, StoreError):   # a plain-words condition (full, read-only): no traceback
                log.error("queue worker: %s; retrying with back-off (at most every %.0f s)", what, self.max_backoff_s)
            else:
                log.exception("queue worker error; retrying with back-off (at most every %.0f s)", self.max_backoff_s)
            self.delay_s = self.interval_s
        self.failing = what
        self.delay_s = min(self.delay_s * 2, self.max_backoff_s)

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()
