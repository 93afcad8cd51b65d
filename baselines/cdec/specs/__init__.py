"""The cdec baseline runs (reproduction tables ``cdec_heuristics``, ``cdec_oracle``, ``cdec_trained``; the
reference rows of ``cdec_reference``: the cdec task's trivial baselines as ``trivial_spec`` lines).
``SPECS`` and ``TABLES`` are read here by :func:`figbench_baselines.specs.all_specs` and the README tables.

One module per table family: ``heuristics`` (``cdec_heuristics``), ``filter_oracles`` (``cdec_oracle``),
``quick`` (the quick and not-run rows of ``cdec_trained``), ``trained`` (the headline cross-encoders, their
seeds and learning curve), ``wec`` (WEC pairwise), ``oracle_grid`` (the KNN oracle grid and its seeds),
``reference`` (``cdec_reference``); ``protocol`` (data versions, metrics and the protocol column) and
``published`` (the papers' values) are shared by them; ``tables`` renders the tables of :data:`TABLES`.

Like with like: a row's protocol column is derived from its command (:func:`.protocol.protocol_of`: topics,
singletons, clustering, LH threshold and sentence tokens), and a published value sits only on the row
whose split *and* protocol the paper used; every other row says which row carries it. Three pairing
protocols are run for the heuristics: gold subtopics (figbench's default), gold topics and predicted
topics (the split's documents clustered as Barhom et al. 2019 do); the ECB+META paper's own LH
(gold topics, content-word lemma overlap > 0.1) is a fourth row.

Where the published numbers come from: every value was read in the papers' text (``../shared/papers``)
and names its table and cell, with a verdict ("same setting" / "differs: ..."); where the authors'
released outputs exist, the number was also re-derived from them on figbench's gold (``evidence``).
The ECB+META code (``ahmeshaf/llms_coref``) releases its LH and KNN candidate pairs
(``project/outputs/mention_pairs/<corpus>/<lh|knn>/<split>.pairs``): every released ECB+ test pair lies
within one gold topic (1,200 of the 5,677 LH pairs cross subtopics), and clustering them with connected
components on figbench's ECB+ test gives CoNLL 74.1 and oracle B-cubed recall 81.5 (LH) and 94.9 (KNN),
the values of the paper's Tables 1 and 2; so the paper paired within gold topics.
"""

from __future__ import annotations

from figbench_baselines.cdec.specs.filter_oracles import ORACLE_SPECS
from figbench_baselines.cdec.specs.heuristics import HEURISTIC_SPECS
from figbench_baselines.cdec.specs.oracle_grid import _oracle_grid_specs
from figbench_baselines.cdec.specs.quick import QUICK_SPECS
from figbench_baselines.cdec.specs.reference import _reference_specs
from figbench_baselines.cdec.specs.trained import _ce_seed_specs, _curve_specs, _trained_ce_specs
from figbench_baselines.cdec.specs.wec import _wec_specs
from figbench_baselines.specs import BaselineSpec

_TRAINED_CE = _trained_ce_specs()
TRAINED_SPECS: tuple[BaselineSpec, ...] = (*_TRAINED_CE, *_ce_seed_specs(_TRAINED_CE), *_wec_specs(), *_curve_specs(),
                                           *_oracle_grid_specs(), *_reference_specs())
#: every table in README order: the trained rows before the quick ones of cdec_trained
_LISTED = (*HEURISTIC_SPECS, *ORACLE_SPECS, *QUICK_SPECS)
SPECS = (*(s for s in _LISTED if s.table != "cdec_trained"), *TRAINED_SPECS,
         *(s for s in _LISTED if s.table == "cdec_trained"))

#: the robustness drop (README table cdec_robustness): (system, ECB+ spec, ECB+META spec of the same system and
#: protocol)
DROPS: tuple[tuple[str, str, str], ...] = (
    ("LH", "cdec_lh_ecbplus_test", "cdec_lh_meta_m_test"),
    ("LH, the ECB+META code's protocol", "cdec_lh_paper_ecbplus_test", "cdec_lh_paper_meta_m_test"),
    ("CE_LH", "cdec_ce_lh_ecbplus_test", "cdec_ce_lh_meta_m_test"),
    ("CE_KNN", "cdec_ce_knn_ecbplus_test", "cdec_ce_knn_meta_m_test"),
    ("CE_LH, the ECB+META paper's protocol", "cdec_ce_lh_paper_ecbplus_test", "cdec_ce_lh_paper_meta_m_test"),
    ("CE_KNN, the ECB+META paper's protocol", "cdec_ce_knn_paper_ecbplus_test", "cdec_ce_knn_paper_meta_m_test"),
    ("LH", "cdec_lh_ecbplus_dev_small", "cdec_lh_meta_m_dev_small"),
    ("LH", "cdec_lh_ecbplus_dev_small", "cdec_lh_meta_1_dev_small"),
    ("CE_LH", "cdec_ce_lh_ecbplus_dev_small", "cdec_ce_lh_meta_m_dev_small"),
    ("CE_LH", "cdec_ce_lh_ecbplus_dev_small", "cdec_ce_lh_meta_1_dev_small"),
    ("CE_KNN", "cdec_ce_knn_ecbplus_dev_small", "cdec_ce_knn_meta_m_dev_small"),
    ("CE_KNN", "cdec_ce_knn_ecbplus_dev_small", "cdec_ce_knn_meta_1_dev_small"),
)


def _family_table(name: str, module: str = "tables"):
    def render(specs, results):
        import importlib

        return getattr(importlib.import_module(f"figbench_baselines.cdec.specs.{module}"), name)(specs, results)

    return render


#: README tables computed from several records (figbench_baselines.tables renders them by name)
TABLES = {"cdec_robustness": _family_table("robustness_table"),
          "cdec_oracle_recall": _family_table("oracle_recall_table", "oracle_tables"),
          "cdec_curve": _family_table("curve_table"),
          "cdec_topic_clustering": _family_table("topic_clustering_table"),
          "cdec_consistency": _family_table("consistency_table"),
          "cdec_oracle_reading": _family_table("oracle_reading", "oracle_tables"),
          "cdec_oracle_seeds": _family_table("oracle_seeds", "oracle_tables")}
