"""Gold providers: where the server reads the gold of a benchmark. Gold never leaves the server.

A provider's ``get(benchmark)`` returns the task's typed gold (:class:`figbench.tasks.Gold`, e.g.
``LabelGold``), built by the task itself: :class:`BuilderGoldProvider` loads the split with
``figbench.load_dataset`` (or a given loader) and calls ``task.gold_from_dataset``;
:class:`JsonGoldProvider` reads ``{benchmark key: gold object}`` (a file or a mapping) and calls
``task.gold_from_json``. Both cache per benchmark. Error messages name files relative to their root.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

from figbench_leaderboard.redact import redact

from figbench.tasks import Benchmark, Gold, get_task

__all__ = ["BuilderGoldProvider", "Gold", "GoldProvider", "GoldUnavailableError", "JsonGoldProvider",
           "gold_from_json"]


class GoldUnavailableError(ValueError):
    """The server has no gold labels for a benchmark (corpus files missing, or not configured)."""


def gold_from_json(key: str, task: str, obj: Mapping[str, Any]) -> Gold:
    """The typed gold of ``task`` from its JSON shape (``Gold.to_json``)."""
    return get_task(task).gold_from_json(obj, key)


class GoldProvider(Protocol):
    def get(self, benchmark: Benchmark) -> Gold: ...


class _CachingProvider:
    def __init__(self) -> None:
        self._cache: dict[str, Gold] = {}
        self._lock = threading.Lock()

    def get(self, benchmark: Benchmark) -> Gold:
        with self._lock:
            gold = self._cache.get(benchmark.key)
            if gold is None:
                gold = self._load(benchmark)
                self._cache[benchmark.key] = gold
            return gold

    def _load(self, benchmark: Benchmark) -> Gold:  # pragma: no cover - abstract
        raise NotImplementedError


class JsonGoldProvider(_CachingProvider):
    """Gold from ``{benchmark key: gold object}``: a JSON file, or a mapping already in memory."""

    def __init__(self, source: str | os.PathLike | Mapping[str, Any]) -> None:
        super().__init__()
        if isinstance(source, Mapping):
            self.path, self.name, self._data = None, "gold mapping", dict(source)
            return
        self.path = Path(source)
        self.name = self.path.name
        try:
            self._data = json.loads(self.path.read_text("utf-8"))
        except OSError as e:
            raise ValueError(f"{self.name}: cannot read gold labels: {e.strerror}") from None
        except json.JSONDecodeError as e:
            raise ValueError(f"{self.name}: cannot read gold labels: not valid JSON ({e})") from None
        if not isinstance(self._data, Mapping):
            raise ValueError(f"{self.name}: expected an object of benchmark key -> gold")

    def _load(self, benchmark: Benchmark) -> Gold:
        if benchmark.key not in self._data:
            raise GoldUnavailableError(f"no gold labels for {benchmark.key} in {self.name}")
        try:
            return get_task(benchmark.task).gold_from_json(self._data[benchmark.key], benchmark.key)
        except (KeyError, TypeError, AttributeError, ValueError) as e:
            raise ValueError(f"{self.name}: gold for {benchmark.key} is malformed: {e!r}") from None


Loader = Callable[[Benchmark], Any]


class BuilderGoldProvider(_CachingProvider):
    """Gold through the task's ``gold_from_dataset`` on the split a loader returns.

    The default loader is ``figbench.load_dataset(dataset, config, split=split)`` with corpora under
    ``data_dir`` (default ``$FIGBENCH_DATA_DIR``); ``loader`` replaces it (e.g. an in-memory split).
    """

    def __init__(self, data_dir: str | os.PathLike | None = None, *, loader: Loader | None = None) -> None:
        super().__init__()
        self.data_dir = Path(data_dir) if data_dir else None
        self.loader = loader or self._load_builder

    def _load_builder(self, benchmark: Benchmark):
        import figbench

        data_dir = str(self.data_dir) if self.data_dir else None   # a data root or a search path of roots
        return figbench.load_dataset(benchmark.dataset, benchmark.config, split=benchmark.split, data_dir=data_dir)

    def _redact(self, text: str) -> str:
        return redact(text, (self.data_dir, "<data>"))

    def _load(self, benchmark: Benchmark) -> Gold:
        try:
            ds = self.loader(benchmark)
        except (FileNotFoundError, ValueError, KeyError) as e:
            raise GoldUnavailableError(f"gold labels for {benchmark.key} are not available on this server: "
                                       f"{self._redact(str(e))}") from None
        except Exception as e:  # builders raise many kinds of errors (missing config, builder not importable)
            raise GoldUnavailableError(f"gold labels for {benchmark.key} could not be loaded: "
                                       f"{type(e).__name__}: {self._redact(str(e))}") from None
        try:
            return get_task(benchmark.task).gold_from_dataset(ds, benchmark.key)
        except ValueError as e:
            raise GoldUnavailableError(self._redact(str(e))) from None
