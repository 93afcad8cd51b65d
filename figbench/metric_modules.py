"""figbench's `evaluate` metrics by bare name (``evaluate.load("conll_coref")``) and as Hub Spaces.

:func:`install` writes each metric module where ``evaluate`` itself looks for a canonical metric it
cannot reach on the Hub: ``$HF_MODULES_CACHE/evaluate_modules/metrics/evaluate-metric--<name>/<sha256>/``
(the layout ``evaluate`` writes when it downloads one). ``evaluate.load("<name>")`` then falls back to
it, offline or when the Hub has no such metric, in any process, without importing figbench first.
Nothing in ``evaluate`` is patched.

:func:`export_space` writes an evaluate metric Space folder (module, card with Space metadata,
``app.py``, ``requirements.txt``) that ``evaluate.load(DIR)`` loads and the Hub serves.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

from figbench import __version__
from figbench.paths import METRICS, metric_path

#: ``evaluate``'s cache name prefix for canonical (``evaluate-metric/<name>``) modules.
CANONICAL_PREFIX = "evaluate-metric--"
#: Where figbench is published from; Space folders install it from here unless told otherwise.
SOURCE_URL = "https://github.com/figbench/figbench"


def default_requirement() -> str:
    """The pip requirement that installs this figbench version from its source repository."""
    return f"figbench @ git+{SOURCE_URL}@v{__version__}"


def _files(name: str) -> tuple[Path, Path]:
    folder = Path(metric_path(name))
    return folder / f"{name}.py", folder / "README.md"


def evaluate_modules_dir(modules_cache: str | os.PathLike | None = None) -> Path:
    """``evaluate``'s dynamic-modules folder, made as ``evaluate.loading.init_dynamic_modules`` makes it.

    The same environment rules as ``evaluate.config`` (``HF_MODULES_CACHE``, else ``HF_HOME/modules``, else
    ``$XDG_CACHE_HOME/huggingface/modules``), without importing ``evaluate``: its import loads transformers'
    pipelines, several seconds that ``figbench metrics install`` does not need.
    """
    if modules_cache is None:
        home = os.path.expanduser(os.getenv("HF_HOME", os.path.join(os.getenv("XDG_CACHE_HOME", "~/.cache"),
                                                                     "huggingface")))
        modules_cache = os.getenv("HF_MODULES_CACHE", os.path.join(home, "modules"))
    root = Path(modules_cache)
    for folder in (root, root / "evaluate_modules"):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "__init__.py").touch(exist_ok=True)
    return root / "evaluate_modules"


def install(names: list[str] | None = None, *, modules_cache: str | os.PathLike | None = None) -> dict[str, Path]:
    """Install metric modules for bare-name ``evaluate.load``; returns name -> installed script."""
    root = evaluate_modules_dir(modules_cache) / "metrics"
    out: dict[str, Path] = {}
    for name in names or list(METRICS):
        script, card = _files(name)
        code = script.read_bytes()
        digest = hashlib.sha256(code + (card.read_bytes() if card.is_file() else b"")).hexdigest()
        folder = root / f"{CANONICAL_PREFIX}{name}"
        target = folder / digest
        target.mkdir(parents=True, exist_ok=True)
        for init in (folder / "__init__.py", target / "__init__.py"):
            init.touch(exist_ok=True)
        if card.is_file():
            shutil.copyfile(card, target / "README.md")
        (target / f"{name}.json").write_text(json.dumps(
            {"original file path": str(script), "local file path": str(target / f"{name}.py"),
             "installed by": f"figbench {__version__}"}), encoding="utf-8")
        tmp = target / f".{name}.py.tmp"
        tmp.write_bytes(code)
        os.replace(tmp, target / f"{name}.py")  # written last and fresh: evaluate picks the newest script
        out[name] = target / f"{name}.py"
    return out


_SPACE_HEADER = """---
title: {title}
emoji: 📏
colorFrom: indigo
colorTo: green
sdk: gradio
sdk_version: {gradio}
app_file: app.py
pinned: false
tags:
- evaluate
- metric
description: >-
  {description}
---
"""

_APP = '''"""Space entry point: the figbench `{name}` metric with evaluate's standard widget."""

from pathlib import Path

import evaluate
from evaluate.utils import launch_gradio_widget

module = evaluate.load(str(Path(__file__).resolve().parent))
launch_gradio_widget(module)
'''


def _front_matter(card: str) -> tuple[dict, str]:
    """The YAML front matter of a card (as a dict) and the text after it."""
    import yaml

    if card.startswith("---\n"):
        head, _, body = card[4:].partition("\n---\n")
        return yaml.safe_load(head) or {}, body
    return {}, card


def export_space(name: str, to: str | os.PathLike, *, requirement: str | None = None,
                 wheel: str | os.PathLike | None = None) -> list[Path]:
    """Write the evaluate metric Space of ``name`` into folder ``to``; returns the files written.

    The module is saved as ``<folder name>.py`` (what ``evaluate.load(DIR)`` and the Hub look for).
    ``requirements.txt`` installs figbench from ``requirement`` (default: :func:`default_requirement`),
    or from ``wheel``, which is copied into the folder.
    """
    script, card = _files(name)
    folder = Path(to).expanduser().resolve()
    folder.mkdir(parents=True, exist_ok=True)
    written = [folder / f"{folder.name}.py"]
    shutil.copyfile(script, written[0])
    meta, body = _front_matter(card.read_text("utf-8") if card.is_file() else f"# {name}\n")
    try:
        from importlib.metadata import version

        gradio = version("gradio")
    except Exception:
        gradio = "6.0.0"
    header = _SPACE_HEADER.format(title=meta.get("title", name), gradio=gradio,
                                  description=" ".join(str(meta.get("description", name)).split()))
    (folder / "README.md").write_text(header + body, encoding="utf-8")
    (folder / "app.py").write_text(_APP.format(name=name), encoding="utf-8")
    reqs = ["evaluate>=0.4.3,<0.5", "gradio>=6,<7"]
    if wheel is not None:
        wheel = Path(wheel)
        shutil.copyfile(wheel, folder / wheel.name)
        written.append(folder / wheel.name)
        reqs.append(f"./{wheel.name}")
    else:
        reqs.append(requirement or default_requirement())
    (folder / "requirements.txt").write_text("\n".join(reqs) + "\n", encoding="utf-8")
    written += [folder / "README.md", folder / "app.py", folder / "requirements.txt"]
    return written
