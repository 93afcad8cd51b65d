"""The leaderboard's layers (ARCHITECTURE.md): every import of a ``figbench_leaderboard`` module points to its own
layer or a lower one, never up, and nothing below the UI imports Gradio.

Imports are read with :mod:`ast` from every module under ``leaderboard/``, top-level and inside functions
(the lazy imports that keep the CLI light are imports too), relative ones resolved."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.conftest import ROOT

PACKAGE, FOLDER = "figbench_leaderboard", ROOT / "leaderboard"
#: bottom to top: a module may import its own layer and the layers before it in this tuple
LAYERS = ("domain", "store", "access", "scoring", "ui", "commands")
#: the modules at the top of ``leaderboard/``: the entry points
COMMANDS = frozenset({"__init__", "cli", "client", "export", "maintainer", "screenshots", "space"})
#: third-party UI packages only the ``ui`` and commands layers may import
UI_ONLY = ("gradio", "plotly")


def layer_of(module: str) -> str:
    """The layer of a dotted ``figbench_leaderboard`` module name (``figbench_leaderboard.store.sqlite`` -> store)."""
    parts = module.split(".")
    if parts[0] != PACKAGE:
        raise ValueError(f"{module}: not a {PACKAGE} module")
    if len(parts) == 1 or parts[1] in COMMANDS:
        return "commands"
    if parts[1] not in LAYERS:
        raise ValueError(f"{module}: in no layer (a new top-level module is a command: add it to COMMANDS, "
                         f"or move it into one of {', '.join(LAYERS[:-1])})")
    return parts[1]


def module_name(path: Path) -> str:
    rel = path.relative_to(FOLDER).with_suffix("")
    return ".".join((PACKAGE, *rel.parts))


def imports(source: str, module: str, *, is_package: bool = False) -> list[tuple[int, str]]:
    """``(line, imported module)`` for every import in ``source`` (``from X import y`` gives ``X.y``, which may
    be a module or a name in ``X``: both lie in X's layer or below it)."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".") if is_package else module.split(".")[:-1]
                anchor = anchor[:len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            out += [(node.lineno, f"{base}.{a.name}") for a in node.names]
    return out


def violations(source: str, module: str, *, is_package: bool = False) -> list[str]:
    """Every import of ``module``'s source that points to a higher layer, or to a UI package below the UI."""
    mine = LAYERS.index(layer_of(module))
    found = []
    for line, target in imports(source, module, is_package=is_package):
        if target.startswith("figbench.imports."):   # figbench.imports.gradio() imports gradio
            target = target.split(".", 2)[2]
        top = target.split(".")[0]
        if top == PACKAGE:
            theirs = layer_of(_owner(target))
            if LAYERS.index(theirs) > mine:
                found.append(f"{module}:{line} ({LAYERS[mine]}) imports {target} ({theirs})")
        elif top in UI_ONLY and mine < LAYERS.index("ui"):
            found.append(f"{module}:{line} ({LAYERS[mine]}) imports {target} (only the UI may)")
    return found


def _owner(target: str) -> str:
    """``figbench_leaderboard.X.name`` -> the module or package it names (a top-level name -> the package)."""
    parts = target.split(".")
    return target if len(parts) <= 2 else ".".join(parts[:3]) if parts[1] in LAYERS else ".".join(parts[:2])


def modules() -> list[Path]:
    return sorted(p for p in FOLDER.rglob("*.py") if "__pycache__" not in p.parts)


def test_every_module_is_in_a_layer():
    for path in modules():
        layer_of(module_name(path))
    assert {p.name for p in FOLDER.iterdir() if (p / "__init__.py").is_file()} == set(LAYERS[:-1])


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(FOLDER)))
def test_imports_point_down(path):
    assert violations(path.read_text("utf-8"), module_name(path), is_package=path.name == "__init__.py") == []


@pytest.mark.parametrize("source, module, expected", [
    ("from figbench_leaderboard.ui.tables import overview", "figbench_leaderboard.store.sqlite", "imports"),
    ("def f():\n    from figbench_leaderboard.access import identity", "figbench_leaderboard.store.leases", "(access)"),
    ("import figbench_leaderboard.cli", "figbench_leaderboard.scoring.board", "(commands)"),
    ("from figbench_leaderboard import client", "figbench_leaderboard.ui.app", "(commands)"),
    ("from ..ui import tables", "figbench_leaderboard.access.redact", "(ui)"),
    ("from ...ui import tables", "figbench_leaderboard.access.sub.mod", "(ui)"),
    ("import gradio as gr", "figbench_leaderboard.scoring.worker", "only the UI"),
    ("def f():\n    from figbench.imports import gradio", "figbench_leaderboard.scoring.worker", "only the UI"),
    ("from figbench_leaderboard.domain import names", "figbench_leaderboard.store.sqlite", None),
    ("from figbench_leaderboard.store.sqlite import Store", "figbench_leaderboard.export", None),
    ("from . import tables", "figbench_leaderboard.ui.plots", None),
    ("import gradio", "figbench_leaderboard.ui.app", None),
])
def test_the_check_finds_upward_imports(source, module, expected):
    found = violations(source, module)
    assert (expected in found[0]) if expected else found == [], found


