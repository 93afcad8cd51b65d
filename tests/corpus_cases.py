"""What the every-corpus tests need of each corpus, declared beside its fixtures.

Each corpus of :data:`figbench.CORPORA` may have ``tests/fixtures/<corpus>/cases.py`` with any of:

- ``MISSING``: its missing-data cases (:class:`MissingCase`); without it, the builder's default config with
  an empty folder must name every file of the parser's ``FILES``;
- ``splits(config) -> datasets.DatasetDict``: small in-memory splits the baselines run on
  (``tests/baseline_splits.py``);
- ``TASK_SPLITS``: ``{task name: () -> datasets.Dataset}``, one small split per task whose benchmarks
  read this corpus (``tests/test_tasks.py``).

The tests loop over :data:`figbench.CORPORA` and :data:`figbench.tasks.TASKS`, so adding a corpus or
a task edits no list in ``tests/``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import ModuleType

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@dataclass(frozen=True)
class MissingCase:
    """Loading ``config`` of ``corpus`` from an empty folder must name ``files`` (relative to it) and ``phrases``."""

    corpus: str
    config: str
    files: tuple[str, ...]
    kwargs: dict = field(default_factory=dict)
    phrases: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        return f"{self.corpus}-{self.config}" + "".join(f"-{k}={v}" for k, v in self.kwargs.items())


@cache
def cases_module(corpus: str) -> ModuleType | None:
    """``tests/fixtures/<corpus>/cases.py``, or None when the corpus declares nothing there."""
    if not (FIXTURES / corpus / "cases.py").is_file():
        return None
    return importlib.import_module(f"tests.fixtures.{corpus}.cases")


def corpus_files(corpus: str) -> tuple:
    """The parser's ``FILES`` (``figbench/corpora/<corpus>.py``)."""
    return tuple(importlib.import_module(f"figbench.corpora.{corpus}").FILES)


def has_public_url(corpus: str) -> bool:
    return any(f.url for f in corpus_files(corpus))


def missing_cases() -> list[MissingCase]:
    """Every corpus's missing-data cases (its declared ``MISSING``, else the default case)."""
    import figbench
    from figbench.loading import builder_configs

    out: list[MissingCase] = []
    for corpus in figbench.CORPORA:
        declared = getattr(cases_module(corpus), "MISSING", None)
        if declared is None:
            declared = [MissingCase(corpus, builder_configs(corpus)[1], tuple(f.path for f in corpus_files(corpus)))]
        out.extend(declared)
    return out


def task_splits() -> dict[str, Callable]:
    """Task name -> in-memory split factory, from every corpus's ``TASK_SPLITS``."""
    import figbench

    out: dict[str, Callable] = {}
    for corpus in figbench.CORPORA:
        out.update(getattr(cases_module(corpus), "TASK_SPLITS", {}))
    return out


def corpus_splits(dataset: str, config: str | None):
    """The corpus's in-memory splits for ``config``; KeyError when it declares none."""
    make = getattr(cases_module(dataset), "splits", None) if dataset.isidentifier() else None
    if make is None:
        raise KeyError(f"no fixture splits for {dataset}/{config} (tests/fixtures/{dataset}/cases.py: splits)")
    return make(config)
