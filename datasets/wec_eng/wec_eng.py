"""WEC-Eng (Eirew et al., NAACL 2021): cross-document event coreference from English Wikipedia.

Two source layouts are accepted:

* ``original``: the JSON files of the Hub release (``Train_Event_gold_mentions.json``,
  ``Dev_Event_gold_mentions_validated.json``, ``Test_Event_gold_mentions_validated.json``), one
  list of mention records per split, each with its whole Wikipedia paragraph as context;
* ``ucdcr``: uCDCR's unified ``{train,val,test}/event_mentions.json`` (under ``ucdcr/`` in the
  corpus folder, or the uCDCR ``output_data`` folder itself), whose contexts are shorter windows.

``source="auto"`` (the default) takes the layout that provides the most requested splits (the
original one on a tie); a dataset never mixes layouts. Splits: with ``splits=None`` every split
that has a file is built and the missing ones are logged, named in ``info.description``, and
asking for one of them (``split="train"``) raises :class:`~figbench.paths.MissingDataError`
naming the file and where it was looked for; with ``splits="validation,test"`` (or a list) each
named split must exist.

Schema: :data:`figbench.schema.COREF_MENTION_FEATURES` (config ``events``) and
:data:`figbench.schema.COREF_DOCUMENT_FEATURES` (config ``documents``). WEC has no topics: the
WEC paper evaluates a whole split as one cross-document document, so ``topic`` and ``subtopic``
are ``"wec"`` for every row. ``doc_id`` is the Wikipedia article title; a ``documents`` row is an
article with its distinct mention paragraphs concatenated in first-seen order, and a mention's
``sentence_id`` is its sentence's index in that row (sentences end at ``.``/``!``/``?`` tokens, as
WEC's own ``sent_id`` counts them).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import datasets

from figbench.checksums import sha256_file, verify_sha256  # noqa: F401 (sha256_file: public helper)
from figbench.paths import MissingDataError, corpus_dir
from figbench.schema import COREF_DOCUMENT_FEATURES, COREF_MENTION_FEATURES

logger = logging.getLogger(__name__)

_CITATION = """\
@inproceedings{eirew-etal-2021-wec,
    title = "{WEC}: Deriving a Large-scale Cross-document Event Coreference dataset from {W}ikipedia",
    author = "Eirew, Alon and Cattan, Arie and Dagan, Ido",
    booktitle = "Proceedings of the 2021 Conference of the North American Chapter of the Association for Computational Linguistics: Human Language Technologies",
    year = "2021",
    publisher = "Association for Computational Linguistics",
    url = "https://aclanthology.org/2021.naacl-main.198",
    doi = "10.18653/v1/2021.naacl-main.198",
    pages = "2498--2510",
}
"""
_DESCRIPTION = "WEC-Eng: English cross-document event coreference mentions linked to Wikipedia event articles."
_HOMEPAGE = "https://huggingface.co/datasets/Intel/WEC-Eng"
_LICENSE = "cc-by-sa-3.0"

SPLITS = ("train", "validation", "test")
LAYOUTS = ("original", "ucdcr")
#: topic/subtopic of every WEC row (the corpus has no topics; a split is one document)
WEC_TOPIC = "wec"

#: original layout: split -> file name in the corpus folder
ORIGINAL_FILES = {
    "train": "Train_Event_gold_mentions.json",
    "validation": "Dev_Event_gold_mentions_validated.json",
    "test": "Test_Event_gold_mentions_validated.json",
}
_UCDCR_SPLIT_DIRS = {"train": "train", "validation": "val", "test": "test"}
#: uCDCR layout: split -> candidate paths (corpus folder with ``ucdcr/``, or the uCDCR folder itself)
UCDCR_FILES = {
    s: (f"ucdcr/{d}/event_mentions.json", f"{d}/event_mentions.json") for s, d in _UCDCR_SPLIT_DIRS.items()
}

_HUB_REVISION = "e9a0f74a6fc2ec7a12ce66299dcffc693d2bf0d9"
_UCDCR_BASE = ("https://raw.githubusercontent.com/anastasia-zhukova/Diverse_CDCR_datasets/"
               "refining-datasets/WECEng-prep/output_data")
#: Canonical downloads (used only when no local folder is given) and their sha256 (None: unknown,
#: the Hub files were not available to this project; the download is then logged with its sha256).
_URLS: dict[str, dict[str, tuple[str, str | None]]] = {
    "original": {
        s: (f"https://huggingface.co/datasets/Intel/WEC-Eng/resolve/{_HUB_REVISION}/{f}", None)
        for s, f in ORIGINAL_FILES.items()
    },
    "ucdcr": {
        "validation": (f"{_UCDCR_BASE}/val/event_mentions.json",
                       "fd9f10448fa0513db1c7352e7b25a141425f25c4d7ba359c01e2a903689f5edd"),
        "test": (f"{_UCDCR_BASE}/test/event_mentions.json",
                 "62f3bea9ee08fc33eb80ffae363989dfcd464472ee02d20e80b5ca7e6a1ada12"),
    },
}

#: WEC's ``CorefType`` enum (extract-wec ``data/CorefType.java``): original ``mention_type`` ids.
COREF_TYPES = (
    "NA", "PERSON", "CIVIL_ATTACK_EVENT", "DISASTER_EVENT", "ACCIDENT_EVENT", "ELECTION_EVENT",
    "SPORT_EVENT", "AWARD_EVENT", "NEWS_EVENT", "GENERAL_EVENT", "HISTORICAL_EVENT", "EVENT_UNK",
)
SENTENCE_END = frozenset({".", "!", "?"})

_COMMON_KEYS = ("coref_chain", "doc_id", "mention_context", "mention_head", "mention_head_lemma",
                "mention_head_pos", "mention_id", "mention_type", "sent_id", "tokens_number", "tokens_str")
REQUIRED_KEYS = {
    "original": _COMMON_KEYS,
    "ucdcr": _COMMON_KEYS + ("tokens_number_context", "doc", "topic"),
}


# --------------------------------------------------------------------------- sources


def verify_checksum(path: str | Path, expected: str | None, *, name: str = "") -> str:
    """Return the file's sha256; raise ValueError naming the file when it differs from ``expected``."""
    actual = verify_sha256(path, expected, corpus="wec_eng", label=name)
    if expected is None:
        logger.warning("wec_eng: no published checksum for %s; downloaded file has sha256 %s", name or path, actual)
    return actual


