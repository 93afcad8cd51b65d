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

Ids: opaque (a hash of the narrative text, the same narrative has the same id in every config; span
pairs ``<id>-<k>``), rows ordered by id; the original pks (``Q12N3``, which name the proverb) are
kept by ``figbench.corpora.epic.original_ids``, never in a column.

Span offsets: each span is searched in its text, exactly first, then ignoring case. The original
release has 5 narrative spans and 13 proverb spans that differ from their text only in letter case;
they get offsets with ``*_match == "case_insensitive"``. A span absent even ignoring case raises a
``ValueError`` naming file, record and field (``on_unaligned="flag"`` instead keeps it with offsets
-1 and ``*_match == "none"``). A span occurring several times gets its first occurrence;
``*_occurrences`` says how many there are.

Files, the parser and the label convention live in :mod:`figbench.corpora.epic`.
"""

from __future__ import annotations

from dataclasses import dataclass

import datasets
from figbench.corpora import epic as epic_io
from figbench.corpora.builder import FigbenchBuilder

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
"""  # noqa: E501 (a verbatim BibTeX entry)
_DESCRIPTION = (
    "ePiC: 2,500 crowdsourced narratives, 10 for each of 250 English proverbs, with aligned span pairs "
    "between proverb and narrative. Tasks: proverb prediction (seen and unseen proverbs) and alignment prediction."
)
_HOMEPAGE = "https://epic-benchmark.github.io/"
_LICENSE = "unknown"

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


class Epic(FigbenchBuilder):
    """ePiC proverbs in context."""

    CORPUS = epic_io.CORPUS

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

    def _features(self, epic: epic_io.EpicCorpus | None = None) -> datasets.Features:
        task = self.config.task
        base = {"id": datasets.Value("string"), "narrative": datasets.Value("string"),
                "proverb": datasets.Value("string"), "proverb_id": datasets.Value("string")}
        if task in epic_io.SETTINGS:
            names = epic_io.label_names(epic, task) if epic is not None else epic_io.placeholder_names(task)
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
        epic = epic_io.read_files(self.corpus_root(), on_unaligned=self.config.on_unaligned,
                                  data_dir=self.explicit_dir())
        # ClassLabel names come from the label maps: set them now that the files are read.
        self.info.features = self._features(epic)
        task = self.config.task
        if task == "proverbs":
            return [datasets.SplitGenerator(name=datasets.Split.TRAIN, gen_kwargs={"epic": epic, "part": "all"})]
        return [datasets.SplitGenerator(name=datasets.Split.TRAIN, gen_kwargs={"epic": epic, "part": "train"}),
                datasets.SplitGenerator(name=datasets.Split.TEST, gen_kwargs={"epic": epic, "part": "test"})]

    def _generate_examples(self, epic: epic_io.EpicCorpus, part: str):
        task = self.config.task
        if task == "proverbs":
            yield from epic_io.proverb_rows(epic)
            return
        setting = "seen" if task == "alignment" else task
        for pk in epic_io.ordered_pks(epic, setting, part):  # opaque ids, in id order (issue 13)
            rec = epic.records[pk]
            example = {"id": rec["id"], "narrative": rec["narrative"], "proverb": rec["proverb"],
                       "proverb_id": rec["proverb_id"]}
            if task == "alignment":
                example["pairs"] = rec["pairs"]
            else:
                example["label"] = epic.label_maps[setting].get(rec["proverb_id"], epic_io.NO_LABEL)
            yield rec["id"], example
