"""Meta4XNLI (Sanchez-Bayona & Agerri) reading: files, label sets, the tagged and NLI TSV parsers.

The original files of the ``elisanchez-beep/meta4xnli`` repository (``data/`` folder layout):
``meta4xnli/detection/{splits,source_datasets}/{en,es}/*.tsv`` (one ``token<TAB>tag`` line per
token, a blank line after each sentence, tags ``B-METAPHOR``/``I-METAPHOR``/``O``),
``meta4xnli/interpretation/{splits,source_datasets}/*.tsv`` (NLI pairs with a header row), and the
cross-domain corpora ``vua/`` (VUA-20, English) and ``cometa/`` (CoMeta, Spanish).

Ids (issue 13): the detection split files list sentences with metaphors first (83% of the first
tenth of the EN test file have one, 2-5% of the last half), so a position id (``en-test-00012``)
and the file order told whether a sentence has a metaphor. Detection rows carry opaque ids
(:func:`detection_ids`: a hash of language, split and tokens) and are ordered by them;
:func:`original_ids` keeps the positions. Interpretation rows carry opaque ids too (a hash of language, premise
and hypothesis; XNLI's pair id stays in ``pair_id``). The source, VUA and CoMeta configs keep their position
ids (``source_id`` of a detection row names its sentence in a source config).
"""

from __future__ import annotations

import logging
import os
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from figbench.corpora.files import RemoteFile, verify_sha256
from figbench.corpora.ids import IdMaker

logger = logging.getLogger(__name__)

CORPUS = "meta4xnli"
#: Label sets (the builder's ``ClassLabel`` names, in id order).
TAGS: tuple[str, ...] = ("O", "B-METAPHOR", "I-METAPHOR")
NLI_LABELS: tuple[str, ...] = ("entailment", "neutral", "contradiction")
#: interpretation file stem -> metaphor status (the ``metaphor_status`` values)
METAPHOR_STATUS = {"met": "met", "no_met": "no_met", "nonrelevant": "non-relevant"}
METAPHOR_STATUSES: tuple[str, ...] = tuple(METAPHOR_STATUS.values())
INTERPRETATION_COLUMNS = [
    "language", "gold_label", "sentence1", "sentence2", "promptID", "pairID", "genre", "source_dataset",
]
LANGS = ("en", "es")
SOURCES = ("xnli_dev", "xnli_test", "esxnli")
SPLIT_FILES = {"train": "train", "validation": "dev", "test": "test"}
KINDS = ("detection", "source", "interpretation", "interpretation_sources", "vua", "cometa")

