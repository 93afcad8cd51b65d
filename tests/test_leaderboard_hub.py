"""Hub dataset store: the template layout, its round trip, and a clear offline error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from figbench_leaderboard.board import Leaderboard, Limits
from figbench_leaderboard.gold import JsonGoldProvider
from figbench_leaderboard.hub_store import (
    HubStore,
    HubStoreError,
    import_layout,
    open_store,
    request_path,
    result_path,
    safe_component,
    write_layout,
)
from figbench_leaderboard.store import Store

FIX = Path(__file__).parent / "fixtures" / "leaderboard"


def _board(folder):
    return Leaderboard(Store(folder), JsonGoldProvider(FIX / "gold.json"), limits=Limits(n_resamples=50))


def test_safe_component():
    assert safe_component("../../etc") == "_.._etc"
    assert safe_component("..") == "_" and safe_component("") == "_"
    assert "/" not in safe_component("a/b\\c<d>")


def test_layout_roundtrip(tmp_path):
    board = _board(tmp_path / "a")
    sub = json.loads((FIX / "predictions_cdec.json").read_text())
    sub["model"]["name"] = "my-org/lemma <fixture>"
    board.submit(sub)
    board.submit(json.loads((FIX / "predictions_metonymy.json").read_text()))
    board.run_pending()
    pending = json.loads((FIX / "predictions_metonymy.json").read_text())
    pending["model"]["revision"] = "v9"
    board.submit(pending)   # stays PENDING: a request file only

    files = write_layout(board.store, tmp_path / "repo")
    rel = sorted(str(p.relative_to(tmp_path / "repo")) for p in files)
    assert sum(r.startswith("requests/") for r in rel) == 3 and sum(r.startswith("results/") for r in rel) == 2
    assert any(r.startswith("requests/my-org/lemma__fixture__eval_request_abc123_cdec_ecbplus_events_test_") for r in rel)
    assert any(r.startswith("results/my-org/lemma__fixture_/results_") for r in rel)
    for p in files:
        assert ".." not in p.relative_to(tmp_path / "repo").parts
    res = json.loads(next(p for p in files if "results/my-org" in str(p)).read_text())
    assert res["config"]["model_name"] == "my-org/lemma <fixture>" and res["config"]["model_sha"] == "abc123"
    assert "conll_f1" in res["results"]["cdec/ecbplus/events/test"]

    copy = Store(tmp_path / "b")
    assert import_layout(copy, tmp_path / "repo") == 3
    assert import_layout(copy, tmp_path / "repo") == 0   # idempotent
    orig = {r["id"]: r for r in board.store.list()}
    for r in copy.list():
        o = orig[r["id"]]
        for k in ("status", "scores", "confidence_intervals", "model_name", "model_revision", "verified", "metadata"):
            assert r[k] == o[k], k
    some = next(r["id"] for r in copy.list() if r["status"] == "PENDING")
    assert copy.get(some, with_predictions=True)["predictions"] == pending["predictions"]


def test_paths_never_escape(tmp_path):
    sub = {"id": "0123456789abcdef", "model_name": "evil/..", "model_revision": "", "task": "cdec", "dataset": "ecbplus",
           "config": "events", "split": "test", "updated_at": 0.0}
    for p in (request_path(sub), result_path(sub)):
        assert ".." not in p.split("/")


def test_offline_hub_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    store = HubStore("figbench/leaderboard-requests", cache_dir=tmp_path)
    with pytest.raises(HubStoreError, match="cannot download the Hub dataset 'figbench/leaderboard-requests'"):
        store.pull()
    board = Leaderboard(store, JsonGoldProvider(FIX / "gold.json"))
    with pytest.raises(HubStoreError, match="cannot write to the Hub dataset"):
        board.submit(json.loads((FIX / "predictions_metonymy.json").read_text()))
    assert store.count() == 0   # not durable on the Hub: not kept locally either
    with pytest.raises(HubStoreError):
        open_store("hf://datasets/figbench/leaderboard-requests")


def test_bad_repo_id(tmp_path):
    with pytest.raises(HubStoreError, match="not a Hub repository id"):
        HubStore("../x", cache_dir=tmp_path)


def test_export_parquet_and_json(tmp_path):
    import datasets
    import pandas as pd

    from figbench_leaderboard.export import export_board

    board = _board(tmp_path / "s")
    board.submit(json.loads((FIX / "predictions_cdec.json").read_text()))
    board.submit(json.loads((FIX / "predictions_metonymy.json").read_text()))
    board.run_pending()
    written = export_board(board.store, tmp_path / "out")
    names = sorted(p.name for p in written)
    assert names == ["README.md", "overview.jsonl", "overview.parquet", "submissions.jsonl", "submissions.parquet"]
    subs = pd.read_parquet(tmp_path / "out" / "submissions.parquet")
    assert len(subs) == 2 and "score.conll_f1" in subs and "ci_low.conll_f1" in subs and "predictions" not in subs
    ov = datasets.load_dataset(str(tmp_path / "out"), "overview", split="train")
    assert sorted(ov["Model"]) == ["lemma-fixture", "majority-baseline"]
    lines = (tmp_path / "out" / "submissions.jsonl").read_text().splitlines()
    assert len(lines) == 2 and json.loads(lines[0])["status"] == "FINISHED"
