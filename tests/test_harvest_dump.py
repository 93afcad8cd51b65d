"""Issue 25: reading MediaWiki dumps as streams (real shortened dumps, multistream ranges) and wikitext blocks."""

from __future__ import annotations

import bz2
import os
from pathlib import Path

import pytest

from figbench.harvest import dump, synthetic, wikitext

WIKI = Path(os.environ.get("FIGBENCH_DATA_DIR", "/work/shared/data")) / "wikipedia"
FIXTURE = Path(__file__).parent / "fixtures" / "harvest" / "tricky-pages-articles.xml"
needs_wiki = pytest.mark.skipif(not WIKI.is_dir(), reason="shared Wikipedia dumps not available")


@needs_wiki
@pytest.mark.parametrize("name,pages,redirects,dbname", [
    ("enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2", 206, 100, "enwiki"),
    ("bgwiki-latest-pages-articles-shortened.xml.bz2", 3, 0, "bgwiki"),  # UTF-16
    ("enwiki-table-markup.xml.bz2", 5, 0, "enwiki"),  # no <siteinfo>
])
def test_real_dumps_stream(name, pages, redirects, dbname):
    (part,) = dump.partitions(WIKI / name)
    got = list(dump.iter_pages(part))
    assert len(got) == pages and sum(p.redirect is not None for p in got) == redirects
    assert dump.site_name(part) == dbname
    assert all(p.text or p.redirect for p in got if p.ns == 0)


@needs_wiki
def test_bulgarian_utf16_text_is_decoded():
    (part,) = dump.partitions(WIKI / "bgwiki-latest-pages-articles-shortened.xml.bz2")
    first = next(dump.iter_pages(part))
    assert first.title == "Григориански календар"
    blocks = wikitext.blocks(wikitext.parse(first.text))
    assert any(b.kind == "prose" and "календар" in b.text for b in blocks)


@needs_wiki
def test_table_markup_links_are_metadata():
    (part,) = dump.partitions(WIKI / "enwiki-table-markup.xml.bz2")
    kinds = {b.kind for p in dump.iter_pages(part) for b in wikitext.blocks(wikitext.parse(p.text))}
    assert {"prose", "table"} <= kinds


def test_multistream_ranges_read_every_page_once(tmp_path):
    pages = list(synthetic.synthetic_pages(n_events=3, backlinks=4, n_towns=2, filler=10))
    path, index = synthetic.write_dump(tmp_path / "xxwiki-20240102-pages-articles-multistream.xml.bz2", pages,
                                       pages_per_stream=5)
    assert dump.index_path(path) == index
    parts = dump.partitions(path, partition_bytes=2000)
    assert len(parts) > 2 and parts[-1].end == path.stat().st_size
    titles = [p.title for part in parts for p in dump.iter_pages(part)]
    assert titles == [t for _, t, _, _ in pages]
    assert dump.dump_date(path) == "2024-01-02"


def test_plain_bz2_parts_by_glob(tmp_path):
    pages = list(synthetic.synthetic_pages(n_events=1, backlinks=1, n_towns=1, filler=3))
    synthetic.write_dump(tmp_path / "xxwiki-latest-pages-articles1.xml-p1p9.bz2", pages[:5], multistream=False)
    synthetic.write_dump(tmp_path / "xxwiki-latest-pages-articles2.xml-p10p99.bz2", pages[5:], multistream=False)
    parts = dump.partitions(str(tmp_path / "*pages-articles*.bz2"))
    assert len(parts) == 2
    assert [p.title for part in parts for p in dump.iter_pages(part)] == [t for _, t, _, _ in pages]


def test_bad_inputs_name_the_file(tmp_path):
    with pytest.raises(dump.DumpError, match="no dump file matches"):
        dump.partitions(str(tmp_path / "*.bz2"))
    bad = tmp_path / "notwiki-pages-articles.xml.bz2"
    bad.write_bytes(bz2.compress(b"<html><body>hello</body></html>"))
    (part,) = dump.partitions(bad)
    with pytest.raises(dump.DumpError, match="notwiki-pages-articles.xml.bz2"):
        list(dump.iter_pages(part))
    pages = list(synthetic.synthetic_pages(n_events=1, backlinks=1, n_towns=1, filler=3))
    path, index = synthetic.write_dump(tmp_path / "yywiki-pages-articles-multistream.xml.bz2", pages)
    index.write_bytes(bz2.compress(b"oops:1:Title\n"))
    with pytest.raises(dump.DumpError, match="multistream-index.txt.bz2: line 1"):
        dump.partitions(path)


