"""The board's tables, built from store rows and the task declarations (no UI code, no task names).

* :func:`overview`: one row per model (name + revision; verified and self-reported scores never in
  one row), the headline of each benchmark in percent with its interval, and for one benchmark
  **group** the average over models that have every benchmark of the group, and a rank (ties where
  intervals overlap). Models with one method per language (a name that differs only by the language
  code of the benchmark, e.g. ``..._en_to_en`` / ``..._es_to_es``) are one row with per-language columns.
* :func:`filter_table` / :func:`display_overview`: search, filters, sorting; then strings (one
  decimal, "–" for blanks, ``22.7M`` parameters).
* :func:`task_table`: every declared column of one task with intervals; :func:`family_table`: a
  family's tasks in one frame (metric keys as columns).
* :func:`queue_table`, :func:`submissions_frame`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from figbench_leaderboard.domain.benchmarks import Benchmark, BenchmarkRegistry
from figbench_leaderboard.domain.release import gold_kind, gold_marker
from figbench_leaderboard.domain.selection import marked, row_test_informed
from figbench_leaderboard.ui import formatting as fmt

MODEL_COLUMNS = ["Model", "Revision", "Type", "Parameters"]
SIZE_BINS: dict[str, tuple[float, float] | None] = {
    "< 100M": (0, 1e8), "100M-1B": (1e8, 1e9), "1B-10B": (1e9, 1e10), "> 10B": (1e10, math.inf), "unknown": None,
}
ALL_GROUPS = "All benchmarks"
LOW, HIGH, SID = " low", " high", " id"   #: suffixes of a benchmark's auxiliary columns
TI = " test-informed"   #: suffix of a score's auxiliary column: True when a choice behind it saw test results


def size_bin(params: int | None) -> str:
    if fmt.missing(params):
        return "unknown"
    for name, rng in SIZE_BINS.items():
        if rng is not None and rng[0] <= params < rng[1]:
            return name
    return "unknown"


def bench_key(row: Mapping[str, Any]) -> str:
    return f"{row['task']}/{row['dataset']}/{row['config']}/{row['split']}"


_LAST: list = [None, None]   #: the last rows list seen and its result (views pass the same list per revision)


def latest_finished(rows: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str, bool, str], Mapping[str, Any]]:
    """(model, revision, verified, benchmark key) -> the latest FINISHED submission."""
    if isinstance(rows, list) and rows is _LAST[0]:
        return _LAST[1]
    best: dict[tuple[str, str, bool, str], Mapping[str, Any]] = {}
    for r in rows:
        if r["status"] != "FINISHED" or not r.get("scores"):
            continue
        k = (r["model_name"], r["model_revision"], bool(r["verified"]), bench_key(r))
        if k not in best or r["created_at"] >= best[k]["created_at"]:
            best[k] = r
    if isinstance(rows, list):
        _LAST[0], _LAST[1] = rows, best
    return best


# --- languages ------------------------------------------------------------------------------

def languages(registry: BenchmarkRegistry) -> dict[str, str]:
    """Benchmark key -> language code, for groups whose benchmarks differ by a ``_xx`` config suffix."""
    out: dict[str, str] = {}
    for benches in registry.groups().values():
        codes = [b.config.rsplit("_", 1)[-1] if "_" in b.config else "" for b in benches]
        if len(benches) > 1 and all(len(c) == 2 and c.isalpha() and c.islower() for c in codes) \
                and len(set(codes)) == len(codes):
            out.update({b.key: c for b, c in zip(benches, codes)})
    return out


_PLACEHOLDER = "\x00"


def _language_key(name: str, lang: str) -> str:
    return re.sub(rf"(?<![A-Za-z]){lang}(?![A-Za-z])", _PLACEHOLDER, name)


# --- the overview -----------------------------------------------------------------------------

_MODELS: list = [None, None, None]


def _models(rows: Iterable[Mapping[str, Any]], registry: BenchmarkRegistry) -> list[dict[str, Any]]:
    """One record per (model, revision, verified) with a cell per benchmark label (``_cells``; read-only)."""
    if isinstance(rows, list) and rows is _MODELS[0] and registry is _MODELS[1]:
        return _MODELS[2]
    out = _build_models(rows, registry)
    if isinstance(rows, list):
        _MODELS[:] = [rows, registry, out]
    return out


def _build_models(rows: Iterable[Mapping[str, Any]], registry: BenchmarkRegistry) -> list[dict[str, Any]]:
    langs = languages(registry)
    models: dict[tuple[str, str, bool], dict[str, Any]] = {}
    for (name, rev, verified, key), r in latest_finished(rows).items():
        if not registry.has(key):
            continue
        b = registry.get(key)
        value = r["scores"].get(registry.headline(b))
        if value is None:
            continue
        merge, lang = name, langs.get(key)
        if lang and _language_key(name, lang) != name:
            merge = _language_key(name, lang)
        m = models.setdefault((merge, rev, verified), {
            "Model": name, "Revision": rev, "Type": r["model_type"], "Parameters": r["model_parameters"],
            "Verified": "yes" if verified else "no", "_langs": set(), "_cells": {}})
        if merge != name:
            m["_langs"].add(lang)
        if m["Parameters"] is None and r["model_parameters"] is not None:
            m["Parameters"] = r["model_parameters"]
        ci = (r.get("confidence_intervals") or {}).get(registry.headline(b)) or {}
        m["_cells"][b.label] = (100 * value, _pct(ci.get("low")), _pct(ci.get("high")), r["id"],
                                row_test_informed(r))
    out = []
    for (merge, _, _), m in models.items():
        if len(m["_langs"]) > 1:
            m["Model"] = merge.replace(_PLACEHOLDER, "{" + ",".join(sorted(m["_langs"])) + "}")
        out.append(m)
    return out


def _pct(x: Any) -> float | None:
    return None if fmt.missing(x) else 100.0 * float(x)


def group_choices(registry: BenchmarkRegistry) -> list[str]:
    return list(registry.groups()) + [ALL_GROUPS]


def group_benchmarks(registry: BenchmarkRegistry, group: str) -> list[Benchmark]:
    return list(registry) if group == ALL_GROUPS else registry.groups().get(group, [])


def default_group(rows: Iterable[Mapping[str, Any]], registry: BenchmarkRegistry) -> str:
    """The first group (declaration order) with a verified model that has all of its benchmarks."""
    models = [m for m in _models(rows, registry) if m["Verified"] == "yes"]
    for group, benches in registry.groups().items():
        if any(all(b.label in m["_cells"] for b in benches) for m in models):
            return group
    return next(iter(registry.groups()), ALL_GROUPS)


def rank_with_ties(avg: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """Rank = 1 + the number of models whose interval lies entirely above this one's (ties share a rank)."""
    ranks = np.zeros(len(avg), dtype=np.int64)
    for i in range(len(avg)):
        ranks[i] = 1 + int(np.sum(low > high[i]))
    return ranks