def parse_splits(splits: str | Sequence[str] | None) -> tuple[str, ...] | None:
    """``None`` (every available split), or a validated tuple from ``"validation,test"`` or a list."""
    if splits is None:
        return None
    names = [s.strip() for s in (splits.split(",") if isinstance(splits, str) else splits) if s.strip()]
    unknown = [s for s in names if s not in SPLITS]
    if unknown or not names:
        raise ValueError(f"wec_eng: unknown split(s) {unknown or names!r}; known: {', '.join(SPLITS)}")
    return tuple(dict.fromkeys(names))


@dataclass(frozen=True)
class Sources:
    """Which layout and files a build reads; ``missing`` maps a split to every path looked for."""

    layout: str
    files: dict[str, Path]
    missing: dict[str, tuple[Path, ...]]

    def fingerprint(self) -> str:
        parts = [self.layout]
        for s, p in sorted(self.files.items()):
            st = p.stat()
            parts.append(f"{s}={p}:{st.st_size}:{st.st_mtime_ns}")
        parts += [f"missing:{s}" for s in sorted(self.missing)]
        return hashlib.sha256("|".join(parts).encode()).hexdigest()[:12]

    def missing_message(self, names: Iterable[str] | None = None) -> str:
        names = [s for s in (names or self.missing) if s in self.missing]
        lines = [f"  - {s}: {' or '.join(str(p) for p in self.missing[s])}" for s in names]
        return "\n".join(lines)


