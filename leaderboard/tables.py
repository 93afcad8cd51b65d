"""Tables, detail views and plots of the board, built from store rows (no UI code here)."""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

import pandas as pd

from figbench_leaderboard.benchmarks import Benchmark, BenchmarkRegistry

MODEL_COLUMNS = ["Model", "Revision", "Type", "Parameters"]
SIZE_BINS: dict[str, tuple[float, float] | None] = {
    "< 100M": (0, 1e8), "100M-1B": (1e8, 1e9), "1B-10B": (1e9, 1e10), "> 10B": (1e10, math.inf), "unknown": None,
}
METRIC_ORDER = ("conll_f1", "muc_f1", "bcub_f1", "ceafe_f1", "ceafm_f1", "lea_f1", "blanc_f1",
                "f1", "precision", "recall", "token_f1", "in_vocab_f1", "out_vocab_f1",
                "accuracy", "micro_f1", "macro_f1", "micro_precision", "micro_recall", "macro_precision",
                "macro_recall", "mrr", "top5_accuracy", "exact_match")


def _pct(x: float | None) -> float | None:
    return None if x is None else round(100.0 * float(x), 2)


def size_bin(params: int | None) -> str:
    if params is None or (isinstance(params, float) and math.isnan(params)):
        return "unknown"
    for name, rng in SIZE_BINS.items():
        if rng is not None and rng[0] <= params < rng[1]:
            return name
    return "unknown"


def _bench_key(row: Mapping[str, Any]) -> str:
    return f"{row['task']}/{row['dataset']}/{row['config']}/{row['split']}"


def latest_finished(rows: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str, str], Mapping[str, Any]]:
    """(model, revision, benchmark key) -> the latest FINISHED submission."""
    best: dict[tuple[str, str, str], Mapping[str, Any]] = {}
    for r in rows:
        if r["status"] != "FINISHED" or not r.get("scores"):
            continue
        k = (r["model_name"], r["model_revision"], _bench_key(r))
        if k not in best or r["created_at"] >= best[k]["created_at"]:
            best[k] = r
    return best


def overview(rows: Iterable[Mapping[str, Any]], registry: BenchmarkRegistry) -> pd.DataFrame:
    """One row per model (name + revision): a headline column per benchmark (percent) and the average."""
    benches = list(registry)
    models: dict[tuple[str, str], dict[str, Any]] = {}
    for (name, rev, key), r in latest_finished(rows).items():
        try:
            bench = registry.get(key)
        except ValueError:
            continue
        m = models.setdefault((name, rev), {"Model": name, "Revision": rev, "Type": r["model_type"],
                                            "Parameters": r["model_parameters"], "_verified": True})
        value = r["scores"].get(bench.headline)
        if value is not None:
            m[bench.label] = _pct(value)
            m["_verified"] = m["_verified"] and bool(r["verified"])
        if m["Parameters"] is None and r["model_parameters"] is not None:
            m["Parameters"] = r["model_parameters"]
    labels = [b.label for b in benches]
    records = []
    for m in models.values():
        vals = [m[lab] for lab in labels if m.get(lab) is not None]
        m["Average"] = round(sum(vals) / len(vals), 2) if vals else None
        m["Benchmarks"] = len(vals)
        m["Verified"] = "yes" if m.pop("_verified") else "no"
        records.append(m)
    cols = MODEL_COLUMNS + ["Average", "Benchmarks", "Verified"] + labels
    df = pd.DataFrame.from_records(records, columns=cols)
    df["Parameters"] = df["Parameters"].astype("Int64")
    return df.sort_values(["Average", "Model"], ascending=[False, True], na_position="last", kind="stable").reset_index(drop=True)


