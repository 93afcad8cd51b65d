"""Label ids to label names, through the ``ClassLabel`` a builder declares for a column.

Every corpus declares its label sets once (``figbench.corpora.<corpus>`` constants, used by the
builder's ``ClassLabel(names=...)``); code that reads a dataset decodes ids with
:func:`decode_labels` instead of repeating the names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np


def label_names(source: Any, column: str) -> tuple[str, ...] | None:
    """The names of a ``ClassLabel`` (or ``Sequence(ClassLabel)``) column; None for any other column.

    ``source`` is a ``Dataset``, ``IterableDataset``, ``DatasetDict`` (its first split) or ``Features``.
    """
    import datasets

    if isinstance(source, (datasets.DatasetDict, datasets.IterableDatasetDict)):
        if not source:
            raise ValueError(f"decode_labels: an empty DatasetDict has no column {column!r}")
        source = next(iter(source.values()))
    features = source if isinstance(source, Mapping) else getattr(source, "features", None)
    if features is None:
        raise ValueError(f"decode_labels: {type(source).__name__} has no features to read column {column!r} from")
    if column not in features:
        raise ValueError(f"decode_labels: no column {column!r}; columns: {', '.join(features)}")
    feature = features[column]
    inner = getattr(feature, "feature", feature)  # List / Sequence / LargeList of ClassLabel
    names = getattr(inner, "names", None)
    return tuple(names) if names is not None else None


def decode_labels(dataset_or_features: Any, column: str, values: Iterable[Any]) -> list[str]:
    """Names of label ``values`` of ``column``: ``ClassLabel`` ids become names, strings pass through.

    For a ``Sequence(ClassLabel)`` column (e.g. BIO tags) ``values`` is one row's sequence. An id
    outside the label set (including ``-1``, "no label") or a non-integer raises ValueError naming the
    column and the value. To decode row after row, use :func:`label_decoder` (names read once).
    """
    return label_decoder(dataset_or_features, column)(values)


def label_decoder(dataset_or_features: Any, column: str) -> Callable[[Iterable[Any]], list[str]]:
    """:func:`decode_labels` for ``column`` with its names read once: a ``Dataset``'s ``.features`` is a deep
    copy on every access, too slow to repeat for every row."""
    names = label_names(dataset_or_features, column)
    n_names = len(names) if names is not None else 0

    def decode(values: Iterable[Any]) -> list[str]:
        values = values if isinstance(values, list) else list(values)
        if names is not None and all(type(v) is int and 0 <= v < n_names for v in values):
            return [names[v] for v in values]  # the common case: valid Python int ids
        out: list[str] = []
        for value in values:
            if isinstance(value, str):
                out.append(value)
                continue
            if names is None:
                raise ValueError(f"decode_labels: column {column!r} has no label names (not a ClassLabel): "
                                 f"cannot decode {value!r}")
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
                raise ValueError(f"decode_labels: column {column!r}: {value!r} is not a label id")
            if not 0 <= int(value) < len(names):
                extra = " (-1 marks an example without a label)" if int(value) == -1 else ""
                raise ValueError(f"decode_labels: column {column!r}: unknown label id {int(value)}; "
                                 f"ids are 0..{len(names) - 1}{extra}")
            out.append(names[int(value)])
        return out

    return decode
