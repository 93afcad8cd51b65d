"""Issue 20, "Gold that is called hidden is public": every benchmark declares its gold public or hidden,
the board says which, and a hidden benchmark's gold stays in the server's private store.

A small held-out set (never released) is made a hidden benchmark with ``figbench leaderboard hidden add``;
its gold must then be absent from every public artifact: the package files, the Space folder, the
inputs given to submitters, an ``--inputs-only`` export, the public Hub files, ``leaderboard list
--json``, the API answer and the board's HTML.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import secrets
from pathlib import Path

import pytest
from figbench_leaderboard.access.hidden_policy import HiddenSplitPolicy
from figbench_leaderboard.domain.benchmarks import BenchmarkRegistry
from figbench_leaderboard.domain.release import release
from figbench_leaderboard.scoring.board import Leaderboard, Limits
from figbench_leaderboard.scoring.gold import JsonGoldProvider, PrivateGoldStore, ServerGold, private_store
from figbench_leaderboard.store.hub_layout import result_json, write_layout
from figbench_leaderboard.store.limits import RateLimit
from figbench_leaderboard.store.sqlite import Store
from figbench_leaderboard.ui import task_tables
from figbench_leaderboard.ui.about_text import about_markdown, gold_legend, header_text
from figbench_leaderboard.ui.detail_html import detail_html

import datasets
import figbench
from figbench.cli import main as figbench_main
from figbench.tasks import TASKS, benchmarks, find_benchmark, get_task, unregister_benchmark

ROOT = Path(__file__).resolve().parents[1]
KEY = "metonymy/wimcor_fresh/harvest/test"
LABELS = ["LOCATION", "INSTITUTE", "TEAM", "ARTIFACT", "EVENT"]
PUBLIC_SIX = {"ecbplus", "ecbmeta", "wec_eng", "meta4xnli", "wimcor", "epic"}


def _run(*argv: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = figbench_main(list(argv))
    assert rc in (0, None), out.getvalue()
    return out.getvalue()


@pytest.fixture
def heldout(tmp_path, monkeypatch):
    """A never-released WiMCor-style held-out set (60 examples) made hidden with figbench's own command."""
    rows = []
    for i in range(60):
        rows.append({"id": secrets.token_hex(8), "text": f"Sentence {i} about the place number {i}.",
                     "pmw": f"place{i}", "pmw_start": 0, "pmw_end": 5, "medium": LABELS[(i * 7) % 5],
                     "coarse": "metonymic" if i % 3 else "literal", "fine": f"finegold-{secrets.token_hex(6)}"})
    src = tmp_path / "fresh.jsonl"
    src.write_text("\n".join(json.dumps(r) for r in rows), "utf-8")
    private = tmp_path / "server-private"
    monkeypatch.setenv("FIGBENCH_PRIVATE_DIR", str(private))
    out = json.loads(_run("leaderboard", "hidden", "add", "--task", "metonymy", "--dataset", "wimcor_fresh",
                          "--config", "harvest", "--split", "test", "--label", "WiMCor fresh (hidden)",
                          "--data-files", str(src), "--inputs-out", str(tmp_path / "release"),
                          "--audit-corpora", "wimcor"))
    assert out["gold"] == "hidden" and out["examples"] == 60
    store = private_store()            # what `serve` does at start: the hidden benchmarks get registered
    yield {"rows": rows, "private": private, "release": tmp_path / "release", "store": store,
           "gold": {r["id"]: r["medium"] for r in rows}}
    unregister_benchmark(KEY)


def _leaks(text: str, gold: dict[str, str], rows: list[dict]) -> list[str]:
    """Pieces of hidden gold found in ``text``: an id with its label in the same record (a JSON object
    or pair, a line, a table row), or any value of the gold-only columns."""
    found = [r["fine"] for r in rows if r["fine"] in text]
    for i, label in gold.items():
        if re.search(re.escape(i) + r"[^{}\n]{0,400}?" + label + "|" + label + r"[^{}\n]{0,400}?" + re.escape(i),
                     text):
            found.append(f"{i}->{label}")
    return found


def _files_text(folder: Path) -> str:
    parts = []
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            if p.suffix == ".parquet":
                parts.append(datasets.Dataset.from_parquet(str(p)).to_pandas().to_json(orient="records", lines=True))
            else:
                parts.append(p.read_bytes().decode("utf-8", "replace"))
    return "\n".join(parts)


