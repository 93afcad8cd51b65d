"""Issue 31: the generated dump's page sizes follow the real English sample's."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from figbench.harvest import synthetic

REAL = (Path(os.environ.get("FIGBENCH_DATA_DIR", "/work/shared/data")) / "wikipedia"
        / "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2")


def test_the_recorded_profile_is_the_real_dumps():
    if not REAL.is_file():
        pytest.skip("shared Wikipedia dumps not available")
    got = synthetic.size_profile(REAL)
    assert {k: got[k] for k in synthetic.REAL_SIZES} == pytest.approx(synthetic.REAL_SIZES, abs=0.01)


def test_generated_page_sizes_match_the_real_dump(tmp_path):
    path, _ = synthetic.write_large_dump(tmp_path / "enwiki-20240601-pages-articles-multistream.xml.bz2", 500,
                                         processes=1, n_events=1, backlinks=1, n_towns=1)
    got = synthetic.size_profile(path, prefix="Filler ")  # the generated pages, not the harvesters' head
    want = synthetic.REAL_SIZES
    assert got["redirects"] == pytest.approx(want["redirects"], abs=0.08)
    assert got["log_bytes_mean"] == pytest.approx(want["log_bytes_mean"], abs=0.3)
    assert got["log_bytes_sd"] == pytest.approx(want["log_bytes_sd"], abs=0.3)
    per_page_kb = path.stat().st_size / (got["pages"] + 10) / 1024
    assert 4 < per_page_kb < 16  # the real sample: 8.0 KB of bz2 a page
