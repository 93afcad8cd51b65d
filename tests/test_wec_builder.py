"""wec_eng builder: real files (skipped when absent), hand-written fixtures, broken inputs."""

from __future__ import annotations

import hashlib
import shutil
from collections import Counter

import pytest

import figbench
import figbench.corpora.wec_eng as wec
from figbench.corpora.files import MissingDataError, sha256_file
from figbench.schema import COREF_DOCUMENT_FEATURES, COREF_MENTION_FEATURES
from tests.conftest import corpus_path


def load(data_dir, config="events", tmp=None, **kwargs):
    return figbench.load_dataset("wec_eng", config, data_dir=str(data_dir), cache_dir=str(tmp), **kwargs)


def counts(ds):
    return len(ds), len(set(ds["cluster_id"]))


# ----------------------------------------------------------------------------- real files


def test_real_default_builds_validation_and_test_and_names_missing_train(tmp_path, caplog):
    root = corpus_path("wec_eng", "ucdcr", "test", "event_mentions.json").parents[2]
    with caplog.at_level("WARNING"):
        dd = load(root, tmp=tmp_path)
    assert sorted(dd) == ["test", "validation"]
    assert counts(dd["validation"]) == (1250, 233)
    assert counts(dd["test"]) == (1893, 322)
    assert dd["validation"].features == COREF_MENTION_FEATURES
    assert "Train_Event_gold_mentions.json" in caplog.text
    assert "Not built (file missing): train" in dd["test"].info.description
    ids = list(dd["validation"]["mention_id"]) + list(dd["test"]["mention_id"])
    assert len(ids) == len(set(ids))
    for row in dd["test"].select(range(0, 1893, 97)):
        span = "".join(row["context"][row["context_start"]:row["context_end"]])
        assert span == row["text"].replace(" ", "")
        assert row["topic"] == row["subtopic"] == "wec" and row["mention_class"] == "event"
        assert row["head_lemma"] == row["head_lemma"].lower()


def test_real_train_requested_explicitly_is_a_clear_error(tmp_path):
    root = corpus_path("wec_eng", "Dev_Event_gold_mentions_validated.json").parent
    with pytest.raises(MissingDataError, match=r"train.*Train_Event_gold_mentions\.json"):
        load(root, tmp=tmp_path, split="train")
    with pytest.raises(MissingDataError, match="Train_Event_gold_mentions.json"):
        load(root, tmp=tmp_path, splits="train,validation")


def test_real_original_layout_matches_ucdcr_clusters(tmp_path):
    root = corpus_path("wec_eng", "Dev_Event_gold_mentions_validated.json").parent
    corpus_path("wec_eng", "ucdcr", "val", "event_mentions.json")
    orig = load(root, tmp=tmp_path, source="original", split="validation")
    ucdcr = load(root, tmp=tmp_path, source="ucdcr", split="validation")
    assert counts(orig) == (1250, 233)
    by_id = dict(zip(list(ucdcr["mention_id"]), list(ucdcr["cluster_id"])))
    assert dict(zip(list(orig["mention_id"]), list(orig["cluster_id"]))) == by_id
    assert Counter(orig["mention_type"]) == {"NEWS_EVENT": 406, "AWARD_EVENT": 404, "CIVIL_ATTACK_EVENT": 240,
                                             "DISASTER_EVENT": 168, "ACCIDENT_EVENT": 32}


def test_real_mention_ids_carry_no_cluster(tmp_path):
    """Issue 13: WEC's mention ids were assigned cluster by cluster; the released ids and order are opaque."""
    from tests.id_leaks import assert_no_id_leak, id_probe

    root = corpus_path("wec_eng", "ucdcr", "test", "event_mentions.json").parents[2]
    dd = load(root, tmp=tmp_path / "a")
    again = load(root, tmp=tmp_path / "b")
    original = wec_io().original_ids(root)
    for split in ("validation", "test"):
        rows = dd[split]
        ids, clusters = list(rows["mention_id"]), list(rows["cluster_id"])
        assert again[split]["mention_id"] == ids == sorted(ids) and len(set(ids)) == len(ids)
        assert all(len(i) == 16 for i in ids)
        assert sum(a == b for a, b in zip(clusters, clusters[1:])) / (len(ids) - 1) < 0.05  # was 0.80-0.82
        assert_no_id_leak(ids, clusters)
        by_wec = sorted(zip(ids, clusters), key=lambda x: int(original[x[0]]))
        assert sum(a[1] == b[1] for a, b in zip(by_wec, by_wec[1:])) / (len(ids) - 1) > 0.8  # the old leak
        assert id_probe([original[i] for i in ids], clusters)[0] > 0.3


