"""Registration of figbench's builders with the `datasets` library.

``datasets`` 4+ runs no loading scripts; it finds its own builders (csv, json, parquet...) through
``datasets.packaged_modules._PACKAGED_DATASETS_MODULES``. figbench adds its builders there under
their corpus names, importable as ``figbench_builders.<name>`` from ``datasets/<name>/<name>.py``,
so ``datasets.load_dataset("ecbmeta", "meta_m", data_dir=...)`` works once figbench is imported.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.util
import sys
from typing import Any

from figbench.paths import CORPORA, builder_dir, corpus_dir, project_root

_PACKAGE = "figbench_builders"
_registered = False


class _BuilderFinder(importlib.abc.MetaPathFinder):
    """Imports ``figbench_builders.<name>`` from ``datasets/<name>/<name>.py``."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname == _PACKAGE:
            spec = importlib.util.spec_from_loader(fullname, loader=None, is_package=True)
            spec.submodule_search_locations = []
            return spec
        prefix, _, name = fullname.partition(".")
        if prefix != _PACKAGE or name not in CORPORA:
            return None
        script = builder_dir(name) / f"{name}.py"
        if not script.is_file():
            return None
        return importlib.util.spec_from_file_location(fullname, script)


def _script_hash(name: str) -> str:
    script = builder_dir(name) / f"{name}.py"
    if not script.is_file():
        return "missing"
    digest = hashlib.sha256(script.read_bytes())
    # Builders parse with helpers in figbench/corpora/*_io.py: a change there must also
    # invalidate the prepared (cached) datasets.
    for helper in sorted((project_root() / "figbench" / "corpora").glob("*_io.py")):
        digest.update(helper.read_bytes())
    return digest.hexdigest()


def register_builders() -> None:
    """Make figbench's corpora loadable by name through ``datasets.load_dataset``. Idempotent."""
    global _registered
    if _registered:
        return
    if not any(isinstance(f, _BuilderFinder) for f in sys.meta_path):
        sys.meta_path.append(_BuilderFinder())
    from datasets import load as ds_load
    from datasets import packaged_modules
    from datasets.data_files import DataFilesDict

    for name in CORPORA:
        if (builder_dir(name) / f"{name}.py").is_file():
            packaged_modules._PACKAGED_DATASETS_MODULES[name] = (f"{_PACKAGE}.{name}", _script_hash(name))

    factory = ds_load.PackagedDatasetModuleFactory
    original = factory.get_module
    if not getattr(original, "_figbench", False):
        def get_module(self):
            # Our builders find their own files (data_dir / FIGBENCH_DATA_DIR / download):
            # skip the generic data-file inference, which would scan data_dir or the cwd.
            if self.name in CORPORA and self.data_files is None:
                module_path, hash_ = packaged_modules._PACKAGED_DATASETS_MODULES[self.name]
                # An empty DataFilesDict (not None) tells load_dataset_builder that no generic
                # data files are expected, so it does not ask for any.
                kwargs = {"dataset_name": self.name, "data_files": DataFilesDict()}
                # Resolve FIGBENCH_DATA_DIR here so the cache key names the folder actually read.
                local = corpus_dir(self.name, self.data_dir)
                if local is not None:
                    kwargs["data_dir"] = str(local)
                return ds_load.DatasetModule(module_path, hash_, kwargs)
            return original(self)

        get_module._figbench = True
        factory.get_module = get_module
    _registered = True


def load_dataset(name: str, config: str | None = None, split: str | None = None,
                 data_dir: str | None = None, **kwargs: Any):
    """Load a figbench corpus as ``datasets`` objects (a DatasetDict, or a Dataset when ``split`` is given)."""
    if name not in CORPORA:
        raise ValueError(f"unknown figbench dataset {name!r}; known: {', '.join(CORPORA)}")
    register_builders()
    import datasets
    from datasets.exceptions import DatasetGenerationError

    try:
        return datasets.load_dataset(name, config, split=split, data_dir=data_dir, **kwargs)
    except DatasetGenerationError as e:
        # `datasets` wraps errors raised while generating examples; surface the builder's own
        # message (it names the file and record) instead of the wrapper.
        if isinstance(e.__cause__, ValueError):
            raise e.__cause__ from None
        raise