#: canonical download location of the original files (the repository's ``data/`` folder)
_BASE_URL = "https://raw.githubusercontent.com/elisanchez-beep/meta4xnli/main/data/"
#: sha256 of every original file, computed from the reference copy of the distribution
_SHA256 = {
    "cometa/cometa_test.tsv": "f6e9897e1a376e02759b7d4af60cb37762ebef8332075725bcfdb32c488d670f",
    "cometa/cometa_train.tsv": "adbf9fd3a362b6f9d9320a984aeb8c5351713936b11cce8941ca279123ea1755",
    "meta4xnli/detection/source_datasets/en/esxnli_hyp.tsv":
        "38d484bf2ccb8e3c5ba5ccd7553653a4459020d8c2bc21d3d454419f35ba8038",
    "meta4xnli/detection/source_datasets/en/esxnli_prem.tsv":
        "6ea45e63064b20ab65dd420f7039ffefe4a386905c4af5baaaeca01cc4b20eef",
    "meta4xnli/detection/source_datasets/en/xnli_dev_hyp.tsv":
        "4928ceabfc43265dc3d70b7fd22238def2dc7729d25aa7e46fcb21c797e78b9f",
    "meta4xnli/detection/source_datasets/en/xnli_dev_prem.tsv":
        "8e08f8c3b6420d87d0be0b8b4f4f63d111bcf17d3c3fe23616bec54972f0eab6",
    "meta4xnli/detection/source_datasets/en/xnli_test_hyp.tsv":
        "fa1e4667355d25e991b1218706ca43a03de901e4490672a97f7a190ab3b231fb",
    "meta4xnli/detection/source_datasets/en/xnli_test_prem.tsv":
        "7093718f39ef00f557ef16b4a84fe330423caec16675e5ee448a96f49a97cf99",
    "meta4xnli/detection/source_datasets/es/esxnli_hyp.tsv":
        "534cd5c75eaab49f0eae41d179da32b37b4aec31d474e1db689f28c8cc00f19f",
    "meta4xnli/detection/source_datasets/es/esxnli_prem.tsv":
        "e82999fa8faa09d88432dc6c7573e41a2cea43030e773c376aab3f31e452a3ac",
    "meta4xnli/detection/source_datasets/es/xnli_dev_hyp.tsv":
        "4df97c47980fab6db224490b3699a05ea6f6411f00b161b13fe4b09a88a215e4",
    "meta4xnli/detection/source_datasets/es/xnli_dev_prem.tsv":
        "48330ec794fd13a12deeddd281dfb8fa823bdc42c9264069c74ce1283c9bbd46",
    "meta4xnli/detection/source_datasets/es/xnli_test_hyp.tsv":
        "f5b6f48943d22a81871325858b476a18ca923c8fbf83f952584262db0346f3e0",
    "meta4xnli/detection/source_datasets/es/xnli_test_prem.tsv":
        "314fa4e6b126d673a234e0f84a6878fb18f2a8d5f14560341d52116c5a7971d0",
    "meta4xnli/detection/splits/en/meta4xnli_dev.tsv":
        "ddf94eb4a32494bf0b14b9a171c64a7a490065ea9b12a59cdfdb64ca5ecb54bf",
    "meta4xnli/detection/splits/en/meta4xnli_test.tsv":
        "2e073e9bab133772dfa676859526e81265e3b4acc6228c11848b25a4807efa2d",
    "meta4xnli/detection/splits/en/meta4xnli_train.tsv":
        "c576027fb13baef054391335e4fa5a882cf5d9c0b3f3cc1d8a6a6b588d242228",
    "meta4xnli/detection/splits/es/meta4xnli_dev.tsv":
        "522935f967dcef9a645140ee8ebb9c9d4334237180d7026535b7bb67f2083de6",
    "meta4xnli/detection/splits/es/meta4xnli_test.tsv":
        "36aa0c18420686ed2f18a540c744b98ce4dc8491ea9d7ccf1c81e1d8469903ad",
    "meta4xnli/detection/splits/es/meta4xnli_train.tsv":
        "f3d4d491130bcf009cf24d62e3d02a450d44ac08c34d9e3b0beb8fd71f99bbf3",
    "meta4xnli/interpretation/source_datasets/esxnli_met.tsv":
        "a6ea2785bfa6af14d454106fbcce3a1e65748534d9ae2c128be376401e10cff1",
    "meta4xnli/interpretation/source_datasets/esxnli_no_met.tsv":
        "a4b461bbb8dc4b0666738f1fba285fae9d65fdef797bfeef07a969220dae4f96",
    "meta4xnli/interpretation/source_datasets/esxnli_nonrelevant.tsv":
        "bf54f739c9404d7d006f7d8e74eeb41af4679780fc716c33b3fd38438cf462eb",
    "meta4xnli/interpretation/source_datasets/xnli_dev_met.tsv":
        "15f7a0fbad9623959b13398b71b4c48a566ea91fbd4aea4277cadc82d48384af",
    "meta4xnli/interpretation/source_datasets/xnli_dev_no_met.tsv":
        "dd04fd726d26402a3ae8a1c39a6ab01f05a8c2f91edf15ca406935011d06566a",
    "meta4xnli/interpretation/source_datasets/xnli_dev_nonrelevant.tsv":
        "e00d110fb0ff58a96d9123146cb27984b1ec0531ed1c6c934354472f3526ffb0",
    "meta4xnli/interpretation/source_datasets/xnli_test_met.tsv":
        "ef85018c56af056f3460c1e0818f5d59feaaecbde193eb0c0f7d254c1ca09617",
    "meta4xnli/interpretation/source_datasets/xnli_test_no_met.tsv":
        "692f973cd2a1e217162696fe49c2eb76098f3bb0ce3ef42172be8dac73bdb53f",
    "meta4xnli/interpretation/source_datasets/xnli_test_nonrelevant.tsv":
        "2368a90c8cff3ff6bb0a1382bfd43c50935122a5bc8be3624231c50d98bfe067",
    "meta4xnli/interpretation/splits/dev_met.tsv": "ec0a8e9fbb168b477069c27be3fa2df43580cbffa072ac7a32ff217db55093b6",
    "meta4xnli/interpretation/splits/dev_no_met.tsv":
        "5eedad6de732b4e928f13648d1d76324a5e4cce9173ab3639c0026082544b335",
    "meta4xnli/interpretation/splits/dev_nonrelevant.tsv":
        "523883f7b012e325692295dcaef16dce981e4c30f81911abb71150d80b72dc48",
    "meta4xnli/interpretation/splits/test_met.tsv": "0857df22bcfdaca557b8ad239d9b0ec90613496f29790c42887ba1e95039678f",
    "meta4xnli/interpretation/splits/test_no_met.tsv":
        "af89faea50efba6d247414c49ca5555bd77f1673d630f0fe81f6e3500b169519",
    "meta4xnli/interpretation/splits/test_nonrelevant.tsv":
        "d90bfca51ed8a2a3ed1a41e6e729376570ca0c3845473289acb2bc8fbf0374c8",
    "meta4xnli/interpretation/splits/train_met.tsv": "1ba92d4aa31de82d671bf00b6cca660624e76ad598525c96612472f9061601a3",
    "meta4xnli/interpretation/splits/train_no_met.tsv":
        "0bfeeb2c6ce0d2413f2b46e5c33ad249e4c14284e1ad455c5b9b0f32cfb64fd7",
    "meta4xnli/interpretation/splits/train_nonrelevant.tsv":
        "d9dfc7f4c81a3a980e6b334380b20b569dddabe6c974172f58acb4e80e2b72f0",
    "vua/vua_dev.tsv": "4ee1d38bf53c09f7c223ac65db6000b208f4f4b6bf34db28cdc4c69a40258518",
    "vua/vua_test.tsv": "9e1599cdea2b8f502632b6ac4b4087d4f1c0d6575d359a24b8350efacd170b78",
    "vua/vua_train.tsv": "b3de83f69fc5a29e16ab1cb1c57dc5dea4b707826f9b655854804a6a258daf4f",
}
_URLS = {rel: _BASE_URL + rel for rel in _SHA256}


