"""Submitter tokens the maintainer issues (``figbench leaderboard tokens issue|list|revoke``).

On a hidden benchmark a submitter token counts only when the maintainer issued it and has not revoked it
(a token a submitter made up is refused): a submitter cannot mint identities to multiply the quota. Only the
token's hash (``key:<hash>``, the identity a submission carries) is stored, with a label saying whose it is;
the table is mirrored to the Hub's private repository like every other state
(:mod:`~figbench_leaderboard.store.hub_state`).
"""

from __future__ import annotations

import hashlib
import secrets
import sqlite3
import time
from typing import Any

from figbench_leaderboard.store.errors import StoreError

TABLE = """CREATE TABLE IF NOT EXISTS submitter_tokens (identity TEXT PRIMARY KEY, label TEXT NOT NULL,
    created_at REAL NOT NULL, revoked_at REAL)"""
PREFIX = "fbt_"


def hash_token(token: str) -> str:
    """``key:<hash>``: the identity of a submitter token (what is stored and counted; never the token)."""
    return "key:" + hashlib.sha256(token.strip().encode("ascii")).hexdigest()[:32]


def ensure(db: sqlite3.Connection) -> None:
    db.execute(TABLE)


def registered(db: sqlite3.Connection, identity: str | None) -> bool:
    """Whether ``identity`` (``key:<hash>``) is an issued, unrevoked token (inside a transaction)."""
    if not identity or not identity.startswith("key:"):
        return False
    ensure(db)
    row = db.execute("SELECT revoked_at FROM submitter_tokens WHERE identity = ?", (identity,)).fetchone()
    return row is not None and row[0] is None


def issue(store, label: str, *, now: float | None = None) -> tuple[str, str]:
    """A new token for ``label`` (who it is for): ``(token, identity)``. The token is shown once; only its hash
    is kept."""
    label = " ".join(str(label).split())[:200]
    if not label:
        raise StoreError("tokens issue: --label must say whose token it is")
    token = PREFIX + secrets.token_urlsafe(32)
    identity = hash_token(token)
    with store.transaction() as db:
        ensure(db)
        db.execute("INSERT INTO submitter_tokens (identity, label, created_at) VALUES (?, ?, ?)",
                   (identity, label, time.time() if now is None else now))
    store.state_changed()
    return token, identity


def listing(store) -> list[dict[str, Any]]:
    """Every issued token (hash, label, issued, revoked), oldest first."""
    with store.transaction() as db:
        ensure(db)
        rows = db.execute("SELECT identity, label, created_at, revoked_at FROM submitter_tokens "
                          "ORDER BY created_at, identity").fetchall()
    return [dict(zip(("identity", "label", "created_at", "revoked_at"), r, strict=True)) for r in rows]


def revoke(store, which: str, *, now: float | None = None) -> dict[str, Any]:
    """Revoke the token whose identity (``key:<hash>`` or the hash's first 8+ characters) or whole token is
    ``which``; returns its row. Refuses an unknown or ambiguous one."""
    which = which.strip()
    if which.startswith(PREFIX):
        which = hash_token(which)
    prefix = which if which.startswith("key:") else "key:" + which
    if len(prefix) < 12:
        raise StoreError("tokens revoke: give the token, its identity (key:...) or at least 8 characters of its hash")
    with store.transaction() as db:
        ensure(db)
        rows = db.execute("SELECT identity, label, created_at, revoked_at FROM submitter_tokens WHERE identity LIKE ?",
                          (prefix + "%",)).fetchall()
        if len(rows) != 1:
            raise StoreError(f"tokens revoke: {'no' if not rows else 'more than one'} issued token matches {which!r}")
        if rows[0][3] is None:
            db.execute("UPDATE submitter_tokens SET revoked_at = ? WHERE identity = ?",
                       (time.time() if now is None else now, rows[0][0]))
    store.state_changed()
    return dict(zip(("identity", "label", "created_at", "revoked_at"), rows[0], strict=True))