def overview(rows: Iterable[Mapping[str, Any]], registry: BenchmarkRegistry, group: str | None = None) -> pd.DataFrame:
    """One row per model: headline of each benchmark (percent), the average of ``group`` (default
    :func:`default_group`) over models with every benchmark of the group, and a rank among verified ones.

    Columns: ``Model, Revision, Type, Parameters, Average, Benchmarks, Verified``, one per benchmark
    label, then ``Rank``, ``Tied``, ``Average low/high`` and per label ``<label> low/high/id``.
    """
    rows = rows if isinstance(rows, list) else list(rows)
    group = group or default_group(rows, registry)
    members = [b.label for b in group_benchmarks(registry, group)]
    labels = [b.label for b in registry]
    records = []
    for m in _models(rows, registry):
        cells = m["_cells"]
        rec = {k: v for k, v in m.items() if not k.startswith("_")}
        for lab in labels:
            v, lo, hi, sid, ti = cells.get(lab, (None, None, None, None, False))
            rec[lab], rec[lab + LOW], rec[lab + HIGH], rec[lab + SID], rec[lab + TI] = v, lo, hi, sid, ti
        rec["Benchmarks"] = len(cells)
        if members and all(lab in cells for lab in members):
            vals = [cells[lab][0] for lab in members]
            halves = [((cells[lab][2] - cells[lab][1]) / 2 if cells[lab][1] is not None and cells[lab][2] is not None
                       else 0.0) for lab in members]
            avg = sum(vals) / len(vals)
            if len(members) == 1 and cells[members[0]][1] is not None:
                lo, hi = cells[members[0]][1], cells[members[0]][2]
            else:   # independent benchmarks: the half-width of a mean (an approximation, documented)
                hw = math.sqrt(sum(h * h for h in halves)) / len(halves)
                lo, hi = avg - hw, avg + hw
            rec["Average"], rec["Average low"], rec["Average high"] = avg, lo, hi
            rec["Average" + TI] = any(cells[lab][4] for lab in members)
        else:
            rec["Average"] = rec["Average low"] = rec["Average high"] = None
            rec["Average" + TI] = False
        rec["_in_group"] = sum(lab in cells for lab in members)
        records.append(rec)
    aux = [c for lab in labels for c in (lab + LOW, lab + HIGH, lab + SID, lab + TI)]
    cols = MODEL_COLUMNS + ["Average", "Benchmarks", "Verified"] + labels + ["Rank", "Tied", "Average low",
                                                                             "Average high", "Average" + TI] + aux
    df = pd.DataFrame.from_records(records, columns=cols + ["_in_group"])
    df["Parameters"] = df["Parameters"].astype("Int64")
    for c in ["Average", "Average low", "Average high"] + labels:
        df[c] = pd.to_numeric(df[c], errors="coerce").astype(float)
    ranked = (df["Verified"] == "yes") & df["Average"].notna()
    df["Rank"] = pd.array([pd.NA] * len(df), dtype="Int64")
    df["Tied"] = False
    if ranked.any():
        sub = df[ranked]
        ranks = rank_with_ties(sub["Average"].to_numpy(), sub["Average low"].fillna(sub["Average"]).to_numpy(),
                               sub["Average high"].fillna(sub["Average"]).to_numpy())
        df.loc[ranked, "Rank"] = ranks
        counts = pd.Series(ranks).value_counts()
        df.loc[ranked, "Tied"] = [bool(counts[r] > 1) for r in ranks]
    df["_unverified"] = df["Verified"] != "yes"
    df = df.sort_values(["_unverified", "Rank", "Average", "_in_group", "Benchmarks", "Model"],
                        ascending=[True, True, False, False, False, True], na_position="last", kind="stable")
    return df.drop(columns=["_unverified", "_in_group"]).reset_index(drop=True)


