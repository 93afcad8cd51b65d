"""figbench's embedding-shaped tasks as ``mteb`` task classes (``figbench mteb tasks``), their data from figbench's
builders, offline.

======================================  ====================  ===========================================
task                                    MTEB type             data (figbench builder, split)
======================================  ====================  ===========================================
FigbenchEpicSimilarNarratives           Retrieval             ePiC seen test: each narrative queries the
                                                              others; relevant: the same proverb
FigbenchWimcorMetonymyClassification    Classification        WiMCor sample: medium label of the sentence
FigbenchMeta4XNLIDetectionEnClassif.    Classification        Meta4XNLI detection_en: does the sentence
(and ...Es...)                                                hold a metaphor (any B-METAPHOR tag)
FigbenchMeta4XNLINLIPairClassification  PairClassification    Meta4XNLI interpretation test: entailment
                                                              (1) vs contradiction (0), neutral left out
FigbenchEcbplusEventClustering          Clustering            ECB+ events test: event mentions (in their
(and ...Ecbmeta...)                                           sentence) by gold cluster
======================================  ====================  ===========================================

Protocols that match a figbench baseline give the same number: ``FigbenchEpicSimilarNarratives``'s
``precision_at_1`` (the nearest other narrative illustrates the same proverb, self-matches ignored) is the
``similar_narratives`` accuracy of ``figbench baseline epic --task similar --method embedding`` with the same
encoder (tests/test_mteb_harness.py checks the equality with MiniLM).

``figbench submit --from-mteb`` (:func:`submissions_from_mteb`) explains why it refuses: MTEB's result files hold
aggregate scores only; its per-example predictions (``mteb.evaluate(..., prediction_folder=...)``) are of
different shapes than the board's tasks (retrieval scores over the top documents, a logistic regression's
labels on undersampled training data, binary pair similarities, k-means assignments of subsamples), so
none of them is the prediction a figbench benchmark scores, except similar narratives' top document, which
``figbench baseline epic --task similar`` already submits with the same encoder and the same result.
"""

from __future__ import annotations

from typing import Any, ClassVar

from mteb.abstasks.classification import AbsTaskClassification
from mteb.abstasks.clustering import AbsTaskClustering
from mteb.abstasks.pair_classification import AbsTaskPairClassification
from mteb.abstasks.retrieval import AbsTaskRetrieval
from mteb.abstasks.task_metadata import TaskMetadata

from figbench import __version__

_BIB = ""   # the corpora's citations are in their dataset cards (datasets/<corpus>/README.md)


def _metadata(name: str, corpus: str, description: str, type_: str, main_score: str, *, langs: list[str],
              splits: list[str], domains: list[str], category: str = "t2t") -> TaskMetadata:
    return TaskMetadata(
        name=name, description=description + f" Data: figbench's `{corpus}` builder (offline, FIGBENCH_DATA_DIR).",
        reference=None, dataset={"path": f"figbench/{corpus}", "revision": __version__}, type=type_,
        category=category, modalities=["text"], eval_splits=splits, eval_langs=langs, main_score=main_score,
        date=None, domains=domains, task_subtypes=None, license=None, annotations_creators="expert-annotated",
        dialect=[], sample_creation="found", bibtex_citation=_BIB)


def _split(corpus: str, config: str, split: str):
    from figbench.loading import load_dataset

    return load_dataset(corpus, config, split=split)


class _FigbenchData:
    """Loads its splits from figbench's builders (``_splits``) instead of the Hugging Face Hub."""

    benchmark: ClassVar[str] = ""        #: the figbench benchmark the task is built from (``figbench mteb tasks``)
    max_examples: ClassVar[int | None] = None   #: the first N examples of each split (None: all; tests and trials)

    def load_data(self, num_proc: int | None = None, **kwargs: Any) -> None:
        if self.data_loaded:
            return
        self.dataset = self._splits()
        self.data_loaded = True

    def _cap(self, rows: list) -> list:
        return rows if self.max_examples is None else rows[: self.max_examples]