def remote(rel: str) -> RemoteFile:
    """The :class:`RemoteFile` of one original file (its URL and recorded sha256)."""
    return RemoteFile(rel, _URLS[rel], _SHA256.get(rel))


#: Every original file of the distribution.
FILES: tuple[RemoteFile, ...] = tuple(remote(rel) for rel in _SHA256)


class ConfigLike(Protocol):
    kind: str
    lang: str
    source: str


# ------------------------------------------------------------------------------------------ files

def _detection_split(lang: str, split: str) -> str:
    return f"meta4xnli/detection/splits/{lang}/meta4xnli_{SPLIT_FILES[split]}.tsv"


def _detection_source(lang: str, source: str, part: str) -> str:
    return f"meta4xnli/detection/source_datasets/{lang}/{source}_{part}.tsv"


def _source_files(lang: str) -> list[str]:
    return [_detection_source(lang, s, p) for s in SOURCES for p in ("prem", "hyp")]


def _files(config: ConfigLike) -> dict[str, list[str]]:
    """Split name -> the relative paths it is read from (in order)."""
    if config.kind == "detection":
        return {split: [_detection_split(config.lang, split)] for split in SPLIT_FILES}
    if config.kind == "source":
        return {"premise": [_detection_source(config.lang, config.source, "prem")],
                "hypothesis": [_detection_source(config.lang, config.source, "hyp")]}
    if config.kind == "interpretation":
        return {split: [f"meta4xnli/interpretation/splits/{stem}_{status}.tsv" for status in METAPHOR_STATUS]
                for split, stem in SPLIT_FILES.items()}
    if config.kind == "interpretation_sources":
        return {src: [f"meta4xnli/interpretation/source_datasets/{src}_{status}.tsv" for status in METAPHOR_STATUS]
                for src in SOURCES}
    if config.kind == "vua":
        return {split: [f"vua/vua_{stem}.tsv"] for split, stem in SPLIT_FILES.items()}
    if config.kind == "cometa":
        return {"train": ["cometa/cometa_train.tsv"], "test": ["cometa/cometa_test.tsv"]}
    raise ValueError(f"{CORPUS}: unknown config kind {config.kind!r}")


