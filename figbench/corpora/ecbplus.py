"""ECB+ (Cybulska & Vossen 2014) reading: the XML parser, the validated sentences, the standard splits.

Shared by the ``ecbplus`` and ``ecbmeta`` builders and reusable by baselines::

    from figbench.corpora import ecbplus as ecb_io
    doc = ecb_io.parse_ecb_document("ECB+/1/1_10ecb.xml")
    docs = ecb_io.parse_ecb_corpus(root / "ECB+")              # all 982 documents
    validated = ecb_io.read_coref_sentences(root / ecb_io.SENTENCES_CSV)
    rows = ecb_io.mention_rows(doc, "event", sentences=validated)

Conventions (checked against the published counts of the standard setup; see the ``ecbplus`` card):

* mention ids are ``<doc_id>_<m_id>`` with ``doc_id`` the file stem (``12_10ecb``); the llms_coref /
  lemma_ce_coref ids (``12_10ecb.xml_5``) convert with :func:`llms_coref_mention_id`;
* event mentions are the ``ACTION_*`` and ``NEG_ACTION_*`` markables, entity mentions the
  ``HUMAN_PART*``, ``NON_HUMAN_PART*``, ``LOC_*`` and ``TIME_*`` ones;
* a mention in a ``CROSS_DOC_COREF`` relation gets the relation's ``note`` (the instance id, e.g.
  ``ACT16236402809085484``) as cluster id, one in an ``INTRA_DOC_COREF`` relation
  ``INTRA_<doc_id>_<r_id>``, any other mention is a singleton ``Singleton_<mention_id>``;
* token offsets are sentence-relative (``token_end`` exclusive) and span the first to the last
  token of the markable (markables can be discontinuous: ``text`` joins only the marked tokens);
* the head is, without a parser, the first content token (not a spaCy stop word nor punctuation)
  of an event markable and the last content token of an entity markable (verbal event triggers
  are head-initial, "checked into", "took place"; noun phrases head-final, "the 33-year-old
  actress"); the head lemma comes from spaCy's English lookup table (:mod:`figbench.corpora.lemmas`,
  the form as written, then lower-cased), lower-cased.
"""

from __future__ import annotations

import csv
import functools
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from figbench.corpora import files
from figbench.corpora.files import MissingDataError, RemoteFile
from figbench.corpora.lemmas import lookup_lemma

#: Topic folders of ECB+ (15 and 17 do not exist).
ALL_TOPICS: tuple[int, ...] = tuple(t for t in range(1, 46) if t not in (15, 17))
#: Standard split of Cybulska & Vossen (2015), used by Barhom et al. 2019, Held et al. 2021, Ahmed et al. 2023.
DEV_TOPICS: tuple[int, ...] = (2, 5, 12, 18, 21, 23, 34, 35)
TEST_TOPICS: tuple[int, ...] = tuple(range(36, 46))
TRAIN_TOPICS: tuple[int, ...] = tuple(t for t in ALL_TOPICS if t not in DEV_TOPICS and t not in TEST_TOPICS)
SPLIT_TOPICS: dict[str, tuple[int, ...]] = {"train": TRAIN_TOPICS, "validation": DEV_TOPICS, "test": TEST_TOPICS}

#: Paths inside the ``ecbplus`` corpus folder.
XML_DIR = "ECB+"
SENTENCES_CSV = "ECB+/ECBplus_coreference_sentences.csv"
DEV_SMALL_DOCS = "dev_small_docs.txt"
#: Number of XML documents of the release.
N_DOCUMENTS = 982
#: Case rule of ECB+ head lemmas (:mod:`figbench.corpora.lemmas`): the form as written, then lower-cased.
ECB_LEMMA_CASE = "exact_then_lower"

