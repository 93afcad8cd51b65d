"""Robustness drop between two result records of one system (ECB+ minus ECB+META), with a paired bootstrap.

    python -m figbench_baselines.cdec.compare drop results/cdec/ce_lh_s4000_ecb_test.json \\
        results/cdec/ce_lh_s4000_metam_test.json [--csv results/cdec/robustness_drop.csv]

ECB+META paraphrases the triggers of the same ECB+ documents: the mention ids, gold clusters and
subtopics are shared, so the two scores are paired. Candidate pairs and clusters never cross a gold
subtopic (``--within subtopic``), so each subtopic is an independent unit; the interval resamples
subtopics with replacement and scores both records on the same draw (CoNLL F1 from the summed metric
counts of the drawn subtopics). The point estimates are the records' own whole-split scores.
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np


def _rows(record: Mapping[str, Any], data_dir: str | None = None) -> list[dict]:
    from figbench_baselines.cdec.data import load_mentions

    mention_class = (record.get("options") or {}).get("mention_class", "event")
    return load_mentions(record["dataset"], record["config"], record["split"], data_dir, mention_class)


def _predicted_clusters(record: Mapping[str, Any], base: Path) -> list[list[str]]:
    import json

    pred = record["predictions"]
    if "inline" in pred:
        payload = pred["inline"]
    else:
        path = Path(pred["path"])
        payload = json.loads((path if path.is_file() else base / path).read_text("utf-8"))
    return [list(map(str, c)) for c in payload["clusters"]]


def subtopic_counts(rows: Sequence[Mapping], clusters: Sequence[Sequence[str]], by: str = "subtopic",
                    remove_singletons: bool = False) -> tuple[list[str], np.ndarray]:
    """(unit keys, metric counts per unit): key and response clusters restricted to each unit's mentions."""
    from figbench.schema import gold_clusters
    from figbench.scoring.coref import document_counts

    unit_of = {str(r["mention_id"]): str(r[by]) for r in rows}
    units = sorted(set(unit_of.values()))
    pred_by: dict[str, list[list[str]]] = defaultdict(list)
    for c in clusters:
        parts: dict[str, list[str]] = defaultdict(list)
        for m in c:
            if m in unit_of:
                parts[unit_of[m]].append(m)
        for u, ms in parts.items():
            pred_by[u].append(ms)
    by_unit: dict[str, list[Mapping]] = defaultdict(list)
    for r in rows:
        by_unit[unit_of[str(r["mention_id"])]].append(r)
    golds = [gold_clusters(by_unit[u])[0] for u in units]
    preds = [pred_by[u] for u in units]
    return units, document_counts(preds, golds, remove_singletons=remove_singletons)


def paired_drop(rec_a: Mapping, rec_b: Mapping, rows_a: Sequence[Mapping], rows_b: Sequence[Mapping], *,
                base: Path = Path("."), metric: str = "conll_f1", n_resamples: int = 1000, seed: int = 0,
                level: float = 0.95) -> dict[str, Any]:
    """Score difference A - B with a percentile interval from a paired bootstrap over shared subtopics."""
    from figbench.scoring.coref import scores_from_counts

    units_a, counts_a = subtopic_counts(rows_a, _predicted_clusters(rec_a, base))
    units_b, counts_b = subtopic_counts(rows_b, _predicted_clusters(rec_b, base))
    shared = sorted(set(units_a) & set(units_b))
    if not shared:
        raise ValueError("the two records share no subtopic: not a paired comparison")
    ia = np.array([units_a.index(u) for u in shared])
    ib = np.array([units_b.index(u) for u in shared])
    ca, cb = counts_a[ia], counts_b[ib]
    rng = np.random.default_rng(seed)
    diffs = np.empty(n_resamples)
    for k in range(n_resamples):
        idx = rng.integers(0, len(shared), size=len(shared))
        diffs[k] = scores_from_counts(ca[idx].sum(0))[metric] - scores_from_counts(cb[idx].sum(0))[metric]
    alpha = (1 - level) / 2
    low, high = np.quantile(diffs, [alpha, 1 - alpha])
    a, b = float(rec_a["scores"][metric]), float(rec_b["scores"][metric])
    return {"a": a, "b": b, "drop": a - b, "low": float(low), "high": float(high), "level": level,
            "n_resamples": n_resamples, "units": len(shared), "unit": "subtopics (paired)",
            "drop_from_units": float(scores_from_counts(ca.sum(0))[metric] - scores_from_counts(cb.sum(0))[metric])}


def main(argv: list[str] | None = None) -> int:
    from figbench.results import read_result

    p = argparse.ArgumentParser(prog="python -m figbench_baselines.cdec.compare", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("action", choices=("drop",))
    p.add_argument("a", help="record on the original data (e.g. ECB+ test)")
    p.add_argument("b", help="record of the same system on the paraphrased data (e.g. ECB+META_m test)")
    p.add_argument("--metric", default="conll_f1")
    p.add_argument("--n-resamples", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--data-dir-a", default=None)
    p.add_argument("--data-dir-b", default=None)
    p.add_argument("--csv", default=None, help="append one row to this CSV file")
    p.add_argument("--label", default=None, help="system label for the CSV row (default: the record's method)")
    a = p.parse_args(argv)
    rec_a, rec_b = read_result(a.a), read_result(a.b)
    out = paired_drop(rec_a, rec_b, _rows(rec_a, a.data_dir_a), _rows(rec_b, a.data_dir_b), base=Path(a.a).parent,
                      metric=a.metric, n_resamples=a.n_resamples, seed=a.seed)
    name = lambda r: f"{r['dataset']}/{r['config']}/{r['split']}"  # noqa: E731
    label = a.label or rec_a.get("method", "")
    print(f"{label}: {name(rec_a)} {100 * out['a']:.1f} - {name(rec_b)} {100 * out['b']:.1f} = "
          f"{100 * out['drop']:.1f} [{100 * out['low']:.1f}, {100 * out['high']:.1f}] "
          f"({out['units']} {out['unit']}, {out['n_resamples']} resamples)")
    if a.csv:
        path = Path(a.csv)
        new = not path.is_file()
        with path.open("a", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            if new:
                w.writerow(["system", "record_a", "record_b", "metric", "a", "b", "drop", "low", "high", "units"])
            w.writerow([label, Path(a.a).name, Path(a.b).name, a.metric, f"{100 * out['a']:.2f}",
                        f"{100 * out['b']:.2f}", f"{100 * out['drop']:.2f}", f"{100 * out['low']:.2f}",
                        f"{100 * out['high']:.2f}", out["units"]])
    return 0


if __name__ == "__main__":
    sys.exit(main())
