"""Quarantine: a stored row that this code could not have written (a JSON column that is not a JSON object, a
score that is not a number, a text ``created_at``...) is skipped by every read (board, queue, list, export, the
worker) with one log line naming it. :meth:`Quarantine.quarantined` finds them all (one SQL scan; ``open_store``
runs it for ``serve`` and the CLI) and lists them; without it each read still skips the rows whose columns it
decodes and finds damaged.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from figbench_leaderboard.store.schema import JSON_COLUMNS

log = logging.getLogger(__name__)


#: the latest date a row may carry (2100-01-01, seconds): later, or before 1970, is not a date the views can show
MAX_DATE = 4_102_444_800
#: the largest parameter count a row may carry (the submission schema's ``MAX_PARAMETERS``)
MAX_PARAMETERS = 10**15
#: columns that must be text (``NOT NULL``) and text or NULL
TEXT_COLUMNS = ("id", "status", "task", "dataset", "config", "split", "model_name", "model_revision", "model_type",
                "sha256")
OPTIONAL_TEXT = ("reason", "submitter", "client", "account", "lease_owner", "name_key", "name_key2")
#: metadata fields the detail view and the export read: text, and objects
METADATA_TEXT = ("kind", "description", "paper", "method")
METADATA_OBJECTS = ("model", "provenance")
_NUM = "('integer', 'real')"


def _checks(json_columns: Sequence[str]) -> list[tuple[str, str]]:
    """``(SQL condition that is true for a bad row, what is wrong)``, in the order they are reported."""
    checks = []
    for col in TEXT_COLUMNS:
        checks.append((f"typeof({col}) != 'text'", f"{col} is not text"))
    for col in OPTIONAL_TEXT:
        checks.append((f"typeof({col}) NOT IN ('text', 'null')", f"{col} is not text"))
    for col in ("created_at", "updated_at"):
        checks.append((f"typeof({col}) NOT IN {_NUM} OR NOT ({col} BETWEEN 0 AND {MAX_DATE})",
                       f"{col} is not a date (seconds between 1970 and 2100)"))
    checks += [("typeof(model_parameters) NOT IN ('integer', 'null') OR NOT (model_parameters IS NULL OR "
                f"model_parameters BETWEEN 0 AND {MAX_PARAMETERS})",
                f"model_parameters is not an integer from 0 to {MAX_PARAMETERS:.0e}"),
               ("typeof(attempts) != 'integer' OR attempts < 0", "attempts is not an integer"),
               ("typeof(verified) != 'integer' OR verified NOT IN (0, 1)", "verified is not 0 or 1"),
               ("typeof(lease_until) NOT IN ('integer', 'real', 'null')", "lease_until is not a number"),
               ("typeof(predictions) NOT IN ('blob', 'null')", "predictions is not a blob")]
    for col in json_columns:
        checks += [(f"{col} IS NOT NULL AND typeof({col}) != 'text'", f"{col} is not JSON text"),
                   (f"{col} IS NOT NULL AND NOT json_valid({col})", f"{col} is not valid JSON"),
                   (f"{col} IS NOT NULL AND json_type({col}) != 'object'", f"{col} is not a JSON object")]
    for f in METADATA_TEXT:
        checks.append((f"json_type(metadata, '$.{f}') NOT IN ('text', 'null')", f"metadata.{f} is not text"))
    for f in METADATA_OBJECTS:
        checks.append((f"json_type(metadata, '$.{f}') NOT IN ('object', 'null')", f"metadata.{f} is not an object"))
    for f in ("name", "revision", "type", "link", "licence"):
        checks.append((f"json_type(metadata, '$.model.{f}') NOT IN ('text', 'null')",
                       f"metadata.model.{f} is not text"))
    checks.append(("json_type(metadata, '$.model.parameters') NOT IN ('integer', 'null')",
                   "metadata.model.parameters is not an integer"))
    for col in ("scores", "public_scores", "reported_scores", "counts"):
        if col in json_columns:
            checks.append((f"{col} IS NOT NULL AND EXISTS (SELECT 1 FROM json_each({col}) "
                           "WHERE type NOT IN ('integer', 'real', 'null'))", f"{col}: a value is not a number"
                           if col in ("reported_scores", "counts") else f"{col}: a score is not a number"))
    for col in ("confidence_intervals", "public_cis"):
        if col in json_columns:
            checks.append((f"{col} IS NOT NULL AND EXISTS (SELECT 1 FROM json_each({col}) "
                           "WHERE type NOT IN ('object', 'null'))", f"{col}: an interval is not a JSON object"))
            checks.append((f"{col} IS NOT NULL AND EXISTS (SELECT 1 FROM json_each({col}) AS i, "
                           "json_each(i.value) AS b WHERE i.type = 'object' AND b.key IN ('low', 'high') "
                           f"AND b.type NOT IN {_NUM[:-1]}, 'null'))",
                           f"{col}: an interval bound is not a number"))
    return checks


def _problem_sql(json_columns: Sequence[str] = JSON_COLUMNS) -> str:
    """An SQL expression: NULL for a well-formed row, else what is wrong with it (the first problem found),
    checking every column against what the views need. CASE stops at the first true branch, so the JSON
    functions only see valid JSON objects."""
    return "(CASE " + " ".join(f"WHEN {c} THEN '{m}'" for c, m in _checks(json_columns)) + " END)"


PROBLEM_SQL = _problem_sql()


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v == v and abs(v) != float("inf")


def row_problem(row: Mapping[str, Any]) -> str | None:
    """What is wrong with a decoded row (the checks of :data:`PROBLEM_SQL` on the columns it holds); None: fine."""
    for col in TEXT_COLUMNS:
        if col in row and not isinstance(row[col], str):
            return f"{col} is not text"
    for col in OPTIONAL_TEXT:
        if row.get(col) is not None and not isinstance(row[col], str):
            return f"{col} is not text"
    for col in ("created_at", "updated_at"):
        if col in row and not (_number(row[col]) and 0 <= row[col] <= MAX_DATE):
            return f"{col} is not a date (seconds between 1970 and 2100)"
    p = row.get("model_parameters")
    if p is not None and (not isinstance(p, int) or isinstance(p, bool) or not 0 <= p <= MAX_PARAMETERS):
        return f"model_parameters is not an integer from 0 to {MAX_PARAMETERS:.0e}"
    return _json_problem(row)


def _json_problem(row: Mapping[str, Any]) -> str | None:
    """:func:`row_problem` for the JSON columns."""
    for col in JSON_COLUMNS:
        if row.get(col) is not None and not isinstance(row[col], dict):
            return f"{col} is not a JSON object"
    meta = row.get("metadata")
    if isinstance(meta, dict):
        for f in METADATA_TEXT:
            if meta.get(f) is not None and not isinstance(meta[f], str):
                return f"metadata.{f} is not text"
        for f in METADATA_OBJECTS:
            if meta.get(f) is not None and not isinstance(meta[f], dict):
                return f"metadata.{f} is not an object"
    if isinstance(row.get("scores"), dict) and not all(v is None or _number(v) for v in row["scores"].values()):
        return "scores: a score is not a number"
    cis = row.get("confidence_intervals")
    if isinstance(cis, dict):
        if not all(v is None or isinstance(v, dict) for v in cis.values()):
            return "confidence_intervals: an interval is not a JSON object"
        if not all(v.get(b) is None or _number(v[b]) for v in cis.values() if v for b in ("low", "high")):
            return "confidence_intervals: an interval bound is not a number"
    return None
#: a WHERE condition: the row is well formed (not quarantined)
WELL_FORMED = f"{PROBLEM_SQL} IS NULL"
#: Hub files the import skipped: listed with the quarantined rows
_IMPORT_TABLE = ("CREATE TABLE IF NOT EXISTS import_quarantine (id TEXT PRIMARY KEY, status TEXT, model_name TEXT, "
                 "problem TEXT NOT NULL)")


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
        if self._import_table():
            out += [dict(r) for r in self._read("SELECT id, status, model_name, problem FROM import_quarantine "
                                                 "ORDER BY id")]
        return out

    def quarantine_import(self, sid: str, file: str, raw: Mapping[str, Any], problem: str) -> None:
        """Record a Hub file the import could not store (a field no row can hold, e.g. ``model_name`` not text):
        :meth:`quarantined` lists it (the store keeps whatever copy it had) until a usable file replaces it."""
        def text(v: Any) -> str:
            return v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, default=repr)[:120]

        with self.transaction() as db:
            db.execute(_IMPORT_TABLE)
            db.execute("INSERT OR REPLACE INTO import_quarantine (id, status, model_name, problem) VALUES (?, ?, ?, ?)",
                       (sid, text(raw.get("status")), text(raw.get("model_name")),
                        f"{problem} (Hub file {file}, not imported)"))

    def _import_table(self) -> bool:
        return bool(self._read("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'import_quarantine'"))

    def release_import(self, sid: str) -> None:
        """A usable file of ``sid`` was imported: it is no longer listed as quarantined at import."""
        if not self._import_table():
            return
        with self.transaction() as db:
            db.execute("DELETE FROM import_quarantine WHERE id = ?", (sid,))

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
