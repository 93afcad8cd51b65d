"""Readers for WiMCor (Mathews & Strube, LREC 2020): the v1.1 XML partitions and the sample files.

Full corpus (``wimcor-v1.1/dataset/xml/{train,val,test}-partition.xml``): one ``<sample>`` per
line holding a paragraph with one ``<pmw coarse='lit|met' medium='..' fine='..'>surface</pmw>``.
:func:`iter_xml_samples` stream-parses it with :class:`xml.etree.ElementTree.XMLPullParser`, reading
fixed-size chunks and clearing every finished element, so memory does not grow with the file.

The published XML is not strictly well-formed (third-party loaders report bare ``&``, stray
``<``/``>`` and tags glued to words and "repair" it before parsing). Before parsing, each chunk
gets these unambiguous repairs, each counted in a :class:`ParseReport`: bare ``&`` becomes
``&amp;``, HTML named entities become their characters, a ``<`` that cannot start markup becomes
``&lt;``, and ``<pmw>`` attributes are re-quoted (a Wikipedia title such as ``King's College``
inside ``fine='...'`` breaks single quoting). Real tags other than ``sample``/``pmw`` (and the root),
truncated files and other syntax errors raise :class:`WimcorFormatError` naming file and line.

Sample files (``wiki_{MEDIUM}_{split}.txt``): ``Target<SEP>paragraph with <ENT>Target<ENT>``; the
medium label comes from the file name and there is no fine label.
"""

from __future__ import annotations

import codecs
import html
import html.entities
import os
import re
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO
from xml.etree import ElementTree as ET
from xml.sax.saxutils import quoteattr

#: Medium labels in class-index order (index 0 = literal), as in the WiMCor baselines.
MEDIUM_LABELS = ("LOCATION", "INSTITUTE", "TEAM", "ARTIFACT", "EVENT")
COARSE_LABELS = ("literal", "metonymic")
_COARSE_ALIASES = {"lit": "literal", "literal": "literal", "met": "metonymic", "metonymic": "metonymic"}

#: Partition files of the v1.1 release and their published sizes.
PARTITION_FILES = {"train": "train-partition.xml", "validation": "val-partition.xml", "test": "test-partition.xml"}
PARTITION_SIZES = {"train": 123_600, "validation": 41_200, "test": 41_200}
#: Folder of the partitions inside the extracted release archive.
RELEASE_XML_DIR = "wimcor-v1.1/dataset/xml"
RELEASE_ARCHIVE = "wimcor-v1.1.tar.gz"

SAMPLE_SPLITS = ("train", "test")
SAMPLE_FILE_PATTERN = "wiki_{medium}_{split}.txt"

_ROOT = "wimcor"
_XML_ENTITIES = {"amp", "lt", "gt", "quot", "apos"}
_ENTITY = re.compile(r"&(#[0-9]+;|#[xX][0-9A-Fa-f]+;|[A-Za-z][A-Za-z0-9]*;?)?")
_STRAY_LT = re.compile(r"<(?![A-Za-z_/?!])")
_PMW_TAG = re.compile(r"<pmw\b([^<>]*)>")
#: A ``<pmw>`` attribute list that needs no repair (fast path).
_GOOD_ATTRS = re.compile(r"""(?:\s+[A-Za-z_][\w.-]*\s*=\s*(?:'[^'<&]*'|"[^"<&]*"))*\s*""")
_ATTR = re.compile(r"""([A-Za-z_][\w.-]*)\s*=\s*(["'])(.*?)\2(?=\s+[A-Za-z_][\w.-]*\s*=|\s*/?\s*$)""", re.S)
_PROLOG = re.compile(r"\A(\ufeff)?(\s*(<\?xml[^>]*\?>)?(\s*<!--.*?-->)*\s*)", re.S)


class WimcorFormatError(ValueError):
    """A WiMCor file is malformed; the message names the file and the line or record."""


@dataclass
class ParseReport:
    """What a parse repaired or noticed in the original data (reported in the dataset card)."""

    samples: int = 0
    bare_ampersands: int = 0
    html_entities: int = 0
    stray_brackets: int = 0
    requoted_attributes: int = 0
    glued_pmw: int = 0
    trimmed_pmw: int = 0
    missing_fine: int = 0
    inconsistent_labels: int = 0
    extra: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(slots=True)
