"""Predicted topics (document clustering before pairing) and the LH sentence-token option, on fixtures."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest
from figbench_baselines.cdec.pipeline import default_args, run
from figbench_baselines.cdec.steps import topics
from figbench_baselines.cdec.steps.filters import lh_pairs, sentence_token_set, synonymous_lemma_pairs

#: four subtopics (two topics), each with its own vocabulary; every document also has filler words
VOCAB = {("1", "1a"): "coach club fired sacked manager season league",
         ("1", "1b"): "coach hired contract signed appointment announced deal",
         ("2", "2a"): "earthquake island magnitude tremor struck rescue collapsed",
         ("2", "2b"): "volcano eruption lava ash evacuated crater erupted"}


def _documents(per_subtopic: int = 4, seed: int = 0) -> list[dict]:
    rng = np.random.default_rng(seed)
    docs = []
    for (topic, sub), words in VOCAB.items():
        for k in range(per_subtopic):
            own = rng.permutation(words.split()).tolist()
            tokens = ["http", "example", "url"] + own + own[:4] + ["the", "news", "report", "today"]
            doc_id = f"t{topic}_{sub}_{k}" + ("ecbplus" if sub.endswith("b") else "ecb")
            docs.append({"doc_id": doc_id, "topic": topic, "subtopic": sub, "tokens": tokens,
                         "sentence_ids": [0, 0, 0] + [1] * (len(tokens) - 3)})
    return docs


def test_document_text_drops_the_url_sentence_of_ecbplus_documents():
    assert topics.document_text(["u", "rl", "A", "b"], [0, 0, 1, 1], "36_1ecbplus") == "A b"
    assert topics.document_text(["T", "x", "A"], [0, 0, 1], "36_1ecb") == "T x A"


def test_clustering_is_deterministic_and_recovers_separable_subtopics():
    texts, gold = topics.texts_from_documents(_documents())
    first = topics.predict_topics(texts, gold, source="fixture")
    second = topics.predict_topics(texts, gold, source="fixture")
    assert first.topics == second.topics
    assert first.info["n_topics"] == 4 and first.info["documents"] == 16   # default: number of gold subtopics
    quality = first.info["vs_gold_subtopics"]
    assert quality["adjusted_rand"] == pytest.approx(1.0) and quality["purity"] == pytest.approx(1.0)
    assert first.info["vs_gold_topics"]["homogeneity"] == pytest.approx(1.0)
    assert first.info["seed"] == topics.DEFAULT_SEED and first.info["tfidf"]["ngram_range"] == [1, 3]
    json.dumps(first.info)  # the record stores it
    other_seed = topics.predict_topics(texts, gold, seed=1)
    assert other_seed.info["seed"] == 1 and other_seed.info["vs_gold_subtopics"]["adjusted_rand"] == pytest.approx(1.0)
    assert len(set(topics.predict_topics(texts, gold, n_topics=2).topics.values())) == 2


def test_clustering_errors_are_clear():
    texts, _ = topics.texts_from_documents(_documents())
    with pytest.raises(ValueError, match="into 17 topics"):
        topics.cluster_documents(texts, 17)
    with pytest.raises(ValueError, match="no tf-idf vocabulary"):
        topics.cluster_documents({"a": "x", "b": "y"}, 1)


def test_quality_measures_against_a_known_partition():
    predicted = {"a": 0, "b": 0, "c": 1, "d": 1}
    assert topics.clustering_quality(predicted, {"a": "x", "b": "x", "c": "y", "d": "y"})["adjusted_rand"] == 1.0
    merged = topics.clustering_quality({"a": 0, "b": 0, "c": 0, "d": 0}, {"a": "x", "b": "x", "c": "y", "d": "y"})
    assert merged["purity"] == 0.5 and merged["completeness"] == pytest.approx(1.0)


def test_topic_file_formats(tmp_path):
    lists = [["36_1ecb", "36_2ecb.xml"], ["36_1ecbplus"]]
    (tmp_path / "t.json").write_text(json.dumps(lists))
    (tmp_path / "t.pkl").write_bytes(pickle.dumps(lists))
    (tmp_path / "m.json").write_text(json.dumps({"36_1ecb": "A", "36_1ecbplus": "B"}))
    want = {"36_1ecb": "given_0", "36_2ecb": "given_0", "36_1ecbplus": "given_1"}
    assert topics.load_topic_file(tmp_path / "t.json") == want == topics.load_topic_file(tmp_path / "t.pkl")
    assert topics.load_topic_file(tmp_path / "m.json") == {"36_1ecb": "A", "36_1ecbplus": "B"}
    (tmp_path / "evil.pkl").write_bytes(pickle.dumps(np.arange(3)))  # needs a global: refused
    with pytest.raises(ValueError, match="refusing"):
        topics.load_topic_file(tmp_path / "evil.pkl")


def _fixture_documents(rows):
    """Documents of the fixture mentions: one per doc_id, with its topic's vocabulary."""
    words = {"1": VOCAB[("1", "1a")], "2": VOCAB[("2", "2a")]}
    docs = {}
    for r in rows:
        own = words[r["topic"]].split()
        docs[r["doc_id"]] = {"doc_id": r["doc_id"], "topic": r["topic"], "subtopic": r["subtopic"],
                             "tokens": own + own[:3] + list(r["sentence"]),
                             "sentence_ids": [1] * (len(own) + 3 + len(r["sentence"]))}
    return list(docs.values())


