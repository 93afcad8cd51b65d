"""A benchmark's split as multiple-choice questions for a language model, and the answers back as the
task's predictions.

Each task that declares a :class:`~figbench.tasks.base.Prompt` is asked per its kind:

* a **label** task (Meta4XNLI NLI, WiMCor metonymy): one question per example, the prompt's choices standing
  for the classes of the label column in their order;
* a **ranking** task (ePiC proverb prediction): one question per narrative, every candidate proverb of the
  config a choice (the candidates the baselines rank: :func:`figbench_baselines.epic.data.load_prediction`);
  the choices ordered by log-likelihood are the submitted ranking;
* a **clustering** task (cross-document event coreference): GPT_LH's question, one per candidate pair of the
  Lemma Heuristic filter (the pairs ``figbench baseline cdec --method llm_lh`` asks about, same filter
  settings); "yes" where P(yes) / (P(yes) + P(no)) > 0.5, and the decisions clustered as ``llm_lh`` clusters
  them (connected components inside the method's groups).

A question is a row ``{"id", "benchmark", "query", "choices", "answer_ids", "gold"}`` (clustering: also ``a``
and ``b``, the pair's mention ids): ``answer_ids`` are what each choice means in the task's predictions (a label,
a proverb id, ``no``/``yes``), so answers convert back without the data, except a clustering, which needs the
split's mentions to cluster.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Mapping, Sequence
from typing import Any

from figbench.tasks import Benchmark, Task, benchmarks, get_task

#: the task kinds a prompt can ask
ASKED_KINDS = ("label", "ranking", "clustering")


def asked_benchmarks() -> list[Benchmark]:
    """Every benchmark whose task declares a prompt, in display order."""
    out = []
    for b in benchmarks():
        task = get_task(b.task)
        if task.prompt is not None and (not task.prompt.benchmarks or b.key in task.prompt.benchmarks):
            if task.kind not in ASKED_KINDS:
                raise ValueError(f"task {task.name}: a prompt can ask tasks of kind {ASKED_KINDS}, not {task.kind!r}")
            out.append(b)
    return out


def find(key: str) -> Benchmark:
    for b in asked_benchmarks():
        if b.key == key:
            return b
    raise ValueError(f"no language-model questions for benchmark {key!r}; "
                     f"they exist for {[b.key for b in asked_benchmarks()]}")


def questions(benchmark: Benchmark, data_dir: str | None = None) -> list[dict[str, Any]]:
    """The benchmark's split as questions (see the module's docstring), in the split's order."""
    task = get_task(benchmark.task)
    return _QUESTIONS[task.kind](task, benchmark, data_dir)


def _format(task: Task, fields: Mapping[str, Any], where: str) -> str:
    try:
        return task.prompt.text.format(**fields)
    except KeyError as e:
        raise ValueError(f"task {task.name}: its prompt names the field {e} that {where} lacks") from None


def _label_questions(task: Task, b: Benchmark, data_dir: str | None) -> list[dict[str, Any]]:
    from figbench.labels import label_names
    from figbench.loading import load_dataset

    split = load_dataset(b.dataset, b.config, split=b.split, data_dir=data_dir)
    names = label_names(split, task.label_column)
    if names is None or len(names) != len(task.prompt.choices):
        raise ValueError(f"task {task.name}: its prompt has {len(task.prompt.choices)} choices for the label column "
                         f"{task.label_column!r} of {b.key}, whose classes are {names}")
    out = []
    for row in split:
        out.append({"id": str(row[task.id_column]), "benchmark": b.key, "query": _format(task, row, b.key),
                    "choices": list(task.prompt.choices), "answer_ids": list(names),
                    "gold": int(row[task.label_column])})
    return out


def _ranking_questions(task: Task, b: Benchmark, data_dir: str | None) -> list[dict[str, Any]]:
    from figbench_baselines.epic.data import load_prediction

    data = load_prediction(b.config, data_dir)
    texts = [data.proverbs[c] for c in data.candidates]
    return [{"id": str(row["id"]), "benchmark": b.key, "query": _format(task, row, b.key), "choices": texts,
             "answer_ids": list(data.candidates), "gold": data.candidates.index(row[task.label_column])}
            for row in data.test]