class WimcorSample:
    """One example: ``text[pmw_start:pmw_end] == pmw``."""

    id: str
    text: str
    pmw: str
    pmw_start: int
    pmw_end: int
    coarse: str
    medium: str
    fine: str

    def to_example(self) -> dict:
        return {"id": self.id, "text": self.text, "pmw": self.pmw, "pmw_start": self.pmw_start,
                "pmw_end": self.pmw_end, "coarse": self.coarse, "medium": self.medium, "fine": self.fine}


def coarse_for_medium(medium: str) -> str:
    """WiMCor's coarse level: LOCATION is literal, the other medium classes metonymic."""
    return "literal" if medium == "LOCATION" else "metonymic"


# --------------------------------------------------------------------------------------------
# repairs of the raw XML text


def _repair_entities(text: str, report: ParseReport) -> str:
    def fix(m: re.Match) -> str:
        ref = m.group(1)
        if ref is None or not ref.endswith(";"):
            report.bare_ampersands += 1
            return "&amp;" + (ref or "")
        if ref.startswith("#") or ref[:-1] in _XML_ENTITIES:
            return m.group(0)
        char = html.entities.html5.get(ref)
        if char is None:
            report.bare_ampersands += 1
            return "&amp;" + ref
        report.html_entities += 1
        return char.replace("&", "&amp;").replace("<", "&lt;")

    return _ENTITY.sub(fix, text)


def _requote_pmw(text: str, report: ParseReport) -> str:
    def fix(m: re.Match) -> str:
        if _GOOD_ATTRS.fullmatch(m.group(1)):
            return m.group(0)
        inner = m.group(1).strip()
        attrs = _ATTR.findall(inner)
        if not attrs:
            return m.group(0)  # the parser reports it
        out = []
        for name, quote, value in attrs:
            if quote in value:
                report.requoted_attributes += 1
            out.append(f"{name}={quoteattr(html.unescape(value))}")
        return "<pmw " + " ".join(out) + ">"

    return _PMW_TAG.sub(fix, text)


def _repair(text: str, report: ParseReport) -> str:
    text = _requote_pmw(text, report)
    text = _repair_entities(text, report)
    n = len(_STRAY_LT.findall(text))
    if n:
        report.stray_brackets += n
        text = _STRAY_LT.sub("&lt;", text)
    return text


