"""Typed gold, one class per kind of task. Gold stays on the scoring side: it is never sent to submitters.

Each class has ``to_json`` / ``from_json`` (the shape of a small gold file for synthetic boards and
tests); :meth:`figbench.tasks.base.Task.gold_from_dataset` builds them from a ``datasets`` split.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from figbench.tasks.base import Gold


def _str_map(obj: Any, what: str, key: str) -> dict[str, str]:
    if not isinstance(obj, Mapping):
        raise ValueError(f"gold for {key}: {what} must be an object of id -> value")
    return {str(k): str(v) for k, v in obj.items()}


@dataclass(frozen=True)
class ClusterGold(Gold):
    """Coreference: the split as one cross-document document; ``groups``: mention id -> resampling unit."""

    clusters: tuple[tuple[str, ...], ...] = ()
    groups: Mapping[str, str] | None = None

    @classmethod
    def build(cls, key: str, clusters, groups: Mapping[str, str] | None = None) -> ClusterGold:
        clusters = tuple(tuple(str(m) for m in c) for c in clusters)
        return cls(key, tuple(m for c in clusters for m in c), clusters, dict(groups) if groups else None)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"clusters": [list(c) for c in self.clusters]}
        if self.groups:
            out["groups"] = dict(self.groups)
        return out

    @classmethod
    def from_json(cls, obj: Mapping[str, Any], key: str) -> ClusterGold:
        groups = _str_map(obj["groups"], "groups", key) if obj.get("groups") else None
        return cls.build(key, obj["clusters"], groups)


@dataclass(frozen=True)
class TagGold(Gold):
    """Token tagging: the tags of every example, and the declared tag set."""

    tags: Mapping[str, tuple[str, ...]] | None = None
    tag_set: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"tags": {k: list(v) for k, v in self.tags.items()}, "tag_set": list(self.tag_set)}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any], key: str) -> TagGold:
        tags = {str(k): tuple(str(t) for t in v) for k, v in obj["tags"].items()}
        tag_set = tuple(obj.get("tag_set") or sorted({t for v in tags.values() for t in v}))
        return cls(key, tuple(tags), tags, tag_set)


@dataclass(frozen=True)
class LabelGold(Gold):
    """Single-label classification; ``groups``: column -> id -> value (per-group accuracy)."""

    labels: Mapping[str, str] | None = None
    label_set: tuple[str, ...] = ()
    groups: Mapping[str, Mapping[str, str]] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"labels": dict(self.labels), "label_set": list(self.label_set)}
        if self.groups:
            out["groups"] = {c: dict(m) for c, m in self.groups.items()}
        return out

    @classmethod
    def from_json(cls, obj: Mapping[str, Any], key: str) -> LabelGold:
        labels = _str_map(obj["labels"], "labels", key)
        label_set = tuple(str(x) for x in obj.get("label_set") or sorted(set(labels.values())))
        groups = {str(c): _str_map(m, f"groups.{c}", key) for c, m in (obj.get("groups") or {}).items()}
        return cls(key, tuple(labels), labels, label_set, groups or None)


@dataclass(frozen=True)
class RankingGold(Gold):
    """Ranking: the correct candidate id of every example."""

    labels: Mapping[str, str] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"labels": dict(self.labels)}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any], key: str) -> RankingGold:
        labels = _str_map(obj["labels"], "labels", key)
        return cls(key, tuple(labels), labels)


@dataclass(frozen=True)
class SpanGold(Gold):
    """Span alignment: per id the passage, the gold span text and its character offsets."""

    spans: Mapping[str, Mapping[str, Any]] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"spans": {k: dict(v) for k, v in self.spans.items()}}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any], key: str) -> SpanGold:
        spans = {str(k): dict(v) for k, v in obj["spans"].items()}
        for k, v in spans.items():
            if not isinstance(v.get("passage"), str) or not isinstance(v.get("answer"), str):
                raise ValueError(f"gold for {key}: span {k!r} needs text fields 'passage' and 'answer'")
        return cls(key, tuple(spans), spans)


@dataclass(frozen=True)
class TextGold(Gold):
    """Generation: the reference text of every example."""

    references: Mapping[str, str] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"references": dict(self.references)}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any], key: str) -> TextGold:
        refs = _str_map(obj["references"], "references", key)
        return cls(key, tuple(refs), refs)
