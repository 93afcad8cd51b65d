"""benchmarks/bench_coref.py runs end to end (tiny sizes) and prints the comparison with scorch."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.ci_stage   # the whole benchmark script (20 s): in make test-ci; make test keeps its corpus maker below
# and figbench's CoNLL scores against scorch's (test_cdec_pipeline.py::test_scorch_agrees_on_conll)
def test_benchmark_script_prints_ratios(monkeypatch, capsys):
    """The script as ``python benchmarks/bench_coref.py`` runs it, in this process (its own start-up is ~10 s of
    importing evaluate, which the test process has already paid)."""
    pytest.importorskip("scorch")
    monkeypatch.setattr(sys, "argv", ["bench_coref.py", "--sizes", "200", "600", "--repeats", "1"])
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    code = 0
    try:
        runpy.run_path(str(ROOT / "benchmarks" / "bench_coref.py"), run_name="__main__")
    except SystemExit as e:
        code = e.code
    out = capsys.readouterr().out
    # the exit code includes the speed verdicts, which at these sizes (one repeat of a few milliseconds) are timer
    # noise: a CI run saw 0.025 s against scorch's 0.01 s on one 200-mention shape. The speed claims are the
    # script's own, run at 10K-200K mentions; here only that it runs, prints them, and agrees with scorch.
    assert code in (0, 1), code
    assert "figbench faster than scorch at every size:" in out, out[-3000:]
    rows = [line.split() for line in out.splitlines() if line.strip()[:1].isdigit()]
    assert [r[0] for r in rows] == ["200", "600"]
    assert all(r[5].endswith("x") for r in rows)  # ratio column
    assert "scores agree with scorch to 1e-9 where scorch finished: True" in out


def test_synthetic_corpus_shape():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from bench_coref import synthetic_corpus
    finally:
        sys.path.pop(0)
    key, response = synthetic_corpus(5000, seed=3)
    key_ids = [m for c in key for m in c]
    resp_ids = [m for c in response for m in c]
    assert len(key_ids) == len(set(key_ids)) == 5000
    assert len(key) == 800
    assert len(resp_ids) == len(set(resp_ids))
    twinless = set(resp_ids) - set(key_ids)
    missed = set(key_ids) - set(resp_ids)
    assert 0.03 * 5000 < len(twinless) < 0.07 * 5000 and 0.03 * 5000 < len(missed) < 0.07 * 5000
