"""Issue 25 (scale): the cheap pre-checks and the fast page reader change no output.

The four stage functions run in-process (no Dask) on the real shortened dumps, the tricky fixture and a
generated dump with the filler's Wikipedia-like mix, once as shipped and once with every pre-check switched
off (every page parsed): the payloads must be equal. The ElementTree page reader must give the pages
:mod:`mwxml` gives.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from figbench.harvest import common, dump, synthetic, wec, wikitext, wimcor

WIKI = Path(os.environ.get("FIGBENCH_DATA_DIR", "/work/shared/data")) / "wikipedia"
FIXTURE = Path(__file__).parent / "fixtures" / "harvest" / "tricky-pages-articles.xml"
REAL = ["enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2",
        "bgwiki-latest-pages-articles-shortened.xml.bz2", "enwiki-table-markup.xml.bz2"]
#: infobox types of the real English dump, as an event list: many pages link to "events", so extract parses a lot
BROAD = ("country", "book", "u.s. state", "philosopher", "award", "writer", "scientist", "person", "officeholder",
         "film", "military conflict", "language", "economy", "earthquake", "settlement", "album", "company")


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("gen")
    path, _ = synthetic.write_large_dump(d / "enwiki-20240601-pages-articles-multistream.xml.bz2", 600,
                                         processes=1, pages_per_stream=50, n_events=6, backlinks=8, n_towns=4,
                                         paragraphs=6)  # small articles: a quick test
    return path


def _dumps(generated: Path) -> list[Path]:
    found = [WIKI / n for n in REAL if (WIKI / n).is_file()]
    return found + [FIXTURE, generated]


def _mwxml_pages(part: dump.Partition) -> list[dump.Page]:
    import mwxml

    stream = dump.open_partition(part)
    try:
        out = []
        for page in mwxml.Dump.from_file(stream):
            text, ts = "", ""
            for rev in page:
                text, ts = rev.text or "", str(rev.timestamp or "")
            out.append(dump.Page(int(page.namespace or 0), int(page.id or 0), page.title, page.redirect, text, ts))
        return out
    finally:
        stream.close()


def test_the_page_reader_gives_what_mwxml_gives(generated):
    n = 0
    for path in _dumps(generated):
        for part in dump.partitions(path, partition_bytes=40_000):
            got = list(dump.iter_pages(part))
            assert got == _mwxml_pages(part), (path.name, part.start)
            n += len(got)
    assert n > 600


def _stages(path: Path, cats: Path, event_list: Path) -> dict:
    """The four stages' payloads and stats (seconds left out) over every partition of ``path``."""
    parts = dump.partitions(path, partition_bytes=40_000)
    ns = common.namespaces(parts[0])
    opts = wec.WecOptions(event_infoboxes=str(event_list))
    events_list, ne = wec.load_lists(opts)
    sh = wec.Shared(opts, events_list, ne, ns)
    scans = [wec.scan(p, sh) for p in parts]
    events: dict = {}
    for s, _ in scans:
        for k, v in s["events"].items():
            events.setdefault(k, v)
    sh.aliases = {t: t for t in events}
    for s, _ in scans:
        sh.aliases.update({r: t for r, t in s["redirects"].items() if t in events and r not in sh.aliases})
    extracts = [wec.extract(p, sh) for p in parts]
    wsh = wimcor.Shared(wimcor.WimcorOptions(categories=str(cats)), ns)
    wscans = [wimcor.scan(p, wsh) for p in parts]
    titles = {t for s, _ in wscans for ts in s["dabs"].values() for t in ts} | set(events)
    wsh.aliases = {t: t for t in titles}
    wextracts = [wimcor.extract(p, wsh) for p in parts]
    classes = common.read_mapping(common.packaged(wimcor.INFOBOX_CLASSES))  # no categories file: infobox classes
    typed = [wimcor.scan(p, wimcor.Shared(wimcor.WimcorOptions(), ns, infobox_classes=classes)) for p in parts]
    return {"wec_scan": scans, "wec_extract": extracts, "wimcor_scan": wscans, "wimcor_extract": wextracts,
            "wimcor_scan_infobox_classes": typed}


@pytest.mark.ci_stage   # four harvest stages twice over a generated dump (about 40 s): in make test-ci
def test_switching_the_prechecks_off_changes_no_stage_output(generated, tmp_path, monkeypatch):
    cats = tmp_path / "cats.tsv"
    cats.write_text(synthetic.categories_tsv(4))
    event_list = tmp_path / "events.txt"
    event_list.write_text("".join(f"{t}\tHISTORICAL_EVENT\n" for t in BROAD + ("civilian attack", "flood",
                                                                              "airliner accident", "festival")))
    dumps = _dumps(generated)
    shipped = {p.name: _stages(p, cats, event_list) for p in dumps}
    monkeypatch.setattr(wec, "may_have_infobox", lambda text: True)
    monkeypatch.setattr(wec, "_may_link", lambda text, aliases: True)
    monkeypatch.setattr(wimcor, "dab_precheck", lambda templates: (lambda text: True))
    parsed = {p.name: _stages(p, cats, event_list) for p in dumps}
    for name in shipped:
        for stage in shipped[name]:
            for (a, sa), (b, sb) in zip(shipped[name][stage], parsed[name][stage], strict=True):
                assert a == b, (name, stage)
                assert {k: v for k, v in sa.items() if k != "parsed"} == {k: v for k, v in sb.items() if k != "parsed"}
    gen = shipped[generated.name]
    assert sum(s["events"] for _, s in gen["wec_scan"]) > 0
    assert sum(s["mentions"] for _, s in gen["wec_extract"]) > 0
    assert sum(s["disambiguation_pages"] for _, s in gen["wimcor_scan"]) > 5
    assert sum(s["samples"] for _, s in gen["wimcor_extract"]) > 0
    assert sum(len(s["typed"]) for s, _ in gen["wimcor_scan_infobox_classes"]) > 100
    assert sum(s["parsed"] for _, s in gen["wec_extract"]) < sum(s["pages"] for _, s in gen["wec_extract"]) / 2


