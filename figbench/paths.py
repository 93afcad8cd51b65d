"""Where things are: the builders' and metrics' folders, and the corpora on disk."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

#: Corpus folder names, as under ``FIGBENCH_DATA_DIR`` (and ``../shared/data``).
CORPORA = ("ecbplus", "ecbmeta", "wec_eng", "meta4xnli", "wimcor", "epic")
METRICS = ("conll_coref", "span_f1", "vocab_f1")
DATA_DIR_ENV = "FIGBENCH_DATA_DIR"


def project_root() -> Path:
    """The folder holding ``datasets/``, ``metrics/``, ``baselines/`` and ``leaderboard/``."""
    return Path(__file__).resolve().parent.parent


def builders_root() -> Path:
    return project_root() / "datasets"


def builder_dir(name: str) -> Path:
    if name not in CORPORA:
        raise ValueError(f"unknown figbench dataset {name!r}; known: {', '.join(CORPORA)}")
    return builders_root() / name


def metric_path(name: str) -> str:
    """Installed path of a figbench metric, for ``evaluate.load(figbench.metric_path("conll_coref"))``."""
    if name not in METRICS:
        raise ValueError(f"unknown figbench metric {name!r}; known: {', '.join(METRICS)}")
    path = project_root() / "metrics" / name
    if not (path / f"{name}.py").is_file():
        raise FileNotFoundError(f"metric script {path / (name + '.py')} is missing from this installation")
    return str(path)


def corpus_dir(name: str, data_dir: str | os.PathLike | None = None) -> Path | None:
    """The local folder of a corpus: ``data_dir`` itself, else ``$FIGBENCH_DATA_DIR/<name>``, else None."""
    if data_dir:
        return Path(data_dir).expanduser().resolve()
    parent = os.environ.get(DATA_DIR_ENV)
    if parent:
        return (Path(parent).expanduser() / name).resolve()
    return None


class MissingDataError(FileNotFoundError):
    """Some files of a corpus are missing; the message lists each with where it was looked for."""


def require_files(corpus: str, root: Path, relative: Iterable[str], *, hint: str = "") -> list[Path]:
    """Return the paths of ``relative`` under ``root``, or raise one error listing every missing one."""
    paths = [root / r for r in relative]
    missing = [p for p in paths if not p.exists()]
    if missing:
        lines = "\n".join(f"  - {p}" for p in missing)
        raise MissingDataError(
            f"{corpus}: {len(missing)} required file(s) not found under {root}:\n{lines}\n"
            f"Pass data_dir=<the {corpus} folder> or set {DATA_DIR_ENV} to a folder with a '{corpus}' sub-folder."
            + (f"\n{hint}" if hint else "")
        )
    return paths
