"""The benchmarks the board shows, derived from the task declarations (:mod:`figbench.tasks`).

A benchmark is a task scored on one ``dataset``/``config``/``split``: a column of the overview.
Nothing here names a task: the registry is ``figbench.tasks.benchmarks()`` at the time it is built
(so a task registered with ``figbench.tasks.register_task`` appears on a board built afterwards),
grouped as the declarations group them (``Benchmark.group``: averaged and ranked together).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import cache

from figbench.tasks import TASKS, Benchmark, Task, benchmarks, families

__all__ = ["Benchmark", "BenchmarkRegistry", "default_config", "hidden_split"]


@cache
def default_config(dataset: str) -> str | None:
    """The default config of a corpus's builder (``None`` when its builder cannot be imported)."""
    from figbench.loading import builder_configs

    try:
        return builder_configs(dataset)[1]
    except Exception:  # a builder that does not import cannot name its default either
        return None


def hidden_split(benchmark: Benchmark | str) -> bool:
    """Whether a benchmark (or benchmark key) declares hidden gold (``Benchmark.gold``): its scores are
    released by the Ladder, under a quota, a budget and a probe guard (see ``access.hidden_policy``)."""
    from figbench_leaderboard.domain.release import is_hidden

    return is_hidden(benchmark)


class BenchmarkRegistry:
    """Benchmarks by key, families and groups, with a clear error for anything the board does not show."""

    def __init__(self, items: Iterable[Benchmark] | None = None) -> None:
        self.benchmarks: tuple[Benchmark, ...] = tuple(benchmarks() if items is None else items)
        self._by_key = {b.key: b for b in self.benchmarks}
        if len(self._by_key) != len(self.benchmarks):
            raise ValueError("duplicate benchmark keys in the leaderboard registry")
        for b in self.benchmarks:
            if b.task not in TASKS:
                raise ValueError(f"benchmark {b.key}: unknown task {b.task!r}")
        self.tasks: dict[str, Task] = {name: TASKS[name] for name in dict.fromkeys(b.task for b in self.benchmarks)}

    def __iter__(self) -> Iterator[Benchmark]:
        return iter(self.benchmarks)

    def __len__(self) -> int:
        return len(self.benchmarks)

    def task(self, benchmark: Benchmark | str) -> Task:
        return self.tasks[benchmark.task if isinstance(benchmark, Benchmark) else benchmark]

    def headline(self, benchmark: Benchmark) -> str:
        return self.task(benchmark).headline

    def find(self, task: str, dataset: str, config: str, split: str) -> Benchmark:
        key = f"{task}/{dataset}/{config}/{split}"
        if config == "default" and key not in self._by_key:
            config = default_config(dataset) or config
            key = f"{task}/{dataset}/{config}/{split}"
        try:
            return self._by_key[key]
        except KeyError:
            known = ", ".join(self._by_key)
            raise ValueError(f"the leaderboard has no benchmark {key!r}; it scores: {known}") from None

    def get(self, key: str) -> Benchmark:
        try:
            return self._by_key[key]
        except KeyError:
            raise ValueError(f"unknown benchmark {key!r}") from None

    def has(self, key: str) -> bool:
        return key in self._by_key

    # --- families, tasks and groups, in declaration order --------------------------------------
    def families(self) -> dict[str, str]:
        """Family id -> title, for the families that have benchmarks on this board."""
        present = {t.family for t in self.tasks.values()}
        return {f: title for f, title in families().items() if f in present}

    def family_tasks(self, family: str) -> list[Task]:
        return [t for t in self.tasks.values() if t.family == family]

    def family(self, family: str) -> list[Benchmark]:
        return [b for b in self.benchmarks if self.task(b).family == family]

    def task_benchmarks(self, task: str) -> list[Benchmark]:
        return [b for b in self.benchmarks if b.task == task]

    def group_of(self, benchmark: Benchmark) -> str:
        return benchmark.group or benchmark.label

    def groups(self) -> dict[str, list[Benchmark]]:
        """Group name -> its benchmarks (averaged and ranked together), in declaration order."""
        out: dict[str, list[Benchmark]] = {}
        for b in self.benchmarks:
            out.setdefault(self.group_of(b), []).append(b)
        return out
