"""Narrative generation on ePiC: a narrative from a proverb and keywords (ROUGE-L, BLEU)."""

from figbench.tasks.base import Metric
from figbench.tasks.kinds import GenerationTask

TASK = GenerationTask(
    name="narrative_generation",
    order=43,
    family="epic",
    family_title="ePiC",
    title="Narrative generation",
    description="Generate a narrative from a proverb and keywords; ROUGE-L F1, corpus BLEU and keyword recall.",
    headline="rougeL",
    metrics=(Metric("rougeL", "ROUGE-L F1"), Metric("bleu", "BLEU"), Metric("keyword_recall", "Keyword recall")),
    predictions_doc="a generated narrative per example id",
    resample_unit="narratives",
    reference_column="narrative",
)
