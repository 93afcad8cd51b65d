"""Location metonymy resolution on WiMCor (micro F1 over the medium labels)."""

from figbench.tasks.base import PUBLIC, Benchmark, Metric, Plot
from figbench.tasks.kinds import LabelTask

TASK = LabelTask(
    name="metonymy",
    order=30,
    family="wimcor",
    family_title="WiMCor",
    title="Location metonymy",
    description="Location metonymy resolution: the medium reading (LOCATION, INSTITUTE, TEAM, ARTIFACT, EVENT) "
                "of the potentially metonymic word; micro and macro F1.",
    headline="micro_f1",
    metrics=(Metric("micro_f1", "Micro F1"), Metric("accuracy", "Accuracy"),
             *(Metric(f"{avg}_{m}", f"{avg.capitalize()} {m if m != 'f1' else 'F1'}")
               for avg in ("micro", "macro") for m in ("precision", "recall", "f1") if f"{avg}_{m}" != "micro_f1")),
    columns=("micro_f1", "macro_f1", "macro_precision", "macro_recall"),
    benchmarks=(Benchmark("metonymy", "wimcor", "sample", "test", "WiMCor (sample)", "WiMCor", gold=PUBLIC),),
    plots=(Plot("distribution", "Micro F1 of every submission", "micro_f1"),),
    predictions_doc="a medium label per example id",
    label_column="medium",
    extra_gold_columns=("coarse", "fine"),   # the same reading at other granularities
)
