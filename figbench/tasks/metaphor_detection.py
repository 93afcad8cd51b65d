"""Metaphor detection as token classification on Meta4XNLI (strict IOB2 span F1)."""

from figbench.tasks.base import PUBLIC, Benchmark, Metric, Plot
from figbench.tasks.kinds import TaggingTask

_GROUP = "Meta4XNLI detection"

TASK = TaggingTask(
    name="metaphor_detection",
    order=20,
    family="meta4xnli",
    family_title="Meta4XNLI",
    title="Metaphor detection",
    description="Metaphor detection as token classification (B-/I-METAPHOR tags, strict IOB2 span F1).",
    headline="f1",
    metrics=(Metric("f1", "Span F1"), Metric("precision", "Span P"), Metric("recall", "Span R"),
             Metric("token_f1", "Token F1"), Metric("token_precision", "Token P"), Metric("token_recall", "Token R"),
             Metric("accuracy", "Tag accuracy"),
             # in-/out-of-vocabulary scores at span level (as f1) and token level (as token_f1), baseline-only:
             # they need the training vocabulary (figbench.scoring.vocab_spans)
             *(Metric(f"{part}{level}_{m}", f"{title}{label} {m if m != 'f1' else 'F1'}")
               for level, label in (("", " span"), ("_token", " token"))
               for part, title in (("in_vocab", "In-vocabulary"), ("out_vocab", "Out-of-vocabulary"))
               for m in ("f1", "precision", "recall"))),
    columns=("f1", "precision", "recall", "token_f1", "in_vocab_f1", "out_vocab_f1"),
    benchmarks=(
        Benchmark("metaphor_detection", "meta4xnli", "detection_en", "test", "Meta4XNLI detection EN", _GROUP,
                  gold=PUBLIC),
        Benchmark("metaphor_detection", "meta4xnli", "detection_es", "test", "Meta4XNLI detection ES", _GROUP,
                  gold=PUBLIC),
    ),
    plots=(Plot("distribution", "Span F1 of every submission", "f1"),),
    predictions_doc="BIO tags per token, per example id",
    resample_unit="sentences",
    tag_set=("O", "B-METAPHOR", "I-METAPHOR"),
)
