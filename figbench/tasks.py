"""The tasks figbench scores, with the datasets they run on and their headline metric.

Baselines write result records with one of these task names; the leaderboard groups and ranks by
them. ``predictions`` says what a submission's predictions file holds (see ``leaderboard/README``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Task:
    name: str
    family: str
    datasets: tuple[str, ...]
    headline: str
    predictions: str
    description: str


TASKS: dict[str, Task] = {
    t.name: t
    for t in (
        Task("cdec", "coreference", ("ecbplus", "ecbmeta", "wec_eng"), "conll_f1",
             "clusters of mention ids for the split",
             "Cross-document event coreference resolution"),
        Task("metaphor_detection", "meta4xnli", ("meta4xnli",), "f1",
             "BIO tags per token, per example id",
             "Metaphor detection as token classification (B-/I-METAPHOR)"),
        Task("metaphor_nli", "meta4xnli", ("meta4xnli",), "accuracy",
             "an NLI label per example id",
             "Metaphor interpretation as natural language inference"),
        Task("metonymy", "wimcor", ("wimcor",), "micro_f1",
             "a label per example id",
             "Location metonymy resolution of the potentially metonymic word"),
        Task("proverb_prediction", "epic", ("epic",), "accuracy",
             "ranked proverb ids per narrative id",
             "Predict the proverb a narrative illustrates"),
        Task("proverb_alignment", "epic", ("epic",), "token_f1",
             "predicted narrative spans per (narrative id, proverb span)",
             "Align proverb spans to narrative spans"),
        Task("narrative_generation", "epic", ("epic",), "rougeL",
             "a generated narrative per example id",
             "Generate a narrative from a proverb and keywords"),
        Task("similar_narratives", "epic", ("epic",), "accuracy",
             "the id of the most similar other narrative per narrative id",
             "Find the narrative that illustrates the same proverb"),
    )
}


def get_task(name: str) -> Task:
    try:
        return TASKS[name]
    except KeyError:
        raise ValueError(f"unknown task {name!r}; known tasks: {sorted(TASKS)}") from None
