"""The parse worker: big submission bodies are validated in a separate process, so that the server's GIL stays
free for page loads (issue 33: one 9.5 MB object of 800,000 keys held it for about a second of ``json.loads``).

:class:`ParseWorker` keeps one child process (a fresh interpreter running this module), started on the first
big body and replaced when it dies or overruns. A job is the body and the registry; the answer is the
validated row of :func:`~figbench_leaderboard.scoring.intake.parse_submission` (with the compact predictions
the scorer needs) or the refusal, and the child's CPU seconds for it, which :class:`CpuMeter` adds to the
calling thread's own: the sender's validation budget is charged the work wherever it ran. A job past
``timeout_s`` has its child killed and the sender refused. Bodies under ``min_bytes`` stay in-process.
"""

from __future__ import annotations

import logging
import os
import pickle
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from multiprocessing.connection import Connection
from typing import Any

from figbench_leaderboard.domain.benchmarks import BenchmarkRegistry
from figbench_leaderboard.domain.submission import SubmissionError
from figbench_leaderboard.scoring.gold import GoldProvider
from figbench_leaderboard.scoring.intake import Limits, parse_submission

log = logging.getLogger(__name__)

#: bodies of at least this many characters go to the worker (smaller ones cost less than the round trip)
MIN_BYTES = 256 * 1024
#: wall-clock seconds one job may take before its worker is killed and the sender refused
TIMEOUT_S = 30.0
#: seconds a fresh worker may take to start (imports, on a loaded machine)
START_S = 120.0

_offloaded = threading.local()


def _add_offloaded(cpu_s: float) -> None:
    _offloaded.cpu_s = getattr(_offloaded, "cpu_s", 0.0) + cpu_s


class CpuMeter:
    """CPU seconds spent for the calling thread since the meter was made: its own, and the parse worker's on
    its jobs."""

    def __init__(self) -> None:
        self._t0, self._w0 = time.thread_time(), getattr(_offloaded, "cpu_s", 0.0)

    def seconds(self) -> float:
        return time.thread_time() - self._t0 + getattr(_offloaded, "cpu_s", 0.0) - self._w0


def _serve(inbox: Connection, outbox: Connection) -> None:
    """The child's loop: the gold provider first, then ``(data, registry, limits, submitter, overrides)`` in and
    ``(kind, value, cpu_s)`` out, until the server's end of the pipe closes."""
    gold = inbox.recv()
    outbox.send(("ready", None, 0.0))
    while True:
        try:
            data, registry, limits, submitter, overrides = inbox.recv()
        except (EOFError, OSError):
            return
        t0 = time.process_time()
        try:
            answer: tuple = ("ok", parse_submission(data, registry, gold, limits, submitter=submitter,
                                                     overrides=overrides))
        except ValueError as e:   # SubmissionError, GoldUnavailableError: the sender's refusal
            answer = ("refused", e)
        except Exception as e:   # a bug: the sender is told, the server logs it
            answer = ("failed", f"{type(e).__name__}: {e}")
        del data
        try:
            outbox.send((*answer, time.process_time() - t0))
        except (pickle.PicklingError, TypeError, AttributeError):   # an exception that does not pickle
            outbox.send(("refused", SubmissionError(str(answer[1])), time.process_time() - t0))


