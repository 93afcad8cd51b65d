"""WEC-Eng (Eirew et al., NAACL 2021): cross-document event coreference from English Wikipedia.

Configs: ``events`` (default; one row per event mention, figbench's coreference schema) and
``documents`` (one row per Wikipedia article: its mention paragraphs, tokenised). Options:
``source`` (``auto`` / ``original`` / ``ucdcr``: the layout of the files read) and ``splits``
(None: every split whose file is there; else the splits that must exist). With ``splits=None`` the
missing splits are logged, named in ``info.description``, and asking for one (``split="train"``)
raises :class:`~figbench.corpora.files.MissingDataError` naming the file, where it was looked for and
its URL. The train split exists only online.

Layouts, downloads and parsing live in :mod:`figbench.corpora.wec_eng`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import datasets
from figbench.corpora import wec_eng as wec
from figbench.corpora.builder import FigbenchBuilder
from figbench.corpora.files import MissingDataError
from figbench.paths import corpus_dir
from figbench.schema import COREF_DOCUMENT_FEATURES, COREF_MENTION_FEATURES

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
"""  # noqa: E501 (a verbatim BibTeX entry)
_DESCRIPTION = "WEC-Eng: English cross-document event coreference mentions linked to Wikipedia event articles."
_HOMEPAGE = "https://huggingface.co/datasets/Intel/WEC-Eng"
_LICENSE = "cc-by-sa-3.0"


@dataclass
class WecEngConfig(datasets.BuilderConfig):
    """``source``: auto / original / ucdcr; ``splits``: None (all available) or the splits that must exist."""

    source: str = "auto"
    splits: str | Sequence[str] | None = None


class WecEng(FigbenchBuilder):
    """WEC-Eng event mentions (``events``) and their Wikipedia paragraphs (``documents``)."""

    CORPUS = wec.CORPUS

    VERSION = datasets.Version("1.0.0")
    BUILDER_CONFIG_CLASS = WecEngConfig
    BUILDER_CONFIGS = [
        WecEngConfig(name="events", version=VERSION,
                     description="One row per event mention (figbench coreference schema)."),
        WecEngConfig(name="documents", version=VERSION,
                     description="One row per Wikipedia article: its mention paragraphs, tokenised."),
    ]
    DEFAULT_CONFIG_NAME = "events"

    def _create_builder_config(self, *args, **kwargs):
        # The files found (and the splits missing) are part of the cache key, so adding the train file
        # later, or editing a file, rebuilds instead of reusing a partial cache.
        config, config_id = super()._create_builder_config(*args, **kwargs)
        root = Path(self.source_dir) if self.source_dir else corpus_dir(self.CORPUS, config.data_dir)
        self._sources = wec.local_sources(root, wec.check_source(config.source), wec.parse_splits(config.splits))
        if self._sources.files:
            self.hash = f"{self.hash or 'local'}-{self._sources.layout}-{self._sources.fingerprint()}"
        return config, config_id

    def _info(self) -> datasets.DatasetInfo:
        description = _DESCRIPTION
        sources = self._sources
        if sources.files:
            description += f" Source layout: {sources.layout}."
            if sources.missing:
                description += " Not built (file missing): " + ", ".join(sources.missing) + "."
        features = COREF_DOCUMENT_FEATURES if self.config.name == "documents" else COREF_MENTION_FEATURES
        return datasets.DatasetInfo(description=description, features=features, homepage=_HOMEPAGE,
                                    license=_LICENSE, citation=_CITATION)

    def _split_generators(self, dl_manager):
        self._sources = sources = wec.complete_sources(self._sources, data_dir=self.explicit_dir())
        if sources.missing:
            wec.logger.warning("wec_eng: building %s only; missing split file(s):\n%s",
                               ", ".join(sources.files), sources.missing_lines())
        # Parse and validate here, not in _generate_examples: `datasets` wraps errors raised while
        # generating in DatasetGenerationError, and a bad file must give a ValueError naming it.
        self._parsed = wec.parse_sources(sources)
        names = {"train": datasets.Split.TRAIN, "validation": datasets.Split.VALIDATION, "test": datasets.Split.TEST}
        return [
            datasets.SplitGenerator(name=names[s], gen_kwargs={"path": str(p), "layout": sources.layout, "split": s})
            for s, p in sources.files.items()
        ]

    def _generate_examples(self, path: str, layout: str, split: str) -> Iterator[tuple[str, dict]]:
        parsed = getattr(self, "_parsed", {}).pop(split, None)
        if parsed is None:
            mentions, documents = wec.parse_split(path, layout)
            mentions = wec.released_mentions(mentions, split)  # opaque ids, ordered by id
        else:
            mentions, documents = parsed
        rows = documents if self.config.name == "documents" else mentions
        key = "doc_id" if self.config.name == "documents" else "mention_id"
        for row in rows:
            yield row[key], row

    def missing_splits(self) -> dict[str, str]:
        """Standard splits this build leaves out, each with the file(s) looked for."""
        return {s: "file not found: " + " or ".join(str(p) for p in paths)
                for s, paths in self._sources.missing.items() if self._sources.files}

    def as_dataset(self, split=None, *args, **kwargs):
        """As in ``datasets``, but asking for a split whose file is missing names that file and its URL."""
        sources = self._sources
        if sources.files and sources.missing and split is not None:
            requested = {re.split(r"[\[+]", str(s), maxsplit=1)[0].strip()
                         for part in (split if isinstance(split, list) else [split]) for s in str(part).split("+")}
            absent = sorted(requested & set(sources.missing))
            if absent:
                raise MissingDataError(sources.missing_message(
                    absent, data_dir=self.explicit_dir(),
                    reason=f"Split(s) {', '.join(absent)} cannot be built: file(s) not found."))
        return super().as_dataset(split, *args, **kwargs)
