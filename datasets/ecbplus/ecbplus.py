"""ECB+ (Cybulska & Vossen 2014): cross-document event and entity coreference, from the original XML.

Configs: ``events`` (default; event mentions of the 1,840 manually validated sentences, the
standard setup of Cybulska & Vossen 2015), ``entities`` (same sentences, entity mentions),
``events_all`` / ``entities_all`` (every annotated sentence), ``documents`` (the 982 tokenised
documents). Splits: ``train`` / ``validation`` / ``test`` (topic split of Cybulska & Vossen 2015)
and ``dev_small`` / ``dev_rest`` (the 40 validation documents of the ECB+META paper and the rest).

Parsing and conventions live in :mod:`figbench.corpora.ecbplus`.
"""

from __future__ import annotations

from dataclasses import dataclass

import datasets
from figbench.corpora import ecbplus as ecb_io
from figbench.corpora.builder import FigbenchBuilder
from figbench.schema import COREF_DOCUMENT_FEATURES, COREF_MENTION_FEATURES

_CITATION = """\
@inproceedings{cybulska-vossen-2014-using,
    title = "Using a sledgehammer to crack a nut? Lexical diversity and event coreference resolution",
    author = "Cybulska, Agata and Vossen, Piek",
    booktitle = "Proceedings of the Ninth International Conference on Language Resources and Evaluation ({LREC}'14)",
    year = "2014",
    address = "Reykjavik, Iceland",
    publisher = "European Language Resources Association (ELRA)",
    pages = "4545--4552",
}
@inproceedings{cybulska-vossen-2015-translating,
    title = "Translating Granularity of Event Slots into Features for Event Coreference Resolution.",
    author = "Cybulska, Agata and Vossen, Piek",
    booktitle = "Proceedings of the 3rd Workshop on {EVENTS}: Definition, Detection, Coreference, and Representation",
    year = "2015",
    address = "Denver, Colorado",
    publisher = "Association for Computational Linguistics",
    pages = "1--10",
}
"""

_DESCRIPTION = """\
ECB+ extends the EventCorefBank with 502 documents: 982 news documents in 43 topics, annotated with
event and entity mentions and their within- and cross-document coreference. One row per mention
(figbench's coreference schema); cluster ids are the ECB+ instance ids of cross-document chains.
"""

_HOMEPAGE = "https://github.com/cltl/ecbPlus"
_LICENSE = "CC BY 3.0"


@dataclass
class EcbPlusConfig(datasets.BuilderConfig):
    """``mention_class``: "event" / "entity" / None (documents); ``validated_only``: only the validated
    sentences of ``ECBplus_coreference_sentences.csv``; ``strict_release``: require all 982 documents
    (turn off only for small test fixtures)."""

    mention_class: str | None = "event"
    validated_only: bool = True
    strict_release: bool = True


class Ecbplus(FigbenchBuilder):
    """ECB+ mentions (events or entities) or documents."""

    CORPUS = "ecbplus"

    VERSION = datasets.Version("1.0.0")
    BUILDER_CONFIG_CLASS = EcbPlusConfig
    BUILDER_CONFIGS = [
        EcbPlusConfig(name="events", version=VERSION, mention_class="event", validated_only=True,
                      description="Event mentions in the validated sentences (standard setup)."),
        EcbPlusConfig(name="entities", version=VERSION, mention_class="entity", validated_only=True,
                      description="Entity mentions in the validated sentences."),
        EcbPlusConfig(name="events_all", version=VERSION, mention_class="event", validated_only=False,
                      description="Event mentions in every annotated sentence."),
        EcbPlusConfig(name="entities_all", version=VERSION, mention_class="entity", validated_only=False,
                      description="Entity mentions in every annotated sentence."),
        EcbPlusConfig(name="documents", version=VERSION, mention_class=None,
                      description="The tokenised documents."),
    ]
    DEFAULT_CONFIG_NAME = "events"

    def _info(self) -> datasets.DatasetInfo:
        features = COREF_DOCUMENT_FEATURES if self.config.mention_class is None else COREF_MENTION_FEATURES
        return datasets.DatasetInfo(
            description=_DESCRIPTION, features=features, homepage=_HOMEPAGE, license=_LICENSE, citation=_CITATION
        )

    def _split_generators(self, dl_manager):
        # Everything is parsed and validated here, so a malformed file raises its own ValueError
        # (naming file and record) rather than a wrapped DatasetGenerationError.
        sources = ecb_io.EcbSources.local(self.corpus_root(), strict=self.config.strict_release,
                                          data_dir=self.explicit_dir(), download=None)
        docs = ecb_io.parse_ecb_corpus(sources.xml_dir, sources.topics_present(), progress=True)
        sentences = ecb_io.read_coref_sentences(sources.sentences_csv) if self.config.validated_only else None
        per_split = ecb_io.split_documents(docs, ecb_io.read_dev_small(sources.dev_small))
        return [
            datasets.SplitGenerator(name=split, gen_kwargs={"docs": per_split[split], "sentences": sentences})
            for split in ecb_io.MENTION_SPLITS
            if per_split[split]  # ``datasets`` cannot load an empty split (only possible with small fixtures)
        ]

    def _generate_examples(self, docs: list[ecb_io.EcbDocument], sentences: set | None):
        if self.config.mention_class is None:
            for doc in docs:
                yield doc.doc_id, ecb_io.document_row(doc)
            return
        for doc in docs:
            for row in ecb_io.mention_rows(doc, self.config.mention_class, sentences=sentences):
                yield row["mention_id"], row
