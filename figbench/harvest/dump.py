"""MediaWiki XML dumps as partitions of page streams (never decompressed to disk).

A dump is one or more files named by a path or a glob: ``pages-articles`` parts (``.xml.bz2`` or
plain ``.xml``), each one partition, or ``pages-articles-multistream`` files with their
``-multistream-index`` file beside them, cut into byte ranges of whole bz2 streams (each stream
holds about 100 pages). A range is read as the file's first stream (the ``<mediawiki>`` and
``<siteinfo>`` header), its own streams and a closing ``</mediawiki>``, chained into one stream that
the standard library's ``iterparse`` reads page by page (:mod:`mwxml` reads the ``<siteinfo>``). Encodings
other than UTF-8 (the Bulgarian dump is UTF-16) are left to the XML parser (byte-order mark); an export
without ``<siteinfo>`` gets a minimal one.
"""

from __future__ import annotations

import bz2
import glob
import hashlib
import io
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO

#: target compressed bytes of one multistream partition
DEFAULT_PARTITION_BYTES = 64 << 20
_HEAD = 1 << 16


class DumpError(ValueError):
    """A dump file is missing, unreadable or not a MediaWiki export; the message names the file."""


@dataclass(frozen=True)
class Partition:
    """One unit of work: a whole file (``start == end == 0``) or a byte range of a multistream file."""

    path: str
    start: int = 0
    end: int = 0
    header_end: int = 0  # multistream: end of the header stream (the index's first offset)

    @property
    def key(self) -> str:
        """A file-system-safe id, stable for the same dump file and range."""
        name = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(self.path).name)[:80]
        where = hashlib.sha256(str(Path(self.path).resolve()).encode()).hexdigest()[:8]  # same name, other folder
        return f"{name}.{where}.{self.start}-{self.end}"

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Page:
    """A page of the dump: namespace, id, title, redirect target (or None) and wikitext."""

    ns: int
    id: int
    title: str
    redirect: str | None
    text: str
    timestamp: str


def index_path(path: str | Path) -> Path | None:
    """The multistream index beside ``path`` (``X-multistream.xml.bz2`` -> ``X-multistream-index.txt.bz2``;
    parts ``X-multistream1.xml-pA.bz2`` -> ``X-multistream-index1.txt-pA.bz2``), or None."""
    p = Path(path)
    name = p.name
    if "multistream" not in name or "index" in name:
        return None
    m = re.match(r"(.*multistream)(\d*)\.xml(.*)\.bz2$", name)
    if not m:
        return None
    cand = p.with_name(f"{m.group(1)}-index{m.group(2)}.txt{m.group(3)}.bz2")
    return cand if cand.is_file() else None


def resolve_files(spec: str | os.PathLike | list) -> list[Path]:
    """Dump files named by a path, a glob or a list of them (index files are not dump files)."""
    specs = spec if isinstance(spec, (list, tuple)) else [spec]
    out: list[Path] = []
    for s in specs:
        hits = sorted(glob.glob(str(s))) if glob.has_magic(str(s)) else [str(s)]
        for h in hits:
            p = Path(h)
            if "multistream-index" in p.name:
                continue
            if not p.is_file():
                raise DumpError(f"dump file {p} does not exist")
            out.append(p)
    if not out:
        raise DumpError(f"no dump file matches {spec!r}")
    return list(dict.fromkeys(out))


