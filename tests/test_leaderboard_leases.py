"""Issue 13, nothing stuck and nothing lost: leases, killed scorers, concurrent CLI and server, full or
read-only stores. Real processes (``figbench`` CLI subprocesses killed with SIGKILL), real SQLite, a real
tmpfs for the full disk when this machine allows mounting one."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from figbench_leaderboard.client import submit
from figbench_leaderboard.scoring.board import Leaderboard, Limits
from figbench_leaderboard.scoring.gold import JsonGoldProvider
from figbench_leaderboard.scoring.worker import Worker
from figbench_leaderboard.store.errors import StoreFullError
from figbench_leaderboard.store.sqlite import Store
from figbench_leaderboard.store.synthetic import noisy_clusters, synthetic_coref_gold

FIX = Path(__file__).parent / "fixtures" / "leaderboard"
GOLD = FIX / "gold.json"


def _cli(*args: str, **kw) -> subprocess.Popen:
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "OMP_NUM_THREADS": "1"}
    return subprocess.Popen([sys.executable, "-m", "figbench.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, **kw)


@pytest.fixture(scope="module")
def slow(tmp_path_factory):
    """A coreference split big enough that scoring takes seconds (killable mid-way)."""
    tmp = tmp_path_factory.mktemp("slow")
    gold = synthetic_coref_gold(20000, 10000, seed=3, key="cdec/ecbplus/events/test")
    (tmp / "gold.json").write_text(json.dumps({gold.key: gold.to_json()}))
    sub = {"format": "figbench-predictions/1", "task": "cdec", "dataset": "ecbplus", "config": "events",
           "split": "test", "model": {"name": "slow-model", "type": "other"}, "predictions": noisy_clusters(gold)}
    (tmp / "pred.json").write_text(json.dumps(sub))
    return tmp


def _wait_status(store: Path, status: str, timeout: float = 300.0, proc: subprocess.Popen | None = None) -> dict:
    """The first row once it has ``status``; generous on a loaded CI machine, and says why when the
    scoring process ended first."""
    deadline = time.time() + timeout
    seen = None
    while time.time() < deadline:
        if (store / "leaderboard.sqlite").exists():
            rows = Store(store).list()
            seen = rows[0]["status"] if rows else None
            if seen == status:
                return rows[0]
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"the scoring process exited ({proc.returncode}) before the row was {status} "
                                 f"(last seen {seen}): {proc.stderr.read()[-2000:] if proc.stderr else ''}")
        time.sleep(0.05)
    raise AssertionError(f"no submission reached {status} within {timeout} s (last seen {seen})")


@pytest.mark.parametrize("command", ["submit", "work"])
def test_killed_scorer_leaves_nothing_stuck(slow, tmp_path, command):
    store = tmp_path / "store"
    if command == "submit":
        proc = _cli("submit", str(slow / "pred.json"), "--to", str(store), "--gold-json", str(slow / "gold.json"))
    else:
        assert _cli("submit", str(slow / "pred.json"), "--to", str(store), "--no-score",
                    "--gold-json", str(slow / "gold.json")).wait(120) == 0
        proc = _cli("leaderboard", "work", "--store", str(store), "--gold-json", str(slow / "gold.json"))
    try:
        row = _wait_status(store, "RUNNING", proc=proc)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        proc.kill()
    assert Store(store).get(row["id"])["status"] == "RUNNING"     # killed mid-scoring, no server running
    # any later CLI call recovers it (its scorer's process is gone), and the same file resubmitted is scored
    t0 = time.time()
    again = _cli("submit", str(slow / "pred.json"), "--to", str(store), "--gold-json", str(slow / "gold.json"))
    out, err = again.communicate(timeout=300)
    assert again.returncode == 0, err
    reply = json.loads(out)
    assert reply["status"] == "FINISHED" and reply["scores"]["conll_f1"] > 0, reply
    rows = Store(store).list()
    assert [r["status"] for r in rows] == ["FINISHED"] and rows[0]["attempts"] == 2
    assert time.time() - t0 < 200


def test_lease_expires_for_a_scorer_on_another_machine(tmp_path):
    board = Leaderboard(Store(tmp_path / "s", lease_s=1.0), JsonGoldProvider(GOLD), limits=Limits(n_resamples=0))
    out = board.submit(json.loads((FIX / "predictions_metonymy.json").read_text()))
    claimed = board.store.claim(out["id"], owner="another-host:4242:abcd")       # its liveness is unknowable here
    assert claimed["status"] == "RUNNING"
    assert board.store.recover_expired() == 0                                     # the lease still runs
    with pytest.raises(ValueError, match="duplicate"):
        board.submit(json.loads((FIX / "predictions_metonymy.json").read_text()))
    time.sleep(1.2)
    # a resubmission after the lease: the stale row is failed as superseded, not a duplicate
    new = board.submit(json.loads((FIX / "predictions_metonymy.json").read_text()))
    old = board.store.get(out["id"])
    assert old["status"] == "FAILED" and "superseded" in old["reason"]
    assert board.process(new["id"])["status"] == "FINISHED"


def test_expired_lease_goes_back_to_pending_then_fails_after_max_attempts(tmp_path):
    store = Store(tmp_path / "s", lease_s=0.2, max_attempts=2)
    board = Leaderboard(store, JsonGoldProvider(GOLD), limits=Limits(n_resamples=0))
    sid = board.submit(json.loads((FIX / "predictions_metonymy.json").read_text()))["id"]
    for attempt in (1, 2):
        assert store.claim(sid, owner=f"elsewhere:1:{attempt}")["attempts"] == attempt
        time.sleep(0.3)
        assert store.recover_expired() == 1
    row = store.get(sid)
    assert row["status"] == "FAILED" and "interrupted 2 times" in row["reason"]


def test_concurrent_cli_submissions_with_a_working_server_all_get_scores(tmp_path):
    """The server's worker claims submissions as soon as they appear; each CLI call waits for its scores."""
    store = tmp_path / "store"
    server_board = Leaderboard(Store(store), JsonGoldProvider(GOLD), limits=Limits(n_resamples=50))
    worker = Worker(server_board, interval_s=0.0).start()       # polls without pause: wins most races
    base = json.loads((FIX / "predictions_metonymy.json").read_text())
    base.pop("submitter")
    outs, errors = [], []

    def go(i: int) -> None:
        path = tmp_path / f"s{i}.json"
        path.write_text(json.dumps(dict(base, model=dict(base["model"], name=f"cli-{i}"))))
        try:
            outs.append(submit(path, store, gold_json=GOLD, timeout_s=120))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=go, args=(i,)) for i in range(25)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(180)
    finally:
        worker.stop()
    assert not errors, errors
    assert len(outs) == 25
    assert [o["status"] for o in outs] == ["FINISHED"] * 25, [o["status"] for o in outs]
    assert all(o["scores"] and o["scores"]["micro_f1"] == pytest.approx(0.5) for o in outs)