def test_a_module_outside_the_layers_is_an_error():
    with pytest.raises(ValueError, match="in no layer"):
        layer_of("figbench_leaderboard.helpers")


def test_architecture_md_names_every_layer():
    text = (ROOT / "ARCHITECTURE.md").read_text("utf-8")
    for layer in LAYERS[:-1]:
        assert f"leaderboard/{layer}/" in text, layer
    for path in modules():
        if path.name != "__init__.py" and path.parent.name != "tabs":
            assert re.search(rf"\b{path.stem}\b", text), f"ARCHITECTURE.md does not name {path.relative_to(ROOT)}"


# ---------------------------------------------------------------------------------------------------------
# figbench: the library core under the commands

CORE_FOLDER = ROOT / "figbench"
#: what the library core never imports: the commands (``figbench.cli``, ``figbench.commands``, an area's
#: ``cli``), the baselines and the leaderboard
ABOVE_CORE = ("figbench.cli", "figbench.commands", "figbench_baselines", "figbench_leaderboard")


#: folders of ``figbench/`` above the core with the commands: the harness integrations build their questions
#: from the baselines (the cdec pairs of the Lemma Heuristic)
ABOVE_CORE_FOLDERS = ("commands", "harnesses")


def is_command(path: Path) -> bool:
    rel = path.relative_to(CORE_FOLDER)
    return rel.parts[0] in ABOVE_CORE_FOLDERS or path.name == "cli.py"


def core_violations(source: str, module: str, *, is_package: bool = False) -> list[str]:
    """Every import of a core module's source that points to a command, a baseline or the leaderboard."""
    found = []
    for line, target in imports(source, module, is_package=is_package):
        if any(target == up or target.startswith(up + ".") for up in ABOVE_CORE) or target.endswith(".cli"):
            found.append(f"{module}:{line} imports {target}")
    return found


def core_modules() -> list[Path]:
    return sorted(p for p in CORE_FOLDER.rglob("*.py") if "__pycache__" not in p.parts and not is_command(p))


@pytest.mark.parametrize("path", core_modules(), ids=lambda p: str(p.relative_to(CORE_FOLDER)))
def test_the_figbench_core_imports_no_command(path):
    rel = path.relative_to(ROOT).with_suffix("")
    module = ".".join(rel.parts[:-1] if path.name == "__init__.py" else rel.parts)
    assert core_violations(path.read_text("utf-8"), module, is_package=path.name == "__init__.py") == []


@pytest.mark.parametrize("source, expected", [
    ("from figbench.commands.data import DATA_DIR_HELP", "figbench.commands.data"),
    ("def f():\n    import figbench_leaderboard.client", "figbench_leaderboard.client"),
    ("from figbench_baselines.cdec import specs", "figbench_baselines.cdec"),
    ("from ..generate import cli", "figbench.generate.cli"),
    ("from figbench.loading import load_dataset", None),
])
def test_the_core_check_finds_command_imports(source, expected):
    found = core_violations(source, "figbench.harvest.driver")
    assert (expected in found[0]) if expected else found == [], found


def test_the_figbench_top_level_is_core_and_one_entry_point():
    commands = {p.stem for p in (CORE_FOLDER / "commands").glob("*.py")} - {"__init__"}
    assert not commands & {p.stem for p in CORE_FOLDER.glob("*.py")}
    assert {"cli", "data", "metrics", "score", "quickstart", "docs"} <= commands | {"cli"}
    text = (ROOT / "ARCHITECTURE.md").read_text("utf-8")
    assert "figbench/commands/" in text


# ---------------------------------------------------------------------------------------------------------
# figbench_baselines.cdec: shared steps under the models, under the command, under the specs

