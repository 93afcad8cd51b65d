"""A Hub-backed board always restarts: every state change reaches the Hub (over real HTTP, the local
Hub of test_leaderboard_hub), so a restart rebuilds the same rows and never fails on its own history."""

from __future__ import annotations

import json
import time

import pytest
from figbench_leaderboard.scoring.board import Leaderboard, Limits
from figbench_leaderboard.scoring.gold import JsonGoldProvider
from figbench_leaderboard.store.hub import HubStore, open_store
from figbench_leaderboard.ui.tables import overview

from tests.test_leaderboard_hub import FIX, TOKEN, FakeHub, online  # noqa: F401  (online: a fixture)

KEYS = ("status", "reason", "attempts", "scores", "confidence_intervals", "verified", "model_name", "updated_at",
        "created_at")


def _store(hub: FakeHub, cache, **kw) -> HubStore:
    return HubStore("figbench/board", private_repo_id="figbench/board-private", cache_dir=cache, token=TOKEN,
                    endpoint=hub.url, backoff_s=0.05, batch_size=1000, batch_interval_s=3600, max_attempts=2, **kw)


def _board(store) -> Leaderboard:
    return Leaderboard(store, JsonGoldProvider(FIX / "gold.json"), limits=Limits(n_resamples=20))


def _sub(name: str) -> dict:
    base = json.loads((FIX / "predictions_metonymy.json").read_text())
    base.pop("submitter")
    return dict(base, model=dict(base["model"], name=name))


def _expire(store: HubStore, sid: str, tag: str) -> None:
    """Claim ``sid`` for a scorer elsewhere whose lease then runs out."""
    assert store.claim(sid, owner=f"elsewhere:1:{tag}", lease_s=0.01)["status"] == "RUNNING"
    time.sleep(0.05)


def _rows(store) -> dict[str, dict]:
    return {r["id"]: {k: r[k] for k in KEYS} for r in store.list()}


@pytest.fixture()
def hub():
    hub = FakeHub(private={"figbench/board-private"})
    hub.repos = {"figbench/board": {}, "figbench/board-private": {}}
    yield hub
    hub.close()


def _every_transition(board: Leaderboard) -> dict[str, str]:
    store = board.store
    ids = {name: board.submit(_sub(name))["id"] for name in ("pending", "finished", "failed", "maxed", "recovered",
                                                           "superseded", "running")}
    board.process(ids["finished"])                                        # PENDING -> RUNNING -> FINISHED
    assert store.claim(ids["failed"])["status"] == "RUNNING"
    store.fail(ids["failed"], "predictions for metonymy: scorer refused them")   # RUNNING -> FAILED
    for attempt in (1, 2):                                                # interrupted twice -> FAILED
        _expire(store, ids["maxed"], str(attempt))
        store.recover_expired()
    _expire(store, ids["recovered"], "r")                                 # RUNNING -> PENDING (recovered)
    assert store.recover_expired() == 1
    _expire(store, ids["superseded"], "s")                                # superseded by a resubmission
    ids["resubmitted"] = board.submit(_sub("superseded"))["id"]
    assert store.claim(ids["running"], owner="elsewhere:1:live", lease_s=3600)["status"] == "RUNNING"
    rows = _rows(store)
    assert rows[ids["pending"]]["status"] == "PENDING" and rows[ids["finished"]]["status"] == "FINISHED"
    assert rows[ids["failed"]]["status"] == "FAILED"
    assert rows[ids["maxed"]]["status"] == "FAILED" and rows[ids["maxed"]]["attempts"] == 2
    assert "interrupted 2 times" in rows[ids["maxed"]]["reason"]
    assert rows[ids["recovered"]]["status"] == "PENDING" and rows[ids["recovered"]]["attempts"] == 1
    assert rows[ids["superseded"]]["status"] == "FAILED" and "superseded" in rows[ids["superseded"]]["reason"]
    assert rows[ids["resubmitted"]]["status"] == "PENDING"
    return ids


def test_every_state_change_reaches_the_hub_and_a_restart_rebuilds_the_same_rows(online, hub, tmp_path):  # noqa: F811
    board = _board(_store(hub, tmp_path / "a"))
    ids = _every_transition(board)
    before = _rows(board.store)
    board.store.close()
    assert board.store.pending_push() == 0

    for cache in ("b", "a"):   # a fresh Space (empty cache), and a restart on the same cache
        again = _store(hub, tmp_path / cache)
        again.pull()
        after = _rows(again)
        assert set(after) == set(before)
        for sid, row in before.items():
            if sid == ids["running"]:   # its scorer is gone with the old process: recovered, its attempt kept
                assert after[sid]["status"] == "PENDING" and after[sid]["attempts"] == 1, after[sid]
                continue
            assert after[sid] == row, (sid, row, after[sid])
        again.close()

    # the maxed-out row stays FAILED with its attempts across a second restart, and the board starts
    again = _store(hub, tmp_path / "c")
    again.pull()
    assert again.get(ids["maxed"])["status"] == "FAILED" and again.get(ids["maxed"])["attempts"] == 2
    board = _board(again)
    assert board.run_pending() == 4            # pending, recovered, resubmitted, and the running one recovered
    assert {r["model_name"] for r in board.store.list(status="FINISHED")} >= {"finished", "pending"}
    assert not overview(board.store.board_rows(), board.registry).empty
    again.close()