def test_real_documents(tmp_path):
    root = corpus_path("wec_eng", "ucdcr", "val", "event_mentions.json").parents[2]
    dd = load(root, "documents", tmp=tmp_path)
    assert dd["validation"].features == COREF_DOCUMENT_FEATURES
    assert (len(dd["validation"]), len(dd["test"])) == (1194, 1803)


def wec_io():
    from figbench.corpora import wec_eng

    return wec_eng


# ----------------------------------------------------------------------------- fixtures


@pytest.fixture()
def original_dir(fixtures_dir):
    return fixtures_dir / "wec_eng" / "original"


def test_fixture_original_all_three_splits(original_dir, tmp_path):
    dd = load(original_dir, tmp=tmp_path)
    assert {s: counts(d) for s, d in dd.items()} == {"train": (6, 3), "validation": (4, 2), "test": (5, 2)}
    # mention ids are opaque (issue 13; they were WEC's d1, t2...): rows looked up through original_ids
    original = wec_io().original_ids(original_dir)
    dev = {original[r["mention_id"]]: r for r in dd["validation"]}
    d1 = dev["d1"]
    assert d1["text"] == "Family Values Tour 1998" and (d1["token_start"], d1["token_end"]) == (9, 13)
    assert d1["context"][d1["context_start"]:d1["context_end"]] == ["Family", "Values", "Tour", "1998"]
    assert d1["sentence_id"] == 1 and d1["sentence"][0] == "Limp" and d1["sentence"][-1] == "."
    assert d1["head_lemma"] == "tour" and d1["pos"] == "PROPN"
    assert d1["mention_type"] == "NEWS_EVENT" and d1["cluster_id"] == "4004" and d1["doc_id"] == "House of Pain"
    # d4 is a second paragraph of "House of Pain": its sentence follows the first paragraph's two
    assert dev["d4"]["sentence_id"] == 2
    assert dev["d4"]["head_lemma"] == "tour"  # empty lemma in the file: spaCy lookup lemma
    assert dev["d3"]["text"] == "2015 Pac-12 Conference Men's Basketball Tournament"
    train = {original[r["mention_id"]]: r for r in dd["train"]}
    assert train["t2"]["head_lemma"] == "quake" and train["t2"]["mention_type"] == "DISASTER_EVENT"


def test_fixture_documents(original_dir, tmp_path):
    dd = load(original_dir, "documents", tmp=tmp_path)
    docs = {r["doc_id"]: r for r in dd["validation"]}
    assert set(docs) == {"House of Pain", "Korn", "Pac-12"}
    hop = docs["House of Pain"]
    assert len(hop["tokens"]) == 14 + 5
    assert hop["sentence_ids"] == [0, 0, 0] + [1] * 11 + [2] * 5
    assert len(dd["train"]) == 5  # Concepcion (2 paragraphs), Talca, Queen, Bob Geldof, Titanic
    concepcion = next(r for r in dd["train"] if r["doc_id"] == "Concepcion")
    assert len(concepcion["tokens"]) == 14 + 7


def test_fixture_ucdcr_layout(fixtures_dir, tmp_path):
    dd = load(fixtures_dir / "wec_eng" / "ucdcr", tmp=tmp_path)
    assert {s: counts(d) for s, d in dd.items()} == {"validation": (3, 2), "test": (2, 1)}
    original = wec_io().original_ids(fixtures_dir / "wec_eng" / "ucdcr")  # ids are opaque (issue 13)
    u1 = next(r for r in dd["validation"] if original[r["mention_id"]] == "u1")
    # offsets come from tokens_number_context (tokens_number points into the uCDCR source paragraph)
    assert (u1["context_start"], u1["context_end"]) == (4, 6)
    assert u1["cluster_id"] == "6006" and u1["mention_type"] == "Hurricane" and u1["doc_id"] == "New Orleans"


