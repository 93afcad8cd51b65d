"""WiMCor: the Wikipedia Metonymy Corpus (Mathews & Strube, LREC 2020), as a `datasets` builder.

Configs
- ``full`` (default): the v1.1 release, train/validation/test partitions (123,600 / 41,200 / 41,200
  samples), stream-parsed from the XML (``figbench.corpora.wimcor``). Local layouts accepted
  under the corpus folder: ``wimcor-v1.1/dataset/xml/*-partition.xml`` (the extracted release),
  ``dataset/xml/*-partition.xml``, the partition files themselves, or the ``wimcor-v1.1.tar.gz``
  release archive (read in place; downloaded into the corpus folder when nothing is there and the
  network allows).
- ``sample``: the sample files of the WiMCor repository (``wiki_{MEDIUM}_{train,test}.txt``,
  4,662 samples); medium label from the file name, no fine label, no validation split. Not the
  WiMCor benchmark (balanced classes); the 7 test samples that also occur in train are dropped
  from test unless ``keep_train_duplicates=True``.
- ``sample_with_validation``: ``sample`` with a seeded, medium-stratified validation split carved
  out of train (``validation_fraction=0.1``, ``seed=0``; both can be overridden).

Every example: ``id`` (opaque: a hash of split, paragraph and offsets; sample splits are ordered by
it; ``figbench.corpora.wimcor.original_ids`` maps it back), ``text`` (paragraph without markup),
``pmw`` with character offsets (``text[pmw_start:pmw_end] == pmw``), ``coarse`` (literal/metonymic),
``medium`` and ``fine``.
Files, label sets and parsers live in :mod:`figbench.corpora.wimcor`.
"""

from __future__ import annotations

from dataclasses import dataclass

from datasets.utils import logging as ds_logging

import datasets
from figbench.corpora import wimcor as wio
from figbench.corpora.builder import FigbenchBuilder

_CITATION = """\
@inproceedings{mathews-strube-2020-large,
    title = "A Large Harvested Corpus of Location Metonymy",
    author = "Mathews, Kevin Alex and Strube, Michael",
    booktitle = "Proceedings of the Twelfth Language Resources and Evaluation Conference ({LREC} 2020)",
    year = "2020",
    address = "Marseille, France",
    publisher = "European Language Resources Association (ELRA)",
}
"""
_DESCRIPTION = (
    "WiMCor: location-name metonymy harvested from Wikipedia. Each sample is a paragraph with one "
    "potentially metonymic word (PMW), labelled at three levels: coarse (literal/metonymic), medium "
    "(LOCATION, INSTITUTE, TEAM, ARTIFACT, EVENT) and fine (the Wikipedia page the PMW refers to)."
)
_HOMEPAGE = "https://github.com/nlpAThits/WiMCor"
_LICENSE = "cc-by-sa-3.0"

logger = ds_logging.get_logger(__name__)


@dataclass
class WimcorConfig(datasets.BuilderConfig):
    """``source`` is "full" or "sample"; ``validation_fraction``/``seed`` carve validation from sample train;
    ``keep_train_duplicates`` keeps the sample test samples that also occur in train (dropped by default);
    ``verify_counts`` checks the full partitions against the published sizes."""

    source: str = "full"
    validation_fraction: float = 0.0
    seed: int = 0
    verify_counts: bool = True
    keep_train_duplicates: bool = False


def _features() -> datasets.Features:
    return datasets.Features(
        {
            "id": datasets.Value("string"),
            "text": datasets.Value("string"),
            "pmw": datasets.Value("string"),
            "pmw_start": datasets.Value("int32"),
            "pmw_end": datasets.Value("int32"),
            "coarse": datasets.ClassLabel(names=list(wio.COARSE_LABELS)),
            "medium": datasets.ClassLabel(names=list(wio.MEDIUM_LABELS)),
            "fine": datasets.Value("string"),
        }
    )


class Wimcor(FigbenchBuilder):
    """WiMCor location metonymy (full v1.1 XML partitions, or the sample files)."""

    CORPUS = wio.CORPUS

    VERSION = datasets.Version("1.1.0")
    BUILDER_CONFIG_CLASS = WimcorConfig
    BUILDER_CONFIGS = [
        WimcorConfig(name="full", source="full", version=VERSION,
                     description="The full WiMCor v1.1 corpus: train/validation/test XML partitions."),
        WimcorConfig(name="sample", source="sample", version=VERSION,
                     description="The WiMCor sample files (train/test, no validation, no fine label)."),
        WimcorConfig(name="sample_with_validation", source="sample", validation_fraction=0.1, seed=0,
                     version=VERSION,
                     description="The sample files with a seeded, medium-stratified validation split "
                                 "carved from train."),
    ]
    DEFAULT_CONFIG_NAME = "full"

    def _info(self) -> datasets.DatasetInfo:
        return datasets.DatasetInfo(description=_DESCRIPTION, features=_features(), homepage=_HOMEPAGE,
                                    license=_LICENSE, citation=_CITATION)

    # ---------------------------------------------------------------- split generators

    def _split_generators(self, dl_manager):
        if self.config.source == "sample":
            return self._sample_splits()
        if self.config.source != "full":
            raise ValueError(f"wimcor: unknown source {self.config.source!r} (expected 'full' or 'sample')")
        split_names = {"train": datasets.Split.TRAIN, "validation": datasets.Split.VALIDATION,
                       "test": datasets.Split.TEST}
        sources = wio.full_sources(self.corpus_root(), data_dir=self.explicit_dir())
        return [datasets.SplitGenerator(name=name, gen_kwargs={"split": s, "source": "full", **sources[s]})
                for s, name in split_names.items()]

    def _sample_splits(self):
        paths = wio.sample_paths(self.corpus_root(), data_dir=self.explicit_dir())
        # The sample files are small: parse them here, so that bad input raises its ValueError directly.
        splits = wio.sample_splits(wio.read_samples(paths), validation_fraction=self.config.validation_fraction,
                                   seed=int(self.config.seed),
                                   keep_train_duplicates=self.config.keep_train_duplicates)
        return [datasets.SplitGenerator(name=name, gen_kwargs={"source": "sample", "split": name,
                                                               "samples": samples})
                for name, samples in splits.items()]

    # ---------------------------------------------------------------- examples

    def _generate_examples(self, source: str, split: str, path: str | None = None, archive: str | None = None,
                           samples: list | None = None):
        if source == "sample":
            for sample in samples:
                yield sample.id, sample.to_example()
            return
        report = wio.ParseReport()
        if path is not None:
            stream = wio.iter_xml_samples(path, id_prefix=f"{split}-", report=report)
            where = path
        else:
            stream = wio.iter_archive_partition(archive, split, id_prefix=f"{split}-", report=report)
            where = f"{archive}!{wio.RELEASE_XML_DIR}/{wio.PARTITION_FILES[split]}"
        n = 0
        make_id = wio.sample_id_maker("full", split)  # opaque ids; the partition order is the file's
        for sample in stream:
            n += 1
            example = sample.to_example()
            example["id"] = make_id(sample)
            yield example["id"], example
        expected = wio.PARTITION_SIZES[split]
        if self.config.verify_counts and n != expected:
            raise ValueError(f"wimcor: {where} has {n:,} samples, the v1.1 {split} partition has {expected:,} "
                             "(pass verify_counts=False to load another version)")
        logger.info("wimcor %s: %s", split, report.as_dict())
