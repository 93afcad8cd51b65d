"""Issue 32, "Hidden benchmarks that stay hidden": an attacker with many identities, addresses and tokens.

Each test runs against a real board (SQLite store or the local fake Hub over HTTP, the tasks' own scoring) on a
registered hidden benchmark: identities a submitter cannot mint, the Ladder with a budget over all identities
(recovered-label accuracy within the bound leaderboard/README.md states), no interval or count channel in
anything released, and every decision restored after a restart.
"""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
from figbench_leaderboard.access.hidden_policy import BudgetError, HiddenSplitPolicy, QuotaError, UnregisteredError
from figbench_leaderboard.access.identity import token_identity
from figbench_leaderboard.domain.release import accuracy_bound, ladder_step
from figbench_leaderboard.export import export_board
from figbench_leaderboard.scoring.board import Leaderboard, Limits
from figbench_leaderboard.scoring.gold import JsonGoldProvider
from figbench_leaderboard.store import tokens
from figbench_leaderboard.store.hub import HubStore
from figbench_leaderboard.store.hub_layout import layout_files, write_layout
from figbench_leaderboard.store.limits import RateLimit
from figbench_leaderboard.store.sqlite import Store
from figbench_leaderboard.ui.detail_html import detail_html

from figbench.tasks import HIDDEN, Benchmark, get_task, register_benchmark, unregister_benchmark
from tests.ladder_attack import boosting_attack, majority_rate, readme_bound
from tests.test_leaderboard_hub import TOKEN, FakeHub, online  # noqa: F401  (online: a fixture)

BENCH = Benchmark("metonymy", "probe_fresh", "harvest", "test", "Probe fresh (hidden)", gold=HIDDEN)
LABELS = ["LOCATION", "INSTITUTE", "TEAM", "ARTIFACT", "EVENT"]
N = 400
HEAD = get_task(BENCH.task).headline   # micro-F1: the accuracy of a single-label task


@pytest.fixture(autouse=True)
def hidden_benchmark():
    register_benchmark(BENCH, replace=True)
    yield
    unregister_benchmark(BENCH.key)


def _gold(n: int = N, seed: int = 7) -> dict:
    rng = np.random.default_rng(seed)
    return {"labels": {f"x{i:03d}": LABELS[int(rng.integers(5))] for i in range(n)}, "label_set": LABELS}


def _board(store, policy=None, n_resamples=0) -> Leaderboard:
    return Leaderboard(store, JsonGoldProvider({BENCH.key: _gold()}), limits=Limits(n_resamples=n_resamples),
                       policy=policy or HiddenSplitPolicy())


def _local(tmp_path, **kw) -> Leaderboard:
    return _board(Store(tmp_path / "store", rate_limit=RateLimit(max_submissions=10_000)), **kw)


def _sub(preds: dict, name: str) -> dict:
    return {"format": "figbench-predictions/1", "task": BENCH.task, "dataset": BENCH.dataset, "config": BENCH.config,
            "split": BENCH.split, "model": {"name": name, "type": "other"}, "predictions": preds}


# --- 1. identities a submitter cannot mint ------------------------------------------------------------

def test_probe_many_with_a_fresh_token_and_address_per_item_is_refused_at_the_first(tmp_path):
    """The attack of the issue: one submission per item, each from a self-made token and a fresh address."""
    board = _local(tmp_path)
    gold = _gold()
    base = {i: "LOCATION" for i in gold["labels"]}
    for k, item in enumerate(list(base)[:5]):
        probe = dict(base, **{item: "TEAM"})
        with pytest.raises(UnregisteredError) as err:
            board.submit(_sub(probe, f"probe-{k}"), client=f"ip:127.0.{k}.9",
                         account=token_identity(f"self-made-token-{k:06d}"))
        assert "\n" not in str(err.value) and "unknown submitter token" in str(err.value)
    with pytest.raises(UnregisteredError, match="registered identity"):
        board.submit(_sub(base, "anonymous"), client="ip:127.0.9.9")
    assert board.store.count() == 0   # nothing stored, nothing scored
    # an issued token is taken; once revoked, it is refused again
    token, ident = tokens.issue(board.store, "alice (lab A)")
    assert token_identity(token) == ident
    assert board.submit(_sub(base, "alice-1"), client="ip:127.0.0.2", account=ident)["status"] == "PENDING"
    tokens.revoke(board.store, ident[4:14])
    with pytest.raises(UnregisteredError):
        board.submit(_sub({i: "TEAM" for i in base}, "alice-2"), client="ip:127.0.0.2", account=ident)
    stored = json.dumps(tokens.listing(board.store))
    assert token not in stored and ident in stored   # only the hash is kept


def test_hf_accounts_allow_list_and_no_quota_still_needs_a_registered_identity(tmp_path):
    board = _local(tmp_path, policy=HiddenSplitPolicy(hf_accounts=frozenset({"alice"})))
    preds = {i: "LOCATION" for i in _gold()["labels"]}
    assert board.submit(_sub(preds, "a"), account="hf:alice")["status"] == "PENDING"
    with pytest.raises(UnregisteredError, match="'mallory' is not on this board's list"):
        board.submit(_sub(preds, "m"), account="hf:mallory")
    open_board = _local(tmp_path / "noquota", policy=HiddenSplitPolicy(daily_quota=0))   # serve --hidden-quota 0
    with pytest.raises(UnregisteredError):
        open_board.submit(_sub(preds, "anon"), client="ip:127.0.0.5")


