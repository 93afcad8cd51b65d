"""WEC-Eng (Eirew et al., NAACL 2021) reading: source layouts, files, validation and rows.

Two source layouts are accepted in the ``wec_eng`` corpus folder:

* ``original``: the JSON files of the Hub release (``Train_Event_gold_mentions.json``,
  ``Dev_Event_gold_mentions_validated.json``, ``Test_Event_gold_mentions_validated.json``), one
  list of mention records per split, each with its whole Wikipedia paragraph as context;
  A harvest (``figbench harvest wec``) writes the same split files with each paragraph once: its mention
  records carry a ``context_id`` instead of ``mention_context``, and :data:`CONTEXTS_FILE` beside them lists
  every paragraph once (``{"context_id": ..., "mention_context": [tokens]}``); :func:`read_records` puts the
  tokens back, so both give the same rows;
* ``ucdcr``: uCDCR's unified ``{train,val,test}/event_mentions.json`` (under ``ucdcr/`` in the
  corpus folder, or the uCDCR ``output_data`` folder itself), whose contexts are shorter windows.

:func:`local_sources` picks the layout with the most requested splits (the original one on a
tie); a dataset never mixes layouts. :func:`complete_sources` downloads what is missing when
nothing usable is there (or a named split is missing), else raises one
:class:`~figbench.corpora.files.MissingDataError`. The train split exists only online (the Hub
release): no offline copy is known.

Rows follow :data:`figbench.schema.COREF_MENTION_FEATURES` / ``COREF_DOCUMENT_FEATURES``: WEC has
no topics, so ``topic`` and ``subtopic`` are ``"wec"``; ``doc_id`` is the Wikipedia article title; a
document row is an article with its distinct mention paragraphs concatenated in first-seen order,
and a mention's ``sentence_id`` is its sentence's index in that row (sentences end at
``.``/``!``/``?`` tokens, as WEC's own ``sent_id`` counts them).

Mention ids (issue 13): WEC's own mention ids were assigned cluster by cluster (sorted by id, 81-83%
of neighbouring mentions share a cluster, against 0.6% of random pairs), and the files list
mentions in that order. Released rows carry opaque ids (:func:`opaque_mention_ids`: a hash of the
split, the article title and the mention text without whitespace, the same in both layouts) and
are ordered by them; :func:`original_ids` keeps the mapping to WEC's ids.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from figbench.corpora import files
from figbench.corpora.files import MissingDataError, RemoteFile, verify_sha256
from figbench.corpora.ids import IdMaker
from figbench.corpora.lemmas import lookup_lemma

logger = logging.getLogger(__name__)

CORPUS = "wec_eng"

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
#: the harvested original layout's paragraphs, each once (split records name theirs by ``context_id``)
CONTEXTS_FILE = "Event_gold_mention_contexts.json"
_UCDCR_SPLIT_DIRS = {"train": "train", "validation": "val", "test": "test"}
#: uCDCR layout: split -> candidate paths (corpus folder with ``ucdcr/``, or the uCDCR folder itself)
UCDCR_FILES = {
    s: (f"ucdcr/{d}/event_mentions.json", f"{d}/event_mentions.json") for s, d in _UCDCR_SPLIT_DIRS.items()
}

_HUB_REVISION = "e9a0f74a6fc2ec7a12ce66299dcffc693d2bf0d9"
_UCDCR_BASE = ("https://raw.githubusercontent.com/anastasia-zhukova/Diverse_CDCR_datasets/"
               "refining-datasets/WECEng-prep/output_data")
#: Canonical downloads (into the corpus folder, when the files are not there) and their sha256 (None: unknown,
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


#: Case rule of the lemmas computed for records without one (:mod:`figbench.corpora.lemmas`):
#: spaCy's lookup lemmatizer on the tokenised head, the form only as written.
WEC_LEMMA_CASE = "exact"


def _remote(layout: str, split: str) -> RemoteFile:
    url, sha = _URLS[layout][split]
    rel = ORIGINAL_FILES[split] if layout == "original" else UCDCR_FILES[split][0]
    return RemoteFile(rel, url, sha, description=f"{split} split ({layout} layout)")


#: Every downloadable file: the three Hub files and uCDCR's validation and test files.
FILES: tuple[RemoteFile, ...] = tuple(_remote(lay, s) for lay in LAYOUTS for s in SPLITS if s in _URLS[lay])
TRAIN_URL = _URLS["original"]["train"][0]
TRAIN_NOTE = (f"WEC-Eng's train split exists only online: {ORIGINAL_FILES['train']} of the Hub release, from "
              f"{TRAIN_URL} (no offline copy is known). It builds in the original layout (the three Hub files; "
              "source='original', CLI --option source=original); uCDCR's ucdcr/train/event_mentions.json is "
              "accepted too.")


def verify_checksum(path: str | Path, expected: str | None, *, name: str = "") -> str:
    """Return the file's sha256; raise ValueError naming the file when it differs from ``expected``."""
    actual = verify_sha256(path, expected, corpus=CORPUS, label=name)
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