class ParseWorker:
    """One child process validating big bodies for a board (``gold``: the board's gold provider, copied into
    the child once; it loads its own gold from there)."""

    def __init__(self, gold: GoldProvider, *, min_bytes: int = MIN_BYTES, timeout_s: float = TIMEOUT_S) -> None:
        self.gold, self.min_bytes, self.timeout_s = gold, min_bytes, timeout_s
        self._lock = threading.Lock()
        self._proc: subprocess.Popen | None = None
        self._pipes: tuple[Connection, Connection] | None = None
        self._unusable: str | None = None

    def takes(self, data: Any) -> bool:
        """Whether ``data`` goes to the worker: a big body, while the worker can run."""
        return isinstance(data, (str, bytes)) and len(data) >= self.min_bytes and self._unusable is None

    def parse(self, data: str | bytes, registry: BenchmarkRegistry, limits: Limits, *, submitter: str | None = None,
              overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """:func:`parse_submission` of ``data`` in the worker: the row, or the SubmissionError it raised."""
        with self._lock:
            pipes = self._started()
            if pipes is None:   # the gold provider cannot be copied into a child: validate here
                return parse_submission(data, registry, self.gold, limits, submitter=submitter,
                                        overrides=overrides)
            t0 = time.monotonic()
            try:
                pipes[0].send((data, registry, limits, submitter, dict(overrides or {})))
                done = pipes[1].poll(self.timeout_s)
                kind, value, cpu_s = pipes[1].recv() if done else (None, None, 0.0)
            except (EOFError, OSError) as e:
                code = self._stop()
                _add_offloaded(time.monotonic() - t0)
                raise SubmissionError(f"submission: the validation worker stopped (exit code {code}) while reading "
                                      "it; refused") from e
            if not done:
                self._stop()
                _add_offloaded(time.monotonic() - t0)   # it was working all along: charged as such
                log.warning("parse worker: a %d-character body took over %.0f s; worker replaced", len(data),
                            self.timeout_s)
                raise SubmissionError(f"submission: validating it took longer than {self.timeout_s:g} s (the "
                                      "limit for one submission); stopped and refused")
        _add_offloaded(cpu_s)
        if kind == "ok":
            return value
        if kind == "refused":
            raise value
        log.error("parse worker: %s", value)
        raise SubmissionError(f"submission: could not be validated ({value})")

    def _started(self) -> tuple[Connection, Connection] | None:
        """The pipes (to, from) of a running worker, started if none runs (None when it cannot run)."""
        if self._proc is not None and self._proc.poll() is None:
            return self._pipes
        self._stop()
        try:
            pickle.dumps(self.gold)
        except Exception as e:   # e.g. a gold loader that is a local function
            self._unusable = f"{type(e).__name__}: {e}"
            log.warning("parse worker: the gold provider cannot be sent to a child (%s); validating in-process",
                        self._unusable)
            return None
        # a fresh interpreter running this module (not multiprocessing's spawn, which re-runs the server's
        # __main__), talking over two pipes
        to_child, child_in = os.pipe()
        child_out, from_child = os.pipe()
        try:
            proc = subprocess.Popen([sys.executable, "-m", __name__, str(to_child), str(from_child)],
                                    pass_fds=(to_child, from_child), stdin=subprocess.DEVNULL)
        finally:
            os.close(to_child)
            os.close(from_child)
        send, recv = Connection(child_in, readable=False), Connection(child_out, writable=False)
        try:
            send.send(self.gold)
            if not recv.poll(START_S):
                raise EOFError
            recv.recv()
        except (EOFError, OSError):
            proc.kill()
            proc.wait(5)
            send.close()
            recv.close()
            raise SubmissionError("submission: the validation worker did not start; try again") from None
        self._proc, self._pipes = proc, (send, recv)
        return self._pipes

    def _stop(self) -> int | None:
        """Kill the worker (if any); its exit code."""
        proc, pipes, self._proc, self._pipes = self._proc, self._pipes, None, None
        for pipe in pipes or ():
            pipe.close()
        if proc is None:
            return None
        if proc.poll() is None:
            proc.kill()
        try:
            return proc.wait(5)
        except subprocess.TimeoutExpired:
            return None

    def close(self) -> None:
        """Stop the worker (a later big body starts a new one)."""
        with self._lock:
            self._stop()


if __name__ == "__main__":   # the child: python -m figbench_leaderboard.scoring.parse_worker IN_FD OUT_FD
    _serve(Connection(int(sys.argv[1]), writable=False), Connection(int(sys.argv[2]), readable=False))
