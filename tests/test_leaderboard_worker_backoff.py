"""A full store (SQLite's page cap: writes fail for real, as on a full disk) makes the queue worker back
off with one log line per state change, not one traceback per poll."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path

from figbench_leaderboard.scoring.board import Leaderboard, Limits
from figbench_leaderboard.scoring.gold import JsonGoldProvider
from figbench_leaderboard.scoring.worker import Worker
from figbench_leaderboard.store.sqlite import Store

FIX = Path(__file__).parent / "fixtures" / "leaderboard"
GOLD = FIX / "gold.json"


def test_full_store_backs_off_with_one_line_per_state_change(tmp_path, caplog):
    folder = tmp_path / "store"
    board = Leaderboard(Store(folder), JsonGoldProvider(GOLD), limits=Limits(n_resamples=20))
    for i in range(6):
        sub = json.loads((FIX / "predictions_metonymy.json").read_text())
        sub["model"]["name"] = f"full-{i}"
        board.submit(sub)
    for i in range(4):   # space to free later
        filler = json.loads((FIX / "predictions_metonymy.json").read_text())
        filler["model"]["name"] = f"filler-{i}"
        filler["provenance"] = {f"k{j}": "y" * 1900 for j in range(8)}
        board.store.fail(board.submit(filler)["id"], "filler")
    plain = Store(folder)
    plain._conn().execute("VACUUM")            # no free pages left: the cap is the disk's last byte
    pages = plain._read("PRAGMA page_count")[0][0]
    full = Leaderboard(Store(folder, max_pages=pages, lease_s=0.3), JsonGoldProvider(GOLD),
                       limits=Limits(n_resamples=20))
    worker = Worker(full, interval_s=0.01, max_backoff_s=0.08)
    with caplog.at_level(logging.INFO, logger="figbench_leaderboard.scoring.worker"):
        worker.start()
        time.sleep(2.0)                        # every row fails to be scored (or claimed): the disk is full
        with Store(folder).transaction() as db:   # then space is freed
            db.execute("DELETE FROM submissions WHERE model_name LIKE 'filler-%'")
        deadline = time.time() + 60
        while (worker.failing is not None or Store(folder).count("PENDING") + Store(folder).count("RUNNING")) \
                and time.time() < deadline:
            time.sleep(0.05)
        worker.stop()
    lines = [r for r in caplog.records if r.name == "figbench_leaderboard.scoring.worker"]
    assert worker.failed_polls >= 3, worker.failed_polls
    assert [r.levelname for r in lines] == ["ERROR", "WARNING"], [r.getMessage() for r in lines]
    assert "is full" in lines[0].getMessage() and "back-off" in lines[0].getMessage()
    assert lines[0].exc_info is None                          # a plain line, no traceback
    assert "working again" in lines[1].getMessage()
    assert worker.delay_s == 0.01                             # back to the normal poll
    assert Store(folder).count("PENDING") == Store(folder).count("RUNNING") == 0


def test_backoff_is_exponential_and_capped(tmp_path):
    board = Leaderboard(Store(tmp_path / "s"), JsonGoldProvider(GOLD))
    worker = Worker(board, interval_s=0.5, max_backoff_s=30.0)
    delays = []
    for _ in range(10):
        worker._failed(OSError(28, "No space left on device"))
        delays.append(worker.delay_s)
    assert delays[:4] == [1.0, 2.0, 4.0, 8.0] and delays[-1] == 30.0 and max(delays) == 30.0
