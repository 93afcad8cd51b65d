"""figbench: datasets, metrics, baselines and a leaderboard for figurative language and
cross-document event coreference."""

__version__ = "0.1.0"

from figbench.paths import CORPORA, METRICS, metric_path  # noqa: E402
from figbench.registry import load_dataset, register_builders  # noqa: E402

register_builders()

__all__ = ["CORPORA", "METRICS", "__version__", "load_dataset", "metric_path", "register_builders"]
