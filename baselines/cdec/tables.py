"""The cdec README tables computed from several committed records (``TABLES`` of ``cdec/specs.py``).

* ``cdec_robustness``: ECB+ minus ECB+META CoNLL F1 of one system and protocol, with a paired bootstrap
  interval over the gold topics both records hold (:mod:`figbench_baselines.cdec.compare`), for the
  pairs of specs in ``specs.DROPS``;
* ``cdec_oracle_recall``: the KNN oracle grid (frozen at 30 and at 15 context words vs the triplet-trained
  bi-encoder at 15, k = 5 / 10 / 20) as one matrix of B-cubed recall and gold-pair recall;
* ``cdec_curve``: the cross-encoders' learning curve (training pairs, ECB+ and META_m test, the drop).

Every number comes from the records ``results/<spec>.json`` (no corpus is read), so
``figbench baseline tables`` can check these tables like the others.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from figbench_baselines.specs import BaselineSpec, get_spec

NOT_MEASURED = "not measured"


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def _record(name: str, results: Path) -> dict[str, Any] | None:
    from figbench_baselines.tables import read_record

    return read_record(get_spec(name), results)


def _score(record: Mapping[str, Any] | None, metric: str = "conll_f1", ci: bool = True) -> str:
    if record is None:
        return NOT_MEASURED
    if metric not in record["scores"]:
        return "-"
    interval = record["confidence_intervals"].get(metric) if ci else None
    text = _pct(record["scores"][metric])
    return text + (f" [{_pct(interval['low'])}, {_pct(interval['high'])}]" if interval else "")


def _drop_cell(rec_a: Mapping[str, Any] | None, rec_b: Mapping[str, Any] | None, name_a: str,
               name_b: str) -> tuple[str, str]:
    """(drop with its paired interval, units) or why there is none."""
    from figbench_baselines.cdec.compare import records_drop

    if rec_a is None or rec_b is None:
        return NOT_MEASURED, ""
    if "unit_counts" not in (rec_a.get("options") or {}) or "unit_counts" not in (rec_b.get("options") or {}):
        return f"records without topic counts: re-run `figbench baseline run {name_a} {name_b}`", ""
    d = records_drop(rec_a, rec_b)
    ci = d["confidence_interval"]
    units = f"{d['units']} {d['unit']}"
    if d["units_only_a"] or d["units_only_b"]:
        units += f"; {d['units_only_a']} / {d['units_only_b']} only in one record"
    if d["cut_links"]:
        units += f"; {d['cut_links']} predicted links across topics cut"
    if ci.get("warning"):
        units += " (fewer than 20 units: unreliable)" if "fewer than" in ci["warning"] else f" ({ci['warning']})"
    return f"**{_pct(d['drop'])}** [{_pct(ci['low'])}, {_pct(ci['high'])}]", units


def _table(header: Iterable[str], rows: Iterable[Iterable[str]]) -> str:
    header = list(header)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _split_label(spec: BaselineSpec) -> str:
    corpus = {"ecbplus": "ECB+", "wec_eng": "WEC-Eng"}.get(spec.dataset, f"ECB+{spec.config.upper()}")
    return f"{corpus.replace('ECB+META_M', 'META_m').replace('ECB+META_1', 'META_1')} {spec.split}"


def robustness_table(specs: Iterable[BaselineSpec], results: Path) -> str:
    """One row per ``specs.DROPS`` entry: both records' CoNLL F1 and the paired drop."""
    from figbench_baselines.cdec.specs import DROPS

    rows = []
    for label, name_a, name_b in DROPS:
        a, b = get_spec(name_a), get_spec(name_b)
        rec_a, rec_b = _record(name_a, results), _record(name_b, results)
        drop, units = _drop_cell(rec_a, rec_b, name_a, name_b)
        rows.append((label, a.protocol.get("topics", ""), f"`{name_a}` ({_split_label(a)})", _score(rec_a, ci=False),
                     f"`{name_b}` ({_split_label(b)})", _score(rec_b, ci=False), drop, units))
    return _table(("system", "topics", "ECB+ run", "CoNLL F1", "ECB+META run", "CoNLL F1",
                   "drop (ECB+ minus ECB+META) [95% paired CI]", "resampled units"), rows)


