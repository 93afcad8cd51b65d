"""The cdec pipeline's options for tests: the CLI defaults, within gold topics, on given training rows."""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence


def cdec_args(train_rows: Sequence[Mapping], n_resamples: int = 20, **kw) -> argparse.Namespace:
    """``default_args`` with few bootstrap resamples, ``within="topic"`` unless given, and ``train_rows``."""
    from figbench_baselines.cdec.pipeline import default_args

    kw.setdefault("within", "topic")
    args = default_args(n_resamples=n_resamples, **kw)
    args.train_rows = train_rows
    return args