def test_serve_started_during_work_does_not_rescore(slow, tmp_path):
    store = tmp_path / "store"
    assert _cli("submit", str(slow / "pred.json"), "--to", str(store), "--no-score",
                    "--gold-json", str(slow / "gold.json")).wait(120) == 0
    proc = _cli("leaderboard", "work", "--store", str(store), "--gold-json", str(slow / "gold.json"))
    try:
        row = _wait_status(store, "RUNNING")
        # a server starts while `work` scores: its worker must leave the leased row alone
        board = Leaderboard(Store(store), JsonGoldProvider(slow / "gold.json"), limits=Limits(n_resamples=10))
        worker = Worker(board, interval_s=0.05).start()
        try:
            seen = set()
            deadline = time.time() + 240
            while time.time() < deadline:
                cur = Store(store).get(row["id"])
                seen.add(cur["status"])
                if cur["status"] in ("FINISHED", "FAILED"):
                    break
                time.sleep(0.05)
        finally:
            worker.stop()
        assert proc.wait(240) == 0, proc.stderr.read()
    finally:
        proc.kill()
    final = Store(store).get(row["id"])
    assert final["status"] == "FINISHED" and final["attempts"] == 1 and "PENDING" not in seen
    assert final["confidence_intervals"]["conll_f1"]["n_resamples"] == 1000    # scored by `work`, not the server


