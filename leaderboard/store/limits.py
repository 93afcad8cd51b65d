"""Per-identity limits, counted inside the insert's transaction, per verified identity only: the client address
and the ``account`` (``hf:<user>`` signed in, or ``key:<hash>`` of a submitter token); the self-declared
``submitter`` label counts toward nothing.

* **Rate limits** (:class:`RateLimit`) and per-benchmark **quotas** (:class:`Quota`).
* **Names.** A model name (and every look-alike of it, :mod:`figbench_leaderboard.domain.names`) belongs to
  the identity (``account``, else ``client``) of its first submission; a submission that carries an
  identity is refused under a name someone else owns (:class:`~figbench_leaderboard.store.errors.NameOwnedError`).
  Rows without an identity (the maintainer's local CLI, imports) claim their names for the maintainer.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from figbench_leaderboard.store.errors import NameOwnedError, RateLimitError


@dataclass(frozen=True)
class RateLimit:
    """At most ``max_submissions`` per identity (submitter, client address, account) in ``window_s`` seconds;
    ``None``: no limit (a local store, written by whoever owns its folder)."""

    max_submissions: int | None = 20
    window_s: float = 3600.0


@dataclass(frozen=True)
class Quota:
    """At most ``max_submissions`` per identity on one benchmark in ``window_s`` (FAILED ones not counted)."""

    max_submissions: int
    window_s: float = 86400.0
    what: str = "submissions"


class Limits:
    """The checks :meth:`~figbench_leaderboard.store.sqlite.Store.add` runs in its transaction (mixed into
    :class:`~figbench_leaderboard.store.sqlite.Store`)."""

    def _identities(self, row: Mapping[str, Any]) -> list[tuple[str, str]]:
        """The verified identities of a row (never the self-declared ``submitter``)."""
        return [(col, row[col]) for col in ("client", "account") if row.get(col)]

    @staticmethod
    def owner_of(row: Mapping[str, Any]) -> str | None:
        """Who a row's model name belongs to: its account, else its client address (``None``: the maintainer)."""
        return row.get("account") or row.get("client") or None

    @classmethod
    def _first_of(cls, db: sqlite3.Connection, name: str) -> tuple[str, str | None] | None:
        """``(first stored name, owner)`` of ``name``'s look-alike group, ``None`` when nobody has used it."""
        from figbench_leaderboard.domain.names import name_keys

        blind, aware = name_keys(name)
        found = [r for r in (db.execute(f"SELECT created_at, rowid, model_name, account, client FROM submissions "
                                        f"WHERE {col} = ? ORDER BY created_at, rowid LIMIT 1", (key,)).fetchone()
                             for col, key in (("name_key", blind), ("name_key2", aware))) if r is not None]
        if not found:
            return None
        first = min(found, key=lambda r: (r[0], r[1]))
        return first[2], cls.owner_of({"account": first[3], "client": first[4]})

    def _check_owner(self, db: sqlite3.Connection, row: Mapping[str, Any]) -> None:
        """Refuse a submission with an identity under a name (or look-alike) first used by another identity."""
        me = self.owner_of(row)
        if me is None:   # the maintainer's own local submission
            return
        first = self._first_of(db, row["model_name"])
        if first is None or first[1] == me:
            return
        name = row["model_name"]
        what = (f"{name!r} belongs to another submitter" if first[0] == name else
                f"{name!r} looks like the existing model {first[0]!r}, which belongs to another submitter")
        raise NameOwnedError(f"model.name: {what}: a model name (and every look-alike of it) belongs to whoever "
                             "submitted it first (signed-in account, submitter token, or address); choose a "
                             "different name")

    def _check_rate(self, db: sqlite3.Connection, row: Mapping[str, Any], now: float) -> None:
        if self.rate_limit.max_submissions is None:
            return
        since = now - self.rate_limit.window_s
        for col, who in self._identities(row):
            n = db.execute(f"SELECT COUNT(*) FROM submissions WHERE {col} = ? AND created_at > ?",
                           (who, since)).fetchone()[0]
            if n >= self.rate_limit.max_submissions:
                raise RateLimitError(
                    f"rate limit: {who!r} already sent {n} submissions in the last "
                    f"{self.rate_limit.window_s:.0f} s (limit {self.rate_limit.max_submissions}); try again later")

    def _check_quota(self, db: sqlite3.Connection, row: Mapping[str, Any], now: float, quota: Quota) -> None:
        since = now - quota.window_s
        for col, who in self._identities(row):
            n = db.execute(f"SELECT COUNT(*) FROM submissions WHERE {col} = ? AND created_at > ? AND task = ? AND "
                           "dataset = ? AND config = ? AND split = ? AND status != 'FAILED'",
                           (who, since, row["task"], row["dataset"], row["config"], row["split"])).fetchone()[0]
            if n >= quota.max_submissions:
                hours = quota.window_s / 3600
                raise RateLimitError(
                    f"quota: {who!r} already has {n} {quota.what} on "
                    f"{row['task']}/{row['dataset']}/{row['config']}/{row['split']} in the last {hours:g} h "
                    f"(limit {quota.max_submissions}); try again later")
