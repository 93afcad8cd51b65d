"""The benchmarks the board shows: a task scored on one (dataset, config, split).

Each benchmark is a column of the overview table (its task's headline metric). Config and split
names follow the builders in ``datasets/*/README.md``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from figbench.tasks import TASKS

#: Display order and names of the task families (one UI tab each).
FAMILIES: dict[str, str] = {
    "coreference": "Coreference",
    "meta4xnli": "Meta4XNLI",
    "wimcor": "WiMCor",
    "epic": "ePiC",
}


@dataclass(frozen=True)
class Benchmark:
    """One leaderboard column: ``task`` scored on ``dataset``/``config``/``split``."""

    task: str
    dataset: str
    config: str
    split: str
    label: str

    @property
    def key(self) -> str:
        return f"{self.task}/{self.dataset}/{self.config}/{self.split}"

    @property
    def family(self) -> str:
        return TASKS[self.task].family

    @property
    def headline(self) -> str:
        return TASKS[self.task].headline


BENCHMARKS: tuple[Benchmark, ...] = (
    Benchmark("cdec", "ecbplus", "events", "test", "ECB+"),
    Benchmark("cdec", "ecbmeta", "meta_1", "dev_small", "ECB+META_1 (dev_small)"),
    Benchmark("cdec", "ecbmeta", "meta_m", "test", "ECB+META_m"),
    Benchmark("cdec", "wec_eng", "events", "test", "WEC-Eng"),
    Benchmark("metaphor_detection", "meta4xnli", "detection_en", "test", "Meta4XNLI detection EN"),
    Benchmark("metaphor_detection", "meta4xnli", "detection_es", "test", "Meta4XNLI detection ES"),
    Benchmark("metaphor_nli", "meta4xnli", "interpretation", "test", "Meta4XNLI NLI"),
    Benchmark("metonymy", "wimcor", "sample", "test", "WiMCor (sample)"),
    Benchmark("proverb_prediction", "epic", "seen", "test", "ePiC seen"),
    Benchmark("proverb_prediction", "epic", "unseen", "test", "ePiC unseen"),
    Benchmark("proverb_alignment", "epic", "alignment", "test", "ePiC alignment"),
)


#: The builders' default configs: a record with config "default" means these.
DEFAULT_CONFIGS = {"ecbplus": "events", "ecbmeta": "meta_m", "wec_eng": "events", "meta4xnli": "detection_en",
                   "wimcor": "full", "epic": "seen"}


class BenchmarkRegistry:
    """Benchmarks by key, with a clear error for anything the board does not show."""

    def __init__(self, benchmarks: Iterable[Benchmark] = BENCHMARKS) -> None:
        self.benchmarks: tuple[Benchmark, ...] = tuple(benchmarks)
        self._by_key = {b.key: b for b in self.benchmarks}
        if len(self._by_key) != len(self.benchmarks):
            raise ValueError("duplicate benchmark keys in the leaderboard registry")
        for b in self.benchmarks:
            if b.task not in TASKS:
                raise ValueError(f"benchmark {b.key}: unknown task {b.task!r}")

    def __iter__(self):
        return iter(self.benchmarks)

    def __len__(self) -> int:
        return len(self.benchmarks)

    def find(self, task: str, dataset: str, config: str, split: str) -> Benchmark:
        if config == "default" and f"{task}/{dataset}/{config}/{split}" not in self._by_key:
            config = DEFAULT_CONFIGS.get(dataset, config)
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

    def family(self, family: str) -> list[Benchmark]:
        return [b for b in self.benchmarks if b.family == family]
