"""The cdec README tables computed from several committed records (``TABLES`` of ``cdec/specs``), and the
shared cells of every such table (the KNN oracle grid's tables: :mod:`.oracle_tables`).

* ``cdec_robustness``: ECB+ minus ECB+META CoNLL F1 of one system and protocol, with a paired bootstrap
  interval over the gold topics both records hold (:mod:`figbench_baselines.cdec.steps.compare`), for the
  pairs of specs in ``specs.DROPS``;
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


def _marked(*records: Mapping[str, Any] | None) -> str:
    from figbench_baselines.tables import marked

    return marked(*records)


def _score(record: Mapping[str, Any] | None, metric: str = "conll_f1", ci: bool = True) -> str:
    if record is None:
        return NOT_MEASURED
    if metric not in record["scores"]:
        return "-"
    interval = record["confidence_intervals"].get(metric) if ci else None
    text = _pct(record["scores"][metric]) + _marked(record)
    return text + (f" [{_pct(interval['low'])}, {_pct(interval['high'])}]" if interval else "")


def _drop_cell(rec_a: Mapping[str, Any] | None, rec_b: Mapping[str, Any] | None, name_a: str,
               name_b: str) -> tuple[str, str]:
    """(drop with its paired interval, units) or why there is none."""
    from figbench_baselines.cdec.steps.compare import records_drop

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
    return f"**{_pct(d['drop'])}**{_marked(rec_a, rec_b)} [{_pct(ci['low'])}, {_pct(ci['high'])}]", units


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
    rows += _reference_drops(results)
    return _table(("system", "topics", "ECB+ run", "CoNLL F1", "ECB+META run", "CoNLL F1",
                   "drop (ECB+ minus ECB+META) [95% paired CI]", "resampled units"), rows)


#: the split pairs of the drop table's reference rows
_REFERENCE_PAIRS = ((("ecbplus", "events", "test"), ("ecbmeta", "meta_m", "test")),
                    (("ecbplus", "events", "dev_small"), ("ecbmeta", "meta_m", "dev_small")),
                    (("ecbplus", "events", "dev_small"), ("ecbmeta", "meta_1", "dev_small")))


def _reference_drops(results: Path) -> list[tuple[str, ...]]:
    """The drop of the trivial references (all singletons, one cluster per topic) on the same split pairs."""
    from figbench_baselines.cdec.specs.reference import REFERENCE_TITLES, reference_name

    rows = []
    for method, title in REFERENCE_TITLES.items():
        for split_a, split_b in _REFERENCE_PAIRS:
            name_a, name_b = reference_name(method, *split_a), reference_name(method, *split_b)
            a, b = get_spec(name_a), get_spec(name_b)
            rec_a, rec_b = _record(name_a, results), _record(name_b, results)
            drop, units = _drop_cell(rec_a, rec_b, name_a, name_b)
            rows.append((title, "-", f"`{name_a}` ({_split_label(a)})", _score(rec_a, ci=False),
                         f"`{name_b}` ({_split_label(b)})", _score(rec_b, ci=False), drop, units))
    return rows


def curve_table(specs: Iterable[BaselineSpec], results: Path) -> str:
    """The cross-encoders trained on nested shares of the 4,000-pair sample."""
    from figbench_baselines.cdec.specs.trained import CE_CURVE, CE_SAMPLE

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
    from figbench_baselines.cdec.specs.reference import REFERENCE_TITLES, reference_name

    for method, title in REFERENCE_TITLES.items():
        name_a = reference_name(method, "ecbplus", "events", "test")
        name_b = reference_name(method, "ecbmeta", "meta_m", "test")
        rec_a, rec_b = _record(name_a, results), _record(name_b, results)
        drop, _ = _drop_cell(rec_a, rec_b, name_a, name_b)
        rows.append((title, "-", "-", _score(rec_a), _score(rec_b), drop, "-"))
    return _table(("method", "training sample", "training pairs (coreferent)", "ECB+ test CoNLL F1",
                   "META_m test CoNLL F1", "drop [95% paired CI]", "training wall time"), rows)


__all__ = ["curve_table", "robustness_table"]


#: the README's headline: (label, topics, ECB+ spec, ECB+META_m spec, the method whose Table 2 values compare)
HEADLINE = (("CE_LH", "gold topics (the paper's protocol)", "cdec_ce_lh_paper_ecbplus_test",
             "cdec_ce_lh_paper_meta_m_test", "ce_lh"),
            ("CE_KNN", "gold topics (the paper's protocol)", "cdec_ce_knn_paper_ecbplus_test",
             "cdec_ce_knn_paper_meta_m_test", "ce_knn"),
            ("CE_LH", "gold subtopics (figbench's default)", "cdec_ce_lh_ecbplus_test", "cdec_ce_lh_meta_m_test", ""),
            ("CE_KNN", "gold subtopics (figbench's default)", "cdec_ce_knn_ecbplus_test", "cdec_ce_knn_meta_m_test",
             ""))


def _seeds_cell(name_a: str, name_b: str, results: Path) -> str:
    """Mean ± sd over the seeds committed for both runs (the same cross-encoder on both splits), or "-"."""
    from figbench_baselines.tables import mean_sd, seed_records

    seeds_a, seeds_b = seed_records(name_a, results), seed_records(name_b, results)
    both = sorted(set(seeds_a) & set(seeds_b))
    if len(both) < 2:
        return "-"
    a = [100 * seeds_a[s]["scores"]["conll_f1"] for s in both]
    b = [100 * seeds_b[s]["scores"]["conll_f1"] for s in both]
    mark = _marked(*seeds_a.values(), *seeds_b.values())
    cells = " / ".join(mean_sd(v) + mark for v in (a, b, [x - y for x, y in zip(a, b)]))
    return f"{cells} (seeds {', '.join(map(str, both))})"


def readme_headline(results: Path) -> str:
    """The README's headline result: the cross-encoders' ECB+ and ECB+META_m test CoNLL F1 and paired drop,
    beside the ECB+META paper's Table 2 only on the rows of its protocol (gold topics)."""
    from figbench_baselines.cdec.specs.reference import REFERENCE_TITLES, reference_name
    from figbench_baselines.cdec.specs.trained import _CE_PAPER, CE_SAMPLE

    references = tuple((title, "-", reference_name(m, "ecbplus", "events", "test"),
                        reference_name(m, "ecbmeta", "meta_m", "test"), "") for m, title in REFERENCE_TITLES.items())
    headline = (*HEADLINE, *references)
    rows = []
    warnings: dict[str, int] = {}  # the records' own interval warnings, and how many intervals carry each
    for label, topics, name_a, name_b, paper in headline:
        rec_a, rec_b = _record(name_a, results), _record(name_b, results)
        for rec in (rec_a, rec_b):
            warning = ((rec or {}).get("confidence_intervals", {}).get("conll_f1") or {}).get("warning")
            if warning:
                warnings[warning] = warnings.get(warning, 0) + 1
        drop, _ = _drop_cell(rec_a, rec_b, name_a, name_b)
        if paper:
            a, b = _CE_PAPER[(paper, "ecbplus")], _CE_PAPER[(paper, "ecbmeta")]
            ref = f"{a} / {b} / drop {float(a) - float(b):.1f} (Table 2, RoBERTa-base)"
        elif topics == "-":
            ref = "-"
        else:
            ref = "none: the paper paired within gold topics (rows above)"
        rows.append((label, topics, _score(rec_a), _score(rec_b), drop, _seeds_cell(name_a, name_b, results), ref))
    table = _table(("system", "topics", "ECB+ test CoNLL F1", "ECB+META_m test CoNLL F1",
                    "drop [95% paired CI]", "three seeds: ECB+ / META_m / drop (mean ± sd)",
                    "ECB+META paper: ECB+ / META_m / drop"), rows)
    caveat = "".join(f"\n\n**Every interval above is a bootstrap over few topics**: {n} of the {2 * len(rows)} "
                     f"CoNLL F1 intervals carry their record's warning \"{w}\" (the paired drops resample the same "
                     "topics); read them as a rough spread, not as 95% coverage." for w, n in warnings.items())
    return (f"The headline trained result: all-MiniLM-L6-v2 cross-encoders trained on CPU for one epoch on a "
            f"stratified sample of {CE_SAMPLE:,} ECB+ train pairs, CoNLL F1 with 95% topic-bootstrap intervals "
            "(generated from `results/`; the paper's values are RoBERTa-base trained 20 epochs, so every row "
            "differs in model and training). Only the gold-topic rows use the paper's protocol; the gold-subtopic "
            "rows are figbench's default protocol and have no paper value. The reference rows score the split "
            "without any system (every mention alone; one cluster per gold topic). The three-seed column reruns each "
            "cross-encoder's training with `--seed 1` and `--seed 2` (a new stratified sample, pair order and "
            "initialisation; CE_KNN's bi-encoder too) and scores each seed's model on both splits; "
            "the seed-0 run is the row's own.\n\n" + table + caveat + ("\n" if caveat else ""))


