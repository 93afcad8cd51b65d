"""Quarantine: a stored row that this code could not have written (a JSON column that is not a JSON object, a
score that is not a number, a text ``created_at``...) is skipped by every read (board, queue, list, export, the
worker) with one log line naming it. :meth:`Quarantine.quarantined` finds them all (one SQL scan; ``open_store``
runs it for ``serve`` and the CLI) and lists them; without it each read still skips the rows whose columns it
decodes and finds damaged.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from figbench_leaderboard.store.schema import JSON_COLUMNS

log = logging.getLogger(__name__)


def _problem_sql(json_columns: Sequence[str] = JSON_COLUMNS) -> str:
    """An SQL expression: NULL for a well-formed row, else what is wrong with it (the first problem found),
    checking ``json_columns``. CASE stops at the first true branch, so the JSON functions only see valid JSON."""
    num = "('integer', 'real')"
    checks = [(f"typeof(created_at) NOT IN {num}", "created_at is not a number"),
              (f"typeof(updated_at) NOT IN {num}", "updated_at is not a number"),
              ("typeof(model_parameters) NOT IN ('integer', 'null')", "model_parameters is not an integer"),
              ("typeof(attempts) != 'integer'", "attempts is not an integer")]
    for col in json_columns:
        checks += [(f"{col} IS NOT NULL AND typeof({col}) != 'text'", f"{col} is not JSON text"),
                   (f"{col} IS NOT NULL AND NOT json_valid({col})", f"{col} is not valid JSON"),
                   (f"{col} IS NOT NULL AND json_type({col}) != 'object'", f"{col} is not a JSON object")]
    for col in ("scores", "public_scores"):
        checks.append((f"{col} IS NOT NULL AND EXISTS (SELECT 1 FROM json_each({col}) "
                       "WHERE type NOT IN ('integer', 'real', 'null'))", f"{col}: a score is not a number"))
    for col in ("confidence_intervals", "public_cis"):
        checks.append((f"{col} IS NOT NULL AND EXISTS (SELECT 1 FROM json_each({col}) "
                       "WHERE type NOT IN ('object', 'null'))", f"{col}: an interval is not a JSON object"))
    return "(CASE " + " ".join(f"WHEN {c} THEN '{m}'" for c, m in checks) + " END)"


PROBLEM_SQL = _problem_sql()


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def row_problem(row: Mapping[str, Any]) -> str | None:
    """What is wrong with a decoded row (the checks of :data:`PROBLEM_SQL` on the columns it holds); None: fine."""
    for col in ("created_at", "updated_at"):
        if col in row and not _number(row[col]):
            return f"{col} is not a number"
    if "model_parameters" in row and row["model_parameters"] is not None and (
            not isinstance(row["model_parameters"], int) or isinstance(row["model_parameters"], bool)):
        return "model_parameters is not an integer"
    for col in JSON_COLUMNS:
        if row.get(col) is not None and not isinstance(row[col], dict):
            return f"{col} is not a JSON object"
    if isinstance(row.get("scores"), dict) and not all(v is None or _number(v) for v in row["scores"].values()):
        return "scores: a score is not a number"
    cis = row.get("confidence_intervals")
    if isinstance(cis, dict) and not all(v is None or isinstance(v, dict) for v in cis.values()):
        return "confidence_intervals: an interval is not a JSON object"
    return None
#: a WHERE condition: the row is well formed (not quarantined)
WELL_FORMED = f"{PROBLEM_SQL} IS NULL"


class Quarantine:
    """The quarantine half of :class:`~figbench_leaderboard.store.sqlite.Store` (mixed into it)."""

    def quarantined(self) -> list[dict[str, Any]]:
        """Malformed rows, skipped by every read: ``id``, ``status``, ``model_name``, ``problem`` (a full scan,
        in SQL; each row logged once per store object)."""
        rows = self._read(f"SELECT id, status, model_name, {PROBLEM_SQL} AS problem FROM submissions "
                          f"WHERE NOT ({WELL_FORMED}) ORDER BY id")
        out = [dict(r) for r in rows]
        bad = self.__dict__.setdefault("_bad", {})
        for r in out:
            bad[r["id"]] = r["problem"]
            self._note(r["id"], r["problem"])
        return out

    def _bad_ids(self) -> dict[str, str]:
        """Quarantined ids -> problem: what :meth:`quarantined` found (``open_store`` runs it when a board or the
        CLI opens a store) and what the reads found themselves (each checks what it decodes)."""
        return self.__dict__.setdefault("_bad", {})

    def _note(self, sid: str, problem: str) -> None:
        noted = self.__dict__.setdefault("_noted", set())
        if (sid, problem) not in noted:
            noted.add((sid, problem))
            log.warning("store %s: submission %s is quarantined (skipped everywhere): %s", self.folder.name, sid,
                        problem)

    def _decode_all(self, rows: Sequence[sqlite3.Row], decode: Callable[[sqlite3.Row], dict[str, Any]]
                    ) -> list[dict[str, Any]]:
        """Decoded rows, quarantined ones left out (a row that fails to decode or check is quarantined now)."""
        bad = self._bad_ids()
        out = []
        for r in rows:
            if r["id"] in bad:
                continue
            try:
                d = decode(r)
                problem = row_problem(d)
            except Exception as e:  # whatever a damaged row raises
                problem = f"cannot be read ({type(e).__name__}: {e})"
            if problem:
                bad[r["id"]] = problem
                self._note(r["id"], problem)
                continue
            out.append(d)
        return out
