"""Model and submitter names: normalised, checked for path tricks, and compared by confusable skeletons.

:func:`normalise_name` applies Unicode NFKC and strips zero-width and bidirectional control
characters (what a look-alike name hides behind). :func:`name_keys` maps a name to two keys under
which look-alikes collide, built on the Unicode TR39 skeleton as ICU computes it from the official
``confusables.txt`` data (``icu.SpoofChecker``, from the ``pyicu-wheels`` package): one case-blind
(``Figbench-Lemma`` = ``figbench-lemma``), one case-aware, because TR39 maps capital ``I`` to ``l``
but small ``i`` to itself (``figbench-Iemma`` = ``figbench-lemma``). Separators (space, ``.``, ``_``,
``-``) count as one. A new name sharing a key with an existing, different name is refused.
"""

from __future__ import annotations

import re
import threading
import unicodedata

#: zero-width, invisible and bidirectional formatting characters (Unicode "Cf" plus a few others)
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f"
    "\u3164\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e0fff]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_SPACES = re.compile(r"\s+")

def normalise_name(value: str) -> str:
    """NFKC, zero-width and bidi characters removed, runs of white space as one space, trimmed."""
    value = unicodedata.normalize("NFKC", value)
    value = _INVISIBLE.sub("", value)
    return _SPACES.sub(" ", value).strip()


def has_control(value: str) -> bool:
    return bool(_CONTROL.search(value))


#: bump when the keys change: stores recompute the keys of their names on open
KEY_VERSION = 2
_SEPARATORS = re.compile(r"[\s._\-]+")
_checker = threading.local()


def tr39_skeleton(value: str) -> str:
    """``skeleton(value)`` of Unicode TR39 (ICU's SpoofChecker: NFD, confusable prototypes, NFD)."""
    checker = getattr(_checker, "sc", None)
    if checker is None:   # one checker per thread: ICU service objects are not shared across threads
        import icu

        checker = _checker.sc = icu.SpoofChecker()
    return checker.getSkeleton(0, value)


def _key(value: str) -> str:
    return _SEPARATORS.sub("-", value).strip("-")


def name_keys(value: str) -> tuple[str, str]:
    """``(case_blind, case_aware)``: two names look alike when either key is equal.

    Skeletons are taken twice around a case fold, so a letter that becomes confusable only once
    folded (``0`` -> ``O`` -> ``o``) is mapped too."""
    value = normalise_name(value)
    blind = tr39_skeleton(tr39_skeleton(value.casefold()).casefold())
    aware = tr39_skeleton(tr39_skeleton(value).casefold())
    return _key(blind), _key(aware)


def skeleton(value: str) -> str:
    """The case-blind key of :func:`name_keys` (what ``name_key`` stores)."""
    return name_keys(value)[0]