def check_source(source: str) -> str:
    if source not in ("auto", *LAYOUTS):
        raise ValueError(f"wec_eng: unknown source {source!r}; use one of auto, {', '.join(LAYOUTS)}")
    return source


@dataclass(frozen=True)
class Sources:
    """Which layout and files a build reads; ``missing`` maps a split to every path looked for."""

    layout: str
    files: dict[str, Path]
    missing: dict[str, tuple[Path, ...]]
    root: Path
    requested: tuple[str, ...] | None = None  # splits named by the caller (None: every available one)

    def fingerprint(self) -> str:
        """Files read (path, size, mtime) and splits missing: part of the cache key."""
        parts = [self.layout]
        for s, p in sorted(self.files.items()):
            st = p.stat()
            parts.append(f"{s}={p}:{st.st_size}:{st.st_mtime_ns}")
        contexts = self.root / CONTEXTS_FILE
        if self.layout == "original" and contexts.is_file():  # a harvest's paragraphs: edited, rebuilt
            st = contexts.stat()
            parts.append(f"contexts={contexts}:{st.st_size}:{st.st_mtime_ns}")
        parts += [f"missing:{s}" for s in sorted(self.missing)]
        return hashlib.sha256("|".join(parts).encode()).hexdigest()[:12]

    def missing_lines(self, names: Iterable[str] | None = None) -> str:
        names = [s for s in (names or self.missing) if s in self.missing]
        return "\n".join(f"  - {s}: {' or '.join(str(p) for p in self.missing[s])}" for s in names)

    def missing_message(self, names: Iterable[str], *, data_dir: str | None = None, reason: str = "") -> str:
        """A missing-data message for splits of this build: paths looked at, URLs, what to set."""
        names = [s for s in names if s in self.missing]
        hint = "Looked for:\n" + self.missing_lines(names)
        if self.files:
            hint += f"\nAvailable splits: {', '.join(self.files)} ({self.layout} layout)."
        if "train" in names:
            hint += "\n" + TRAIN_NOTE
        return files.missing_message(CORPUS, self.root, [_source_of(self.layout, s) for s in names],
                                     data_dir=data_dir, reason=reason, hint=hint)


def _source_of(layout: str, split: str) -> RemoteFile:
    """Where to get a split: its file in ``layout``, else the Hub file of the original layout."""
    return _remote(layout if split in _URLS[layout] else "original", split)


def _candidates(root: Path) -> dict[str, dict[str, tuple[Path, ...]]]:
    return {
        "original": {s: (root / ORIGINAL_FILES[s],) for s in SPLITS},
        "ucdcr": {s: tuple(root / c for c in UCDCR_FILES[s]) for s in SPLITS},
    }


