"""Predicted topics: the split's documents clustered into topics before mention pairs are formed.

The reference pipelines do not pair mentions within gold topics at test time: Barhom et al. (2019)
cluster the ECB+ test documents and release the result (``predicted_topics`` of
``shanybar/event_entity_coref_ecb_plus``), which Cattan et al. (2021) and Ahmed et al. (2023,
``lemma_ce_coref``: ``predicted_topic``) reuse. Their ``doc_clustering/cluster_topics.py`` is
reproduced here with scikit-learn:

* a document's text is its tokens joined with spaces, without sentence 0 of the ``*ecbplus``
  documents (their URL line; ``doc_clustering/load_dataset.py`` drops it);
* tf-idf vectors: ``TfidfVectorizer(max_df=0.5, min_df=3, ngram_range=(1, 3), stop_words="english")``
  fitted on the split's documents only;
* ``KMeans(n_clusters=20, init="k-means++", max_iter=200, n_init=20, random_state=665)``; 20 is the
  number of gold subtopics of ECB+ test, so figbench's default is the number of gold subtopics of the
  documents being clustered (a count, not their membership, as in the reference).

The quality of the clustering against the gold subtopics and topics (adjusted Rand index,
homogeneity, completeness, V-measure, purity; Barhom et al. print the first four against the
subtopics) goes into the run's record.
"""

from __future__ import annotations

import io
import json
import pickle
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Barhom et al. 2019, doc_clustering/cluster_topics.py
TFIDF_OPTIONS: dict[str, Any] = {"max_df": 0.5, "min_df": 3, "ngram_range": (1, 3), "stop_words": "english"}
KMEANS_OPTIONS: dict[str, Any] = {"init": "k-means++", "max_iter": 200, "n_init": 20}
DEFAULT_SEED = 665
#: the field the predicted topic is written to (``--within predicted_topic`` groups by it)
FIELD = "predicted_topic"
SOURCES = ("auto", "documents", "mentions")


@dataclass
class TopicClustering:
    """Predicted topic of every clustered document, and what was done (for the record)."""

    topics: dict[str, str]                          #: doc_id -> ``predicted_<k>``
    info: dict[str, Any] = field(default_factory=dict)


def document_text(tokens: Sequence[str], sentence_ids: Sequence[int], doc_id: str) -> str:
    """The text a document is clustered by (Barhom et al.: sentence 0 of ``*ecbplus`` files dropped)."""
    drop_first = str(doc_id).endswith("ecbplus")
    return " ".join(t for t, s in zip(tokens, sentence_ids) if not (drop_first and int(s) == 0))


def texts_from_documents(documents: Iterable[Mapping]) -> tuple[dict[str, str], dict[str, tuple[str, str]]]:
    """Texts and gold ``(topic, subtopic)`` of rows of a ``documents`` config (``tokens``, ``sentence_ids``)."""
    texts: dict[str, str] = {}
    gold: dict[str, tuple[str, str]] = {}
    for d in documents:
        doc_id = str(d["doc_id"])
        texts[doc_id] = document_text(d["tokens"], d["sentence_ids"], doc_id)
        gold[doc_id] = (str(d["topic"]), str(d.get("subtopic", d["topic"])))
    return texts, gold


def texts_from_mentions(rows: Iterable[Mapping]) -> tuple[dict[str, str], dict[str, tuple[str, str]]]:
    """Texts and gold topics rebuilt from mention rows: a document's longest ``context`` when contexts
    are whole documents, else its distinct mention sentences in order (ECB+META_1 has only those)."""
    contexts: dict[str, list[str]] = {}
    sentences: dict[str, dict[int, list[str]]] = {}
    gold: dict[str, tuple[str, str]] = {}
    for r in rows:
        doc_id = str(r["doc_id"])
        gold.setdefault(doc_id, (str(r["topic"]), str(r.get("subtopic", r["topic"]))))
        context = list(r.get("context") or ())
        if len(context) > len(contexts.get(doc_id, ())):
            contexts[doc_id] = context
        sentences.setdefault(doc_id, {}).setdefault(int(r["sentence_id"]), list(r.get("sentence") or ()))
    texts = {}
    for doc_id, by_id in sentences.items():
        joined = [t for _, sent in sorted(by_id.items()) for t in sent]
        texts[doc_id] = " ".join(contexts[doc_id] if len(contexts[doc_id]) > len(joined) else joined)
    return texts, gold


