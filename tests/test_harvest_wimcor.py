"""Issue 25: ``figbench harvest wimcor``: pairs by Table 1 associations, samples, builder, baselines."""

from __future__ import annotations

import bz2
import json

import pytest

from figbench.harvest import synthetic, wimcor
from tests.figbench_run import run_figbench


@pytest.fixture(scope="module")
def harvested(tmp_path_factory):
    d = tmp_path_factory.mktemp("wimcor")
    path, _ = synthetic.write_dump(d / "enwiki-20240601-pages-articles-multistream.xml.bz2",
                                   synthetic.synthetic_pages(n_events=4, backlinks=8, n_towns=4, filler=10),
                                   pages_per_stream=10)
    cats = d / "cats.tsv"
    cats.write_text(synthetic.categories_tsv(4))
    out = d / "out"
    p = run_figbench(["harvest", "wimcor", "--dump", str(path), "--out", str(out), "--categories", str(cats),
                      "--workers", "2", "--partition-mb", "0.005", "--quiet"])
    assert p.returncode == 0, p.stderr[-2000:]
    return path, cats, out, json.loads((out / "harvest.json").read_text())


def test_pairs_follow_table1_and_skip_the_polysemous_namesake(harvested):
    _, _, out, report = harvested
    assert report["pairs_by_association"] == {"LOCATION-for-INSTITUTE": 4, "LOCATION-for-TEAM": 4,
                                              "LOCATION-for-EVENT": 4}
    assert not any("(band)" in p[1] for p in report["pairs"])
    assert report["removed"]["category"] == 4 * (10 - 3)  # 5 articles a page: 10 candidate pairs, 3 metonymic
    card = (out / "README.md").read_text()
    assert "| category | on | 28 |" in card and "cats.tsv" in card and "2024-06-01" in card


def test_samples_load_with_the_builder_and_replace_the_mention(harvested):
    import figbench

    _, _, out, report = harvested
    dd = figbench.load_dataset("wimcor", "sample", data_dir=out, cache_dir=str(out / "cache"))
    assert len(dd["train"]) and len(dd["test"])
    for row in dd["train"]:
        assert row["text"][row["pmw_start"]:row["pmw_end"]] == row["pmw"]
        assert row["pmw"].startswith("Ka")  # the anchor text (the town), never "Kabaal University"
        assert 10 <= len(row["text"].split()) <= 512
    names = dd["train"].features["medium"].int2str
    media = {names(m) for m in set(dd["train"]["medium"]) | set(dd["test"]["medium"])}
    assert {"LOCATION", "INSTITUTE", "TEAM"} <= media


@pytest.mark.parametrize("method", ["majority", "prior"])
def test_wimcor_baselines_run_on_the_output(harvested, tmp_path, method):
    """The majority and random-by-prior baselines (the metonymy task's trivial baselines, as the WiMCor
    specs run them) score the harvested corpus."""
    _, _, out, _ = harvested
    res = tmp_path / "r.json"
    p = run_figbench(["baseline", "trivial", "--task", "metonymy", "--dataset", "wimcor", "--config", "sample",
                      "--split", "test", "--method", method, "--data-dir", str(out), "--out", str(res)])
    assert p.returncode == 0, p.stderr[-2000:]
    assert json.loads(res.read_text())["scores"]


def test_token_filter_and_mutual_links_are_counted(harvested, tmp_path, dask_scheduler):
    path, cats, _, base = harvested
    opts = wimcor.WimcorOptions(categories=str(cats), min_tokens=10_000)
    r = wimcor.harvest(path, tmp_path, opts, scheduler=dask_scheduler)
    n = sum(sum(v.values()) for v in base["samples"].values())
    assert r["removed"]["tokens"] >= n and sum(sum(v.values()) for v in r["samples"].values()) == 0
    assert base["removed"]["mutual_links"] == 0  # every synthetic pair links both ways


def test_dbpedia_instance_types_and_bad_lines(tmp_path):
    ttl = tmp_path / "instance_types_en.ttl.bz2"
    ttl.write_bytes(bz2.compress(
        b"<http://dbpedia.org/resource/Delft> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> "
        b"<http://dbpedia.org/ontology/City> .\n"
        b"<http://dbpedia.org/resource/Delft_University_of_Technology> "
        b"<http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://dbpedia.org/ontology/University> .\n"
        b"<http://dbpedia.org/resource/A.C._Milan> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> "
        b"<http://dbpedia.org/ontology/SoccerClub> .\n"))
    assert dict(wimcor.iter_categories(ttl)) == {"Delft": "LOCATION", "Delft University of Technology": "INSTITUTE",
                                                 "A.C. Milan": "TEAM"}
    bad = tmp_path / "cats.tsv"
    bad.write_text("Delft\tLOCATION\nMilan\tSPACESHIP\n")
    with pytest.raises(ValueError, match=r"cats.tsv: line 2: unknown class 'SPACESHIP'"):
        list(wimcor.iter_categories(bad))


def test_real_english_dump_pairs_from_its_disambiguation_pages(tmp_path, dask_scheduler):
    import os
    from pathlib import Path

    wiki = Path(os.environ.get("FIGBENCH_DATA_DIR", "/work/shared/data")) / "wikipedia"
    dump = wiki / "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2"
    if not dump.is_file():
        pytest.skip("shared Wikipedia dumps not available")
    cats = tmp_path / "cats.tsv"
    cats.write_text("Aberdeen\tCity\nUniversity of Aberdeen\tUniversity\nAberdeen F.C.\tSoccerClub\n"
                    "Austin\tLOCATION\nUniversity of Texas at Austin\tINSTITUTE\n")
    r = wimcor.harvest(dump, tmp_path / "out", wimcor.WimcorOptions(categories=str(cats)), scheduler=dask_scheduler)
    assert r["disambiguation_pages"] == 8
    # Aberdeen: (city, university), (city, club); Austin: (city, university) -- but the shortened dump lacks
    # those articles, so the mutual-link check (second step of §3.2.1) drops all three
    assert r["removed"]["mutual_links"] == 3 and r["pairs"] == []
    assert r["classes_found"] == 5


def test_without_a_categories_file_classes_come_from_the_infoboxes(harvested, tmp_path, dask_scheduler):
    """No --categories: the linked articles' infobox types give the classes (settlement -> LOCATION, university
    -> INSTITUTE, football club -> TEAM, festival -> EVENT; a musical artist none); the same pairs as the
    categories file of the synthetic towns, and the card says it approximates DBpedia's classes."""
    path, _, _, base = harvested
    r = wimcor.harvest(path, tmp_path, wimcor.WimcorOptions(), scheduler=dask_scheduler)
    assert sorted(map(tuple, r["pairs"])) == sorted(map(tuple, base["pairs"]))
    assert r["samples"] == base["samples"] and r["class_source"].startswith("infobox types")
    card = (tmp_path / "README.md").read_text()
    assert "approximation of DBpedia" in card and "| settlement | LOCATION |" in card