def _status(rel: str) -> str:
    """Metaphor status of an interpretation file from its name (``*_met``, ``*_no_met``, ``*_nonrelevant``)."""
    stem = Path(rel).stem
    for suffix in ("no_met", "nonrelevant", "met"):
        if stem.endswith("_" + suffix):
            return METAPHOR_STATUS[suffix]
    raise ValueError(f"{CORPUS}: cannot tell the metaphor status of {rel}")


def _required(config: ConfigLike) -> list[str]:
    rels = [r for paths in _files(config).values() for r in paths]
    if config.kind == "detection":  # the source files give each sentence its source
        rels += _source_files(config.lang)
    return list(dict.fromkeys(rels))


def required_files(config: ConfigLike) -> list[RemoteFile]:
    """The original files a config reads, with their URLs and sha256."""
    return [remote(rel) for rel in _required(config)]


def verify_checksum(path: str | os.PathLike, relative: str) -> None:
    """Raise ``ValueError`` naming the file when ``path`` does not have the recorded sha256."""
    expected = _SHA256.get(relative)
    if expected is None:
        raise ValueError(f"{CORPUS}: no recorded checksum for {relative}")
    verify_sha256(path, expected, corpus=CORPUS, label=relative)


# ---------------------------------------------------------------------------------------- parsing

@dataclass
class TaggedSentence:
    tokens: list[str]
    tags: list[str]
    line: int  # 1-based line of the first token


@dataclass
class TaggedFile:
    sentences: list[TaggedSentence]
    #: defects of the original data, kept as they are: kind -> list of (line, detail)
    defects: dict[str, list[tuple[int, str]]]


def read_tagged(path: str | os.PathLike, name: str | None = None) -> TaggedFile:
    """Parse a ``token<TAB>tag`` file (blank line between sentences).

    Raises ``ValueError`` naming file and line for a wrong column count or an unknown tag. Original
    defects that keep the data usable are recorded in ``defects``: ``empty_token`` (a line with an
    empty token) and ``orphan_inside_tag`` (``I-METAPHOR`` not following a metaphor tag; invalid
    in strict IOB2, kept unchanged).
    """
    name = name or str(path)
    sentences: list[TaggedSentence] = []
    defects: dict[str, list[tuple[int, str]]] = defaultdict(list)
    tokens: list[str] = []
    tags: list[str] = []
    first = 0
    with open(path, encoding="utf-8", newline="") as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.rstrip("\n").rstrip("\r")
            if line == "":
                if tokens:
                    sentences.append(TaggedSentence(tokens, tags, first))
                    tokens, tags = [], []
                continue
            parts = line.split("\t")
            if len(parts) != 2:
                raise ValueError(
                    f"{name}, line {lineno}: expected 2 tab-separated columns (token, tag), "
                    f"got {len(parts)}: {line[:80]!r}"
                )
            token, tag = parts
            if tag not in TAGS:
                raise ValueError(f"{name}, line {lineno}: unknown tag {tag!r} (expected one of {list(TAGS)})")
            if not tokens:
                first = lineno
            if token == "":
                defects["empty_token"].append((lineno, f"sentence {len(sentences)}"))
            if tag == "I-METAPHOR" and (not tags or tags[-1] == "O"):
                defects["orphan_inside_tag"].append((lineno, f"sentence {len(sentences)}, token {token!r}"))
            tokens.append(token)
            tags.append(tag)
    if tokens:
        sentences.append(TaggedSentence(tokens, tags, first))
    return TaggedFile(sentences, dict(defects))