def _board(tmp_path, policy=HiddenSplitPolicy(), name="store") -> Leaderboard:
    gold = ServerGold(JsonGoldProvider({}), private_store())
    return Leaderboard(Store(tmp_path / name, rate_limit=RateLimit(max_submissions=1000)), gold,
                       limits=Limits(n_resamples=50), policy=policy)


def _sub(preds, name, **extra):
    return {"format": "figbench-predictions/1", "task": "metonymy", "dataset": "wimcor_fresh", "config": "harvest",
            "split": "test", "model": {"name": name, "type": "other"}, "predictions": preds, **extra}


# --- declarations --------------------------------------------------------------------------------

def test_every_benchmark_declares_its_gold_and_the_six_corpora_are_public():
    for t in TASKS.values():
        for b in t.benchmarks:
            assert b.gold in ("public", "hidden"), b.key
            if b.dataset in PUBLIC_SIX:
                assert b.gold == "public" and not b.hidden, b.key
    assert {b.dataset for b in benchmarks()} >= PUBLIC_SIX
    with pytest.raises(ValueError, match="gold must be"):
        figbench.tasks.Benchmark("metonymy", "x", "y", "test", "X", gold="secret")


def test_public_benchmarks_are_released_in_full_and_say_so(tmp_path):
    """WiMCor's test gold ships with the corpus: no rounding, counts and mismatches shown, no quota, and the
    board, About tab and API call it a public test set (they used to claim hidden gold)."""
    registry = BenchmarkRegistry()
    key = "metonymy/wimcor/sample/test"
    ids = [f"x{i}" for i in range(30)]
    gold = JsonGoldProvider({key: {"labels": {i: LABELS[k % 5] for k, i in enumerate(ids)}, "label_set": LABELS}})
    board = Leaderboard(Store(tmp_path / "s", rate_limit=RateLimit(max_submissions=100)), gold,
                        limits=Limits(n_resamples=0), policy=HiddenSplitPolicy(daily_quota=1))
    outs = []
    for k in range(3):   # a quota of 1 would refuse the second on a hidden benchmark
        preds = {i: LABELS[(n + k) % 5] if n % 7 else "TEAM" for n, i in enumerate(ids)}
        outs.append(board.submit({"format": "figbench-predictions/1", "task": "metonymy", "dataset": "wimcor",
                                  "config": "sample", "split": "test", "model": {"name": f"m{k}", "type": "other"},
                                  "predictions": preds}, account="hf:alice"))
    board.run_pending()
    row = board.store.get(outs[1]["id"])
    shown = board.released(row)
    assert shown["gold"] == "public" and shown["scores"] == row["scores"] and shown["counts"] == row["counts"]
    assert any(round(v, 3) != v for v in row["scores"].values())
    assert result_json(row)["gold"] == "public" and result_json(row)["counts"][key] == row["counts"]
    assert "scored by the server against hidden gold" not in header_text(registry)
    assert "public test set" in header_text(registry)
    about = about_markdown(registry, HiddenSplitPolicy())
    assert "WiMCor (sample): *public test set*" in about and "ePiC seen: *public test set*" in about
    assert "600 of the 1,000 seen-test narratives" in about          # the ePiC overlap note
    table = task_tables.task_table(board.store.board_rows(), registry, "metonymy")
    assert set(table["Gold"]) == {"public test set"}
    readme = (ROOT / "leaderboard" / "README.md").read_text("utf-8")
    assert "| WiMCor (sample) | public |" in readme and "## Public and hidden benchmarks" in readme


# --- a hidden benchmark made by figbench, and where its gold may not be --------------------------

def test_hidden_add_keeps_the_gold_private_and_gives_submitters_inputs_only(heldout):
    bench = find_benchmark(KEY)
    assert bench is not None and bench.hidden and bench.label == "WiMCor fresh (hidden)"
    private = heldout["private"]
    assert sorted(p.name for p in private.iterdir() if p.is_dir()) == ["metonymy__wimcor_fresh__harvest__test"]
    assert (private.stat().st_mode & 0o077) == 0                      # the private store is the owner's only
    gold = heldout["store"].get(bench)
    assert dict(gold.labels) == heldout["gold"]
    inputs = datasets.Dataset.from_parquet(str(heldout["release"] / "inputs.parquet"))
    assert len(inputs) == 60 and not {"medium", "coarse", "fine"} & set(inputs.column_names)
    assert set(inputs["id"]) == set(heldout["gold"])
    assert _leaks(_files_text(heldout["release"]), heldout["gold"], heldout["rows"]) == []
    listed = _run("leaderboard", "hidden", "list")
    assert KEY in listed and "(hidden)" in listed
    # a private store inside a package folder would ship in the wheel: refused
    with pytest.raises(ValueError, match="must not be inside"):
        PrivateGoldStore(ROOT / "leaderboard" / "private").add(bench, gold)
    assert not (ROOT / "leaderboard" / "private").exists()
    # a public benchmark cannot be made hidden: its gold is out already
    with pytest.raises(ValueError, match="public benchmark"):
        PrivateGoldStore(private).add(figbench.tasks.Benchmark("metonymy", "wimcor", "sample", "test", "W"), gold)