_ACTION_KINDS = ("OCCURRENCE", "PERCEPTION", "REPORTING", "ASPECTUAL", "STATE", "CAUSATIVE", "GENERIC")
EVENT_TAGS = frozenset(
    [f"ACTION_{k}" for k in _ACTION_KINDS] + [f"NEG_ACTION_{k}" for k in _ACTION_KINDS]
)
ENTITY_TAGS = frozenset(
    {
        "HUMAN_PART", "HUMAN_PART_PER", "HUMAN_PART_ORG", "HUMAN_PART_GPE", "HUMAN_PART_FAC",
        "HUMAN_PART_VEH", "HUMAN_PART_MET", "HUMAN_PART_GENERIC",
        "NON_HUMAN_PART", "NON_HUMAN_PART_GENERIC",
        "LOC_GEO", "LOC_FAC", "LOC_OTHER",
        "TIME_DATE", "TIME_OF_THE_DAY", "TIME_DURATION", "TIME_REPETITION",
    }
)
#: Tags only used for instance (cluster) markables without tokens.
INSTANCE_TAGS = frozenset({"UNKNOWN_INSTANCE_TAG"})
MARKABLE_TAGS = EVENT_TAGS | ENTITY_TAGS | INSTANCE_TAGS
RELATION_TAGS = frozenset({"CROSS_DOC_COREF", "INTRA_DOC_COREF"})

_FILE_RE = re.compile(r"^(\d+)_(\d+)(ecb|ecbplus)\.xml$")


class EcbFormatError(ValueError):
    """An ECB+ file (or the validated-sentences CSV) is malformed; the message names file and record."""


@dataclass(frozen=True)
class Token:
    t_id: int
    sentence: int
    number: int
    text: str


@dataclass(frozen=True)
class Markable:
    m_id: str
    tag: str
    t_ids: tuple[int, ...]
    instance_id: str = ""
    descriptor: str = ""

    @property
    def mention_class(self) -> str:
        return "event" if self.tag in EVENT_TAGS else "entity"


@dataclass(frozen=True)
class Relation:
    kind: str  # CROSS_DOC_COREF | INTRA_DOC_COREF
    r_id: str
    note: str
    sources: tuple[str, ...]
    target: str


@dataclass
class EcbDocument:
    """One parsed ECB+ XML file."""

    path: Path
    doc_id: str  # file stem, e.g. "1_10ecb"
    topic: str  # "1"
    subtopic: str  # "1ecb" / "1ecbplus"
    tokens: list[Token]
    markables: dict[str, Markable]
    relations: list[Relation]
    _by_tid: dict[int, Token] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._by_tid = {t.t_id: t for t in self.tokens}

    def token(self, t_id: int) -> Token:
        return self._by_tid[t_id]

    @property
    def sentences(self) -> dict[int, list[Token]]:
        """Tokens grouped by sentence number, in document order."""
        out: dict[int, list[Token]] = {}
        for t in self.tokens:
            out.setdefault(t.sentence, []).append(t)
        return out

    def mentions(self, mention_class: str | None = None) -> list[Markable]:
        """Markables anchored to tokens (optionally only ``"event"`` or ``"entity"`` ones), by first token."""
        ms = [m for m in self.markables.values() if m.t_ids and m.tag not in INSTANCE_TAGS]
        if mention_class is not None:
            ms = [m for m in ms if m.mention_class == mention_class]
        return sorted(ms, key=lambda m: (m.t_ids[0], m.t_ids[-1], int(m.m_id) if m.m_id.isdigit() else 0))

    def cluster_ids(self) -> dict[str, str]:
        """Cluster id of every token-anchored markable (see module docstring for the convention)."""
        out: dict[str, str] = {}
        for rel in self.relations:
            if rel.kind == "CROSS_DOC_COREF":
                cid = rel.note or self.markables[rel.target].instance_id
                if not cid:
                    raise EcbFormatError(f"{self.path}: CROSS_DOC_COREF r_id={rel.r_id} "
                                         "has no note nor target instance_id")
            else:
                cid = f"INTRA_{self.doc_id}_{rel.r_id}"
            for m in rel.sources:
                # A mention in two relations keeps the first (does not occur in the release).
                out.setdefault(m, cid)
        for m in self.mentions():
            out.setdefault(m.m_id, f"Singleton_{self.doc_id}_{m.m_id}")
        return out


def doc_key(path: str | Path) -> tuple[str, str, str]:
    """``(doc_id, topic, subtopic)`` of an ECB+ file name such as ``1_10ecbplus.xml``."""
    name = Path(path).name
    m = _FILE_RE.match(name)
    if not m:
        raise EcbFormatError(f"{path}: not an ECB+ document file name (<topic>_<n>ecb[plus].xml)")
    return name[: -len(".xml")], m.group(1), m.group(1) + m.group(3)


