"""Proverb prediction on ePiC: rank the proverbs a narrative may illustrate (accuracy, MRR)."""

from figbench.tasks.base import PUBLIC, Benchmark, Metric, Plot, Prompt
from figbench.tasks.kinds import RankingTask

_GROUP = "ePiC proverb prediction"
#: measured on the release (datasets/epic/README.md, "Cross-config overlap"; tests/test_epic_builder.py)
EPIC_OVERLAP_NOTE = ("Cross-config overlap: 600 of the 1,000 seen-test narratives are in the unseen config's train "
                     "split (same ids, same proverb), and 600 of the 1,000 unseen-test narratives are in the seen "
                     "config's train split. Train on the config's own train split only (the clean protocol the "
                     "baselines follow); a submission trained on the other config's train split has seen 60% of "
                     "its test narratives with their answers.")

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
        Benchmark("proverb_prediction", "epic", "seen", "test", "ePiC seen", _GROUP, gold=PUBLIC,
                  note=EPIC_OVERLAP_NOTE),
        Benchmark("proverb_prediction", "epic", "unseen", "test", "ePiC unseen", _GROUP, gold=PUBLIC,
                  note=EPIC_OVERLAP_NOTE),
    ),
    plots=(Plot("distribution", "Proverb prediction accuracy of every submission", "accuracy"),),
    predictions_doc="ranked proverb ids per narrative id (best first)",
    resample_unit="narratives",
    label_column="proverb_id",
    extra_gold_columns=("proverb", "label"),   # the answer as text and as class index
    # the answers: every candidate proverb of the config (seen: all 250; unseen: the 100 of its test part)
    prompt=Prompt("{narrative}\nQuestion: Which proverb does this story illustrate?\nAnswer:"),
)
