"""Similar narratives on ePiC: the most similar other narrative illustrates the same proverb (accuracy)."""

from figbench.tasks.base import PUBLIC, Benchmark, Metric
from figbench.tasks.kinds import NeighbourTask
from figbench.tasks.proverb_prediction import EPIC_OVERLAP_NOTE

TASK = NeighbourTask(
    name="similar_narratives",
    order=42,
    family="epic",
    family_title="ePiC",
    title="Similar narratives",
    description="For each narrative, name the most similar other narrative; correct when both illustrate the "
                "same proverb.",
    headline="accuracy",
    metrics=(Metric("accuracy", "Accuracy"),
             *(Metric(f"accuracy_{d}", f"Accuracy ({d})") for d in ("cosine", "js", "l2", "l1"))),
    benchmarks=(Benchmark("similar_narratives", "epic", "seen", "test", "ePiC similar (seen)",
                          "ePiC similar narratives", gold=PUBLIC,
                          note=EPIC_OVERLAP_NOTE),),
    predictions_doc="the id of the most similar other narrative per narrative id",
    resample_unit="narratives",
    label_column="proverb_id",
    extra_gold_columns=("proverb", "label"),   # the proverb tells which narratives share it
)
