"""Messages shown to submitters name files relative to the store or data root, never absolutely.

:func:`redact` replaces every known root (the data root, the store, the working folder, the home
folder, the temp folder, the Python installation) by a short label, and any other absolute path by
its last component, so an error never reveals where the server keeps things.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

_ABSOLUTE = re.compile(r"(?<![\w.~<>:/-])(/(?:[^\s'\"():,;]+/)*[^\s'\"():,;]*)")


def _roots(extra: Iterable[tuple[str | os.PathLike | None, str]]) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for path, label in extra:
        if path:
            found.append((str(Path(path).expanduser().resolve()), label))
            found.append((str(Path(path).expanduser()), label))
    data = os.environ.get("FIGBENCH_DATA_DIR")
    defaults: list[tuple[str | None, str]] = [
        (data, "<data>"), (os.getcwd(), "."), (tempfile.gettempdir(), "<tmp>"), (sys.prefix, "<python>"),
        (sys.base_prefix, "<python>"), (str(Path.home()), "~")]
    for path, label in defaults:
        if path:
            found.append((str(Path(path).resolve()), label))
            found.append((str(path), label))
    # longest first, so /a/b/c is replaced before /a/b
    uniq = {p.rstrip("/") or "/": label for p, label in found if p not in ("/", "")}
    return sorted(uniq.items(), key=lambda kv: -len(kv[0]))


def redact(message: str, *roots: tuple[str | os.PathLike | None, str]) -> str:
    """``message`` with absolute paths made relative to a known root (or reduced to their file name)."""
    out = str(message)
    for root, label in _roots(roots):
        out = re.sub(re.escape(root) + r"(?=/|\b|$)", label, out)

    def tail(m: re.Match) -> str:
        path = m.group(1)
        if path.count("/") < 2:   # "/", "/x": not a path worth hiding (and keeps "a/b" names intact)
            return path
        return "…/" + path.rstrip("/").rsplit("/", 1)[-1]

    return _ABSOLUTE.sub(tail, out)
