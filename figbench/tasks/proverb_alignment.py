"""Proverb-narrative span alignment on ePiC (token F1)."""

from figbench.tasks.base import PUBLIC, Benchmark, Metric, Plot
from figbench.tasks.kinds import SpanAlignmentTask

TASK = SpanAlignmentTask(
    name="proverb_alignment",
    order=41,
    family="epic",
    family_title="ePiC",
    title="Proverb alignment",
    description="Align each proverb span with the narrative span it corresponds to; token-overlap F1 "
                "averaged over pairs (SQuAD style) and exact match.",
    headline="token_f1",
    metrics=(Metric("token_f1", "Token F1"), Metric("token_precision", "Token P"), Metric("token_recall", "Token R"),
             Metric("exact_match", "Exact match"), Metric("micro_token_f1", "Micro token F1"),
             Metric("micro_token_precision", "Micro token P"), Metric("micro_token_recall", "Micro token R")),
    columns=("token_f1", "token_precision", "token_recall", "exact_match"),
    benchmarks=(Benchmark("proverb_alignment", "epic", "alignment", "test", "ePiC alignment", "ePiC alignment",
                          gold=PUBLIC),),
    plots=(Plot("distribution", "Alignment token F1 of every submission", "token_f1"),),
    predictions_doc="predicted narrative spans per pair id: [start, end] character offsets or the span text",
)