def filter_table(df: pd.DataFrame, *, search: str = "", types: Sequence[str] | None = None,
                 sizes: Sequence[str] | None = None, columns: Sequence[str] | None = None,
                 sort_by: str | None = None, descending: bool = True) -> pd.DataFrame:
    """Search (case-insensitive substring of the model name; ';' separates alternatives), filter by
    model type and size bin, keep the chosen columns (model columns always kept) and sort."""
    out = df
    terms = [t.strip().lower() for t in (search or "").split(";") if t.strip()]
    if terms:
        names = out["Model"].astype(str).str.lower()
        mask = pd.Series(False, index=out.index)
        for t in terms:
            mask |= names.str.contains(t, regex=False)
        out = out[mask]
    if types is not None:
        out = out[out["Type"].isin(list(types))]
    if sizes is not None and "Parameters" in out:
        out = out[out["Parameters"].map(lambda p: size_bin(None if pd.isna(p) else int(p))).isin(list(sizes))]
    if sort_by and sort_by in out.columns:
        out = out.sort_values(sort_by, ascending=not descending, na_position="last", kind="stable")
    if columns is not None:
        keep = [c for c in out.columns if c in MODEL_COLUMNS or c in columns]
        out = out[keep]
    return out.reset_index(drop=True)


def _fmt_ci(value: float | None, ci: Mapping[str, Any] | None) -> str:
    if value is None:
        return ""
    s = f"{100 * value:.1f}"
    if ci:
        s += f" [{100 * ci['low']:.1f}, {100 * ci['high']:.1f}]"
    return s


def _ordered_metrics(names: Iterable[str]) -> list[str]:
    names = set(names)
    first = [m for m in METRIC_ORDER if m in names]
    return first + sorted(names - set(first))


def family_table(rows: Iterable[Mapping[str, Any]], registry: BenchmarkRegistry, family: str) -> pd.DataFrame:
    """One row per (model, benchmark) of a task family with every sub-metric as 'value [low, high]' (percent)."""
    benches = {b.key: b for b in registry.family(family)}
    chosen = [r for (_, _, key), r in latest_finished(rows).items() if key in benches]
    metrics = _ordered_metrics(k for r in chosen for k in r["scores"])
    records = []
    for r in chosen:
        b = benches[_bench_key(r)]
        rec = {"Model": r["model_name"], "Revision": r["model_revision"], "Type": r["model_type"],
               "Parameters": r["model_parameters"], "Benchmark": b.label,
               "Verified": "yes" if r["verified"] else "no", "Submission": r["id"][:12]}
        cis = r.get("confidence_intervals") or {}
        for m in metrics:
            rec[m] = _fmt_ci(r["scores"].get(m), cis.get(m))
        rec["_sort"] = r["scores"].get(b.headline, -1)
        records.append(rec)
    cols = MODEL_COLUMNS + ["Benchmark", "Verified", "Submission"] + metrics
    df = pd.DataFrame.from_records(records, columns=cols + ["_sort"])
    order = {b.label: i for i, b in enumerate(benches.values())}
    df["_bench"] = df["Benchmark"].map(order)
    df = df.sort_values(["_bench", "_sort"], ascending=[True, False], kind="stable")
    df = df.drop(columns=["_sort", "_bench"])
    df["Parameters"] = df["Parameters"].astype("Int64")
    return df.reset_index(drop=True)


