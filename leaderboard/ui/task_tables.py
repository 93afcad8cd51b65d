"""The tables of one task and of one task family: every declared column of the task's benchmarks as
``value [low, high]`` (no UI code, no task names).

* :func:`task_table`: every declared column of one task with intervals (titles as headers);
* :func:`family_table`: a family's tasks in one frame (metric keys as columns).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd
from figbench_leaderboard.domain.benchmarks import BenchmarkRegistry
from figbench_leaderboard.domain.release import gold_marker
from figbench_leaderboard.domain.selection import marked, row_test_informed
from figbench_leaderboard.ui import formatting as fmt
from figbench_leaderboard.ui.tables import MODEL_COLUMNS, latest_finished


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