def _repaired_chunks(stream: IO[bytes], name: str, report: ParseReport, chunk_size: int,
                     max_record: int) -> Iterator[str]:
    """Decoded, repaired text cut at line ends, wrapped in a root element when the file has none."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    buffer = ""
    first = True
    wrapped = False
    offset = 0
    while True:
        raw = stream.read(chunk_size)
        try:
            buffer += decoder.decode(raw, final=not raw)
        except UnicodeDecodeError as e:
            raise WimcorFormatError(f"{name}: not valid UTF-8 near byte {offset + e.start}: {e.reason}") from None
        offset += len(raw)
        if first:
            # Decide on a synthetic root once the first element is in view (or at 64 KiB / EOF).
            if raw and "<sample" not in buffer and len(buffer) < (64 << 10):
                continue
            m = _PROLOG.match(buffer)
            rest = buffer[m.end():]
            prolog = m.group(2) or ""
            wrapped = rest.startswith("<sample")
            buffer = prolog + (f"<{_ROOT}>" if wrapped else "") + rest  # also drops a BOM
            first = False
        if raw:
            cut = buffer.rfind("\n") + 1
            if cut == 0:
                if len(buffer) > max_record:
                    raise WimcorFormatError(f"{name}: no line break in {len(buffer):,} characters near byte "
                                            f"{offset}; one sample per line expected")
                continue
            piece, buffer = buffer[:cut], buffer[cut:]
            yield _repair(piece, report)
        else:
            if buffer:
                yield _repair(buffer, report)
            if wrapped:
                yield f"</{_ROOT}>"
            return


# --------------------------------------------------------------------------------------------
# the streaming XML parser


def _open_binary(source: str | os.PathLike | IO[bytes]) -> tuple[IO[bytes], str, bool]:
    if isinstance(source, (str, os.PathLike)):
        return open(source, "rb"), str(source), True
    return source, getattr(source, "name", "<stream>"), False


def _build_sample(elem: ET.Element, sample_id: str, where: str, report: ParseReport) -> WimcorSample:
    children = list(elem)
    for child in children:
        if child.tag != "pmw":
            raise WimcorFormatError(f"{where}: unknown tag <{child.tag}> inside <sample> (only <pmw> is allowed)")
        if len(child):
            raise WimcorFormatError(f"{where}: unknown tag <{child[0].tag}> inside <pmw>")
    if len(children) != 1:
        raise WimcorFormatError(f"{where}: a sample needs exactly one <pmw>, found {len(children)}")
    pmw = children[0]
    coarse_raw, medium, fine = pmw.get("coarse"), pmw.get("medium"), pmw.get("fine")
    if coarse_raw is None or medium is None:
        raise WimcorFormatError(f"{where}: <pmw> lacks the 'coarse' or 'medium' attribute ({dict(pmw.attrib)})")
    coarse = _COARSE_ALIASES.get(coarse_raw.strip().lower())
    if coarse is None:
        raise WimcorFormatError(f"{where}: unknown coarse label {coarse_raw!r} (expected lit or met)")
    medium = medium.strip().upper()
    if medium not in MEDIUM_LABELS:
        raise WimcorFormatError(f"{where}: unknown medium label {medium!r} (expected one of {', '.join(MEDIUM_LABELS)})")
    if fine is None:
        report.missing_fine += 1
        fine = ""
    if coarse != coarse_for_medium(medium):
        report.inconsistent_labels += 1
    left, surface, right = elem.text or "", pmw.text or "", pmw.tail or ""
    core = surface.strip()
    if not core:
        raise WimcorFormatError(f"{where}: empty <pmw>")
    if core != surface:
        report.trimmed_pmw += 1
        lead = surface[: len(surface) - len(surface.lstrip())]
        left, right = left + lead, surface[len(lead) + len(core):] + right
    left = left.lstrip()
    if left and left[-1].isalnum() and core[0].isalnum():
        report.glued_pmw += 1
        left += " "
    right = right.rstrip()
    start = len(left)
    return WimcorSample(id=sample_id, text=left + core + right, pmw=core, pmw_start=start,
                        pmw_end=start + len(core), coarse=coarse, medium=medium, fine=fine.strip())


def iter_xml_samples(source: str | os.PathLike | IO[bytes], *, name: str | None = None,
                     id_prefix: str = "", report: ParseReport | None = None,
                     chunk_size: int = 1 << 20, max_record: int = 64 << 20) -> Iterator[WimcorSample]:
    """Stream the samples of one WiMCor XML file (a path or a binary file object).

    Ids are ``f"{id_prefix}{n:06d}"`` with ``n`` the 1-based position of the sample in the file.
    ``report`` (optional) receives the repair counts. Memory is bounded by ``chunk_size`` plus
    the longest line (at most ``max_record`` characters).
    """
    report = report if report is not None else ParseReport()
    stream, label, close = _open_binary(source)
    label = name or label
    parser = ET.XMLPullParser(events=("start", "end"))
    root: ET.Element | None = None
    depth = 0
    n = 0
    try:
        for chunk in _repaired_chunks(stream, label, report, chunk_size, max_record):
            try:
                parser.feed(chunk)
                events = list(parser.read_events())
            except ET.ParseError as e:
                line, col = e.position
                raise WimcorFormatError(f"{label}: not well-formed XML at line {line}, column {col} "
                                        f"(after sample {n}): {e}") from None
            for event, elem in events:
                if event == "start":
                    depth += 1
                    if depth == 1:
                        root = elem
                    elif depth == 2 and elem.tag != "sample":
                        raise WimcorFormatError(f"{label}: unknown tag <{elem.tag}> after sample {n} "
                                                f"(expected <sample>)")
                    continue
                depth -= 1
                if depth == 1:
                    n += 1
                    yield _build_sample(elem, f"{id_prefix}{n:06d}", f"{label}: sample {n}", report)
                    report.samples += 1
                    root.clear()
        try:
            parser.close()
        except ET.ParseError as e:
            line, col = e.position
            raise WimcorFormatError(f"{label}: truncated or not well-formed XML at line {line}, column {col} "
                                    f"(after sample {n}): {e}") from None
        if root is None:
            raise WimcorFormatError(f"{label}: no XML content")
    finally:
        if close:
            stream.close()


def find_partition(root: Path, split: str) -> Path | None:
    """The partition file of ``split`` under a corpus folder, in any of the accepted layouts."""
    filename = PARTITION_FILES[split]
    for candidate in (root / RELEASE_XML_DIR / filename, root / "dataset" / "xml" / filename, root / filename):
        if candidate.is_file():
            return candidate
    return None


def iter_archive_partition(archive: str | os.PathLike, split: str, **kwargs) -> Iterator[WimcorSample]:
    """Stream one partition straight out of the ``wimcor-v1.1.tar.gz`` release archive."""
    import tarfile

    member_name = f"{RELEASE_XML_DIR}/{PARTITION_FILES[split]}"
    with tarfile.open(archive, "r:*") as tar:
        try:
            member = tar.getmember(member_name)
        except KeyError:
            raise WimcorFormatError(f"{archive}: archive has no member {member_name}") from None
        fileobj = tar.extractfile(member)
        if fileobj is None:
            raise WimcorFormatError(f"{archive}: {member_name} is not a regular file")
        kwargs.setdefault("name", f"{archive}!{member_name}")
        yield from iter_xml_samples(fileobj, **kwargs)


# --------------------------------------------------------------------------------------------
# the sample files


def parse_sample_line(line: str, where: str, sample_id: str, medium: str) -> WimcorSample:
    """One ``Target<SEP>paragraph with <ENT>Target<ENT>`` line as a sample (no fine label)."""
    if line.count("<SEP>") != 1:
        raise WimcorFormatError(f"{where}: expected one <SEP>, found {line.count('<SEP>')}")
    target, _, paragraph = line.partition("<SEP>")
    if paragraph.count("<ENT>") != 2:
        raise WimcorFormatError(f"{where}: expected two <ENT> markers, found {paragraph.count('<ENT>')}")
    left, surface, right = paragraph.split("<ENT>")
    if not surface.strip():
        raise WimcorFormatError(f"{where}: empty entity between <ENT> markers")
    if surface.strip() != target.strip():
        raise WimcorFormatError(f"{where}: target {target!r} differs from the marked entity {surface!r}")
    core = surface.strip()
    lead = surface[: len(surface) - len(surface.lstrip())]
    left = (left + lead).lstrip()
    right = (surface[len(lead) + len(core):] + right).rstrip()
    return WimcorSample(id=sample_id, text=left + core + right, pmw=core, pmw_start=len(left),
                        pmw_end=len(left) + len(core), coarse=coarse_for_medium(medium), medium=medium, fine="")


def iter_sample_file(path: str | os.PathLike, medium: str, split: str) -> Iterator[WimcorSample]:
    """Samples of one ``wiki_{MEDIUM}_{split}.txt`` file; ids ``{split}-{medium}-{line:04d}``."""
    medium = medium.upper()
    if medium not in MEDIUM_LABELS:
        raise WimcorFormatError(f"{path}: unknown medium label {medium!r}")
    with open(path, encoding="utf-8", newline="") as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\r\n")
            if not line.strip():
                raise WimcorFormatError(f"{path}: line {lineno} is empty")
            yield parse_sample_line(line, f"{path}: line {lineno}", f"{split}-{medium.lower()}-{lineno:04d}", medium)


def sample_files(split: str) -> dict[str, str]:
    """Medium label -> sample file name for a split of the sample data."""
    return {m: SAMPLE_FILE_PATTERN.format(medium=m, split=split) for m in MEDIUM_LABELS}


def write_xml(samples, path: str | os.PathLike, *, coarse_codes: bool = True) -> None:
    """Write samples as a WiMCor-style XML file (one ``<sample>`` per line), for fixtures and benchmarks."""
    from xml.sax.saxutils import escape

    with open(path, "w", encoding="utf-8") as f:
        f.write(f"<?xml version='1.0' encoding='utf-8'?>\n<{_ROOT}>\n")
        for s in samples:
            coarse = {"literal": "lit", "metonymic": "met"}[s.coarse] if coarse_codes else s.coarse
            f.write(f"<sample>{escape(s.text[:s.pmw_start])}<pmw coarse={quoteattr(coarse)} "
                    f"medium={quoteattr(s.medium)} fine={quoteattr(s.fine)}>{escape(s.pmw)}</pmw>"
                    f"{escape(s.text[s.pmw_end:])}</sample>\n")
        f.write(f"</{_ROOT}>\n")