def test_hidden_gold_is_absent_from_every_public_artifact(heldout, tmp_path):
    from figbench_leaderboard.space import write_space
    from figbench_leaderboard.ui.app import build_app

    gold, rows = heldout["gold"], heldout["rows"]
    board = _board(tmp_path)
    perfect = dict(gold)
    wrong = {i: LABELS[(LABELS.index(v) + 1) % 5] for i, v in gold.items()}
    a = board.submit(_sub(perfect, "perfect-model"), account="hf:alice")
    b = board.submit(_sub(wrong, "wrong-model"), account="hf:bob")
    board.run_pending()
    exact = board.store.get(a["id"])
    assert exact["status"] == "FINISHED" and exact["scores"]["micro_f1"] == 1.0   # scored from the private store
    assert exact["counts"]                                                         # the store keeps exact counts

    artifacts: dict[str, str] = {}
    # 1. the package: a built wheel when the CI made one, else every file package_data would ship
    smoke = __import__("os").environ.get("FIGBENCH_SMOKE_DIR")
    wheels = sorted(Path(smoke).glob("**/figbench-*.whl")) if smoke else []
    if wheels:
        import zipfile

        with zipfile.ZipFile(wheels[0]) as z:
            artifacts["wheel"] = "\n".join(z.read(n).decode("utf-8", "replace") for n in z.namelist())
    else:
        patterns = ("README.md", "*.json", "*.css", "*.js", "*.txt", "*.py")
        files = [p for folder in ("figbench", "datasets", "metrics", "baselines", "leaderboard")
                 for pat in patterns for p in (ROOT / folder).rglob(pat)]
        assert not [p for p in files if heldout["private"] in p.parents]
        artifacts["package files"] = "\n".join(p.read_text("utf-8", "replace") for p in files)
    # 2. the Space folder, written while the server has a private store configured
    space = tmp_path / "space"
    write_space(space)
    assert not list(space.rglob("gold.json")) and not list(space.rglob("benchmark.json"))
    artifacts["space"] = _files_text(space)
    # 3. what submitters get: the inputs file and an --inputs-only export of a corpus split
    artifacts["inputs"] = _files_text(heldout["release"])
    # 4. the public Hub files (the private repository's files are under private/)
    hub = tmp_path / "hub"
    write_layout(board.store, hub)
    public_hub = [p for p in hub.rglob("*.json") if "private" not in p.relative_to(hub).parts]
    assert public_hub
    artifacts["hub"] = "\n".join(p.read_text("utf-8") for p in public_hub)
    for p in public_hub:
        obj = json.loads(p.read_text("utf-8"))
        if "results" in obj:
            assert obj["gold"] == "hidden" and "counts" not in obj and "mismatches" not in obj
            assert "confidence_intervals" not in obj and set(obj["results"][KEY]) == {"micro_f1"}
    # 5. leaderboard list --json
    listed = json.loads(_run("leaderboard", "list", "--store", str(tmp_path / "store"), "--json"))
    assert {r["gold"] for r in listed} == {"hidden"} and all("counts" not in r for r in listed)
    artifacts["list"] = json.dumps(listed)
    # 6. the API (the documented submission_status endpoint, through the app's own handler)
    demo = build_app(board)
    status = next(f for f in demo.fns.values() if getattr(f, "api_name", None) == "submission_status")
    answers = [json.loads(status.fn(x["id"])) for x in (a, b)]
    assert all(r["ok"] and r["submission"]["gold"] == "hidden" for r in answers)
    artifacts["api"] = json.dumps(answers)
    # 7. the board's HTML: detail view and task table
    registry = board.registry
    detail = detail_html(board.released(exact), registry)
    assert "hidden" in detail
    table = task_tables.task_table(board.store.board_rows(released=True), registry, "metonymy")
    assert set(table["Gold"]) == {"hidden, private gold"}
    artifacts["html"] = detail + table.to_html() + about_markdown(registry, board.policy) + gold_legend(registry)
    assert "WiMCor fresh (hidden): *hidden, private gold*" in artifacts["html"]

    for where, text in artifacts.items():
        assert _leaks(text, gold, rows) == [], where
    # nothing public carries a hidden score at full precision
    assert answers[0]["submission"]["scores"] == release(exact)["scores"]
    # and the private store is the only place with the gold file
    assert (heldout["private"] / "metonymy__wimcor_fresh__harvest__test" / "gold.json").is_file()


