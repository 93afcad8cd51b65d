"""The tasks figbench scores: one module per task in this folder, each defining ``TASK``.

``TASKS`` maps task names to their declarations (:class:`figbench.tasks.base.Task`), in display
order. Everything that needs "every task" (the leaderboard, ``quickstart``, the baselines'
``--task`` choices, the result-record check) loops over it; adding a task is adding a module here.
``register_task`` adds one at run time (tests, plugins). Importing this package is light.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable, Iterator

from figbench.tasks.base import HIDDEN, PUBLIC, Benchmark, Gold, Metric, Plot, PredictionsError, Prompt, Task

_INTERNAL = {"base", "gold", "kinds"}


def _discover() -> dict[str, Task]:
    found: list[Task] = []
    for info in pkgutil.iter_modules(__path__):
        if info.name in _INTERNAL or info.name.startswith("_"):
            continue
        task = getattr(importlib.import_module(f"{__name__}.{info.name}"), "TASK", None)
        if isinstance(task, Task):
            found.append(task)
    found.sort(key=lambda t: (t.order, t.name))
    _check_labels(found)
    return {t.name: t for t in found}


def _check_labels(tasks: Iterable[Task]) -> None:
    """Each benchmark label is a column of the board: two benchmarks with one label would share it."""
    owner: dict[str, str] = {}
    for t in tasks:
        for b in t.benchmarks:
            if b.label in owner and owner[b.label] != b.key:
                raise ValueError(f"task {t.name!r}: benchmark {b.key} has the label {b.label!r} of benchmark "
                                 f"{owner[b.label]}; each benchmark needs its own label (a column of the board)")
            owner[b.label] = b.key


#: task name -> declaration, in display order
TASKS: dict[str, Task] = _discover()
#: benchmarks added at run time (a server's hidden benchmarks, read from its private store), by key
EXTRA_BENCHMARKS: dict[str, Benchmark] = {}


def get_task(name: str) -> Task:
    try:
        return TASKS[name]
    except KeyError:
        raise ValueError(f"unknown task {name!r}; known tasks: {sorted(TASKS)}") from None


def register_task(task: Task, *, replace: bool = False) -> Task:
    """Add a task at run time (it then appears wherever tasks are listed); returns it."""
    if task.name in TASKS and not replace:
        raise ValueError(f"task {task.name!r} is already registered")
    _check_labels([t for t in TASKS.values() if t.name != task.name] + [task])
    TASKS[task.name] = task
    ordered = sorted(TASKS.values(), key=lambda t: (t.order, t.name))
    TASKS.clear()
    TASKS.update((t.name, t) for t in ordered)
    return task


def unregister_task(name: str) -> None:
    TASKS.pop(name, None)


def benchmarks() -> tuple[Benchmark, ...]:
    """Every benchmark of every task, in display order (then those added with :func:`register_benchmark`)."""
    declared = tuple(b for t in TASKS.values() for b in t.benchmarks)
    keys = {b.key for b in declared}
    return declared + tuple(b for b in EXTRA_BENCHMARKS.values() if b.key not in keys)


def register_benchmark(benchmark: Benchmark, *, replace: bool = False) -> Benchmark:
    """Add a benchmark of a known task at run time (e.g. a hidden benchmark from a server's private store)."""
    get_task(benchmark.task)
    declared = {b.key for t in TASKS.values() for b in t.benchmarks}
    if benchmark.key in declared or (benchmark.key in EXTRA_BENCHMARKS and not replace):
        raise ValueError(f"benchmark {benchmark.key} is already registered")
    owner = {b.label: b.key for b in benchmarks() if b.key != benchmark.key}
    if benchmark.label in owner:
        raise ValueError(f"benchmark {benchmark.key} has the label {benchmark.label!r} of benchmark "
                         f"{owner[benchmark.label]}; each benchmark needs its own label (a column of the board)")
    EXTRA_BENCHMARKS[benchmark.key] = benchmark
    return benchmark


def unregister_benchmark(key: str) -> None:
    EXTRA_BENCHMARKS.pop(key, None)


def find_benchmark(key: str) -> Benchmark | None:
    """The declared or registered benchmark with this key, if any."""
    return next((b for b in benchmarks() if b.key == key), None)


def families() -> dict[str, str]:
    """Task family id -> title, in display order."""
    out: dict[str, str] = {}
    for t in TASKS.values():
        out.setdefault(t.family, t.family_title)
    return out


def family_tasks(family: str) -> Iterator[Task]:
    return (t for t in TASKS.values() if t.family == family)


__all__ = ["EXTRA_BENCHMARKS", "HIDDEN", "PUBLIC", "TASKS", "Benchmark", "Gold", "Metric", "Plot", "PredictionsError",
           "Prompt", "Task", "benchmarks", "families", "family_tasks", "find_benchmark", "get_task",
           "register_benchmark", "register_task", "unregister_benchmark", "unregister_task"]
