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

from figbench.tasks.base import Benchmark, Gold, Metric, Plot, PredictionsError, Task

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
    """Every benchmark of every task, in display order."""
    return tuple(b for t in TASKS.values() for b in t.benchmarks)


def families() -> dict[str, str]:
    """Task family id -> title, in display order."""
    out: dict[str, str] = {}
    for t in TASKS.values():
        out.setdefault(t.family, t.family_title)
    return out


def family_tasks(family: str) -> Iterator[Task]:
    return (t for t in TASKS.values() if t.family == family)


__all__ = ["TASKS", "Benchmark", "Gold", "Metric", "Plot", "PredictionsError", "Task", "benchmarks", "families",
           "family_tasks", "get_task", "register_task", "unregister_task"]