def test_inputs_only_export_drops_every_gold_column(tmp_path):
    """``figbench data export --inputs-only``: WiMCor's medium/coarse/fine, ePiC's proverb columns and the
    narrative side of alignment pairs are left out; without the flag the export keeps them (unchanged)."""
    root = Path(__import__("os").environ.get("FIGBENCH_DATA_DIR", "")) / "wimcor"
    if not root.is_dir():
        pytest.skip("WiMCor is not under FIGBENCH_DATA_DIR")
    out = _run("data", "export", "wimcor", "sample", "--to", str(tmp_path / "in"), "--inputs-only",
               "--data-dir", str(root), "--cache-dir", str(tmp_path / "c"), "--json")
    report = json.loads(out)
    assert report["dropped"]["sample/test"] == ["medium", "coarse", "fine"]
    test = datasets.load_dataset(str(tmp_path / "in"), "sample", split="test", cache_dir=str(tmp_path / "c2"))
    assert not {"medium", "coarse", "fine"} & set(test.column_names) and {"id", "text", "pmw"} <= set(test.column_names)
    card = (tmp_path / "in" / "README.md").read_text("utf-8")
    assert "## Inputs only" in card and "medium" not in yaml_features(card)
    full = _run("data", "export", "wimcor", "sample", "--to", str(tmp_path / "full"), "--data-dir", str(root),
                "--cache-dir", str(tmp_path / "c"), "--json")
    assert json.loads(full)["dropped"] == {}
    test_full = datasets.load_dataset(str(tmp_path / "full"), "sample", split="test", cache_dir=str(tmp_path / "c3"))
    assert "medium" in test_full.column_names


def yaml_features(card: str) -> str:
    return card.split("---", 2)[1]


def test_inputs_only_keeps_alignment_queries_and_drops_answers():
    from datasets import Dataset

    task = get_task("proverb_alignment")
    ds = Dataset.from_list([{"id": "n1", "narrative": "He ate the jam.", "proverb": "Jam tomorrow", "proverb_id": "Q1",
                             "pairs": [{"pair_id": "n1-1", "proverb_span": "Jam", "proverb_start": 0, "proverb_end": 3,
                                        "narrative_span": "the jam", "narrative_start": 7, "narrative_end": 14,
                                        "proverb_match": "exact", "narrative_match": "exact",
                                        "proverb_occurrences": 1, "narrative_occurrences": 1}]}])
    out = task.inputs_only(ds)
    assert out[0]["pairs"] == [{"pair_id": "n1-1", "proverb_span": "Jam", "proverb_start": 0, "proverb_end": 3,
                                "proverb_match": "exact", "proverb_occurrences": 1}]
    assert task.gold_columns() == ("pairs",)
    assert get_task("proverb_prediction").gold_columns() == ("proverb_id", "proverb", "label")
    assert get_task("cdec").gold_columns() == ("cluster_id",)
    assert get_task("metaphor_nli").gold_columns() == ("gold_label",)


def test_hidden_benchmark_without_private_store_is_unavailable(tmp_path, heldout):
    from figbench_leaderboard.scoring.gold import GoldUnavailableError

    with pytest.raises(GoldUnavailableError, match="no private store"):
        ServerGold(JsonGoldProvider({})).get(find_benchmark(KEY))


def test_the_leak_detector_finds_the_gold_where_it_is(heldout):
    """The absence checks above can fail: the private store's own files and a full export are caught."""
    folder = heldout["private"] / "metonymy__wimcor_fresh__harvest__test"
    assert len(_leaks(_files_text(folder), heldout["gold"], heldout["rows"])) == 60
    full = "\n".join(json.dumps(r) for r in heldout["rows"])
    assert len(_leaks(full, heldout["gold"], heldout["rows"])) == 120