def local_sources(root: Path, source: str = "auto", splits: Sequence[str] | None = None) -> Sources:
    """The layout and the file of each split found under ``root`` (no download, no error for missing files).

    ``source="auto"`` takes the layout with the most requested splits (the original one on a tie).
    """
    check_source(source)
    root = Path(root)
    wanted = tuple(splits) if splits else SPLITS
    candidates = _candidates(root)
    found: dict[str, dict[str, Path]] = {}
    for layout, per_split in candidates.items():
        found[layout] = {}
        for s in wanted:
            hit = next((p for p in per_split[s] if p.is_file()), None)
            if hit is not None:
                found[layout][s] = hit
    layout = max(LAYOUTS, key=lambda lay: (len(found[lay]), lay == "original")) if source == "auto" else source
    # in auto mode a missing split could come from either layout: name every path looked at
    layouts = LAYOUTS if source == "auto" else (layout,)
    missing = {s: tuple(p for lay in layouts for p in candidates[lay][s]) for s in wanted if s not in found[layout]}
    return Sources(layout, found[layout], missing, root, tuple(splits) if splits else None)


def complete_sources(sources: Sources, *, data_dir: str | None = None, download: bool | None = None) -> Sources:
    """The sources of a build, downloading what they lack when nothing usable is local.

    With no file found, the requested splits (default: all three) of the chosen layout (``original``
    under ``auto``) are downloaded into the corpus folder when allowed; with some found, a split named
    by the caller that is missing is downloaded when its layout has a download. Otherwise one
    :class:`MissingDataError` names every missing file, where it was looked for and its URL. Missing
    splits not named by the caller are left out of the build (see :attr:`Sources.missing`).
    """
    if sources.files and not (sources.requested and sources.missing):
        return sources
    layout = sources.layout
    wanted = [s for s in (sources.requested or SPLITS) if s in sources.missing]
    if not sources.files:  # nothing local: download what this layout offers
        wanted = [s for s in wanted if s in _URLS[layout]] or wanted
    absent = [s for s in wanted if s not in _URLS[layout]]
    if absent:  # e.g. uCDCR's train file: nothing to download in that layout
        raise MissingDataError(sources.missing_message(
            wanted, data_dir=data_dir, reason=f"The {layout} layout has no download for split(s) {', '.join(absent)}."))
    remote = [_remote(layout, s) for s in wanted]
    try:
        got = files.resolve(CORPUS, sources.root, remote, data_dir=data_dir, download=download)
    except MissingDataError as e:
        raise MissingDataError(sources.missing_message(wanted, data_dir=data_dir, reason=e.reason)) from None
    for f in remote:
        if f.sha256 is None:  # no published checksum: log the downloaded file's
            verify_checksum(got[f.path], None, name=f"{f.path} (from {f.url})")
    found = {**sources.files, **{s: got[f.path] for s, f in zip(wanted, remote)}}
    missing = {s: p for s, p in sources.missing.items() if s not in found}
    return Sources(layout, found, missing, sources.root, sources.requested)


# --------------------------------------------------------------------------- parsing


def _fail(path: Path, index: int, record: Any, problem: str) -> ValueError:
    mid = record.get("mention_id", "?") if isinstance(record, dict) else "?"
    return ValueError(f"wec_eng: {path}: record {index} (mention_id {mid!r}): {problem}")


def _json_list(path: Path, what: str) -> list:
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except json.JSONDecodeError as e:
        raise ValueError(f"wec_eng: {path} is not valid JSON (truncated or corrupt?): {e}") from e
    if not isinstance(data, list):
        raise ValueError(f"wec_eng: {path}: expected a JSON list of {what}, got {type(data).__name__}")
    return data


def read_contexts(path: str | Path) -> dict[str, list]:
    """context id -> paragraph tokens of a harvest's :data:`CONTEXTS_FILE`; ValueError naming the file and item."""
    path = Path(path)
    contexts: dict[str, list] = {}
    for i, item in enumerate(_json_list(path, "paragraphs")):
        if not isinstance(item, dict) or "context_id" not in item or "mention_context" not in item:
            raise ValueError(f"wec_eng: {path}: item {i} is not {{'context_id': ..., 'mention_context': [...]}}")
        cid = str(item["context_id"])
        if cid in contexts:
            raise ValueError(f"wec_eng: {path}: item {i}: duplicate context_id {cid!r}")
        contexts[cid] = item["mention_context"]
    return contexts


