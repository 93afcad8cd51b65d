"""The maintainer's one-time reveal of a hidden benchmark (``figbench leaderboard hidden reveal``).

Until it, a hidden benchmark releases the Ladder's headline only (:mod:`~figbench_leaderboard.domain.release`).
The reveal, once and for good: its submissions close (the store refuses new ones in the insert's transaction, so a
running server refuses them at once) and every score it holds is released in full, intervals and ``n_units``
included (the released columns are rewritten in the reveal's transaction and its rows are pushed to the Hub again).
The reveal is a row of ``hidden_reveals``, mirrored to the Hub's private repository like the other state tables
(:mod:`~figbench_leaderboard.store.hub_state`), so a restart keeps it; :func:`load` tells the release rule.
"""

from __future__ import annotations

import sqlite3
import time
from typing import Any

TABLE = "CREATE TABLE IF NOT EXISTS hidden_reveals (benchmark TEXT PRIMARY KEY, revealed_at REAL NOT NULL, note TEXT)"


def ensure(db: sqlite3.Connection) -> None:
    db.execute(TABLE)


def revealed_at(db: sqlite3.Connection, key: str) -> float | None:
    """When the benchmark ``key`` (task/dataset/config/split) was revealed, or None."""
    ensure(db)
    row = db.execute("SELECT revealed_at FROM hidden_reveals WHERE benchmark = ?", (key,)).fetchone()
    return float(row[0]) if row else None


def reveal(store, key: str, *, note: str = "", now: float | None = None) -> dict[str, Any]:
    """Reveal the hidden benchmark ``key``: record it, release its rows' scores and intervals in full, bump the
    board's revision and have the rows and the reveal pushed. A second reveal is refused (it comes once)."""
    from figbench_leaderboard.domain.release import note_reveals

    parts = key.split("/")
    if len(parts) != 4:
        raise ValueError(f"{key!r}: a benchmark key is task/dataset/config/split")
    when = time.time() if now is None else float(now)
    with store.transaction() as db:
        ensure(db)
        earlier = revealed_at(db, key)
        if earlier is not None:
            raise ValueError(f"{key} was revealed already ({_day(earlier)}); a reveal comes once")
        db.execute("INSERT INTO hidden_reveals VALUES (?, ?, ?)", (key, when, note or None))
        where = "task = ? AND dataset = ? AND config = ? AND split = ? AND status = 'FINISHED'"
        ids = [r[0] for r in db.execute(f"SELECT id FROM submissions WHERE {where}", parts)]
        db.execute(f"UPDATE submissions SET public_scores = scores, public_cis = confidence_intervals WHERE {where}",
                   parts)
        db.execute("UPDATE meta SET value = value + 1 WHERE key = 'rev'")   # the board's views read again
    store.state_changed()
    store.republish(ids)
    note_reveals(load(store))
    return {"benchmark": key, "revealed_at": when, "submissions": len(ids)}


def load(store) -> dict[str, float]:
    """Every reveal in the store, by benchmark key (and the release rule told of them)."""
    from figbench_leaderboard.domain.release import note_reveals
    from figbench_leaderboard.store.errors import StoreError

    query = "SELECT benchmark, revealed_at FROM hidden_reveals"
    try:   # a plain read (a board reads this at each new revision); the table is made once, where it is missing
        found = {r[0]: float(r[1]) for r in store._read(query)}
    except StoreError:
        try:
            with store.transaction() as db:
                ensure(db)
        except StoreError:   # a read-only store without the table: nothing was revealed there
            pass
        found = {}
    note_reveals(found)
    return found


def _day(t: float) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d %H:%M UTC")
