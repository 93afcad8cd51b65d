"""benchmarks/bench_coref.py runs end to end (tiny sizes) and prints the comparison with scorch."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_benchmark_script_prints_ratios():
    pytest.importorskip("scorch")
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_coref.py"), "--sizes", "200", "600",
                           "--repeats", "1"], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert "figbench faster than scorch at every size:" in proc.stdout, proc.stderr
    rows = [line.split() for line in proc.stdout.splitlines() if line.strip()[:1].isdigit()]
    assert [r[0] for r in rows] == ["200", "600"]
    assert all(r[5].endswith("x") for r in rows)  # ratio column
    assert "scores agree with scorch to 1e-9 where scorch finished: True" in proc.stdout


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
