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


def _cdec_rows() -> tuple[BaselineSpec, ...]:
    from figbench_baselines.cdec.specs import CONLL, DATA

    rows = []
    for dataset, config, short in (("ecbplus", "events", "ecbplus"), ("ecbmeta", "meta_m", "meta_m"),
                                   ("wec_eng", "events", "wec_eng")):
        needs = ("ecbplus",) if dataset == "ecbmeta" else ()
        for method, title, clustering in (
                ("singletons", "all singletons", "every mention alone"),
                ("one_cluster_per_topic", "one cluster per topic",
                 "one cluster per gold topic" + (" (WEC-Eng has one topic: one cluster)" if dataset == "wec_eng"
                                                 else ""))):
            rows.append(trivial_spec(
                f"cdec_{method}_{short}_test", "cdec_heuristics", "cdec", dataset, config, "test", method,
                data_version=DATA[(dataset, config)], title=title, metrics=CONLL, needs=needs,
                protocol={"topics": "gold topics" if method == "one_cluster_per_topic" else "none (no links)",
                          "singletons": "kept", "clustering": clustering}))
    return tuple(rows)


SPECS: tuple[BaselineSpec, ...] = _cdec_rows()
