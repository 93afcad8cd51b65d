"""Issue 13, integrity of the ranking: the score oracle, impersonation, unverified rows, declared metrics.

Every test performs the attack against a real board (SQLite store, the tasks' own scoring) and
checks it gains nothing; the oracle test also runs the attack against a board without the policy
(what the code did before) to show the attack is real.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest
from figbench_leaderboard.access.hidden_policy import HiddenSplitPolicy
from figbench_leaderboard.domain.submission import SubmissionError
from figbench_leaderboard.scoring.board import Leaderboard, Limits
from figbench_leaderboard.scoring.gold import JsonGoldProvider
from figbench_leaderboard.store.errors import RateLimitError
from figbench_leaderboard.store.limits import RateLimit
from figbench_leaderboard.store.sqlite import Store
from figbench_leaderboard.ui import tables, task_tables

HIDDEN = "metonymy/wimcor/heldout/test"   # a hidden benchmark (gold held by the server only; see hidden_bench)
SAMPLE = "metonymy/wimcor/sample/test"     # public: WiMCor's released test split
DEV = "cdec/ecbmeta/meta_1/dev_small"
LABELS = ["LOCATION", "INSTITUTE", "TEAM", "ARTIFACT", "EVENT"]


@pytest.fixture(autouse=True)
def hidden_bench():
    """WiMCor's released test split is public (its gold ships with the corpus); the policy guards hidden
    benchmarks, so these attacks run against a held-out WiMCor-style benchmark declared hidden."""
    from figbench.tasks import HIDDEN as HIDDEN_GOLD
    from figbench.tasks import Benchmark, register_benchmark, unregister_benchmark

    bench = register_benchmark(Benchmark("metonymy", "wimcor", "heldout", "test", "WiMCor held-out",
                                         "WiMCor held-out", gold=HIDDEN_GOLD), replace=True)
    yield bench
    unregister_benchmark(bench.key)


def _opaque(i: int) -> str:
    return hashlib.sha256(f"test-{i}".encode()).hexdigest()[:12]


def _gold(n: int = 200, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    labels = {_opaque(i): LABELS[int(rng.choice(5, p=[0.4, 0.2, 0.2, 0.1, 0.1]))] for i in range(n)}
    mentions = [f"m{i}" for i in range(40)]
    return {HIDDEN: {"labels": labels, "label_set": LABELS}, SAMPLE: {"labels": labels, "label_set": LABELS},
            DEV: {"clusters": [mentions[i:i + 4] for i in range(0, 40, 4)]}}


def _board(tmp_path, gold: dict, policy: HiddenSplitPolicy | None, name: str = "store") -> Leaderboard:
    return Leaderboard(Store(tmp_path / name, rate_limit=RateLimit(max_submissions=1000)), JsonGoldProvider(gold),
                       limits=Limits(n_resamples=0), policy=policy)


def _sub(preds: dict, name: str, config: str = "sample", **extra) -> dict:
    return {"format": "figbench-predictions/1", "task": "metonymy", "dataset": "wimcor", "config": config,
            "split": "test", "model": {"name": name, "type": "other"}, "predictions": preds, **extra}


def _oracle_attack(board: Leaderboard, gold_labels: dict, n_submissions: int = 20) -> dict:
    """The reported attack: a base submission, then one prediction changed per submission; a released
    score that goes up (down) says the new (old) label is right."""
    ids = sorted(gold_labels)
    base = {i: "LOCATION" for i in ids}
    targets = ids[:n_submissions - 1]
    released, refused = [], 0
    for k in range(n_submissions):
        preds = dict(base)
        if k:
            preds[targets[k - 1]] = "TEAM"
        try:
            out = board.submit(_sub(preds, f"probe-{k}", "heldout"), client="ip:10.0.0.7", submitter="mallory",
                               account="hf:mallory")
        except (SubmissionError, RateLimitError):
            released.append(None)
            refused += 1
            continue
        board.process(out["id"])
        shown = board.released(board.store.get(out["id"]))
        released.append(shown["scores"]["micro_f1"])
    guesses, learned = {}, 0
    for k, t in enumerate(targets, start=1):
        guesses[t] = "LOCATION"
        if released[0] is None or released[k] is None or released[k] == released[0]:
            continue
        guesses[t] = "TEAM" if released[k] > released[0] else "LOCATION"
        learned += 1
    chance = np.mean([base[t] == gold_labels[t] for t in targets])      # what it knew without the oracle
    attack = np.mean([guesses[t] == gold_labels[t] for t in targets])
    return {"learned": learned, "refused": refused, "chance": float(chance), "attack": float(attack),
            "recovered": sum(guesses[t] == gold_labels[t] != base[t] for t in targets)}


def test_exact_scores_are_an_oracle_without_the_policy(tmp_path):
    gold = _gold()
    result = _oracle_attack(_board(tmp_path, gold, policy=None), gold[HIDDEN]["labels"])
    # the board as it was: every probe is scored and its exact score released; each probe whose gold is
    # LOCATION or TEAM reveals it (the others leave the score unchanged)
    targets = sorted(gold[HIDDEN]["labels"])[:19]
    revealing = sum(gold[HIDDEN]["labels"][t] in ("LOCATION", "TEAM") for t in targets)
    assert result["refused"] == 0 and result["learned"] == revealing >= 8
    assert result["recovered"] >= 3 and result["attack"] >= result["chance"] + 0.15


def test_oracle_attack_learns_nothing_under_the_hidden_split_policy(tmp_path):
    gold = _gold()
    board = _board(tmp_path, gold, policy=HiddenSplitPolicy())
    result = _oracle_attack(board, gold[HIDDEN]["labels"])
    assert result["learned"] == 0 and result["recovered"] == 0
    assert result["attack"] == result["chance"]            # exactly what it knew without any submission
    assert result["refused"] == 19                         # every probe after the base is refused
    # refused probes count toward the quota: that identity has used up its 5 for today
    with pytest.raises(RateLimitError, match="refused probes"):
        board.submit(_sub({i: "TEAM" for i in gold[HIDDEN]["labels"]}, "honest-now", "heldout"),
                     client="ip:10.0.0.7", account="hf:mallory")
    err = None
    base = {i: "LOCATION" for i in gold[HIDDEN]["labels"]}
    board.submit(_sub(base, "probe-base", "heldout"), client="ip:10.0.0.9", account="hf:trent")
    try:
        board.submit(_sub(base | {_opaque(0): "TEAM"}, "probe-x", "heldout"), client="ip:10.0.0.9", account="hf:trent")
    except SubmissionError as e:
        err = str(e)
    assert err and "at least 10 must change" in err and "probe" in err


def test_hidden_split_quota_and_released_precision(tmp_path):
    gold = _gold()
    board = _board(tmp_path, gold, policy=HiddenSplitPolicy(daily_quota=3))
    ids = sorted(gold[HIDDEN]["labels"])
    rng = np.random.default_rng(1)
    accepted = []
    for k in range(5):   # each differs from the others on ~160 of 200 predictions: not a probe
        preds = {i: LABELS[int(rng.integers(5))] for i in ids}
        try:
            accepted.append(board.submit(_sub(preds, f"honest-{k}", "heldout"), account="hf:alice")["id"])
        except RateLimitError as e:
            assert "quota" in str(e) and "hidden-benchmark" in str(e)
    assert len(accepted) == 3
    board.run_pending()
    row = board.store.get(accepted[0])
    shown = board.released(row)
    exact = row["scores"]["micro_f1"]
    assert shown["scores"] == {"micro_f1": round(exact, 2)}   # the Ladder's first step: the headline only
    assert shown["confidence_intervals"] == {} and shown["counts"] == {}
    # another account is not affected; a dev split has no quota and is released in full
    board.submit(_sub({i: "TEAM" for i in ids}, "honest-bob", "heldout"), account="hf:bob")
    clusters = [c for c in gold[DEV]["clusters"]]
    for k in range(5):
        sub = {"format": "figbench-predictions/1", "task": "cdec", "dataset": "ecbmeta", "config": "meta_1",
               "split": "dev_small", "model": {"name": f"dev-{k}", "type": "other"},
               "predictions": [c[:2] for c in clusters] + [c[2:] for c in clusters]}
        out = board.submit(sub, account="hf:alice")
        board.process(out["id"])
        dev = board.store.get(out["id"])
        assert board.released(dev)["scores"] == dev["scores"]   # exact


LOOKALIKES = ["figbench\u200b-lemma", "figbench-lemma\u200d", "\u202efigbench-lemma", "Figbench-Lemma",
              "figbench\u2010lemma", "figb\u0435nch-lemma", "ｆｉｇｂｅｎｃｈ-lemma", "figbench-1emma",
              "figbench_lemma"]


def _record(name: str, micro_f1: float) -> dict:
    from figbench.results import RunClock, make_result, provenance

    return make_result(task="metonymy", dataset="wimcor", config="sample", split="test",
                       model={"name": name, "revision": None, "type": "other", "parameters": None},
                       scores={"micro_f1": micro_f1}, confidence_intervals={}, predictions=None,
                       provenance=provenance(RunClock(), seed=0))


@pytest.mark.parametrize("name", LOOKALIKES)
def test_lookalike_names_are_refused(tmp_path, name):
    gold = _gold(50)
    board = _board(tmp_path, gold, policy=HiddenSplitPolicy())
    real = board.submit(_sub({i: "LOCATION" for i in gold[HIDDEN]["labels"]}, "figbench-lemma"))
    board.run_pending()
    before = board.store.count()
    with pytest.raises(SubmissionError, match="looks like the existing model 'figbench-lemma'"):
        board.submit(_record(name, 0.99))
    assert board.store.count() == before
    ov = tables.overview(board.store.board_rows(), board.registry)
    assert ov["Model"].tolist() == ["figbench-lemma"] and ov.loc[0, "Rank"] == 1
    assert board.store.get(real["id"])["status"] == "FINISHED"


def test_invisible_characters_are_stripped_from_new_names(tmp_path):
    board = _board(tmp_path, _gold(50), policy=None)
    out = board.submit(_record("new\u200b-model\u2066", 0.5))
    assert board.store.get(out["id"])["model_name"] == "new-model"


def test_unverified_rows_are_hidden_by_default_marked_and_never_ranked(tmp_path):
    gold = _gold(50)
    board = _board(tmp_path, gold, policy=HiddenSplitPolicy())
    board.submit(_sub({i: "LOCATION" for i in gold[HIDDEN]["labels"]}, "real-model"))
    board.run_pending()
    board.submit(_record("self-reported-99", 0.99))
    # the same model with a verified and a self-reported score: two rows, never mixed
    board.submit(_record("real-model", 0.97) | {"model": {"name": "real-model", "revision": "v2", "type": "other",
                                                          "parameters": None}})
    ov = tables.overview(board.store.board_rows(), board.registry, "WiMCor")
    ranked = ov[ov["Rank"].notna()]
    assert ranked["Model"].tolist() == ["real-model"] and (ranked["Verified"] == "yes").all()
    assert ov["Model"].tolist()[0] == "real-model"          # self-reported 99% is listed after the verified row
    default = tables.filter_table(ov, show_unverified=False)
    assert default["Model"].tolist() == ["real-model"]
    shown = tables.display_overview(tables.filter_table(ov, show_unverified=True), ["WiMCor (sample)"])
    marked = shown[shown["Model"].str.contains("self-reported-99")]
    assert marked["Model"].tolist() == ["self-reported-99 (unverified)"] and marked["Rank"].tolist() == ["–"]


def test_only_declared_metrics_are_accepted(tmp_path):
    gold = _gold(50)
    board = _board(tmp_path, gold, policy=None)
    junk = {f"invented_{i}": 0.5 for i in range(3000)}
    with pytest.raises(SubmissionError, match="not declared by task metonymy"):
        board.submit(_record("columns", 0.6) | {"scores": {"micro_f1": 0.6, **junk}})
    with pytest.raises(SubmissionError, match="not declared"):
        board.submit(_record("columns", 0.6) | {"confidence_intervals": {
            "x_metric": {"low": 0.1, "high": 0.2, "level": 0.95, "n_resamples": 10, "unit": "examples"}}})
    # with predictions the server rescores; undeclared self-reported keys are dropped, not stored
    from figbench.results import RunClock, make_result, provenance

    rec = make_result(task="metonymy", dataset="wimcor", config="sample", split="test",
                      model={"name": "rescored", "revision": None, "type": "other", "parameters": None},
                      scores={"micro_f1": 0.4, **junk}, confidence_intervals={},
                      predictions={i: "LOCATION" for i in gold[HIDDEN]["labels"]},
                      provenance=provenance(RunClock(), seed=0))
    out = board.submit(rec)
    board.run_pending()
    row = board.store.get(out["id"])
    assert set(row["reported_scores"]) == {"micro_f1"}
    assert set(row["scores"]) <= set(board.registry.task("metonymy").metric_names)
    table = task_tables.task_table(board.store.board_rows(), board.registry, "metonymy")
    assert len(table.columns) < 15


def test_free_form_fields_are_bounded(tmp_path):
    gold = _gold(50)
    board = _board(tmp_path, gold, policy=None)
    preds = {i: "LOCATION" for i in gold[HIDDEN]["labels"]}
    with pytest.raises(SubmissionError, match="provenance: .* bytes; at most 16,384"):
        board.submit(_sub(preds, "big-prov", provenance={"notes": "x" * 10_000_000}))
    deep: dict = {}
    node = deep
    for _ in range(12):
        node["a"] = {}
        node = node["a"]
    with pytest.raises(SubmissionError, match="nested deeper"):
        board.submit(_sub(preds, "deep", provenance=deep))
    with pytest.raises(SubmissionError, match="more than 200 keys"):
        board.submit(_sub(preds, "keys", provenance={f"k{i}": i for i in range(500)}))
    with pytest.raises(SubmissionError, match="seed: expected an integer"):
        board.submit(_sub(preds, "seed", provenance={"seed": "forty-two"}))
    for params in (2e19, 20_000_000_000_000_000_000, 10**16):
        with pytest.raises(SubmissionError, match="model.parameters"):
            board.submit(_sub(preds, "huge", model={"name": "huge", "type": "other", "parameters": params}))
    with pytest.raises(SubmissionError, match="description: longer than 2000"):
        board.submit(_sub(preds, "desc", description="d" * 2001))
    assert board.store.count() == 0
    fine = {"seed": 3, "notes": "n" * 1500, "more": ["m" * 1500] * 5}
    assert board.submit(_sub(preds, "fine", provenance=fine))["status"] == "PENDING"


def test_export_survives_legacy_rows_with_odd_provenance(tmp_path):
    """A store written before the bounds (text seed, huge seed) still exports."""
    import pandas as pd
    from figbench_leaderboard.export import export_board

    gold = _gold(50)
    board = _board(tmp_path, gold, policy=None)
    ids = [board.submit(_sub({i: "LOCATION" for i in gold[HIDDEN]["labels"]}, f"m{k}", provenance={"seed": 7}))["id"]
           for k in range(3)]
    board.run_pending()
    with board.store.transaction() as db:
        for sid, seed in zip(ids, ["forty-two", 2**70]):
            meta = {"kind": "predictions", "model": {}, "provenance": {"seed": seed, "command": ["not", "text"]}}
            db.execute("UPDATE submissions SET metadata = ? WHERE id = ?", (json.dumps(meta), sid))
    written = export_board(board.store, tmp_path / "out")
    subs = pd.read_parquet(tmp_path / "out" / "submissions.parquet")
    assert len(subs) == 3 and subs["seed"].isna().sum() == 2 and subs["seed"].max() == 7
    assert any(p.name == "overview.parquet" for p in written)


def test_csv_download_neutralises_formulas(tmp_path):
    gold = _gold(50)
    board = _board(tmp_path, gold, policy=None)
    for name in ("=HYPERLINK(\"x\";\"y\")", "+cmd", "-2+3", "@SUM(A1)"):
        board.submit(_sub({i: "LOCATION" for i in gold[HIDDEN]["labels"]}, name))
    board.run_pending()
    df = tables.download_frame(tables.overview(board.store.board_rows(), board.registry), board.registry)
    path = tmp_path / "x.csv"
    df.to_csv(path, index=False)
    import csv

    cells = [row[0] for row in csv.reader(path.open())][1:]
    assert sorted(cells) == sorted(["'=HYPERLINK(\"x\";\"y\")", "'+cmd", "'-2+3", "'@SUM(A1)"])


def test_error_messages_name_files_relative_to_their_root(tmp_path, monkeypatch):
    from figbench_leaderboard.scoring.gold import BuilderGoldProvider

    data = tmp_path / "secret-server-folder" / "data"
    data.mkdir(parents=True)
    monkeypatch.setenv("FIGBENCH_DATA_DIR", str(data))
    board = Leaderboard(Store(tmp_path / "secret-server-folder" / "store"), BuilderGoldProvider(data))
    with pytest.raises(ValueError) as e:
        board.submit(_sub({"a": "LOCATION"}, "paths"))
    assert str(tmp_path) not in str(e.value) and "secret-server-folder" not in str(e.value), str(e.value)
    # a gold file that cannot be read names the file, not its folder
    with pytest.raises(ValueError) as e:
        JsonGoldProvider(tmp_path / "secret-server-folder" / "gold.json")
    assert str(e.value).startswith("gold.json:") and "secret-server-folder" not in str(e.value)
    # a submission that fails while scoring keeps its reason free of server paths
    board = Leaderboard(Store(tmp_path / "s2"), JsonGoldProvider(_gold(50)))
    out = board.submit(_sub({i: "LOCATION" for i in _gold(50)[HIDDEN]["labels"]}, "ok"))
    broken = Leaderboard(board.store, BuilderGoldProvider(data))
    sub = broken.process(out["id"])
    assert sub["status"] == "FAILED" and str(tmp_path) not in sub["reason"]


def test_mathtext_and_html_names_are_inert_in_plots(tmp_path):
    from figbench_leaderboard.ui import plots

    gold = _gold(50)
    board = _board(tmp_path, gold, policy=None)
    name = "$x^{2}_{1}$<img src=x onerror=alert(1)>%{x}"
    board.submit(_sub({i: "LOCATION" for i in gold[HIDDEN]["labels"]}, name,
                      model={"name": name, "type": "other", "parameters": 5_000_000}))
    board.run_pending()
    rows = board.store.board_rows()
    task = board.registry.task("metonymy")
    plot = task.plots[0]
    figs = [plots.distribution_figure(plots.distribution_frame(rows, board.registry, task, plot), task, plot),
            plots.size_figure(tables.overview(rows, board.registry, "WiMCor"), "WiMCor")]
    for fig in figs:
        text = fig.to_json()
        assert "<img" not in text and "$x^" not in text and "%{x}" not in text
        assert "&lt;img" in text
