"""Saved models (``--save-model`` / ``--load-model`` folders) and the on-disk cache of frozen encodings.

A model folder holds the weights of one trained component (``biencoder.pt``, ``crossencoder.pt`` or
``wec_mlp.pt``) and ``train_info.json``: what it was trained on, how long it took, where, and with
which settings. Evaluation runs that load a folder copy ``train_info.json`` into their record, so
the training wall time, hardware and number of training pairs travel with every score.

The encoding cache (``$FIGBENCH_CACHE/cdec``, default ``~/.cache/figbench/cdec``, the folder the
other baselines cache frozen embeddings in; ``FIGBENCH_CACHE=off`` or ``--no-cache`` disables it)
keeps embeddings of mentions by a fingerprint of the encoder (its weights file or model id) and of
the mentions' inputs, so re-running a frozen-encoder or loaded-model evaluation does not encode again.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from figbench.corpora.files import sha256_file

INFO_FILE = "train_info.json"
WEIGHTS = {"biencoder": "biencoder.pt", "crossencoder": "crossencoder.pt", "wec_pairwise": "wec_mlp.pt"}


def save_component(folder: str | os.PathLike, component: str, state: Mapping[str, Any],
                   info: Mapping[str, Any]) -> Path:
    """Write ``<component>.pt`` and ``train_info.json`` (weights first, so a folder with the info is complete)."""
    import torch
    from accelerate import PartialState

    from figbench.results import hardware, package_versions

    folder = Path(folder)
    weights = folder / WEIGHTS[component]
    if not PartialState().is_main_process:  # under `accelerate launch`: one writer
        return weights
    folder.mkdir(parents=True, exist_ok=True)
    tmp = weights.with_suffix(".pt.tmp")
    torch.save(dict(state), tmp)
    os.replace(tmp, weights)
    record = {"component": component, **info, "hardware": hardware(), "packages": package_versions(),
              "saved_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "weights_sha256": sha256_file(weights)}
    (folder / INFO_FILE).write_text(json.dumps(record, indent=2, default=str) + "\n", encoding="utf-8")
    return weights


def load_component(folder: str | os.PathLike, component: str) -> tuple[dict, dict]:
    """(state dict, train info) of a saved component; clear errors for missing or unfinished folders."""
    import torch

    folder = Path(folder)
    weights, info_file = folder / WEIGHTS[component], folder / INFO_FILE
    if not weights.is_file() or not info_file.is_file():
        raise FileNotFoundError(f"{folder}: no trained {component} here (need {weights.name} and {INFO_FILE}; "
                                "train it first with --save-model)")
    info = json.loads(info_file.read_text("utf-8"))
    if info.get("component") != component:
        raise ValueError(f"{folder} holds a {info.get('component')}, not a {component}")
    return torch.load(weights, map_location="cpu"), info


def is_complete(folder: str | os.PathLike, component: str) -> bool:
    folder = Path(folder)
    return (folder / WEIGHTS[component]).is_file() and (folder / INFO_FILE).is_file()


def encoder_fingerprint(model_name: str | None, trained_folder: str | None = None, component: str = "biencoder") -> str:
    """Identity of an encoder's weights: a trained folder's weights hash, else the model id/path and config."""
    if trained_folder:
        info = json.loads((Path(trained_folder) / INFO_FILE).read_text("utf-8"))
        return f"{component}:{info['weights_sha256']}"
    from figbench_baselines.common.encoder import resolve_model

    path = resolve_model(model_name)
    h = hashlib.sha256(path.encode())
    p = Path(path)
    if p.is_dir():
        for f in sorted(p.iterdir()):
            if f.suffix in (".json", ".safetensors", ".bin", ".txt"):
                h.update(f.name.encode())
                h.update(str(f.stat().st_size).encode())
                if f.suffix == ".json":
                    h.update(f.read_bytes())
    return h.hexdigest()


def cache_root() -> Path | None:
    """``$FIGBENCH_CACHE/cdec`` (default ``~/.cache/figbench/cdec``); None when ``FIGBENCH_CACHE=off``."""
    root = os.environ.get("FIGBENCH_CACHE", str(Path.home() / ".cache" / "figbench"))
    return None if root.lower() == "off" else Path(root) / "cdec"


def rows_fingerprint(rows: Sequence[Mapping], context_words: int) -> str:
    """Hash of what an encoder sees of each mention (id, marked context words)."""
    from figbench_baselines.cdec.steps.encoding import mention_words

    h = hashlib.sha256(str(context_words).encode())
    for r in rows:
        words, s, e = mention_words(r, context_words)
        h.update(json.dumps([str(r.get("mention_id")), words, s, e], ensure_ascii=False).encode())
    return h.hexdigest()


def cached_arrays(kind: str, key: Mapping[str, Any], compute: Callable[[], dict[str, np.ndarray]],
                  *, enabled: bool = True) -> tuple[dict[str, np.ndarray], bool]:
    """``compute()`` once per ``key`` (arrays saved as .npz); returns (arrays, whether they came from the cache)."""
    root = cache_root()
    if not enabled or root is None:
        return compute(), False
    digest = hashlib.sha256(json.dumps({"kind": kind, **key}, sort_keys=True, default=str).encode()).hexdigest()[:32]
    path = root / f"{kind}-{digest}.npz"
    if path.is_file():
        try:
            with np.load(path) as z:
                return {k: z[k] for k in z.files}, True
        except (OSError, ValueError):  # a damaged cache file: recompute
            path.unlink(missing_ok=True)
    arrays = compute()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}.npz")
    np.savez(tmp, **arrays)
    os.replace(tmp, path)
    return arrays, False
