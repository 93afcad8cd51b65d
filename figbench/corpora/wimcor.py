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

Files (:data:`FILES`): the release archive (read in place, not unpacked) and the ten sample files;
:func:`full_sources` and :func:`sample_paths` find them in the corpus folder or download them there.

Ids (issue 13): the parsers give each sample its original id (``{split}-{medium}-{line}`` for the
sample files, ``{split}-{n:06d}`` for the XML), which spells out the label or the file position.
The released splits carry opaque ids instead (:func:`sample_id_maker`, :func:`sample_splits`:
a hash of split, paragraph and PMW offsets), and the sample splits are ordered by id (the files are
grouped by label). :func:`original_ids` keeps the mapping; it is never a column.

Sample release: 7 test samples also occur in train (:func:`train_test_duplicates`); they are
dropped from the sample test split unless ``keep_train_duplicates``.
"""

from __future__ import annotations

import codecs
import html
import html.entities
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import IO
from xml.etree import ElementTree as ET

from figbench.corpora import files
from figbench.corpora.files import RemoteFile
from figbench.corpora.ids import IdMaker


def _quoteattr(value: str) -> str:
    """``xml.sax.saxutils.quoteattr``, imported on use (``xml.sax`` imports ``urllib``: slow CLI start)."""
    from xml.sax.saxutils import quoteattr

    return quoteattr(value)


CORPUS = "wimcor"
#: Label sets (the builder's ``ClassLabel`` names, in id order). Medium labels in class-index order
#: (index 0 = literal), as in the WiMCor baselines.
MEDIUM_LABELS: tuple[str, ...] = ("LOCATION", "INSTITUTE", "TEAM", "ARTIFACT", "EVENT")
COARSE_LABELS: tuple[str, ...] = ("literal", "metonymic")
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
            out.append(f"{name}={_quoteattr(html.unescape(value))}")
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
        raise WimcorFormatError(f"{where}: unknown medium label {medium!r} "
                                f"(expected one of {', '.join(MEDIUM_LABELS)})")
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
            f.write(f"<sample>{escape(s.text[:s.pmw_start])}<pmw coarse={_quoteattr(coarse)} "
                    f"medium={_quoteattr(s.medium)} fine={_quoteattr(s.fine)}>{escape(s.pmw)}</pmw>"
                    f"{escape(s.text[s.pmw_end:])}</sample>\n")
        f.write(f"</{_ROOT}>\n")


# --------------------------------------------------------------------------------------------
# files: the release archive and the sample files

#: The v1.1 release archive. Its sha256 is not known here (no copy was available); see the card.
RELEASE_URL = "https://kevinalexmathews.github.io/files/wimcor-v1.1.tar.gz"
RELEASE_SHA256: str | None = None

_SAMPLE_URL = "https://raw.githubusercontent.com/nlpAThits/WiMCor/22ce1f93b5e3a6cec83bad386f52438cf8f1feb1/glove/sample_data/"
#: sha256 of the sample files, computed from the copies in ../shared/data/wimcor.
SAMPLE_SHA256 = {
    "wiki_ARTIFACT_test.txt": "95bc9ec500a751786268dbf399e39a4c7e6f410f342ed8544c4ac260185cd439",
    "wiki_ARTIFACT_train.txt": "baa85ffbb66f13b51416426a1d51fd7ca9a5c8a6341e8ad27218dacb83961678",
    "wiki_EVENT_test.txt": "e954a1a028a770b7eafe75f480123c05cb60e0c4d635a3b68c6a928602207a9a",
    "wiki_EVENT_train.txt": "3e4e1962ae20f127264868006ee5ff50749a1f99c6536cd27c8362ed0bfde628",
    "wiki_INSTITUTE_test.txt": "75a8eebdd40934cde65a5af3689145f66f2e00fbf63225230d3edc10a743e396",
    "wiki_INSTITUTE_train.txt": "9e18647d6474cf53e2d8aa7df4619ec61ad138fe7a60a56a8d98028bbee0d688",
    "wiki_LOCATION_test.txt": "1b1bf83416db80be6408639cc2141100eadc95a7964f26e60cf5e225d1c783fa",
    "wiki_LOCATION_train.txt": "26ee6d1f2f3aaa23d9bb2e4507f11ac591752645d07b4917d33e900baae58a9b",
    "wiki_TEAM_test.txt": "16c2269e9b28450a767f1298d986ff1265ee8dcd06cb5d7e532945d0e1494845",
    "wiki_TEAM_train.txt": "51db95a35c257a25b492831532c66ba2d1990a68122e6a2f2ec4852cde978c6d",
}

RELEASE_FILE = RemoteFile(RELEASE_ARCHIVE, RELEASE_URL, RELEASE_SHA256,
                          description="the v1.1 release (XML partitions), read in place")
SAMPLE_FILES: tuple[RemoteFile, ...] = tuple(
    RemoteFile(name, _SAMPLE_URL + name, SAMPLE_SHA256.get(name), description="a sample file")
    for split in SAMPLE_SPLITS for name in sample_files(split).values())
#: Every downloadable file: the release archive and the ten sample files.
FILES: tuple[RemoteFile, ...] = (RELEASE_FILE, *SAMPLE_FILES)


def full_sources(root: Path, *, data_dir: str | None = None, download: bool | None = None) -> dict[str, dict[str, str]]:
    """Where each partition of the ``full`` config is read from: ``{"path": xml}`` or ``{"archive": tar.gz}``.

    The extracted partitions (any accepted layout) win; else the release archive in ``root``, which is
    downloaded there when missing and allowed. Otherwise one :class:`~figbench.corpora.files.MissingDataError`
    lists the archive and the partition files it looked for.
    """
    root = Path(root)
    found = {s: find_partition(root, s) for s in PARTITION_FILES}
    if all(found.values()):
        return {s: {"path": str(p)} for s, p in found.items()}
    partitions = "\n".join(f"  - {root / RELEASE_XML_DIR / PARTITION_FILES[s]}" for s, p in found.items() if p is None)
    hint = (f"Instead of the archive, the extracted partitions are read when all three are there:\n{partitions}\n"
            f"(also accepted under {root / 'dataset/xml'} or directly in {root}). Offline, the sample files load "
            "with the 'sample' config.")
    archive = files.resolve(CORPUS, root, [RELEASE_FILE], data_dir=data_dir, download=download, hint=hint)
    return {s: {"archive": str(archive[RELEASE_ARCHIVE])} for s in PARTITION_FILES}


def sample_paths(root: Path, *, data_dir: str | None = None, download: bool | None = None) -> dict[str, Path]:
    """Sample file name -> local path (downloaded into ``root`` when missing and allowed)."""
    return files.resolve(CORPUS, root, SAMPLE_FILES, data_dir=data_dir, download=download,
                         hint="The 'sample' config reads the sample files "
                              "wiki_{ARTIFACT,EVENT,INSTITUTE,LOCATION,TEAM}_{train,test}.txt.")


def read_samples(paths: dict[str, Path]) -> dict[str, list[WimcorSample]]:
    """The parsed sample files per split (``train``, ``test``); bad input raises naming file and line."""
    return {split: [s for m, n in sample_files(split).items() for s in iter_sample_file(paths[n], m, split)]
            for split in SAMPLE_SPLITS}


def check_validation_fraction(fraction: float) -> float:
    """``fraction`` as a float in [0, 1); ValueError otherwise."""
    fraction = float(fraction)
    if not 0.0 <= fraction < 1.0:
        raise ValueError(f"wimcor: validation_fraction must be in [0, 1), got {fraction}")
    return fraction


def validation_ids(train: list[WimcorSample], fraction: float, seed: int) -> set[str]:
    """Seeded, per-medium random choice of ``round(n * fraction)`` train samples (the carved validation split)."""
    import random

    check_validation_fraction(fraction)
    chosen: set[str] = set()
    for index, medium in enumerate(MEDIUM_LABELS):
        ids = [s.id for s in train if s.medium == medium]
        k = round(len(ids) * fraction)
        chosen.update(random.Random(seed * 1000 + index).sample(ids, k))
    return chosen


# --------------------------------------------------------------------------------------------
# released splits: opaque ids, train/test duplicates of the sample release


def sample_id_maker(source: str, split: str) -> Callable[[WimcorSample], str]:
    """Opaque ids of the samples of one original split, called in file order (repeats are numbered).

    The id hashes ``wimcor``, the source (``sample``/``full``), the original split, the paragraph
    and the PMW offsets; never the label, the file or the position.
    """
    make = IdMaker(f"wimcor {source} {split}")
    return lambda s: make(CORPUS, source, split, s.text, s.pmw_start, s.pmw_end)


def with_opaque_ids(samples: list[WimcorSample], source: str, split: str) -> list[WimcorSample]:
    """Copies of the samples of one original split (in file order) with their opaque ids."""
    make = sample_id_maker(source, split)
    return [replace(s, id=make(s)) for s in samples]


def duplicate_key(sample: WimcorSample) -> tuple[str, int, int]:
    """What makes two samples the same example: the paragraph and the PMW offsets in it."""
    return sample.text, sample.pmw_start, sample.pmw_end


def train_test_duplicates(parsed: dict[str, list[WimcorSample]]) -> list[tuple[WimcorSample, list[WimcorSample]]]:
    """Test samples whose paragraph and PMW offsets occur in train, each with its train copies, in test order.

    (On the sample release comparing the paragraph alone, or the paragraph with whitespace and
    case normalised, finds the same 7 samples.)
    """
    train: dict[tuple, list[WimcorSample]] = {}
    for s in parsed["train"]:
        train.setdefault(duplicate_key(s), []).append(s)
    return [(s, train[duplicate_key(s)]) for s in parsed["test"] if duplicate_key(s) in train]


def sample_splits(parsed: dict[str, list[WimcorSample]], *, validation_fraction: float = 0.0, seed: int = 0,
                  keep_train_duplicates: bool = False) -> dict[str, list[WimcorSample]]:
    """The released splits of the sample configs: opaque ids, ordered by id.

    ``parsed``: :func:`read_samples` (original ids, file order). Test samples that also occur in
    train are dropped unless ``keep_train_duplicates``; a validation split is carved from train
    (:func:`validation_ids`, on the original ids, so the same samples as before are chosen) when
    ``validation_fraction`` > 0. Ids do not depend on these options: a sample has the same id in
    every sample config.
    """
    fraction = check_validation_fraction(validation_fraction)
    drop = set() if keep_train_duplicates else {id(s) for s, _ in train_test_duplicates(parsed)}
    renamed = {split: with_opaque_ids(parsed[split], "sample", split) for split in SAMPLE_SPLITS}
    test = [new for old, new in zip(parsed["test"], renamed["test"]) if id(old) not in drop]
    splits = {"train": renamed["train"], "test": test}
    if fraction:
        held_out = validation_ids(parsed["train"], fraction, int(seed))
        pairs = list(zip(parsed["train"], renamed["train"]))
        splits = {"train": [n for o, n in pairs if o.id not in held_out],
                  "validation": [n for o, n in pairs if o.id in held_out], "test": test}
    return {split: sorted(rows, key=lambda s: s.id) for split, rows in splits.items()}


def original_ids(source: str = "sample", root: str | os.PathLike | None = None, *, data_dir: str | None = None,
                 download: bool | None = None) -> dict[str, str]:
    """Opaque id -> original id for every sample of the ``sample`` files or the ``full`` partitions.

    Original ids: ``{split}-{medium}-{line:04d}`` (sample files: file and line) and ``{split}-{n:06d}``
    (full: position in the partition file). The mapping is kept here, never released as a column.
    """
    from figbench.paths import corpus_dir

    folder = Path(root) if root is not None else corpus_dir(CORPUS, data_dir)
    out: dict[str, str] = {}
    if source == "sample":
        parsed = read_samples(sample_paths(folder, data_dir=data_dir, download=download))
        for split in SAMPLE_SPLITS:
            renamed = with_opaque_ids(parsed[split], source, split)
            out.update({new.id: old.id for old, new in zip(parsed[split], renamed)})
        return out
    if source != "full":
        raise ValueError(f"wimcor: unknown source {source!r} (expected 'full' or 'sample')")
    for split, where in full_sources(folder, data_dir=data_dir, download=download).items():
        stream = (iter_xml_samples(where["path"], id_prefix=f"{split}-") if "path" in where
                  else iter_archive_partition(where["archive"], split, id_prefix=f"{split}-"))
        make = sample_id_maker("full", split)
        out.update({make(s): s.id for s in stream})
    return out
