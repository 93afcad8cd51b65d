"""WiMCor: the Wikipedia Metonymy Corpus (Mathews & Strube, LREC 2020), as a `datasets` builder.

Configs
- ``full`` (default): the v1.1 release, train/validation/test partitions (123,600 / 41,200 / 41,200
  samples), stream-parsed from the XML (``figbench.corpora.wimcor``). Local layouts accepted
  under the corpus folder: ``wimcor-v1.1/dataset/xml/*-partition.xml`` (the extracted release),
  ``dataset/xml/*-partition.xml``, the partition files themselves, or the ``wimcor-v1.1.tar.gz``
  release archive (read in place). Without a local folder the archive is downloaded.
- ``sample``: the sample files of the WiMCor repository (``wiki_{MEDIUM}_{train,test}.txt``,
  4,662 samples); medium label from the file name, no fine label, no validation split.
- ``sample_with_validation``: ``sample`` with a seeded, medium-stratified validation split carved
  out of train (``validation_fraction=0.1``, ``seed=0``; both can be overridden).

Every example: ``id``, ``text`` (paragraph without markup), ``pmw`` with character offsets
(``text[pmw_start:pmw_end] == pmw``), ``coarse`` (literal/metonymic), ``medium`` and ``fine``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import datasets
from datasets.utils import logging as ds_logging

from figbench import checksums
from figbench.corpora import wimcor as wio
from figbench.paths import corpus_dir, require_files

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


logger = ds_logging.get_logger(__name__)


def verify_sha256(path: str | Path, expected: str | None, what: str) -> None:
    """Raise ``ChecksumError`` (a ``ValueError``) naming ``what`` when the sha256 is not ``expected``."""
    checksums.verify_sha256(path, expected, corpus="wimcor", label=what)


@dataclass
class WimcorConfig(datasets.BuilderConfig):
    """``source`` is "full" or "sample"; ``validation_fraction``/``seed`` carve validation from sample train;
    ``verify_counts`` checks the full partitions against the published sizes."""

    source: str = "full"
    validation_fraction: float = 0.0
    seed: int = 0
    verify_counts: bool = True


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


class Wimcor(datasets.GeneratorBasedBuilder):
    """WiMCor location metonymy (full v1.1 XML partitions, or the sample files)."""

    VERSION = datasets.Version("1.1.0")
    BUILDER_CONFIG_CLASS = WimcorConfig
    BUILDER_CONFIGS = [
        WimcorConfig(name="full", source="full", version=VERSION,
                     description="The full WiMCor v1.1 corpus: train/validation/test XML partitions."),
        WimcorConfig(name="sample", source="sample", version=VERSION,
                     description="The WiMCor sample files (train/test, no validation, no fine label)."),
        WimcorConfig(name="sample_with_validation", source="sample", validation_fraction=0.1, seed=0,
                     version=VERSION,
                     description="The sample files with a seeded, medium-stratified validation split carved from train."),
    ]
    DEFAULT_CONFIG_NAME = "full"

    def _info(self) -> datasets.DatasetInfo:
        return datasets.DatasetInfo(description=_DESCRIPTION, features=_features(), homepage=_HOMEPAGE,
                                    license=_LICENSE, citation=_CITATION)

    # ---------------------------------------------------------------- split generators

    def _split_generators(self, dl_manager):
        root = corpus_dir("wimcor", self.config.data_dir)
        if self.config.source == "sample":
            return self._sample_splits(dl_manager, root)
        if self.config.source != "full":
            raise ValueError(f"wimcor: unknown source {self.config.source!r} (expected 'full' or 'sample')")
        return self._full_splits(dl_manager, root)

    def _full_splits(self, dl_manager, root: Path | None):
        split_names = {"train": datasets.Split.TRAIN, "validation": datasets.Split.VALIDATION,
                       "test": datasets.Split.TEST}
        if root is None:
            archive = dl_manager.download(RELEASE_URL)
            verify_sha256(archive, RELEASE_SHA256, RELEASE_URL)
            sources = {s: {"archive": str(archive)} for s in split_names}
        else:
            found = {s: wio.find_partition(root, s) for s in split_names}
            if all(found.values()):
                sources = {s: {"path": str(p)} for s, p in found.items()}
            elif (root / wio.RELEASE_ARCHIVE).is_file():
                sources = {s: {"archive": str(root / wio.RELEASE_ARCHIVE)} for s in split_names}
            else:
                missing = [f"{wio.RELEASE_XML_DIR}/{wio.PARTITION_FILES[s]}" for s, p in found.items() if p is None]
                require_files("wimcor", root, missing, hint=(
                    f"Also accepted: the same files under {root / 'dataset/xml'} or directly in {root}, or the "
                    f"release archive {root / wio.RELEASE_ARCHIVE} ({RELEASE_URL}). Offline, the sample files "
                    "load with the 'sample' config."))
        return [datasets.SplitGenerator(name=name, gen_kwargs={"split": s, "source": "full", **sources[s]})
                for s, name in split_names.items()]

    def _sample_splits(self, dl_manager, root: Path | None):
        names = [n for split in wio.SAMPLE_SPLITS for n in wio.sample_files(split).values()]
        if root is None:
            downloaded = dl_manager.download({n: _SAMPLE_URL + n for n in names})
            for n, path in downloaded.items():
                verify_sha256(path, SAMPLE_SHA256.get(n), _SAMPLE_URL + n)
            folder = {n: Path(p) for n, p in downloaded.items()}
        else:
            paths = require_files("wimcor", root, names, hint="The 'sample' config reads the sample files "
                                  "wiki_{ARTIFACT,EVENT,INSTITUTE,LOCATION,TEAM}_{train,test}.txt.")
            folder = dict(zip(names, paths))
        fraction = float(self.config.validation_fraction)
        if not 0.0 <= fraction < 1.0:
            raise ValueError(f"wimcor: validation_fraction must be in [0, 1), got {fraction}")
        # The sample files are small: parse them here, so that bad input raises its ValueError directly.
        parsed = {split: [s for m, n in wio.sample_files(split).items()
                          for s in wio.iter_sample_file(folder[n], m, split)]
                  for split in wio.SAMPLE_SPLITS}
        splits = {datasets.Split.TRAIN: parsed["train"], datasets.Split.TEST: parsed["test"]}
        if fraction:
            held_out = validation_ids(parsed["train"], fraction, int(self.config.seed))
            splits = {datasets.Split.TRAIN: [s for s in parsed["train"] if s.id not in held_out],
                      datasets.Split.VALIDATION: [s for s in parsed["train"] if s.id in held_out],
                      datasets.Split.TEST: parsed["test"]}
        return [datasets.SplitGenerator(name=name, gen_kwargs={"source": "sample", "split": str(name),
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
        for sample in stream:
            n += 1
            yield sample.id, sample.to_example()
        expected = wio.PARTITION_SIZES[split]
        if self.config.verify_counts and n != expected:
            raise ValueError(f"wimcor: {where} has {n:,} samples, the v1.1 {split} partition has {expected:,} "
                             "(pass verify_counts=False to load another version)")
        logger.info("wimcor %s: %s", split, report.as_dict())


def validation_ids(train: list, fraction: float, seed: int) -> set[str]:
    """Seeded, per-medium random choice of ``round(n * fraction)`` train samples (the carved validation split)."""
    chosen: set[str] = set()
    for index, medium in enumerate(wio.MEDIUM_LABELS):
        ids = [s.id for s in train if s.medium == medium]
        k = round(len(ids) * fraction)
        chosen.update(random.Random(seed * 1000 + index).sample(ids, k))
    return chosen
