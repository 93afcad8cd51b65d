"""Issue 33: big submission bodies are validated in the parse worker (a child process), so the server's threads
keep running while a key bomb is parsed; the worker's CPU time is charged to the sender; a job past its
timeout has its worker killed and its sender refused, and the next body gets a fresh worker."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from figbench_leaderboard.domain.submission import SubmissionError
from figbench_leaderboard.scoring.board import Leaderboard
from figbench_leaderboard.scoring.gold import JsonGoldProvider
from figbench_leaderboard.scoring.parse_worker import CpuMeter, ParseWorker
from figbench_leaderboard.store.sqlite import Store

from tests.test_leaderboard_abuse import FIX, GOLD, big_cluster, key_bomb


@pytest.fixture()
def board(tmp_path: Path):
    b = Leaderboard(Store(tmp_path / "store"), JsonGoldProvider(GOLD))
    yield b
    if b.parser is not None:
        b.parser.close()
    b.store.close()


def _longest_stall(work) -> tuple[float, object]:
    """The longest gap a ticking thread saw (it wakes every 5 ms) while ``work()`` ran here, and its outcome."""
    gaps, stop = [0.0], threading.Event()

    def tick() -> None:
        last = time.perf_counter()
        while not stop.is_set():
            time.sleep(0.005)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    ticker = threading.Thread(target=tick)
    ticker.start()
    try:
        out = work()
    except SubmissionError as e:
        out = e
    finally:
        stop.set()
        ticker.join()
    return max(gaps), out


def test_a_key_bomb_is_parsed_without_stalling_the_server(board):
    """In-process, json.loads of 800,000 keys holds the GIL for its whole parse (about a second; the page
    loads of a served board wait that long); in the worker, the server's threads keep ticking. The refusal
    is the same words either way, and the sender is charged the worker's CPU time."""
    bomb = key_bomb()
    meter = CpuMeter()
    stall_here, here = _longest_stall(lambda: board.submit(bomb))
    cpu_here = meter.seconds()
    board.parser = ParseWorker(board.gold)
    board.parser.parse(Path(FIX / "predictions_cdec.json").read_text(), board.registry, board.limits)  # started
    meter = CpuMeter()
    stall_worker, there = _longest_stall(lambda: board.submit(bomb))
    cpu_worker = meter.seconds()
    print(f"\nlongest stall: in-process {stall_here:.3f} s, worker {stall_worker:.3f} s; CPU charged "
          f"{cpu_here:.2f} / {cpu_worker:.2f} s")
    assert isinstance(here, SubmissionError) and isinstance(there, SubmissionError)
    assert str(there) == str(here) and "800000 predicted example ids" in str(there)
    assert stall_worker < 0.3 and stall_worker < stall_here / 2, (stall_here, stall_worker)
    assert cpu_worker > 0.5 * cpu_here, (cpu_here, cpu_worker)   # charged though this thread only waited
    # a big cluster: the same refusal as in-process
    with pytest.raises(SubmissionError, match="600000 predicted mention ids"):
        board.submit(big_cluster())
    assert board.store.list() == []


def test_a_valid_big_body_is_stored_as_from_the_worker(board, tmp_path):
    """A body over the threshold that is a valid submission: the worker's row is the row validated here."""
    text = (FIX / "predictions_cdec.json").read_text()
    here = board.parse_submission(text)
    board.parser = ParseWorker(board.gold, min_bytes=1)
    there = board.parse_submission(text)
    assert there == here and there["predictions"] and there["status"] == "PENDING"
    out = board.submit(text)
    stored = board.store.get(out["id"])
    assert out["status"] == "PENDING" and stored.get("sha256", here["sha256"]) == here["sha256"]
    assert board.process(out["id"])["status"] == "FINISHED"   # scored from what the worker validated


def test_a_job_past_its_timeout_is_killed_and_refused(board):
    """A parse over the worker's timeout: its child is killed, the sender refused with a line that says so and
    charged the time; the next big body gets a fresh worker."""
    board.parser = ParseWorker(board.gold, timeout_s=0.05)
    small = (FIX / "predictions_cdec.json").read_text()
    board.parser.timeout_s = 60
    board.parser.parse(small, board.registry, board.limits)   # started, within its timeout
    first = board.parser._proc
    board.parser.timeout_s = 0.05
    meter = CpuMeter()
    with pytest.raises(SubmissionError, match=r"validating it took longer than 0\.05 s .*stopped and refused"):
        board.submit(key_bomb())
    assert meter.seconds() >= 0.05
    assert first.poll() is not None and board.parser._proc is None   # killed, not left running
    board.parser.timeout_s = 60
    row = board.parser.parse(small, board.registry, board.limits)
    assert row["status"] == "PENDING" and board.parser._proc.pid != first.pid
