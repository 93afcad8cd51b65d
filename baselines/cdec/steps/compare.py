"""Robustness drop between two runs of one system (ECB+ minus ECB+META), with a paired bootstrap.

    python -m figbench_baselines.cdec.compare drop results/cdec_ce_lh_ecbplus_test.json \\
        results/cdec_ce_lh_meta_m_test.json

ECB+META paraphrases the triggers of the same ECB+ documents: mention ids, gold clusters and topics
are shared, so the two scores are paired. Every cdec record of a split with several gold topics keeps
the metric counts of its predictions restricted to each topic (``options.unit_counts``,
:func:`unit_counts`): the units the ``cdec`` task resamples for its intervals (its ``group_column``).
Gold clusters never cross a topic, and neither do predicted ones when pairs stay within subtopics or
topics, so the topics' counts add up to the record's own scores (``cut_links`` counts predicted links
between topics otherwise, e.g. under predicted topics). :func:`paired_drop` resamples the topics both
records hold, with replacement, and scores both on the same draw (CoNLL F1 from the summed counts).
The README's robustness table (``cdec_robustness``) is computed this way from the committed records
alone, without the corpora.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

#: the gold group whose counts a record keeps: the cdec task's resampling unit (its group_column)
UNIT = "topic"


def unit_counts(rows: Sequence[Mapping], clusters: Sequence[Sequence[str]], *, by: str,
                remove_singletons: bool = False) -> dict[str, Any]:
    """Metric counts (``figbench.scoring.coref.DOC_FIELDS``) of each ``by`` group of ``rows``: gold and
    predicted clusters restricted to the group's mentions. ``cut_links``: predicted coreference links
    between two groups (0 when pairs never cross a group), which the restriction drops."""
    from figbench.schema import gold_clusters
    from figbench.scoring.coref import DOC_FIELDS, document_counts

    unit_of = {str(r["mention_id"]): str(r[by]) for r in rows}
    units = sorted(set(unit_of.values()))
    pred_by: dict[str, list[list[str]]] = defaultdict(list)
    cut = 0
    for cluster in clusters:
        parts: dict[str, list[str]] = defaultdict(list)
        for m in cluster:
            parts[unit_of[str(m)]].append(str(m))
        n = len(cluster)
        cut += n * (n - 1) // 2 - sum(len(p) * (len(p) - 1) // 2 for p in parts.values())
        for u, ms in parts.items():
            pred_by[u].append(ms)
    rows_by: dict[str, list[Mapping]] = defaultdict(list)
    for r in rows:
        rows_by[unit_of[str(r["mention_id"])]].append(r)
    golds = [gold_clusters(rows_by[u])[0] for u in units]
    counts = document_counts([pred_by[u] for u in units], golds, remove_singletons=remove_singletons)
    return {"unit": by, "fields": list(DOC_FIELDS), "cut_links": int(cut),
            "counts": {u: [float(x) for x in row] for u, row in zip(units, counts)}}


def _matrix(block: Mapping[str, Any], units: Sequence[str]) -> np.ndarray:
    from figbench.scoring.coref import DOC_FIELDS

    if list(block["fields"]) != list(DOC_FIELDS):
        raise ValueError("unit_counts were written with other count fields; re-run the record")
    return np.asarray([block["counts"][u] for u in units], dtype=np.float64)


def paired_drop(a: Mapping[str, Any], b: Mapping[str, Any], *, metric: str = "conll_f1",
                n_resamples: int = 1000, seed: int = 0, level: float = 0.95) -> dict[str, Any]:
    """Score of ``a`` minus score of ``b`` (two ``unit_counts`` blocks) over the units both hold, with a
    percentile interval from a paired bootstrap of those units (and main's degenerate-case warnings)."""
    from figbench.bootstrap import degenerate_reasons, percentile_intervals
    from figbench.scoring.coref import DOC_FIELDS, scores_from_counts, scores_of_rows

    if a["unit"] != b["unit"]:
        raise ValueError(f"the two records resample different units ({a['unit']} vs {b['unit']}): not paired")
    shared = sorted(set(a["counts"]) & set(b["counts"]))
    if not shared:
        raise ValueError("the two records share no unit: not a paired comparison")
    ca, cb = _matrix(a, shared), _matrix(b, shared)
    n = len(shared)
    rng = np.random.default_rng(seed)
    weights = [np.bincount(rng.integers(0, n, size=n), minlength=n).astype(np.float64) for _ in range(n_resamples)]
    # every resample's counts first, then all scored at once (the rows are the one-resample products)
    diffs = (scores_of_rows(np.stack([w @ ca for w in weights]))[metric]
             - scores_of_rows(np.stack([w @ cb for w in weights]))[metric])
    sa, sb = scores_from_counts(ca.sum(0))[metric], scores_from_counts(cb.sum(0))[metric]
    unit = f"{a['unit']}s (paired)"
    sizes = ca[:, DOC_FIELDS.index("key_mentions")]
    ci = percentile_intervals({"drop": diffs}, level=level, n_resamples=n_resamples, unit=unit, n_units=n,
                              point={"drop": sa - sb},
                              reasons=degenerate_reasons(n, unit_sizes=sizes, unit=f"{a['unit']}s"))["drop"]
    return {"a": float(sa), "b": float(sb), "drop": float(sa - sb), "confidence_interval": ci,
            "units": n, "unit": unit, "units_only_a": len(set(a["counts"]) - set(shared)),
            "units_only_b": len(set(b["counts"]) - set(shared)),
            "cut_links": int(a.get("cut_links", 0)) + int(b.get("cut_links", 0))}


def record_units(record: Mapping[str, Any], where: str = "record") -> Mapping[str, Any]:
    block = (record.get("options") or {}).get("unit_counts")
    if not block:
        raise ValueError(f"{where} has no options.unit_counts (records written before they were kept, or runs "
                         "without topics): re-run it")
    return block


def records_drop(rec_a: Mapping[str, Any], rec_b: Mapping[str, Any], **kw: Any) -> dict[str, Any]:
    """:func:`paired_drop` of two cdec records (their ``options.unit_counts``)."""
    return paired_drop(record_units(rec_a, "record A"), record_units(rec_b, "record B"), **kw)
