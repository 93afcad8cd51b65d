"""What a task declares (:class:`Task`) and the small value types it is made of.

A task is one frozen dataclass instance: its fields are the declaration (family, benchmarks,
headline metric and its direction, declared metrics, table columns, plots, how gold comes out of
the dataset's columns); its methods, shared by every task of a kind (:mod:`figbench.tasks.kinds`),
turn a ``datasets`` split into typed gold, validate predictions and score them with the same
functions the baselines call (:mod:`figbench.scoring`). The leaderboard, ``quickstart``, the
baselines' ``--task`` choices and the reproduction tables loop over tasks instead of naming them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from figbench.scoring import Scored

#: a benchmark's gold is released with its corpus (anyone can score a test split themselves)
PUBLIC = "public"
#: a benchmark's gold is held only by the server (never released; scores are guarded against probing)
HIDDEN = "hidden"
GOLD_KINDS = (PUBLIC, HIDDEN)


class PredictionsError(ValueError):
    """Predictions cannot be scored; the message names the id, field or record at fault."""


@dataclass(frozen=True)
class Benchmark:
    """One scored split: ``task`` on ``dataset``/``config``/``split``; a column of the board.

    ``gold`` declares where the split's gold labels are: :data:`PUBLIC` (released with the corpus, so
    the board's scores are computed by the server from submitted predictions on a public test set) or
    :data:`HIDDEN` (held only in the server's private store; scores are released rounded, under a quota
    and a probe guard). ``note``: what a submitter must know about the benchmark (shown on the board).
    """

    task: str
    dataset: str
    config: str
    split: str
    label: str
    group: str = ""  #: averages and ranks are computed over the benchmarks of one group
    gold: str = PUBLIC
    note: str = ""
    #: hidden benchmarks: the share of items whose gold a linkage audit with public text reconstructs
    #: (``figbench leaderboard hidden add``); ``None``: not audited
    derivable: float | None = None

    def __post_init__(self) -> None:
        if self.gold not in GOLD_KINDS:
            raise ValueError(f"benchmark {self.key}: gold must be {PUBLIC!r} or {HIDDEN!r}, got {self.gold!r}")

    @property
    def key(self) -> str:
        return f"{self.task}/{self.dataset}/{self.config}/{self.split}"

    @property
    def hidden(self) -> bool:
        return self.gold == HIDDEN


@dataclass(frozen=True)
class Metric:
    """A metric a task reports: its key in scores, a display title, direction, and whether it is a fraction."""

    name: str
    title: str
    higher_is_better: bool = True
    fraction: bool = True


@dataclass(frozen=True)
class Plot:
    """A plot a task feeds.

    ``kind``: ``"paired"`` (per model, ``metric`` on ``benchmarks[0]`` against each of the others:
    the robustness drop), ``"distribution"`` (``metric`` over every submission of each benchmark).
    """

    kind: str
    title: str
    metric: str
    benchmarks: tuple[str, ...] = ()


@dataclass(frozen=True)
class Prompt:
    """How a language model is asked the task in lm-evaluation-harness (:mod:`figbench.harnesses.lm_eval`): a
    multiple-choice question scored by log-likelihood.

    ``text``: a ``str.format`` template over a question's fields (the split's columns; for a clustering task
    ``a`` and ``b``, the two candidate mentions marked in their sentences). The answers: ``choices``, one per
    class of the task's label column in its order (a label task), or ``(no, yes)`` (a clustering task's
    pairwise decision); a ranking task's answers are its candidates (``choices`` empty). ``benchmarks``: the keys
    of the benchmarks asked (empty: every benchmark of the task)."""

    text: str
    choices: tuple[str, ...] = ()
    benchmarks: tuple[str, ...] = ()


@dataclass(frozen=True)
class Gold:
    """Gold of one benchmark split: the ids a prediction must cover, plus the task kind's own fields."""

    key: str
    ids: tuple[str, ...]

    def __post_init__(self) -> None:
        if len(set(self.ids)) != len(self.ids):
            seen: set[str] = set()
            dup = next(i for i in self.ids if i in seen or seen.add(i))
            raise ValueError(f"gold for {self.key}: duplicate id {dup!r}")

    @property
    def id_set(self) -> frozenset[str]:
        return frozenset(self.ids)

    def to_json(self) -> dict[str, Any]:  # pragma: no cover - every kind overrides it
        raise NotImplementedError


