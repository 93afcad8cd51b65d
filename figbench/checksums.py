"""sha256 checksums of corpus files (downloads are verified against the values builders record)."""

from __future__ import annotations

import hashlib
import os


class ChecksumError(ValueError):
    """A file does not have the recorded sha256; the message names the corpus, file and source."""


def sha256_file(path: str | os.PathLike) -> str:
    """Hex sha256 of a file, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify_sha256(path: str | os.PathLike, expected: str | None, *, corpus: str, label: str = "") -> str:
    """Return the file's sha256; raise :class:`ChecksumError` when it is not ``expected``.

    ``expected=None`` means no checksum is recorded (the dataset card says so): nothing to compare.
    ``label`` names the file's source (its URL or relative name) in the message.
    """
    actual = sha256_file(path)
    if expected is not None and actual != expected:
        raise ChecksumError(
            f"{corpus}: checksum mismatch for {label or path} ({path}): expected sha256 {expected}, got {actual}; "
            "the download is corrupt or the original file changed"
        )
    return actual