def test_store_size_cap_is_a_plain_error(tmp_path):
    """SQLite's max_page_count makes the store 'full' for real: a plain error, the transaction rolled back
    (not "cannot rollback - no transaction is active"), the store still usable."""
    folder = tmp_path / "store"
    board = Leaderboard(Store(folder), JsonGoldProvider(GOLD))
    board.submit(json.loads((FIX / "predictions_metonymy.json").read_text()))
    pages = Store(folder)._read("PRAGMA page_count")[0][0]
    capped = Leaderboard(Store(folder, max_pages=pages), JsonGoldProvider(GOLD))
    big = json.loads((FIX / "predictions_metonymy.json").read_text())
    big["model"]["name"] = "big"
    big["description"] = "x" * 2000
    big["provenance"] = {f"k{i}": "y" * 1900 for i in range(8)}
    with pytest.raises(StoreFullError) as e:
        capped.submit(big)
    msg = str(e.value)
    assert "is full" in msg and "rollback" not in msg and str(tmp_path) not in msg
    assert capped.store.count() == 1 and capped.store.integrity_check() == "ok"
    assert Leaderboard(Store(folder), JsonGoldProvider(GOLD)).submit(big)["status"] == "PENDING"


@pytest.fixture()
def tmpfs(tmp_path):
    """A 4 MB tmpfs (a real small disk), unmounted afterwards; skipped where mounting is not allowed."""
    mnt = tmp_path / "disk"
    mnt.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mnt)], capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here (needs root with CAP_SYS_ADMIN)")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def test_full_disk_while_scoring(tmpfs, slow):
    store = tmpfs / "store"
    assert _cli("submit", str(slow / "pred.json"), "--to", str(store), "--no-score",
                    "--gold-json", str(slow / "gold.json")).wait(120) == 0
    proc = _cli("leaderboard", "work", "--store", str(store), "--gold-json", str(slow / "gold.json"))
    filler = tmpfs / "filler"
    try:
        _wait_status(store, "RUNNING")
        with open(filler, "wb", buffering=0) as f:   # the disk fills up while the submission is being scored
            try:
                while True:
                    f.write(b"\0" * 65536)
                    f.flush()
            except OSError:
                pass
        out, err = proc.communicate(timeout=300)
    finally:
        proc.kill()
    assert proc.returncode == 1, err
    assert "is full" in err and "rollback" not in err and str(tmpfs) not in err, err
    filler.unlink()
    # nothing stays RUNNING: its scorer is gone, so the next worker recovers and scores it
    proc = _cli("leaderboard", "work", "--store", str(store), "--gold-json", str(slow / "gold.json"))
    assert proc.wait(300) == 0, proc.stderr.read()
    [row] = Store(store).list()
    assert row["status"] == "FINISHED" and row["attempts"] == 2, row


def test_read_only_store_is_a_plain_error(tmpfs, tmp_path):
    store = tmpfs / "store"
    first = _cli("submit", str(FIX / "predictions_metonymy.json"), "--to", str(store), "--gold-json", str(GOLD))
    assert first.wait(120) == 0, first.stderr.read()
    assert subprocess.run(["mount", "-o", "remount,ro", str(tmpfs)], capture_output=True).returncode == 0
    other = json.loads((FIX / "predictions_metonymy.json").read_text())
    other["model"]["name"] = "second"
    (tmp_path / "second.json").write_text(json.dumps(other))
    proc = _cli("submit", str(tmp_path / "second.json"), "--to", str(store), "--gold-json", str(GOLD))
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 1
    assert "read-only" in err and str(tmpfs) not in err and "Traceback" not in err, err
    listed = _cli("leaderboard", "list", "--store", str(store), "--json")
    out, err = listed.communicate(timeout=120)
    assert listed.returncode == 0, err
    assert [r["status"] for r in json.loads(out)] == ["FINISHED"]
