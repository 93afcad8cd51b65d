"""Metaphor interpretation as natural language inference on Meta4XNLI (accuracy)."""

from figbench.tasks.base import PUBLIC, Benchmark, Metric, Plot, Prompt
from figbench.tasks.kinds import LabelTask

_GROUPS = ("met", "no_met", "nonrelevant")

TASK = LabelTask(
    name="metaphor_nli",
    order=21,
    family="meta4xnli",
    family_title="Meta4XNLI",
    title="Metaphor interpretation (NLI)",
    description="Metaphor interpretation as natural language inference (entailment / neutral / contradiction); "
                "accuracy overall, by metaphor status and by language.",
    headline="accuracy",
    metrics=(Metric("accuracy", "Accuracy"),
             *(Metric(f"{avg}_{m}", f"{avg.capitalize()} {m if m != 'f1' else 'F1'}")
               for avg in ("micro", "macro") for m in ("f1", "precision", "recall")),
             *(Metric(f"accuracy_{g}", f"Accuracy ({g})") for g in _GROUPS),
             *(Metric(f"accuracy_{lang}", f"Accuracy ({lang.upper()})") for lang in ("en", "es")),
             *(Metric(f"accuracy_{lang}_{g}", f"Accuracy ({lang.upper()}, {g})")
               for lang in ("en", "es") for g in _GROUPS)),
    columns=("accuracy", "accuracy_met", "accuracy_no_met", "accuracy_en", "accuracy_es", "macro_f1"),
    benchmarks=(
        Benchmark("metaphor_nli", "meta4xnli", "interpretation", "test", "Meta4XNLI NLI", "Meta4XNLI NLI", gold=PUBLIC),
    ),
    plots=(Plot("distribution", "NLI accuracy of every submission", "accuracy"),),
    predictions_doc="an NLI label (entailment, neutral, contradiction) per example id",
    label_column="gold_label",
    group_columns=("metaphor_status", "language"),
    # entailment, neutral, contradiction: lm-evaluation-harness's own NLI wording (its ANLI / RTE prompts)
    prompt=Prompt("{premise}\nQuestion: {hypothesis} True, False, or Neither?\nAnswer:", ("True", "Neither", "False")),
)
