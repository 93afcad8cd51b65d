"""figbench.stats on hand-written fixtures (values worked out by hand in the comments)."""

from __future__ import annotations

import math

import pytest

import datasets
from figbench import stats
from tests.conftest import fixture_json


@pytest.fixture()
def coref_rows():
    return fixture_json("stats", "coref_mentions.json")


@pytest.fixture()
def tagged_rows():
    return fixture_json("stats", "tagged.json")


def test_ambiguity_and_diversity_by_hand(coref_rows):
    lemmas = [r["head_lemma"] for r in coref_rows]
    cids = [r["cluster_id"] for r in coref_rows]
    # attack in {A, B}; bombing, quake, strike, hit in one cluster each: (2+1+1+1+1)/5
    assert stats.ambiguity(lemmas, cids) == pytest.approx(6 / 5)
    # per topic: the same here (t1 holds A, B, C; t2 holds D)
    assert stats.ambiguity(lemmas, cids, [r["topic"] for r in coref_rows]) == pytest.approx(6 / 5)
    # non-singletons: A {attack, bombing}, B {attack}, D {strike, hit}: (2+1+2)/3
    assert stats.diversity(lemmas, cids) == pytest.approx(5 / 3)


def test_mtld_known_values():
    # forward: "attack the attack" hits TTR 2/3 <= 0.72 -> 1 factor, "bombing" leaves a 0 partial -> 4/1;
    # backward: "bombing attack the attack" ends at TTR 3/4 -> partial (1-.75)/(1-.72) -> 4/0.893;
    # MTLD = mean = 4.24
    assert stats.mtld_of("attack the attack bombing") == pytest.approx(4.24, abs=1e-9)
    assert stats.mtld_of("hit hit hit hit") == pytest.approx(2.0)  # two factors of "hit hit" each way
    assert stats.mtld_of(", .") is None  # no word: undefined


def test_coref_stats_rows_and_dataset_agree(coref_rows):
    from_rows = stats.coref_stats(coref_rows, progress=False)
    from_ds = stats.coref_stats(datasets.Dataset.from_list(coref_rows), progress=False)
    assert from_rows == from_ds
    assert from_rows["mentions"] == 10
    assert from_rows["clusters"] == 4
    assert from_rows["non_singleton_clusters"] == 3
    assert from_rows["singletons"] == 1
    assert from_rows["documents"] == 8
    assert from_rows["topics"] == 2
    # size-weighted MTLD of A (4.24, 3 mentions), B "attack attack" (2.0, 2), D "strike hit hit hit" (4.0, 4)
    assert from_rows["mtld"] == pytest.approx((4.24 * 3 + 2.0 * 2 + 4.0 * 4) / 9)
    assert from_rows["mtld_clusters"] == 3 and from_rows["mtld_undefined"] == 0
    assert stats.is_coref(coref_rows) and stats.split_stats(coref_rows, progress=False)["clusters"] == 4


def test_undefined_mtld_cluster_is_counted_not_averaged(coref_rows):
    rows = coref_rows + [
        {"mention_id": "p1", "cluster_id": "P", "head_lemma": ",", "text": ",", "doc_id": "d9", "topic": "t3"},
        {"mention_id": "p2", "cluster_id": "P", "head_lemma": ".", "text": ".", "doc_id": "d9", "topic": "t3"},
    ]
    out = stats.coref_stats(rows, progress=False)
    assert out["mtld_undefined"] == 1
    assert out["mtld"] == pytest.approx((4.24 * 3 + 2.0 * 2 + 4.0 * 4) / 9)


def test_duplicate_mention_ids_rejected(coref_rows):
    rows = coref_rows + [dict(coref_rows[0])]
    with pytest.raises(ValueError, match="duplicate mention_id 'm1'"):
        stats.coref_stats(rows, progress=False)


def test_missing_field_names_row(coref_rows):
    rows = [dict(r) for r in coref_rows]
    del rows[3]["head_lemma"]
    with pytest.raises(ValueError, match=r"row 3 .*'m4'.*head_lemma"):
        stats.coref_stats(rows)


def test_generic_stats_counts_tokens_and_tags(tagged_rows):
    out = stats.generic_stats(datasets.Dataset.from_list(tagged_rows))
    assert out["examples"] == 3
    assert out["tokens"] == 12
    assert out["labels"]["tags"] == {"O": 9, "B-METAPHOR": 2, "I-METAPHOR": 1}
    assert out["labels"]["label"] == {"met": 2, "no_met": 1}
    assert "id" not in out["labels"]
    assert stats.generic_stats(tagged_rows) == out


def test_generic_stats_class_labels(tagged_rows):
    tag_names = ["O", "B-METAPHOR", "I-METAPHOR"]
    features = datasets.Features({
        "id": datasets.Value("string"),
        "tokens": datasets.Sequence(datasets.Value("string")),
        "tags": datasets.Sequence(datasets.ClassLabel(names=tag_names)),
        "label": datasets.ClassLabel(names=["met", "no_met"]),
    })
    ds = datasets.Dataset.from_list(
        [{**r, "tags": [tag_names.index(t) for t in r["tags"]], "label": ["met", "no_met"].index(r["label"])}
         for r in tagged_rows],
        features=features,
    )
    out = stats.generic_stats(ds)
    assert out["labels"]["tags"] == {"O": 9, "B-METAPHOR": 2, "I-METAPHOR": 1}
    assert out["labels"]["label"] == {"met": 2, "no_met": 1}