def _when(ts: float) -> str:
    return datetime.fromtimestamp(ts, timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def queue_table(rows: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """All submissions, newest first, with status and the failure reason."""
    records = [{"Submission": r["id"][:12], "Submitted": _when(r["created_at"]), "Status": r["status"],
                "Reason": r["reason"] or "", "Model": r["model_name"], "Revision": r["model_revision"],
                "Benchmark": _bench_key(r), "Submitter": r["submitter"] or "",
                "Verified": "yes" if r["verified"] else "no"} for r in rows]
    df = pd.DataFrame.from_records(records, columns=["Submission", "Submitted", "Status", "Reason", "Model",
                                                     "Revision", "Benchmark", "Submitter", "Verified"])
    return df.iloc[::-1].reset_index(drop=True)


def submissions_frame(rows: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """Flat table of every submission (fractions, not percent): metadata, scores, CIs, counts."""
    records = []
    for r in rows:
        meta = r.get("metadata") or {}
        model = meta.get("model") or {}
        rec = {"id": r["id"], "created_at": _when(r["created_at"]), "status": r["status"], "reason": r["reason"],
               "task": r["task"], "dataset": r["dataset"], "config": r["config"], "split": r["split"],
               "model_name": r["model_name"], "model_revision": r["model_revision"], "model_type": r["model_type"],
               "model_parameters": r["model_parameters"], "model_link": model.get("link"),
               "model_licence": model.get("licence"), "submitter": r["submitter"], "verified": bool(r["verified"]),
               "description": meta.get("description"), "paper": meta.get("paper"), "method": meta.get("method"),
               "figbench_version": (meta.get("provenance") or {}).get("figbench_version"),
               "command": (meta.get("provenance") or {}).get("command"),
               "seed": (meta.get("provenance") or {}).get("seed"),
               "mismatched_scores": ",".join(sorted(r.get("mismatches") or {})) or None}
        for k, v in (r.get("scores") or {}).items():
            rec[f"score.{k}"] = v
        for k, ci in (r.get("confidence_intervals") or {}).items():
            rec[f"ci_low.{k}"] = ci.get("low")
            rec[f"ci_high.{k}"] = ci.get("high")
        records.append(rec)
    df = pd.DataFrame.from_records(records)
    if "model_parameters" in df:
        df["model_parameters"] = df["model_parameters"].astype("Int64")
    return df


def _link(url: str | None) -> str:
    if not url:
        return ""
    if url.startswith(("https://", "http://")):
        return f'<a href="{html.escape(url, quote=True)}" rel="nofollow noopener" target="_blank">{html.escape(url)}</a>'
    return html.escape(url)


def detail_html(sub: Mapping[str, Any] | None, registry: BenchmarkRegistry) -> str:
    """HTML of one submission; every value from the submitter is escaped."""
    if sub is None:
        return "<p>No such submission.</p>"
    e = html.escape
    meta = sub.get("metadata") or {}
    model = meta.get("model") or {}
    prov = meta.get("provenance") or {}
    key = _bench_key(sub)
    try:
        label = registry.get(key).label
    except ValueError:
        label = key
    rows = [("Submission", sub["id"]), ("Status", sub["status"]), ("Reason", sub.get("reason") or ""),
            ("Benchmark", f"{label} ({key})"), ("Model", sub["model_name"]), ("Revision", sub["model_revision"]),
            ("Type", sub["model_type"]), ("Parameters", "" if sub["model_parameters"] is None else f"{sub['model_parameters']:,}"),
            ("Licence", model.get("licence") or ""), ("Submitter", sub.get("submitter") or ""),
            ("Description", meta.get("description") or ""), ("Method", meta.get("method") or ""),
            ("Verified", "yes (scored by the server)" if sub["verified"] else "no (self-reported)"),
            ("Submitted", _when(sub["created_at"])),
            ("figbench version", str(prov.get("figbench_version", ""))), ("Command", str(prov.get("command", ""))),
            ("Seed", str(prov.get("seed", ""))), ("Hardware", str(prov.get("hardware", "")))]
    parts = ['<div class="fb-detail"><table>']
    parts += [f"<tr><th>{e(k)}</th><td>{e(str(v))}</td></tr>" for k, v in rows]
    parts.append(f"<tr><th>Model link</th><td>{_link(model.get('link'))}</td></tr>")
    parts.append(f"<tr><th>Paper</th><td>{_link(meta.get('paper'))}</td></tr>")
    parts.append("</table>")
    scores = sub.get("scores") or {}
    if scores:
        cis = sub.get("confidence_intervals") or {}
        mism = sub.get("mismatches") or {}
        parts.append("<h4>Scores (percent, 95% bootstrap interval)</h4><table><tr><th>metric</th><th>score</th>"
                     "<th>interval</th><th>self-reported</th></tr>")
        for m in _ordered_metrics(scores):
            ci = cis.get(m)
            ci_s = f"[{100 * ci['low']:.2f}, {100 * ci['high']:.2f}]" if ci else ""
            rep = mism.get(m, {}).get("reported")
            rep_s = f"{100 * rep:.2f} (mismatch)" if rep is not None else ""
            parts.append(f"<tr><td>{e(m)}</td><td>{100 * scores[m]:.2f}</td><td>{ci_s}</td><td>{e(rep_s)}</td></tr>")
        parts.append("</table>")
    parts.append("</div>")
    return "".join(parts)


def robustness_frame(rows: Iterable[Mapping[str, Any]], registry: BenchmarkRegistry) -> pd.DataFrame:
    """CoNLL F1 (percent) of each model on ECB+ and the ECB+META versions (long format)."""
    wanted = [b for b in registry if b.task == "cdec" and b.dataset in ("ecbplus", "ecbmeta")]
    keys = {b.key: b for b in wanted}
    recs = [{"Model": n if not rev else f"{n}@{rev}", "Benchmark": keys[k].label, "CoNLL F1": _pct(r["scores"].get("conll_f1"))}
            for (n, rev, k), r in latest_finished(rows).items() if k in keys and r["scores"].get("conll_f1") is not None]
    return pd.DataFrame.from_records(recs, columns=["Model", "Benchmark", "CoNLL F1"])


def robustness_plot(frame: pd.DataFrame, registry: BenchmarkRegistry):
    """Grouped bars: ECB+ vs ECB+META CoNLL F1 per model (the drop on metaphoric paraphrases)."""
    from matplotlib.figure import Figure   # not pyplot: nothing kept in a global figure registry

    order = [b.label for b in registry if b.task == "cdec" and b.dataset in ("ecbplus", "ecbmeta")]
    fig = Figure(figsize=(9, 4.2))
    ax = fig.subplots()
    if frame.empty:
        ax.text(0.5, 0.5, "no ECB+ / ECB+META submissions yet", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return fig
    present = set(frame["Benchmark"])
    order = [lab for lab in order if lab in present]
    models = list(dict.fromkeys(frame["Model"]))
    width = 0.8 / max(len(order), 1)
    for i, lab in enumerate(order):
        sub = frame[frame["Benchmark"] == lab].set_index("Model")["CoNLL F1"]
        xs = [j + (i - (len(order) - 1) / 2) * width for j in range(len(models))]
        ax.bar(xs, [sub.get(m, float("nan")) for m in models], width, label=lab)
    ax.set_xticks(range(len(models)))
    ax.set_xticklabels(models, rotation=20, ha="right", fontsize=8)
    ax.set_ylabel("CoNLL F1")
    ax.set_title("Robustness to metaphor: ECB+ vs ECB+META CoNLL F1")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    return fig


def size_plot(ov: pd.DataFrame):
    """Average headline score vs model size (models with a parameter count)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 4.2))
    ax = fig.subplots()
    d = ov.dropna(subset=["Parameters", "Average"]) if not ov.empty else ov
    d = d[d["Parameters"] > 0] if not d.empty else d
    if d.empty:
        ax.text(0.5, 0.5, "no submissions with a parameter count yet", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return fig
    for mtype, g in d.groupby("Type"):
        ax.scatter(g["Parameters"].astype(float), g["Average"], label=mtype)
        for _, r in g.iterrows():
            ax.annotate(str(r["Model"])[:30], (float(r["Parameters"]), r["Average"]), fontsize=7)
    ax.set_xscale("log")
    ax.set_xlabel("parameters")
    ax.set_ylabel("average headline score")
    ax.set_title("Score vs model size")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    return fig


__all__ = ["Benchmark", "overview", "filter_table", "family_table", "queue_table", "submissions_frame",
           "detail_html", "robustness_frame", "robustness_plot", "size_plot", "size_bin", "SIZE_BINS"]
