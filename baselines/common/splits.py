"""The splits a baseline reads: one loading function, seeded subsets, and label names.

Every baseline loads corpora through :func:`load_splits` (tests replace it with in-memory splits).
A :class:`Rows` keeps a method's examples together with the split they come from, so that whatever
subset a run evaluates (``--max-test``, ``--part``, unusable records) the gold it is scored against is
read from exactly those rows of the split (:mod:`figbench_baselines.common.scoring`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any


def load_splits(dataset: str, config: str | None, data_dir: str | None = None, **options: Any):
    """Every split of ``dataset``/``config`` (a ``datasets.DatasetDict``) through the figbench builders."""
    from figbench import load_dataset

    return load_dataset(dataset, config, data_dir=data_dir, **options)


def load_split(dataset: str, config: str | None, split: str, data_dir: str | None = None, **options: Any):
    """One split; a split the config lacks is a clear error naming the splits it has."""
    splits = load_splits(dataset, config, data_dir, **options)
    if split not in splits:
        raise ValueError(f"{dataset}/{config} has no {split!r} split (splits: {sorted(splits)})")
    return splits[split]


def sample_indices(n_rows: int, n: int | None, seed: int) -> list[int]:
    """A seeded random subset of ``n`` of ``range(n_rows)``, in order (everything when ``n`` is None)."""
    if n is None or n >= n_rows:
        return list(range(n_rows))
    return sorted(random.Random(seed).sample(range(n_rows), n))


@dataclass(frozen=True)
class Rows(Sequence):
    """A method's examples (dicts) and, for each, the index of its row in ``split``."""

    split: Any                   #: the ``datasets.Dataset`` the rows come from
    rows: tuple[dict, ...]
    index: tuple[int, ...]

    @classmethod
    def of(cls, split, rows: Iterable[dict], index: Iterable[int] | None = None) -> Rows:
        rows = tuple(rows)
        index = tuple(range(len(rows))) if index is None else tuple(index)
        if len(index) != len(rows):
            raise ValueError(f"{len(rows)} rows but {len(index)} row indices")
        return cls(split, rows, index)

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, i):  # type: ignore[override]
        return self.rows[i]

    def __iter__(self) -> Iterator[dict]:
        return iter(self.rows)

    def take(self, positions: Sequence[int]) -> Rows:
        return Rows(self.split, tuple(self.rows[p] for p in positions), tuple(self.index[p] for p in positions))

    def where(self, keep: Callable[[dict], bool]) -> Rows:
        return self.take([p for p, r in enumerate(self.rows) if keep(r)])

    def sample(self, n: int | None, seed: int) -> Rows:
        """:func:`sample_indices` of the rows (all when ``n`` is None)."""
        return self if n is None or n >= len(self) else self.take(sample_indices(len(self), n, seed))

    def gold_split(self):
        """The rows of ``split`` these examples come from, in their order (the split to score against)."""
        if self.index == tuple(range(len(self.split))):
            return self.split
        return self.split.select(list(self.index))