def cdec_args(b: Benchmark, data_dir: str | None) -> argparse.Namespace:
    """``figbench baseline cdec --method llm_lh`` on the benchmark: its filter, groups and clustering settings."""
    from figbench_baselines.cdec.cli import build_parser, normalise

    argv = ["--dataset", b.dataset, "--config", b.config, "--split", b.split, "--method", "llm_lh",
            "--llm-model", "lm-evaluation-harness"]
    if data_dir:
        argv += ["--data-dir", data_dir]
    return normalise(build_parser().parse_args(argv))


def mentions(b: Benchmark, data_dir: str | None) -> tuple[list[dict], argparse.Namespace]:
    """The mentions ``llm_lh`` clusters on the benchmark, and its settings."""
    from figbench_baselines.cdec.steps.data import check_rows, load_mentions

    args = cdec_args(b, data_dir)
    rows = load_mentions(args.dataset, args.config, args.split, args.data_dir, args.mention_class)
    check_rows(rows, b.key, need_gold=True)
    return rows, args


def _clustering_questions(task: Task, b: Benchmark, data_dir: str | None) -> list[dict[str, Any]]:
    from figbench_baselines.cdec.models.llm import marked_sentence
    from figbench_baselines.cdec.pipeline import Stage, lh_candidates
    from figbench_baselines.cdec.steps.pipeline_defaults import setting

    rows, args = mentions(b, data_dir)
    pairs = lh_candidates(rows, args, Stage())
    width = setting(args, "context_words")
    out = []
    for i, j in pairs.tolist():
        a, c = rows[i], rows[j]
        query = _format(task, {"a": marked_sentence(a, width), "b": marked_sentence(c, width)}, b.key)
        out.append({"id": f"{a['mention_id']}|{c['mention_id']}", "benchmark": b.key, "query": query,
                    "choices": list(task.prompt.choices), "answer_ids": ["no", "yes"],
                    "gold": int(a["cluster_id"] == c["cluster_id"]), "a": a["mention_id"], "b": c["mention_id"]})
    return out


_QUESTIONS = {"label": _label_questions, "ranking": _ranking_questions, "clustering": _clustering_questions}


# --- answers back to predictions -------------------------------------------------------------------

def best_first(loglikelihoods: Sequence[float]) -> list[int]:
    """Choice indices by log-likelihood, best first; ties to the lower index (as ``argmax`` picks the answer)."""
    return sorted(range(len(loglikelihoods)), key=lambda k: (-loglikelihoods[k], k))


def predictions(benchmark: Benchmark, answered: Sequence[tuple[Mapping[str, Any], Sequence[float]]],
                data_dir: str | None = None) -> Any:
    """The task's predictions from answered questions: ``(question, log-likelihood of each choice)``."""
    task = get_task(benchmark.task)
    for q, lls in answered:
        if len(lls) != len(q["answer_ids"]):
            raise ValueError(f"{benchmark.key}: question {q['id']!r} has {len(q['answer_ids'])} choices but "
                             f"{len(lls)} log-likelihoods")
    if task.kind == "label":
        return {q["id"]: q["answer_ids"][best_first(lls)[0]] for q, lls in answered}
    if task.kind == "ranking":
        return {q["id"]: [q["answer_ids"][k] for k in best_first(lls)] for q, lls in answered}
    return _clusters(benchmark, answered, data_dir)


def yes_probability(lls: Sequence[float]) -> float:
    """P(yes) / (P(yes) + P(no)) from the (no, yes) log-likelihoods (GPT_LH's score of a pair)."""
    no, yes = lls
    return 1.0 / (1.0 + math.exp(no - yes))


def _clusters(b: Benchmark, answered, data_dir: str | None) -> dict[str, Any]:
    import numpy as np
    from figbench_baselines.cdec.steps import clustering
    from figbench_baselines.cdec.steps.evaluation import predicted_document
    from figbench_baselines.cdec.steps.filters import group_labels

    rows, args = mentions(b, data_dir)
    index = {r["mention_id"]: n for n, r in enumerate(rows)}
    unknown = [q["id"] for q, _ in answered if q["a"] not in index or q["b"] not in index]
    if unknown:
        raise ValueError(f"{b.key}: answered pairs {unknown[:3]} name mentions the split does not have")
    pairs = np.array([[index[q["a"]], index[q["b"]]] for q, _ in answered], dtype=np.int64).reshape(-1, 2)
    scores = np.array([yes_probability(lls) for _, lls in answered])
    labels = clustering.cluster("cc", len(rows), pairs, scores, args.threshold, groups=group_labels(rows, args.within),
                                greedy_unscored=args.greedy_unscored)
    return {"format": "clusters", "clusters": predicted_document(rows, labels)}