def read_interpretation(path: str | os.PathLike, name: str | None = None) -> list[tuple[int, dict]]:
    """Rows of an interpretation TSV as ``(line, {column: value})``; strict column checks."""
    name = name or str(path)
    rows = []
    with open(path, encoding="utf-8", newline="") as f:
        header = f.readline().rstrip("\n").rstrip("\r").split("\t")
        if header != INTERPRETATION_COLUMNS:
            raise ValueError(f"{name}, line 1: header {header} differs from the expected {INTERPRETATION_COLUMNS}")
        for lineno, raw in enumerate(f, 2):
            line = raw.rstrip("\n").rstrip("\r")
            if line == "":
                continue
            parts = line.split("\t")
            if len(parts) != len(INTERPRETATION_COLUMNS):
                raise ValueError(
                    f"{name}, line {lineno}: expected {len(INTERPRETATION_COLUMNS)} tab-separated columns, "
                    f"got {len(parts)}"
                )
            row = dict(zip(INTERPRETATION_COLUMNS, parts))
            if row["gold_label"] not in NLI_LABELS:
                raise ValueError(f"{name}, line {lineno}: unknown gold_label {row['gold_label']!r} "
                                 f"(expected {list(NLI_LABELS)})")
            if row["language"] not in LANGS:
                raise ValueError(f"{name}, line {lineno}: unknown language {row['language']!r}")
            for key in ("sentence1", "sentence2", "pairID"):
                if not row[key].strip():
                    raise ValueError(f"{name}, line {lineno}: empty {key}")
            rows.append((lineno, row))
    return rows


def assign_sources(split_sentences: dict[str, list[TaggedSentence]],
                   source_files: dict[str, TaggedFile], lang: str) -> dict[str, list[tuple[str, str]]]:
    """Give every split sentence its source file and sentence id, matching tokens and tags.

    Identical sentences inside one source are assigned in order (train, then validation, then
    test). A sentence found in no source file gets ``("", "")``.
    """
    index: dict[tuple, list[tuple[str, str]]] = defaultdict(list)
    for source, tf in source_files.items():
        for i, s in enumerate(tf.sentences):
            index[(tuple(s.tokens), tuple(s.tags))].append((source, f"{lang}-{source}-{i:05d}"))
    for v in index.values():
        v.reverse()  # pop() from the end takes the first occurrence
    out = {}
    for split, sents in split_sentences.items():
        out[split] = [(lst.pop() if (lst := index.get((tuple(s.tokens), tuple(s.tags)))) else ("", "")) for s in sents]
    return out



# ------------------------------------------------------------------------------------------- splits

@dataclass(frozen=True)
class TaggedSplit:
    """One split of a tagged config: the parsed file, the id prefix, each sentence's (source, source id),
    and the released order: ``(id, sentence index)`` per row (opaque ids in id order for detection,
    position ids ``{prefix}-{i:05d}`` in file order otherwise)."""

    tagged: TaggedFile
    prefix: str
    sources: tuple[tuple[str, str], ...]
    rows: tuple[tuple[str, int], ...] = ()


def detection_ids(lang: str, split: str, sentences: list[TaggedSentence]) -> list[str]:
    """Opaque ids of one detection split's sentences (file order): a hash of ``meta4xnli``, the
    language, the split and the tokens; repeated sentences are numbered. No tag or position is hashed."""
    make = IdMaker(f"meta4xnli detection {lang} {split}")
    return [make(CORPUS, "detection", lang, split, " ".join(s.tokens)) for s in sentences]


def original_ids(lang: str, root: str | os.PathLike | None = None, *, data_dir: str | None = None) -> dict[str, str]:
    """Opaque detection id -> position id (``{lang}-{split}-{i:05d}``, the id before issue 13); never a column."""
    from figbench.paths import corpus_dir

    folder = Path(root) if root is not None else corpus_dir(CORPUS, data_dir)
    out: dict[str, str] = {}
    for split in SPLIT_FILES:
        rel = _detection_split(lang, split)
        tf = read_tagged(folder / rel, rel)
        out.update({oid: f"{lang}-{split}-{i:05d}" for i, oid in enumerate(detection_ids(lang, split, tf.sentences))})
    return out


