"""Location metonymy resolution on WiMCor (micro F1 over the medium labels)."""

from figbench.tasks.base import PUBLIC, Benchmark, Metric, Plot, Prompt
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
    # LOCATION, INSTITUTE, TEAM, ARTIFACT, EVENT (the medium labels, in their order)
    prompt=Prompt("{text}\nQuestion: In this sentence, what does \"{pmw}\" stand for: a location, an institution, "
                  "a team, an artifact or an event?\nAnswer:",
                  ("a location", "an institution", "a team", "an artifact", "an event")),
)
