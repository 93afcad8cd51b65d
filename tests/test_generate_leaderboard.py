"""Issue 24: a corpus made by ``figbench generate`` goes on the leaderboard as a hidden benchmark.

``figbench generate metaphors`` (against the scripted OpenAI-compatible server of :mod:`tests.llm_server`) and
``figbench generate build`` make a corpus from the committed WEC-Eng and ECB+ fixtures; ``figbench leaderboard
hidden add --data-files DIR`` takes the generated folder as it is; the board (served over real HTTP, and its
scoring entry point in process) scores a perfect and a degraded system output with the numbers figbench's own
scorer gives on the same data, and neither the gold clusters nor the source mention ids reach a public artifact.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from figbench_leaderboard.access.hidden_policy import HiddenSplitPolicy
from figbench_leaderboard.scoring.board import Leaderboard, Limits
from figbench_leaderboard.scoring.gold import JsonGoldProvider, ServerGold, private_store
from figbench_leaderboard.store.limits import RateLimit
from figbench_leaderboard.store.sqlite import Store

import datasets
from figbench.scoring.coref import evaluate_coref
from figbench.tasks import get_task, unregister_benchmark
from tests.llm_server import ScriptedLLM
from tests.test_generate import ECB_MINI, FIGBENCH, run_cli
from tests.test_leaderboard_hidden import _files_text, _leaks, _run

ROOT = Path(__file__).resolve().parents[1]
WEC = Path(__file__).parent / "fixtures" / "wec_eng" / "original"
SHOWN = ("conll_f1", "muc_f1", "bcub_f1", "ceafe_f1", "ceafm_f1", "lea_f1", "blanc_f1")


def generate(out: Path, dataset: str, data_dir: Path, split: str, style: str, *extra: str) -> list[dict]:
    """``figbench generate metaphors`` then ``figbench generate build`` (both the real CLI); the corpus rows."""
    with ScriptedLLM() as srv:
        r = run_cli([*FIGBENCH, "generate", "metaphors", "--dataset", dataset, "--split", split, "--data-dir",
                     str(data_dir), "--style", style, "--llm-endpoint", srv.url, "--llm-model", "scripted",
                     "--out", str(out), "--no-progress", *extra])
    assert r.returncode == 0, r.stderr
    r = run_cli([*FIGBENCH, "generate", "build", str(out)])
    assert r.returncode == 0, r.stderr
    card = (out / "README.md").read_text("utf-8")
    assert "None" not in card.split("## Counts")[0], "a corpus without configs names no `None` config in its card"
    return datasets.load_dataset(str(out), split=split).to_list()


def hidden_add(private: Path, dataset: str, config: str, split: str, label: str, source: Path,
               inputs: Path) -> dict:
    r = run_cli([*FIGBENCH, "leaderboard", "hidden", "add", "--private", str(private), "--task", "cdec",
                 "--dataset", dataset, "--config", config, "--split", split, "--label", label,
                 "--data-files", str(source), "--fresh-ids", "--inputs-out", str(inputs),
                 "--audit-corpora", "wec_eng", "ecbplus"])
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def fresh_ids(rows: list[dict], inputs: Path) -> dict[str, str]:
    """Source mention id -> the opaque id submitters see: ``inputs.parquet`` keeps the corpus's rows in order,
    every column but the gold, the id, the source-naming columns (opaque, their grouping kept) and the dropped
    original text unchanged (checked here, so the pairing is the corpus's own)."""
    given = datasets.Dataset.from_parquet(str(inputs / "inputs.parquet")).to_list()
    assert len(given) == len(rows)
    assert "cluster_id" not in given[0] and "original_text" not in given[0]
    renamed = ("doc_id", "topic", "subtopic")
    for row, inp in zip(rows, given, strict=True):
        assert {k: v for k, v in row.items() if k not in ("mention_id", "cluster_id", "original_text", *renamed)} == \
            {k: v for k, v in inp.items() if k not in ("mention_id", *renamed)}
    for col in renamed:   # opaque, the same grouping
        pairs = {(row[col], inp[col]) for row, inp in zip(rows, given, strict=True)}
        assert len(pairs) == len({a for a, _ in pairs}) == len({b for _, b in pairs})
        assert not {a for a, _ in pairs} & {b for _, b in pairs}
    mapping = {row["mention_id"]: inp["mention_id"] for row, inp in zip(rows, given, strict=True)}
    assert len(set(mapping.values())) == len(rows) and not set(mapping) & set(mapping.values())
    return mapping


def gold_clusters(rows: list[dict]) -> list[list[str]]:
    by: dict[str, list[str]] = {}
    for r in rows:
        by.setdefault(r["cluster_id"], []).append(r["mention_id"])
    return list(by.values())


def renamed(clusters: list[list[str]], ids: dict[str, str]) -> list[list[str]]:
    return [[ids[m] for m in c] for c in clusters]


def submission(dataset: str, config: str, split: str, clusters: list[list[str]], name: str) -> dict:
    return {"format": "figbench-predictions/1", "task": "cdec", "dataset": dataset, "config": config, "split": split,
            "model": {"name": name, "type": "other"}, "predictions": clusters}


def cluster_leaks(text: str, clusters: list[list[str]]) -> list[list[str]]:
    """Gold clusters (of two or more mentions) whose ids all appear in one JSON list or on one line of ``text``."""
    groups = re.findall(r"\[[^\[\]]*\]", text) + text.splitlines()
    return [c for c in clusters if len(c) > 1 and any(all(m in g for m in c) for g in groups)]


def lemma_clusters(rows: list[dict], out: Path) -> tuple[list[list[str]], dict]:
    """The lemma baseline (head-lemma pairs within topic) on the generated rows, run as for ECB+META (the
    schema the generated corpus shares): its clusters and its record, scored with figbench's cdec scorer."""
    import pyarrow.parquet as pq
    from figbench_baselines.cdec.pipeline import default_args, run

    args = default_args(dataset="ecbmeta", config="meta_m", split="test", method="lh", n_resamples=0, within="topic")
    args.train_rows = pq.read_table(out / "generation" / "source.parquet").to_pylist()
    rec = run(args, rows=rows)
    return [list(c) for c in rec["predictions"]["inline"]["clusters"]], rec


@pytest.fixture(scope="module")
def wec_meta(tmp_path_factory):
    """META_m paraphrases of the WEC-Eng fixture's test split (5 mentions in 2 clusters), made a hidden
    benchmark from the generated folder itself, with fresh ids (WEC-Eng's ids are public)."""
    tmp = tmp_path_factory.mktemp("wec_meta")
    out = tmp / "wec meta_m"          # a space in the path
    rows = generate(out, "wec_eng", WEC, "test", "multi")
    assert len(rows) == 5 and sorted(len(c) for c in gold_clusters(rows)) == [2, 3]
    summary = hidden_add(tmp / "private", "wec_meta", "meta_m", "test", "WEC-Eng META_m (hidden)", out,
                         tmp / "release")
    assert summary["benchmark"] == "cdec/wec_meta/meta_m/test" and summary["examples"] == 5
    ids = fresh_ids(rows, tmp / "release")
    return {"tmp": tmp, "out": out, "rows": rows, "private": tmp / "private", "release": tmp / "release", "ids": ids}


@pytest.mark.slow   # a generated corpus, a linkage audit of two real corpora and a served board
def test_served_board_scores_a_generated_corpus_as_a_hidden_benchmark(wec_meta):
    """``figbench leaderboard serve --private DIR`` over real HTTP: the gold clusters score 100 CoNLL F1, the
    lemma baseline's clusters score what the baseline's own record (figbench's scorer) says, at the hidden
    benchmark's released precision; the store keeps the exact values; nothing public holds the gold."""
    import urllib.request

    from figbench_leaderboard.screenshots import serving

    from tests.test_leaderboard_server import call_api, wait_for_submission

    tmp, rows, ids = wec_meta["tmp"], wec_meta["rows"], wec_meta["ids"]
    gold = gold_clusters(rows)
    lemma, rec = lemma_clusters(rows, wec_meta["out"])
    expected = evaluate_coref([lemma], [gold])
    assert rec["scores"]["conll_f1"] == pytest.approx(expected["conll_f1"])
    assert expected["conll_f1"] < 0.99          # a degraded output: "danced with fate" everywhere, one lemma
    fixture_gold = ROOT / "tests" / "fixtures" / "leaderboard" / "gold.json"
    sent = {"perfect": renamed(gold, ids), "lemma": renamed(lemma, ids)}
    statuses: dict[str, dict] = {}
    tokens = {name: _run("leaderboard", "tokens", "issue", "--store", str(tmp / "store"), "--label", name).strip()
              for name in sent}   # hidden benchmarks take issued tokens only; one submitter per system
    with serving(tmp / "store", gold_json=fixture_gold, cwd=tmp,
                 args=["--private", str(wec_meta["private"]), "--min-changed", "0"]) as srv:
        url = srv["url"]
        for name, clusters in sent.items():
            out = json.loads(call_api(url, "submit_json", [json.dumps(
                submission("wec_meta", "meta_m", "test", clusters, f"{name}-system")), ""],
                headers={"X-Figbench-Token": tokens[name]}))
            assert out["ok"], out
            status = wait_for_submission(url, out["submission"]["id"])
            assert status["status"] == "FINISHED" and status["gold"] == "hidden", status
            statuses[name] = status
        pages = []
        for path in ("/", "/config"):
            with urllib.request.urlopen(url + path, timeout=30) as r:
                pages.append(r.read().decode("utf-8", "replace"))
    assert "WEC-Eng META_m (hidden)" in pages[1]
    perfect, degraded = statuses["perfect"]["scores"], statuses["lemma"]["scores"]
    assert perfect == {"conll_f1": 1.0}         # hidden: the Ladder's headline only (a first step: to 0.01)
    assert degraded == {"conll_f1": round(expected["conll_f1"], 2)}
    exact = {r["model_name"]: r for r in Store(tmp / "store").list()}
    assert exact["perfect-system"]["scores"]["conll_f1"] == pytest.approx(1.0)
    for k in SHOWN:
        assert exact["lemma-system"]["scores"][k] == pytest.approx(expected[k]), k
        assert exact["lemma-system"]["scores"][k] == pytest.approx(rec["scores"][k]), k

    listed = _run("leaderboard", "list", "--store", str(tmp / "store"), "--json")
    public = {"api": json.dumps(statuses), "pages": "\n".join(pages), "list": listed,
              "inputs": _files_text(wec_meta["release"])}
    fresh_gold = renamed(gold, ids)
    labels = {ids[r["mention_id"]]: r["cluster_id"] for r in rows}
    for where, text in public.items():
        assert cluster_leaks(text, fresh_gold) == [], where
        assert _leaks(text, labels, []) == [], where
        assert not [m for m in ids if m in text], where        # the public source ids stay behind
    # the detector can fail: the private store and a perfect submission hold the gold
    private_gold = (wec_meta["private"] / "cdec__wec_meta__meta_m__test" / "gold.json").read_text("utf-8")
    assert cluster_leaks(private_gold, fresh_gold) == [c for c in fresh_gold if len(c) > 1]
    assert cluster_leaks(json.dumps(sent["perfect"]), fresh_gold)


def test_board_scoring_entry_point_on_a_generated_ecbplus_corpus(tmp_path, monkeypatch):
    """META_1 paraphrases of the ECB+ fixture's validation split, added with the in-process CLI and scored by
    :meth:`Leaderboard.run_pending` (what the served worker calls): exact scores in the store, released ones
    rounded, both equal to figbench's scorer for the gold clusters and for every mention alone."""
    out = tmp_path / "ecb_meta_1"
    rows = generate(out, "ecbplus", ECB_MINI, "validation", "single", "--config", "events",
                    "--option", "strict_release=False")
    gold = gold_clusters(rows)
    assert len(rows) == 2 and len(gold) == 1
    assert {r["text"] for r in rows} == {"cast out"}          # "fired" -> "cast out", re-tagged
    private = tmp_path / "private"
    monkeypatch.setenv("FIGBENCH_PRIVATE_DIR", str(private))
    key = "cdec/ecbplus_meta/meta_1/validation"
    try:
        summary = json.loads(_run("leaderboard", "hidden", "add", "--task", "cdec", "--dataset", "ecbplus_meta",
                                  "--config", "meta_1", "--split", "validation", "--label", "ECB+ META_1 (hidden)",
                                  "--data-files", str(out), "--fresh-ids", "--inputs-out", str(tmp_path / "rel"),
                                  "--audit-corpora", "ecbplus"))   # its source; every corpus: 40 s more
        assert summary["benchmark"] == key and summary["left_out"] == ["cluster_id"]
        ids = fresh_ids(rows, tmp_path / "rel")
        board = Leaderboard(Store(tmp_path / "store", rate_limit=RateLimit(max_submissions=100)),
                            ServerGold(JsonGoldProvider({}), private_store()), limits=Limits(n_resamples=0),
                            policy=HiddenSplitPolicy(min_changed=0))
        alone = [[m] for c in gold for m in c]
        subs = {name: board.submit(submission("ecbplus_meta", "meta_1", "validation", renamed(c, ids), name),
                                   account=f"hf:{name}")
                for name, c in (("gold-clusters", gold), ("every-mention-alone", alone))}
        assert board.run_pending() == 2
        task = get_task("cdec")
        for name, clusters in (("gold-clusters", gold), ("every-mention-alone", alone)):
            row = board.store.get(subs[name]["id"])
            expected = evaluate_coref([clusters], [gold])
            assert row["status"] == "FINISHED"
            for k in task.metric_names:
                if k in expected:
                    assert row["scores"][k] == pytest.approx(expected[k]), (name, k)
            shown = board.released(row)
            assert shown["gold"] == "hidden" and shown["scores"]["conll_f1"] == round(expected["conll_f1"], 2)
        assert board.store.get(subs["gold-clusters"]["id"])["scores"]["conll_f1"] == pytest.approx(1.0)
        assert board.store.get(subs["every-mention-alone"]["id"])["scores"]["conll_f1"] < 1.0
    finally:
        unregister_benchmark(key)


def test_hidden_add_of_a_folder_says_what_is_wrong(wec_meta, tmp_path):
    """A generated folder that was never built, a split the folder does not have, a path that does not exist
    and a folder given with other files are refused with the folder named; the private store is untouched."""
    import shutil

    unbuilt = tmp_path / "unbuilt"
    shutil.copytree(wec_meta["out"] / "generation", unbuilt / "generation")
    private = tmp_path / "private"
    base = [*FIGBENCH, "leaderboard", "hidden", "add", "--private", str(private), "--task", "cdec", "--dataset",
            "wec_meta2", "--config", "meta_m", "--label", "X", "--inputs-out", str(tmp_path / "rel")]
    cases = [(["--split", "test", "--data-files", str(unbuilt)], f"run `figbench generate build {unbuilt}` first"),
             (["--split", "validation", "--data-files", str(wec_meta["out"])],
              f"{wec_meta['out']}: config meta_m has no split 'validation' (its splits: test)"),
             (["--split", "test", "--data-files", str(tmp_path / "nowhere")], "nowhere: no such file or folder"),
             (["--split", "test", "--data-files", str(wec_meta["out"]), str(tmp_path / "x.jsonl")],
              "a dataset folder is given alone")]
    for extra, message in cases:
        r = run_cli(base + extra)
        assert r.returncode == 1 and message in r.stderr, (extra, r.stderr)
        assert "Traceback" not in r.stderr
    assert not private.exists() and not (tmp_path / "rel").exists()