#: one predicted-topics record per split (the clustering depends only on the split's documents)
TOPIC_RECORDS = ("cdec_lemma_predtopic_ecbplus_test", "cdec_lemma_predtopic_meta_m_test",
                 "cdec_lh_predtopic_ecbplus_dev_small", "cdec_lh_predtopic_meta_m_dev_small",
                 "cdec_lh_predtopic_meta_1_dev_small")


def topic_clustering_table(specs: Iterable[BaselineSpec], results: Path) -> str:
    """The predicted topics' quality against the gold subtopics and topics (``options.topic_clustering``)."""
    rows = []
    for name in TOPIC_RECORDS:
        rec = _record(name, results)
        info = ((rec or {}).get("options") or {}).get("topic_clustering")
        if not info:
            rows.append((f"`{name}`", NOT_MEASURED, *("-",) * 8))
            continue
        sub, top = info["vs_gold_subtopics"], info["vs_gold_topics"]
        pairs = info["mention_pairs_vs_gold_subtopics"]
        rows.append((f"`{name}`", f"{info['documents']} ({info['source'].split('/')[1]}), k = {info['n_topics']}",
                     f"{sub['adjusted_rand']:.3f}", f"{sub['homogeneity']:.3f}", f"{sub['completeness']:.3f}",
                     f"{sub['v_measure']:.3f}", f"{sub['purity']:.3f}", f"{top['homogeneity']:.3f}",
                     _pct(pairs["subtopic_pair_recall"]), _pct(pairs["subtopic_pair_precision"])))
    return _table(("record", "documents clustered, k", "ARI (subtopics)", "homogeneity", "completeness",
                   "V-measure", "purity", "homogeneity vs topics", "same-subtopic pairs kept",
                   "allowed pairs in one subtopic"), rows)


