"""ePiC: Employing Proverbs in Context (Ghosh & Srivastava, ACL 2022), as a `datasets` builder.

Configs
- ``seen`` (default): narrative -> proverb, train 1,500 / test 1,000 narratives over the same 250
  proverbs (``data_splits/task_1_proverb_only_seen_*``); ``label`` is the index in the seen label map.
- ``unseen``: train 1,500 narratives of 150 proverbs / test 1,000 narratives of the other 100;
  ``label`` indexes the 150 training proverbs and is -1 on test (those proverbs have no training
  class: rank ``proverb_id`` against the 100 test proverbs, listed by the ``proverbs`` config).
- ``alignment``: narrative, proverb and the aligned span pairs with character offsets (5,438
  pairs), on the seen train/test split as in the paper's alignment experiments.
- ``proverbs``: the 250 proverbs with their seen/unseen label indices.

Span offsets: each span is searched in its text, exactly first, then ignoring case. The original
release has 5 narrative spans and 13 proverb spans that differ from their text only in letter case;
they get offsets with ``*_match == "case_insensitive"``. A span absent even ignoring case raises a
``ValueError`` naming file, record and field (``on_unaligned="flag"`` instead keeps it with offsets
-1 and ``*_match == "none"``). A span occurring several times gets its first occurrence;
``*_occurrences`` says how many there are.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import datasets

from figbench import checksums
from figbench.paths import corpus_dir, require_files

_CITATION = """\
@inproceedings{ghosh-srivastava-2022-epic,
    title = "e{P}i{C}: Employing Proverbs in Context as a Benchmark for Abstract Language Understanding",
    author = "Ghosh, Sayan and Srivastava, Shashank",
    booktitle = "Proceedings of the 60th Annual Meeting of the Association for Computational Linguistics (Volume 1: Long Papers)",
    year = "2022",
    address = "Dublin, Ireland",
    publisher = "Association for Computational Linguistics",
    pages = "3989--4004",
    url = "https://aclanthology.org/2022.acl-long.276",
    doi = "10.18653/v1/2022.acl-long.276",
}
"""
_DESCRIPTION = (
    "ePiC: 2,500 crowdsourced narratives, 10 for each of 250 English proverbs, with aligned span pairs "
    "between proverb and narrative. Tasks: proverb prediction (seen and unseen proverbs) and alignment prediction."
)
_HOMEPAGE = "https://epic-benchmark.github.io/"
_LICENSE = "unknown"

_DATA_URL = "https://raw.githubusercontent.com/epic-benchmark/epic-benchmark.github.io/18121b097dd396373447fd36f009fc3034f35a4a/data/"
_SPLITS_URL = "https://raw.githubusercontent.com/sgdgp/epic/6b6ddd2c215a0897dbc50879431d21018c216d33/data/data_splits/"

DATASET_FILE = "full_dataset.json"
PROVERBS_FILE = "all_proverbs.json"


def split_file(setting: str, kind: str) -> str:
    """``kind``: ``label_map``, ``train_data_indices`` or ``test_data_indices``."""
    return f"data_splits/task_1_proverb_only_{setting}_{kind}.json"


SETTINGS = ("seen", "unseen")
FILES = [DATASET_FILE, PROVERBS_FILE] + [split_file(s, k) for s in SETTINGS
                                         for k in ("label_map", "train_data_indices", "test_data_indices")]
URLS = {f: (_SPLITS_URL + f.split("/", 1)[1]) if f.startswith("data_splits/") else _DATA_URL + f for f in FILES}
#: sha256 of the original files, computed from the copies in ../shared/data/epic.
SHA256 = {
    "full_dataset.json": "7191a5424aee5ee2c0fc0e6f1fe8c1d5df5a66d44105ab46adb96914e44dc148",
    "all_proverbs.json": "4bb86488fae90a43c1063ceb7015ccfc2682416eb04858de47ee6d90dada935f",
    "data_splits/task_1_proverb_only_seen_label_map.json": "390fc7cf4cbf701be5044025b2934f60673464b29f2182bc0c8618f50933fb8a",
    "data_splits/task_1_proverb_only_seen_test_data_indices.json": "d87fab16271b8a6882bf70bd75f27a004ed89486ea58b0c6153942c91b9d094b",
    "data_splits/task_1_proverb_only_seen_train_data_indices.json": "6dd68016ebb49aa6eb7c2c83b2d1456fef9d988f729f1d4ab2108d01cb323081",
    "data_splits/task_1_proverb_only_unseen_label_map.json": "4ac093c9fd536920438eb517254a14b009d32d9892d39a2afc08b40824f26763",
    "data_splits/task_1_proverb_only_unseen_test_data_indices.json": "24c4045616a70829f700d685eb790ad9ced9e5a037168fe4614207fb6a5a3768",
    "data_splits/task_1_proverb_only_unseen_train_data_indices.json": "f7c4214de0a98044da1fc00cca4903d98e9ddfa82ab2ca2e4c25a536ee32e7bd",
}
MAX_SPANS = 5
_PK = re.compile(r"^(Q\d+)N\d+$")


class EpicFormatError(ValueError):
    """An ePiC file is malformed; the message names the file and the record."""


def verify_sha256(path: str | Path, expected: str | None, what: str) -> None:
    """Raise ``ChecksumError`` (a ``ValueError``) naming ``what`` when the sha256 is not ``expected``."""
    checksums.verify_sha256(path, expected, corpus="epic", label=what)


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
class Epic:
    """The parsed, validated corpus."""

    records: dict  # pk -> {"narrative", "proverb", "proverb_id", "pairs"}
    proverbs: dict  # proverb_id -> text, in all_proverbs.json order
    label_maps: dict  # setting -> {proverb_id: index}
    splits: dict  # setting -> {"train": [pk], "test": [pk]}
    report: dict


def read_epic(paths: dict[str, Path], on_unaligned: str = "error") -> Epic:
    """Parse and check every file (``paths``: relative name in ``FILES`` -> local path)."""
    if on_unaligned not in ("error", "flag"):
        raise ValueError(f"epic: on_unaligned must be 'error' or 'flag', got {on_unaligned!r}")
    report = {"case_insensitive_narrative_spans": 0, "case_insensitive_proverb_spans": 0,
              "unaligned_narrative_spans": 0, "unaligned_proverb_spans": 0,
              "ambiguous_narrative_spans": 0, "ambiguous_proverb_spans": 0, "pairs": 0}

    pfile = paths[PROVERBS_FILE]
    proverbs: dict[str, str] = {}
    raw = _load_json(pfile)
    if not isinstance(raw, list):
        raise EpicFormatError(f"{pfile}: expected a list of {{quote_id, quote}} records")
    for i, rec in enumerate(raw):
        if not isinstance(rec, dict) or not isinstance(rec.get("quote_id"), str) or not isinstance(rec.get("quote"), str):
            raise EpicFormatError(f"{pfile}: record {i} lacks a string 'quote_id' or 'quote'")
        if rec["quote_id"] in proverbs:
            raise EpicFormatError(f"{pfile}: duplicate quote_id {rec['quote_id']!r} (record {i})")
        proverbs[rec["quote_id"]] = rec["quote"].strip()

    dfile = paths[DATASET_FILE]
    raw = _load_json(dfile)
    if not isinstance(raw, list):
        raise EpicFormatError(f"{dfile}: expected a list of {{pk, fields}} records")
    records: dict[str, dict] = {}
    for i, rec in enumerate(raw):
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
        for name in ["quote", "narrative"] + [f"span_{s}_{k}" for k in range(1, MAX_SPANS + 1) for s in ("quote", "narrative")]:
            if not isinstance(fields.get(name), str):
                raise EpicFormatError(f"{dfile}: record {pk!r}: field {name!r} is missing or not a string")
        quote, narrative = fields["quote"].strip(), fields["narrative"]
        if quote != proverbs[proverb_id]:
            raise EpicFormatError(f"{dfile}: record {pk!r}: quote {quote!r} differs from proverb {proverb_id} "
                                  f"{proverbs[proverb_id]!r} in {pfile.name}")
        if not narrative.strip():
            raise EpicFormatError(f"{dfile}: record {pk!r}: empty narrative")
        pairs = []
        for k in range(1, MAX_SPANS + 1):
            sq, sn = fields[f"span_quote_{k}"].strip(), fields[f"span_narrative_{k}"].strip()
            if not sq and not sn:
                continue
            if not sq or not sn:
                raise EpicFormatError(f"{dfile}: record {pk!r}: span pair {k} has only one side "
                                      f"(span_quote_{k}={sq!r}, span_narrative_{k}={sn!r})")
            pair = {"pair_id": f"{pk}-{k}", "proverb_span": sq, "narrative_span": sn}
            for side, span, text, field in (("proverb", sq, quote, f"span_quote_{k}"),
                                            ("narrative", sn, narrative, f"span_narrative_{k}")):
                start, end, match, occurrences = locate(span, text)
                if match == "none":
                    if on_unaligned == "error":
                        raise EpicFormatError(f"{dfile}: record {pk!r}: {field} {span!r} is not found in its "
                                              f"{'quote' if side == 'proverb' else 'narrative'}, even ignoring case "
                                              "(pass on_unaligned='flag' to keep it with offsets -1)")
                    report[f"unaligned_{side}_spans"] += 1
                elif match == "case_insensitive":
                    report[f"case_insensitive_{side}_spans"] += 1
                if occurrences > 1:
                    report[f"ambiguous_{side}_spans"] += 1
                pair.update({f"{side}_start": start, f"{side}_end": end, f"{side}_match": match,
                             f"{side}_occurrences": occurrences})
            pairs.append(pair)
        report["pairs"] += len(pairs)
        records[pk] = {"narrative": narrative, "proverb": quote, "proverb_id": proverb_id, "pairs": pairs}

    by_text = {text.lower(): pid for pid, text in proverbs.items()}
    label_maps, splits = {}, {}
    for setting in SETTINGS:
        lfile = paths[split_file(setting, "label_map")]
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
        label_maps[setting] = mapping
        splits[setting] = {}
        for part in ("train", "test"):
            sfile = paths[split_file(setting, f"{part}_data_indices")]
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
            splits[setting][part] = ids
        overlap = set(splits[setting]["train"]) & set(splits[setting]["test"])
        if overlap:
            raise EpicFormatError(f"epic {setting}: {len(overlap)} record(s) in both train and test, e.g. {sorted(overlap)[0]!r}")
        missing = {records[x]["proverb_id"] for x in splits[setting]["train"]} - set(mapping)
        if missing:
            raise EpicFormatError(f"{lfile}: training proverb(s) without a label: {', '.join(sorted(missing)[:5])}")
    return Epic(records=records, proverbs=proverbs, label_maps=label_maps, splits=splits, report=report)


# ------------------------------------------------------------------------------------ builder


@dataclass
class EpicConfig(datasets.BuilderConfig):
    """``task``: seen / unseen / alignment / proverbs; ``on_unaligned``: "error" or "flag"."""

    task: str = "seen"
    on_unaligned: str = "error"


_PAIR = {
    "pair_id": datasets.Value("string"),
    "proverb_span": datasets.Value("string"),
    "proverb_start": datasets.Value("int32"),
    "proverb_end": datasets.Value("int32"),
    "proverb_match": datasets.Value("string"),
    "proverb_occurrences": datasets.Value("int32"),
    "narrative_span": datasets.Value("string"),
    "narrative_start": datasets.Value("int32"),
    "narrative_end": datasets.Value("int32"),
    "narrative_match": datasets.Value("string"),
    "narrative_occurrences": datasets.Value("int32"),
}


class EpicBuilder(datasets.GeneratorBasedBuilder):
    """ePiC proverbs in context."""

    VERSION = datasets.Version("1.0.0")
    BUILDER_CONFIG_CLASS = EpicConfig
    BUILDER_CONFIGS = [
        EpicConfig(name="seen", task="seen", version=VERSION, description="Proverb prediction, seen proverbs."),
        EpicConfig(name="unseen", task="unseen", version=VERSION,
                   description="Proverb prediction, test proverbs unseen in training."),
        EpicConfig(name="alignment", task="alignment", version=VERSION,
                   description="Aligned proverb/narrative span pairs with character offsets (seen split)."),
        EpicConfig(name="proverbs", task="proverbs", version=VERSION, description="The 250 proverbs."),
    ]
    DEFAULT_CONFIG_NAME = "seen"

    def _info(self) -> datasets.DatasetInfo:
        return datasets.DatasetInfo(description=_DESCRIPTION, features=self._features(), homepage=_HOMEPAGE,
                                    license=_LICENSE, citation=_CITATION)

    def _features(self, epic: Epic | None = None) -> datasets.Features:
        task = self.config.task
        base = {"id": datasets.Value("string"), "narrative": datasets.Value("string"),
                "proverb": datasets.Value("string"), "proverb_id": datasets.Value("string")}
        if task in SETTINGS:
            names = _label_names(epic, task) if epic is not None else _PLACEHOLDER_NAMES[task]
            return datasets.Features({**base, "label": datasets.ClassLabel(names=names)})
        if task == "alignment":
            return datasets.Features({**base, "pairs": datasets.List(_PAIR)})
        if task == "proverbs":
            return datasets.Features({"id": datasets.Value("string"), "proverb": datasets.Value("string"),
                                      "seen_label": datasets.Value("int32"), "unseen_label": datasets.Value("int32"),
                                      "unseen_split": datasets.Value("string"),
                                      "num_narratives": datasets.Value("int32")})
        raise ValueError(f"epic: unknown task {task!r}")

    def _split_generators(self, dl_manager):
        root = corpus_dir("epic", self.config.data_dir)
        if root is None:
            downloaded = dl_manager.download(URLS)
            for name, path in downloaded.items():
                verify_sha256(path, SHA256[name], URLS[name])
            paths = {name: Path(p) for name, p in downloaded.items()}
        else:
            paths = dict(zip(FILES, require_files("epic", root, FILES)))
        epic = read_epic(paths, self.config.on_unaligned)
        # ClassLabel names come from the label maps: set them now that the files are read.
        self.info.features = self._features(epic)
        task = self.config.task
        if task == "proverbs":
            return [datasets.SplitGenerator(name=datasets.Split.TRAIN, gen_kwargs={"epic": epic, "part": "all"})]
        return [datasets.SplitGenerator(name=datasets.Split.TRAIN, gen_kwargs={"epic": epic, "part": "train"}),
                datasets.SplitGenerator(name=datasets.Split.TEST, gen_kwargs={"epic": epic, "part": "test"})]

    def _generate_examples(self, epic: Epic, part: str):
        task = self.config.task
        if task == "proverbs":
            counts: dict[str, int] = {}
            for rec in epic.records.values():
                counts[rec["proverb_id"]] = counts.get(rec["proverb_id"], 0) + 1
            unseen_test = {epic.records[x]["proverb_id"] for x in epic.splits["unseen"]["test"]}
            for pid, text in epic.proverbs.items():
                yield pid, {"id": pid, "proverb": text, "seen_label": epic.label_maps["seen"].get(pid, -1),
                            "unseen_label": epic.label_maps["unseen"].get(pid, -1),
                            "unseen_split": "test" if pid in unseen_test else "train",
                            "num_narratives": counts.get(pid, 0)}
            return
        setting = "seen" if task == "alignment" else task
        for pk in epic.splits[setting][part]:
            rec = epic.records[pk]
            example = {"id": pk, "narrative": rec["narrative"], "proverb": rec["proverb"], "proverb_id": rec["proverb_id"]}
            if task == "alignment":
                example["pairs"] = rec["pairs"]
            else:
                example["label"] = epic.label_maps[setting].get(rec["proverb_id"], -1)
            yield pk, example


def _label_names(epic: Epic, setting: str) -> list[str]:
    by_index = {i: pid for pid, i in epic.label_maps[setting].items()}
    return [epic.proverbs[by_index[i]] for i in range(len(by_index))]


#: Before the files are read the label names are unknown; these placeholders only size the ClassLabel.
_PLACEHOLDER_NAMES = {"seen": [f"label_{i}" for i in range(250)], "unseen": [f"label_{i}" for i in range(150)]}
