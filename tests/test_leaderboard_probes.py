"""Issue 20, "On hidden benchmarks, the probe guard must hold from one identity".

The guard measures what a submission changes in what its score could reveal (the scored difference
against the same identity's earlier submissions), not how many ids' predictions look different. Each
named bypass is run against a real board (SQLite store, the tasks' own scoring) on a hidden benchmark:
first through the old id-fingerprint guard (which lets it through), then through the board.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from figbench_leaderboard.access.hidden_policy import (
    HiddenSplitPolicy,
    ProbeError,
    changed,
    moves,
    probe_check,
    scored_difference,
)
from figbench_leaderboard.domain.submission import SubmissionError
from figbench_leaderboard.scoring.board import Leaderboard, Limits
from figbench_leaderboard.scoring.gold import JsonGoldProvider
from figbench_leaderboard.store.errors import RateLimitError
from figbench_leaderboard.store.hub_layout import layout_files, result_json
from figbench_leaderboard.store.limits import RateLimit
from figbench_leaderboard.store.sqlite import Store
from figbench_leaderboard.ui.detail_html import detail_html

from figbench.tasks import HIDDEN, Benchmark, get_task, register_benchmark, unregister_benchmark

COREF = Benchmark("cdec", "fresh_events", "harvest", "test", "Fresh events (hidden)", gold=HIDDEN)
RANK = Benchmark("proverb_prediction", "fresh_proverbs", "harvest", "test", "Fresh proverbs (hidden)", gold=HIDDEN)
LABEL = Benchmark("metonymy", "fresh_metonymy", "harvest", "test", "Fresh metonymy (hidden)", gold=HIDDEN)
LABELS = ["LOCATION", "INSTITUTE", "TEAM", "ARTIFACT", "EVENT"]


@pytest.fixture(autouse=True)
def hidden_benchmarks():
    for b in (COREF, RANK, LABEL):
        register_benchmark(b, replace=True)
    yield
    for b in (COREF, RANK, LABEL):
        unregister_benchmark(b.key)


def _coref_gold() -> dict:
    """A 20-mention cluster (m0..m19) and 80 more mentions in clusters of 4."""
    big = [f"m{i}" for i in range(20)]
    rest = [f"m{i}" for i in range(20, 100)]
    return {"clusters": [big] + [rest[i:i + 4] for i in range(0, 80, 4)]}


def _rank_gold(n: int = 100, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    return {"labels": {f"n{i:03d}": f"Q{int(rng.integers(30))}" for i in range(n)}}


def _label_gold(n: int = 200) -> dict:
    rng = np.random.default_rng(3)
    return {"labels": {f"e{i:03d}": LABELS[int(rng.integers(5))] for i in range(n)}, "label_set": LABELS}


def _board(tmp_path, policy=None) -> Leaderboard:
    gold = JsonGoldProvider({COREF.key: _coref_gold(), RANK.key: _rank_gold(), LABEL.key: _label_gold()})
    return Leaderboard(Store(tmp_path / "store", rate_limit=RateLimit(max_submissions=1000)), gold,
                       limits=Limits(n_resamples=0), policy=policy or HiddenSplitPolicy(daily_quota=50))


def _sub(bench: Benchmark, preds, name: str) -> dict:
    return {"format": "figbench-predictions/1", "task": bench.task, "dataset": bench.dataset, "config": bench.config,
            "split": bench.split, "model": {"name": name, "type": "other"}, "predictions": preds}


def _old_guard_accepts(board: Leaderboard, bench: Benchmark, preds, client: str) -> bool:
    """The guard as it was (ids whose prediction fingerprint changed), run in the store's transaction."""
    gold = board.gold.get(bench)
    row = {"task": bench.task, "dataset": bench.dataset, "config": bench.config, "split": bench.split,
           "client": client, "account": "hf:mallory"}
    check = probe_check(board.policy, row, preds, len(gold.ids))
    try:
        with board.store.transaction() as db:
            check(db)
            raise KeyboardInterrupt   # roll back: nothing is written
    except ProbeError:
        return False
    except KeyboardInterrupt:
        return True


# --- coreference: one mention moved into a 20-mention cluster --------------------------------------

