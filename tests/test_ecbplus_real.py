"""ECB+ builder on the real release: the published counts of the standard setup, every config."""

from __future__ import annotations

import pytest

import datasets
import figbench
from figbench.corpora import ecbplus as ecb_io
from figbench.schema import COREF_DOCUMENT_FEATURES, COREF_MENTION_FEATURES, gold_clusters
from tests.conftest import corpus_path

pytestmark = pytest.mark.slow

#: mentions / clusters / non-singleton clusters / documents (issue 3; Cybulska & Vossen 2015 setup)
EVENTS = {
    "train": (3808, 1527, 411, 574),
    "validation": (1245, 409, 129, 196),
    "test": (1780, 805, 182, 206),
}


@pytest.fixture(scope="module")
def root():
    return corpus_path("ecbplus", "ECB+", "ECBplus_coreference_sentences.csv").parent.parent


@pytest.fixture(scope="module")
def cache(datasets_cache):
    return datasets_cache


@pytest.fixture(scope="module")
def events(root, cache):
    return figbench.load_dataset("ecbplus", "events", data_dir=str(root), cache_dir=cache)


def _counts(rows):
    s = ecb_io.corpus_stats(rows)
    return s["mentions"], s["clusters"], s["non_singleton_clusters"], s["documents"]


@pytest.mark.parametrize("split", list(EVENTS))
def test_events_counts(events, split):
    assert _counts(events[split]) == EVENTS[split]


def test_dev_small_and_rest(events):
    assert (len(events["dev_small"]), len(set(events["dev_small"]["doc_id"]))) == (277, 40)
    assert (len(events["dev_rest"]), len(set(events["dev_rest"]["doc_id"]))) == (968, 156)
    assert set(events["dev_small"]["mention_id"]) | set(events["dev_rest"]["mention_id"]) == set(
        events["validation"]["mention_id"])


def test_events_schema_and_offsets(events):
    for split, ds in events.items():
        assert ds.features == COREF_MENTION_FEATURES
        assert len(set(ds["mention_id"])) == len(ds), split
    for r in events["test"]:
        first = r["text"].split()[0]
        assert r["sentence"][r["token_start"]] == first
        assert r["context"][r["context_start"]] == first
        assert r["mention_type"].startswith(("ACTION_", "NEG_ACTION_")) and r["mention_class"] == "event"
        assert r["head"] in r["text"].split() and r["head_lemma"] == r["head_lemma"].lower()
    assert len(gold_clusters(events["test"])[0]) == 805


def test_entities_counts(root, cache):
    ds = figbench.load_dataset("ecbplus", "entities", data_dir=str(root), cache_dir=cache)
    # entity mentions of the validated sentences (the counts reported by Barhom et al. 2019)
    assert [len(ds[s]) for s in ("train", "validation", "test")] == [4758, 1476, 2055]
    assert set(ds["train"]["mention_class"]) == {"entity"}


def test_all_sentence_configs_are_supersets(root, cache, events):
    ev_all = figbench.load_dataset("ecbplus", "events_all", data_dir=str(root), cache_dir=cache)
    ent_all = figbench.load_dataset("ecbplus", "entities_all", data_dir=str(root), cache_dir=cache)
    assert [len(ev_all[s]) for s in ("train", "validation", "test")] == [8182, 2647, 4174]
    assert [len(ent_all[s]) for s in ("train", "validation", "test")] == [9831, 3033, 4430]
    for split in ("train", "validation", "test"):
        assert set(events[split]["mention_id"]) < set(ev_all[split]["mention_id"])


def test_documents(root, cache):
    docs = figbench.load_dataset("ecbplus", "documents", data_dir=str(root), cache_dir=cache)
    assert docs["train"].features == COREF_DOCUMENT_FEATURES
    assert sum(len(docs[s]) for s in ("train", "validation", "test")) == 982
    assert (len(docs["dev_small"]), len(docs["dev_rest"])) == (40, 157)
    assert len({d for s in ("train", "validation", "test") for d in docs[s]["topic"]}) == 43


def test_every_file_parses_without_defects(root):
    # (the speed target, 982 files in under 30 s, is timed by benchmarks/bench_ecbplus_parse.py)
    docs = [ecb_io.parse_ecb_document(p) for p in ecb_io.ecb_files(root / "ECB+")]  # not the memo
    assert len(docs) == 982
    assert ecb_io.validated_sentence_defects(ecb_io.EcbSources.local(root)) == []


def _card(name):
    import yaml

    text = (figbench.paths.builder_dir(name) / "README.md").read_text(encoding="utf-8")
    return yaml.safe_load(text.split("---")[1])


def test_card_counts_match_builder(root, cache):
    card = _card("ecbplus")
    assert [c["config_name"] for c in card["configs"]] == ["events", "entities", "events_all", "entities_all",
                                                           "documents"]
    for info in card["dataset_info"]:
        ds = figbench.load_dataset("ecbplus", info["config_name"], data_dir=str(root), cache_dir=cache)
        assert {s["name"]: s["num_examples"] for s in info["splits"]} == {s: len(d) for s, d in ds.items()}
        assert datasets.Features._from_yaml_list(info["features"]) == ds["test"].features
