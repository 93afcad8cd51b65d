"""ECB+META (Ahmed et al. 2024): ECB+ with event triggers paraphrased metaphorically by GPT-4.

Configs:

* ``meta_m`` (default): multi-word metaphoric triggers, from uCDCR's processed ECB+META_m
  (``ucdcr/output_data/all_mentions.parquet`` + ``all_documents.parquet``); event mentions of the
  validated sentences; splits ``validation`` / ``dev_small`` / ``dev_rest`` / ``test``. Heads are
  content words (``head_source="content"``, see :func:`figbench.corpora.ecbmeta.phrase_head_index`);
  ``head_source="ucdcr"`` keeps uCDCR's heads.
* ``meta_1``: single-word metaphoric triggers: from llms_coref's own corpus file
  ``ecb_meta_single/mention_map.pkl`` when it is in the ``ecbmeta`` folder (all four splits), else
  the 277-mention ``dev_small`` subset of ``ecb_meta_analysis.xlsx`` (sheet
  ``Comprehension_analysis``); contexts are the mention's sentence.
* ``ecbplus_aligned``: every ECB+ event mention of those splits with its META_m and META_1 versions.
* ``documents``: the ECB+META_m documents (uCDCR tokens).

Every mention row has the id and cluster id of its ECB+ mention (so cluster ids compare across
``ecbplus`` and ``ecbmeta``) and the ECB+ trigger in ``original_text``; this needs the ECB+ release
too: ``ecbplus_dir=``, else ``<data root>/ecbplus``, else the ``ecbplus`` folder beside the
``ecbmeta`` folder; when none has it, it is downloaded into the first (or one error lists what is
missing). Reading, alignment and files live in :mod:`figbench.corpora.ecbmeta`.
"""

from __future__ import annotations

from dataclasses import dataclass

import datasets
from figbench.corpora import ecbmeta as meta
from figbench.corpora.builder import FigbenchBuilder
from figbench.corpora.files import MissingDataError
from figbench.schema import COREF_DOCUMENT_FEATURES, COREF_MENTION_FEATURES

_CITATION = """\
@inproceedings{ahmed-etal-2024-generating,
    title = "Generating Harder Cross-document Event Coreference Resolution Datasets using Metaphoric Paraphrasing",
    author = "Ahmed, Shafiuddin Rehan and Wang, Zhiyong Eric and Baker, George Arthur and Stowe, Kevin and Martin, James H.",
    booktitle = "Proceedings of the 62nd Annual Meeting of the Association for Computational Linguistics (Volume 2: Short Papers)",
    year = "2024",
    address = "Bangkok, Thailand",
    publisher = "Association for Computational Linguistics",
    url = "https://aclanthology.org/2024.acl-short.27/",
    doi = "10.18653/v1/2024.acl-short.27",
    pages = "276--286",
}
"""  # noqa: E501 (a verbatim BibTeX entry)
_DESCRIPTION = "ECB+ with metaphorically paraphrased event triggers (ECB+META_1, ECB+META_m), aligned to ECB+."
_HOMEPAGE = "https://github.com/ahmeshaf/llms_coref"
_LICENSE = "MIT (data, llms_coref); uCDCR processing CC BY-SA 4.0; ECB+ text CC BY 3.0"

ALIGNED_FEATURES = datasets.Features(
    {
        "mention_id": datasets.Value("string"),
        "doc_id": datasets.Value("string"),
        "topic": datasets.Value("string"),
        "sentence_id": datasets.Value("int32"),
        "cluster_id": datasets.Value("string"),
        "mention_type": datasets.Value("string"),
        **{
            f"{v}_{k}": feat
            for v in ("ecb", "meta_m", "meta_1")
            for k, feat in (
                ("text", datasets.Value("string")),
                ("sentence", datasets.Sequence(datasets.Value("string"))),
                ("token_start", datasets.Value("int32")),
                ("token_end", datasets.Value("int32")),
            )
        },
        "has_meta_m": datasets.Value("bool"),
        "has_meta_1": datasets.Value("bool"),
    }
)



@dataclass
class EcbMetaConfig(datasets.BuilderConfig):
    """``kind``: meta_m / meta_1 / aligned / documents; ``ecbplus_dir``: the ECB+ release folder;
    ``cluster_source`` (meta_m): "ecbplus" (default, ECB+ clusters) or "ucdcr" (uCDCR's chains);
    ``head_source`` (meta_m): "content" (default, head of the metaphoric phrase), "first_content" (the
    ECB+ rule) or "ucdcr" (uCDCR's parser heads, some of them function words);
    ``strict_release``: require all 982 ECB+ documents (off only for test fixtures)."""

    kind: str = "meta_m"
    ecbplus_dir: str | None = None
    strict_release: bool = True
    cluster_source: str = "ecbplus"
    head_source: str = "content"


class Ecbmeta(FigbenchBuilder):
    """ECB+META_m, ECB+META_1 (Dev_small), ECB+ aligned, META_m documents."""

    CORPUS = meta.CORPUS

    VERSION = datasets.Version("1.0.0")
    BUILDER_CONFIG_CLASS = EcbMetaConfig
    BUILDER_CONFIGS = [
        EcbMetaConfig(name="meta_m", version=VERSION, kind="meta_m",
                      description="Multi-word metaphoric triggers (uCDCR ECB+META_m), validated sentences."),
        EcbMetaConfig(name="meta_1", version=VERSION, kind="meta_1",
                      description="Single-word metaphoric triggers; offline the 277-mention Dev_small subset."),
        EcbMetaConfig(name="ecbplus_aligned", version=VERSION, kind="aligned",
                      description="Every ECB+ event mention with its META_m and META_1 versions."),
        EcbMetaConfig(name="documents", version=VERSION, kind="documents",
                      description="The ECB+META_m documents (uCDCR tokens)."),
    ]
    DEFAULT_CONFIG_NAME = "meta_m"

    def _info(self) -> datasets.DatasetInfo:
        features = {"aligned": ALIGNED_FEATURES, "documents": COREF_DOCUMENT_FEATURES}.get(
            self.config.kind, COREF_MENTION_FEATURES
        )
        return datasets.DatasetInfo(
            description=_DESCRIPTION, features=features, homepage=_HOMEPAGE, license=_LICENSE, citation=_CITATION
        )

    def _split_generators(self, dl_manager):
        # Everything is read, aligned and validated here, so a malformed file raises its own
        # ValueError (naming file and record) rather than a wrapped DatasetGenerationError.
        # Missing ecbmeta files and a missing ECB+ release are reported in one error.
        errors: list[str] = []
        files = ecb = None
        try:
            files = meta.resolve_files(self.config.kind, self.corpus_root(), data_dir=self.explicit_dir())
        except MissingDataError as e:
            errors.append(str(e))
        try:
            ecb = meta.find_ecbplus(self.corpus_root(), self.config.ecbplus_dir, strict=self.config.strict_release)
        except MissingDataError as e:
            errors.append(str(e))
        if errors:
            raise MissingDataError("\n\n".join(errors))
        rows = meta.build_rows(self.config.kind, files, ecb, cluster_source=self.config.cluster_source,
                               head_source=self.config.head_source)
        # ``datasets`` cannot load an empty split: one (only possible with small fixtures) is left out
        return [datasets.SplitGenerator(name=s, gen_kwargs={"rows": r}) for s, r in rows.items() if r]

    def _generate_examples(self, rows: list[dict]):
        key = "mention_id" if self.config.kind != "documents" else "doc_id"
        for row in rows:
            yield row[key], row