def test_coreference_one_mention_move_into_a_big_cluster_is_refused(tmp_path):
    board = _board(tmp_path)
    gold = _coref_gold()
    # base: the 20-cluster as gold, everything else as singletons
    base = [gold["clusters"][0]] + [[f"m{i}"] for i in range(20, 100)]
    board.submit(_sub(COREF, base, "probe-base"), client="ip:10.0.0.7", account="hf:mallory")
    board.run_pending()
    # the bypass: move singleton m57 into the 20-mention cluster
    probe = [gold["clusters"][0] + ["m57"]] + [[f"m{i}"] for i in range(20, 100) if i != 57]
    assert changed(base, probe) == 21 >= board.policy.needed_changes(100)   # 21 fingerprints: past the old minimum
    assert _old_guard_accepts(board, COREF, probe, "ip:10.0.0.7")
    assert moves(base, probe) == 1
    with pytest.raises(ProbeError, match="scored outcome is below the minimum"):
        board.submit(_sub(COREF, probe, "probe-1"), client="ip:10.0.0.7", account="hf:mallory")
    # the refusal names no number that depends on the gold
    try:
        board.submit(_sub(COREF, [gold["clusters"][0] + ["m21"]] + [[f"m{i}"] for i in range(20, 100) if i != 21],
                          "probe-2"), client="ip:10.0.0.7", account="hf:mallory")
    except ProbeError as e:
        assert "at least 10 of 100 items" in str(e) and "changes 1" not in str(e)
    # another identity's first submission is not a probe of anyone's
    out = board.submit(_sub(COREF, probe, "someone-else"), client="ip:10.0.0.8", account="hf:alice")
    assert out["status"] == "PENDING"


def test_coreference_move_attack_learns_nothing(tmp_path):
    """The reported attack: 90 probes, each moving one mention into the 20-mention cluster, read membership
    from the released recall. Every probe is refused (and the refusals use up the quota)."""
    board = _board(tmp_path, HiddenSplitPolicy(daily_quota=100))
    gold = _coref_gold()
    big = gold["clusters"][0]
    base = [big[:10]] + [[m] for m in big[10:]] + [[f"m{i}"] for i in range(20, 100)]
    board.submit(_sub(COREF, base, "base"), client="ip:10.0.0.7", account="hf:mallory")
    board.run_pending()
    accepted = 0
    for k, m in enumerate(big[10:] + [f"m{i}" for i in range(20, 100)][:80]):
        probe = [big[:10] + [m]] + [[x] for x in big[10:] + [f"m{i}" for i in range(20, 100)] if x != m]
        try:
            board.submit(_sub(COREF, probe, f"probe-{k}"), client="ip:10.0.0.7", account="hf:mallory")
            accepted += 1
        except (SubmissionError, RateLimitError):
            pass
    assert accepted == 0


def test_moves_is_the_partition_distance():
    a = [["a", "b", "c"], ["d", "e", "f", "g", "h"], ["i"]]
    assert moves(a, a) == 0
    assert moves(a, [list(reversed(c)) for c in reversed(a)]) == 0           # same partition, other order
    assert moves(a, [["a", "b", "c", "d", "e", "f", "g", "h"], ["i"]]) == 3   # a merge moves the smaller side
    assert moves(a, [["a", "b"], ["c", "d", "e", "f", "g", "h"], ["i"]]) == 1
    singletons = [[m] for c in a for m in c]
    assert moves(a, singletons) == 9 - 3
    rng = np.random.default_rng(0)
    ids = [f"m{i}" for i in range(300)]
    x = [list(c) for c in np.array_split(rng.permutation(ids), 40)]
    y = [list(c) for c in np.array_split(rng.permutation(ids), 40)]
    assert moves(x, y) > 200                                                 # unrelated clusterings are far apart


# --- ranking: one top-1 swap padded with score-neutral tail reversals -------------------------------

def _rankings(gold: dict, seed: int) -> dict[str, list[str]]:
    rng = np.random.default_rng(seed)
    return {i: [f"Q{int(q)}" for q in rng.permutation(30)] for i in gold["labels"]}


def test_ranking_top1_swap_padded_with_tail_reversals_is_refused(tmp_path):
    board = _board(tmp_path)
    gold = _rank_gold()
    base = _rankings(gold, seed=1)
    board.submit(_sub(RANK, base, "rank-base"), client="ip:10.0.0.7", account="hf:mallory")
    board.run_pending()
    probe = {i: list(r) for i, r in base.items()}
    target = next(i for i in probe if gold["labels"][i] not in probe[i][:2])   # decode this item's top-1
    probe[target][0], probe[target][1] = probe[target][1], probe[target][0]
    padded = 0
    for i, r in probe.items():   # 21 tail reversals that move no gold candidate: score-neutral
        if i != target and gold["labels"][i] not in r[20:] and padded < 21:
            r[20:] = r[20:][::-1]
            padded += 1
    assert padded == 21 and changed(base, probe) == 22
    assert _old_guard_accepts(board, RANK, probe, "ip:10.0.0.7")
    task, g = get_task("proverb_prediction"), board.gold.get(RANK)
    assert scored_difference(task, g, base, probe) == 0
    with pytest.raises(ProbeError, match="scored outcome"):
        board.submit(_sub(RANK, probe, "rank-probe"), client="ip:10.0.0.7", account="hf:mallory")
    # a top-1 swap that does move the gold: one scored change, still refused
    probe2 = {i: list(r) for i, r in base.items()}
    hit = next(i for i in probe2 if gold["labels"][i] == probe2[i][1])
    probe2[hit][0], probe2[hit][1] = probe2[hit][1], probe2[hit][0]
    assert scored_difference(task, g, base, probe2) == 1
    with pytest.raises(ProbeError):
        board.submit(_sub(RANK, probe2, "rank-probe-2"), client="ip:10.0.0.7", account="hf:mallory")
    # an honestly different system (new rankings) is accepted
    out = board.submit(_sub(RANK, _rankings(gold, seed=2), "rank-v2"), client="ip:10.0.0.7", account="hf:mallory")
    assert out["status"] == "PENDING"