def in_group(df: pd.DataFrame, registry: BenchmarkRegistry, group: str) -> pd.DataFrame:
    """The :func:`overview` rows of the models with a score on at least one benchmark of ``group`` (the
    Overview's default; the others are behind its "all models" toggle)."""
    labels = [b.label for b in group_benchmarks(registry, group) if b.label in df]
    return df[df[labels].notna().any(axis=1)].reset_index(drop=True) if labels else df.iloc[0:0]


def filter_table(df: pd.DataFrame, *, search: str = "", types: Sequence[str] | None = None,
                 sizes: Sequence[str] | None = None, columns: Sequence[str] | None = None,
                 sort_by: str | None = None, descending: bool = True, show_unverified: bool = True) -> pd.DataFrame:
    """Search (case-insensitive substring of the model name; ';' separates alternatives), filter by
    model type, size bin and verification, keep the chosen columns (model columns always kept) and sort."""
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
    if not show_unverified and "Verified" in out:
        out = out[out["Verified"] == "yes"]
    if sort_by and sort_by in out.columns and sort_by != "Rank":
        ascending = not descending
        if "Verified" in out:
            out = out.assign(_u=out["Verified"] != "yes").sort_values(
                ["_u", sort_by], ascending=[True, ascending], na_position="last", kind="stable").drop(columns="_u")
        else:
            out = out.sort_values(sort_by, ascending=ascending, na_position="last", kind="stable")
    elif sort_by == "Rank" and not descending:
        out = out.iloc[::-1]
    if columns is not None:
        keep = [c for c in out.columns if c in MODEL_COLUMNS or c in columns]
        out = out[keep]
    return out.reset_index(drop=True)