def resolve_sources(root: Path, source: str = "auto", splits: Sequence[str] | None = None) -> Sources:
    """Pick the layout and the file of each split under ``root``.

    ``splits=None`` allows missing splits (listed in ``missing``) as long as one exists; named
    splits must all exist. Raises :class:`MissingDataError` listing every missing file otherwise.
    """
    if source not in ("auto", *LAYOUTS):
        raise ValueError(f"wec_eng: unknown source {source!r}; use one of auto, {', '.join(LAYOUTS)}")
    wanted = tuple(splits) if splits else SPLITS
    candidates = {
        "original": {s: (root / ORIGINAL_FILES[s],) for s in SPLITS},
        "ucdcr": {s: tuple(root / c for c in UCDCR_FILES[s]) for s in SPLITS},
    }
    found: dict[str, dict[str, Path]] = {}
    for layout, per_split in candidates.items():
        found[layout] = {}
        for s in wanted:
            hit = next((p for p in per_split[s] if p.is_file()), None)
            if hit is not None:
                found[layout][s] = hit
    if source == "auto":
        layout = max(LAYOUTS, key=lambda lay: (len(found[lay]), lay == "original"))
    else:
        layout = source
    files = found[layout]
    # in auto mode a missing split could come from either layout: name every path looked at
    layouts = LAYOUTS if source == "auto" else (layout,)
    missing = {s: tuple(p for lay in layouts for p in candidates[lay][s]) for s in wanted if s not in files}
    sources = Sources(layout, files, missing)
    if files and not (splits and missing):
        return sources
    if files:
        count, lines = len(missing), sources.missing_message()
    else:
        count = len(wanted)
        lines = "\n".join(f"  - {s}: " + " or ".join(str(p) for lay in layouts for p in candidates[lay][s])
                          for s in wanted)
    raise MissingDataError(
        f"wec_eng: {count} split file(s) not found under {root} (source {source}):\n{lines}\n"
        "Pass data_dir=<the wec_eng folder> or set FIGBENCH_DATA_DIR to a folder with a 'wec_eng' sub-folder"
        + ("; leave splits=None to build only the available splits." if files else ".")
    )


# --------------------------------------------------------------------------- parsing


_lemmatizer = None


def lookup_lemma(word: str) -> str:
    """Lowercased lemma from spaCy's English lookup table (for records without a lemma)."""
    global _lemmatizer
    if _lemmatizer is None:
        import spacy

        nlp = spacy.blank("en")
        nlp.add_pipe("lemmatizer", config={"mode": "lookup"})
        nlp.initialize()
        _lemmatizer = nlp
    doc = _lemmatizer(word)
    return " ".join(t.lemma_ for t in doc).lower()


def _fail(path: Path, index: int, record: Any, problem: str) -> ValueError:
    mid = record.get("mention_id", "?") if isinstance(record, dict) else "?"
    return ValueError(f"wec_eng: {path}: record {index} (mention_id {mid!r}): {problem}")


def read_records(path: str | Path) -> list[dict]:
    """The list of mention records of one split file; ValueError naming the file when it is not one."""
    path = Path(path)
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except json.JSONDecodeError as e:
        raise ValueError(f"wec_eng: {path} is not valid JSON (truncated or corrupt?): {e}") from e
    if not isinstance(data, list):
        raise ValueError(f"wec_eng: {path}: expected a JSON list of mention records, got {type(data).__name__}")
    return data


def _span(record: dict, layout: str, path: Path, index: int) -> tuple[int, int]:
    key = "tokens_number_context" if layout == "ucdcr" else "tokens_number"
    offsets = record[key]
    context = record["mention_context"]
    if (not isinstance(offsets, list) or not offsets or not all(isinstance(i, int) for i in offsets)):
        raise _fail(path, index, record, f"field {key!r} must be a non-empty list of token indices")
    start, end = offsets[0], offsets[-1] + 1
    if offsets != list(range(start, end)):
        raise _fail(path, index, record, f"field {key!r} is not a contiguous span: {offsets}")
    if start < 0 or end > len(context):
        raise _fail(path, index, record, f"span {start}:{end} lies outside mention_context ({len(context)} tokens)")
    surface = "".join(context[start:end])
    if surface.replace(" ", "") != str(record["tokens_str"]).replace(" ", ""):
        raise _fail(path, index, record, f"tokens_str {record['tokens_str']!r} not found in mention_context at "
                                         f"{start}:{end} ({' '.join(context[start:end])!r})")
    return start, end


def _cluster_id(record: dict, layout: str) -> str:
    chain = str(record["coref_chain"])
    if layout == "ucdcr":
        # uCDCR ids are "<WEC coref_chain>_<title prefix>"; keep WEC's id so both layouts agree
        prefix = chain.split("_", 1)[0]
        return prefix if prefix.isdigit() else chain
    return chain


def _mention_type(record: dict, layout: str, path: Path, index: int) -> str:
    if layout == "ucdcr":
        return str(record["topic"])
    value = record["mention_type"]
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < len(COREF_TYPES):
        raise _fail(path, index, record, f"unknown mention_type {value!r} (WEC CorefType ids are 0-{len(COREF_TYPES) - 1})")
    return COREF_TYPES[value]


def sentence_bounds(tokens: Sequence[str]) -> list[int]:
    """Sentence index of every token (a sentence ends after a ``.``, ``!`` or ``?`` token)."""
    ids, current = [], 0
    for tok in tokens:
        ids.append(current)
        if tok in SENTENCE_END:
            current += 1
    return ids