CDEC_PACKAGE, CDEC_FOLDER = "figbench_baselines.cdec", ROOT / "baselines" / "cdec"
#: bottom to top, as LAYERS: the folders steps/, models/, specs/ and the modules at the top of cdec/
CDEC_LAYERS = ("steps", "models", "command", "specs", "reproduce")
CDEC_FOLDERS = frozenset({"steps", "models", "specs"})
#: the modules at the top of ``baselines/cdec/``: ``figbench baseline cdec`` (cli, its pipeline, its --train-only),
#: compare's command, and reproduce (which runs the specs)
CDEC_TOP = {"cli": "command", "pipeline": "command", "training": "command", "compare": "command",
            "reproduce": "reproduce", "__init__": "reproduce"}


def cdec_layer_of(module: str) -> str:
    """The layer of a dotted ``figbench_baselines.cdec`` module (``...cdec.models.biencoder`` -> models)."""
    parts = module.split(".")
    if parts[:2] != CDEC_PACKAGE.split("."):
        raise ValueError(f"{module}: not a {CDEC_PACKAGE} module")
    first = parts[2] if len(parts) > 2 else "__init__"
    if first in CDEC_FOLDERS:
        return first
    if first in CDEC_TOP:
        return CDEC_TOP[first]
    raise ValueError(f"{module}: in no layer (a new top-level module goes into CDEC_TOP, or move it into one of "
                     f"{', '.join(sorted(CDEC_FOLDERS))})")


def cdec_violations(source: str, module: str, *, is_package: bool = False) -> list[str]:
    """Every import of a cdec module's source that points to a higher cdec layer."""
    mine = CDEC_LAYERS.index(cdec_layer_of(module))
    found = []
    for line, target in imports(source, module, is_package=is_package):
        if target == CDEC_PACKAGE or target.startswith(CDEC_PACKAGE + "."):
            theirs = cdec_layer_of(target)
            if CDEC_LAYERS.index(theirs) > mine:
                found.append(f"{module}:{line} ({CDEC_LAYERS[mine]}) imports {target} ({theirs})")
    return found


def cdec_module_name(path: Path) -> str:
    rel = path.relative_to(CDEC_FOLDER).with_suffix("")
    parts = rel.parts[:-1] if path.name == "__init__.py" else rel.parts
    return ".".join((CDEC_PACKAGE, *parts))


def cdec_modules() -> list[Path]:
    return sorted(p for p in CDEC_FOLDER.rglob("*.py") if "__pycache__" not in p.parts)


def test_every_cdec_module_is_in_a_layer():
    for path in cdec_modules():
        cdec_layer_of(cdec_module_name(path))
    assert {p.name for p in CDEC_FOLDER.iterdir() if (p / "__init__.py").is_file()} == CDEC_FOLDERS


@pytest.mark.parametrize("path", cdec_modules(), ids=lambda p: str(p.relative_to(CDEC_FOLDER)))
def test_cdec_imports_point_down(path):
    module = cdec_module_name(path)
    assert cdec_violations(path.read_text("utf-8"), module, is_package=path.name == "__init__.py") == []


@pytest.mark.parametrize("source, module, expected", [
    ("def f():\n    from figbench_baselines.cdec.pipeline import training_rows",
     "figbench_baselines.cdec.models.biencoder", "(command)"),
    ("from figbench_baselines.cdec.cli import DEFAULT_WITHIN", "figbench_baselines.cdec.steps.filters", "(command)"),
    ("from figbench_baselines.cdec.models import biencoder", "figbench_baselines.cdec.steps.oracle", "(models)"),
    ("from ..specs import tables", "figbench_baselines.cdec.steps.compare", "(specs)"),
    ("import figbench_baselines.cdec.reproduce", "figbench_baselines.cdec.specs.trained", "(reproduce)"),
    ("from figbench_baselines.cdec.specs.trained import MODELS", "figbench_baselines.cdec.pipeline", "(specs)"),
    ("from figbench_baselines.cdec.steps.data import training_rows", "figbench_baselines.cdec.models.biencoder", None),
    ("from figbench_baselines.cdec.cli import build_parser", "figbench_baselines.cdec.specs.protocol", None),
    ("from . import data", "figbench_baselines.cdec.steps.filters", None),
    ("from figbench_baselines.cdec.specs.trained import MODELS", "figbench_baselines.cdec.reproduce", None),
])
def test_the_cdec_check_finds_upward_imports(source, module, expected):
    found = cdec_violations(source, module)
    assert (expected in found[0]) if expected else found == [], found


def test_architecture_md_draws_cdec():
    text = (ROOT / "ARCHITECTURE.md").read_text("utf-8")
    for folder in CDEC_FOLDERS:
        assert f"cdec/{folder}/" in text, folder
    for path in cdec_modules():
        if path.name != "__init__.py":
            assert re.search(rf"\b{path.stem}\b", text), f"ARCHITECTURE.md does not name {path.relative_to(ROOT)}"
