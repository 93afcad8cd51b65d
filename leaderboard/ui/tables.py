"""The board's tables, built from store rows and the task declarations (no UI code, no task names).

* :func:`overview`: one row per model (name + revision; verified and self-reported scores never in
  one row), the headline of each benchmark in percent with its interval, and for one benchmark
  **group** the average over models that have every benchmark of the group, and a rank (ties where
  intervals overlap). Models with one method per language (a name that differs only by the language
  code of the benchmark, e.g. ``..._en_to_en`` / ``..._es_to_es``) are one row with per-language columns.
* :func:`filter_table` / :func:`display_overview`: search, filters, sorting; then strings (one
  decimal, "–" for blanks, ``22.7M`` parameters).

The tables of one task or family are in :mod:`figbench_leaderboard.ui.task_tables`, the queue and the
export's frame of submissions in :mod:`figbench_leaderboard.ui.submission_tables`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from figbench_leaderboard.domain.benchmarks import Benchmark, BenchmarkRegistry
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