def read_index_offsets(index: Path) -> list[int]:
    """Distinct stream offsets of a multistream index (lines ``offset:page_id:title``), ascending."""
    offsets: list[int] = []
    last = -1
    with bz2.open(index, "rt", encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            head = line.split(":", 1)[0]
            if not head.strip().isdigit():
                raise DumpError(f"{index}: line {lineno} is not 'offset:page_id:title': {line[:80]!r}")
            off = int(head)
            if off != last:
                if off < last:
                    raise DumpError(f"{index}: line {lineno}: offset {off} goes back (previous {last})")
                offsets.append(off)
                last = off
    return offsets


def partitions(spec, *, partition_bytes: int = DEFAULT_PARTITION_BYTES) -> list[Partition]:
    """The partitions of a dump: one per plain file, byte ranges of about ``partition_bytes`` per multistream file."""
    parts: list[Partition] = []
    for path in resolve_files(spec):
        index = index_path(path)
        if index is None:
            parts.append(Partition(str(path)))
            continue
        offsets = read_index_offsets(index)
        size = path.stat().st_size
        if not offsets or offsets[-1] >= size:
            raise DumpError(f"{index}: offsets do not fit {path} ({size} bytes); index of another dump?")
        header_end, start = _header_stream(path, offsets[0])
        for off in offsets[1:]:
            if off - start >= partition_bytes:
                parts.append(Partition(str(path), start, off, header_end))
                start = off
        parts.append(Partition(str(path), start, size, header_end))
    return parts


def _header_stream(path: Path, first: int) -> tuple[int, int]:
    """(header_end, start of the first partition) of a multistream file whose index starts at ``first``.

    The header is the file's first bz2 stream (``<mediawiki>``, ``<siteinfo>``); streams between it and the
    index's first offset (an index missing their lines) are read by the first partition, and so is a header
    stream that holds pages itself (that partition starts at 0: it brings its own header).
    """
    dec = bz2.BZ2Decompressor()
    tail, pages = b"", False
    pos = 0
    try:
        with open(path, "rb") as f:
            while not dec.eof:
                chunk = f.read(1 << 16)
                if not chunk:
                    raise DumpError(f"{path}: the header stream (the first bz2 stream) is truncated")
                text = tail + dec.decompress(chunk)
                pages, tail = pages or b"<page" in text, text[-4:]
                pos += len(chunk)
    except OSError as e:
        raise DumpError(f"{path}: the header stream (the first bz2 stream) is corrupt ({e})") from e
    end = pos - len(dec.unused_data)
    if 0 < first < end:
        raise DumpError(f"{path}: the index's first offset {first} lies inside the header stream (bytes 0:{end}); "
                        "index of another dump?")
    return end, 0 if first == 0 or pages else end


def streams(part: Partition) -> list[Partition]:
    """A multistream partition cut at each of its index offsets (one bz2 stream each); a whole file: itself."""
    index = index_path(part.path)
    if part.end == 0 or index is None:
        return [part]
    cuts = [part.start] + [o for o in read_index_offsets(index) if part.start < o < part.end] + [part.end]
    return [Partition(part.path, a, b, part.header_end) for a, b in zip(cuts, cuts[1:])]


def index_titles(part: Partition) -> list[str] | None:
    """The titles the multistream index lists in a partition's byte range, or None (no index)."""
    index = index_path(part.path)
    if part.end == 0 or index is None:
        return None
    with bz2.open(index, "rt", encoding="utf-8") as f:
        rows = (line.rstrip("\n").split(":", 2) for line in f)
        return [r[2] for r in rows if len(r) == 3 and part.start <= int(r[0]) < part.end]


def fingerprint(parts: list[Partition]) -> str:
    """Files (name, size, mtime) and ranges of a partitioning: a rerun resumes only on the same dump."""
    h = hashlib.sha256()
    for p in parts:
        st = os.stat(p.path)
        h.update(f"{p.path}|{st.st_size}|{st.st_mtime_ns}|{p.start}|{p.end}\n".encode())
    return h.hexdigest()[:16]


class _Range(io.RawIOBase):
    """Bytes ``[start, end)`` of a file."""

    def __init__(self, path: str, start: int, end: int):
        self._f = open(path, "rb")
        self._f.seek(start)
        self._left = end - start

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        if self._left <= 0:
            return 0
        n = self._f.readinto(memoryview(b)[: min(len(b), self._left)])
        self._left -= n
        return n

    def close(self) -> None:
        self._f.close()
        super().close()


class _Chain(io.RawIOBase):
    """Several binary streams read one after another."""

    def __init__(self, parts: list[IO[bytes]]):
        self._parts = parts

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        while self._parts:
            n = self._parts[0].readinto(b)
            if n:
                return n
            self._parts.pop(0).close()
        return 0

    def close(self) -> None:
        for p in self._parts:
            p.close()
        self._parts = []
        super().close()


def _encoding(head: bytes) -> str:
    if head.startswith(b"\xff\xfe"):
        return "utf-16-le"
    if head.startswith(b"\xfe\xff"):
        return "utf-16-be"
    return "utf-8"


def _with_siteinfo(stream: IO[bytes], name: str) -> IO[bytes]:
    """The stream, with a minimal ``<siteinfo>`` spliced in when the export has none before its first page."""
    head = b""
    while len(head) < _HEAD:
        chunk = stream.read(_HEAD - len(head))
        if not chunk:
            break
        head += chunk
    enc = _encoding(head)
    e = lambda s: s.encode(enc)
    if e("<mediawiki") not in head:
        raise DumpError(f"{name}: not a MediaWiki XML export (no <mediawiki> element in its first {len(head)} bytes)")
    site, page = head.find(e("<siteinfo")), head.find(e("<page"))
    if site < 0 or (0 <= page < site):
        tag_end = head.find(e(">"), head.find(e("<mediawiki"))) + len(e(">"))
        dbname = Path(name).name.split("-", 1)[0]
        head = head[:tag_end] + e(f"<siteinfo><dbname>{dbname}</dbname></siteinfo>") + head[tag_end:]
    return io.BufferedReader(_Chain([io.BytesIO(head), stream]), 1 << 16)


def open_partition(part: Partition) -> IO[bytes]:
    """The decompressed XML of a partition as one binary stream."""
    try:
        if part.end == 0:
            raw = open(part.path, "rb")
            magic = raw.read(3)
            raw.seek(0)
            stream: IO[bytes] = bz2.open(raw) if magic == b"BZh" else raw  # type: ignore[assignment]
        else:
            header = b""
            if part.start > 0:  # the header stream, up to its first page (read by the partition at 0)
                header = bz2.open(_Range(part.path, 0, part.header_end)).read()
                cut = header.find(b"<page")
                header = header if cut < 0 else header[:cut]
            body = bz2.open(io.BufferedReader(_Range(part.path, part.start, part.end)))
            size = os.path.getsize(part.path)
            tail = [] if part.end >= size else [io.BytesIO(b"</mediawiki>\n")]
            stream = io.BufferedReader(_Chain([io.BytesIO(header), body, *tail]))  # type: ignore[list-item]
        return _with_siteinfo(stream, part.path)
    except (OSError, EOFError) as e:
        raise DumpError(f"{part.path} [bytes {part.start}:{part.end or 'end'}]: cannot read, truncated or "
                        f"corrupt ({e})") from e


def _local(tag: str) -> str:
    """An element's name without its XML namespace (``{http://www.mediawiki.org/xml/export-0.10/}page`` -> ``page``)."""
    return tag.rpartition("}")[2]


def _page(el) -> Page:
    """The :class:`Page` of a ``<page>`` element: its newest (last) revision's text and timestamp."""
    ns = pid = 0
    title = ""
    redirect = None
    text = ts = ""
    for child in el:
        tag = _local(child.tag)
        if tag == "title":
            title = child.text or ""
        elif tag == "ns":
            ns = int(child.text or 0)
        elif tag == "id":
            pid = int(child.text or 0)
        elif tag == "redirect":
            redirect = child.get("title")
        elif tag == "revision":
            text = ts = ""
            for r in child:
                rtag = _local(r.tag)
                if rtag == "text":
                    text = r.text or ""
                elif rtag == "timestamp":
                    ts = (r.text or "").strip()
    return Page(ns, pid, title, redirect, text, ts)


#: the bad pages of :func:`skipping_bad_pages` (None outside it: a bad page stops the read)
_BAD_PAGES: ContextVar[list[dict] | None] = ContextVar("figbench_bad_pages", default=None)


@contextmanager
def skipping_bad_pages() -> Iterator[list[dict]]:
    """Within it, :func:`iter_pages` reads a whole (non-multistream) file page by page and skips a page that is
    not well-formed XML (non-UTF-8 bytes, a bad tag, a ``<page>`` never closed), appending to the yielded list
    ``{"page": its number in the file, "title", "line": its first line in the decompressed XML, "error"}``. A
    file that cannot be decompressed to its end gets one entry (``"page": None``) naming the last page read:
    the pages after it are not read."""
    bad: list[dict] = []
    token = _BAD_PAGES.set(bad)
    try:
        yield bad
    finally:
        _BAD_PAGES.reset(token)


def _parse_pages(stream: IO[bytes], part: Partition) -> Iterator[Page]:
    """The pages of an XML export stream (expat errors propagate)."""
    from xml.etree.ElementTree import iterparse

    root = None
    for event, el in iterparse(stream, events=("start", "end")):
        if root is None:
            root = el
            if _local(el.tag) != "mediawiki":
                raise DumpError(f"{part.path}: not a MediaWiki XML export (root element <{_local(el.tag)}>)")
            continue
        if event == "end" and _local(el.tag) == "page":
            page = _page(el)
            root.clear()  # the page (and anything before it) is done: memory stays flat
            yield page


_TITLE = re.compile(r"<title>(.*?)</title>", re.S)


def _pages_one_by_one(part: Partition, bad: list[dict]) -> Iterator[Page]:
    """:func:`iter_pages` of a whole file under :func:`skipping_bad_pages`: each ``<page>...</page>`` of the
    decompressed text (markup cannot hold a literal ``<page>``: text is escaped) parsed on its own, after the
    file's header; undecodable bytes are kept as they are (surrogate escapes), so the parser sees them."""
    import html
    from xml.etree.ElementTree import ParseError

    stream = open_partition(part)
    enc = _encoding(stream.peek(4)[:4])  # type: ignore[attr-defined]
    errors = "surrogateescape" if enc == "utf-8" else "surrogatepass"  # UTF-16: lone surrogates kept
    text = io.TextIOWrapper(stream, encoding=enc, errors=errors, newline="")
    header, buf, line, number, last = None, "", 1, 0, None

    def read(page: str, first: int) -> list[Page]:
        data = (header + page + "</mediawiki>\n").encode(enc, errors)
        try:
            return list(_parse_pages(io.BytesIO(data), part))
        except (ParseError, ValueError) as e:
            m = _TITLE.search(page)
            bad.append({"page": number, "title": html.unescape(m.group(1)) if m else None, "line": first,
                        "error": f"{part.path}: page {number} (line {first}) is not well-formed: {_short(e)}"})
            return []

    try:
        while True:
            chunk = text.read(1 << 20)
            buf += chunk
            if header is None:
                cut = buf.find("<page>")
                if cut < 0 and chunk:
                    continue
                header, buf = buf[:max(cut, 0)], buf[max(cut, 0):]
                line += header.count("\n")
            pos = 0  # buf[pos:] is unread: a page's start, or what lies between pages (lines counted up to pos)
            while True:
                start = buf.find("<page>", pos)
                if start < 0:  # keep a marker cut by the chunk's end
                    keep = max(pos, len(buf) - len("<page>")) if chunk else len(buf)
                    line += buf.count("\n", pos, keep)
                    buf = buf[keep:]
                    break
                line += buf.count("\n", pos, start)
                end, after = buf.find("</page>", start), buf.find("<page>", start + 1)
                if 0 <= after and (end < 0 or after < end):  # never closed: up to the next page
                    end = after
                elif end >= 0:
                    end += len("</page>")
                elif chunk:
                    buf = buf[start:]  # the page goes on in the next chunk
                    break
                else:  # never closed: the end of the file
                    end = len(buf)
                page, pos, first = buf[start:end], end, line
                line += page.count("\n")
                number += 1
                for p in read(page, first):
                    last = p.title
                    yield p
            if not chunk:
                return
    except (OSError, EOFError, UnicodeDecodeError) as e:
        bad.append({"page": None, "title": None, "line": line,
                    "error": f"{part.path}: truncated or corrupt after page {number} ({last!r}, line {line} of the "
                             f"XML): the pages after it are not read: {_short(e)}"})
    finally:
        text.close()


def _short(e: BaseException) -> str:
    return " ".join(str(e).split()) or type(e).__name__


def iter_pages(part: Partition) -> Iterator[Page]:
    """Pages of a partition, one at a time (latest revision).

    Streamed with the standard library's expat-based ``iterparse`` (each ``<page>`` element is dropped once
    read, so memory stays flat); :mod:`mwxml` reads the same pages about twice as slowly (it is kept for the
    ``<siteinfo>``, and tests check both readers agree page for page). Under :func:`skipping_bad_pages` a whole
    file is read page by page instead, skipping (and listing) the bad ones.
    """
    from xml.etree.ElementTree import ParseError

    bad = _BAD_PAGES.get()
    if bad is not None and part.end == 0:
        yield from _pages_one_by_one(part, bad)
        return
    stream = open_partition(part)
    last = None
    try:
        for page in _parse_pages(stream, part):
            last = page.title
            yield page
    except (OSError, EOFError, ParseError, ValueError) as e:
        if isinstance(e, DumpError):
            raise
        raise DumpError(f"{part.path} [bytes {part.start}:{part.end or 'end'}]: truncated or corrupt "
                        f"after page {last!r}: {e}") from e
    finally:
        stream.close()


def site_name(part: Partition) -> str:
    """The dump's database name (``enwiki``) from its siteinfo."""
    import mwxml

    stream = open_partition(part)
    try:
        return mwxml.Dump.from_file(stream).site_info.dbname or Path(part.path).name.split("-", 1)[0]
    finally:
        stream.close()


def dump_date(path: str | Path) -> str | None:
    """The date in a dump file name (``enwiki-20240601-...`` -> ``2024-06-01``), or None (``latest``)."""
    m = re.search(r"-(\d{4})(\d{2})(\d{2})-", Path(path).name)
    return f"{m.group(1)}-{m.group(2)}-{m.group(3)}" if m else None


@dataclass
class Tally:
    """What :func:`articles` saw besides the articles: every page counted, the newest revision time, and
    the redirects of the article namespace (normalised title -> normalised target)."""

    pages: int = 0
    latest: str = ""
    redirects: dict[str, str] = field(default_factory=dict)


def articles(part: Partition, tally: Tally) -> Iterator[tuple[str, Page]]:
    """The article-namespace pages of a partition that are not redirects, with their normalised titles;
    every page is counted in ``tally``, and redirects are recorded there."""
    from figbench.harvest.wikitext import normalize_title

    for page in iter_pages(part):
        tally.pages += 1
        tally.latest = max(tally.latest, page.timestamp)
        if page.ns != 0:
            continue
        title = normalize_title(page.title)
        if page.redirect is not None:
            tally.redirects[title] = normalize_title(page.redirect)
            continue
        yield title, page
