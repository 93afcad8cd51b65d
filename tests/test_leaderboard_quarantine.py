"""One malformed stored row never stops the board: it is quarantined (skipped by the store, `list`,
`export`, the worker and the served board, with a log line naming it) and listed for the operator."""

from __future__ import annotations

import json
import logging
import sqlite3
import urllib.request
import uuid
from pathlib import Path

import pytest
from figbench_leaderboard.export import export_board
from figbench_leaderboard.scoring.board import Leaderboard, Limits
from figbench_leaderboard.scoring.gold import JsonGoldProvider
from figbench_leaderboard.screenshots import serving
from figbench_leaderboard.store.errors import MalformedRowError
from figbench_leaderboard.store.hub import open_store
from figbench_leaderboard.store.schema import DB_NAME
from figbench_leaderboard.store.sqlite import Store

from figbench.cli import main as figbench_main

FIX = Path(__file__).parent / "fixtures" / "leaderboard"
GOLD = FIX / "gold.json"

#: model name -> (SQL that damages its row, what the quarantine says)
DAMAGE = {
    "bad-scores-text": ("scores = '{not json', public_scores = NULL", "scores is not valid JSON"),
    "bad-scores-list": ("scores = '[0.5, 0.25]', public_scores = NULL", "scores is not a JSON object"),
    "bad-metadata": ("metadata = 'parameters: 7B'", "metadata is not valid JSON"),
    "bad-parameters": ("model_parameters = '7B params'", "model_parameters is not an integer from 0 to 1e+15"),
    "bad-created": ("created_at = 'yesterday'", "created_at is not a date (seconds between 1970 and 2100)"),
    "bad-score-string": ("""scores = '{"accuracy": "0.9", "micro_f1": 0.5}', public_scores = NULL""",
                         "scores: a score is not a number"),
}
GOOD = ("good-one", "good-two")


def _sub(name: str) -> dict:
    sub = json.loads((FIX / "predictions_metonymy.json").read_text())
    sub.pop("submitter")
    sub["model"]["name"] = name
    return sub


def damaged_store(folder: Path) -> dict[str, str]:
    """A store of FINISHED rows, one PENDING, and one damaged row per kind; returns name -> id."""
    board = Leaderboard(Store(folder), JsonGoldProvider(GOLD), limits=Limits(n_resamples=20))
    ids = {name: board.submit(_sub(name))["id"] for name in (*GOOD, *DAMAGE)}
    board.run_pending()
    ids["pending-bad"] = board.submit(_sub("pending-bad"))["id"]      # a queued row, damaged too
    board.store.close()
    db = sqlite3.connect(folder / DB_NAME)
    for name, (sql, _) in DAMAGE.items():
        db.execute(f"UPDATE submissions SET {sql} WHERE id = ?", (ids[name],))
    db.execute("UPDATE submissions SET metadata = '[1]' WHERE id = ?", (ids["pending-bad"],))
    db.commit()
    db.close()
    return ids


def test_store_list_and_worker_skip_each_malformed_row_and_name_it(tmp_path, caplog):
    ids = damaged_store(tmp_path / "s")
    with caplog.at_level(logging.WARNING, logger="figbench_leaderboard.store.quarantine"):
        store = open_store(tmp_path / "s")         # before: the public-score backfill raised at open
        listed = store.list()
    logged = "\n".join(r.getMessage() for r in caplog.records)
    for name, (_, problem) in DAMAGE.items():
        assert ids[name] in logged and problem in logged, (name, logged)
    assert sorted(r["model_name"] for r in listed) == sorted(GOOD)
    assert sorted(r["model_name"] for r in store.board_rows(released=True)) == sorted(GOOD)
    assert sorted(r["model_name"] for r in store.board_rows()) == sorted(GOOD)
    assert sorted(r["model_name"] for r in store.queue_page()) == sorted(GOOD)
    bad = {r["id"]: r["problem"] for r in store.quarantined()}
    assert bad == {**{ids[n]: p for n, (_, p) in DAMAGE.items()}, ids["pending-bad"]: "metadata is not a JSON object"}
    with pytest.raises(MalformedRowError, match=f"{ids['bad-created']} is quarantined: created_at is not a date"):
        store.get(ids["bad-created"])
    assert store.find(ids["bad-scores-list"][:10]) is None
    assert store.claim_next() is None              # the damaged PENDING row is never claimed
    board = Leaderboard(store, JsonGoldProvider(GOLD), limits=Limits(n_resamples=20))
    assert board.run_pending() == 0
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="figbench_leaderboard.store.quarantine"):
        store.list()
        store.board_rows()
    assert not caplog.records                      # one line per row, not one per read


