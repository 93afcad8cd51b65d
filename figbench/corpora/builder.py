"""The base class of figbench's ``datasets`` builders (the builder kit's other half, with :mod:`.files`).

Naming rule: the builder of corpus ``<name>`` is the class ``snakecase_to_camelcase(<name>)`` in
``datasets/<name>/<name>.py`` (``wec_eng`` -> ``WecEng``), so ``datasets`` derives the dataset name
back from the class and :func:`figbench.loading.builder_class` finds it without scanning.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pyarrow as pa

import datasets
from figbench.corpora.files import RemoteFile, resolve
from figbench.paths import corpus_dir


def _plain(feature: Any) -> bool:
    """A ``Value`` or a list (``Sequence``/``List``) of plain features: Arrow converts such Python values itself."""
    if isinstance(feature, datasets.Value):
        return True
    if isinstance(feature, (datasets.Sequence, datasets.List, datasets.LargeList)):
        return _plain(feature.feature)
    return False


_ARROW_REFUSED = (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, TypeError)


def _row_name(row: Mapping[str, Any], i: int) -> str:
    key = next((row[k] for k in ("id", "mention_id", "doc_id") if row.get(k) is not None), None)
    return f"row {i}" + (f" ({key})" if key is not None else "")


def _column(name: str, values: list, feature: Any) -> pa.Array:
    """One column of rows, encoded as ``Features.encode_example`` encodes each value, as an Arrow array."""
    pa_type = datasets.features.features.get_nested_type(feature)
    if _plain(feature):
        try:  # Arrow's own conversion; it refuses (rather than alters) values encode_example would convert
            return pa.array(values, type=pa_type)
        except _ARROW_REFUSED:
            pass
    encode = datasets.features.features.encode_nested_example
    encoded = []
    for i, v in enumerate(values):
        try:
            encoded.append(encode(feature, v))
        except (ValueError, TypeError) as e:   # e.g. a class-label name that is not a label
            raise _BadValue(i, f"field {name!r}: {e}") from None
    try:
        return pa.array(encoded, type=pa_type)
    except _ARROW_REFUSED as e:
        for i, v in enumerate(encoded):   # name the first value that cannot be stored
            try:
                pa.array([v], type=pa_type)
            except _ARROW_REFUSED:
                raise _BadValue(i, f"field {name!r}: {values[i]!r} is not a {feature} ({e})") from None
        raise


class _BadValue(ValueError):
    def __init__(self, index: int, message: str) -> None:
        super().__init__(message)
        self.index = index


def rows_to_table(rows: Sequence[Mapping[str, Any]], features: datasets.Features, *, first_row: int = 0) -> pa.Table:
    """Rows (dicts keyed by the feature names) as one Arrow table of ``features``' schema.

    The values are those ``features.encode_example`` gives row by row (class-label names become ids,
    numbers and strings are converted alike, a missing key is null), computed a column at a time:
    plain columns (values, lists of values) are converted by Arrow directly. A key that is not a
    feature, or a value that cannot be stored, raises ``ValueError`` naming the row (its position,
    counted from ``first_row``, and id) and the field.
    """
    names = set(features)
    for i, row in enumerate(rows):
        extra = row.keys() - names
        if extra:
            raise ValueError(f"{_row_name(row, first_row + i)}: fields {sorted(extra)} are not in the dataset's "
                             "features")
    try:
        arrays = [_column(name, [row.get(name) for row in rows], feature) for name, feature in features.items()]
    except _BadValue as e:
        raise ValueError(f"{_row_name(rows[e.index], first_row + e.index)}, {e}") from None
    return pa.Table.from_arrays(arrays, schema=features.arrow_schema)


def rows_to_table_one_by_one(rows: Sequence[Mapping[str, Any]], features: datasets.Features) -> pa.Table:
    """The reference for :func:`rows_to_table`: ``datasets``' generator-builder path (``encode_example`` per
    row, written by its ``ArrowWriter``), read back as a table (tests and ``benchmarks/bench_prepare.py``)."""
    from datasets.arrow_writer import ArrowWriter

    stream = pa.BufferOutputStream()
    with ArrowWriter(features=features, stream=stream) as writer:
        for row in rows:
            writer.write(features.encode_example(row))
        writer.finalize()
    return pa.ipc.open_stream(stream.getvalue()).read_all()


class FigbenchBuilder(datasets.ArrowBasedBuilder):
    """A corpus builder that reads its original files from the corpus folder.

    ``source_dir`` (constructor keyword, not a config field, so it does not change the cache's
    config id) or the config's ``data_dir`` name the corpus folder; else ``<data root>/<CORPUS>``.
    Subclasses yield ``(key, row)`` from ``_generate_examples`` as for a generator builder; rows are
    written in Arrow batches of :attr:`BATCH_ROWS` (:func:`rows_to_table`), several times faster than
    ``datasets`` encoding them one by one.
    """

    CORPUS: ClassVar[str] = ""
    #: Rows per Arrow table handed to the writer.
    BATCH_ROWS: ClassVar[int] = 1000

    def _generate_examples(self, **gen_kwargs: Any) -> Iterator[tuple[str, dict]]:
        raise NotImplementedError

    def _generate_tables(self, **gen_kwargs: Any) -> Iterator[tuple[int, pa.Table]]:
        batch: list[dict] = []
        n = 0
        for _, row in self._generate_examples(**gen_kwargs):
            batch.append(row)
            if len(batch) >= self.BATCH_ROWS:
                yield n, rows_to_table(batch, self.info.features, first_row=n * self.BATCH_ROWS)
                n, batch = n + 1, []
        if batch:
            yield n, rows_to_table(batch, self.info.features, first_row=n * self.BATCH_ROWS)

    def __init__(self, *args, source_dir: str | None = None, **kwargs) -> None:
        self.source_dir = source_dir
        super().__init__(*args, **kwargs)

    def explicit_dir(self) -> str | None:
        """The corpus folder named by the caller (``source_dir`` or ``data_dir``), if any."""
        return self.source_dir or self.config.data_dir

    def corpus_root(self) -> Path:
        if self.source_dir:   # already resolved by figbench.load_dataset
            return Path(self.source_dir)
        return corpus_dir(self.CORPUS, self.config.data_dir)

    def resolve(self, files: Sequence[RemoteFile], *, hint: str = "") -> dict[str, Path]:
        """Paths of ``files`` in the corpus folder (downloaded when missing and allowed); see :func:`resolve`."""
        return resolve(self.CORPUS, self.corpus_root(), files, data_dir=self.explicit_dir(), hint=hint)
