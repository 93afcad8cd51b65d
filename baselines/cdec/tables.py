"""Markdown tables of the trained cdec runs from their result records (``results/cdec``).

    python -m figbench_baselines.cdec.tables [--results results/cdec] [--drops]

Prints the rows of baselines/README.md's trained-run tables: KNN oracle recall (frozen vs triplet-
trained bi-encoder), CE_LH / CE_KNN on every evaluated split with 95% intervals, the learning curve,
the robustness drop with paired intervals (``--drops`` loads the gold data through the builders) and
the WEC pairwise rows. A record that does not exist yet shows as "(not run yet)".
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from figbench_baselines.cdec.reproduce import CE_SAMPLE, ORACLE_KS, SPLITS

LABEL = {"ecb_test": "ECB+ test", "ecb_dev": "ECB+ dev", "ecb_dev_small": "ECB+ dev_small",
         "metam_test": "META_m test", "metam_dev": "META_m dev", "metam_dev_small": "META_m dev_small",
         "meta1_dev_small": "META_1 dev_small"}
#: the ECB+META paper's Table 2 (RoBERTa-base cross-encoders trained on ECB+ train; test splits)
PUBLISHED_CE = {("ce_lh", "ecb_test"): "78.1 (T2)", ("ce_lh", "metam_test"): "50.6 (T2)",
                ("ce_lh", "meta1_dev_small"): "60.9 on META_1 *test* (T2)",
                ("ce_knn", "ecb_test"): "78.0 (T2)", ("ce_knn", "metam_test"): "54.8 (T2)"}
#: Table 1: oracle B-cubed recall of KNN (k=5, trained RoBERTa bi-encoder)
PUBLISHED_KNN = {"ecb_test": "94.9", "metam_test": "85.6", "meta1_dev_small": "91.4 (META_1 test)"}


def _load(path: Path) -> dict | None:
    if not path.is_file():
        return None
    return json.loads(path.read_text("utf-8"))


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def _ci(rec: Mapping, key: str) -> str:
    ci = rec.get("confidence_intervals", {}).get(key)
    return f" [{_pct(ci['low'])}, {_pct(ci['high'])}]" if ci else ""


def _minutes(s: float | None) -> str:
    if s is None:
        return "-"
    return f"{s / 60:.0f} min" if s < 5400 else f"{s / 3600:.1f} h"


def oracle_table(results: Path) -> str:
    cols = ("ecb_test", "metam_test", "ecb_dev", "metam_dev", "ecb_dev_small", "metam_dev_small", "meta1_dev_small")
    lines = ["| bi-encoder | k | " + " | ".join(LABEL[c] for c in cols) + " |",
             "|---|---|" + "---|" * len(cols)]
    for enc in ("frozen", "trained"):
        for k in ORACLE_KS:
            cells = []
            for c in cols:
                rec = _load(results / f"knn_oracle_{enc}_k{k}_{c}.json")
                if rec is None:
                    cells.append("(not run yet)")
                    continue
                s = rec["scores"]
                cells.append(f"**{_pct(s['bcub_recall'])}** ({_pct(s['candidate_gold_pair_recall'])})")
            name = "frozen MiniLM" if enc == "frozen" else "MiniLM + triplet loss (ECB+ train)"
            lines.append(f"| {name} | {k} | " + " | ".join(cells) + " |")
    lines.append("| published: RoBERTa-base bi-encoder (Table 1) | 5 | " +
                 " | ".join(PUBLISHED_KNN.get(c, "-") for c in cols) + " |")
    return "\n".join(lines)


def _training(rec: Mapping) -> dict:
    training = rec["provenance"].get("training", {})
    return training.get("crossencoder") or training.get("wec_pairwise") or {}


def ce_table(results: Path, sample: int = CE_SAMPLE) -> str:
    lines = ["| method | split | MUC / B3 / CEAF-e / **CoNLL** [95% CI] | published (RoBERTa-base) | "
             "training pairs | train / eval wall time | record |", "|---|---|---|---|---|---|---|"]
    for method in ("ce_lh", "ce_knn"):
        for short in ("ecb_test", "metam_test", "ecb_dev_small", "metam_dev_small", "meta1_dev_small"):
            name = f"{method}_s{sample}_{short}"
            rec = _load(results / f"{name}.json")
            pub = PUBLISHED_CE.get((method, short), "-")
            if rec is None:
                lines.append(f"| {method.upper()} | {LABEL[short]} | (not run yet) | {pub} | | | |")
                continue
            s, p = rec["scores"], rec["provenance"]
            lines.append(
                f"| {method.upper()} | {LABEL[short]} | {_pct(s['muc_f1'])} / {_pct(s['bcub_f1'])} / "
                f"{_pct(s['ceafe_f1'])} / **{_pct(s['conll_f1'])}**{_ci(rec, 'conll_f1')} | {pub} | "
                f"{int(rec['counts']['n_training_pairs']):,} | {_minutes(p.get('train_wall_time_s'))} / "
                f"{_minutes(p.get('eval_wall_time_s'))} | `results/cdec/{name}.json` |")
    return "\n".join(lines)


def curve_table(results: Path, sample: int = CE_SAMPLE) -> str:
    lines = ["| method | training pairs (positive) | ECB+ test CoNLL | META_m test CoNLL | ECB+ - META_m | "
             "train wall time |", "|---|---|---|---|---|---|"]
    for method in ("ce_lh", "ce_knn"):
        for frac in (0.25, 0.5, 1.0):
            tag = f"{method}_s{sample}" + ("" if frac == 1.0 else f"_f{frac:g}")
            ecb, meta = _load(results / f"{tag}_ecb_test.json"), _load(results / f"{tag}_metam_test.json")
            any_rec = ecb or meta
            if any_rec is None:
                lines.append(f"| {method.upper()} | {frac:.0%} of {sample:,} | (not run yet) | | | |")
                continue
            t = _training(any_rec)
            pairs = f"{t.get('n_training_pairs', 0):,} ({t.get('n_training_positive', 0):,})"
            e = f"{_pct(ecb['scores']['conll_f1'])}{_ci(ecb, 'conll_f1')}" if ecb else "(not run yet)"
            m = f"{_pct(meta['scores']['conll_f1'])}{_ci(meta, 'conll_f1')}" if meta else "(not run yet)"
            d = _pct(ecb["scores"]["conll_f1"] - meta["scores"]["conll_f1"]) if ecb and meta else "-"
            lines.append(f"| {method.upper()} | {pairs} | {e} | {m} | {d} | {_minutes(t.get('train_wall_time_s'))} |")
    return "\n".join(lines)


def drop_table(results: Path, sample: int = CE_SAMPLE) -> str:
    from figbench_baselines.cdec.compare import _rows, paired_drop

    lines = ["| system | ECB+ split | META split | ECB+ CoNLL | META CoNLL | **drop** [95% paired CI] |",
             "|---|---|---|---|---|---|"]
    rows_cache: dict[tuple, list] = {}

    def rows(rec: Mapping[str, Any]) -> list:
        key = (rec["dataset"], rec["config"], rec["split"])
        if key not in rows_cache:
            rows_cache[key] = _rows(rec)
        return rows_cache[key]

    systems = [("LH (heuristic)", "lh"), ("CE_LH", f"ce_lh_s{sample}"), ("CE_KNN", f"ce_knn_s{sample}")]
    for label, tag in systems:
        for a, b in (("ecb_test", "metam_test"), ("ecb_dev_small", "metam_dev_small"),
                     ("ecb_dev_small", "meta1_dev_small")):
            ra, rb = _load(results / f"{tag}_{a}.json"), _load(results / f"{tag}_{b}.json")
            if ra is None or rb is None:
                lines.append(f"| {label} | {LABEL[a]} | {LABEL[b]} | (not run yet) | | |")
                continue
            d = paired_drop(ra, rb, rows(ra), rows(rb), base=results)
            lines.append(f"| {label} | {LABEL[a]} | {LABEL[b]} | {_pct(d['a'])} | {_pct(d['b'])} | "
                         f"**{_pct(d['drop'])}** [{_pct(d['low'])}, {_pct(d['high'])}] |")
    return "\n".join(lines)


def wec_table(results: Path) -> str:
    lines = ["| training data | test split | threshold tuned on | MUC / B3 / CEAF-e / **CoNLL** [95% CI] | "
             "training pairs | published | record |", "|---|---|---|---|---|---|---|"]
    pub = {"wec_pairwise_ecb_test": "80.8 (RoBERTa-large, trained on ECB+)",
           "wec_pairwise_wec_test": "62.3 is WEC-Eng-trained; the ECB+ -> WEC-Eng value of Table 9 could not be read offline",
           "wec_pairwise_wec_test_tuned_wec_dev": "-"}
    for name in pub:
        rec = _load(results / f"{name}.json")
        if rec is None:
            lines.append(f"| ECB+ train | | | (not run yet) | | {pub[name]} | |")
            continue
        s, o = rec["scores"], rec["options"]
        split = f"{rec['dataset']}/{rec['split']}"
        lines.append(f"| ECB+ train (frozen MiniLM + MLP) | {split} | {o.get('wec_tune_split')} "
                     f"(threshold {o.get('cluster_threshold')}) | {_pct(s['muc_f1'])} / {_pct(s['bcub_f1'])} / "
                     f"{_pct(s['ceafe_f1'])} / **{_pct(s['conll_f1'])}**{_ci(rec, 'conll_f1')} | "
                     f"{int(rec['counts']['n_training_pairs']):,} | {pub[name]} | `results/cdec/{name}.json` |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m figbench_baselines.cdec.tables", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--results", default="results/cdec")
    p.add_argument("--sample", type=int, default=CE_SAMPLE)
    p.add_argument("--drops", action="store_true", help="also the paired robustness-drop table (loads the data)")
    a = p.parse_args(argv)
    results = Path(a.results)
    assert set(LABEL) == set(SPLITS)
    print("### KNN oracle B-cubed recall (pair recall)\n\n" + oracle_table(results))
    print("\n### CE_LH / CE_KNN\n\n" + ce_table(results, a.sample))
    print("\n### Learning curve\n\n" + curve_table(results, a.sample))
    if a.drops:
        print("\n### Robustness drop\n\n" + drop_table(results, a.sample))
    print("\n### WEC pairwise\n\n" + wec_table(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