class FigbenchEpicSimilarNarratives(_FigbenchData, AbsTaskRetrieval):
    benchmark = "similar_narratives/epic/seen/test"
    ignore_identical_ids = True
    metadata = _metadata(
        "FigbenchEpicSimilarNarratives", "epic",
        "ePiC similar narratives: each test narrative (seen config) retrieves the other test narratives; relevant are "
        "those illustrating the same proverb. precision_at_1 is figbench's similar_narratives accuracy.",
        "Retrieval", "precision_at_1", langs=["eng-Latn"], splits=["test"], domains=["Fiction", "Written"])

    def _splits(self):
        from datasets import Dataset

        rows = self._cap(list(_split("epic", "seen", "test")))
        by_proverb: dict[str, list[str]] = {}
        for r in rows:
            by_proverb.setdefault(r["proverb_id"], []).append(r["id"])
        docs = Dataset.from_list([{"id": r["id"], "text": r["narrative"]} for r in rows])
        relevant = {r["id"]: {d: 1 for d in by_proverb[r["proverb_id"]] if d != r["id"]} for r in rows}
        return {"default": {"test": {"corpus": docs, "queries": docs, "relevant_docs": relevant,
                                     "top_ranked": None}}}


class FigbenchWimcorMetonymyClassification(_FigbenchData, AbsTaskClassification):
    benchmark = "metonymy/wimcor/sample/test"
    n_experiments = 1
    samples_per_label = 10**9     # the whole training split (no undersampling)
    metadata = _metadata(
        "FigbenchWimcorMetonymyClassification", "wimcor",
        "WiMCor location metonymy: the medium reading (LOCATION, INSTITUTE, TEAM, ARTIFACT, EVENT) of the potentially "
        "metonymic word, from the sentence's embedding (logistic regression on the train split).",
        "Classification", "accuracy", langs=["eng-Latn"], splits=["test"], domains=["Encyclopaedic", "Written"])

    def _splits(self):
        from datasets import Dataset, DatasetDict

        out = {}
        for split in ("train", "test"):
            rows = self._cap(list(_split("wimcor", "sample", split)))
            out[split] = Dataset.from_list([{"id": r["id"], "text": r["text"], "label": r["medium"]} for r in rows])
        return DatasetDict(out)


class _Meta4XNLIDetection(_FigbenchData, AbsTaskClassification):
    n_experiments = 1
    samples_per_label = 10**9
    config: ClassVar[str] = ""

    def _splits(self):
        from datasets import Dataset, DatasetDict

        out = {}
        for split in ("train", "test"):
            rows = self._cap(list(_split("meta4xnli", self.config, split)))
            out[split] = Dataset.from_list([{"id": r["id"], "text": " ".join(r["tokens"]),
                                             "label": int(any(t == 1 for t in r["tags"]))} for r in rows])
        return DatasetDict(out)


def _detection(lang: str, code: str):
    name = f"FigbenchMeta4XNLIDetection{lang.capitalize()}Classification"
    return type(name, (_Meta4XNLIDetection,), {
        "config": f"detection_{lang}", "benchmark": f"metaphor_detection/meta4xnli/detection_{lang}/test",
        "metadata": _metadata(
            name, "meta4xnli",
            f"Meta4XNLI metaphor detection ({lang.upper()}) at sentence level: does the sentence hold a metaphor "
            "(any B-METAPHOR tag)? Logistic regression on the train split's embeddings.",
            "Classification", "accuracy", langs=[code], splits=["test"], domains=["Non-fiction", "Written"])})


FigbenchMeta4XNLIDetectionEnClassification = _detection("en", "eng-Latn")
FigbenchMeta4XNLIDetectionEsClassification = _detection("es", "spa-Latn")


