"""Meta4XNLI (Sanchez-Bayona & Agerri): metaphor detection and interpretation in English and Spanish.

Configs: ``detection_{en,es}`` (tokens with B-/I-METAPHOR/O tags, train/validation/test, each
sentence traced to its source file), ``{xnli_dev,xnli_test,esxnli}_{en,es}`` (the tagged source
sentences, premise/hypothesis), ``interpretation`` and ``interpretation_sources`` (NLI pairs with
metaphor status), and the cross-domain corpora ``vua`` (VUA-20, en) and ``cometa`` (CoMeta, es).

The corpus folder (``data_dir``, else ``<data root>/meta4xnli``) holds the repository's ``data/``
layout (``meta4xnli/``, ``vua/``, ``cometa/``); missing files are downloaded there from GitHub and
their sha256 checked when the network allows. Files, label sets and parsers live in
:mod:`figbench.corpora.meta4xnli`.
"""

from __future__ import annotations

from dataclasses import dataclass

import datasets
from figbench.corpora import meta4xnli as m4x
from figbench.corpora.builder import FigbenchBuilder

_CITATION = """\
@inproceedings{sanchez-bayona-agerri-2025-meta4xnli,
  title = {{Meta4XNLI}: A Crosslingual Parallel Corpus for Metaphor Detection and Interpretation},
  author = {Sanchez-Bayona, Elisa and Agerri, Rodrigo},
  year = {2024},
  eprint = {2404.07053},
  archivePrefix = {arXiv},
  url = {https://arxiv.org/abs/2404.07053}
}
"""
_DESCRIPTION = "Meta4XNLI: parallel English/Spanish metaphor detection (BIO) and metaphor interpretation as NLI."
_HOMEPAGE = "https://github.com/elisanchez-beep/meta4xnli"
_LICENSE = "apache-2.0"

@dataclass
class Meta4XNLIConfig(datasets.BuilderConfig):
    """``kind``: detection / source / interpretation / interpretation_sources / vua / cometa; ``lang``: en / es;
    ``source`` (kind ``source``): xnli_dev / xnli_test / esxnli."""

    kind: str = "detection"
    lang: str = "en"
    source: str = ""


def _configs() -> list[Meta4XNLIConfig]:
    v = datasets.Version("1.0.0")
    cfgs = [Meta4XNLIConfig(name=f"detection_{lang}", version=v, kind="detection", lang=lang,
                            description=f"Metaphor detection ({lang}): tokens with B-/I-METAPHOR/O tags, "
                                        "train/validation/test")
            for lang in m4x.LANGS]
    cfgs += [Meta4XNLIConfig(name=f"{src}_{lang}", version=v, kind="source", lang=lang, source=src,
                             description=f"Metaphor detection ({lang}) of the {src} source sentences, "
                                         "premises and hypotheses")
             for lang in m4x.LANGS for src in m4x.SOURCES]
    cfgs += [
        Meta4XNLIConfig(name="interpretation", version=v, kind="interpretation",
                        description="NLI pairs (en and es) with metaphor status, train/validation/test"),
        Meta4XNLIConfig(name="interpretation_sources", version=v, kind="interpretation_sources",
                        description="NLI pairs by source dataset (xnli_dev, xnli_test, esxnli)"),
        Meta4XNLIConfig(name="vua", version=v, kind="vua", lang="en",
                        description="VUA-20 metaphor detection (English, cross-domain), as distributed with Meta4XNLI"),
        Meta4XNLIConfig(name="cometa", version=v, kind="cometa", lang="es",
                        description="CoMeta metaphor detection (Spanish, cross-domain), as distributed with Meta4XNLI"),
    ]
    return cfgs


DETECTION_FEATURES = datasets.Features(
    {
        "id": datasets.Value("string"),
        "tokens": datasets.Sequence(datasets.Value("string")),
        "tags": datasets.Sequence(datasets.ClassLabel(names=list(m4x.TAGS))),
        "lang": datasets.Value("string"),
        "source": datasets.Value("string"),
        "source_id": datasets.Value("string"),
    }
)
INTERPRETATION_FEATURES = datasets.Features(
    {
        "id": datasets.Value("string"),
        "language": datasets.Value("string"),
        "gold_label": datasets.ClassLabel(names=list(m4x.NLI_LABELS)),
        "premise": datasets.Value("string"),
        "hypothesis": datasets.Value("string"),
        "metaphor_status": datasets.Value("string"),
        "genre": datasets.Value("string"),
        "source": datasets.Value("string"),
        "prompt_id": datasets.Value("string"),
        "pair_id": datasets.Value("string"),
    }
)


class Meta4xnli(FigbenchBuilder):
    """Meta4XNLI detection and interpretation, with the VUA-20 and CoMeta cross-domain corpora."""

    CORPUS = m4x.CORPUS

    BUILDER_CONFIG_CLASS = Meta4XNLIConfig
    BUILDER_CONFIGS = _configs()
    DEFAULT_CONFIG_NAME = "detection_en"

    def _info(self) -> datasets.DatasetInfo:
        interp = self.config.kind.startswith("interpretation")
        return datasets.DatasetInfo(
            description=_DESCRIPTION,
            features=INTERPRETATION_FEATURES if interp else DETECTION_FEATURES,
            homepage=_HOMEPAGE,
            license=_LICENSE,
            citation=_CITATION,
        )

    def _split_generators(self, dl_manager):
        # Parse (and validate) everything here, so bad input raises a plain ValueError instead of
        # the DatasetGenerationError that wraps errors raised inside _generate_examples.
        files = self.resolve(m4x.required_files(self.config))
        if self.config.kind.startswith("interpretation"):
            # tuples, not lists: `datasets` shards list-valued gen_kwargs
            return [datasets.SplitGenerator(name=split, gen_kwargs={"interpretation": rows})
                    for split, rows in m4x.interpretation_splits(self.config, files).items()]
        return [datasets.SplitGenerator(name=split, gen_kwargs={"tagged": t.tagged, "rows": t.rows,
                                                                "sources": t.sources})
                for split, t in m4x.tagged_splits(self.config, files).items()]

    def _generate_examples(self, tagged: m4x.TaggedFile | None = None, rows=(), sources=None,
                           interpretation=None):
        if tagged is not None:
            lang = self.config.lang
            # detection: opaque ids in id order (issue 13); other tagged configs: position ids, file order
            for key, i in rows:
                sent, (source, source_id) = tagged.sentences[i], sources[i]
                yield key, {"id": key, "tokens": sent.tokens, "tags": sent.tags, "lang": lang,
                            "source": source, "source_id": source_id}
            return
        for example in interpretation:
            yield example["id"], example
