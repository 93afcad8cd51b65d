"""Where things are: the builders' and metrics' folders, and the corpora on disk.

Corpora live in one folder per corpus under a data root: ``$FIGBENCH_DATA_DIR`` when set (one root or
several separated by ``os.pathsep``: a corpus is read from the first root that has it), else
:func:`default_data_dir` (``$XDG_CACHE_HOME/figbench/data``, i.e. ``~/.cache/figbench/data``).
``--data-dir`` / ``data_dir=`` has the same meaning everywhere (a root or a search path of roots).
``figbench data where`` prints it; ``figbench data fetch CORPUS`` downloads a corpus there.

Corpus and metric names are discovered from the installed ``figbench_datasets`` and
``figbench_metrics`` folders (``datasets/<name>/<name>.py`` and ``metrics/<name>/<name>.py`` in a
checkout), so adding one never edits a list here. This module imports nothing heavy.
"""

from __future__ import annotations

import importlib.util
import os
from functools import lru_cache
from pathlib import Path

DATA_DIR_ENV = "FIGBENCH_DATA_DIR"
_BUILDERS_PACKAGE = "figbench_datasets"
_METRICS_PACKAGE = "figbench_metrics"


def _package_dirs(package: str) -> list[Path]:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return []
    return [Path(p) for p in spec.submodule_search_locations if Path(p).is_dir()]


def _scan(package: str) -> tuple[str, ...]:
    """Names ``n`` with a ``<folder>/n/n.py`` in the package's folders, sorted."""
    names = {d.name for root in _package_dirs(package) for d in root.iterdir()
             if d.is_dir() and (d / f"{d.name}.py").is_file()}
    return tuple(sorted(names))


#: Corpus names (the ``datasets`` builder names), as under the data root.
CORPORA: tuple[str, ...] = _scan(_BUILDERS_PACKAGE)
#: figbench's `evaluate` metrics.
METRICS: tuple[str, ...] = _scan(_METRICS_PACKAGE)


def _find(package: str, name: str, known: tuple[str, ...], what: str) -> Path:
    if name not in known:
        raise ValueError(f"unknown figbench {what} {name!r}; known: {', '.join(known)}")
    for root in _package_dirs(package):
        if (root / name / f"{name}.py").is_file():
            return root / name
    raise FileNotFoundError(f"{what} {name} is missing from this installation")  # pragma: no cover


def builder_dir(name: str) -> Path:
    """The folder of a corpus's builder and dataset card (``datasets/<name>/``)."""
    return _find(_BUILDERS_PACKAGE, name, CORPORA, "dataset")


def metric_path(name: str) -> str:
    """Installed folder of a figbench metric, for ``evaluate.load(figbench.metric_path("conll_coref"))``."""
    return str(_find(_METRICS_PACKAGE, name, METRICS, "metric"))


def default_data_dir() -> Path:
    """The data root when ``$FIGBENCH_DATA_DIR`` is not set: ``$XDG_CACHE_HOME/figbench/data``."""
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache).expanduser() / "figbench" / "data"


def split_roots(value: str | os.PathLike) -> list[Path]:
    """The data roots of a search path (``os.pathsep``-separated, like ``PATH``), in order."""
    parts = [part for part in str(value).split(os.pathsep) if part.strip()]
    return [Path(part).expanduser().resolve() for part in parts]


def data_roots() -> list[Path]:
    """The data roots, in search order: ``$FIGBENCH_DATA_DIR`` (one folder or several separated by
    ``os.pathsep``), else :func:`default_data_dir`."""
    env = os.environ.get(DATA_DIR_ENV)
    return (split_roots(env) if env and env.strip(os.pathsep + " ") else []) or [default_data_dir()]


def data_root() -> Path:
    """The first data root (:func:`data_roots`): where ``figbench data fetch`` puts a corpus no root holds."""
    return data_roots()[0]


def _holds_corpus_files(folder: Path, name: str) -> bool:
    import importlib

    try:
        files = importlib.import_module(f"figbench.corpora.{name}").FILES
    except (ImportError, AttributeError):
        return False
    return any((folder / f.path).exists() for f in files)


def corpus_dir(name: str, data_dir: str | os.PathLike | None = None) -> Path:
    """The local folder of corpus ``name``: ``<root>/<name>`` of the first data root that has it.

    ``data_dir`` (``data_dir=`` / ``--data-dir``) is a data root or a search path of roots, as
    ``$FIGBENCH_DATA_DIR`` is, which it replaces. For compatibility a single folder that is the corpus
    folder itself (holding the corpus's files, named ``name``, or an existing folder without any corpus
    folder) is taken as is.
    A corpus no root has is looked for (and fetched) in the first root.
    """
    roots = split_roots(data_dir) if data_dir else data_roots()
    if data_dir and len(roots) == 1 and _holds_corpus_files(roots[0], name):
        return roots[0]   # the corpus folder itself (checked first: a corpus may nest a folder of its own name)
    for root in roots:
        if (root / name).is_dir():
            return root / name
    if data_dir and len(roots) == 1 and (roots[0].name == name or _no_corpus_folders(roots[0])):
        return roots[0]
    return roots[0] / name


def _no_corpus_folders(folder: Path) -> bool:
    """An existing folder holding no folder of a known corpus: a corpus folder given as ``--data-dir`` (in
    any of its layouts), as before a data root was meant."""
    return folder.is_dir() and not any((folder / c).is_dir() for c in CORPORA)


def data_dir_source(data_dir: str | os.PathLike | None = None) -> str:
    """How the corpus folder was chosen, for messages: the option, the variable, or the default."""
    if data_dir:
        return "data_dir= / --data-dir"
    if os.environ.get(DATA_DIR_ENV):
        return f"${DATA_DIR_ENV}"
    return f"the default data root (set ${DATA_DIR_ENV} to change it)"


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """sha256 of every figbench and builder source file: part of every prepared-data cache key."""
    import hashlib

    from figbench import __version__

    digest = hashlib.sha256(__version__.encode())
    roots = [Path(__file__).resolve().parent, *_package_dirs(_BUILDERS_PACKAGE)]
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()
