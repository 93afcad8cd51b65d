"""Issue 31: a harvest that finds nothing loads as an empty corpus, and its card says why."""

from __future__ import annotations

import pytest

from figbench.harvest import synthetic, wec, wimcor


@pytest.fixture(scope="module")
def no_events(tmp_path_factory):
    d = tmp_path_factory.mktemp("empty")
    path, _ = synthetic.write_dump(d / "enwiki-20240601-pages-articles-multistream.xml.bz2",
                                   synthetic.synthetic_pages(n_events=0, backlinks=0, n_towns=1, filler=5),
                                   pages_per_stream=5)
    return path


def test_an_empty_wec_harvest_loads_as_an_empty_corpus(no_events, tmp_path, dask_scheduler):
    import figbench

    report = wec.harvest(no_events, tmp_path, wec.WecOptions(), scheduler=dask_scheduler)
    assert sum(report["kept"].values()) == 0
    dd = figbench.load_dataset("wec_eng", data_dir=tmp_path, cache_dir=str(tmp_path / "cache"))
    assert set(dd) == {"train", "validation", "test"} and all(len(dd[s]) == 0 for s in dd)
    card = (tmp_path / "README.md").read_text()
    assert "**The corpus is empty**" in card and report["empty_because"] in card


def test_an_empty_wimcor_harvest_loads_as_an_empty_corpus(no_events, tmp_path, dask_scheduler):
    import figbench

    cats = tmp_path / "cats.tsv"
    cats.write_text("Nowhere\tLOCATION\n")
    report = wimcor.harvest(no_events, tmp_path / "out", wimcor.WimcorOptions(categories=str(cats)),
                            scheduler=dask_scheduler)
    assert report["pairs"] == []
    dd = figbench.load_dataset("wimcor", "sample", data_dir=tmp_path / "out", cache_dir=str(tmp_path / "cache"))
    assert set(dd) == {"train", "test"} and all(len(dd[s]) == 0 for s in dd)
    card = (tmp_path / "out" / "README.md").read_text()
    assert "**The corpus is empty**: no metonymic pair" in card and report["empty_because"] in card
