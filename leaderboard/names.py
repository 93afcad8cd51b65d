"""Model and submitter names: normalised, checked for path tricks, and compared by a confusable skeleton.

:func:`normalise_name` applies Unicode NFKC and strips zero-width and bidirectional control
characters (what a look-alike name hides behind). :func:`skeleton` maps a name to a key under which
look-alikes collide: case folded, homoglyphs of Latin letters (Cyrillic, Greek, ...) mapped to Latin,
separators unified. A new name whose skeleton equals an existing, different name's is refused.
"""

from __future__ import annotations

import re
import unicodedata

#: zero-width, invisible and bidirectional formatting characters (Unicode "Cf" plus a few others)
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f"
    "\u3164\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e0fff]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_SPACES = re.compile(r"\s+")

#: letters that render like a Latin letter (a small, common table; NFKC handles full-width forms)
_HOMOGLYPHS = str.maketrans({
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c",
    "т": "t", "у": "y", "х": "x", "ѕ": "s", "і": "i", "ї": "i", "ј": "j", "ԁ": "d", "ɡ": "g", "һ": "h",
    "ӏ": "l", "ԛ": "q", "ԝ": "w", "ь": "b", "г": "r", "п": "n",
    # Greek
    "α": "a", "β": "b", "ε": "e", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u",
    "χ": "x", "γ": "y", "η": "n", "μ": "u", "ω": "w",
    # Latin look-alikes
    "ı": "i", "ȷ": "j", "ł": "l", "ø": "o", "đ": "d", "ħ": "h",
    # digits and punctuation that pass for letters or separators
    "0": "o", "1": "l", "|": "l", "5": "s", "_": "-", "‐": "-", "‑": "-", "‒": "-", "–": "-", "—": "-",
    "―": "-", "−": "-", "⁄": "/", "∕": "/", "．": ".", "·": ".", "˙": ".",
})


def normalise_name(value: str) -> str:
    """NFKC, zero-width and bidi characters removed, runs of white space as one space, trimmed."""
    value = unicodedata.normalize("NFKC", value)
    value = _INVISIBLE.sub("", value)
    return _SPACES.sub(" ", value).strip()


def has_control(value: str) -> bool:
    return bool(_CONTROL.search(value))


def skeleton(value: str) -> str:
    """The key under which look-alike names collide (case, homoglyphs, accents, separators)."""
    value = normalise_name(value).casefold()
    value = unicodedata.normalize("NFKD", value)
    value = "".join(c for c in value if not unicodedata.combining(c))
    value = value.translate(_HOMOGLYPHS)
    value = value.replace("rn", "m").replace("vv", "w")
    return re.sub(r"[\s.\-]+", "-", value).strip("-")