def parse_split(path: str | Path, layout: str) -> tuple[list[dict], list[dict]]:
    """Mention rows and document rows (schema dicts) of one split file, validated."""
    path = Path(path)
    records = read_records(path)
    required = REQUIRED_KEYS[layout]
    seen: dict[str, int] = {}
    docs: dict[str, dict] = {}  # doc_id -> {"passages": {tuple: (token offset, sentence offset)}, tokens, sids}
    mentions: list[dict] = []
    for i, rec in enumerate(records):
        if not isinstance(rec, dict):
            raise _fail(path, i, rec, f"expected a JSON object, got {type(rec).__name__}")
        missing = [k for k in required if k not in rec]
        if missing:
            raise _fail(path, i, rec, f"missing field(s) {missing}")
        context = rec["mention_context"]
        if not isinstance(context, list) or not context or not all(isinstance(t, str) for t in context):
            raise _fail(path, i, rec, "mention_context must be a non-empty list of token strings")
        mid = str(rec["mention_id"])
        if mid in seen:
            raise _fail(path, i, rec, f"duplicate mention_id {mid!r} (first at record {seen[mid]})")
        seen[mid] = i
        start, end = _span(rec, layout, path, i)
        doc_id = str(rec["doc"] if layout == "ucdcr" else rec["doc_id"])
        doc = docs.setdefault(doc_id, {"passages": {}, "tokens": [], "sentence_ids": []})
        key = tuple(context)
        local = sentence_bounds(context)
        if key not in doc["passages"]:
            sent_offset = doc["sentence_ids"][-1] + 1 if doc["sentence_ids"] else 0
            doc["passages"][key] = sent_offset
            doc["tokens"].extend(context)
            doc["sentence_ids"].extend(sent_offset + s for s in local)
        sent_offset = doc["passages"][key]
        local_sid = local[start]
        sentence = [t for t, s in zip(context, local) if s == local_sid]
        head = str(rec["mention_head"])
        lemma = str(rec["mention_head_lemma"] or "").strip().lower() or lookup_lemma(head)
        mentions.append({
            "mention_id": mid,
            "doc_id": doc_id,
            "topic": WEC_TOPIC,
            "subtopic": WEC_TOPIC,
            "sentence_id": sent_offset + local_sid,
            "token_start": start,
            "token_end": end,
            "text": str(rec["tokens_str"]),
            "head": head,
            "head_lemma": lemma,
            "pos": str(rec["mention_head_pos"] or ""),
            "mention_class": "event",
            "mention_type": _mention_type(rec, layout, path, i),
            "cluster_id": _cluster_id(rec, layout),
            "sentence": sentence,
            "context": list(context),
            "context_start": start,
            "context_end": end,
            "original_text": "",
        })
    documents = [
        {"doc_id": d, "topic": WEC_TOPIC, "subtopic": WEC_TOPIC, "tokens": v["tokens"], "sentence_ids": v["sentence_ids"]}
        for d, v in docs.items()
    ]
    return mentions, documents


# --------------------------------------------------------------------------- builder


