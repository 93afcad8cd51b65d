"""Trivial baseline runs: one :func:`trivial_spec` line per run (any family's specs may use it; rows
whose family has no specs module of its own are listed here)."""

from __future__ import annotations

from collections.abc import Mapping

from figbench_baselines.specs import BaselineSpec


def trivial_spec(name: str, table: str, task: str, dataset: str, config: str, split: str, method: str, *,
                 data_version: str, record_method: str | None = None, label_column: str | None = None,
                 title: str | None = None, protocol: Mapping[str, str] | None = None, **kw) -> BaselineSpec:
    """The spec of ``figbench baseline trivial`` with ``method`` (a trivial baseline of the task's kind) on
    ``dataset``/``config``/``split``; ``record_method`` is its leaderboard name (default ``method``)."""
    argv = ("trivial", "--task", task, "--dataset", dataset, "--config", config, "--split", split,
            "--method", method, *(("--label-column", label_column) if label_column else ()),
            *(("--record-method", record_method) if record_method else ()))
    kw.setdefault("comparability", "a trivial baseline: a floor for the other rows, not a published method")
    return BaselineSpec(name=name, table=table, family="trivial", task=task, dataset=dataset, config=config,
                        split=split, method=record_method or method, argv=argv, title=title or method,
                        data_version=data_version, protocol=dict(protocol or {}), **kw)


#: the rows of families without a specs module of their own (the coreference references are cdec's:
#: figbench_baselines.cdec.specs, WiMCor's trivial rows are wimcor's)
SPECS: tuple[BaselineSpec, ...] = ()