def cluster_documents(texts: Mapping[str, str], n_topics: int, seed: int = DEFAULT_SEED,
                      **tfidf: Any) -> dict[str, int]:
    """K-Means cluster (0..n_topics-1) of every document over tf-idf vectors (Barhom et al.'s settings;
    ``tfidf`` overrides :data:`TFIDF_OPTIONS`, e.g. ``min_df`` for tiny corpora)."""
    from sklearn.cluster import KMeans
    from sklearn.feature_extraction.text import TfidfVectorizer

    doc_ids = sorted(texts)
    if not 1 <= n_topics <= len(doc_ids):
        raise ValueError(f"cannot cluster {len(doc_ids)} documents into {n_topics} topics")
    try:
        x = TfidfVectorizer(**{**TFIDF_OPTIONS, **tfidf}).fit_transform([texts[d] for d in doc_ids])
    except ValueError as e:  # e.g. no term left after min_df / max_df
        raise ValueError(f"predicted topics: no tf-idf vocabulary for {len(doc_ids)} documents ({e})") from e
    labels = KMeans(n_clusters=n_topics, random_state=seed, **KMEANS_OPTIONS).fit_predict(x)
    return {d: int(k) for d, k in zip(doc_ids, labels)}


def purity(predicted: Sequence[int], gold: Sequence[str]) -> float:
    """Share of documents whose gold label is the most frequent one of their predicted cluster."""
    by_cluster: dict[int, Counter] = {}
    for p, g in zip(predicted, gold):
        by_cluster.setdefault(p, Counter())[g] += 1
    return sum(c.most_common(1)[0][1] for c in by_cluster.values()) / max(len(predicted), 1)


def clustering_quality(predicted: Mapping[str, int], gold: Mapping[str, str]) -> dict[str, float]:
    """Adjusted Rand index, homogeneity, completeness, V-measure and purity of ``predicted`` against ``gold``."""
    from sklearn import metrics

    docs = sorted(predicted)
    p = [predicted[d] for d in docs]
    g = [gold[d] for d in docs]
    return {"adjusted_rand": float(metrics.adjusted_rand_score(g, p)),
            "homogeneity": float(metrics.homogeneity_score(g, p)),
            "completeness": float(metrics.completeness_score(g, p)),
            "v_measure": float(metrics.v_measure_score(g, p)),
            "purity": float(purity(p, g))}


def predict_topics(texts: Mapping[str, str], gold: Mapping[str, tuple[str, str]], *, n_topics: int | None = None,
                   seed: int = DEFAULT_SEED, source: str = "", **tfidf: Any) -> TopicClustering:
    """Cluster ``texts`` into topics and measure the clustering against the gold ``(topic, subtopic)``."""
    n_gold_subtopics = len({sub for _, sub in gold.values()})
    k = n_topics or n_gold_subtopics
    clusters = cluster_documents(texts, k, seed, **tfidf)
    info: dict[str, Any] = {
        "method": "K-Means over tf-idf document vectors (Barhom et al. 2019, doc_clustering/cluster_topics.py)",
        "source": source, "documents": len(clusters), "n_topics": k,
        "n_topics_rule": "given" if n_topics else "number of gold subtopics (Barhom et al.: 20 on ECB+ test)",
        "seed": seed,
        "tfidf": {key: list(v) if isinstance(v, tuple) else v for key, v in {**TFIDF_OPTIONS, **tfidf}.items()},
        "kmeans": dict(KMEANS_OPTIONS),
        "gold_subtopics": n_gold_subtopics, "gold_topics": len({t for t, _ in gold.values()}),
        "vs_gold_subtopics": clustering_quality(clusters, {d: gold[d][1] for d in clusters}),
        "vs_gold_topics": clustering_quality(clusters, {d: gold[d][0] for d in clusters}),
    }
    return TopicClustering({d: f"predicted_{c}" for d, c in clusters.items()}, info)