# --- 2. the Ladder and the budget over all identities ----------------------------------------------------

def test_ladder_releases_only_improvements_by_eta():
    assert ladder_step(None, 0.2137) == (0.21, True)
    assert ladder_step(0.21, 0.2199) == (0.21, False)       # below best + eta: the best repeated
    assert ladder_step(0.21, 0.2201) == (0.22, True)
    assert ladder_step(0.21, 0.2149 + 0.0051) == (0.22, True)
    assert ladder_step(0.30, 0.25, higher_is_better=False) == (0.25, True)
    assert ladder_step(0.30, 0.295, higher_is_better=False) == (0.30, False)


def test_twenty_issued_tokens_recover_no_more_than_the_readme_bound(tmp_path):
    """One attacker holds 20 issued tokens (each from its own address) and spends a whole day's budget on a
    400-item hidden split with the boosting attack of Blum & Hardt (random labellings, kept by their released
    score, combined by vote). What it recovers stays within the README's bound and within 10 points of the
    majority rate; the budget then refuses every identity."""
    budget, eta, bits = readme_bound()
    policy = HiddenSplitPolicy()
    assert (policy.daily_budget, policy.ladder_eta) == (budget, eta)
    board = _local(tmp_path)
    gold = _gold()["labels"]
    ids = list(gold)
    idents = [tokens.issue(board.store, f"attacker {k}")[1] for k in range(20)]

    def submit(preds: dict, k: int, round_: int) -> float | None:
        try:
            out = board.submit(_sub(preds, f"atk-{k}-{round_}"), client=f"ip:10.{k}.{round_}.1", account=idents[k])
        except BudgetError:
            return None
        row = board.released(board.process(out["id"]))
        assert set(row["scores"]) == {HEAD} and not row["confidence_intervals"]
        return row["scores"][HEAD]

    attack = boosting_attack(ids, LABELS, len(idents), policy.daily_quota, submit)
    assert attack.sent == budget             # the whole day's budget, over all identities, and no more
    with pytest.raises(BudgetError, match="over all submitters"):
        board.submit(_sub({i: "TEAM" for i in ids}, "late"), client="ip:10.99.0.1", account=idents[0])
    accuracy, majority = attack.accuracy(gold), majority_rate(gold)
    assert all(abs(v / eta - round(v / eta)) < 1e-9 for v in attack.released)   # only grid values left the server
    assert accuracy <= majority + accuracy_bound(bits, N)
    assert accuracy <= majority + 0.10, (accuracy, majority)


def test_the_bound_is_what_the_readme_says():
    budget, eta, bits = readme_bound()
    assert math.isclose(bits, budget * math.log2(1 / eta + 2))
    assert accuracy_bound(bits, 400) == pytest.approx(math.sqrt((bits * math.log(2) + math.log(100)) / 800))


# --- 2. no interval or count channel --------------------------------------------------------------------

_FORBIDDEN = ("n_units", "low", "high", "n_correct", "counts", "confidence_intervals", "mismatch", "macro_f1")


def test_no_hidden_row_release_export_or_hub_file_has_intervals_or_counts(tmp_path):
    board = _local(tmp_path, n_resamples=20)
    ident = tokens.issue(board.store, "alice")[1]
    gold = _gold()
    sid = board.submit(_sub({i: "LOCATION" for i in gold["labels"]}, "alice-1"), account=ident)["id"]
    exact = board.process(sid)
    assert exact["confidence_intervals"][HEAD]["n_units"] == N   # the server has them
    shown = board.released(exact)
    assert shown["scores"] == {HEAD: round(exact["scores"][HEAD], 2)}
    texts = {"released": json.dumps({k: shown[k] for k in ("scores", "confidence_intervals", "counts",
                                                             "mismatches")}),
             "detail": detail_html(shown, board.registry)}
    for path, content in layout_files(board.store.get(sid)).items():
        texts[path] = json.dumps(content)
    written = write_layout(board.store, tmp_path / "hub")
    texts.update({str(p): p.read_text() for p in written if "private" not in p.parts})
    for p in export_board(board.store, tmp_path / "export", fmt="json"):
        texts[str(p)] = p.read_text()
    for where, text in texts.items():
        for word in _FORBIDDEN:
            if where == "released":
                continue
            assert f'"{word}"' not in text and f"{word}:" not in text, (where, word)
    assert json.loads(texts["released"]) == {"scores": shown["scores"], "confidence_intervals": {}, "counts": {},
                                             "mismatches": {}}
    assert "±" not in texts["detail"] and "[" not in re.sub(r"<[^>]+>", "", texts["detail"]).split(HEAD)[-1]