def test_wikitext_blocks_of_the_tricky_fixture():
    (part,) = dump.partitions(FIXTURE)
    pages = {p.title: p for p in dump.iter_pages(part)}
    assert pages["Zorn quake"].redirect == "1999 Zorn earthquake"
    code = wikitext.parse(pages["1999 Zorn earthquake"].text)
    assert wikitext.infobox_types(code) == ["earthquake"]
    blocks = wikitext.blocks(wikitext.parse(pages["Zorn"].text), ["File", "Category"])
    prose = [b for b in blocks if b.kind == "prose"]
    first = prose[0]
    assert [(k.target, first.text[k.start:k.end]) for k in first.links] == [
        ("1999 Zorn earthquake", "earthquakes"), ("Zorn quake", "the quake")]  # link trail, nested in italics
    assert "&" in first.text and "''" not in first.text
    kinds = sorted(b.kind for b in blocks if b.kind != "prose")
    assert kinds == ["file", "list", "ref", "table", "template"]
    file_block = next(b for b in blocks if b.kind == "file")
    assert [k.target for k in file_block.links] == ["1999 Zorn earthquake", "Zorn"]  # nested links in a caption


def test_link_prefixes_and_same_named_parts(tmp_path):
    code = wikitext.parse("See [[Re:Zero]], [[Star Wars: Episode IV|the film]], [[de:Krieg]], [[:Category:X]], "
                          "[[En:Help:Editing]].")
    (block,) = wikitext.blocks(code, ["Category"])
    assert [k.target for k in block.links] == ["Re:Zero", "Star Wars: Episode IV"]
    pages = list(synthetic.synthetic_pages(n_events=1, backlinks=1, n_towns=1, filler=2))
    for d in ("a", "b"):  # the same file name in two folders: two partitions, two keys
        synthetic.write_dump(tmp_path / d / "xxwiki-pages-articles.xml.bz2", pages, multistream=False)
    parts = dump.partitions(str(tmp_path / "*" / "xxwiki-pages-articles.xml.bz2"))
    assert len({p.key for p in parts}) == 2


def test_truncated_dump_names_file_and_last_page(tmp_path):
    pages = list(synthetic.synthetic_pages(n_events=2, backlinks=2, n_towns=1, filler=40))
    (path,) = synthetic.write_dump(tmp_path / "zzwiki-pages-articles.xml.bz2", pages, multistream=False)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) * 3 // 4])
    (part,) = dump.partitions(path)
    with pytest.raises(dump.DumpError, match=r"zzwiki-pages-articles.xml.bz2 \[bytes 0:end\]: .*truncated or "
                                             r"corrupt"):
        list(dump.iter_pages(part))
    path.write_bytes(data[:200])  # inside the header
    with pytest.raises(dump.DumpError, match=r"zzwiki-pages-articles.xml.bz2 \[bytes 0:end\]: cannot read"):
        list(dump.iter_pages(part))


def test_an_index_whose_first_offset_skips_streams_loses_no_page(tmp_path):
    """An index missing its first streams' lines (its first offset past the header stream) dropped those
    streams' pages silently (the header range was cut at its first <page>): every page is read."""
    pages = list(synthetic.synthetic_pages(n_events=3, backlinks=4, n_towns=2, filler=10))
    path, index = synthetic.write_dump(tmp_path / "xxwiki-20240102-pages-articles-multistream.xml.bz2", pages,
                                       pages_per_stream=5)
    lines = bz2.decompress(index.read_bytes()).decode().splitlines(keepends=True)
    first = lines[0].split(":", 1)[0]
    index.write_bytes(bz2.compress("".join(x for x in lines if not x.startswith(first + ":")).encode()))
    for partition_bytes in (10**9, 2000):
        parts = dump.partitions(path, partition_bytes=partition_bytes)
        titles = [p.title for part in parts for p in dump.iter_pages(part)]
        assert titles == [t for _, t, _, _ in pages]


