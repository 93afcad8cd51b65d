"""Crash-safe training checkpoints: a process killed at any moment leaves a complete one to resume from.

Layout of a checkpoint folder (``--checkpoint-dir``):

- ``ckpt-<n>/``: one complete checkpoint, the Accelerate state (model, optimiser, scheduler, RNG) plus
  ``progress.json`` (the loop's position and whatever the trainer keeps beside it);
- ``LATEST``: the name of the newest complete checkpoint. A save writes ``ckpt-<n>.partial/``, renames it
  to ``ckpt-<n>`` once complete, then replaces ``LATEST`` atomically; only then are older checkpoints,
  leftovers of an interrupted save and files the new progress no longer names removed. A kill before
  the switch resumes from the previous checkpoint, a kill after it from the new one: never from a mix.

Folders written before this layout (the Accelerate state and a progress file directly in the folder, or
in ``state/``) still resume.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

LATEST = "LATEST"
PROGRESS = "progress.json"
_PREFIX = "ckpt-"
#: pre-layout checkpoints: (progress file, Accelerate state folder), relative to the checkpoint folder
LEGACY = (("figbench_progress.json", "."), ("progress.json", "state"))


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _latest_name(root: Path) -> str | None:
    f = root / LATEST
    if not f.is_file():
        return None
    name = f.read_text("utf-8").strip()
    return name if name.startswith(_PREFIX) and (root / name / PROGRESS).is_file() else None


def latest(root: str | Path) -> tuple[Path, dict[str, Any]] | None:
    """The newest complete checkpoint under ``root``: (its Accelerate state folder, its progress), or None."""
    root = Path(root)
    name = _latest_name(root)
    if name is not None:
        return root / name, json.loads((root / name / PROGRESS).read_text("utf-8"))
    for progress, state in LEGACY:
        if (root / progress).is_file():
            return (root / state).resolve(), json.loads((root / progress).read_text("utf-8"))
    return None


def load(accelerator, root: str | Path | None) -> dict[str, Any] | None:
    """Restore the newest complete checkpoint under ``root`` into ``accelerator``; returns its progress."""
    if root is None:
        return None
    found = latest(root)
    if found is None:
        return None
    state, progress = found
    accelerator.load_state(str(state))
    return progress


def save(accelerator, root: str | Path, progress: Mapping[str, Any], *, keep: Iterable[str] = ()) -> Path:
    """Write the Accelerate state and ``progress`` as the newest checkpoint under ``root`` (every process calls).

    ``keep``: names of files in ``root`` that the new progress refers to (e.g. the best weights); other
    ``best-*`` files are removed with the older checkpoints once the new one is in place.
    """
    root = Path(root)
    main = accelerator.is_main_process
    accelerator.wait_for_everyone()
    current = _latest_name(root)
    n = int(current[len(_PREFIX):]) + 1 if current else 1
    name = f"{_PREFIX}{n:08d}"
    partial = root / f"{name}.partial"
    if main:
        root.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(partial, ignore_errors=True)
    accelerator.wait_for_everyone()
    accelerator.save_state(str(partial))
    accelerator.wait_for_everyone()
    if main:
        _atomic_write(partial / PROGRESS, json.dumps(dict(progress), indent=1))
        os.replace(partial, root / name)
        _atomic_write(root / LATEST, name + "\n")
        _prune(root, name, set(keep))
    accelerator.wait_for_everyone()
    return root / name


#: the pre-layout progress files and state folders (and the early-stopping loop's progress temp file)
_LEGACY_NAMES = {name for pair in LEGACY for name in pair if name != "."} | {"progress.json.tmp"}
#: what ``Accelerator.save_state`` writes, for removing a pre-layout state saved directly in the folder
_ACCELERATE_FILES = ("model", "pytorch_model", "optimizer", "scheduler", "random_states_", "sampler", "scaler")


def _prune(root: Path, current: str, keep: set[str]) -> None:
    """Remove what the checkpoint ``current`` made obsolete (older checkpoints, interrupted saves, pre-layout files)."""
    legacy_root_state = (root / LEGACY[0][0]).is_file()
    for p in root.iterdir():
        stale = ((p.name.startswith(_PREFIX) and p.name != current)
                 or (p.name.startswith("best") and p.name not in keep)
                 or p.name in _LEGACY_NAMES
                 or (legacy_root_state and p.is_file() and p.name.startswith(_ACCELERATE_FILES)))
        if not stale:
            continue
        if p.is_dir():
            shutil.rmtree(p, ignore_errors=True)
        else:
            p.unlink(missing_ok=True)


__all__ = ["LATEST", "latest", "load", "save"]
