"""The base class of figbench's ``datasets`` builders (the builder kit's other half, with :mod:`.files`).

Naming rule: the builder of corpus ``<name>`` is the class ``snakecase_to_camelcase(<name>)`` in
``datasets/<name>/<name>.py`` (``wec_eng`` -> ``WecEng``), so ``datasets`` derives the dataset name
back from the class and :func:`figbench.loading.builder_class` finds it without scanning.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

import datasets
from figbench.corpora.files import RemoteFile, resolve
from figbench.paths import corpus_dir


class FigbenchBuilder(datasets.GeneratorBasedBuilder):
    """A corpus builder that reads its original files from the corpus folder.

    ``source_dir`` (constructor keyword, not a config field, so it does not change the cache's
    config id) or the config's ``data_dir`` name the corpus folder; else ``<data root>/<CORPUS>``.
    """

    CORPUS: ClassVar[str] = ""

    def __init__(self, *args, source_dir: str | None = None, **kwargs) -> None:
        self.source_dir = source_dir
        super().__init__(*args, **kwargs)

    def explicit_dir(self) -> str | None:
        """The corpus folder named by the caller (``source_dir`` or ``data_dir``), if any."""
        return self.source_dir or self.config.data_dir

    def corpus_root(self) -> Path:
        return corpus_dir(self.CORPUS, self.explicit_dir())

    def resolve(self, files: Sequence[RemoteFile], *, hint: str = "") -> dict[str, Path]:
        """Paths of ``files`` in the corpus folder (downloaded when missing and allowed); see :func:`resolve`."""
        return resolve(self.CORPUS, self.corpus_root(), files, data_dir=self.explicit_dir(), hint=hint)
