"""The queue worker: a background thread scoring PENDING submissions (PENDING -> RUNNING -> FINISHED/FAILED)."""

from __future__ import annotations

import logging
import threading

from figbench_leaderboard.board import Leaderboard

log = logging.getLogger(__name__)


class Worker:
    """Polls the store every ``interval_s`` seconds and scores what is pending.

    On start, submissions left RUNNING by a crashed worker go back to PENDING.
    """

    def __init__(self, board: Leaderboard, *, interval_s: float = 0.5) -> None:
        self.board = board
        self.interval_s = interval_s
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> Worker:
        if self._thread is not None and self._thread.is_alive():
            return self
        requeued = self.board.store.requeue_running()
        if requeued:
            log.warning("requeued %d submission(s) left RUNNING", requeued)
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
            except Exception:  # keep serving; the failing submission is already marked FAILED
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
