"""Baselines as data: one :class:`BaselineSpec` per baseline run.

A spec names what a run evaluates (task, dataset, config, split; data version and protocol), how
(method, model, the exact ``figbench baseline`` command, whether it is a quick CPU configuration,
whether ``quickstart`` runs it) and what it is compared with (the published value for the same split
and protocol, with its source and table, or a note saying why there is none). Each family declares
its specs in ``figbench_baselines.<family>.specs`` (``SPECS``); :func:`all_specs` collects them.
``quickstart`` runs the specs marked ``fast``, ``figbench baseline --list`` prints them, and the
reproduction tables of ``baselines/README.md`` are generated from them
(:mod:`figbench_baselines.tables`).
"""

from __future__ import annotations

import importlib
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache


@dataclass(frozen=True)
class Published:
    """A number a paper reports, for the same split and protocol as the spec it belongs to."""

    value: str          #: as printed in the paper (several metrics joined by " / ")
    metrics: str        #: what the value is, e.g. "MUC / B3 / CEAF-e / CoNLL F1"
    source: str         #: the paper
    table: str          #: where in the paper ("Table 1"); "" when not yet checked
    split: str          #: the split the paper scored
    protocol: str       #: how the paper scored it (topics, singletons, clustering, threshold...)
    model: str = ""     #: the paper's model, when the row's method uses another encoder
    #: how the value was checked against the paper's text: None says nothing, "" prints "not verified
    #: against the paper text" (the number is quoted from elsewhere), any other text is the check made
    verified: str | None = None
    evidence: str = ""  #: an independent consistency check of the number (e.g. re-derived from released outputs)
    quoted_from: str = ""  #: where the number comes from when it was not read in the paper
    cell: str = ""      #: the quoted cell of the table: its row and column as the paper prints them
    #: "same setting", or "differs: ..." naming what differs from the row's run (split, topics, singletons,
    #: clustering, threshold, model and size, epochs, seeds averaged)
    verdict: str = ""

    def __post_init__(self) -> None:
        if self.verdict and not (self.verdict == "same setting" or self.verdict.startswith("differs: ")):
            raise ValueError(f"published value {self.value} ({self.source}): verdict must be 'same setting' or "
                             f"'differs: ...', not {self.verdict!r}")


@dataclass(frozen=True)
class Selection:
    """How the choices behind a trained run's numbers were made (the record's ``provenance.selection``):
    ``validation-only`` (recipe, epoch, threshold... chosen on training and validation data, or fixed in
    advance) or ``test-informed`` (some choice followed test results); ``note`` says which, in one line."""

    kind: str
    note: str

    def __post_init__(self) -> None:
        from figbench.results import SELECTION_KINDS

        if self.kind not in SELECTION_KINDS:
            raise ValueError(f"selection kind must be one of {SELECTION_KINDS}, not {self.kind!r}")
        if not self.note or "\n" in self.note or len(self.note) > 500:
            raise ValueError(f"selection note must be one line of at most 500 characters: {self.note!r}")

    def as_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "note": self.note}


#: the selection of a quick trained run: a fixed number of steps, nothing chosen
QUICK_SELECTION = Selection("validation-only", "quick configuration: a fixed number of steps, nothing selected")


@dataclass(frozen=True)
class Historical:
    """A value an earlier version of the reproduction tables printed for this spec's command, kept
    until a committed result record (``results/<name>.json``) replaces it."""

    value: str          #: as printed then
    commit: str         #: the commit whose code measured it
    throughput: tuple[str, str, str] = ()  #: training and inference examples/s and wall time (s), as printed then