def test_auto_layout_and_cache_follow_the_files(original_dir, tmp_path):
    data = tmp_path / "wec"
    data.mkdir()
    shutil.copy(original_dir / "Dev_Event_gold_mentions_validated.json", data)
    assert list(load(data, tmp=tmp_path / "c")) == ["validation"]
    shutil.copy(original_dir / "Test_Event_gold_mentions_validated.json", data)
    assert sorted(load(data, tmp=tmp_path / "c")) == ["test", "validation"]  # not the stale cache


def test_splits_option(original_dir, tmp_path):
    dd = load(original_dir, tmp=tmp_path, splits="validation,test")
    assert sorted(dd) == ["test", "validation"]
    with pytest.raises(ValueError, match="unknown split"):
        load(original_dir, tmp=tmp_path, splits="dev")
    with pytest.raises(ValueError, match="unknown source"):
        load(original_dir, tmp=tmp_path, source="hub")


def test_empty_folder_lists_every_file(tmp_path):
    empty = tmp_path / "nothing"
    empty.mkdir()
    with pytest.raises(MissingDataError) as err:
        load(empty, tmp=tmp_path)
    message = str(err.value)
    for name in ("Train_Event_gold_mentions.json", "Dev_Event_gold_mentions_validated.json",
                 "Test_Event_gold_mentions_validated.json", "ucdcr/val/event_mentions.json"):
        assert name in message
    assert str(empty) in message


@pytest.mark.parametrize(("case", "pattern"), [
    ("truncated", "not valid JSON"),
    ("missing_field", r"record 1 \(mention_id 'd2'\): missing field\(s\) \['tokens_number'\]"),
    ("duplicate_id", r"record 1 \(mention_id 'd1'\): duplicate mention_id 'd1' \(first at record 0\)"),
    ("span_mismatch", r"record 0 .*tokens_str 'tour' not found in mention_context"),
    ("unknown_type", r"record 0 .*unknown mention_type 42"),
    ("not_a_list", "expected a JSON list"),
    ("noncontiguous", "not a contiguous span"),
])
def test_broken_inputs_name_file_and_record(fixtures_dir, tmp_path, case, pattern):
    folder = fixtures_dir / "wec_eng" / "broken" / case
    with pytest.raises(ValueError, match=pattern) as err:
        load(folder, tmp=tmp_path)
    assert "Dev_Event_gold_mentions_validated.json" in str(err.value)


def test_verify_checksum(tmp_path):
    f = tmp_path / "Dev_Event_gold_mentions_validated.json"
    f.write_text("[]")
    good = hashlib.sha256(b"[]").hexdigest()
    assert wec.verify_checksum(f, good) == good
    assert wec.verify_checksum(f, None) == good  # unknown published checksum: computed and logged
    with pytest.raises(ValueError, match=r"checksum mismatch for .*Dev_Event_gold_mentions_validated\.json"):
        wec.verify_checksum(f, "0" * 64)


def test_recorded_checksums_match_local_copies():
    for split, folder in (("validation", "val"), ("test", "test")):
        path = corpus_path("wec_eng", "ucdcr", folder, "event_mentions.json")
        assert sha256_file(path) == wec._URLS["ucdcr"][split][1]


def test_plain_datasets_load_dataset_call(original_dir, tmp_path):
    ds = figbench.load_dataset("wec_eng", "events", data_dir=str(original_dir), cache_dir=str(tmp_path), split="test")
    assert len(ds) == 5


def test_mention_id_shared_by_two_splits_is_rejected(original_dir, tmp_path):
    data = tmp_path / "wec"
    data.mkdir()
    shutil.copy(original_dir / "Dev_Event_gold_mentions_validated.json", data)
    shutil.copy(original_dir / "Dev_Event_gold_mentions_validated.json",
                data / "Test_Event_gold_mentions_validated.json")
    with pytest.raises(ValueError, match=r"Test_Event_gold_mentions_validated\.json: mention_id 'd1' "
                                         r"also occurs in split 'validation'"):
        load(data, tmp=tmp_path / "c")