def llms_coref_mention_id(mention_id: str) -> str:
    """``12_10ecb_5`` -> ``12_10ecb.xml_5`` (ids of ahmeshaf/llms_coref, lemma_ce_coref, ecb_meta_analysis.xlsx)."""
    doc, _, m_id = mention_id.rpartition("_")
    return f"{doc}.xml_{m_id}"


def from_llms_coref_mention_id(mention_id: str) -> str:
    """Inverse of :func:`llms_coref_mention_id`."""
    return mention_id.replace(".xml_", "_", 1)


def _int_attr(elem: ET.Element, name: str, path: Path, what: str) -> int:
    value = elem.get(name)
    try:
        return int(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise EcbFormatError(f"{path}: {what} has a missing or non-integer {name}={value!r}") from None


def parse_ecb_document(path: str | Path) -> EcbDocument:
    """Parse one ECB+ XML file; raise :class:`EcbFormatError` (a ValueError) naming file and record on bad input."""
    path = Path(path)
    doc_id, topic, subtopic = doc_key(path)
    tokens: list[Token] = []
    seen_tids: set[int] = set()
    markables: dict[str, Markable] = {}
    relations: list[Relation] = []
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        raise EcbFormatError(f"{path}: malformed XML ({e})") from None
    except OSError as e:
        raise EcbFormatError(f"{path}: cannot read ({e})") from None
    if root.tag != "Document":
        raise EcbFormatError(f"{path}: root element is <{root.tag}>, expected <Document>")
    name = root.get("doc_name")
    if name and name != path.name:
        raise EcbFormatError(f"{path}: doc_name={name!r} does not match the file name")
    for child in root:
        if child.tag == "token":
            tokens.append(_parse_token(child, path, seen_tids))
        elif child.tag == "Markables":
            for m in child:
                markable = _parse_markable(m, path, seen_tids, markables)
                markables[markable.m_id] = markable
        elif child.tag == "Relations":
            relations.extend(_parse_relation(r, path, markables) for r in child)
        else:
            raise EcbFormatError(f"{path}: unknown element <{child.tag}> in <Document>")
    if not tokens:
        raise EcbFormatError(f"{path}: document has no tokens")
    return EcbDocument(path, doc_id, topic, subtopic, tokens, markables, relations)


def _parse_token(child: ET.Element, path: Path, seen_tids: set[int]) -> Token:
    """A ``<token>`` (its ``t_id`` new, then added to ``seen_tids``)."""
    t_id = _int_attr(child, "t_id", path, "a <token>")
    if t_id in seen_tids:
        raise EcbFormatError(f"{path}: duplicate token t_id={t_id}")
    seen_tids.add(t_id)
    return Token(t_id, _int_attr(child, "sentence", path, f"token t_id={t_id}"),
                 _int_attr(child, "number", path, f"token t_id={t_id}"), (child.text or "").strip())


def _parse_markable(m: ET.Element, path: Path, seen_tids: set[int], markables: Mapping[str, Markable]) -> Markable:
    """A markable of ``<Markables>`` (an ``m_id`` not in ``markables``), anchored on tokens of ``seen_tids``."""
    if m.tag not in MARKABLE_TAGS:
        raise EcbFormatError(f"{path}: unknown markable tag <{m.tag}> (m_id={m.get('m_id')!r})")
    m_id = m.get("m_id")
    if not m_id:
        raise EcbFormatError(f"{path}: <{m.tag}> without m_id")
    if m_id in markables:
        raise EcbFormatError(f"{path}: duplicate markable m_id={m_id}")
    t_ids = []
    for a in m:
        if a.tag != "token_anchor":
            raise EcbFormatError(f"{path}: unknown element <{a.tag}> in markable m_id={m_id}")
        t = _int_attr(a, "t_id", path, f"token_anchor of markable m_id={m_id}")
        if t not in seen_tids:
            raise EcbFormatError(f"{path}: markable m_id={m_id} anchors unknown token t_id={t}")
        t_ids.append(t)
    return Markable(m_id, m.tag, tuple(sorted(t_ids)), m.get("instance_id", ""), m.get("TAG_DESCRIPTOR", ""))


def _parse_relation(r: ET.Element, path: Path, markables: Mapping[str, Markable]) -> Relation:
    """A relation of ``<Relations>``: sources and exactly one target, all known markables."""
    if r.tag not in RELATION_TAGS:
        raise EcbFormatError(f"{path}: unknown relation tag <{r.tag}> (r_id={r.get('r_id')!r})")
    r_id = r.get("r_id", "")
    sources, targets = [], []
    for end in r:
        if end.tag not in ("source", "target"):
            raise EcbFormatError(f"{path}: unknown element <{end.tag}> in relation r_id={r_id}")
        m_id = end.get("m_id", "")
        if m_id not in markables:
            raise EcbFormatError(f"{path}: relation r_id={r_id} refers to unknown markable m_id={m_id!r}")
        (sources if end.tag == "source" else targets).append(m_id)
    if len(targets) != 1:
        raise EcbFormatError(f"{path}: relation r_id={r_id} has {len(targets)} targets, expected 1")
    return Relation(r.tag, r_id, r.get("note", ""), tuple(sources), targets[0])


def ecb_files(xml_dir: str | Path, topics: Iterable[int] = ALL_TOPICS) -> list[Path]:
    """The XML files under ``<xml_dir>/<topic>/`` (``xml_dir`` is the release's ``ECB+`` folder), in topic then
    document order."""
    base = Path(xml_dir)
    files = [p for t in topics for p in (base / str(t)).glob("*.xml")]

    def order(p: Path):
        _, topic, sub = doc_key(p)
        return int(topic), sub.endswith("plus"), int(p.name.split("_")[1].split("ecb")[0])

    return sorted(files, key=order)


def parse_ecb_corpus(xml_dir: str | Path, topics: Iterable[int] = ALL_TOPICS, *,
                     progress: bool = False) -> list[EcbDocument]:
    """Parse every document of the given topics under ``xml_dir`` (the ``ECB+`` folder: ``<topic>/*.xml``).

    Parsed documents are memoised in the process (:func:`clear_parse_cache`), keyed by each file's path, size and
    modification time: building several configs (or ``ecbplus`` and ``ecbmeta``) in one process reads the XML once
    (about 5 s, 100 MB for the release); an edited file is parsed again. Treat the documents as read-only.
    """
    files = ecb_files(xml_dir, topics)
    if progress:
        from tqdm.auto import tqdm

        files = tqdm(files, desc="ECB+ XML", unit="doc")
    return [_parse_memoised(p) for p in files]


#: path -> ((size, mtime_ns), parsed document); see :func:`parse_ecb_corpus`.
_PARSED: dict[Path, tuple[tuple[int, int], EcbDocument]] = {}
#: At most this many documents stay memoised (the release has 982); beyond it the memo starts again.
_PARSED_MAX = 4 * N_DOCUMENTS


def _parse_memoised(path: Path) -> EcbDocument:
    key = path.absolute()
    try:
        st = key.stat()
    except OSError:
        return parse_ecb_document(path)  # the parser names the file and the reason
    stamp = (st.st_size, st.st_mtime_ns)
    hit = _PARSED.get(key)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    doc = parse_ecb_document(path)
    if len(_PARSED) >= _PARSED_MAX:
        _PARSED.clear()
    _PARSED[key] = (stamp, doc)
    return doc


def clear_parse_cache() -> None:
    """Forget the documents :func:`parse_ecb_corpus` memoised (frees their memory)."""
    _PARSED.clear()


def read_coref_sentences(path: str | Path) -> set[tuple[str, int]]:
    """The manually validated sentences: ``{(doc_id, sentence number)}`` from ``ECBplus_coreference_sentences.csv``."""
    path = Path(path)
    out: set[tuple[str, int]] = set()
    with path.open(newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if header is None or [h.strip() for h in header] != ["Topic", "File", "Sentence Number"]:
            raise EcbFormatError(f"{path}: expected header 'Topic,File,Sentence Number', got {header!r}")
        for line_no, row in enumerate(reader, start=2):
            if not row:
                continue
            if len(row) != 3:
                raise EcbFormatError(f"{path}: line {line_no} has {len(row)} columns, expected 3: {row!r}")
            topic, file, sent = (c.strip() for c in row)
            if not topic.isdigit() or not sent.isdigit() or not re.fullmatch(r"\d+ecb(plus)?", file):
                raise EcbFormatError(f"{path}: line {line_no} is not '<topic>,<n>ecb[plus],<sentence>': {row!r}")
            key = (f"{topic}_{file}", int(sent))
            if key in out:
                raise EcbFormatError(f"{path}: line {line_no} repeats sentence {key}")
            out.add(key)
    return out


def read_dev_small(path: str | Path) -> list[str]:
    """Document ids (``21_9ecb``) of the 40-document Dev_small set of the ECB+META paper."""
    path = Path(path)
    out: list[str] = []
    for line_no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        name = line.strip()
        if not name:
            continue
        doc_id = doc_key(name)[0] if name.endswith(".xml") else name
        if not _FILE_RE.match(doc_id + ".xml"):
            raise EcbFormatError(f"{path}: line {line_no} is not an ECB+ document name: {name!r}")
        if doc_id in out:
            raise EcbFormatError(f"{path}: line {line_no} repeats {doc_id}")
        if int(doc_key(doc_id + ".xml")[1]) not in DEV_TOPICS:
            raise EcbFormatError(f"{path}: line {line_no}: {doc_id} is not in a dev topic {DEV_TOPICS}")
        out.append(doc_id)
    return out


def split_of(topic: str | int) -> str:
    """``train`` / ``validation`` / ``test`` for a topic."""
    t = int(topic)
    for split, topics in SPLIT_TOPICS.items():
        if t in topics:
            return split
    raise ValueError(f"{topic!r} is not an ECB+ topic")


@functools.lru_cache(maxsize=1)
def _stop_words() -> frozenset[str]:
    from figbench.imports import spacy as import_spacy

    import_spacy()   # spaCy without thinc's torch import (figbench.imports)
    from spacy.lang.en.stop_words import STOP_WORDS

    return frozenset(STOP_WORDS)


def head_index(words: list[str], mention_class: str) -> int:
    """Index of the head in a markable's tokens: first content word of an event, last of an entity."""
    stop = _stop_words()
    content = [i for i, w in enumerate(words) if any(c.isalnum() for c in w) and w.lower() not in stop]
    if not content:
        content = [i for i, w in enumerate(words) if any(c.isalnum() for c in w)] or list(range(len(words)))
    return content[0] if mention_class == "event" else content[-1]


def mention_rows(
    doc: EcbDocument,
    mention_class: str,
    *,
    sentences: set[tuple[str, int]] | None = None,
    cluster_ids: Mapping[str, str] | None = None,
) -> list[dict]:
    """Rows in :data:`figbench.schema.COREF_MENTION_FEATURES` for a document's event or entity mentions.

    ``sentences`` keeps only mentions in those ``(doc_id, sentence)`` pairs (the validated
    sentences); a markable spanning two sentences is kept when its first token's sentence is.
    The context is the whole document.
    """
    if mention_class not in ("event", "entity"):
        raise ValueError(f"mention_class must be 'event' or 'entity', not {mention_class!r}")
    clusters = cluster_ids if cluster_ids is not None else doc.cluster_ids()
    sents = doc.sentences
    doc_tokens = [t.text for t in doc.tokens]
    doc_index = {t.t_id: i for i, t in enumerate(doc.tokens)}
    rows = []
    for m in doc.mentions(mention_class):
        first = doc.token(m.t_ids[0])
        if sentences is not None and (doc.doc_id, first.sentence) not in sentences:
            continue
        sent_tokens = sents[first.sentence]
        sent_pos = {t.t_id: i for i, t in enumerate(sent_tokens)}
        words = [doc.token(t).text for t in m.t_ids]
        h = head_index(words, mention_class)
        last = m.t_ids[-1]
        start = sent_pos[m.t_ids[0]]
        # a markable running into the next sentence is cut at its sentence's end for the offsets
        end = sent_pos[last] + 1 if last in sent_pos else len(sent_tokens)
        rows.append(
            {
                "mention_id": f"{doc.doc_id}_{m.m_id}",
                "doc_id": doc.doc_id,
                "topic": doc.topic,
                "subtopic": doc.subtopic,
                "sentence_id": first.sentence,
                "token_start": start,
                "token_end": end,
                "text": " ".join(words),
                "head": words[h],
                "head_lemma": lookup_lemma(words[h], "en", case=ECB_LEMMA_CASE),
                "pos": "",
                "mention_class": mention_class,
                "mention_type": m.tag,
                "cluster_id": clusters[m.m_id],
                "sentence": [t.text for t in sent_tokens],
                "context": doc_tokens,
                "context_start": doc_index[m.t_ids[0]],
                "context_end": doc_index[last] + 1,
                "original_text": "",
            }
        )
    return rows


def document_row(doc: EcbDocument) -> dict:
    """A row in :data:`figbench.schema.COREF_DOCUMENT_FEATURES`."""
    return {
        "doc_id": doc.doc_id,
        "topic": doc.topic,
        "subtopic": doc.subtopic,
        "tokens": [t.text for t in doc.tokens],
        "sentence_ids": [t.sentence for t in doc.tokens],
    }


def split_documents(docs: Iterable[EcbDocument], dev_small: Iterable[str] = ()) -> dict[str, list[EcbDocument]]:
    """Documents per split: ``train``, ``validation``, ``test`` and, when ``dev_small`` is given, ``dev_small`` /
    ``dev_rest``."""
    small = set(dev_small)
    out: dict[str, list[EcbDocument]] = {"train": [], "validation": [], "test": []}
    if small:
        out.update(dev_small=[], dev_rest=[])
    for d in docs:
        split = split_of(d.topic)
        out[split].append(d)
        if small and split == "validation":
            out["dev_small" if d.doc_id in small else "dev_rest"].append(d)
    return out


def corpus_stats(rows: Iterable[Mapping]) -> dict[str, int]:
    """Mentions, clusters, non-singleton clusters, documents and topics of mention rows."""
    rows = list(rows)
    sizes: dict[str, int] = {}
    for r in rows:
        sizes[r["cluster_id"]] = sizes.get(r["cluster_id"], 0) + 1
    return {
        "mentions": len(rows),
        "clusters": len(sizes),
        "non_singleton_clusters": sum(1 for n in sizes.values() if n > 1),
        "documents": len({r["doc_id"] for r in rows}),
        "topics": len({r["topic"] for r in rows}),
    }


# --------------------------------------------------------------------------------------------
# Sources: the release files in the corpus folder (downloaded there when missing and allowed).

_ECB_RAW = "https://github.com/cltl/ecbPlus/raw/master/ECB%2B_LREC2014"
#: The release files. The sha256 values were computed from the copies in ``shared/data/ecbplus``;
#: the original ``ECB+.zip`` was not available offline, so its checksum is unknown (see the card).
FILES: tuple[RemoteFile, ...] = (
    RemoteFile(f"{XML_DIR}/1/1_1ecb.xml", f"{_ECB_RAW}/ECB%2B.zip", None, extract=True,
               description="the 982 XML documents in 43 topic folders (ECB+.zip, unpacked)"),
    RemoteFile(SENTENCES_CSV, f"{_ECB_RAW}/ECBplus_coreference_sentences.csv",
               "afee49e0f5fe5084eec690e934aaade842d5eeff7a5704a36f59e7a49505f434",
               description="the 1,840 manually validated sentences"),
    RemoteFile(DEV_SMALL_DOCS,
               "https://raw.githubusercontent.com/ahmeshaf/llms_coref/3836fc0f78f90721794d184df170b236fd9d9f20/"
               "project/assets/ecb/dev_small_docs.txt",
               "ba4d50b0c819bfd92377f48ff5c5ed686995907a62ec2915e5a614d542e0851f",
               description="the 40 Dev_small documents of the ECB+META paper"),
)
def release_documents(root: str | Path, *, strict: bool = True, data_dir: str | None = None,
                      download: bool | None = False) -> list[Path]:
    """The XML documents of the ECB+ release under ``root`` (``ECB+/<topic>/`` for all 43 topics, the CSV,
    ``dev_small_docs.txt``), resolved with :func:`figbench.corpora.files.resolve` (missing files are
    downloaded when ``download``; one :class:`MissingDataError` lists every file or folder still missing).

    With ``strict`` the number of XML documents must be the release's 982; without it (small fixtures)
    only the topic folders present are read.
    """
    root = Path(root)
    wanted = list(FILES[1:])
    if strict:
        wanted += [RemoteFile(f"{XML_DIR}/{t}", FILES[0].url, None, extract=True) for t in ALL_TOPICS]
    else:
        wanted.append(RemoteFile(XML_DIR, FILES[0].url, None, extract=True))
    files.resolve("ecbplus", root, wanted, data_dir=data_dir, download=download)
    found = ecb_files(root / XML_DIR)
    if strict and len(found) != N_DOCUMENTS:
        raise MissingDataError(
            f"ecbplus: {root / XML_DIR} holds {len(found)} XML documents, the ECB+ release has {N_DOCUMENTS}; "
            "some files are missing or extra (pass strict_release=False only for test fixtures)"
        )
    if not found:
        raise MissingDataError(f"ecbplus: no <topic>/*.xml documents under {root / XML_DIR}")
    return found


@dataclass(frozen=True)
class EcbSources:
    """Where the three parts of the release are: the ``ECB+`` XML folder, the sentences CSV, Dev_small."""

    xml_dir: Path
    sentences_csv: Path
    dev_small: Path

    @classmethod
    def local(cls, root: str | Path, *, strict: bool = True, data_dir: str | None = None,
              download: bool | None = False) -> EcbSources:
        """The release in its original layout under ``root`` (checked with :func:`release_documents`)."""
        root = Path(root)
        release_documents(root, strict=strict, data_dir=data_dir, download=download)
        return cls(root / XML_DIR, root / SENTENCES_CSV, root / DEV_SMALL_DOCS)

    def topics_present(self) -> list[int]:
        return [t for t in ALL_TOPICS if (self.xml_dir / str(t)).is_dir()]


#: Mention splits of the ``ecbplus`` mention configs.
MENTION_SPLITS = ("train", "validation", "test", "dev_small", "dev_rest")


def split_docs(sources: EcbSources, split: str) -> list[EcbDocument]:
    """Parsed documents of one of :data:`MENTION_SPLITS`."""
    base = "validation" if split in ("dev_small", "dev_rest") else split
    if base not in SPLIT_TOPICS:
        raise ValueError(f"unknown ECB+ split {split!r}; known: {', '.join(MENTION_SPLITS)}")
    topics = [t for t in SPLIT_TOPICS[base] if t in sources.topics_present()]
    docs = parse_ecb_corpus(sources.xml_dir, topics)
    if split in ("dev_small", "dev_rest"):
        small = set(read_dev_small(sources.dev_small))
        docs = [d for d in docs if (d.doc_id in small) == (split == "dev_small")]
    return docs


def split_mention_rows(
    sources: EcbSources, split: str, mention_class: str = "event", *, validated_only: bool = True
) -> list[dict]:
    """Schema rows of one split: the standard setup (validated sentences) or all annotated sentences."""
    sentences = read_coref_sentences(sources.sentences_csv) if validated_only else None
    rows = [r for d in split_docs(sources, split) for r in mention_rows(d, mention_class, sentences=sentences)]
    seen: set[str] = set()
    for r in rows:
        if r["mention_id"] in seen:
            raise EcbFormatError(f"{sources.xml_dir}: duplicate mention id {r['mention_id']}")
        seen.add(r["mention_id"])
    return rows


def validated_sentence_defects(sources: EcbSources) -> list[tuple[str, int]]:
    """Validated sentences (CSV rows) whose document or sentence does not exist in the XML (a data defect)."""
    present: dict[str, set[int]] = {}
    for d in parse_ecb_corpus(sources.xml_dir, sources.topics_present()):
        present[d.doc_id] = {t.sentence for t in d.tokens}
    return sorted(
        (doc, s) for doc, s in read_coref_sentences(sources.sentences_csv) if s not in present.get(doc, set())
    )