def test_refused_probes_count_toward_the_quota(tmp_path):
    board = _board(tmp_path, HiddenSplitPolicy(daily_quota=3))
    gold = _rank_gold()
    base = _rankings(gold, seed=1)
    board.submit(_sub(RANK, base, "q-base"), account="hf:mallory")
    for k in range(2):
        probe = {i: list(r) for i, r in base.items()}
        for i in list(probe)[k * 30:k * 30 + 25]:
            r = probe[i]
            if gold["labels"][i] not in r[20:]:
                r[20:] = r[20:][::-1]
        with pytest.raises(ProbeError):
            board.submit(_sub(RANK, probe, f"q-probe-{k}"), account="hf:mallory")
    with pytest.raises(RateLimitError, match="refused probes"):
        board.submit(_sub(RANK, _rankings(gold, seed=5), "q-honest"), account="hf:mallory")
    assert board.submit(_sub(RANK, _rankings(gold, seed=5), "q-other"), account="hf:alice")["status"] == "PENDING"


# --- never release exact counts or the mismatch flag on a hidden benchmark ------------------------

def _record(preds: dict, name: str, micro_f1: float) -> dict:
    from figbench.results import RunClock, make_result, provenance

    return make_result(task="metonymy", dataset=LABEL.dataset, config=LABEL.config, split=LABEL.split,
                       model={"name": name, "revision": None, "type": "other", "parameters": None},
                       scores={"micro_f1": micro_f1}, confidence_intervals={}, predictions=preds,
                       provenance=provenance(RunClock(), seed=0))


def test_self_reported_scores_do_not_reveal_the_exact_count(tmp_path):
    """Claiming k-1, k and k+1 correct: the server flags two of them as mismatches, but nothing released
    (board row, detail HTML, API fields, public Hub results) tells which, nor gives exact counts."""
    board = _board(tmp_path)
    gold = _label_gold()
    preds = {i: "LOCATION" for i in gold["labels"]}
    k = sum(v == "LOCATION" for v in gold["labels"].values())
    n = len(preds)
    ids = []
    for d in (-1, 0, 1):
        out = board.submit(json.dumps(_record(preds, f"claim-{d + 1}", (k + d) / n)), account=f"hf:user{d + 1}")
        ids.append(out["id"])
    board.run_pending()
    exact = [board.store.get(s) for s in ids]
    assert [bool(r["mismatches"]) for r in exact] == [True, False, True]   # the flag exists server-side
    assert all(r["counts"] for r in exact)
    released = [board.released(r) for r in exact]
    assert all(r["mismatches"] == {} and r["counts"] == {} and r["gold"] == "hidden" for r in released)
    assert len({json.dumps(r["scores"], sort_keys=True) for r in released}) == 1
    for r in exact:
        assert "(mismatch)" not in detail_html(board.released(r), board.registry)
        res = result_json(r)
        assert "mismatches" not in res and "counts" not in res and "confidence_intervals" not in res
        for path, content in layout_files(r).items():
            assert "mismatch" not in json.dumps(content).replace('"mismatches": {}', ""), path
    # on a public benchmark the same flag is shown (anyone can count there)
    pub = {**exact[0], "dataset": "wimcor", "config": "sample"}
    assert board.released(pub)["mismatches"] == exact[0]["mismatches"]


def test_moves_stops_at_the_bound_when_far_apart():
    rng = np.random.default_rng(1)
    ids = [f"m{i}" for i in range(2000)]
    x = [list(c) for c in np.array_split(rng.permutation(ids), 300)]
    y = [list(c) for c in np.array_split(rng.permutation(ids), 300)]
    exact = moves(x, y)
    assert moves(x, y, at_least=10) >= 10 and exact >= moves(x, y, at_least=10)
    near = [list(c) for c in x]
    near[0], near[1] = near[0] + near[1][:1], near[1][1:]
    assert moves(x, near, at_least=10) == moves(x, near) == 1
