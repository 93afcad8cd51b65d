"""The heuristic rows (README table ``cdec_heuristics``): same-head-lemma and LH under the topic
protocols on ECB+, ECB+META_m, Dev_small and WEC-Eng."""

from __future__ import annotations

from figbench_baselines.cdec.specs.protocol import _C, PAPER_LH, WEC_PAPER, _lh_notes, _see, _spec, _topic_rows
from figbench_baselines.cdec.specs.published import (
    BARHOM_PREDICTED,
    HEADS,
    LEMMA_ECB,
    LH_ECB,
    LH_META_M,
    LH_META_M_DEV,
    LH_META_M_DEV_SMALL,
    META_1_TABLE2,
    NO_DEV_SMALL,
    READ,
    TABLE4_CE,
)
from figbench_baselines.specs import BaselineSpec, Historical, Published

HEURISTIC_SPECS: tuple[BaselineSpec, ...] = (
    # ---------------------------------------------------------------- heuristics, ECB+ test
    *_topic_rows("lemma", "cdec_heuristics", "ecbplus", "events", "test", "lemma", "same-head-lemma",
                 fast=("",), published={"predtopic": LEMMA_ECB},
                 historical={"": Historical("78.7 / 78.4 / 74.5 / **77.2** [74.4, 80.0]", _C)},
                 notes={"": _see("cdec_lemma_predtopic_ecbplus_test", BARHOM_PREDICTED),
                        "topic": _see("cdec_lemma_predtopic_ecbplus_test", BARHOM_PREDICTED),
                        "predtopic": "figbench's K-Means topics are not Barhom et al.'s released ones (adjusted Rand "
                                     "0.83 vs 0.97 against the gold subtopics, see the text)"}),
    *_topic_rows("lh", "cdec_heuristics", "ecbplus", "events", "test", "lh", "LH (Lemma Heuristic)", fast=("",),
                 paper=True, published={"paper": LH_ECB},
                 historical={"": Historical("79.4 / 76.4 / 69.2 / **75.0** [71.1, 79.1]", _C)},
                 notes={**_lh_notes("cdec_lh_paper_ecbplus_test", True, "paper's 74.1"),
                        "paper": "spaCy lookup lemmas and rule heads where the code used en_core_web_lg"}),
    # ---------------------------------------------------------------- heuristics, ECB+META_m test
    *_topic_rows("lemma", "cdec_heuristics", "ecbmeta", "meta_m", "test", "lemma", "same-head-lemma",
                 historical={"": Historical("32.3 / 62.3 / 57.1 / **50.6** [47.0, 55.5]", _C)},
                 notes={k: "no published same-head-lemma value for ECB+META_m is known" for k in
                        ("", "topic", "predtopic")}),
    *_topic_rows("lh", "cdec_heuristics", "ecbmeta", "meta_m", "test", "lh", "LH", fast=("",), paper=True,
                 published={"paper": LH_META_M},
                 historical={"": Historical("56.5 / 58.4 / 49.7 / **54.9** [50.2, 60.5]", _C)},
                 notes={**_lh_notes("cdec_lh_paper_meta_m_test", True, "paper's 54.0"),
                        "paper": "the builder's META_m test has 1,777 mentions (uCDCR processing); " + HEADS}),
    # ---------------------------------------------------------------- heuristics, Dev_small
    *_topic_rows("lh", "cdec_heuristics", "ecbplus", "events", "dev_small", "lh", "LH",
                 paper=True, historical={"": Historical("76.3 / 83.6 / 75.9 / **78.6**", _C)},
                 notes={**_lh_notes("", False, ""), "paper": NO_DEV_SMALL}),
    *_topic_rows("lh", "cdec_heuristics", "ecbmeta", "meta_m", "dev_small", "lh", "LH", paper=True,
                 published={"paper": LH_META_M_DEV_SMALL},
                 historical={"": Historical("38.6 / 71.8 / 63.6 / **58.0** [50.6, 65.7]", _C)},
                 notes={**_lh_notes("cdec_lh_paper_meta_m_dev_small", True, "Table 4 value quoted for META_m"),
                        "paper": HEADS}),
    _spec("cdec_lh_paper_meta_m_dev_rest", "cdec_heuristics", "ecbmeta", "meta_m", "dev_rest", "lh", *PAPER_LH,
          title="LH, the ECB+META code's LH (gold topics, content-lemma overlap > 0.1), on the paper's Dev",
          published=LH_META_M_DEV,
          comparability=HEADS + "; the same Table 4 prints, on Dev, CE_LH "
                        f"{TABLE4_CE[('ce_lh', 'dev_rest')]} and CE_KNN {TABLE4_CE[('ce_knn', 'dev_rest')]} "
                        "(B3 R / B3 P / B3 F1 / CoNLL, RoBERTa-base): no cross-encoder row runs dev_rest here"),
    *_topic_rows("lh", "cdec_heuristics", "ecbmeta", "meta_1", "dev_small", "lh", "LH", paper=True, fast=("",),
                 historical={"": Historical("43.1 / 76.9 / 70.4 / **63.5** [58.4, 69.0]", _C)},
                 notes={**_lh_notes("", False, ""),
                        "predtopic": "META_1's text exists only in its 277 mention sentences: the documents are "
                                     "clustered by those sentences; no paper ran this",
                        "paper": NO_DEV_SMALL + f" ({META_1_TABLE2})"}),
    # ---------------------------------------------------------------- heuristics, WEC-Eng
    _spec("cdec_lemma_wec_eng_test", "cdec_heuristics", "wec_eng", "events", "test", "lemma", fast=True,
          title="same-head-lemma",
          historical=Historical("82.6 / 45.5 / 31.2 / **53.1** [48.9, 83.1]", _C),
          published=Published("85.5 / 79.9 / 82.6 / 74.5 / 32.8 / 45.5 / 31.2 / 53.1",
                              "MUC R / P / F1, B3 R / P / F1, CEAF-e F1, CoNLL F1", WEC_PAPER, "Table 5", "test",
                              "whole test split; singletons kept; one cluster per head lemma", verified=READ,
                              cell="row Lemma Baseline; MUC R P F1, B3 R P F1, CEAF F1, CoNLL F1",
                              verdict="same setting"),
          comparability="same split and protocol as the WEC paper's lemma baseline; the head lemmas are figbench's"),
)
