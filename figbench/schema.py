"""Shared concepts: mentions, clusters, documents, and the `datasets` features they are stored with.

Builders (``datasets/``), metrics (``metrics/``) and baselines (``baselines/``) all use these
definitions, so a coreference corpus loaded from any builder can be scored and clustered by the
same code.

Metric input convention: a *document* is a list of *clusters*; a cluster is a list of mention ids
(strings). For cross-document coreference the whole corpus (or split) is one document.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, fields

import datasets

Cluster = list[str]
Document = list[Cluster]

#: Mention classes of the coreference schema.
MENTION_CLASSES = ("event", "entity")

#: One row per mention, identical for ``ecbplus``, ``ecbmeta`` and ``wec_eng``.
#: Offsets are token indices, ``*_end`` exclusive; ``context`` is a token window of the document
#: (the whole document where the corpus provides it) with the mention at
#: ``context[context_start:context_end]``.
COREF_MENTION_FEATURES = datasets.Features(
    {
        "mention_id": datasets.Value("string"),
        "doc_id": datasets.Value("string"),
        "topic": datasets.Value("string"),
        "subtopic": datasets.Value("string"),
        "sentence_id": datasets.Value("int32"),
        "token_start": datasets.Value("int32"),
        "token_end": datasets.Value("int32"),
        "text": datasets.Value("string"),
        "head": datasets.Value("string"),
        "head_lemma": datasets.Value("string"),
        "pos": datasets.Value("string"),
        "mention_class": datasets.Value("string"),
        "mention_type": datasets.Value("string"),
        "cluster_id": datasets.Value("string"),
        "sentence": datasets.Sequence(datasets.Value("string")),
        "context": datasets.Sequence(datasets.Value("string")),
        "context_start": datasets.Value("int32"),
        "context_end": datasets.Value("int32"),
        "original_text": datasets.Value("string"),
    }
)

#: Full tokenised documents (the ``documents`` config of each coreference corpus).
COREF_DOCUMENT_FEATURES = datasets.Features(
    {
        "doc_id": datasets.Value("string"),
        "topic": datasets.Value("string"),
        "subtopic": datasets.Value("string"),
        "tokens": datasets.Sequence(datasets.Value("string")),
        "sentence_ids": datasets.Sequence(datasets.Value("int32")),
    }
)


@dataclass(frozen=True)
class Mention:
    """One coreference mention; field names and meaning follow :data:`COREF_MENTION_FEATURES`."""

    mention_id: str
    doc_id: str
    topic: str
    subtopic: str
    sentence_id: int
    token_start: int
    token_end: int
    text: str
    head: str
    head_lemma: str
    pos: str
    mention_class: str
    mention_type: str
    cluster_id: str
    sentence: tuple[str, ...] = ()
    context: tuple[str, ...] = ()
    context_start: int = 0
    context_end: int = 0
    original_text: str = ""

    @classmethod
    def from_row(cls, row: Mapping) -> Mention:
        """Build a mention from a dataset row (a dict with the schema's keys)."""
        names = {f.name for f in fields(cls)}
        missing = [n for n in names if n not in row and n not in _OPTIONAL]
        if missing:
            raise ValueError(f"mention row {row.get('mention_id', '?')!r} lacks fields {sorted(missing)}")
        values = {n: row[n] for n in names if n in row}
        for key in ("sentence", "context"):
            if key in values:
                values[key] = tuple(values[key])
        return cls(**values)

    def to_row(self) -> dict:
        row = asdict(self)
        row["sentence"] = list(self.sentence)
        row["context"] = list(self.context)
        return row


_OPTIONAL = {"sentence", "context", "context_start", "context_end", "original_text"}


def clusters_from_assignments(mention_ids: Iterable[str], cluster_ids: Iterable[str]) -> Document:
    """Group mention ids by their cluster id into one document (list of clusters), in first-seen order."""
    groups: dict[str, list[str]] = defaultdict(list)
    for mid, cid in zip(mention_ids, cluster_ids, strict=True):
        groups[str(cid)].append(str(mid))
    return list(groups.values())


def gold_clusters(rows: Iterable[Mapping], by: str | None = None) -> list[Document]:
    """Gold clusters of mention rows.

    With ``by=None`` the whole collection is one cross-document document; with ``by="topic"`` (or any
    row key) one document per distinct value, in first-seen order.
    """
    if by is None:
        rows = list(rows)
        return [clusters_from_assignments((r["mention_id"] for r in rows), (r["cluster_id"] for r in rows))]
    grouped: dict[str, list[Mapping]] = defaultdict(list)
    for r in rows:
        grouped[str(r[by])].append(r)
    return [gold_clusters(g)[0] for g in grouped.values()]


def assignments_from_clusters(doc: Sequence[Sequence[str]]) -> dict[str, int]:
    """Map every mention id of a document to the index of its cluster."""
    return {m: i for i, cluster in enumerate(doc) for m in cluster}