def display_overview(df: pd.DataFrame, labels: Sequence[str], *, extra: Sequence[str] = (),
                     limit: int | None = None) -> pd.DataFrame:
    """Strings for the UI: ``Rank`` (``=2`` for ties, "–" unranked), model (marked when self-reported),
    type, parameters (``22.7M``), the average and each benchmark in ``labels`` as ``value [low, high]``,
    and the ``extra`` columns (``Revision``, ``Benchmarks``, ``Verified``, ``Submitter``...). The
    Revision column is left out when every revision is empty."""
    if limit is not None:
        df = df.head(limit)
    out = pd.DataFrame(index=df.index)
    out["Rank"] = [fmt.BLANK if fmt.missing(r) else (f"={int(r)}" if t else str(int(r)))
                   for r, t in zip(df["Rank"], df["Tied"])]
    out["Model"] = [m if v == "yes" else f"{m} (unverified)" for m, v in zip(df["Model"], df["Verified"])]
    if "Revision" in extra or df["Revision"].fillna("").astype(str).str.len().gt(0).any():
        out["Revision"] = df["Revision"].fillna("").map(lambda s: s or fmt.BLANK)
    out["Type"] = df["Type"]
    out["Parameters"] = df["Parameters"].map(fmt.params)
    for lab in ["Average"] + [lab for lab in labels if lab in df]:   # "Average low" is "Average" + LOW
        out[lab] = [marked(fmt.value_ci(v, lo, hi), ti)
                    for v, lo, hi, ti in zip(df[lab], df[lab + LOW], df[lab + HIGH], df[lab + TI])]
    for col in extra:
        if col in df and col not in out:
            out[col] = df[col].map(lambda x: fmt.BLANK if fmt.missing(x) else x)
    if "Revision" in out and not (df["Revision"].fillna("").astype(str) != "").any():
        out = out.drop(columns="Revision")
    return out.reset_index(drop=True)


def download_frame(df: pd.DataFrame, registry: BenchmarkRegistry) -> pd.DataFrame:
    """The overview as data (percent, intervals as columns), text cells safe for spreadsheets."""
    out = df.copy()
    for col in out.columns:
        if not (pd.api.types.is_numeric_dtype(out[col]) or pd.api.types.is_bool_dtype(out[col])):
            out[col] = out[col].map(fmt.csv_safe).astype(object)
    return out


# --- per task and per family ---------------------------------------------------------------------


def task_table(rows: Iterable[Mapping[str, Any]], registry: BenchmarkRegistry, task: str, *,
               show_unverified: bool = False, top: int | None = None) -> pd.DataFrame:
    """One row per (model, benchmark) of ``task``: every declared column as ``value [low, high]``
    (percent, titles as headers), best headline first within each benchmark; ``top``: the best ``top``
    models of each benchmark only. Type and size are the overview's."""
    decl = registry.task(task)
    benches = {b.key: b for b in registry.task_benchmarks(task)}
    columns = list(decl.table_columns())
    titles = {m: decl.metric(m).title for m in columns}
    fraction = {m: decl.metric(m).fraction for m in columns}
    order = {k: i for i, k in enumerate(benches)}
    records = []
    for (name, rev, verified, key), r in latest_finished(rows).items():
        if key not in benches or (not verified and not show_unverified):
            continue
        cis, ti = r.get("confidence_intervals") or {}, row_test_informed(r)
        rec = {"Model": name if verified else f"{name} (unverified)", "Revision": rev or fmt.BLANK,
               "Benchmark": benches[key].label, "Gold": gold_marker(benches[key]), "Submission": r["id"][:8]}
        for m in columns:
            rec[titles[m]] = marked(fmt.pct_ci(r["scores"].get(m), cis.get(m))
                                    if fraction[m] else fmt.BLANK if r["scores"].get(m) is None
                                    else f"{r['scores'][m]:.1f}", ti)
        head = r["scores"].get(decl.headline)
        rec["_sort"] = -1e9 if head is None else (head if decl.higher_is_better else -head)
        rec["_bench"] = order[key]
        rec["_v"] = not verified
        records.append(rec)
    cols = ["Model", "Revision", "Benchmark", "Gold", "Submission"] + [decl.metric(m).title for m in columns]
    df = pd.DataFrame.from_records(records, columns=cols + ["_sort", "_bench", "_v"])
    df = df.sort_values(["_v", "_bench", "_sort"], ascending=[True, True, False], kind="stable")
    if top is not None:
        df = df.groupby("_bench", sort=False, group_keys=False).head(top)
    df = df.drop(columns=["_sort", "_bench", "_v"]).reset_index(drop=True)
    if not (df["Revision"] != fmt.BLANK).any():
        df = df.drop(columns="Revision")
    return df