class _ListsOnly(pickle.Unpickler):
    """Unpickles plain lists, dicts and strings only (the reference's ``predicted_topics`` file)."""

    def find_class(self, module: str, name: str):
        raise ValueError(f"predicted-topics file: refusing to load {module}.{name} (only lists of document ids)")


def load_topic_file(path: str | Path) -> dict[str, str]:
    """doc_id -> topic from a file: JSON (a list of lists of doc ids, or an object doc_id -> topic) or
    the pickled list of lists of Barhom et al.'s ``data/external/document_clustering/predicted_topics``
    (read without executing code). Ids ending in ``.xml`` lose the suffix."""
    raw = Path(path).read_bytes()
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        data = _ListsOnly(io.BytesIO(raw)).load()
    strip = (lambda d: str(d)[: -len(".xml")] if str(d).endswith(".xml") else str(d))
    if isinstance(data, dict):
        return {strip(d): str(t) for d, t in data.items()}
    if isinstance(data, list) and all(isinstance(c, (list, tuple, set)) for c in data):
        return {strip(d): f"given_{k}" for k, docs in enumerate(data) for d in docs}
    raise ValueError(f"{path}: expected a list of lists of document ids or an object doc_id -> topic")


def given_topics(topics: Mapping[str, str], gold: Mapping[str, tuple[str, str]], source: str) -> TopicClustering:
    """A clustering read from a file (:func:`load_topic_file`), measured like :func:`predict_topics`
    on the documents both know."""
    docs = sorted(set(topics) & set(gold))
    ids = {t: k for k, t in enumerate(sorted(set(topics.values())))}
    clusters = {d: ids[topics[d]] for d in docs}
    info: dict[str, Any] = {
        "method": "given clustering", "source": source, "documents": len(docs), "n_topics": len(set(clusters.values())),
        "gold_subtopics": len({gold[d][1] for d in docs}), "gold_topics": len({gold[d][0] for d in docs}),
        "vs_gold_subtopics": clustering_quality(clusters, {d: gold[d][1] for d in docs}),
        "vs_gold_topics": clustering_quality(clusters, {d: gold[d][0] for d in docs}),
    }
    return TopicClustering({d: str(t) for d, t in topics.items()}, info)


def with_predicted_topics(rows: Sequence[Mapping], clustering: TopicClustering) -> list[dict]:
    """Copies of ``rows`` with the :data:`FIELD` of their document; a document left out is an error."""
    missing = sorted({str(r["doc_id"]) for r in rows} - set(clustering.topics))
    if missing:
        raise ValueError(f"predicted topics: {len(missing)} documents of the mentions were not clustered "
                         f"(e.g. {missing[:3]}); the documents source does not match the split")
    return [{**r, FIELD: clustering.topics[str(r["doc_id"])]} for r in rows]


def mention_agreement(rows: Sequence[Mapping]) -> dict[str, float]:
    """How the mention pairs allowed by the predicted topics relate to the gold subtopic pairs:
    the share of same-subtopic pairs kept (pair recall) and of kept pairs in one subtopic (pair precision)."""
    def pairs_by(key: str) -> Counter:
        return Counter(str(r[key]) for r in rows)

    both = Counter((str(r[FIELD]), str(r["subtopic"])) for r in rows)
    same_pred = sum(n * (n - 1) // 2 for n in pairs_by(FIELD).values())
    same_gold = sum(n * (n - 1) // 2 for n in pairs_by("subtopic").values())
    same_both = sum(n * (n - 1) // 2 for n in both.values())
    return {"subtopic_pair_recall": same_both / same_gold if same_gold else 1.0,
            "subtopic_pair_precision": same_both / same_pred if same_pred else 1.0}


__all__ = ["DEFAULT_SEED", "FIELD", "KMEANS_OPTIONS", "SOURCES", "TFIDF_OPTIONS", "TopicClustering",
           "cluster_documents", "clustering_quality", "document_text", "given_topics", "load_topic_file",
           "mention_agreement", "predict_topics",
           "purity", "texts_from_documents", "texts_from_mentions", "with_predicted_topics"]
