"""The store's table: its SQL schema (columns, indexes, the revision triggers), the column groups reads select, and
how JSON columns and predictions are encoded in it."""

from __future__ import annotations

import json
import zlib
from typing import Any

STATUSES = ("PENDING", "RUNNING", "FINISHED", "FAILED")
DB_NAME = "leaderboard.sqlite"

SCHEMA = """
CREATE TABLE IF NOT EXISTS submissions (
    id TEXT PRIMARY KEY,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('PENDING', 'RUNNING', 'FINISHED', 'FAILED')),
    reason TEXT,
    task TEXT NOT NULL,
    dataset TEXT NOT NULL,
    config TEXT NOT NULL,
    split TEXT NOT NULL,
    model_name TEXT NOT NULL,
    model_revision TEXT NOT NULL DEFAULT '',
    model_type TEXT NOT NULL,
    model_parameters INTEGER,
    submitter TEXT,
    client TEXT,
    verified INTEGER NOT NULL DEFAULT 0,
    sha256 TEXT NOT NULL,
    metadata TEXT NOT NULL,
    reported_scores TEXT,
    scores TEXT,
    confidence_intervals TEXT,
    counts TEXT,
    mismatches TEXT,
    predictions BLOB
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
INSERT OR IGNORE INTO meta (key, value) VALUES ('rev', 0);
"""

#: columns added after the first release (existing stores get them on open)
ADDED_COLUMNS = {"lease_owner": "TEXT", "lease_until": "REAL", "attempts": "INTEGER NOT NULL DEFAULT 0",
                  "account": "TEXT", "name_key": "TEXT", "public_scores": "TEXT", "public_cis": "TEXT",
                  "name_key2": "TEXT"}

INDEXES = """
CREATE UNIQUE INDEX IF NOT EXISTS submissions_one_live
    ON submissions (model_name, model_revision, task, dataset, config, split) WHERE status != 'FAILED';
CREATE INDEX IF NOT EXISTS submissions_status ON submissions (status, created_at);
CREATE INDEX IF NOT EXISTS submissions_submitter ON submissions (submitter, created_at);
CREATE INDEX IF NOT EXISTS submissions_client ON submissions (client, created_at);
CREATE INDEX IF NOT EXISTS submissions_account ON submissions (account, created_at);
CREATE INDEX IF NOT EXISTS submissions_name_key ON submissions (name_key);
CREATE INDEX IF NOT EXISTS submissions_name_key2 ON submissions (name_key2);
CREATE INDEX IF NOT EXISTS submissions_created ON submissions (created_at);
CREATE INDEX IF NOT EXISTS submissions_board ON submissions (status, created_at, id, updated_at, reason, task, dataset,
    config, split, model_name, model_revision, model_type, model_parameters, submitter, verified, public_scores,
    public_cis);
CREATE TRIGGER IF NOT EXISTS submissions_rev_insert AFTER INSERT ON submissions
    BEGIN UPDATE meta SET value = value + 1 WHERE key = 'rev'; END;
CREATE TRIGGER IF NOT EXISTS submissions_rev_delete AFTER DELETE ON submissions
    BEGIN UPDATE meta SET value = value + 1 WHERE key = 'rev'; END;
CREATE TRIGGER IF NOT EXISTS submissions_rev_update
    AFTER UPDATE OF status, reason, scores, confidence_intervals, verified, model_name, model_parameters
    ON submissions BEGIN UPDATE meta SET value = value + 1 WHERE key = 'rev'; END;
"""

JSON_COLUMNS = ("metadata", "reported_scores", "scores", "confidence_intervals", "counts", "mismatches",
                 "public_scores", "public_cis")
LIGHT_COLUMNS = ("id", "created_at", "updated_at", "status", "reason", "task", "dataset", "config", "split",
                  "model_name", "model_revision", "model_type", "model_parameters", "submitter", "verified",
                  "sha256", "metadata", "reported_scores", "scores", "confidence_intervals", "counts", "mismatches",
                  "attempts", "lease_until", "public_scores", "public_cis")
#: what the board's tables need: no metadata, no predictions (scores: the released copy, or the exact one)
BOARD_COLUMNS = ("id", "created_at", "updated_at", "status", "reason", "task", "dataset", "config", "split",
                 "model_name", "model_revision", "model_type", "model_parameters", "submitter", "verified")
#: the kind of a submission's ``metadata.provenance.selection`` (NULL when absent or the metadata is not JSON; a
#: kind that is not text comes back as its JSON text or number, which no rule reads as "test-informed")
SELECTION_SQL = "(CASE WHEN json_valid(metadata) THEN json_extract(metadata, '$.provenance.selection.kind') END)"
QUEUE_COLUMNS = ("id", "created_at", "status", "reason", "task", "dataset", "config", "split", "model_name",
                 "model_revision", "submitter", "verified")


try:   # a faster JSON parser (a Gradio dependency) for reading thousands of rows
    from orjson import loads as loads
except ImportError:  # pragma: no cover
    loads = json.loads


def encode_predictions(predictions: Any) -> bytes:
    return zlib.compress(json.dumps(predictions, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


def decode_predictions(blob: bytes | None) -> Any:
    return None if blob is None else json.loads(zlib.decompress(blob).decode("utf-8"))


def dumps(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False, allow_nan=False, sort_keys=True)
