"""spaCy without thinc's torch import: figbench's spaCy pipelines run on numpy.

figbench uses spaCy for blank tokenizers, lookup lemmatizers, stop lists and the small CNN NER models, none of which
runs on torch. thinc (spaCy's ML layer) imports torch whenever it is installed, which is most of ``import spacy``'s
time in a fresh process (2-3 s of 3.5-5 on a 2-core machine): a harvest's CLI and each of its Dask workers,
``figbench data prepare``, a dataset loaded by bare name. :func:`spacy` imports spaCy with torch hidden while no
torch is loaded yet (thinc then leaves its torch shims off, used only by transformer pipelines, which figbench
does not use); in a process that already loaded torch, spaCy is imported as usual. Import spaCy through it.
"""

from __future__ import annotations

import sys
import threading
from types import ModuleType

_LOCK = threading.Lock()


def spacy() -> ModuleType:
    """The ``spacy`` module, imported (the first time) without importing torch when torch is not loaded yet."""
    if "spacy" in sys.modules:
        return sys.modules["spacy"]
    with _LOCK:
        hide = "torch" not in sys.modules
        if hide:
            sys.modules["torch"] = None   # `import torch` raises ImportError: thinc.compat sets has_torch = False
        try:
            import spacy as module
        finally:
            if hide and sys.modules.get("torch", 0) is None:
                del sys.modules["torch"]
    return module
