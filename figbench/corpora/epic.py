"""ePiC (Ghosh & Srivastava, ACL 2022) reading: the files, the parser and the label convention.

Files (:data:`FILES`): ``full_dataset.json`` (2,500 ``{pk, fields}`` narrative records),
``all_proverbs.json`` (250 proverbs) and, per setting (``seen``/``unseen``), the label map and the
train/test record ids under ``data_splits/``.

Label convention (the ``label`` column of the ``seen``/``unseen`` configs): the ``ClassLabel``
names are the proverb texts in label-map index order (:func:`label_names`: 250 seen, 150 unseen
training proverbs); :data:`NO_LABEL` (-1) marks a narrative whose proverb has no class (the unseen
test proverbs). Before the files are read, :data:`NUM_LABELS` sizes the ``ClassLabel``.

Span offsets: each span is searched in its text, exactly first, then ignoring case (:func:`locate`).

Ids (issue 13): a record's ``pk`` (``Q12N3``) names its proverb, i.e. the label. Released rows
carry an opaque id instead, a hash of the narrative text (:func:`narrative_id`), the same in every
config; span pairs are ``<id>-<k>``. Rows are ordered by id (the split files list the narratives
proverb by proverb). :func:`original_ids` keeps the mapping to the pks.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from figbench.corpora import files
from figbench.corpora.files import RemoteFile
from figbench.corpora.ids import IdMaker

CORPUS = "epic"
#: ``label`` of a narrative whose proverb has no class in the setting (unseen test).
NO_LABEL = -1
#: Number of label classes per setting (the label maps' sizes).
NUM_LABELS = {"seen": 250, "unseen": 150}

_DATA_URL = "https://raw.githubusercontent.com/epic-benchmark/epic-benchmark.github.io/18121b097dd396373447fd36f009fc3034f35a4a/data/"
_SPLITS_URL = "https://raw.githubusercontent.com/sgdgp/epic/6b6ddd2c215a0897dbc50879431d21018c216d33/data/data_splits/"

DATASET_FILE = "full_dataset.json"
PROVERBS_FILE = "all_proverbs.json"


def split_file(setting: str, kind: str) -> str:
    """``kind``: ``label_map``, ``train_data_indices`` or ``test_data_indices``."""
    return f"data_splits/task_1_proverb_only_{setting}_{kind}.json"


SETTINGS = ("seen", "unseen")
#: Relative paths of the eight original files.
FILE_NAMES = [DATASET_FILE, PROVERBS_FILE] + [split_file(s, k) for s in SETTINGS
                                              for k in ("label_map", "train_data_indices", "test_data_indices")]
#: sha256 of the original files, computed from the copies in ../shared/data/epic.
SHA256 = {
    "full_dataset.json": "7191a5424aee5ee2c0fc0e6f1fe8c1d5df5a66d44105ab46adb96914e44dc148",
    "all_proverbs.json": "4bb86488fae90a43c1063ceb7015ccfc2682416eb04858de47ee6d90dada935f",
    "data_splits/task_1_proverb_only_seen_label_map.json":
        "390fc7cf4cbf701be5044025b2934f60673464b29f2182bc0c8618f50933fb8a",
    "data_splits/task_1_proverb_only_seen_test_data_indices.json":
        "d87fab16271b8a6882bf70bd75f27a004ed89486ea58b0c6153942c91b9d094b",
    "data_splits/task_1_proverb_only_seen_train_data_indices.json":
        "6dd68016ebb49aa6eb7c2c83b2d1456fef9d988f729f1d4ab2108d01cb323081",
    "data_splits/task_1_proverb_only_unseen_label_map.json":
        "4ac093c9fd536920438eb517254a14b009d32d9892d39a2afc08b40824f26763",
    "data_splits/task_1_proverb_only_unseen_test_data_indices.json":
        "24c4045616a70829f700d685eb790ad9ced9e5a037168fe4614207fb6a5a3768",
    "data_splits/task_1_proverb_only_unseen_train_data_indices.json":
        "f7c4214de0a98044da1fc00cca4903d98e9ddfa82ab2ca2e4c25a536ee32e7bd",
}
MAX_SPANS = 5
_PK = re.compile(r"^(Q\d+)N\d+$")
#: The eight original files with their URLs and sha256.
FILES: tuple[RemoteFile, ...] = tuple(
    RemoteFile(f, _SPLITS_URL + f.split("/", 1)[1] if f.startswith("data_splits/") else _DATA_URL + f, SHA256[f])
    for f in FILE_NAMES)


class EpicFormatError(ValueError):
    """An ePiC file is malformed; the message names the file and the record."""


# ------------------------------------------------------------------------------------ parsing


def _load_json(path: Path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except json.JSONDecodeError as e:
        raise EpicFormatError(f"{path}: not valid JSON (line {e.lineno}, column {e.colno}): {e.msg}") from None


def locate(span: str, text: str) -> tuple[int, int, str, int]:
    """(start, end, match, occurrences) of ``span`` in ``text``: exact first, then ignoring case."""
    start = text.find(span)
    if start >= 0:
        return start, start + len(span), "exact", text.count(span)
    hits = list(re.finditer(re.escape(span), text, flags=re.IGNORECASE))
    if hits:
        return hits[0].start(), hits[0].end(), "case_insensitive", len(hits)
    return -1, -1, "none", 0


@dataclass
class EpicCorpus:
    """The parsed, validated corpus."""

    records: dict  # pk -> {"id", "narrative", "proverb", "proverb_id", "pairs"}
    proverbs: dict  # proverb_id -> text, in all_proverbs.json order
    label_maps: dict  # setting -> {proverb_id: index}
    splits: dict  # setting -> {"train": [pk], "test": [pk]}
    report: dict


def read_epic(paths: dict[str, Path], on_unaligned: str = "error") -> EpicCorpus:
    """Parse and check every file (``paths``: relative name in :data:`FILE_NAMES` -> local path)."""
    if on_unaligned not in ("error", "flag"):
        raise ValueError(f"epic: on_unaligned must be 'error' or 'flag', got {on_unaligned!r}")
    report = {"case_insensitive_narrative_spans": 0, "case_insensitive_proverb_spans": 0,
              "unaligned_narrative_spans": 0, "unaligned_proverb_spans": 0,
              "ambiguous_narrative_spans": 0, "ambiguous_proverb_spans": 0, "pairs": 0}
    pfile, dfile = paths[PROVERBS_FILE], paths[DATASET_FILE]
    proverbs = _read_proverbs(pfile)
    raw = _load_json(dfile)
    if not isinstance(raw, list):
        raise EpicFormatError(f"{dfile}: expected a list of {{pk, fields}} records")
    records: dict[str, dict] = {}
    make_id = IdMaker(f"{dfile}: narratives")
    for i, rec in enumerate(raw):
        pk, record = _read_record(rec, i, dfile, pfile, proverbs, make_id, report, on_unaligned, records)
        records[pk] = record
        report["pairs"] += len(record["pairs"])

    by_text = {text.lower(): pid for pid, text in proverbs.items()}
    label_maps, splits = {}, {}
    for setting in SETTINGS:
        lfile = paths[split_file(setting, "label_map")]
        label_maps[setting] = mapping = _read_label_map(lfile, by_text, pfile)
        splits[setting] = {part: _read_split_ids(paths[split_file(setting, f"{part}_data_indices")], records, dfile)
                           for part in ("train", "test")}
        overlap = set(splits[setting]["train"]) & set(splits[setting]["test"])
        if overlap:
            raise EpicFormatError(f"epic {setting}: {len(overlap)} record(s) in both train and test, "
                                  f"e.g. {sorted(overlap)[0]!r}")
        missing = {records[x]["proverb_id"] for x in splits[setting]["train"]} - set(mapping)
        if missing:
            raise EpicFormatError(f"{lfile}: training proverb(s) without a label: {', '.join(sorted(missing)[:5])}")
    return EpicCorpus(records=records, proverbs=proverbs, label_maps=label_maps, splits=splits, report=report)


def _read_proverbs(pfile: Path) -> dict[str, str]:
    """``all_proverbs.json``: quote id -> proverb text."""
    raw = _load_json(pfile)
    if not isinstance(raw, list):
        raise EpicFormatError(f"{pfile}: expected a list of {{quote_id, quote}} records")
    proverbs: dict[str, str] = {}
    for i, rec in enumerate(raw):
        if (not isinstance(rec, dict) or not isinstance(rec.get("quote_id"), str)
                or not isinstance(rec.get("quote"), str)):
            raise EpicFormatError(f"{pfile}: record {i} lacks a string 'quote_id' or 'quote'")
        if rec["quote_id"] in proverbs:
            raise EpicFormatError(f"{pfile}: duplicate quote_id {rec['quote_id']!r} (record {i})")
        proverbs[rec["quote_id"]] = rec["quote"].strip()
    return proverbs


def _read_record(rec, i: int, dfile: Path, pfile: Path, proverbs: dict[str, str], make_id: IdMaker,
                 report: dict[str, int], on_unaligned: str, records: dict[str, dict]) -> tuple[str, dict]:
    """One record of ``full_dataset.json`` (a pk not in ``records``): its pk and its row (id, narrative,
    proverb, aligned span pairs)."""
    pk = rec.get("pk") if isinstance(rec, dict) else None
    fields = rec.get("fields") if isinstance(rec, dict) else None
    if not isinstance(pk, str) or not isinstance(fields, dict):
        raise EpicFormatError(f"{dfile}: record {i} lacks a string 'pk' or a 'fields' object")
    if pk in records:
        raise EpicFormatError(f"{dfile}: duplicate pk {pk!r} (record {i})")
    m = _PK.match(pk)
    if not m:
        raise EpicFormatError(f"{dfile}: record {pk!r}: pk is not of the form Q<proverb>N<narrative>")
    proverb_id = m.group(1)
    if proverb_id not in proverbs:
        raise EpicFormatError(f"{dfile}: record {pk!r}: proverb {proverb_id} is not in {pfile.name}")
    for name in (["quote", "narrative"]
                 + [f"span_{s}_{k}" for k in range(1, MAX_SPANS + 1) for s in ("quote", "narrative")]):
        if not isinstance(fields.get(name), str):
            raise EpicFormatError(f"{dfile}: record {pk!r}: field {name!r} is missing or not a string")
    quote, narrative = fields["quote"].strip(), fields["narrative"]
    if quote != proverbs[proverb_id]:
        raise EpicFormatError(f"{dfile}: record {pk!r}: quote {quote!r} differs from proverb {proverb_id} "
                              f"{proverbs[proverb_id]!r} in {pfile.name}")
    if not narrative.strip():
        raise EpicFormatError(f"{dfile}: record {pk!r}: empty narrative")
    rid = narrative_id(make_id, narrative)
    where = f"{dfile}: record {pk!r}"
    pairs = []
    for k in range(1, MAX_SPANS + 1):
        sq, sn = fields[f"span_quote_{k}"].strip(), fields[f"span_narrative_{k}"].strip()
        if not sq and not sn:
            continue
        if not sq or not sn:
            raise EpicFormatError(f"{where}: span pair {k} has only one side "
                                  f"(span_quote_{k}={sq!r}, span_narrative_{k}={sn!r})")
        pair = {"pair_id": f"{rid}-{k}", "proverb_span": sq, "narrative_span": sn}
        pair.update(_align(where, "proverb", sq, quote, f"span_quote_{k}", report, on_unaligned))
        pair.update(_align(where, "narrative", sn, narrative, f"span_narrative_{k}", report, on_unaligned))
        pairs.append(pair)
    return pk, {"id": rid, "narrative": narrative, "proverb": quote, "proverb_id": proverb_id, "pairs": pairs}


def _align(where: str, side: str, span: str, text: str, field: str, report: dict[str, int],
           on_unaligned: str) -> dict:
    """Offsets, match kind and occurrences of one side of a span pair in its text; counted in ``report``."""
    start, end, match, occurrences = locate(span, text)
    if match == "none":
        if on_unaligned == "error":
            raise EpicFormatError(f"{where}: {field} {span!r} is not found in its "
                                  f"{'quote' if side == 'proverb' else 'narrative'}, even ignoring case "
                                  "(pass on_unaligned='flag' to keep it with offsets -1)")
        report[f"unaligned_{side}_spans"] += 1
    elif match == "case_insensitive":
        report[f"case_insensitive_{side}_spans"] += 1
    if occurrences > 1:
        report[f"ambiguous_{side}_spans"] += 1
    return {f"{side}_start": start, f"{side}_end": end, f"{side}_match": match, f"{side}_occurrences": occurrences}


def _read_label_map(lfile: Path, by_text: dict[str, str], pfile: Path) -> dict[str, int]:
    """A ``label_map`` file: proverb id -> label index (0..n-1)."""
    raw = _load_json(lfile)
    if not isinstance(raw, dict):
        raise EpicFormatError(f"{lfile}: expected an object mapping proverb text to label index")
    mapping = {}
    for text, index in raw.items():
        pid = by_text.get(str(text).strip().lower())
        if pid is None:
            raise EpicFormatError(f"{lfile}: label {text!r} matches no proverb of {pfile.name}")
        if not isinstance(index, int) or isinstance(index, bool):
            raise EpicFormatError(f"{lfile}: label {text!r} has a non-integer index {index!r}")
        mapping[pid] = index
    if sorted(mapping.values()) != list(range(len(mapping))):
        raise EpicFormatError(f"{lfile}: label indices are not 0..{len(mapping) - 1} without gaps or repeats")
    return mapping


def _read_split_ids(sfile: Path, records: dict[str, dict], dfile: Path) -> list[str]:
    """A ``*_data_indices`` file: the record ids of one split, each known and listed once."""
    ids = _load_json(sfile)
    if not isinstance(ids, list) or not all(isinstance(x, str) for x in ids):
        raise EpicFormatError(f"{sfile}: expected a list of record ids")
    seen_ids: set[str] = set()
    for x in ids:
        if x not in records:
            raise EpicFormatError(f"{sfile}: record {x!r} is not in {dfile.name}")
        if x in seen_ids:
            raise EpicFormatError(f"{sfile}: duplicate record id {x!r}")
        seen_ids.add(x)
    return ids


def narrative_id(make: IdMaker, narrative: str) -> str:
    """Opaque id of a narrative: sha256 of ``epic`` and the narrative text (16 hex digits), never its
    pk, proverb or position; identical narratives (none in the release) are numbered in file order."""
    return make(CORPUS, narrative)


def ordered_pks(epic: EpicCorpus, setting: str, part: str) -> list[str]:
    """The pks of one split in the released order: by opaque id (the split files group them by proverb)."""
    return sorted(epic.splits[setting][part], key=lambda pk: epic.records[pk]["id"])


def original_ids(epic: EpicCorpus) -> dict[str, str]:
    """Opaque id -> original id, for narratives (``Q12N3``) and span pairs (``Q12N3-2``); kept here, never a column."""
    out: dict[str, str] = {}
    for pk, rec in epic.records.items():
        out[rec["id"]] = pk
        for pair in rec["pairs"]:
            out[pair["pair_id"]] = f"{pk}-{pair['pair_id'].rsplit('-', 1)[1]}"
    return out


def label_names(epic: EpicCorpus, setting: str) -> list[str]:
    """``ClassLabel`` names of a setting: the proverb texts in label-map index order."""
    by_index = {i: pid for pid, i in epic.label_maps[setting].items()}
    return [epic.proverbs[by_index[i]] for i in range(len(by_index))]


def placeholder_names(setting: str) -> list[str]:
    """Before the files are read the label names are unknown; these only size the ``ClassLabel``."""
    return [f"label_{i}" for i in range(NUM_LABELS[setting])]


def read_files(root: Path, *, on_unaligned: str = "error", data_dir: str | None = None,
               download: bool | None = None) -> EpicCorpus:
    """The corpus from the folder ``root`` (missing files downloaded there when allowed), parsed and checked."""
    paths = files.resolve(CORPUS, root, FILES, data_dir=data_dir, download=download)
    return read_epic(paths, on_unaligned)


def proverb_rows(epic: EpicCorpus):
    """``(id, row)`` of the ``proverbs`` config: each proverb with its labels, unseen split and narratives."""
    counts: dict[str, int] = {}
    for rec in epic.records.values():
        counts[rec["proverb_id"]] = counts.get(rec["proverb_id"], 0) + 1
    unseen_test = {epic.records[x]["proverb_id"] for x in epic.splits["unseen"]["test"]}
    for pid, text in epic.proverbs.items():
        yield pid, {"id": pid, "proverb": text, "seen_label": epic.label_maps["seen"].get(pid, NO_LABEL),
                    "unseen_label": epic.label_maps["unseen"].get(pid, NO_LABEL),
                    "unseen_split": "test" if pid in unseen_test else "train",
                    "num_narratives": counts.get(pid, 0)}