class WecEngConfig(datasets.BuilderConfig):
    """``source``: auto / original / ucdcr; ``splits``: None (all available) or the splits that must exist."""

    def __init__(self, *args, source: str = "auto", splits: str | Sequence[str] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.source = source
        self.splits = splits

    def resolve(self) -> Sources | None:
        """The local sources of this config, or None when no local folder is given (download)."""
        root = corpus_dir("wec_eng", self.data_dir)
        if root is None:
            return None
        return resolve_sources(root, self.source, parse_splits(self.splits))

    def create_config_id(self, config_kwargs: dict, custom_features=None) -> str:
        # The files actually read (and the missing ones) are part of the cache key, so adding the
        # train file later, or editing a file, rebuilds instead of reusing a partial cache.
        base = super().create_config_id(config_kwargs, custom_features)
        sources = self.resolve()
        return base if sources is None else f"{base}-{sources.layout}-{sources.fingerprint()}"


class WecEng(datasets.GeneratorBasedBuilder):
    """WEC-Eng event mentions (``events``) and their Wikipedia paragraphs (``documents``)."""

    VERSION = datasets.Version("1.0.0")
    BUILDER_CONFIG_CLASS = WecEngConfig
    BUILDER_CONFIGS = [
        WecEngConfig(name="events", version=VERSION,
                     description="One row per event mention (figbench coreference schema)."),
        WecEngConfig(name="documents", version=VERSION,
                     description="One row per Wikipedia article: its mention paragraphs, tokenised."),
    ]
    DEFAULT_CONFIG_NAME = "events"

    def _sources(self) -> Sources | None:
        if not hasattr(self, "_resolved"):
            self._resolved = self.config.resolve()
        return self._resolved

    def _info(self) -> datasets.DatasetInfo:
        description = _DESCRIPTION
        sources = self._sources()
        if sources is not None:
            description += f" Source layout: {sources.layout}."
            if sources.missing:
                description += " Not built (file missing): " + ", ".join(sources.missing) + "."
        features = COREF_DOCUMENT_FEATURES if self.config.name == "documents" else COREF_MENTION_FEATURES
        return datasets.DatasetInfo(description=description, features=features, homepage=_HOMEPAGE,
                                    license=_LICENSE, citation=_CITATION)

    def _split_generators(self, dl_manager):
        sources = self._sources()
        if sources is None:
            sources = self._download(dl_manager)
        if sources.missing:
            logger.warning("wec_eng: building %s only; missing split file(s):\n%s",
                           ", ".join(sources.files), sources.missing_message())
        # Parse and validate here, not in _generate_examples: `datasets` wraps errors raised while
        # generating in DatasetGenerationError, and a bad file must give a ValueError naming it.
        self._parsed: dict[str, tuple[list[dict], list[dict]]] = {}
        seen: dict[str, str] = {}
        for split, path in sources.files.items():
            mentions, documents = parse_split(path, sources.layout)
            for row in mentions:
                other = seen.setdefault(row["mention_id"], split)
                if other != split:
                    raise ValueError(f"wec_eng: {path}: mention_id {row['mention_id']!r} also occurs in split {other!r}")
            self._parsed[split] = (mentions, documents)
        names = {"train": datasets.Split.TRAIN, "validation": datasets.Split.VALIDATION, "test": datasets.Split.TEST}
        return [
            datasets.SplitGenerator(name=names[s], gen_kwargs={"path": str(p), "layout": sources.layout, "split": s})
            for s, p in sources.files.items()
        ]

    def _download(self, dl_manager) -> Sources:
        layout = "original" if self.config.source == "auto" else self.config.source
        wanted = parse_splits(self.config.splits) or tuple(s for s in SPLITS if s in _URLS[layout])
        absent = [s for s in wanted if s not in _URLS[layout]]
        if absent:
            raise MissingDataError(f"wec_eng: layout {layout!r} has no download for split(s) {absent}; "
                                   "pass data_dir=<a folder with the files>")
        urls = {s: _URLS[layout][s][0] for s in wanted}
        paths = dl_manager.download(urls)
        for s in wanted:
            verify_checksum(paths[s], _URLS[layout][s][1], name=urls[s])
        return Sources(layout, {s: Path(paths[s]) for s in wanted}, {})

    def _generate_examples(self, path: str, layout: str, split: str) -> Iterator[tuple[str, dict]]:
        parsed = getattr(self, "_parsed", {}).pop(split, None)
        mentions, documents = parsed if parsed is not None else parse_split(path, layout)
        rows = documents if self.config.name == "documents" else mentions
        key = "doc_id" if self.config.name == "documents" else "mention_id"
        for row in rows:
            yield row[key], row

    def missing_splits(self) -> dict[str, str]:
        """Standard splits this build leaves out, each with the file(s) looked for."""
        sources = self._sources()
        if sources is None:
            return {}
        return {s: "file not found: " + " or ".join(str(p) for p in paths) for s, paths in sources.missing.items()}

    def as_dataset(self, split=None, *args, **kwargs):
        """As in ``datasets``, but asking for a split whose file is missing names that file."""
        sources = self._sources()
        if sources is not None and sources.missing and split is not None:
            requested = {re.split(r"[\[+]", str(s), maxsplit=1)[0].strip()
                         for part in (split if isinstance(split, list) else [split]) for s in str(part).split("+")}
            absent = sorted(requested & set(sources.missing))
            if absent:
                raise MissingDataError(
                    f"wec_eng: split(s) {', '.join(absent)} cannot be built: file(s) not found:\n"
                    f"{sources.missing_message(absent)}\n"
                    f"Available splits: {', '.join(sources.files)}. Pass data_dir=<a wec_eng folder with the file>."
                )
        return super().as_dataset(split, *args, **kwargs)
