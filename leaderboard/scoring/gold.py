"""Gold providers: where the server reads the gold of a benchmark. Gold never leaves the server.

A provider's ``get(benchmark)`` returns the task's typed gold (:class:`figbench.tasks.Gold`, e.g.
``LabelGold``), built by the task itself: :class:`BuilderGoldProvider` loads the split with
``figbench.load_dataset`` (or a given loader) and calls ``task.gold_from_dataset``;
:class:`JsonGoldProvider` reads ``{benchmark key: gold object}`` (a file or a mapping) and calls
``task.gold_from_json``. Both cache per benchmark. Error messages name files relative to their root.

Hidden benchmarks (``Benchmark.gold == "hidden"``) are read from the server's private store
(:class:`PrivateGoldStore`, ``$FIGBENCH_PRIVATE_DIR``), which also declares them; :class:`ServerGold`
routes each benchmark to the store that holds its gold.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

from figbench_leaderboard.access.redact import redact

from figbench.tasks import Benchmark, Gold, get_task

__all__ = ["PRIVATE_ENV", "BuilderGoldProvider", "Gold", "GoldProvider", "GoldUnavailableError", "JsonGoldProvider",
           "PrivateGoldStore", "ServerGold", "private_store",
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

    def __getstate__(self) -> dict:
        """Pickled without its lock and cache (the parse worker gets a copy that loads its own gold)."""
        return {k: v for k, v in self.__dict__.items() if k not in ("_lock", "_cache")}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state, _cache={}, _lock=threading.Lock())

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


# --- hidden benchmarks: the server's private store ------------------------------------------------

PRIVATE_ENV = "FIGBENCH_PRIVATE_DIR"
_BENCH_FILE, _GOLD_FILE = "benchmark.json", "gold.json"


def _slug(key: str) -> str:
    import re

    return re.sub(r"[^A-Za-z0-9._-]+", "_", key.replace("/", "__"))


class PrivateGoldStore(_CachingProvider):
    """Hidden benchmarks held by the server: a server-side folder (``$FIGBENCH_PRIVATE_DIR``; a private
    Hub dataset repo checked out there works the same) with one folder per benchmark holding
    ``benchmark.json`` (task, dataset, config, split, label, group, note) and ``gold.json`` (the task's
    gold, ``Gold.to_json``). Nothing here is packaged, copied into a Space folder or exported: the
    submitters get the benchmark's inputs only (:meth:`add_split` writes them separately).
    """

    def __init__(self, root: str | os.PathLike) -> None:
        super().__init__()
        self.root = Path(root).expanduser()

    def _redact(self, text: str) -> str:
        return redact(text, (self.root, "<private>"))

    def benchmarks(self) -> list[Benchmark]:
        """The hidden benchmarks in the store (a malformed one raises, naming its file)."""
        from figbench.tasks import HIDDEN, Benchmark

        out = []
        if not self.root.is_dir():
            return out
        for folder in sorted(p for p in self.root.iterdir() if (p / _BENCH_FILE).is_file()):
            name = f"{folder.name}/{_BENCH_FILE}"
            try:
                decl = json.loads((folder / _BENCH_FILE).read_text("utf-8"))
                fields = {k: str(decl[k]) for k in ("task", "dataset", "config", "split", "label")}
                share = decl.get("derivable")
                bench = Benchmark(**fields, group=str(decl.get("group") or ""), gold=HIDDEN,
                                  note=str(decl.get("note") or ""),
                                  derivable=float(share) if isinstance(share, (int, float)) else None)
            except (OSError, ValueError, KeyError, TypeError) as e:
                raise ValueError(f"private store: {name}: not a hidden benchmark declaration: {e!r}") from None
            get_task(bench.task)
            out.append(bench)
        return out

    def register(self) -> list[Benchmark]:
        """Register the store's hidden benchmarks (``figbench.tasks.register_benchmark``) so that the board,
        the policy and the release rules know them; returns them."""
        from figbench.tasks import register_benchmark

        found = self.benchmarks()
        for b in found:
            register_benchmark(b, replace=True)
        return found

    def _check_outside_packages(self) -> None:
        """A private store inside an installed figbench package would ship in the wheel (``*.json`` is
        package data): refuse it."""
        import importlib

        root = self.root.resolve()
        for name in ("figbench", "figbench_datasets", "figbench_metrics", "figbench_baselines", "figbench_leaderboard"):
            try:
                pkg = Path(importlib.import_module(name).__file__).resolve().parent
            except (ImportError, TypeError):
                continue
            if root == pkg or pkg in root.parents:
                raise ValueError(f"the private store must not be inside the {name} package (its JSON files would "
                                 "ship in the wheel); put it outside the checkout")

    def add(self, benchmark: Benchmark, gold: Gold) -> Path:
        """Write a hidden benchmark's declaration and gold into the store (files readable by the owner only)."""
        from dataclasses import replace

        from figbench.tasks import HIDDEN, find_benchmark

        benchmark = replace(benchmark, gold=HIDDEN)
        self._check_outside_packages()
        existing = find_benchmark(benchmark.key)
        if existing is not None and not existing.hidden:
            raise ValueError(f"{benchmark.key} is a public benchmark (its gold is released with the corpus); a "
                             "hidden benchmark needs a split of its own (e.g. a never-released config or split)")
        folder = self.root / _slug(benchmark.key)
        folder.mkdir(parents=True, exist_ok=True)
        os.chmod(self.root, 0o700)
        decl = {"task": benchmark.task, "dataset": benchmark.dataset, "config": benchmark.config,
                "split": benchmark.split, "label": benchmark.label, "group": benchmark.group,
                "note": benchmark.note, "gold": HIDDEN, "derivable": benchmark.derivable}
        for name, obj in ((_BENCH_FILE, decl), (_GOLD_FILE, gold.to_json())):
            tmp = folder / f".{name}.tmp"
            tmp.write_text(json.dumps(obj, ensure_ascii=False, sort_keys=True), "utf-8")
            os.chmod(tmp, 0o600)
            os.replace(tmp, folder / name)
        with self._lock:
            self._cache.pop(benchmark.key, None)
        return folder

    def add_split(self, benchmark: Benchmark, dataset) -> tuple[Path, Any]:
        """A hidden benchmark from a ``datasets.Dataset`` with gold columns (e.g. a never-released split):
        its gold goes into the store; returns the folder and the inputs-only dataset to give submitters."""
        task = get_task(benchmark.task)
        gold = task.gold_from_dataset(dataset, benchmark.key)
        return self.add(benchmark, gold), task.inputs_only(dataset)

    def _load(self, benchmark: Benchmark) -> Gold:
        path = self.root / _slug(benchmark.key) / _GOLD_FILE
        try:
            obj = json.loads(path.read_text("utf-8"))
        except FileNotFoundError:
            raise GoldUnavailableError(f"no gold for the hidden benchmark {benchmark.key} in the private store"
                                       ) from None
        except (OSError, json.JSONDecodeError) as e:
            raise GoldUnavailableError(self._redact(f"{path}: cannot read the hidden gold: {e}")) from None
        try:
            return get_task(benchmark.task).gold_from_json(obj, benchmark.key)
        except (KeyError, TypeError, AttributeError, ValueError) as e:
            raise GoldUnavailableError(f"{_slug(benchmark.key)}/{_GOLD_FILE}: gold for {benchmark.key} is "
                                       f"malformed: {e!r}") from None


class ServerGold:
    """The gold a server scores with: hidden benchmarks from its private store, public ones from ``public``
    (the corpora through their builders, or a JSON file)."""

    def __init__(self, public: GoldProvider, private: PrivateGoldStore | None = None) -> None:
        self.public = public
        self.private = private
        self.data_dir = getattr(public, "data_dir", None)

    def get(self, benchmark: Benchmark) -> Gold:
        if benchmark.hidden:
            if self.private is None:
                raise GoldUnavailableError(f"{benchmark.key} is a hidden benchmark and this server has no private "
                                           f"store (set {PRIVATE_ENV})")
            return self.private.get(benchmark)
        return self.public.get(benchmark)


def private_store(path: str | os.PathLike | None = None) -> PrivateGoldStore | None:
    """The server's private store (``path``, else ``$FIGBENCH_PRIVATE_DIR``) with its hidden benchmarks
    registered, or ``None`` when none is configured."""
    path = path or os.environ.get(PRIVATE_ENV)
    if not path:
        return None
    store = PrivateGoldStore(path)
    store.register()
    return store
