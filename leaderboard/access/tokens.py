"""Who may submit to a hidden benchmark: only an identity a submitter cannot mint.

* ``hf:<user>``: a Hugging Face account, verified by the Space's sign-in or the Hub's ``whoami``; with an
  allow-list (``HiddenSplitPolicy.hf_accounts``, ``serve --hidden-accounts``) only the accounts on it;
* ``key:<hash>``: a submitter token the maintainer issued (``figbench leaderboard tokens issue``) and has not
  revoked (:mod:`~figbench_leaderboard.store.tokens`).

Anything else (no account, a self-made token, a revoked one) is refused with one line, before anything is
stored or counted. Public benchmarks take anonymous submissions under the rate limit as before.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Mapping
from typing import Any

from figbench_leaderboard.domain.submission import SubmissionError
from figbench_leaderboard.store import tokens


class UnregisteredError(SubmissionError):
    """A hidden-benchmark submission from an identity the maintainer did not register."""


def check_registered(db: sqlite3.Connection, row: Mapping[str, Any], hf_accounts: Collection[str] | None) -> None:
    """Refuse (:class:`UnregisteredError`) unless ``row``'s account is a registered identity (in ``db``'s
    transaction, so a revocation takes effect for the next submission)."""
    account = row.get("account") or ""
    if account.startswith("hf:"):
        if hf_accounts is not None and account[3:] not in hf_accounts:
            raise UnregisteredError(f"Hugging Face account {account[3:]!r} is not on this board's list of hidden-"
                                    "benchmark submitters; ask the maintainer for access")
        return
    if account.startswith("key:"):
        if tokens.registered(db, account):
            return
        raise UnregisteredError("unknown submitter token: hidden benchmarks take only tokens the maintainer issued "
                                "(figbench leaderboard tokens issue) or a signed-in Hugging Face account")
    raise UnregisteredError("hidden benchmarks take submissions only from a registered identity: a submitter token "
                            "the maintainer issued (figbench submit --token) or a signed-in Hugging Face account")
