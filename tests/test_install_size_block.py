"""The README's install-size block is rendered from benchmarks/bench_install.json (benchmarks/bench_install.py)."""

from __future__ import annotations

import json

import pytest

from figbench.commands.docs_benchmarks import BENCHMARKS, INSTALL_JSON, render_install_size


def test_committed_measurement_says_the_core_brings_no_heavy_module():
    data = json.loads((BENCHMARKS / INSTALL_JSON).read_text())
    assert data["core"]["heavy_modules"] == [] and len(data["all"]["heavy_modules"]) == 10
    assert data["core"]["site_packages_mb"] < data["all"]["site_packages_mb"]
    assert data["all"]["pip_install"] == ["torch==2.13.0", "WHEEL[all]"]   # make setup's order


def test_the_block_is_rendered_from_the_file(tmp_path):
    row = {"seconds": 10.0, "site_packages_mb": 100.0, "distributions": 5, "heavy_modules": [],
           "pip_install": ["WHEEL"]}
    (tmp_path / INSTALL_JSON).write_text(json.dumps({
        "machine": "m", "python": "3", "pip_cache": "off", "wheel": "w.whl", "core": row,
        "all": {**row, "seconds": 40.0, "site_packages_mb": 400.0, "heavy_modules": ["torch"]}}))
    text = render_install_size(tmp_path)
    assert "| `pip install figbench` | `WHEEL` | 10 s | 100 MB | 5 | none |" in text
    assert "1 present" in text and "25% of `[all]`'s size and takes 25% of its time" in text
    (tmp_path / INSTALL_JSON).write_text(json.dumps({"machine": "m"}))
    with pytest.raises(ValueError, match="bench_install.json: missing field 'python'|missing field 'core'"):
        render_install_size(tmp_path)
