"""Shared baseline helpers: leaderboard naming of runs, and the quickstart plan."""

from __future__ import annotations

from figbench_baselines.common.runs import with_system_name


def _rec(name, params, method="lh"):
    return {"method": method, "model": {"name": name, "revision": None, "type": "heuristic", "parameters": params}}


def test_heuristic_named_after_method():
    out = with_system_name(_rec("heuristic", None))
    assert out["model"]["name"] == "figbench-lh" and "encoder" not in out["model"]


def test_encoder_methods_keep_the_encoder():
    out = with_system_name(_rec("sentence-transformers/all-MiniLM-L6-v2", 22_713_216, "ce_knn"))
    assert out["model"]["name"] == "figbench-ce_knn (sentence-transformers/all-MiniLM-L6-v2)"
    assert out["model"]["encoder"] == "sentence-transformers/all-MiniLM-L6-v2"


def test_distinct_methods_get_distinct_rows_and_naming_is_idempotent():
    a = with_system_name(_rec("m", 10, "imm5"))
    b = with_system_name(_rec("m", 10, "imm50"))
    assert a["model"]["name"] != b["model"]["name"]
    assert with_system_name(a) == a
    no_method = {"model": {"name": "x", "revision": None, "type": "other", "parameters": 1}}
    assert with_system_name(no_method) == no_method


def test_quickstart_plan_covers_found_corpora(tmp_path, monkeypatch):
    from figbench_baselines.specs import fast_specs

    import figbench
    from figbench.commands.quickstart import plan

    found = figbench.CORPORA[-1]
    (tmp_path / found).mkdir()
    monkeypatch.setenv("FIGBENCH_DATA_DIR", str(tmp_path))
    runs, skipped = plan()
    assert runs and {r.dataset for r in runs} == {found}
    assert len(skipped) == len(figbench.CORPORA) - 1
    assert all(any(c in s for s in skipped) for c in figbench.CORPORA if c != found)
    # every corpus has at least one fast baseline (a trivial one at least), so quickstart covers it
    assert {s.dataset for s in fast_specs()} == set(figbench.CORPORA)