def read_records(path: str | Path) -> list[dict]:
    """The list of mention records of one split file; ValueError naming the file when it is not one.

    Records of a harvest (a ``context_id``, no ``mention_context``) get their paragraph's tokens from
    :data:`CONTEXTS_FILE` beside the file (one list shared by the paragraph's records)."""
    path = Path(path)
    data = _json_list(path, "mention records")
    shared = [i for i, r in enumerate(data) if isinstance(r, dict) and "mention_context" not in r and "context_id" in r]
    if shared:
        table = path.parent / CONTEXTS_FILE
        if not table.is_file():
            raise _fail(path, shared[0], data[shared[0]], f"names context_id {data[shared[0]]['context_id']!r} but "
                                                          f"the paragraphs file {table} does not exist")
        contexts = read_contexts(table)
        for i in shared:
            cid = str(data[i]["context_id"])
            if cid not in contexts:
                raise _fail(path, i, data[i], f"context_id {cid!r} is not in {table}")
            data[i]["mention_context"] = contexts[cid]
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
        raise _fail(path, index, record,
                    f"unknown mention_type {value!r} (WEC CorefType ids are 0-{len(COREF_TYPES) - 1})")
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
        lemma = str(rec["mention_head_lemma"] or "").strip().lower() or lookup_lemma(
            head, "en", case=WEC_LEMMA_CASE, tokenize=True)
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
        {"doc_id": d, "topic": WEC_TOPIC, "subtopic": WEC_TOPIC, "tokens": v["tokens"],
         "sentence_ids": v["sentence_ids"]}
        for d, v in docs.items()
    ]
    return mentions, documents




def _id_order(mention_id: str) -> tuple:
    return (0, int(mention_id), "") if mention_id.isdigit() else (1, 0, mention_id)


def opaque_mention_ids(mentions: list[dict], split: str) -> list[str]:
    """Opaque ids of one split's mention rows (parsed, with WEC's ids), in row order.

    The id hashes ``wec_eng``, the split, the article title and the mention text with whitespace
    removed (the two layouts tokenise differently), plus the occurrence number among identical
    (article, text) mentions counted in WEC id order; so a mention has the same id in both layouts.
    """
    make = IdMaker(f"wec_eng {split}")
    order = sorted(range(len(mentions)), key=lambda k: _id_order(str(mentions[k]["mention_id"])))
    out = [""] * len(mentions)
    for k in order:
        m = mentions[k]
        out[k] = make(CORPUS, split, m["doc_id"], "".join(m["text"].split()))
    return out


def released_mentions(mentions: list[dict], split: str) -> list[dict]:
    """The mention rows as released: opaque ``mention_id``, ordered by it."""
    ids = opaque_mention_ids(mentions, split)
    return sorted(({**m, "mention_id": i} for m, i in zip(mentions, ids)), key=lambda m: m["mention_id"])


def parse_sources(sources: Sources, *, released: bool = True) -> dict[str, tuple[list[dict], list[dict]]]:
    """Mention and document rows of every split of a build; a (WEC) mention id in two splits raises.

    ``released``: mention rows with opaque ids, ordered by id (:func:`released_mentions`); else WEC's ids.
    """
    parsed: dict[str, tuple[list[dict], list[dict]]] = {}
    seen: dict[str, str] = {}
    for split, path in sources.files.items():
        mentions, documents = parse_split(path, sources.layout)
        for row in mentions:
            other = seen.setdefault(row["mention_id"], split)
            if other != split:
                raise ValueError(f"wec_eng: {path}: mention_id {row['mention_id']!r} also occurs in split {other!r}")
        parsed[split] = (released_mentions(mentions, split) if released else mentions, documents)
    return parsed


def original_ids(root: str | Path | None = None, *, source: str = "auto", data_dir: str | None = None,
                 download: bool | None = None) -> dict[str, str]:
    """Opaque mention id -> WEC's mention id, for every split found (downloaded when allowed); never a column."""
    from figbench.paths import corpus_dir

    folder = Path(root) if root is not None else corpus_dir(CORPUS, data_dir)
    sources = complete_sources(local_sources(folder, check_source(source)), data_dir=data_dir, download=download)
    out: dict[str, str] = {}
    for split, path in sources.files.items():
        mentions, _ = parse_split(path, sources.layout)
        out.update(zip(opaque_mention_ids(mentions, split), (m["mention_id"] for m in mentions)))
    return out
