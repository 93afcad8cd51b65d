"""The reference rows (README ``cdec_reference``): the cdec task's trivial baselines (all singletons, one
cluster per gold topic) on every split a cdec table scores."""

from __future__ import annotations

from figbench_baselines.cdec.specs.protocol import DATA, LH_METRICS, _short
from figbench_baselines.specs import BaselineSpec

#: the splits of the trivial reference rows (every split a cdec table scores)
REFERENCE_SPLITS = (("ecbplus", "events", "test"), ("ecbmeta", "meta_m", "test"), ("ecbplus", "events", "validation"),
                    ("ecbmeta", "meta_m", "validation"), ("ecbmeta", "meta_m", "dev_rest"),
                    ("ecbplus", "events", "dev_small"), ("ecbmeta", "meta_m", "dev_small"),
                    ("ecbmeta", "meta_1", "dev_small"), ("wec_eng", "events", "test"))
#: the cdec task's trivial baselines (figbench.tasks.kinds: ClusteringTask.trivial_baselines) and their row titles
REFERENCE_TITLES = {"singletons": "reference: all singletons",
                    "one_cluster_per_topic": "reference: one cluster per gold topic"}


def reference_name(method: str, dataset: str, config: str, split: str) -> str:
    return f"cdec_{method}_{_short(dataset, config)}_{split}"


def _reference_specs() -> list[BaselineSpec]:
    """The trivial baselines of the cdec task (``figbench baseline trivial``) on every split of the cdec
    tables: one :func:`~figbench_baselines.trivial.specs.trivial_spec` line per baseline and split."""
    from figbench_baselines.trivial.specs import trivial_spec

    out = []
    for method, title in REFERENCE_TITLES.items():
        for dataset, config, split in REFERENCE_SPLITS:
            if method == "singletons":
                protocol = {"topics": "none (no links)", "singletons": "kept", "clustering": "every mention alone"}
            else:
                protocol = {"topics": "gold topics", "singletons": "kept", "clustering": "one cluster per gold topic"
                            + (" (WEC-Eng has one topic: one cluster)" if dataset == "wec_eng" else "")}
            out.append(trivial_spec(
                reference_name(method, dataset, config, split), "cdec_reference", "cdec", dataset, config, split,
                method, data_version=DATA[(dataset, config)], title=title, model="none (reference)",
                metrics=LH_METRICS, needs=("ecbplus",) if dataset == "ecbmeta" else (), protocol=protocol,
                comparability="a reference row: what the split scores without any system"))
    return out