def test_a_header_stream_holding_pages_loses_no_page(tmp_path):
    """The header and the first pages in one bz2 stream, the index starting at the next stream: those pages too
    are read."""
    pages = list(synthetic.synthetic_pages(n_events=3, backlinks=4, n_towns=2, filler=10))
    path, index = synthetic.write_dump(tmp_path / "xxwiki-20240102-pages-articles-multistream.xml.bz2", pages,
                                       pages_per_stream=5)
    lines = bz2.decompress(index.read_bytes()).decode().splitlines(keepends=True)
    offsets = sorted({int(x.split(":", 1)[0]) for x in lines})
    data = path.read_bytes()
    merged = bz2.compress(bz2.decompress(data[:offsets[1]]))  # header + first stream's pages: one stream
    shift = offsets[1] - len(merged)
    path.write_bytes(merged + data[offsets[1]:])
    kept = [x for x in lines if int(x.split(":", 1)[0]) >= offsets[1]]
    index.write_bytes(bz2.compress("".join(f"{int(o) - shift}:{rest}" for o, rest in
                                           (x.split(":", 1) for x in kept)).encode()))
    for partition_bytes in (10**9, 2000):
        parts = dump.partitions(path, partition_bytes=partition_bytes)
        titles = [p.title for part in parts for p in dump.iter_pages(part)]
        assert titles == [t for _, t, _, _ in pages]


def _plain_dump(path: Path, pages: list, bad: dict[int, bytes]) -> Path:
    """A plain (one-stream) bz2 dump of ``pages`` whose page ``k`` is replaced by the bytes ``bad[k]``."""
    body = synthetic.header().encode() + b"".join(
        bad.get(k, synthetic.page_xml(p, t, x, redirect=r).encode()) for k, (p, t, x, r) in enumerate(pages))
    path.write_bytes(bz2.compress(body + synthetic.FOOTER.encode()))
    return path


@pytest.mark.parametrize("flaw", ["non-utf8", "unclosed"])
def test_a_bad_page_of_a_plain_file_is_skipped_alone(tmp_path, flaw):
    """Under skipping_bad_pages a whole (non-multistream) file is read page by page: the one bad page is listed
    (number, title, line) and every other page is read; without it the read stops at the bad page."""
    pages = list(synthetic.synthetic_pages(n_events=2, backlinks=4, n_towns=1, filler=10))
    k = 7
    p, title, text, _ = pages[k]
    good = synthetic.page_xml(p, title, text).encode()
    bad = good.replace(b"</text>", b"\xff\xfe junk</text>") if flaw == "non-utf8" else good.replace(b"</page>", b"")
    assert bad != good
    path = _plain_dump(tmp_path / "enwiki-20240601-pages-articles1.xml.bz2", pages, {k: bad})
    (part,) = dump.partitions(path)
    with pytest.raises(dump.DumpError, match="truncated or corrupt"):
        list(dump.iter_pages(part))
    with dump.skipping_bad_pages() as skipped:
        got = list(dump.iter_pages(part))
    assert [g.title for g in got] == [t for i, (_, t, _, _) in enumerate(pages) if i != k]
    (entry,) = skipped
    assert entry["page"] == k + 1 and entry["title"] == title and entry["line"] > 1
    assert path.name in entry["error"] and f"page {k + 1}" in entry["error"]


def test_a_plain_file_cut_short_names_the_last_page_read(tmp_path):
    pages = list(synthetic.synthetic_pages(n_events=2, backlinks=4, n_towns=1, filler=1500))
    path = _plain_dump(tmp_path / "enwiki-20240601-pages-articles1.xml.bz2", pages, {})
    data = path.read_bytes()
    path.write_bytes(data[: len(data) * 2 // 3])  # a truncated bz2 stream
    (part,) = dump.partitions(path)
    with dump.skipping_bad_pages() as skipped:
        got = list(dump.iter_pages(part))
    assert 0 < len(got) < len(pages) and [g.title for g in got] == [t for _, t, _, _ in pages[:len(got)]]
    (entry,) = skipped
    assert entry["page"] is None and f"after page {len(got)} ({got[-1].title!r}" in entry["error"]
    assert "not read" in entry["error"]