class FigbenchMeta4XNLINLIPairClassification(_FigbenchData, AbsTaskPairClassification):
    benchmark = "metaphor_nli/meta4xnli/interpretation/test"
    metadata = _metadata(
        "FigbenchMeta4XNLINLIPairClassification", "meta4xnli",
        "Meta4XNLI NLI as pair classification (as MTEB's XNLI): premise and hypothesis, entailment (1) vs "
        "contradiction (0); neutral pairs are left out.",
        "PairClassification", "max_ap", langs=["eng-Latn", "spa-Latn"], splits=["test"],
        domains=["Non-fiction", "Written"])

    def _splits(self):
        from datasets import Dataset

        rows = self._cap([r for r in _split("meta4xnli", "interpretation", "test") if r["gold_label"] != 1])
        pairs = Dataset.from_list([{"sentence1": [r["premise"] for r in rows],
                                    "sentence2": [r["hypothesis"] for r in rows],
                                    "labels": [int(r["gold_label"] == 0) for r in rows]}])
        return {"default": {"test": pairs}}


class _EventClustering(_FigbenchData, AbsTaskClustering):
    max_fraction_of_documents_to_embed = None
    corpus: ClassVar[str] = ""
    config: ClassVar[str] = ""
    split: ClassVar[str] = "test"

    def _splits(self):
        from datasets import Dataset, DatasetDict

        rows = self._cap([r for r in _split(self.corpus, self.config, self.split) if r["mention_class"] == "event"])
        text = [" ".join([*r["sentence"][:r["token_start"]], "<m>", *r["sentence"][r["token_start"]:r["token_end"]],
                          "</m>", *r["sentence"][r["token_end"]:]]) for r in rows]
        return DatasetDict({"test": Dataset.from_list([{"sentences": t, "labels": r["cluster_id"]}
                                                       for t, r in zip(text, rows)])})


def _clustering(corpus: str, config: str, split: str, title: str):
    name = f"Figbench{title.replace('+', 'plus').replace('_', '')}EventClustering"
    return type(name, (_EventClustering,), {
        "corpus": corpus, "config": config, "split": split, "benchmark": f"cdec/{corpus}/{config}/{split}",
        "metadata": _metadata(
            name, corpus,
            f"{title} event mentions (each marked <m> ... </m> in its sentence) clustered by the real-world event they "
            "refer to (gold coreference clusters); V-measure of k-means on the embeddings.",
            "Clustering", "v_measure", langs=["eng-Latn"], splits=["test"], domains=["News", "Written"])})


FigbenchEcbplusEventClustering = _clustering("ecbplus", "events", "test", "ECB+")
FigbenchEcbmetaEventClustering = _clustering("ecbmeta", "meta_m", "test", "ECB+META_m")

#: every figbench MTEB task class, in display order
TASK_CLASSES: tuple[type, ...] = (
    FigbenchEpicSimilarNarratives, FigbenchWimcorMetonymyClassification, FigbenchMeta4XNLIDetectionEnClassification,
    FigbenchMeta4XNLIDetectionEsClassification, FigbenchMeta4XNLINLIPairClassification,
    FigbenchEcbplusEventClustering, FigbenchEcbmetaEventClustering,
)


def tasks(**overrides: Any) -> list:
    """An instance of every task (``overrides``: class attributes such as ``max_examples``)."""
    return [type(c.__name__, (c,), overrides)() if overrides else c() for c in TASK_CLASSES]


def submissions_from_mteb(out_dir) -> None:
    """``figbench submit --from-mteb``: always refused, with the reason (the module's docstring)."""
    raise ValueError(
        f"--from-mteb {out_dir}: MTEB keeps aggregate scores, not the predictions figbench's benchmarks score (its "
        "optional prediction files hold retrieval scores, a logistic regression's labels on resampled training data, "
        "binary pair similarities or k-means assignments of subsamples: none is a figbench submission). Submit the "
        "matching figbench baseline instead, e.g. `figbench baseline epic --task similar --method embedding --model "
        "MODEL`, whose similar-narratives accuracy equals FigbenchEpicSimilarNarratives' precision_at_1; see "
        "figbench.harnesses.mteb_tasks")
