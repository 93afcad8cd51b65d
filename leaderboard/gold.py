"""Gold labels of the benchmarks, kept on the server side only.

A *gold provider* returns a :class:`Gold` for a benchmark. The default,
:class:`BuilderGoldProvider`, reads figbench's ``datasets`` builders (``FIGBENCH_DATA_DIR``);
:class:`JsonGoldProvider` reads a local JSON file of the same shape (used for small synthetic
boards and tests). Both cache per benchmark in memory. Nothing here is ever sent to a client.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from figbench_leaderboard.benchmarks import Benchmark


class GoldUnavailableError(ValueError):
    """The server has no gold labels for a benchmark (corpus files missing, or not configured)."""


@dataclass
class Gold:
    """Gold labels of one benchmark split, normalised per task.

    ``ids`` are the ids a submission must cover (mention ids for coreference, example ids
    otherwise). Exactly one of the task fields is set.
    """

    key: str
    task: str
    ids: tuple[str, ...]
    clusters: list[list[str]] | None = None          # cdec: one cross-document document
    tags: dict[str, list[str]] | None = None          # metaphor_detection: BIO tags per id
    labels: dict[str, str] | None = None              # metaphor_nli, metonymy, proverb_prediction
    label_set: tuple[str, ...] = ()
    spans: dict[str, dict[str, Any]] | None = None    # proverb_alignment: {"passage", "answer", "start", "end"}
    groups: dict[str, dict[str, str]] | None = None   # metaphor_nli: {"metaphor_status"|"language": {id: value}}
    id_set: frozenset[str] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.id_set = frozenset(self.ids)
        if len(self.id_set) != len(self.ids):
            raise ValueError(f"gold for {self.key}: duplicate ids")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"task": self.task, "ids": list(self.ids)}
        for name in ("clusters", "tags", "labels", "spans", "groups"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        if self.label_set:
            out["label_set"] = list(self.label_set)
        return out


def gold_from_json(key: str, task: str, obj: Mapping[str, Any]) -> Gold:
    """Build :class:`Gold` from the JSON shape of :meth:`Gold.to_json` (ids derived when absent)."""
    if not isinstance(obj, Mapping):
        raise ValueError(f"gold for {key}: expected an object")
    if task == "cdec":
        clusters = [[str(m) for m in c] for c in obj["clusters"]]
        ids = tuple(m for c in clusters for m in c)
        return Gold(key, task, ids, clusters=clusters)
    if task == "metaphor_detection":
        tags = {str(k): [str(t) for t in v] for k, v in obj["tags"].items()}
        return Gold(key, task, tuple(tags), tags=tags)
    if task in ("metaphor_nli", "metonymy", "proverb_prediction"):
        labels = {str(k): str(v) for k, v in obj["labels"].items()}
        label_set = tuple(str(x) for x in obj.get("label_set") or sorted(set(labels.values())))
        groups = {str(f): {str(k): str(v) for k, v in m.items()} for f, m in (obj.get("groups") or {}).items()}
        return Gold(key, task, tuple(labels), labels=labels, label_set=label_set, groups=groups or None)
    if task == "proverb_alignment":
        spans = {str(k): dict(v) for k, v in obj["spans"].items()}
        return Gold(key, task, tuple(spans), spans=spans)
    raise ValueError(f"gold for {key}: task {task!r} is not scored by the leaderboard")


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
    """Gold from a local JSON file ``{benchmark key: gold object}`` (see :meth:`Gold.to_json`)."""

    def __init__(self, path: str | os.PathLike) -> None:
        super().__init__()
        self.path = Path(path)
        try:
            self._data = json.loads(self.path.read_text("utf-8"))
        except (OSError, json.JSONDecodeError) as e:
            raise ValueError(f"{self.path}: cannot read gold labels: {e}") from None
        if not isinstance(self._data, Mapping):
            raise ValueError(f"{self.path}: expected an object of benchmark key -> gold")

    def _load(self, benchmark: Benchmark) -> Gold:
        if benchmark.key not in self._data:
            raise GoldUnavailableError(f"no gold labels for {benchmark.key} in {self.path}")
        try:
            return gold_from_json(benchmark.key, benchmark.task, self._data[benchmark.key])
        except (KeyError, TypeError, AttributeError) as e:
            raise ValueError(f"{self.path}: gold for {benchmark.key} is malformed: {e!r}") from None


def _column(row: Mapping, names: Iterable[str], key: str) -> tuple[str, Any]:
    for name in names:
        if name in row:
            return name, row[name]
    raise ValueError(f"gold for {key}: rows have none of the columns {list(names)}; got {sorted(row)}")


def _label_names(dataset, column: str) -> list[str] | None:
    feat = dataset.features.get(column)
    inner = getattr(feat, "feature", feat)
    return list(inner.names) if hasattr(inner, "names") else None


def gold_from_dataset(benchmark: Benchmark, dataset) -> Gold:
    """Normalise a builder's split (a ``datasets.Dataset``) into :class:`Gold`."""
    key, task = benchmark.key, benchmark.task
    if len(dataset) == 0:
        raise GoldUnavailableError(f"gold for {key}: the split is empty")
    first = dataset[0]
    if task == "cdec":
        from figbench.schema import gold_clusters

        rows = dataset.select_columns(["mention_id", "cluster_id"]).to_list()
        return gold_for_clusters(key, gold_clusters(rows)[0])
    if task == "proverb_alignment":
        ids = []
    else:
        id_col, _ = _column(first, ("id", "example_id"), key)
        ids = [str(x) for x in dataset[id_col]]
    if task == "metaphor_detection":
        tag_col, _ = _column(first, ("tags", "ner_tags", "labels"), key)
        names = _label_names(dataset, tag_col)
        tags = {i: [names[t] if names else str(t) for t in seq] for i, seq in zip(ids, dataset[tag_col], strict=True)}
        return Gold(key, task, tuple(ids), tags=tags)
    if task in ("metaphor_nli", "metonymy", "proverb_prediction"):
        candidates = {
            "metaphor_nli": ("label", "gold_label"),
            "metonymy": ("medium", "medium_label", "label"),
            "proverb_prediction": ("proverb_id", "label", "proverb_label"),
        }[task]
        col, _ = _column(first, candidates, key)
        names = _label_names(dataset, col)
        labels = {i: (names[v] if names and isinstance(v, int) else str(v)) for i, v in zip(ids, dataset[col], strict=True)}
        label_set = tuple(names) if names else tuple(sorted(set(labels.values())))
        groups = None
        if task == "metaphor_nli" and {"metaphor_status", "language"} <= set(first):
            groups = {f: dict(zip(ids, (str(v) for v in dataset[f]), strict=True)) for f in ("metaphor_status", "language")}
        return Gold(key, task, tuple(ids), labels=labels, label_set=label_set, groups=groups)
    if task == "proverb_alignment":
        # one example per aligned (proverb span, narrative span) pair, keyed by pair_id; pairs whose
        # spans the builder could not find in their text are left out, as the baselines do
        spans = {}
        for narrative, proverb, pairs in zip(dataset["narrative"], dataset["proverb"], dataset["pairs"], strict=True):
            for pair in pairs:
                pid = str(pair["pair_id"])
                if pid in spans:
                    raise ValueError(f"gold for {key}: duplicate pair id {pid!r}")
                start, end = int(pair["narrative_start"]), int(pair["narrative_end"])
                if pair.get("narrative_match") == "none" or pair.get("proverb_match") == "none" \
                        or not 0 <= start < end <= len(narrative):
                    continue
                spans[pid] = {"passage": narrative, "proverb": proverb, "proverb_span": pair["proverb_span"],
                              "answer": pair["narrative_span"], "start": start, "end": end}
        return Gold(key, task, tuple(spans), spans=spans)
    raise ValueError(f"gold for {key}: task {task!r} is not scored by the leaderboard")