def test_open_store_starts_over_a_history_with_two_live_rows(online, hub, tmp_path, monkeypatch, caplog):  # noqa: F811
    """A history pushed by an older version (the superseded row never pushed as FAILED) is repaired at load."""
    board = _board(_store(hub, tmp_path / "a"))
    old = board.submit(_sub("twice"))["id"]
    board.store.flush()
    _expire(board.store, old, "x")
    new = board.submit(_sub("twice"))["id"]
    with board.store.transaction() as db:     # what the old code did: the superseded row stayed live on the Hub
        db.execute("DELETE FROM hub_dirty WHERE id = ?", (old,))
    board.store.close()
    monkeypatch.setenv("HF_ENDPOINT", hub.url)
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    monkeypatch.setenv("FIGBENCH_LEADERBOARD_PRIVATE_REPO", "figbench/board-private")
    monkeypatch.setenv("FIGBENCH_LEADERBOARD_CACHE", str(tmp_path / "fresh"))
    with caplog.at_level("WARNING"):
        store = open_store("hf://datasets/figbench/board")
    rows = _rows(store)
    assert rows[old]["status"] == "FAILED" and "superseded" in rows[old]["reason"]
    assert rows[new]["status"] == "PENDING"
    assert any(old[:12] in r.getMessage() for r in caplog.records)
    store.close()                               # the repair reaches the Hub too
    fresh = _store(hub, tmp_path / "again")
    fresh.pull()
    assert _rows(fresh)[old]["status"] == "FAILED"
    fresh.close()


def test_changes_left_unpushed_by_a_crash_are_pushed_at_the_next_start(online, hub, tmp_path):  # noqa: F811
    store = _store(hub, tmp_path / "a")
    sid = _board(store).submit(_sub("crash"))["id"]
    assert store.pending_push() == 1
    store._stop.set()
    HubStore.__mro__[1].close(store)           # the process dies: no flush
    assert hub.repos["figbench/board"] == {}
    restarted = _store(hub, tmp_path / "a")    # the same cache: the mark is still there
    assert restarted.pending_push() == 1
    restarted.close()
    fresh = _store(hub, tmp_path / "b")
    fresh.pull()
    assert fresh.get(sid)["status"] == "PENDING"
    fresh.close()


def test_damaged_hub_files_and_a_damaged_local_row_never_stop_a_start(online, hub, tmp_path, caplog):  # noqa: F811
    board = _board(_store(hub, tmp_path / "a"))
    ids = {name: board.submit(_sub(name))["id"] for name in ("kept", "text-time", "list-scores")}
    board.run_pending()
    board.store.close()
    public = hub.repos["figbench/board"]
    req_of = {json.loads(v)["id"]: k for k, v in public.items() if k.startswith("requests/")}
    res_of = {json.loads(v)["submission_id"]: k for k, v in public.items() if k.startswith("results/")}
    bad = json.loads(public[req_of[ids["text-time"]]])
    bad["created_at"] = "yesterday"
    public[req_of[ids["text-time"]]] = json.dumps(bad).encode()
    hub.repos["figbench/board-private"].clear()          # exact scores only in the results files now
    res = json.loads(public[res_of[ids["list-scores"]]])
    res["results"] = {k: [0.5] for k in res["results"]}
    public[res_of[ids["list-scores"]]] = json.dumps(res).encode()
    public["requests/broken_eval_request.json"] = b"{not json"
    with caplog.at_level("ERROR", logger="figbench_leaderboard.store.hub_layout"):
        fresh = _store(hub, tmp_path / "b")
        fresh.pull()                                     # before: the pull raised and the board did not start
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert "broken_eval_request.json" in text and ids["text-time"] in text and ids["list-scores"] in text
    rows = _rows(fresh)
    assert rows[ids["kept"]]["status"] == "FINISHED" and ids["text-time"] not in rows
    assert rows[ids["list-scores"]]["scores"] is None
    fresh.close()

    # a local row damaged on disk is replaced by the Hub's copy at the next pull
    local = _store(hub, tmp_path / "a")
    with local.transaction() as db:
        db.execute("UPDATE submissions SET scores = '[1]', updated_at = 0 WHERE id = ?", (ids["kept"],))
    assert ids["kept"] not in _rows(local)
    local.pull()
    assert _rows(local)[ids["kept"]]["status"] == "FINISHED"
    local.close()
