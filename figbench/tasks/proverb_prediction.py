"""Proverb prediction on ePiC: rank the proverbs a narrative may illustrate (accuracy, MRR)."""

from figbench.tasks.base import Benchmark, Metric, Plot
from figbench.tasks.kinds import RankingTask

_GROUP = "ePiC proverb prediction"

TASK = RankingTask(
    name="proverb_prediction",
    order=40,
    family="epic",
    family_title="ePiC",
    title="Proverb prediction",
    description="Predict the proverb a narrative illustrates: a ranking of proverb ids, best first; "
                "accuracy (gold first), MRR and top-5 accuracy.",
    headline="accuracy",
    metrics=(Metric("accuracy", "Accuracy"), Metric("mrr", "MRR"), Metric("top5_accuracy", "Top-5 accuracy")),
    benchmarks=(
        Benchmark("proverb_prediction", "epic", "seen", "test", "ePiC seen", _GROUP),
        Benchmark("proverb_prediction", "epic", "unseen", "test", "ePiC unseen", _GROUP),
    ),
    plots=(Plot("distribution", "Proverb prediction accuracy of every submission", "accuracy"),),
    predictions_doc="ranked proverb ids per narrative id (best first)",
    resample_unit="narratives",
    label_column="proverb_id",
)