def test_document_stats():
    rows = [
        {"doc_id": "a", "topic": "1", "subtopic": "1", "tokens": ["A", "b", ".", "C", "."],
         "sentence_ids": [0, 0, 0, 1, 1]},
        {"doc_id": "b", "topic": "1", "subtopic": "1", "tokens": ["D", "."], "sentence_ids": [0, 0]},
    ]
    assert stats.is_coref_documents(rows)
    assert stats.document_stats(rows) == {"documents": 2, "topics": 1, "tokens": 7, "sentences": 3}


def test_dataset_stats_per_split(coref_rows):
    dd = datasets.DatasetDict({"validation": datasets.Dataset.from_list(coref_rows[:5]),
                               "test": datasets.Dataset.from_list(coref_rows[5:])})
    out = stats.dataset_stats(dd, progress=False)
    assert list(out) == ["validation", "test"]
    assert out["validation"]["mentions"] == 5 and out["test"]["mentions"] == 5
    assert out["test"]["singletons"] == 1
    assert math.isclose(out["validation"]["diversity"], (2 + 1) / 2)
    assert stats.published("wec_eng", "events", "test")["ambiguity"] == 2.6


def test_ambiguity_within_topics_vs_global():
    lemmas = ["attack", "attack", "attack", "fire"]
    cids = ["A", "B", "C", "C"]
    topics = ["t1", "t1", "t2", "t2"]
    # global: attack in {A, B, C} = 3, fire in {C} = 1 -> 2.0
    assert stats.ambiguity(lemmas, cids) == pytest.approx(2.0)
    # per topic: (t1, attack) {A, B} = 2, (t2, attack) {C} = 1, (t2, fire) {C} = 1 -> 4/3
    assert stats.ambiguity(lemmas, cids, topics) == pytest.approx(4 / 3)


@pytest.mark.slow
def test_published_ecbplus_ambiguity_and_diversity(tmp_path):
    """WEC paper Table 1 on the real ECB+ (needs the ecbplus builder and corpus)."""
    import figbench
    from figbench.paths import builder_dir
    from tests.conftest import corpus_path

    if not (builder_dir("ecbplus") / "ecbplus.py").is_file():
        pytest.skip("the ecbplus builder is not installed")
    root = corpus_path("ecbplus", "ECB+").parent
    dd = figbench.load_dataset("ecbplus", "events", data_dir=str(root), cache_dir=str(tmp_path))
    for split in ("train", "validation", "test"):
        out = stats.coref_stats(dd[split], mtld=False)
        assert round(out["ambiguity"], 1) == 1.4
        assert 2.2 <= round(out["diversity"], 1) <= 2.3


def test_published_wec_eng_ambiguity(tmp_path):
    import figbench
    from tests.conftest import corpus_path

    root = corpus_path("wec_eng", "ucdcr", "test", "event_mentions.json").parents[2]
    dd = figbench.load_dataset("wec_eng", "events", data_dir=str(root), cache_dir=str(tmp_path))
    assert round(stats.coref_stats(dd["validation"], mtld=False)["ambiguity"], 1) == 2.7
    assert round(stats.coref_stats(dd["test"], mtld=False)["ambiguity"], 1) == 2.6


def test_generic_stats_summarises_many_labels():
    rows = [{"narrative": f"story {i}", "label": f"proverb {i % 40}"} for i in range(80)]
    out = stats.generic_stats(rows)
    assert "label" not in out.get("labels", {})
    assert out["label_summary"]["label"] == {"distinct": 40, "min": 2, "max": 2}
    assert out["tokens"] == 160


def test_mtld_min_factor_by_hand():
    from figbench.stats import mtld_min_factor, trigger_mtld_paper

    # one full factor of 10 tokens closes (TTR 0.2), then a 2-token tail with TTR 1 adds 0 factors
    assert mtld_min_factor(list("ab" * 6)) == pytest.approx(12.0)
    # no factor reaches 10 tokens: only the partial factor (1 - 0.25) / 0.28 of 4 tokens
    assert mtld_min_factor(["x"] * 4) == pytest.approx(4 * 0.28 / 0.75)
    assert mtld_min_factor(["a", "b", "c"]) == 0.0  # all different: no factor at all
    # clusters weighted by token count; singletons left out; tokens lower-cased
    value = trigger_mtld_paper(["X", "x x", "x", "solo"], ["c1", "c1", "c1", "c2"])
    assert value == pytest.approx(4 * 0.28 / 0.75)


@pytest.mark.slow
def test_mtld_paper_reproduces_the_ecbmeta_paper(data_root):
    """The reference values were measured with the `lexical_diversity` package (lex_div.mtld, the
    ECB+META paper's code) on the same clusters: ECB+ test 7.289 (published 7.33), META_m test
    26.672 (published 26.48)."""
    import figbench
    from figbench.stats import trigger_mtld_paper

    ecb = figbench.load_dataset("ecbplus", "events", split="test", data_dir=str(data_root / "ecbplus"))
    meta = figbench.load_dataset("ecbmeta", "meta_m", split="test", data_dir=str(data_root / "ecbmeta"))
    assert trigger_mtld_paper(ecb["text"], ecb["cluster_id"]) == pytest.approx(7.289, abs=5e-4)
    assert trigger_mtld_paper(meta["text"], meta["cluster_id"]) == pytest.approx(26.672, abs=5e-4)
