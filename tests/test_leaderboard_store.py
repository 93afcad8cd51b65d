"""The SQLite store: WAL, transactions, concurrent writers, a writer killed mid-write."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest
from figbench_leaderboard.store.errors import DuplicateSubmissionError, StoreError
from figbench_leaderboard.store.sqlite import Store


def _row(i: int, **kw):
    row = {"task": "metonymy", "dataset": "wimcor", "config": "sample", "split": "test", "model_name": f"model-{i}",
           "model_revision": "r1", "model_type": "other", "model_parameters": i, "submitter": f"user{i}",
           "sha256": "0" * 64, "metadata": {"kind": "predictions"}, "predictions": {"w1": "LOCATION"}}
    row.update(kw)
    return row


def test_wal_and_roundtrip(tmp_path):
    store = Store(tmp_path)
    assert store.journal_mode() == "wal"
    sid = store.add(_row(1))
    sub = store.get(sid, with_predictions=True)
    assert sub["status"] == "PENDING" and sub["predictions"] == {"w1": "LOCATION"}
    assert store.get(sid)["metadata"] == {"kind": "predictions"}
    assert store.find(sid[:8])["id"] == sid and store.find("zz") is None


def test_status_transitions(tmp_path):
    store = Store(tmp_path)
    sid = store.add(_row(1))
    with pytest.raises(StoreError, match="not RUNNING"):
        store.finish(sid, scores={}, confidence_intervals={})
    assert store.claim_next()["id"] == sid and store.get(sid)["status"] == "RUNNING"
    assert store.claim_next() is None
    store.finish(sid, scores={"micro_f1": 0.5}, confidence_intervals={})
    assert store.get(sid)["status"] == "FINISHED"
    with pytest.raises(StoreError):
        store.fail(sid, "late")
    sid2 = store.add(_row(2))
    store.claim(sid2)
    assert store.requeue_running() == 1 and store.get(sid2)["status"] == "PENDING"


def test_failed_does_not_count_as_duplicate(tmp_path):
    store = Store(tmp_path)
    sid = store.add(_row(1))
    with pytest.raises(DuplicateSubmissionError):
        store.add(_row(1))
    store.fail(sid, "broken")
    store.add(_row(1))
    assert store.count() == 2


def test_twenty_concurrent_submissions_all_stored(tmp_path):
    store = Store(tmp_path)
    barrier = threading.Barrier(20)
    ids, errors = [], []

    def go(i):
        try:
            barrier.wait()
            ids.append(store.add(_row(i)))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=go, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(set(ids)) == 20 and store.count() == 20
    assert sorted(r["model_name"] for r in Store(tmp_path).list()) == sorted(f"model-{i}" for i in range(20))


def test_concurrent_duplicates_only_one_wins(tmp_path):
    store = Store(tmp_path)
    barrier = threading.Barrier(10)
    outcomes = []

    def go():
        barrier.wait()
        try:
            store.add(_row(7))
            outcomes.append("ok")
        except DuplicateSubmissionError:
            outcomes.append("dup")

    threads = [threading.Thread(target=go) for _ in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert outcomes.count("ok") == 1 and outcomes.count("dup") == 9 and store.count() == 1


_WRITER = textwrap.dedent("""
    import sys, time
    from figbench_leaderboard.store.sqlite import Store
    store = Store(sys.argv[1])
    mode = sys.argv[2]
    i = 0
    if mode == "loop":
        while True:
            sid = store.add({"task": "metonymy", "dataset": "wimcor", "config": "sample", "split": "test",
                             "model_name": f"m{i}", "model_type": "other", "sha256": "0" * 64,
                             "predictions": {"x": "y" * 2000}, "metadata": {}})
            print(sid, flush=True)
            i += 1
    else:  # open a transaction, write, and hang before COMMIT
        with store.transaction() as db:
            for i in range(50):
                db.execute("INSERT INTO submissions (id, created_at, updated_at, status, task, dataset, config, split,"
                           " model_name, model_type, sha256, metadata) VALUES (?, 0, 0, 'PENDING', 'metonymy',"
                           " 'wimcor', 'sample', 'test', ?, 'other', '', '{}')", (f"partial{i}", f"p{i}"))
            print("inside", flush=True)
            time.sleep(60)
""")


def _writer(tmp_path, mode):
    script = tmp_path / "writer.py"
    script.write_text(_WRITER)
    return subprocess.Popen([sys.executable, str(script), str(tmp_path / "store"), mode], stdout=subprocess.PIPE,
                            text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})


def test_killed_writer_loses_nothing_committed(tmp_path):
    proc = _writer(tmp_path, "loop")
    committed = []
    try:
        for line in proc.stdout:
            committed.append(line.strip())
            if len(committed) >= 40:
                break
        proc.send_signal(signal.SIGKILL)  # mid-way through the next writes
    finally:
        proc.kill()
        proc.wait(10)
    store = Store(tmp_path / "store")
    assert store.integrity_check() == "ok"
    stored = {r["id"] for r in store.list()}
    assert set(committed) <= stored
    assert len(stored) - len(committed) <= 1   # at most the one committed before its id was printed
    for sid in committed:
        assert store.get(sid, with_predictions=True)["predictions"] == {"x": "y" * 2000}
    store.add(_row(1))  # still writable


def test_killed_inside_transaction_leaves_no_partial_rows(tmp_path):
    Store(tmp_path / "store").add(_row(1))
    proc = _writer(tmp_path, "partial")
    try:
        assert proc.stdout.readline().strip() == "inside"
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait(10)
    store = Store(tmp_path / "store")
    assert store.integrity_check() == "ok"
    assert [r["model_name"] for r in store.list()] == ["model-1"]
    t0 = time.perf_counter()
    store.add(_row(2))   # the dead writer's lock is gone
    assert time.perf_counter() - t0 < 5


_OPEN_AT_ONCE = """
import sys, time
from figbench_leaderboard.store.sqlite import Store
path, start = sys.argv[1], float(sys.argv[2])
time.sleep(max(0.0, start - time.time()))  # all wake at the same instant (without spinning a core each)
Store(path).list()
"""


@pytest.mark.parametrize("old_schema", [False, True], ids=["new store", "store of an older version"])
def test_processes_opening_one_store_at_once_all_succeed(tmp_path, old_schema):
    """Processes opening the same store at the same instant (a CLI submit and a reader, say) must all succeed:
    they used to race on the schema ('duplicate column name' when each saw a newer column missing) and on the
    switch of a new file to WAL ('database is locked', which SQLite answers there without waiting)."""
    import sqlite3

    from figbench_leaderboard.store import schema

    for attempt in range(3):
        path = tmp_path / f"store{attempt}"
        if old_schema:
            path.mkdir()
            with sqlite3.connect(path / "leaderboard.sqlite") as db:
                db.executescript(schema.SCHEMA)
        start = time.time() + 2.0
        procs = [subprocess.Popen([sys.executable, "-c", _OPEN_AT_ONCE, str(path), str(start)],
                                  stderr=subprocess.PIPE, text=True) for _ in range(6)]
        errors = [p.communicate(timeout=120)[1] for p in procs]
        assert [p.returncode for p in procs] == [0] * 6, "\n".join(e for e in errors if e)[-3000:]
        with sqlite3.connect(path / "leaderboard.sqlite") as db:
            have = {r[1] for r in db.execute("PRAGMA table_info(submissions)")}
        assert set(schema.ADDED_COLUMNS) <= have