@pytest.mark.parametrize("text", [
    "{{Infobox_Earthquake <!-- c -->\n|a=1}}", "{{ template:INFOBOX  person}}", "{{\ninfobox\tsettlement\n}}",
    "x {{foo|{{Infobox album}}}}", "{{Infobox}} {{Infobox-x}}",
])
def test_the_infobox_precheck_passes_every_page_with_an_infobox(text):
    assert wikitext.infobox_types(wikitext.parse(text))
    assert wec.may_have_infobox(text)
    assert not wec.may_have_infobox("{{Info box person}} {{Info_box}} [[Info]]")


@pytest.mark.parametrize("text,templates", [
    ("'''X''' may be:\n* [[A]]\n{{ Disambiguation }}", None),
    ("{{Template:Disambiguation_cleanup|date=May 2020}}", None),
    ("{{ school _disambiguation }}", None),
    ("{{hndis|name=Smith, John}}", None),
    ("{{Begriffsklärung}}", ("begriffsklärung",)),
])
def test_the_disambiguation_precheck_passes_every_disambiguation_page(text, templates):
    templates = templates or wikitext.DISAMBIGUATION_TEMPLATES
    assert wikitext.is_disambiguation(wikitext.parse(text), templates)
    assert wimcor.dab_precheck(templates)(text)
    assert not wimcor.dab_precheck(templates)("{{Infobox settlement}} disambiguation {{disam}}")


def test_a_spaced_disambiguation_template_is_found(tmp_path):
    """The old pre-check looked for ``{{disambiguation`` verbatim and missed ``{{ Disambiguation }}`` pages."""
    pages = [(1, "Kabalo", "'''Kabalo''' is a town.", None), (2, "Kabalo FC", "A club in [[Kabalo]].", None),
             (3, "Kabalo (disambiguation)", "'''Kabalo''' may be:\n* [[Kabalo]]\n* [[Kabalo FC]]\n\n"
                                            "{{ Disambiguation }}", None)]
    (path,) = synthetic.write_dump(tmp_path / "xxwiki-pages-articles.xml.bz2", pages, multistream=False)
    (part,) = dump.partitions(path)
    payload, stats = wimcor.scan(part, wimcor.Shared(wimcor.WimcorOptions(categories="unused")))
    assert payload["dabs"] == {"Kabalo": ["Kabalo", "Kabalo FC"]} and stats["disambiguation_pages"] == 1


def test_the_link_precheck_normalises_targets():
    aliases = {"1999 Zorn earthquake": "1999 Zorn earthquake"}
    for text in ("a [[ 1999_Zorn  earthquake#Aftermath|the quake]]", "[[:1999 Zorn earthquake]]",
                 "[[File:x.jpg|thumb|see [[1999 Zorn earthquake]]]]", "{{main|x}} [[1999 Zorn earthquake\u200e]]s"):
        assert wec._may_link(text, aliases), text
        code = wikitext.parse(text)
        assert any(t in aliases for t in wikitext.links_of(code)), text
    assert not wec._may_link("[[1999 Zorn earthquakes]] [[Zorn]] 1999 Zorn earthquake", aliases)


def test_the_generated_filler_has_wikipedias_mix():
    """Most pages link to no event article and carry no disambiguation template; about 40% have an infobox."""
    rng = random.Random(7)
    events, towns = ["2000 Kabalo earthquake", "2001 Kadalo bombing"], ["Kabalo", "Kadalo"]
    texts = [synthetic._filler_text(rng, 1000 + i, 6, events, towns) for i in range(4000)]
    share = lambda f: sum(map(f, texts)) / len(texts)
    assert 0.35 < share(lambda t: "{{Infobox" in t) < 0.45
    assert 0.02 < share(lambda t: "{{disambiguation}}" in t) < 0.045
    assert 0.01 < share(lambda t: any(f"[[{e}|" in t for e in events)) < 0.03
    assert 0.01 < share(lambda t: any(f"[[{x}" in t for x in towns)) < 0.03
    body = [t for t in texts if "{{disambiguation}}" not in t]
    assert all(t.count("\n==") == 2 and t.count("[[") >= 24 for t in body)