def tagged_splits(config: ConfigLike, files: dict[str, Path]) -> dict[str, TaggedSplit]:
    """Every split of a detection, source, ``vua`` or ``cometa`` config, parsed and checked.

    ``files``: relative path -> local path. Defects of the original data are logged, kept as they are.
    """
    out: dict[str, TaggedSplit] = {}
    if config.kind == "detection":
        parsed = {split: read_tagged(files[rels[0]], rels[0]) for split, rels in _files(config).items()}
        sources = {Path(r).stem: read_tagged(files[r], r) for r in _source_files(config.lang)}
        assigned = assign_sources({s: tf.sentences for s, tf in parsed.items()}, sources, config.lang)
        for split, tf in parsed.items():
            rels = _files(config)[split]
            if not tf.sentences:
                _empty(config, split, rels)
            missing = sum(1 for src, _ in assigned[split] if not src)
            if missing:
                logger.warning(f"{CORPUS} {getattr(config, 'name', config.kind)} {split}: {missing} sentences found "
                               "in no source file")
            log_defects(rels[0], tf)
            ids = detection_ids(config.lang, split, tf.sentences)
            order = tuple(sorted(zip(ids, range(len(ids)))))
            out[split] = TaggedSplit(tf, f"{config.lang}-{split}", tuple(assigned[split]), order)
        return out
    if config.kind not in ("source", "vua", "cometa"):
        raise ValueError(f"{CORPUS}: config kind {config.kind!r} has no tagged splits")
    for split, rels in _files(config).items():
        tf = read_tagged(files[rels[0]], rels[0])
        if not tf.sentences:
            _empty(config, split, rels)
        log_defects(rels[0], tf)
        name = Path(rels[0]).stem if config.kind == "source" else config.kind
        prefix = f"{config.lang}-{name}" if config.kind == "source" else f"{config.kind}-{split}"
        ids = [f"{prefix}-{i:05d}" for i in range(len(tf.sentences))]
        out[split] = TaggedSplit(tf, prefix, tuple((name, i) for i in ids), tuple((i, k) for k, i in enumerate(ids)))
    return out


def interpretation_splits(config: ConfigLike, files: dict[str, Path]) -> dict[str, tuple[dict, ...]]:
    """Every split of an interpretation config as example rows in opaque-id order; a pair id repeated
    anywhere raises. Ids hash the language, premise and hypothesis (:class:`IdMaker`): XNLI's pair ids
    (``pair_id``, kept as a column) number a premise's three hypotheses in sequence, and with the EN/ES
    copies of a pair sharing one they let a probe on the ids alone beat chance (0.456 vs 0.318)."""
    seen: dict[str, str] = {}
    out: dict[str, tuple[dict, ...]] = {}
    for split, rels in _files(config).items():
        rows = []
        make = IdMaker(f"meta4xnli interpretation {split}")
        for rel in rels:
            status = _status(rel)
            for lineno, row in read_interpretation(files[rel], rel):
                key = f"{row['pairID']}-{row['language']}"
                if key in seen:
                    raise ValueError(f"{rel}, line {lineno}: duplicate pair {row['pairID']!r} "
                                     f"({row['language']}), first seen at {seen[key]}")
                seen[key] = f"{rel}, line {lineno}"
                oid = make(CORPUS, "interpretation", row["language"], row["sentence1"], row["sentence2"])
                rows.append(interpretation_example(oid, row, status))
        if not rows:
            _empty(config, split, rels)
        out[split] = tuple(sorted(rows, key=lambda r: r["id"]))
    return out


def log_defects(rel: str, tf: TaggedFile) -> None:
    for kind, where in tf.defects.items():
        logger.warning(f"{CORPUS}: {rel}: {len(where)} {kind} defect(s) of the original data kept as is "
                       f"(first at line {where[0][0]})")


def _empty(config: ConfigLike, split: str, rels: list[str]) -> None:
    name = getattr(config, "name", config.kind)
    raise ValueError(f"{CORPUS} {name}: split {split!r} has no examples in {', '.join(rels)}; "
                     "the file(s) are empty or truncated")


def interpretation_example(key: str, row: dict, status: str) -> dict:
    return {
        "id": key,
        "language": row["language"],
        "gold_label": row["gold_label"],
        "premise": row["sentence1"],
        "hypothesis": row["sentence2"],
        "metaphor_status": status,
        "genre": row["genre"],
        "source": row["source_dataset"],
        "prompt_id": row["promptID"],
        "pair_id": row["pairID"],
    }
