"""Issue 25 (scale): the README's harvest blocks are rendered from ``benchmarks/bench_harvest.json``."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from figbench.commands.docs import ROOT, wrap
from figbench.commands.docs_benchmarks import (
    CLUSTER_SIZES,
    ENWIKI_COMPRESSED_MB,
    render_harvest_estimate,
    render_harvest_scale,
)


@pytest.fixture()
def bench(tmp_path):
    shutil.copy(ROOT / "benchmarks" / "bench_harvest.json", tmp_path / "bench_harvest.json")
    return tmp_path


def _edit(bench, change) -> dict:
    path = bench / "bench_harvest.json"
    data = json.loads(path.read_text("utf-8"))
    change(data)
    path.write_text(json.dumps(data), "utf-8")
    return data


def test_the_blocks_in_the_readme_are_fresh(bench):
    readme = (ROOT / "README.md").read_text("utf-8")
    assert wrap("harvest-scale", render_harvest_scale(bench)) in readme
    assert wrap("harvest-estimate", render_harvest_estimate(bench)) in readme


def test_the_committed_run_harvested_a_gigabyte_with_flat_memory(bench):
    data = json.loads((bench / "bench_harvest.json").read_text("utf-8"))
    full = [r for r in data["rows"] if r["dump"] == "full"]
    assert {r["method"] for r in full} == {"wec", "wimcor"} and all(r["compressed_mb"] >= 1024 for r in full)
    assert {r["method"] for r in data["rows"] if r["dump"] == "prefix" and r.get("speed_up")} == {"wec", "wimcor"}
    for r in full:
        for stage, pts in r["memory"].items():
            rss = [p["worker_peak_rss_mb"] for p in pts]
            assert len(rss) >= 5 and rss[-1] <= 1.25 * rss[0], (r["method"], stage, rss)
    assert set(data["loaded"]) == {"wec", "wimcor"} and all(sum(v.values()) > 0 for v in data["loaded"].values())
    assert "Not done" not in render_harvest_scale(bench)


def test_the_estimate_follows_the_numbers(bench):
    before = render_harvest_estimate(bench)
    hours = float(re.search(r"The estimate uses (\d+) core-hours", before).group(1))

    def twice_as_fast(d):
        for r in d["rows"]:
            if r["dump"] == "full":
                r["cpu_s"] /= 2

    _edit(bench, twice_as_fast)
    after = render_harvest_estimate(bench)
    assert abs(float(re.search(r"The estimate uses (\d+) core-hours", after).group(1)) - hours / 2) <= 1
    assert f"{ENWIKI_COMPRESSED_MB:,} MB" in after and all(f"N = {n} dedicated workers" in after for n in CLUSTER_SIZES)

    def no_speed_up(d):
        for r in d["rows"]:
            r["speed_up"] = None

    _edit(bench, no_speed_up)
    assert "N = " not in render_harvest_estimate(bench)


def test_a_small_largest_dump_is_not_done_and_memory_table_follows_rows(bench):
    data = _edit(bench, lambda d: d.update(rows=[r for r in d["rows"] if r["dump"] != "full"]))
    scale = render_harvest_scale(bench)
    prefix_mb = data["rows"][0]["compressed_mb"]
    assert "**Not done**: a >= 1 GB dump" in scale and f"as the {prefix_mb:,.1f} MB dump is read" in scale
    _edit(bench, lambda d: [r.pop("memory", None) for r in d["rows"]])
    assert "Workers' peak RSS" not in render_harvest_scale(bench)


def test_a_row_without_a_field_names_the_row(bench):
    _edit(bench, lambda d: d["rows"][1].pop("cpu_s"))
    with pytest.raises(ValueError, match=r"bench_harvest.json: rows\[1\] has no field 'cpu_s'"):
        render_harvest_scale(bench)


def test_heavier_real_pages_raise_the_estimate(bench):
    data = json.loads((bench / "bench_harvest.json").read_text("utf-8"))
    assert data["real_cpu"]["per_mb_ratio"] > 0 and data["real_cpu"]["real"]["pages"] > 100
    hours = float(re.search(r"The estimate uses (\d+) core-hours", render_harvest_estimate(bench)).group(1))

    def heavier(d):
        d["real_cpu"]["per_mb_ratio"] *= 4

    _edit(bench, heavier)
    text = render_harvest_estimate(bench)
    assert float(re.search(r"The estimate uses (\d+) core-hours", text).group(1)) > 1.5 * hours
    _edit(bench, lambda d: d.pop("real_cpu"))
    assert "Real pages are heavier" not in render_harvest_estimate(bench)


def test_the_rerun_with_real_page_sizes_is_rendered_as_measured(bench):
    data = json.loads((bench / "bench_harvest.json").read_text("utf-8"))
    rerun = data["rerun"]
    text = render_harvest_scale(bench)
    rc = rerun["real_cpu"]
    assert f"{rc['real']['cpu_ms_per_page']:.2f} ms against synthetic pages {rc['synthetic']['cpu_ms_per_page']:.2f}" \
        in text and rerun["machine"] in text
    assert ("**only its" in text) == (not any(r["dump"] == "full" for r in rerun["rows"]))
    _edit(bench, lambda d: d["rerun"]["rows"].append({**d["rerun"]["rows"][0], "dump": "full"}))
    assert "**only its" not in render_harvest_scale(bench) and "harvested whole" in render_harvest_scale(bench)
    _edit(bench, lambda d: d["rerun"].pop("machine"))
    with pytest.raises(ValueError, match="field 'rerun' has no field 'machine'"):
        render_harvest_scale(bench)
    _edit(bench, lambda d: d.pop("rerun"))
    assert "Rerun with" not in render_harvest_scale(bench)