def gold_for_clusters(key: str, clusters: list[list[str]]) -> Gold:
    ids = tuple(m for c in clusters for m in c)
    return Gold(key, "cdec", ids, clusters=[list(c) for c in clusters])


class BuilderGoldProvider(_CachingProvider):
    """Gold read through ``figbench.load_dataset`` (the default; corpora from ``FIGBENCH_DATA_DIR``)."""

    def __init__(self, data_dir: str | os.PathLike | None = None) -> None:
        super().__init__()
        self.data_dir = Path(data_dir) if data_dir else None

    def _load(self, benchmark: Benchmark) -> Gold:
        import figbench

        data_dir = str(self.data_dir / benchmark.dataset) if self.data_dir else None
        try:
            ds = figbench.load_dataset(benchmark.dataset, benchmark.config, split=benchmark.split, data_dir=data_dir)
        except (FileNotFoundError, ValueError, KeyError) as e:
            raise GoldUnavailableError(
                f"gold labels for {benchmark.key} are not available on this server: {e}") from None
        except Exception as e:  # builders raise many kinds of errors (missing config, builder not written)
            raise GoldUnavailableError(
                f"gold labels for {benchmark.key} could not be loaded: {type(e).__name__}: {e}") from None
        return gold_from_dataset(benchmark, ds)
