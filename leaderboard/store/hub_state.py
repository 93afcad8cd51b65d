"""Store state besides the submissions, mirrored to the Hub's private repository: issued submitter tokens
(:mod:`~figbench_leaderboard.store.tokens`), hidden-benchmark decisions
(:mod:`~figbench_leaderboard.store.decisions`) and reveals (:mod:`~figbench_leaderboard.store.reveals`), one file
per table, ``state/<table>.json``.

Triggers mark a table in ``hub_state_dirty`` in the same transaction as its change, so a crash before the push
leaves the mark for the next start; a pull merges the Hub's rows into the local table (a revocation is never
undone by an older copy).
"""

from __future__ import annotations

import json
import logging
import sqlite3
from pathlib import Path
from typing import Any

from figbench_leaderboard.store import decisions, reveals, tokens

log = logging.getLogger(__name__)
STATE_DIR = "state"
NOW_SQL = "(julianday('now') - 2440587.5) * 86400.0"   #: Unix time in SQL (SQLite before 3.42: no unixepoch)
#: table -> (its primary key, the columns a later copy may fill in but never clear)
MIRRORED: dict[str, tuple[str, tuple[str, ...]]] = {
    "submitter_tokens": ("identity", ("revoked_at",)),
    "hidden_decisions": ("id", ()),
    "hidden_reveals": ("benchmark", ()),
}


def ensure_tables(db: sqlite3.Connection) -> None:
    """The mirrored tables, the dirty marks and their triggers (inside a transaction)."""
    tokens.ensure(db)
    decisions.ensure(db)
    reveals.ensure(db)
    db.execute("CREATE TABLE IF NOT EXISTS hub_state_dirty (tbl TEXT PRIMARY KEY, since REAL NOT NULL)")
    for table in MIRRORED:
        for event in ("INSERT", "UPDATE", "DELETE"):
            db.execute(f"CREATE TRIGGER IF NOT EXISTS hub_state_{table}_{event.lower()} AFTER {event} ON {table} "
                       f"BEGIN INSERT OR IGNORE INTO hub_state_dirty (tbl, since) VALUES ('{table}', {NOW_SQL}); END")


def state_path(table: str) -> str:
    return f"{STATE_DIR}/{table}.json"


def dirty(db: sqlite3.Connection) -> list[str]:
    return [r[0] for r in db.execute("SELECT tbl FROM hub_state_dirty ORDER BY tbl")]


def table_json(db: sqlite3.Connection, table: str) -> list[dict[str, Any]]:
    key, _ = MIRRORED[table]
    cur = db.execute(f"SELECT * FROM {table} ORDER BY {key}")
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]


def import_state(db: sqlite3.Connection, folder: Path) -> int:
    """Merge ``folder/state/<table>.json`` into the local tables (inside a transaction); returns rows merged.
    A damaged file is logged and skipped."""
    ensure_tables(db)
    n = 0
    for table, (key, fill) in MIRRORED.items():
        path = Path(folder) / state_path(table)
        if not path.is_file():
            continue
        try:
            rows = json.loads(path.read_text("utf-8"))
            if not isinstance(rows, list) or not all(isinstance(r, dict) and isinstance(r.get(key), str) for r in rows):
                raise ValueError(f"expected a list of objects with {key!r}")
        except (OSError, ValueError) as e:
            log.error("import: %s: not a figbench state file (%s); skipped", path.name, e)
            continue
        cols = [r[1] for r in db.execute(f"PRAGMA table_info({table})")]
        marks = ", ".join("?" * len(cols))
        update = ", ".join(f"{c} = COALESCE({table}.{c}, excluded.{c})" for c in fill)
        conflict = f"ON CONFLICT ({key}) DO UPDATE SET {update}" if update else f"ON CONFLICT ({key}) DO NOTHING"
        for r in rows:
            db.execute(f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({marks}) {conflict}",
                       [r.get(c) for c in cols])
            n += 1
    return n
