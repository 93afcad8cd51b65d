"""Loading figbench corpora with ``datasets``, and preparing them for bare-name loads.

``figbench.load_dataset("ecbmeta", "meta_m")`` builds from the original files (the corpus folder,
see :mod:`figbench.paths`) into the ``datasets`` cache and returns the splits. Prepared data sit
where ``datasets`` itself looks for a dataset it cannot reach on the Hub
(``$HF_DATASETS_CACHE/<name>/<config>/<version>/<hash>``), so after one
``figbench data prepare <name>`` a process that never imports figbench loads it with plain
``datasets.load_dataset("<name>", "<config>")`` offline (``datasets`` logs that it uses the latest
cached version). Nothing in ``datasets`` is patched.

The cache key (``hash``) covers every figbench source file, the builder's, the figbench version, the
corpus folder read and the config options, so a code or data-location change never serves stale
data. Changed corpus *files* in the same folder need ``download_mode="force_redownload"``
(``figbench data prepare --force``).
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
from typing import Any

from figbench.paths import CORPORA, code_fingerprint, corpus_dir, data_root


def _check(name: str) -> None:
    if name not in CORPORA:
        raise ValueError(f"unknown figbench dataset {name!r}; known: {', '.join(CORPORA)}")


def builder_class(name: str):
    """The builder class of corpus ``name`` (:mod:`figbench.corpora.builder`'s naming rule)."""
    _check(name)
    from datasets.naming import snakecase_to_camelcase

    module = importlib.import_module(f"figbench_datasets.{name}.{name}")
    cls_name = snakecase_to_camelcase(name)
    try:
        return getattr(module, cls_name)
    except AttributeError:
        raise ImportError(f"{module.__file__} defines no builder class {cls_name} (the naming rule)") from None


def builder_configs(name: str) -> tuple[list[str], str | None]:
    """The config names of a corpus's builder and its default config."""
    cls = builder_class(name)
    names = [c.name for c in cls.BUILDER_CONFIGS]
    return names, cls.DEFAULT_CONFIG_NAME or (names[0] if names else None)


def cache_hash(name: str, data_dir: str | os.PathLike | None = None, config_kwargs: dict | None = None) -> str:
    """The prepared-data cache key: code fingerprint, corpus, folders read and options."""
    parts = {
        "code": code_fingerprint(),
        "name": name,
        "data_dir": str(corpus_dir(name, data_dir)) if data_dir else None,
        "data_root": str(data_root()),
        "options": config_kwargs or {},
    }
    text = json.dumps(parts, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def load_dataset_builder(name: str, config: str | None = None, *, data_dir: str | os.PathLike | None = None,
                         cache_dir: str | None = None, **config_kwargs: Any):
    """The (not yet prepared) ``datasets`` builder of one corpus config.

    ``data_dir`` is the corpus folder itself (default ``<data root>/<name>``); other keyword arguments
    are config options (they become part of the cache's config id, as in ``datasets``).
    """
    cls = builder_class(name)
    source = str(corpus_dir(name, data_dir)) if data_dir else None
    return cls(config_name=config, cache_dir=cache_dir, dataset_name=name, source_dir=source,
               hash=cache_hash(name, data_dir, config_kwargs), **config_kwargs)


def _unwrap(e: Exception) -> Exception:
    """``datasets`` wraps errors raised while generating examples: surface the builder's own message."""
    from datasets.exceptions import DatasetGenerationError

    if isinstance(e, DatasetGenerationError) and isinstance(e.__cause__, (ValueError, FileNotFoundError)):
        return e.__cause__
    return e


def load_dataset(name: str, config: str | None = None, split: str | None = None, *,
                 data_dir: str | os.PathLike | None = None, cache_dir: str | None = None,
                 download_mode: str | None = None, keep_in_memory: bool | None = None, **config_kwargs: Any):
    """Load a figbench corpus: a ``DatasetDict``, or a ``Dataset`` when ``split`` is given.

    Prepares it first when needed (see the module docstring); errors name the file and record.
    """
    builder = load_dataset_builder(name, config, data_dir=data_dir, cache_dir=cache_dir, **config_kwargs)
    try:
        builder.download_and_prepare(download_mode=download_mode)
    except Exception as e:
        cause = _unwrap(e)
        if cause is e:
            raise
        raise cause from None
    return _as_dataset(builder, split, bool(keep_in_memory))


def _as_dataset(builder, split: str | None, in_memory: bool):
    """``builder.as_dataset``, with a split of no rows (an empty harvest) as an empty ``Dataset`` of the builder's
    features (``datasets`` refuses to read one: 'Instruction ... corresponds to no data')."""
    import datasets

    splits = builder.info.splits or {}
    empty = {str(s) for s, info in splits.items() if not info.num_examples}
    if not empty:
        return builder.as_dataset(split=split, in_memory=in_memory)

    def one(name: str):
        if name in empty:
            return datasets.Dataset.from_dict({k: [] for k in builder.info.features}, features=builder.info.features,
                                              info=builder.info.copy(), split=datasets.Split(name))
        return builder.as_dataset(split=name, in_memory=in_memory)

    if split is not None:
        return one(str(split))
    return datasets.DatasetDict({str(s): one(str(s)) for s in splits})


def prepare(name: str, configs: list[str] | None = None, *, data_dir: str | os.PathLike | None = None,
            cache_dir: str | None = None, force: bool = False, **config_kwargs: Any) -> dict[str, dict[str, int]]:
    """Prepare configs of a corpus (default: the default config) for bare-name loading.

    Returns config -> split -> number of rows.
    """
    names, default = builder_configs(name)
    out: dict[str, dict[str, int]] = {}
    for config in configs or [default]:
        if config not in names:
            raise ValueError(f"{name} has no config {config!r}; configs: {', '.join(names)}")
        dd = load_dataset(name, config, data_dir=data_dir, cache_dir=cache_dir,
                          download_mode="force_redownload" if force else None, **config_kwargs)
        out[config] = {str(s): len(d) for s, d in dd.items()}
    return out


def builder_options(pairs: list[str]) -> dict[str, object]:
    """``KEY=VALUE`` builder options; values are read as YAML scalars (``False``, ``0.1``, ``ucdcr``)."""
    import yaml

    out: dict[str, object] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--option expects KEY=VALUE, got {pair!r}")
        try:
            parsed = yaml.safe_load(value.strip())
        except yaml.YAMLError:
            parsed = value.strip()
        out[key.strip()] = parsed if isinstance(parsed, (str, int, float, bool)) or parsed is None else value.strip()
    return out