def test_a_store_released_under_the_old_rule_keeps_only_the_ladder_headline(tmp_path):
    """Hidden rows written before (every metric rounded, intervals with n_units) are cut when the store opens."""
    board = _local(tmp_path, n_resamples=20)
    ident = tokens.issue(board.store, "alice")[1]
    sid = board.submit(_sub({i: "LOCATION" for i in _gold()["labels"]}, "old-row"), account=ident)["id"]
    board.process(sid)
    old = {HEAD: 0.2137, "macro_f1": 0.0712}
    with board.store.transaction() as db:   # what the old rule stored
        db.execute("UPDATE submissions SET public_scores = ?, public_cis = ? WHERE id = ?",
                   (json.dumps(old), json.dumps({HEAD: {"low": 0.19, "high": 0.25, "n_units": N}}), sid))
        db.execute("DELETE FROM meta WHERE key = 'release_rule'")
    reopened = Store(tmp_path / "store")
    row = next(r for r in reopened.board_rows(released=True) if r["id"] == sid)
    assert row["scores"] == {HEAD: 0.21} and row["confidence_intervals"] == {}


# --- 5. every decision reaches the Hub ----------------------------------------------------------------------

def _hub_store(hub: FakeHub, cache) -> HubStore:
    return HubStore("figbench/board", private_repo_id="figbench/board-private", cache_dir=cache, token=TOKEN,
                    endpoint=hub.url, backoff_s=0.05, batch_size=1000, batch_interval_s=3600,
                    rate_limit=RateLimit(max_submissions=10_000))


def test_a_restart_from_the_hub_keeps_tokens_quotas_budgets_and_refusals(online, tmp_path):  # noqa: F811
    hub = FakeHub(private={"figbench/board-private"})
    hub.repos = {"figbench/board": {}, "figbench/board-private": {}}
    try:
        policy = HiddenSplitPolicy(daily_quota=5, daily_budget=8)
        board = _board(_hub_store(hub, tmp_path / "a"), policy)
        gold = _gold()
        ids = list(gold["labels"])
        alice = tokens.issue(board.store, "alice")[1]
        bob = tokens.issue(board.store, "bob")[1]
        mallory = tokens.issue(board.store, "mallory")[1]
        rng = np.random.default_rng(2)

        def fresh() -> dict:
            return {i: LABELS[int(rng.integers(5))] for i in ids}

        first = fresh()
        board.submit(_sub(first, "alice-0"), client="ip:10.0.0.1", account=alice)
        with pytest.raises(Exception, match="too close"):   # a refused probe: counts toward quota and budget
            board.submit(_sub(dict(first, x000="TEAM" if first["x000"] != "TEAM" else "EVENT"), "alice-p"),
                         client="ip:10.0.0.1", account=alice)
        for k in range(3):
            board.submit(_sub(fresh(), f"alice-{k + 1}"), client="ip:10.0.0.1", account=alice)
        board.run_pending()
        tokens.revoke(board.store, mallory)
        board.store.close()

        # a fresh Space: the tokens, the refused probe and the revocation come back from the Hub
        again = _board(_hub_store(hub, tmp_path / "b"), policy)
        again.store.pull()
        with pytest.raises(QuotaError, match="alice|key:"):   # 4 submissions + 1 refused probe = the quota of 5
            again.submit(_sub(fresh(), "alice-5"), client="ip:10.0.0.1", account=alice)
        with pytest.raises(UnregisteredError):
            again.submit(_sub(fresh(), "mallory-0"), client="ip:10.0.0.3", account=mallory)
        for k in range(3):   # the budget of 8 over everyone: 4 + 1 refusal already spent, 3 left
            again.submit(_sub(fresh(), f"bob-{k}"), client=f"ip:10.0.1.{k}", account=bob)
        again.store.close()

        third = _board(_hub_store(hub, tmp_path / "c"), policy)
        third.store.pull()
        with pytest.raises(BudgetError):
            third.submit(_sub(fresh(), "bob-9"), client="ip:10.0.1.9", account=bob)
        decisions = {r["decision"] for r in json.loads(hub.repos["figbench/board-private"]
                                                        ["state/hidden_decisions.json"])}
        assert decisions >= {"refused-probe", "refused-quota"}
        # the Ladder's released values came back too: what alice was shown is shown again
        shown = {r["model_name"]: r["scores"] for r in third.store.board_rows(released=True)}
        assert set(shown["alice-0"]) == {HEAD}
        third.store.close()
    finally:
        hub.close()


def test_a_token_issued_before_a_crash_is_pushed_at_the_next_start(online, tmp_path):  # noqa: F811
    hub = FakeHub(private={"figbench/board-private"})
    hub.repos = {"figbench/board": {}, "figbench/board-private": {}}
    try:
        store = _hub_store(hub, tmp_path / "a")
        ident = tokens.issue(store, "alice")[1]
        store._stop.set()
        HubStore.__mro__[1].close(store)            # the process dies: no flush
        restarted = _hub_store(hub, tmp_path / "a")
        restarted.pull()                            # the Hub has no state yet: the local mark must survive
        restarted.close()
        fresh = _hub_store(hub, tmp_path / "b")
        fresh.pull()
        assert [r["identity"] for r in tokens.listing(fresh)] == [ident]
        fresh.close()
    finally:
        hub.close()
