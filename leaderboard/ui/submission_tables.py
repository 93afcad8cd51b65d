"""Tables of submissions one by one, whatever their status: the queue (:func:`queue_table`) and the flat
frame of every submission that the dataset export writes (:func:`submissions_frame`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd
from figbench_leaderboard.domain.benchmarks import BenchmarkRegistry
from figbench_leaderboard.domain.release import gold_kind
from figbench_leaderboard.ui import formatting as fmt
from figbench_leaderboard.ui.tables import bench_key

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
