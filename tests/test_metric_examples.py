"""The ``>>>`` examples of every metric card and metric module run and give what they show.

As ``evaluate`` does for its own modules: each card (``metrics/<name>/README.md``) and each module
(``metrics/<name>/<name>.py``) is parsed for doctest examples, which run in a fresh namespace (an
example imports what it uses).
"""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

from figbench.paths import METRICS, metric_path

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _files():
    for name in METRICS:
        folder = Path(metric_path(name))
        yield pytest.param(folder / "README.md", id=f"{name}-card")
        yield pytest.param(folder / f"{name}.py", id=f"{name}-module")


def _texts(path: Path) -> list[str]:
    """A card is one text; a module contributes every string constant and docstring holding an example."""
    if path.suffix == ".md":  # code fences end an example's expected output, as a blank line does
        lines = path.read_text(encoding="utf-8").splitlines()
        return ["\n".join("" if line.strip().startswith("```") else line for line in lines)]
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"metric_examples_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    texts = [v for v in vars(module).values() if isinstance(v, str) and ">>>" in v]
    # the class docstring repeats the module's argument text (evaluate's add_start_docstrings)
    return texts or [v.__doc__ for v in vars(module).values() if isinstance(v, type) and ">>>" in (v.__doc__ or "")]


@pytest.mark.parametrize("path", list(_files()))
def test_examples_run(path, monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_MODULES_CACHE", str(tmp_path / "modules"))
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    n = 0
    for i, text in enumerate(_texts(path)):
        test = doctest.DocTestParser().get_doctest(text, {}, f"{path.name}[{i}]", str(path), 0)
        n += len(test.examples)
        runner.run(test)
    assert n, f"{path} has no >>> example"
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of {path} failed (see the output above)"
