"""Issue 32: "intervals for a hidden benchmark may come once, at a maintainer-chosen reveal". Before the reveal a
hidden row releases the Ladder's headline only (test_leaderboard_hidden_probing); `figbench leaderboard hidden reveal`
releases every row in full (intervals with n_units, counts) in views, API, export and Hub files, closes the
benchmark's submissions, says so on the board, comes once, and survives a restart from the Hub."""

from __future__ import annotations

import contextlib
import io
import json

import pytest
from figbench_leaderboard.domain.release import gold_marker, note_reveals
from figbench_leaderboard.domain.submission import SubmissionError
from figbench_leaderboard.export import export_board
from figbench_leaderboard.scoring.gold import PrivateGoldStore
from figbench_leaderboard.store import reveals, tokens
from figbench_leaderboard.store.hub_layout import layout_files

from figbench.cli import main as figbench_main
from figbench.tasks import get_task
from tests.test_leaderboard_hidden_probing import (  # noqa: F401  (hidden_benchmark: an autouse fixture)
    BENCH,
    HEAD,
    LABELS,
    N,
    _board,
    _gold,
    _hub_store,
    _local,
    _sub,
    hidden_benchmark,
)
from tests.test_leaderboard_hub import FakeHub, online  # noqa: F401  (online: a fixture)


@pytest.fixture(autouse=True)
def no_reveal_left():
    yield
    note_reveals({})


def _texts(board, sid, tmp_path) -> dict[str, str]:
    """Everything that leaves the server about submission ``sid``: the API's copy, the board's row, its Hub files
    and the JSON export."""
    out = {"api": json.dumps(board.released(board.store.get(sid))),
           "board": json.dumps([r for r in board.store.board_rows(released=True) if r["id"] == sid])}
    for path, content in layout_files(board.store.get(sid)).items():
        out[path] = json.dumps(content)
    for p in export_board(board.store, tmp_path / f"export-{len(list(tmp_path.iterdir()))}", fmt="json"):
        if p.name == "submissions.jsonl":   # (the card describes the ci_low.* columns)
            out[str(p)] = p.read_text()
    return out


def _intervals(where: str, text: str) -> bool:
    """Whether ``text`` holds intervals: with their n_units, or as the export's flat ci_low.* columns."""
    return ('"n_units"' in text and '"confidence_intervals"' in text) if "export-" not in where else "ci_low." in text


def _cli(argv: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        rc = figbench_main(argv)
    return rc, err.getvalue()


def test_reveal_releases_intervals_everywhere_closes_submissions_and_comes_once(tmp_path):
    board = _local(tmp_path, n_resamples=20)
    alice = tokens.issue(board.store, "alice")[1]
    sid = board.submit(_sub({i: "LOCATION" for i in _gold()["labels"]}, "alice-1"), account=alice)["id"]
    board.process(sid)
    assert not any(_intervals(where, text) for where, text in _texts(board, sid, tmp_path).items())   # not yet
    assert "revealed" not in gold_marker(BENCH)

    private = PrivateGoldStore(tmp_path / "private")
    private.add(BENCH, get_task(BENCH.task).gold_from_json(_gold(), BENCH.key))
    rc, err = _cli(["leaderboard", "hidden", "reveal", BENCH.label, "--store", str(tmp_path / "store"),
                    "--private", str(tmp_path / "private"), "--note", "end of round 1"])
    assert rc in (0, None) and "1 scored submission(s) now released in full" in err, err
    reveals.load(board.store)   # what a running board's next view does

    texts = _texts(board, sid, tmp_path)
    for where, text in texts.items():   # a request file holds no scores at all
        assert where.startswith("requests/") or _intervals(where, text), where
    shown = board.released(board.store.get(sid))
    exact = board.store.get(sid)
    assert shown["scores"] == exact["scores"] and shown["confidence_intervals"][HEAD]["n_units"] == N
    assert shown["counts"] and shown["revealed"] > 0
    assert "revealed" in gold_marker(BENCH) and "submissions closed" in gold_marker(BENCH)

    with pytest.raises(SubmissionError, match="was revealed on .* takes no more submissions"):
        board.submit(_sub({i: LABELS[k % 5] for k, i in enumerate(_gold()["labels"])}, "alice-2"), account=alice)
    rc, err = _cli(["leaderboard", "hidden", "reveal", BENCH.key, "--store", str(tmp_path / "store"),
                    "--private", str(tmp_path / "private")])
    assert rc == 1 and "a reveal comes once" in err


def _files(hub: FakeHub, repo: str) -> str:
    return "\n".join(v.decode("utf-8") if isinstance(v, bytes) else str(v) for v in hub.repos[repo].values())


def test_a_restart_from_the_hub_keeps_the_reveal(online, tmp_path):  # noqa: F811
    hub = FakeHub(private={"figbench/board-private"})
    hub.repos = {"figbench/board": {}, "figbench/board-private": {}}
    try:
        board = _board(_hub_store(hub, tmp_path / "a"), n_resamples=20)
        alice = tokens.issue(board.store, "alice")[1]
        sid = board.submit(_sub({i: "LOCATION" for i in _gold()["labels"]}, "alice-1"), account=alice)["id"]
        board.process(sid)
        board.store.flush()
        before = _files(hub, "figbench/board")
        assert '"n_units"' not in before and '"confidence_intervals"' not in before
        reveals.reveal(board.store, BENCH.key)
        board.store.close()
        note_reveals({})   # a fresh process knows nothing yet
        public = _files(hub, "figbench/board")
        assert '"n_units"' in public   # the results file was pushed again, in full
        state = json.loads(hub.repos["figbench/board-private"]["state/hidden_reveals.json"])
        assert [r["benchmark"] for r in state] == [BENCH.key]

        again = _board(_hub_store(hub, tmp_path / "b"), n_resamples=20)
        again.store.pull()
        row = next(r for r in again.store.board_rows(released=True) if r["id"] == sid)
        assert row["confidence_intervals"][HEAD]["n_units"] == N
        assert again.released(again.store.get(sid))["confidence_intervals"][HEAD]["n_units"] == N
        assert "revealed" in gold_marker(BENCH)
        with pytest.raises(SubmissionError, match="was revealed"):
            again.submit(_sub({i: "TEAM" for i in _gold()["labels"]}, "alice-2"), account=alice)
        again.store.close()
    finally:
        hub.close()