def test_fresh_ids_hide_public_source_ids(tmp_path, monkeypatch):
    """A hidden benchmark made from material whose ids are public (e.g. a generated variant of ECB+ test
    keeps ECB+'s mention ids) gets fresh opaque ids: inputs and private gold agree, the old ids are gone."""
    clusters = [["ecb_1", "ecb_2", "ecb_3"], ["ecb_4"], ["ecb_5", "ecb_6"]]
    rows = [{"mention_id": m, "topic": "t1", "text": f"event {m[-1]}", "cluster_id": f"c{k}"}
            for k, c in enumerate(clusters) for m in c]
    src = tmp_path / "generated.jsonl"
    src.write_text("\n".join(json.dumps(r) for r in rows), "utf-8")
    private = tmp_path / "private"
    try:
        _run("leaderboard", "hidden", "add", "--private", str(private), "--task", "cdec", "--dataset", "ecbmeta_gen",
             "--config", "meta_x", "--split", "test", "--label", "ECB+META generated (hidden)", "--data-files",
             str(src), "--fresh-ids", "--inputs-out", str(tmp_path / "out"),
             "--audit-corpora", "wec_eng")   # the audit itself: test_leaderboard_linkage_audit.py
        store = PrivateGoldStore(private)
        bench = store.register()[0]
        gold = store.get(bench)
        inputs = datasets.Dataset.from_parquet(str(tmp_path / "out" / "inputs.parquet"))
        assert "cluster_id" not in inputs.column_names
        assert set(inputs["mention_id"]) == set(gold.ids) and not set(gold.ids) & {r["mention_id"] for r in rows}
        assert sorted(len(c) for c in gold.clusters) == [1, 2, 3]
        assert not any("ecb_" in p.read_text("utf-8") for p in private.rglob("*.json"))
    finally:
        unregister_benchmark("cdec/ecbmeta_gen/meta_x/test")


def test_served_board_scores_a_hidden_benchmark_from_its_private_store_over_http(heldout, tmp_path):
    """``figbench leaderboard serve --private DIR`` over real HTTP: the hidden benchmark is on the board
    (marked hidden), a submission to it is scored from the private store, and neither the page, its config,
    the API answer nor the file route hands out the gold."""
    import urllib.error
    import urllib.request

    from figbench_leaderboard.screenshots import serving

    from tests.test_leaderboard_server import call_api, wait_for_submission

    gold, rows = heldout["gold"], heldout["rows"]
    fixture_gold = ROOT / "tests" / "fixtures" / "leaderboard" / "gold.json"
    token = _run("leaderboard", "tokens", "issue", "--store", str(tmp_path / "store"), "--label", "tester").strip()
    with serving(tmp_path / "store", gold_json=fixture_gold, args=["--private", str(heldout["private"])],
                 cwd=tmp_path) as srv:
        url = srv["url"]
        preds = {i: ("TEAM" if k % 2 else v) for k, (i, v) in enumerate(gold.items())}
        out = json.loads(call_api(url, "submit_json", [json.dumps(_sub(preds, "made-up-token")), ""],
                                  headers={"X-Figbench-Token": "x" * 40}))
        assert not out["ok"] and out["error"].startswith("unknown submitter token"), out
        out = json.loads(call_api(url, "submit_json", [json.dumps(_sub(preds, "served-model")), ""],
                                  headers={"X-Figbench-Token": token}))
        assert out["ok"], out
        status = wait_for_submission(url, out["submission"]["id"])
        assert status["status"] == "FINISHED" and status["gold"] == "hidden", status
        assert status["mismatches"] == {} and status["confidence_intervals"] == {}
        expected = sum(preds[i] == v for i, v in gold.items()) / len(gold)
        assert status["scores"] == {"micro_f1": round(expected, 2)}   # the Ladder's first step: the headline only
        texts = [json.dumps(status)]
        for path in ("/", "/config"):
            with urllib.request.urlopen(url + path, timeout=30) as r:
                texts.append(r.read().decode("utf-8", "replace"))
        assert "WiMCor fresh (hidden): *hidden, private gold*" in texts[-1]
        gold_file = heldout["private"] / "metonymy__wimcor_fresh__harvest__test" / "gold.json"
        for route in (f"/gradio_api/file={gold_file}", f"/file={gold_file}"):
            try:
                with urllib.request.urlopen(url + route, timeout=30) as r:
                    texts.append(r.read().decode("utf-8", "replace"))
            except urllib.error.HTTPError as e:
                assert e.code in (403, 404), route
    for text in texts:
        assert _leaks(text, gold, rows) == []
