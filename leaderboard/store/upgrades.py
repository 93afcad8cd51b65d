"""Upgrades of a store an older figbench wrote, run when a :class:`~figbench_leaderboard.store.sqlite.Store` opens
it: the columns of newer versions added under the write lock, the look-alike name keys filled in (or recomputed
when the key rule changed), hidden rows re-released under the current release rule."""

from __future__ import annotations

import sqlite3

from figbench_leaderboard.store.quarantine import WELL_FORMED
from figbench_leaderboard.store.schema import ADDED_COLUMNS, dumps, loads


class Upgrades:
    """The upgrades of an older store's file (mixed into :class:`~figbench_leaderboard.store.sqlite.Store`)."""

    def _update_hidden_releases(self, db: sqlite3.Connection) -> None:
        """Once per store: hidden rows released under the old rule (every metric rounded, intervals with their
        ``n_units``) keep only their headline, on the Ladder's grid, and no interval."""
        from figbench_leaderboard.domain.release import RELEASE_VERSION, hidden_released

        version = db.execute("SELECT value FROM meta WHERE key = 'release_rule'").fetchone()
        if version is not None and version[0] == RELEASE_VERSION:
            return
        with self.transaction() as tx:
            rows = tx.execute("SELECT id, task, dataset, config, split, public_scores FROM submissions WHERE "
                              f"public_scores IS NOT NULL AND {WELL_FORMED}").fetchall()
            updates = [(dumps(pub), r["id"]) for r in rows
                       if (pub := hidden_released(dict(r), loads(r["public_scores"]))) is not None]
            tx.executemany("UPDATE submissions SET public_scores = ?, public_cis = '{}' WHERE id = ?", updates)
            tx.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('release_rule', ?)", (RELEASE_VERSION,))

    def _update_name_keys(self, db: sqlite3.Connection) -> None:
        """Fill in the look-alike keys of rows without them, and recompute all of them when the keys changed."""
        from figbench_leaderboard.domain.names import KEY_VERSION, name_keys

        version = db.execute("SELECT value FROM meta WHERE key = 'name_keys'").fetchone()
        stale = version is None or version[0] != KEY_VERSION
        if not stale and not db.execute("SELECT COUNT(*) FROM submissions WHERE name_key IS NULL OR name_key2 IS NULL"
                                         ).fetchone()[0]:
            return
        with self.transaction() as tx:
            where = "" if stale else " WHERE name_key IS NULL OR name_key2 IS NULL"
            names = [r[0] for r in tx.execute(f"SELECT DISTINCT model_name FROM submissions{where}").fetchall()]
            tx.executemany("UPDATE submissions SET name_key = ?, name_key2 = ? WHERE model_name = ?",
                           [(*name_keys(n), n) for n in names])
            tx.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('name_keys', ?)", (KEY_VERSION,))

    @staticmethod
    def _add_columns(db: sqlite3.Connection) -> None:
        """Add the columns of newer versions to an older store, under the write lock: two processes opening
        the same old (or new) store at once would otherwise both see a column missing and both add it."""
        if set(ADDED_COLUMNS) <= {r[1] for r in db.execute("PRAGMA table_info(submissions)")}:
            return
        db.execute("BEGIN IMMEDIATE")
        try:
            have = {r[1] for r in db.execute("PRAGMA table_info(submissions)")}   # re-read under the lock
            for col, decl in ADDED_COLUMNS.items():
                if col not in have:
                    db.execute(f"ALTER TABLE submissions ADD COLUMN {col} {decl}")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