def family_table(rows: Iterable[Mapping[str, Any]], registry: BenchmarkRegistry, family: str) -> pd.DataFrame:
    """One row per (model, benchmark) of a family with each task's declared columns as 'value [low, high]'
    (metric keys as columns; the data behind the family tab)."""
    tasks = registry.family_tasks(family)
    benches = {b.key: b for t in tasks for b in registry.task_benchmarks(t.name)}
    metrics = list(dict.fromkeys(m for t in tasks for m in t.table_columns()))
    records = []
    for (name, rev, verified, key), r in latest_finished(rows).items():
        if key not in benches:
            continue
        b = benches[key]
        rec = {"Model": name, "Revision": rev, "Type": r["model_type"], "Parameters": r["model_parameters"],
               "Benchmark": b.label, "Gold": gold_marker(b), "Verified": "yes" if verified else "no",
               "Submission": r["id"][:12]}
        cis, ti = r.get("confidence_intervals") or {}, row_test_informed(r)
        for m in metrics:
            rec[m] = marked(fmt.pct_ci(r["scores"].get(m), cis.get(m)), ti) if m in r["scores"] else fmt.BLANK
        rec["_sort"] = r["scores"].get(registry.headline(b), -1)
        rec["_bench"] = list(benches).index(key)
        records.append(rec)
    cols = MODEL_COLUMNS + ["Benchmark", "Gold", "Verified", "Submission"] + metrics
    df = pd.DataFrame.from_records(records, columns=cols + ["_sort", "_bench"])
    df = df.sort_values(["_bench", "_sort"], ascending=[True, False], kind="stable").drop(columns=["_sort", "_bench"])
    df["Parameters"] = df["Parameters"].astype("Int64")
    return df.reset_index(drop=True)


# --- queue and export ---------------------------------------------------------------------------

QUEUE_HEADERS = ["Submission", "Submitted", "Status", "Model", "Benchmark", "Submitter", "Reason"]


def queue_table(rows: Iterable[Mapping[str, Any]], registry: BenchmarkRegistry | None = None, *,
                newest_first: bool = False, reason_chars: int = 120) -> pd.DataFrame:
    """Submissions with status and the failure reason (``rows`` oldest first unless ``newest_first``)."""
    def label(r):
        key = bench_key(r)
        return registry.get(key).label if registry is not None and registry.has(key) else key

    records = [{"Submission": r["id"][:8], "Submitted": fmt.when(r["created_at"]), "Status": r["status"],
                "Model": r["model_name"] + (f" @{r['model_revision']}" if r.get("model_revision") else ""),
                "Benchmark": label(r), "Submitter": r.get("submitter") or fmt.BLANK,
                "Reason": (r.get("reason") or "")[:reason_chars]} for r in rows]
    df = pd.DataFrame.from_records(records, columns=QUEUE_HEADERS)
    return df if newest_first else df.iloc[::-1].reset_index(drop=True)


def submissions_frame(rows: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """Flat table of every submission (fractions, not percent): metadata, scores, CIs, counts.

    Free-form values are coerced to their column's type (text or integer) so one odd submission never
    breaks the export of the board."""
    records = []
    for r in rows:
        meta = r.get("metadata") or {}
        model = meta.get("model") or {}
        prov = meta.get("provenance") or {}
        seed = prov.get("seed")
        rec = {"id": r["id"], "created_at": fmt.when(r["created_at"]), "status": r["status"], "reason": r["reason"],
               "task": r["task"], "dataset": r["dataset"], "config": r["config"], "split": r["split"],
               "gold": r.get("gold") or gold_kind(r),
               "model_name": r["model_name"], "model_revision": r["model_revision"], "model_type": r["model_type"],
               "model_parameters": r["model_parameters"], "model_link": _text(model.get("link")),
               "model_licence": _text(model.get("licence")), "submitter": r["submitter"],
               "verified": bool(r["verified"]), "description": _text(meta.get("description")),
               "paper": _text(meta.get("paper")), "method": _text(meta.get("method")),
               "figbench_version": _text(prov.get("figbench_version")), "command": _text(prov.get("command")),
               "seed": seed if isinstance(seed, int) and not isinstance(seed, bool) and abs(seed) < 2**63 else None,
               "selection": _text((prov.get("selection") or {}).get("kind")
                                  if isinstance(prov.get("selection"), Mapping) else None),
               "mismatched_scores": ",".join(sorted(r.get("mismatches") or {})) or None}
        for k, v in (r.get("scores") or {}).items():
            rec[f"score.{k}"] = v
        for k, ci in (r.get("confidence_intervals") or {}).items():
            rec[f"ci_low.{k}"] = ci.get("low")
            rec[f"ci_high.{k}"] = ci.get("high")
        records.append(rec)
    df = pd.DataFrame.from_records(records)
    for col in ("model_parameters", "seed"):
        if col in df:
            df[col] = df[col].astype("Int64")
    return df


def _text(value: Any) -> str | None:
    return None if value is None else str(value)
