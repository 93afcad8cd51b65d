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
KEY_VERSION = 3
_SEPARATORS = re.compile(r"[\s._\-\u2800]+")
_checker = threading.local()


def tr39_skeleton(value: str) -> str:
    """``skeleton(value)`` of Unicode TR39 (ICU's SpoofChecker: NFD, confusable prototypes, NFD)."""
    checker = getattr(_checker, "sc", None)
    if checker is None:   # one checker per thread: ICU service objects are not shared across threads
        import icu

        checker = _checker.sc = icu.SpoofChecker()
    return checker.getSkeleton(0, value)


def _hidden(ch: str) -> bool:
    """A character that shows nothing by itself: default-ignorable (ICU's property), a format character (Cf),
    a control, or a combining mark (Mn, Me) once decomposed."""
    import icu

    return (unicodedata.category(ch) in ("Cf", "Cc", "Mn", "Me")
            or icu.Char.hasBinaryProperty(ch, icu.UProperty.DEFAULT_IGNORABLE_CODE_POINT))


#: Coptic letters and their Greek model (the Greek is then mapped by TR39's confusables: ⲁ -> α -> a)
_COPTIC_GREEK = {"ALFA": "ALPHA", "VIDA": "BETA", "GAMMA": "GAMMA", "DALDA": "DELTA", "EIE": "EPSILON",
                 "ZATA": "ZETA", "HATE": "ETA", "THETHE": "THETA", "IAUDA": "IOTA", "KAPA": "KAPPA", "LAULA": "LAMDA",
                 "MI": "MU", "NI": "NU", "KSI": "XI", "O": "OMICRON", "PI": "PI", "RO": "RHO", "SIMA": "SIGMA",
                 "TAU": "TAU", "UA": "UPSILON", "FI": "PHI", "KHI": "CHI", "PSI": "PSI", "OOU": "OMEGA"}
_extra: dict[int, str] = {}


def _look_alike_letters() -> dict[int, str]:
    """Letters ICU's confusables data leaves alone that read as another letter, derived from their Unicode
    names: Latin small capitals (``ᴍ`` LATIN LETTER SMALL CAPITAL M -> ``m``) and Coptic letters (``ⲁ``
    COPTIC SMALL LETTER ALFA -> Greek ``α``)."""
    if not _extra:
        table: dict[int, str] = {}
        for cp in range(0x1D00, 0x1D2C):   # Phonetic Extensions: the small capitals
            name = unicodedata.name(chr(cp), "")
            tail = name.removeprefix("LATIN LETTER SMALL CAPITAL ")
            if tail != name and tail.isalpha() and " " not in tail:
                table[cp] = tail.lower()
        for cp in range(0x2C80, 0x2CB2):   # Coptic letters modelled on Greek ones
            name = unicodedata.name(chr(cp), "")
            for case in ("SMALL", "CAPITAL"):
                greek = _COPTIC_GREEK.get(name.removeprefix(f"COPTIC {case} LETTER "))
                if name.startswith(f"COPTIC {case} LETTER ") and greek:
                    try:
                        table[cp] = unicodedata.lookup(f"GREEK {case} LETTER {greek}")
                    except KeyError:
                        pass
        # where ICU maps a letter to ASCII itself, its mapping stands
        _extra.update({cp: to for cp, to in table.items() if not tr39_skeleton(chr(cp)).isascii()})
    return _extra


def _fold(value: str) -> str:
    """NFKC, case folded, decomposed (NFD) with every hidden character (:func:`_hidden`) removed, separators
    (white space including U+2800, ``. _ -``) as one ``-``, trimmed."""
    value = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", value.translate(_look_alike_letters()))
                                  .casefold())
    return _SEPARATORS.sub("-", "".join(ch for ch in value if not _hidden(ch))).strip("-")


def _aware(value: str) -> str:
    """Hidden characters and marks removed, separators joined, case kept (TR39 maps capital ``I`` to ``l``)."""
    value = unicodedata.normalize("NFD", value.translate(_look_alike_letters()))
    return _SEPARATORS.sub("-", "".join(ch for ch in value if not _hidden(ch))).strip("-")


def name_keys(value: str) -> tuple[str, str]:
    """``(case_blind, case_aware)``: two names look alike when either key is equal.

    The blind key: :func:`_fold` (NFKC, case folding, no default-ignorable/format characters or combining
    marks, separators joined), the TR39 skeleton, folded and skeletonised again until it stops changing
    (``0`` -> ``O`` -> ``o``); the aware key takes the skeleton *before* anything folds (so ``ϲ`` U+03F2,
    which ICU calls confusable with ``c``, is not turned into ``σ`` first, nor ``ſ`` into ``s``), then the
    same. Both keys are therefore the same for every (code point, ASCII letter or digit) pair ICU calls
    confusable."""
    blind = _fold(value)
    aware = _aware(value)
    for _ in range(4):
        nxt = _fold(tr39_skeleton(blind))
        if nxt == blind:
            break
        blind = nxt
    aware = _fold(tr39_skeleton(aware))
    for _ in range(4):
        nxt = _fold(tr39_skeleton(aware))
        if nxt == aware:
            break
        aware = nxt
    return blind, aware


def skeleton(value: str) -> str:
    """The case-blind key of :func:`name_keys` (what ``name_key`` stores)."""
    return name_keys(value)[0]