def consistency_table(specs: Iterable[BaselineSpec], results: Path) -> str:
    """Every published value that was re-derived from the authors' released outputs (``Published.evidence``)."""
    rows = [(f"`{s.name}`", f"{s.published.value} ({s.published.table}; {s.published.metrics})", s.published.evidence)
            for s in specs if s.task == "cdec" and s.published is not None and s.published.evidence]
    return _table(("row", "paper (table; metric)", "the authors' released outputs on figbench's gold"), rows)


#: the ECB+META card's LH comparison: (measure, the `_paper` spec, the default-protocol spec or "", metrics)
CARD_LH = (("LH oracle B-cubed recall, test", "cdec_lh_oracle_paper_meta_m_test", "cdec_lh_oracle_meta_m_test",
            ("bcub_recall",)),
           ("LH oracle B-cubed recall, Dev (dev_rest)", "cdec_lh_oracle_paper_meta_m_dev_rest", "",
            ("bcub_recall",)),
           ("LH oracle B-cubed recall, Dev_small", "cdec_lh_oracle_paper_meta_m_dev_small",
            "cdec_lh_oracle_meta_m_dev_small", ("bcub_recall",)),
           ("LH CoNLL, test", "cdec_lh_paper_meta_m_test", "cdec_lh_meta_m_test", ("conll_f1",)),
           ("LH B-cubed R / P / F1 / CoNLL, Dev (dev_rest)", "cdec_lh_paper_meta_m_dev_rest", "",
            ("bcub_recall", "bcub_precision", "bcub_f1", "conll_f1")),
           ("LH B-cubed R / P / F1 / CoNLL, Dev_small", "cdec_lh_paper_meta_m_dev_small", "cdec_lh_meta_m_dev_small",
            ("bcub_recall", "bcub_precision", "bcub_f1", "conll_f1")))


def card_lh_table(results: Path) -> str:
    """The ECB+META card's LH on META_m beside the paper (Tables 1 and 4), from the records."""
    def cells(name: str, metrics: tuple[str, ...]) -> str:
        rec = _record(name, results) if name else None
        if not name:
            return "-"
        if rec is None:
            return NOT_MEASURED
        return " / ".join(_pct(rec["scores"][m]) for m in metrics)

    rows = []
    for label, paper_spec, default_spec, metrics in CARD_LH:
        p = get_spec(paper_spec).published
        rows.append((label, f"{p.value} ({p.table})", f"**{cells(paper_spec, metrics)}** (`{paper_spec}`)",
                     f"{cells(default_spec, metrics)}" + (f" (`{default_spec}`)" if default_spec else "")))
    return _table(("measure", "paper (Ahmed et al. 2024)", "figbench, the paper's protocol (gold topics, "
                   "content-word LH > 0.1)", "figbench, gold subtopics (LH > 0.05, all tokens)"), rows)


#: the conll_coref card's real-data bootstrap examples: (record, metrics)
CARD_BOOTSTRAP = (("cdec_lemma_ecbplus_test", ("conll_f1",)),
                  ("cdec_lemma_wec_eng_test", ("conll_f1", "bcub_precision", "muc_f1")))


def card_bootstrap_table(results: Path) -> str:
    """The intervals of two committed same-head-lemma records: a topic bootstrap and the jackknife."""
    rows = []
    for name, metrics in CARD_BOOTSTRAP:
        rec = _record(name, results)
        if rec is None:
            rows.append((f"`{name}`", NOT_MEASURED, "-", "-", "-"))
            continue
        ci = rec["confidence_intervals"][metrics[0]]
        scores = "; ".join(f"{m} {_score(rec, m)}" for m in metrics)
        rows.append((f"`{name}`", f"{int(rec['counts']['mentions']):,}", scores,
                     f"{ci.get('unit', '-')} ({ci.get('n_units', '-')})", ci.get("warning", "") or "-"))
    return _table(("record", "mentions", "score [95% interval]", "unit (units)", "warning"), rows)