def test_pipeline_pairs_within_predicted_topics_and_records_the_clustering(rows, train_rows):
    args = default_args(method="lh", within="predicted_topic", n_resamples=0)
    args.train_rows, args.documents = train_rows, _fixture_documents(rows)
    rec = run(args, rows=rows)
    base = default_args(method="lh", within="topic", n_resamples=0)
    base.train_rows = train_rows
    gold_topics = run(base, rows=rows)
    # the fixture's two topics are separable: the predicted topics are the gold topics, so are the clusters
    assert sorted(map(sorted, rec["predictions"]["inline"]["clusters"])) == \
        sorted(map(sorted, gold_topics["predictions"]["inline"]["clusters"]))
    info = rec["options"]["topic_clustering"]
    assert rec["options"]["within"] == "predicted_topic"
    assert info["n_topics"] == 2 and info["documents"] == 6   # default: the number of gold subtopics
    assert info["vs_gold_topics"]["adjusted_rand"] == pytest.approx(1.0)
    assert info["mention_pairs_vs_gold_subtopics"] == {"subtopic_pair_recall": 1.0, "subtopic_pair_precision": 1.0}
    assert rec["counts"]["predicted_topics"] == 2.0 and rec["counts"]["topic_documents"] == 6.0
    one = default_args(method="lh", within="predicted_topic", n_resamples=0, topic_clusters=1)
    one.train_rows, one.documents = train_rows, _fixture_documents(rows)
    merged = run(one, rows=rows)["options"]["topic_clustering"]["mention_pairs_vs_gold_subtopics"]
    assert merged["subtopic_pair_recall"] == 1.0 and merged["subtopic_pair_precision"] < 1.0


def test_pipeline_reads_a_topic_file_and_refuses_one_missing_documents(rows, train_rows, tmp_path):
    docs = sorted({r["doc_id"] for r in rows})
    (tmp_path / "all.json").write_text(json.dumps([docs]))
    (tmp_path / "part.json").write_text(json.dumps([docs[:-1]]))
    args = default_args(method="lemma", within="predicted_topic", n_resamples=0,
                        predicted_topics=str(tmp_path / "all.json"))
    args.documents = _fixture_documents(rows)
    rec = run(args, rows=rows)   # one given topic: same lemma across the two gold topics merges
    assert frozenset({"t1_d3_m2", "t2_d3_m1"}) in {frozenset(c) for c in rec["predictions"]["inline"]["clusters"]}
    assert rec["options"]["topic_clustering"]["method"] == "given clustering"
    args.predicted_topics = str(tmp_path / "part.json")
    with pytest.raises(ValueError, match="were not clustered"):
        run(args, rows=rows)


def test_sentence_token_modes():
    tokens = ["The", "coach", "was", "fired", "by", "him", ",", "coaches"]
    assert sentence_token_set(tokens) == {"the", "coach", "was", "fired", "by", "him", ",", "coaches"}
    assert sentence_token_set(tokens, "content_lemmas") == {"coach", "fire", "him"}
    with pytest.raises(ValueError, match="sentence token mode"):
        sentence_token_set(tokens, "stems")


def test_lh_content_lemmas_drop_pairs_that_share_only_function_words(rows, train_rows):
    syn = synonymous_lemma_pairs(train_rows)
    everything = {tuple(p) for p in lh_pairs(rows, syn, 0.0, within="topic").tolist()}
    content = {tuple(p) for p in lh_pairs(rows, syn, 0.0, within="topic", sentence_tokens="content_lemmas").tolist()}
    assert content <= everything
    args = default_args(method="lh", within="topic", n_resamples=0, lh_sentence_tokens="content_lemmas")
    args.train_rows = train_rows
    assert run(args, rows=rows)["options"]["lh_sentence_tokens"] == "content_lemmas"
