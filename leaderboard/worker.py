"""The queue worker: a background thread scoring PENDING submissions (PENDING -> RUNNING -> FINISHED/FAILED).

Each submission is scored under a lease the worker renews; a row left RUNNING by a scorer that died
(this worker's predecessor, a killed ``figbench submit`` or ``leaderboard work``) is recovered once its
lease runs out, never while its scorer is alive, so a row is never scored twice at the same time.
"""

from __future__ import annotations

import logging
import threading

from figbench_leaderboard.board import Leaderboard

log = logging.getLogger(__name__)


class Worker:
    """Polls the store every ``interval_s`` seconds and scores what is pending."""

    def __init__(self, board: Leaderboard, *, interval_s: float = 0.5) -> None:
        self.board = board
        self.interval_s = interval_s
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
            except Exception:  # keep serving; the submission is failed or its lease runs out
                log.exception("queue worker error")
            self._wake.wait(self.interval_s)
            self._wake.clear()

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()