def oracle_recall_table(specs: Iterable[BaselineSpec], results: Path) -> str:
    """B-cubed recall (gold-pair recall) of the KNN oracle: encoders x k by split."""
    from figbench_baselines.cdec.specs import ORACLE_KS, ORACLE_SPLITS, oracle_grid_name

    header = ["bi-encoder", "k"] + [_split_label(get_spec(oracle_grid_name("trained", 5, *s))) for s in ORACLE_SPLITS]
    rows = []
    for encoder, label in (("frozen", "frozen MiniLM (30 context words)"),
                           ("frozen15", "frozen MiniLM (15 context words)"),
                           ("trained", "MiniLM + triplet loss on ECB+ train (15 context words)")):
        for k in ORACLE_KS:
            cells = []
            for split in ORACLE_SPLITS:
                rec = _record(oracle_grid_name(encoder, k, *split), results)
                if rec is None:
                    cells.append("-")
                    continue
                s = rec["scores"]
                cells.append(f"**{_pct(s['bcub_recall'])}** ({_pct(s['candidate_gold_pair_recall'])})")
            rows.append((label, str(k), *cells))
    return _table(header, rows)


def curve_table(specs: Iterable[BaselineSpec], results: Path) -> str:
    """The cross-encoders trained on nested shares of the 4,000-pair sample."""
    from figbench_baselines.cdec.specs import CE_CURVE, CE_SAMPLE

    rows = []
    for method, title in (("ce_lh", "CE_LH"), ("ce_knn", "CE_KNN")):
        for infix, _, share in (*CE_CURVE, ("", "", 1.0)):
            tag = f"cdec_{method}_{infix + '_' if infix else ''}"
            name_a, name_b = f"{tag}ecbplus_test", f"{tag}meta_m_test"
            rec_a, rec_b = _record(name_a, results), _record(name_b, results)
            some = rec_a or rec_b
            pairs = wall = "-"
            if some is not None:
                counts, prov = some["counts"], some["provenance"]
                pairs = f"{int(counts.get('n_training_pairs', 0)):,} ({int(counts.get('n_training_positive', 0)):,})"
                wall = f"{prov.get('train_wall_time_s', 0) / 60:.0f} min" if prov.get("train_wall_time_s") else "-"
            drop, _ = _drop_cell(rec_a, rec_b, name_a, name_b)
            rows.append((title, f"{share:.0%} of {CE_SAMPLE:,}", pairs, _score(rec_a), _score(rec_b), drop, wall))
    return _table(("method", "training sample", "training pairs (coreferent)", "ECB+ test CoNLL F1",
                   "META_m test CoNLL F1", "drop [95% paired CI]", "training wall time"), rows)


__all__ = ["curve_table", "oracle_recall_table", "robustness_table"]


#: the README's headline: (label, topics, ECB+ spec, ECB+META_m spec, the method whose Table 2 values compare)
HEADLINE = (("CE_LH", "gold topics (the paper's protocol)", "cdec_ce_lh_paper_ecbplus_test",
             "cdec_ce_lh_paper_meta_m_test", "ce_lh"),
            ("CE_KNN", "gold topics (the paper's protocol)", "cdec_ce_knn_paper_ecbplus_test",
             "cdec_ce_knn_paper_meta_m_test", "ce_knn"),
            ("CE_LH", "gold subtopics (figbench's default)", "cdec_ce_lh_ecbplus_test", "cdec_ce_lh_meta_m_test", ""),
            ("CE_KNN", "gold subtopics (figbench's default)", "cdec_ce_knn_ecbplus_test", "cdec_ce_knn_meta_m_test",
             ""))


def readme_headline(results: Path) -> str:
    """The README's headline result: the cross-encoders' ECB+ and ECB+META_m test CoNLL F1 and paired drop,
    beside the ECB+META paper's Table 2 only on the rows of its protocol (gold topics)."""
    from figbench_baselines.cdec.specs import _CE_PAPER, CE_SAMPLE

    rows = []
    for label, topics, name_a, name_b, paper in HEADLINE:
        rec_a, rec_b = _record(name_a, results), _record(name_b, results)
        drop, _ = _drop_cell(rec_a, rec_b, name_a, name_b)
        if paper:
            a, b = _CE_PAPER[(paper, "ecbplus")], _CE_PAPER[(paper, "ecbmeta")]
            ref = f"{a} / {b} / drop {float(a) - float(b):.1f} (Table 2, RoBERTa-base)"
        else:
            ref = "none: the paper paired within gold topics (rows above)"
        rows.append((label, topics, _score(rec_a), _score(rec_b), drop, ref))
    table = _table(("system", "topics", "ECB+ test CoNLL F1", "ECB+META_m test CoNLL F1",
                    "drop [95% paired CI]", "ECB+META paper: ECB+ / META_m / drop"), rows)
    return (f"The headline trained result: all-MiniLM-L6-v2 cross-encoders trained on CPU for one epoch on a "
            f"stratified sample of {CE_SAMPLE:,} ECB+ train pairs, CoNLL F1 with 95% topic-bootstrap intervals "
            "(generated from `results/`; the paper's values are RoBERTa-base trained 20 epochs, so every row "
            "differs in model and training). Only the gold-topic rows use the paper's protocol; the gold-subtopic "
            "rows are figbench's default protocol and have no paper value.\n\n" + table)
