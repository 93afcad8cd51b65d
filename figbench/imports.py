"""Third-party imports made cheaper, for what figbench uses of them: import spaCy and Gradio through here.

* :func:`spacy`: without thinc's torch import. figbench uses spaCy for blank tokenizers, lookup lemmatizers, stop
  lists and the small CNN NER models, none of which runs on torch; thinc (spaCy's ML layer) imports torch whenever
  it is installed, which is most of ``import spacy``'s time in a fresh process (2-3 s of 3.5-5 on a 2-core
  machine): a harvest's CLI and each of its Dask workers, ``figbench data prepare``, a dataset loaded by bare
  name. spaCy is imported with torch hidden while no torch is loaded yet (thinc then leaves its torch shims off,
  used only by transformer pipelines, which figbench does not use); a process that already loaded torch imports
  it as usual.
* :func:`gradio`: without Gradio rewriting its components' ``.pyi`` stubs. At import, Gradio's ``ComponentMeta``
  parses the source of every component class (and its ``.pyi`` beside it) to regenerate type stubs for editors,
  about 2 s of the 4-5 s ``import gradio`` takes (each ``leaderboard serve`` start, ``generate review``); Gradio
  skips that for a class whose source file it cannot find, which it is told here for its own component classes
  while it is imported. Nothing at run time reads the stubs.
"""

from __future__ import annotations

import sys
import threading
from importlib.abc import MetaPathFinder
from types import ModuleType

_LOCK = threading.Lock()


class _HiddenFrom(MetaPathFinder):
    """A finder that makes ``import <name>`` fail in one thread only (other threads import it as usual)."""

    def __init__(self, name: str):
        self.name, self.thread = name, threading.get_ident()

    def find_spec(self, fullname, path=None, target=None):
        if threading.get_ident() == self.thread and fullname.partition(".")[0] == self.name:
            raise ImportError(f"{fullname} is hidden by figbench.imports while spaCy is imported")
        return None


def spacy() -> ModuleType:
    """The ``spacy`` module, imported (the first time) without importing torch when torch is not loaded yet."""
    with _LOCK:   # a second thread waits for a whole module, never a half-imported one
        if "spacy" not in sys.modules and "torch" not in sys.modules:
            hidden = _HiddenFrom("torch")   # thinc.compat's `import torch` fails here: has_torch = False
            sys.meta_path.insert(0, hidden)
            try:
                import spacy as module
            finally:
                sys.meta_path.remove(hidden)
            return module
    import spacy as module

    return module


def gradio() -> ModuleType:
    """The ``gradio`` module, imported (the first time) without regenerating its components' ``.pyi`` stubs."""
    import inspect

    with _LOCK:
        if "gradio" not in sys.modules:
            getfile = inspect.getfile

            def no_component_source(obj):   # create_or_modify_pyi returns early on OSError ("not a file")
                if isinstance(obj, type) and type(obj).__module__ == "gradio.component_meta":
                    raise OSError("figbench.imports: no .pyi stubs rewritten at import")
                return getfile(obj)
            inspect.getfile = no_component_source
            try:
                import gradio as module
            finally:
                inspect.getfile = getfile
            return module
    import gradio as module

    return module
