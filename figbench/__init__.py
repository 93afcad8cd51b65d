"""figbench: datasets, metrics, baselines and a leaderboard for figurative language and
cross-document event coreference.

Importing figbench is light (no ``datasets``, pandas or torch); the functions below import what
they need when called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

#: public name -> module that defines it (imported on first use)
_LAZY = {
    "CORPORA": "figbench.paths",
    "METRICS": "figbench.paths",
    "metric_path": "figbench.paths",
    "data_root": "figbench.paths",
    "load_dataset": "figbench.loading",
    "load_dataset_builder": "figbench.loading",
    "prepare": "figbench.loading",
}

if TYPE_CHECKING:  # pragma: no cover
    from figbench.loading import load_dataset, load_dataset_builder, prepare
    from figbench.paths import CORPORA, METRICS, data_root, metric_path


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'figbench' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])


# spelled out (same names and order as ``["__version__", *_LAZY]``) so linters see the re-exports above
__all__ = ["__version__", "CORPORA", "METRICS", "metric_path", "data_root", "load_dataset", "load_dataset_builder",
           "prepare"]