@dataclass(frozen=True)
class Task(ABC):
    """The declaration of a task, with the behaviour of its kind."""

    name: str
    family: str                    #: UI tab / task family id (``coreference``, ``meta4xnli``...)
    family_title: str
    title: str
    description: str
    headline: str                  #: key in ``scores`` ranked on the board
    metrics: tuple[Metric, ...]    #: every metric the task reports; the board accepts only these
    benchmarks: tuple[Benchmark, ...] = ()
    columns: tuple[str, ...] = ()  #: sub-metrics shown in the family table (default: every declared metric)
    plots: tuple[Plot, ...] = ()
    predictions_doc: str = ""      #: one line: what a predictions file holds for this task
    resample_unit: str = "examples"
    order: int = 100               #: display order of tasks (and so of families and benchmarks)
    extra_gold_columns: tuple[str, ...] = ()  #: columns besides the kind's own that carry gold (a coarser label...)
    prompt: Prompt | None = None   #: how a language model is asked it (lm-evaluation-harness); None: not asked

    kind: ClassVar[str] = ""
    gold_type: ClassVar[type[Gold]] = Gold

    def __post_init__(self) -> None:
        names = [m.name for m in self.metrics]
        if self.headline not in names:
            raise ValueError(f"task {self.name}: headline {self.headline!r} is not among its metrics {names}")
        for b in self.benchmarks:
            if b.task != self.name:
                raise ValueError(f"task {self.name}: benchmark {b.key} names task {b.task!r}")
        unknown = [c for c in self.columns if c not in names]
        if unknown:
            raise ValueError(f"task {self.name}: columns {unknown} are not declared metrics")

    # --- the declaration, derived -------------------------------------------------------------
    @property
    def metric_names(self) -> tuple[str, ...]:
        return tuple(m.name for m in self.metrics)

    @property
    def higher_is_better(self) -> bool:
        return self.metric(self.headline).higher_is_better

    def metric(self, name: str) -> Metric:
        for m in self.metrics:
            if m.name == name:
                return m
        raise KeyError(f"task {self.name} declares no metric {name!r}")

    def table_columns(self) -> tuple[str, ...]:
        return self.columns or self.metric_names

    # --- gold columns and inputs ---------------------------------------------------------------
    def kind_gold_columns(self) -> tuple[str, ...]:
        """The columns this kind reads its gold from (overridden per kind)."""
        return ()

    def gold_columns(self) -> tuple[str, ...]:
        """Every column of the task's splits that carries gold: what an inputs-only copy leaves out."""
        return tuple(dict.fromkeys(self.kind_gold_columns() + self.extra_gold_columns))

    def inputs_only(self, dataset):
        """``dataset`` (a ``datasets.Dataset``) without the task's gold: what a submitter of a hidden
        benchmark is given."""
        drop = [c for c in self.gold_columns() if c in dataset.column_names]
        return dataset.remove_columns(drop) if drop else dataset

    # --- behaviour of the kind ----------------------------------------------------------------
    @abstractmethod
    def gold_from_dataset(self, dataset, key: str) -> Gold:
        """Typed gold of a ``datasets.Dataset`` split, read from the columns the task declares."""

    def gold_from_json(self, obj: Mapping[str, Any], key: str) -> Gold:
        """Gold from :meth:`Gold.to_json`'s shape (small boards and tests)."""
        if not isinstance(obj, Mapping):
            raise ValueError(f"gold for {key}: expected an object")
        return self.gold_type.from_json(obj, key)  # type: ignore[attr-defined]

    @abstractmethod
    def parse_predictions(self, raw: Any, gold: Gold) -> Any:
        """Validate ``raw`` predictions against ``gold``; return them normalised (raises PredictionsError)."""

    @abstractmethod
    def score(self, predictions: Any, gold: Gold, *, n_resamples: int = 1000, seed: int = 0) -> Scored:
        """Scores of normalised predictions, with bootstrap intervals (``n_resamples=0``: none)."""

    @abstractmethod
    def perfect_predictions(self, gold: Gold) -> Any:
        """Predictions equal to gold (used by the checks over every task)."""

    @abstractmethod
    def wrong_predictions(self, gold: Gold) -> Any:
        """Valid predictions that are all wrong (used by the checks over every task)."""
