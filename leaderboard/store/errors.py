"""The store's errors: each says in plain words what was refused or failed, and nothing was changed by it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class StoreError(ValueError):
    """A store operation was refused or failed (the message says why, in plain words)."""


class MalformedRowError(StoreError):
    """A stored row is malformed (quarantined): the message names the row and what is wrong."""


class StoreFullError(StoreError):
    """The disk (or the store's size cap) is full."""


class StoreReadOnlyError(StoreError):
    """The store cannot be written."""


class LeaseLostError(StoreError):
    """The submission is no longer RUNNING under this scorer's lease (another scorer recovered it)."""


class DuplicateSubmissionError(StoreError):
    """The same model and revision already has a live submission for this benchmark."""

    def __init__(self, message: str, existing: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.existing = dict(existing or {})


class NameOwnedError(StoreError):
    """The model name (or a look-alike of it) belongs to another submitter."""


class RateLimitError(StoreError):
    """The submitter sent too many submissions in the rate-limit window."""
