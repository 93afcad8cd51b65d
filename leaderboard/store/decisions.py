"""The hidden-benchmark decisions that are not submissions: refused probes, and refusals by quota, budget or
identity. A refused probe answered a question (the submission was too close to an earlier one), so it counts
toward its identity's quota and the benchmark's budget like a scored submission; the other refusals are kept
as the record of what was decided. Mirrored to the Hub's private repository
(:mod:`~figbench_leaderboard.store.hub_state`), so a restart counts them again.
"""

from __future__ import annotations

import sqlite3
import time
import uuid
from collections.abc import Mapping
from typing import Any

TABLE = """CREATE TABLE IF NOT EXISTS hidden_decisions (id TEXT PRIMARY KEY, created_at REAL NOT NULL,
    task TEXT NOT NULL, dataset TEXT NOT NULL, config TEXT NOT NULL, split TEXT NOT NULL,
    account TEXT, client TEXT, decision TEXT NOT NULL)"""
INDEX = ("CREATE INDEX IF NOT EXISTS hidden_decisions_bench ON hidden_decisions "
         "(task, dataset, config, split, created_at)")
#: decisions that count toward quotas and budgets (they answered a question about the gold)
ANSWERED = ("refused-probe",)
DECISIONS = ("refused-probe", "refused-quota", "refused-budget", "refused-identity")


def ensure(db: sqlite3.Connection) -> None:
    db.execute(TABLE)
    db.execute(INDEX)


def record(store, row: Mapping[str, Any], decision: str, *, now: float | None = None) -> None:
    """Record one decision on ``row``'s benchmark for its identities (and have it pushed to the Hub)."""
    if decision not in DECISIONS:
        raise ValueError(f"unknown decision {decision!r}")
    with store.transaction() as db:
        ensure(db)
        db.execute("INSERT INTO hidden_decisions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   (uuid.uuid4().hex, time.time() if now is None else now, row["task"], row["dataset"], row["config"],
                    row["split"], row.get("account"), row.get("client"), decision))
    store.state_changed()


def answered(db: sqlite3.Connection, bench: tuple[str, str, str, str], since: float,
             who: tuple[str, str] | None = None) -> int:
    """Refused probes on ``bench`` since ``since``: of one identity ``(column, value)``, or of everyone."""
    ensure(db)
    where, params = "", ()
    if who is not None:
        col, value = who
        if col not in ("account", "client"):
            raise ValueError(col)
        where, params = f" AND {col} = ?", (value,)
    marks = ", ".join("?" * len(ANSWERED))
    return db.execute(f"SELECT COUNT(*) FROM hidden_decisions WHERE task = ? AND dataset = ? AND config = ? AND "
                      f"split = ? AND created_at > ? AND decision IN ({marks}){where}",
                      (*bench, since, *ANSWERED, *params)).fetchone()[0]