@dataclass(frozen=True)
class BaselineSpec:
    """One baseline run: what it evaluates, the command, and what it is compared with."""

    name: str                     #: unique; the result record is ``results/<name>.json``
    table: str                    #: the README table the row belongs to
    family: str                   #: ``figbench baseline <family>``
    task: str                     #: a task of :mod:`figbench.tasks`
    dataset: str
    config: str
    split: str
    method: str                   #: the record's ``method`` (the leaderboard row ``figbench-<method>``)
    argv: tuple[str, ...]         #: ``figbench baseline <argv> --out FILE`` (corpora from FIGBENCH_DATA_DIR)
    title: str                    #: the row's label
    data_version: str             #: the corpus version and builder the split comes from
    protocol: Mapping[str, str] = field(default_factory=dict)  #: how the split is scored
    model: str = "heuristic"      #: the model, as described in the table
    encoder: str | None = None    #: encoder id in the leaderboard name (``figbench-<method> (<encoder>)``)
    quick: bool = False           #: ``argv`` is a small CPU configuration: no quality claim
    fast: bool = False            #: ``figbench quickstart`` runs it (heuristics and retrieval: seconds to minutes)
    board: bool = False           #: ``quickstart`` loads its committed record (``results/<name>.json``) into the
    #: store: trained runs too slow to repeat there. One spec per system name and benchmark, so protocol
    #: variants of a method stay off the board.
    needs: tuple[str, ...] = ()   #: other corpora the run reads (e.g. ECB+ train for LH on ECB+META)
    metrics: tuple[str, ...] = ()  #: scores shown in the table (default: the task's headline)
    published: Published | None = None
    comparability: str = ""       #: why there is no published value for this split and protocol, or caveats
    gpu_command: str = ""         #: the paper-scale command (GPU / Hub access; not run here)
    not_run: str = ""             #: why the command has not been run here (no GPU, corpus not offline...)
    historical: Historical | None = None
    #: trained runs: how the choices behind the numbers were made (stamped into the record's
    #: ``provenance.selection`` by ``figbench baseline run``); quick runs default to :data:`QUICK_SELECTION`
    selection: Selection | None = None

    def __post_init__(self) -> None:
        if self.selection is None and self.quick:
            object.__setattr__(self, "selection", QUICK_SELECTION)
        if self.published is None and not self.comparability:
            raise ValueError(f"spec {self.name}: give the published value or say why there is none (comparability)")
        if "--quick" in self.argv and not self.quick:
            raise ValueError(f"spec {self.name}: argv has --quick, so quick must be True")
        if self.board and self.fast:
            raise ValueError(f"spec {self.name}: a fast run is made by quickstart; board is for committed records")
        if self.argv[:1] != (self.family,):
            raise ValueError(f"spec {self.name}: argv must start with the family {self.family!r}")

    @property
    def benchmark(self) -> str:
        """``task/dataset/config/split`` (the leaderboard's benchmark key)."""
        return f"{self.task}/{self.dataset}/{self.config}/{self.split}"

    @property
    def corpora(self) -> tuple[str, ...]:
        """Every corpus folder the run reads."""
        return (self.dataset, *self.needs)

    @property
    def system_name(self) -> str:
        """The leaderboard name of the run's record (:func:`figbench_baselines.common.runs.system_name`)."""
        from figbench_baselines.common.runs import system_name

        return system_name(self.method, self.encoder)

    @property
    def shown_metrics(self) -> tuple[str, ...]:
        if self.metrics:
            return self.metrics
        from figbench.tasks import get_task

        return (get_task(self.task).headline,)

    def command(self, out: str | None = None) -> str:
        """The shell command of this run (``--out`` added when given)."""
        tail = ("--out", out) if out else ()
        return "figbench baseline " + shlex.join((*self.argv, *tail))


#: the seeds a headline trained run is repeated with (seed 0 is the headline record itself)
SEEDS = (1, 2)
CPU_SEED_NOTE = ("one of three seeds of the headline recipe on this CPU: the headline spec's exact command with "
                 "--seed (which seeds the initialisation, the training order and any training sample) and its own "
                 "model folder; the headline record is seed 0")


def seeded(spec: BaselineSpec, seed: int, folders: Mapping[str, str] | None = None,
           note: str = CPU_SEED_NOTE) -> BaselineSpec:
    """``spec`` rerun with ``--seed seed`` as ``<name>_s<seed>``: off the board, the folders its command writes
    or loads renamed: the spec's name inside an argument gains the suffix, an argument equal to a ``folders``
    key becomes its value (``{seed}`` filled in), in the model text too."""
    if "--seed" in spec.argv:
        raise ValueError(f"spec {spec.name}: already seeded")
    name = f"{spec.name}_s{seed}"
    folders = {k: v.format(seed=seed) for k, v in (folders or {}).items()}
    argv = tuple(folders.get(a, a.replace(spec.name, name)) for a in spec.argv)
    model = spec.model
    for old, new in folders.items():  # the model text names the folders too (not a longer folder they begin)
        model = re.sub(re.escape(old) + r"(?![\w/])", new, model)
    return replace(spec, name=name, argv=(*argv, "--seed", str(seed)), model=model, board=False, fast=False,
                   title=f"{spec.title}, seed {seed}", gpu_command="",
                   comparability="; ".join(x for x in (spec.comparability, note) if x))


def _families() -> tuple[str, ...]:
    from figbench_baselines.cli import FAMILIES

    return FAMILIES


@lru_cache(maxsize=1)
def all_specs() -> tuple[BaselineSpec, ...]:
    """Every family's specs (``figbench_baselines.<family>.specs.SPECS``), in family order; names unique."""
    specs: list[BaselineSpec] = []
    for family in _families():
        module = importlib.import_module(f"figbench_baselines.{family}.specs")
        specs.extend(module.SPECS)
    names = [s.name for s in specs]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError(f"duplicate baseline spec names: {dup}")
    return tuple(specs)


def get_spec(name: str) -> BaselineSpec:
    for spec in all_specs():
        if spec.name == name:
            return spec
    raise ValueError(f"unknown baseline spec {name!r}; `figbench baseline --list` lists them")


def fast_specs() -> tuple[BaselineSpec, ...]:
    """The runs ``quickstart`` makes, in order."""
    return tuple(s for s in all_specs() if s.fast)


def board_specs() -> tuple[BaselineSpec, ...]:
    """The runs whose committed records ``quickstart`` loads into the store, in order."""
    return tuple(s for s in all_specs() if s.board)


__all__ = ["BaselineSpec", "Historical", "Published", "Selection", "all_specs", "board_specs", "fast_specs",
           "get_spec", "seeded"]