def test_a_row_damaged_while_the_store_is_open_is_quarantined_by_the_read_that_meets_it(tmp_path, caplog):
    ids = damaged_store(tmp_path / "s")
    store = Store(tmp_path / "s")                  # no scan: each read checks what it decodes
    assert sorted(r["model_name"] for r in store.list()) == sorted(GOOD)
    assert sorted(r["model_name"] for r in store.board_rows()) == sorted(GOOD)
    db = sqlite3.connect(tmp_path / "s" / DB_NAME)
    db.execute("UPDATE submissions SET scores = '{\"accuracy\": true}' WHERE id = ?", (ids["good-one"],))
    db.commit()
    db.close()
    with caplog.at_level(logging.WARNING, logger="figbench_leaderboard.store.quarantine"):
        assert [r["model_name"] for r in store.board_rows()] == ["good-two"]
        assert [r["model_name"] for r in store.list()] == ["good-two"]
    assert ids["good-one"] in caplog.text and "a score is not a number" in caplog.text


def test_cli_list_quarantined_and_export(tmp_path, capsys):
    ids = damaged_store(tmp_path / "s")
    assert figbench_main(["leaderboard", "list", "--store", str(tmp_path / "s")]) == 0
    out = capsys.readouterr().out
    assert "good-one" in out and "good-two" in out and "bad-" not in out
    assert figbench_main(["leaderboard", "list", "--store", str(tmp_path / "s"), "--json"]) == 0
    assert sorted(r["model_name"] for r in json.loads(capsys.readouterr().out)) == sorted(GOOD)
    assert figbench_main(["leaderboard", "list", "--store", str(tmp_path / "s"), "--quarantined"]) == 0
    out = capsys.readouterr().out
    for name, (_, problem) in DAMAGE.items():
        line = next(ln for ln in out.splitlines() if ln.startswith(ids[name]))
        assert name in line and problem in line, line
    assert figbench_main(["leaderboard", "list", "--store", str(tmp_path / "s"), "--quarantined", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == len(DAMAGE) + 1

    assert figbench_main(["leaderboard", "export", "--store", str(tmp_path / "s"), "--to", str(tmp_path / "x")]) == 0
    lines = (tmp_path / "x" / "submissions.jsonl").read_text().splitlines()
    assert sorted(json.loads(ln)["model"] if "model" in json.loads(ln) else json.loads(ln)["model_name"]
                  for ln in lines) == sorted(GOOD)
    written = export_board(Store(tmp_path / "s"), tmp_path / "y", fmt="json")
    assert {p.name for p in written} >= {"overview.jsonl", "submissions.jsonl"}
    overview = [json.loads(ln) for ln in (tmp_path / "y" / "overview.jsonl").read_text().splitlines()]
    assert sorted(r["Model"] for r in overview) == sorted(GOOD)


# --- the served board, over real HTTP (Gradio's own queue protocol, as the page uses it) --------------

def _config(url: str) -> dict:
    with urllib.request.urlopen(f"{url}/config", timeout=30) as r:
        return json.loads(r.read())


def _run_event(url: str, config: dict, fn_index: int, data: list) -> list:
    """Join Gradio's queue for one event and read its result from the event stream."""
    session = uuid.uuid4().hex[:10]
    body = json.dumps({"data": data, "fn_index": fn_index, "session_hash": session, "event_data": None,
                       "trigger_id": None}).encode()
    req = urllib.request.Request(f"{url}/gradio_api/queue/join", data=body,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        assert r.status == 200
    with urllib.request.urlopen(f"{url}/gradio_api/queue/data?session_hash={session}", timeout=120) as r:
        for raw in r:
            line = raw.decode().strip()
            if not line.startswith("data:"):
                continue
            msg = json.loads(line[5:])
            if msg.get("msg") == "process_completed":
                assert msg.get("success"), msg
                return msg["output"]["data"]
    raise AssertionError("no result")


def _dependency(config: dict, output_elem: str, trigger: str) -> int:
    comps = {c["id"]: c for c in config["components"]}
    for i, dep in enumerate(config["dependencies"]):
        outs = [comps.get(o, {}).get("props", {}).get("elem_id") for o in dep["outputs"]]
        if output_elem in outs and any(t[1] == trigger for t in dep["targets"]):
            return dep.get("id", i)
    raise AssertionError(f"no {trigger} event writes #{output_elem}")


def test_served_board_starts_and_serves_everything_else(tmp_path):
    ids = damaged_store(tmp_path / "s")
    with serving(tmp_path / "s", gold_json=GOLD, cwd=tmp_path) as srv:   # before: serve did not start
        url = srv["url"]
        config = _config(url)
        on_load = _dependency(config, "overview-table", "load")
        table = _run_event(url, config, on_load, [])[0]
        assert "good-one" in table and "good-two" in table and "bad-" not in table
        queue = _dependency(config, "queue-table", "click")
        html, summary, _ = _run_event(url, config, queue, ["all", 1])
        assert "good-one" in html and "bad-" not in html
        log = srv["log"].read_text()
    for name in DAMAGE:
        assert ids[name] in log, (name, log[-2000:])


# --- issue 33: every column, corrupted in the database, is quarantined or harmless ---------------------

#: the issue's corruptions: (column, SQL value, the field the quarantine names)
ISSUE_CORRUPTIONS = [
    ("confidence_intervals", """'{"accuracy": {"low": "x", "high": 0.9}}'""", "confidence_intervals"),
    ("created_at", "1e20", "created_at"),
    ("model_parameters", str(2**63 - 1), "model_parameters"),
    ("model_name", "X'00ff'", "model_name"),
    ("metadata", """'{"kind": "predictions", "model": [1, 2]}'""", "metadata.model"),
    ("metadata", """'{"kind": "predictions", "model": {}, "provenance": "a string"}'""", "metadata.provenance"),
]
#: values of every SQLite storage class and out-of-range numbers, for any column
ANY = ["'x'", "1e20", "-1e20", str(2**63 - 1), str(-(2**63)), "X'00ff'", "'[1]'", "'{\"a\": [\"b\"]}'", "0.5", "NULL"]


def _views_and_commands(folder: Path, tmp: Path, ids: list[str]) -> None:
    """Start (open_store), every view of the page, list, export, a restart, and the quarantine listing."""
    from figbench_leaderboard.ui.tabs import detail, families, overview, plot, queue
    from figbench_leaderboard.ui.tabs.page import Page

    for _ in range(2):   # the second: a restart
        store = open_store(folder)
        board = Leaderboard(store, JsonGoldProvider(GOLD), limits=Limits(n_resamples=20))
        page = Page(board, max_bytes=10_000_000, use_oauth=False)
        shown = [str(overview.overview_html(page, *overview.default_controls(page)))]
        for fam in page.registry.families():
            shown.append(str(families.task_tables(page, fam, True, "25")))
        shown.append(str(plot.plot_figure(page, plot.first_plot(page), page.first_group, 1)))
        shown += [str(queue.queue_html(page, "all", 1)), *(str(detail.submission_html(page, s)) for s in ids)]
        for text in shown:
            assert "could not be built" not in text and "Traceback" not in text, text[:500]
        assert "good-one" in shown[0] and "good-two" in shown[0], shown[0][:500]
        store.close()
    for args in (["list"], ["list", "--json"], ["export", "--to", str(tmp / "x")]):
        assert figbench_main(["leaderboard", *args, "--store", str(folder)]) == 0, args
    assert figbench_main(["leaderboard", "list", "--store", str(folder), "--quarantined"]) == 0


def test_every_column_corrupted_is_quarantined_or_harmless(tmp_path, capsys):
    import random

    rng = random.Random(33)
    folder = tmp_path / "s"
    board = Leaderboard(Store(folder), JsonGoldProvider(GOLD), limits=Limits(n_resamples=20))
    for name in GOOD:
        board.submit(_sub(name))
    cols = [r[1] for r in board.store._conn().execute("PRAGMA table_info(submissions)").fetchall()]
    cases = [(c, v, c) for c in cols for v in rng.sample(ANY, 4)] + ISSUE_CORRUPTIONS
    victims = {}
    for k, case in enumerate(cases):
        victims[board.submit(_sub(f"victim-{k}"))["id"]] = case
    board.run_pending()
    board.store.close()
    db = sqlite3.connect(folder / DB_NAME)
    for sid, (col, value, _) in victims.items():
        try:
            db.execute(f"UPDATE submissions SET {col} = {value} WHERE id = ?", (sid,))
        except sqlite3.IntegrityError:
            pass   # the table's own constraints refuse it (NOT NULL, CHECK): nothing to quarantine
    db.commit()
    db.close()
    capsys.readouterr()
    _views_and_commands(folder, tmp_path, list(victims))
    out = capsys.readouterr().out
    listing = out.split("\n")
    for col, value, field in ISSUE_CORRUPTIONS:
        sid = next(s for s, c in victims.items() if c == (col, value, field))
        line = next((ln for ln in listing if ln.startswith(sid)), None)
        assert line is not None and field in line, (col, value, line)


# --- issue 33: the same shapes arriving in the Hub's files (the local Hub of test_leaderboard_hub) --------

#: model name -> (how its Hub files are damaged, the field ``list --quarantined`` names)
HUB_DAMAGE = {
    "hub-text-bound": ("confidence_intervals", "confidence_intervals"),   # results (and private) file
    "hub-created-1e20": ("created_at", "created_at"),
    "hub-params-2e63": ("model_parameters", "model_parameters"),
    "hub-name-number": ("model_name", "model_name"),     # JSON has no bytes: a number, then a list
    "hub-name-list": ("model_name", "model_name"),
    "hub-model-list": ("metadata.model", "metadata.model"),
    "hub-provenance-text": ("metadata.provenance", "metadata.provenance"),
}


def _damage_hub_files(hub, ids: dict[str, str]) -> None:
    public, private = hub.repos["figbench/board"], hub.repos["figbench/board-private"]
    req_of = {json.loads(v)["id"]: k for k, v in public.items() if k.startswith("requests/")}
    res_of = {json.loads(v)["submission_id"]: k for k, v in public.items() if k.startswith("results/")}
    priv_of = {json.loads(v)["id"]: k for k, v in private.items() if k.startswith("predictions/")}

    def edit(repo: dict, path: str, fn) -> None:
        obj = json.loads(repo[path])
        fn(obj)
        repo[path] = json.dumps(obj).encode()

    def text_bounds(obj: dict, cis: dict) -> None:
        for interval in cis.values():
            interval["low"] = "x"

    sid = ids["hub-text-bound"]
    edit(public, res_of[sid], lambda o: [text_bounds(o, c) for c in o["confidence_intervals"].values()])
    edit(private, priv_of[sid], lambda o: text_bounds(o, o["confidence_intervals"]))
    edit(public, req_of[ids["hub-created-1e20"]], lambda o: o.update(created_at=1e20))
    edit(public, req_of[ids["hub-params-2e63"]], lambda o: o.update(model_parameters=2**63 - 1, params=2**63 - 1))
    edit(public, req_of[ids["hub-name-number"]], lambda o: o.update(model_name=12345, model=12345))
    edit(public, req_of[ids["hub-name-list"]], lambda o: o.update(model_name=["a", "b"]))
    edit(public, req_of[ids["hub-model-list"]], lambda o: o["metadata"].update(model=[1, 2]))
    edit(public, req_of[ids["hub-provenance-text"]], lambda o: o["metadata"].update(provenance="a string"))


def test_hub_import_quarantines_each_bad_field(tmp_path, monkeypatch, capsys):
    """A Hub results/request file with each of the issue's bad fields: the import quarantines the row and
    ``list --quarantined`` names row and field; start (pull), every view, list, export and a restart succeed."""
    from huggingface_hub import constants

    from tests.test_leaderboard_hub import TOKEN, FakeHub
    from tests.test_leaderboard_hub_restart import _store

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)   # the tests' local Hub is reachable
    hub = FakeHub(private={"figbench/board-private"})
    hub.repos = {"figbench/board": {}, "figbench/board-private": {}}
    try:
        board = Leaderboard(_store(hub, tmp_path / "a"), JsonGoldProvider(GOLD), limits=Limits(n_resamples=20))
        ids = {name: board.submit(_sub(name))["id"] for name in (*GOOD, *HUB_DAMAGE)}
        board.run_pending()
        board.store.close()                                   # pushes every row to the local Hub
        _damage_hub_files(hub, ids)
        for k, v in {"HF_ENDPOINT": hub.url, "HF_TOKEN": TOKEN, "FIGBENCH_LEADERBOARD_PRIVATE_REPO":
                     "figbench/board-private", "FIGBENCH_LEADERBOARD_CACHE": str(tmp_path / "b")}.items():
            monkeypatch.setenv(k, v)
        spec = "hf://datasets/figbench/board"
        capsys.readouterr()
        _views_and_commands(spec, tmp_path, list(ids.values()))   # a fresh cache: everything from the Hub
        listing = capsys.readouterr().out.splitlines()
        for name, (_, field) in HUB_DAMAGE.items():
            line = next((ln for ln in listing if ln.startswith(ids[name])), None)
            assert line is not None and field in line, (name, listing)
        assert figbench_main(["leaderboard", "list", "--store", spec, "--json"]) == 0
        assert sorted(r["model_name"] for r in json.loads(capsys.readouterr().out)) == sorted(GOOD)
        # a usable file of the same submission, later, is imported and leaves the listing
        public = hub.repos["figbench/board"]
        path = next(k for k, v in public.items() if k.startswith("requests/") and ids["hub-name-number"][:12] in k)
        fixed = json.loads(public[path])
        fixed.update(model_name="hub-name-number", model="hub-name-number", updated_at=fixed["updated_at"] + 1)
        public[path] = json.dumps(fixed).encode()
        assert figbench_main(["leaderboard", "list", "--store", spec, "--quarantined", "--json"]) == 0
        assert ids["hub-name-number"] not in {r["id"] for r in json.loads(capsys.readouterr().out)}
        assert figbench_main(["leaderboard", "list", "--store", spec, "--json"]) == 0
        assert "hub-name-number" in {r["model_name"] for r in json.loads(capsys.readouterr().out)}
    finally:
        hub.close()
