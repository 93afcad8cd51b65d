"""ECB+ parser and builder on hand-written fixtures: conventions, bad input, missing files, checksums."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

import figbench
from figbench.corpora import ecbplus as ecb_io
from figbench.corpora.files import ChecksumError, MissingDataError, verify_sha256

FIX = Path(__file__).resolve().parent / "fixtures" / "ecbplus"
MINI = FIX / "mini"


def _load(config, data_dir, tmp_path, **kw):
    return figbench.load_dataset("ecbplus", config, data_dir=str(data_dir), cache_dir=str(tmp_path / "cache"),
                                 strict_release=False, **kw)


# ---------------------------------------------------------------------------- conventions


def test_parse_document_tokens_markables_relations():
    doc = ecb_io.parse_ecb_document(MINI / "ECB+" / "1" / "1_1ecb.xml")
    assert (doc.doc_id, doc.topic, doc.subtopic) == ("1_1ecb", "1", "1ecb")
    assert len(doc.tokens) == 18 and sorted(doc.sentences) == [0, 1]
    assert doc.markables["2"].t_ids == (3, 5) and doc.markables["2"].tag == "ACTION_OCCURRENCE"
    assert doc.markables["10"].instance_id == "ACT001" and not doc.markables["10"].t_ids
    assert [r.kind for r in doc.relations] == ["CROSS_DOC_COREF", "CROSS_DOC_COREF", "INTRA_DOC_COREF"]
    clusters = doc.cluster_ids()
    assert clusters["2"] == clusters["3"] == "ACT001"
    assert clusters["5"] == clusters["7"] == "INTRA_1_1ecb_103"
    assert clusters["6"] == "Singleton_1_1ecb_6"


def test_corpus_parse_is_memoised_and_an_edited_file_is_parsed_again(tmp_path):
    """Several builds in one process parse the XML once; a file that changed (size or time) is read again."""
    root = shutil.copytree(MINI / "ECB+", tmp_path / "ECB+")
    first = ecb_io.parse_ecb_corpus(root, [1])
    again = ecb_io.parse_ecb_corpus(root, [1])
    assert [d.doc_id for d in again] == [d.doc_id for d in first] and all(a is b for a, b in zip(again, first))
    assert [d.tokens for d in first] == [ecb_io.parse_ecb_document(d.path).tokens for d in first]
    path = root / "1" / "1_1ecb.xml"
    path.write_text(path.read_text(encoding="utf-8").replace(">checked<", ">inspected<"), encoding="utf-8")
    edited = {d.doc_id: d for d in ecb_io.parse_ecb_corpus(root, [1])}["1_1ecb"]
    assert "inspected" in [t.text for t in edited.tokens] and "checked" not in [t.text for t in edited.tokens]
    ecb_io.clear_parse_cache()
    assert all(a is not b for a, b in zip(ecb_io.parse_ecb_corpus(root, [1]), again))


def test_mention_rows_offsets_heads_and_filter():
    doc = ecb_io.parse_ecb_document(MINI / "ECB+" / "1" / "1_1ecb.xml")
    rows = ecb_io.mention_rows(doc, "event")
    assert [r["mention_id"] for r in rows] == ["1_1ecb_2", "1_1ecb_6", "1_1ecb_3", "1_1ecb_8"]
    checked = rows[0]
    # discontinuous markable "checked ... into": text joins marked tokens, offsets span both
    assert checked["text"] == "checked into" and checked["head"] == "checked" and checked["head_lemma"] == "check"
    assert checked["sentence"][checked["token_start"]:checked["token_end"]] == ["checked", "herself", "into"]
    assert checked["context"][checked["context_start"]:checked["context_end"]] == ["checked", "herself", "into"]
    said = rows[3]
    assert said["sentence_id"] == 1 and said["sentence"][said["token_start"]] == "said"
    assert said["context"][said["context_start"]] == "said" and said["mention_type"] == "ACTION_REPORTING"
    only = ecb_io.mention_rows(doc, "event", sentences={("1_1ecb", 0)})
    assert [r["mention_id"] for r in only] == ["1_1ecb_2", "1_1ecb_6"]
    ents = ecb_io.mention_rows(doc, "entity")
    assert {r["mention_id"]: r["head"] for r in ents}["1_1ecb_7"] == "rep"  # "her rep": last content word
    assert all(r["mention_class"] == "entity" for r in ents)


def test_head_rule_and_lemmas():
    assert ecb_io.head_index(["took", "place"], "event") == 0
    assert ecb_io.head_index(["the", "33-year-old", "actress"], "entity") == 2
    assert ecb_io.head_index(["has", "been", "charged"], "event") == 2
    assert ecb_io.head_index([","], "event") == 0
    assert ecb_io.lookup_lemma("Arrested") == "arrest"
    assert ecb_io.lookup_lemma("pirates") == "pirate"


def test_mention_id_conversion():
    assert ecb_io.llms_coref_mention_id("34_11ecb_28") == "34_11ecb.xml_28"
    assert ecb_io.from_llms_coref_mention_id("34_11ecb.xml_28") == "34_11ecb_28"


def test_split_topics():
    assert len(ecb_io.ALL_TOPICS) == 43 and 15 not in ecb_io.ALL_TOPICS and 17 not in ecb_io.ALL_TOPICS
    assert ecb_io.DEV_TOPICS == (2, 5, 12, 18, 21, 23, 34, 35)
    assert ecb_io.TEST_TOPICS == tuple(range(36, 46))
    assert len(ecb_io.TRAIN_TOPICS) == 25
    assert ecb_io.split_of("36") == "test" and ecb_io.split_of(2) == "validation" and ecb_io.split_of(1) == "train"


def test_builder_on_fixture(tmp_path):
    ds = _load("events", MINI, tmp_path)
    assert {s: len(d) for s, d in ds.items()} == {
        "train": 3, "validation": 2, "test": 1, "dev_small": 1, "dev_rest": 1}
    assert ds["train"]["cluster_id"] == ["ACT001", "Singleton_1_1ecb_6", "ACT001"]
    assert ds["dev_small"]["mention_id"] == ["2_1ecb_2"] and ds["dev_rest"]["mention_id"] == ["2_2ecb_2"]
    assert ds["train"].features == figbench.schema.COREF_MENTION_FEATURES
    all_ev = _load("events_all", MINI, tmp_path)
    assert len(all_ev["train"]) == 5 and all_ev["test"]["mention_id"] == ["36_1ecb_2", "36_1ecb_4"]
    assert all_ev["test"]["mention_type"][1] == "NEG_ACTION_OCCURRENCE"
    ents = _load("entities", MINI, tmp_path)
    assert ents["train"]["text"] == ["Tara Reid", "Actress"]
    docs = _load("documents", MINI, tmp_path)
    assert docs["train"]["doc_id"] == ["1_1ecb", "1_1ecbplus"] and len(docs["validation"]) == 2
    assert docs["train"][0]["sentence_ids"][:8] == [0] * 7 + [1]


# ---------------------------------------------------------------------------- bad input

@pytest.mark.parametrize(
    "case, pattern",
    [
        ("truncated", r"2_2ecb\.xml: malformed XML"),
        ("unknown_tag", r"2_2ecb\.xml: unknown markable tag <TIME_WEIRD> \(m_id='3'\)"),
        ("dup_mid", r"2_2ecb\.xml: duplicate markable m_id=2"),
        ("bad_anchor", r"2_2ecb\.xml: markable m_id=3 anchors unknown token t_id=40"),
        ("bad_relation", r"2_2ecb\.xml: relation r_id=401 refers to unknown markable m_id='7'"),
        ("dup_token", r"2_2ecb\.xml: duplicate token t_id=3"),
    ],
)
def test_malformed_xml_names_file_and_record(case, pattern):
    with pytest.raises(ValueError, match=pattern):
        ecb_io.parse_ecb_document(FIX / "broken" / case / "2_2ecb.xml")


def test_bad_csv_and_dev_small():
    with pytest.raises(ValueError, match=r"bad_columns\.csv: line 3 has 2 columns"):
        ecb_io.read_coref_sentences(FIX / "broken" / "bad_columns.csv")
    with pytest.raises(ValueError, match=r"bad_dev_small\.txt: line 2: 1_1ecb is not in a dev topic"):
        ecb_io.read_dev_small(FIX / "broken" / "bad_dev_small.txt")


def test_builder_raises_on_broken_file(tmp_path):
    corpus = tmp_path / "ecbplus"
    shutil.copytree(MINI, corpus)
    shutil.copy(FIX / "broken" / "unknown_tag" / "2_2ecb.xml", corpus / "ECB+" / "2" / "2_2ecb.xml")
    with pytest.raises(ValueError, match=r"2_2ecb\.xml: unknown markable tag <TIME_WEIRD>"):
        _load("events", corpus, tmp_path)


def test_missing_files_listed_in_one_error(tmp_path):
    corpus = tmp_path / "ecbplus"
    shutil.copytree(MINI, corpus)
    (corpus / ecb_io.SENTENCES_CSV).unlink()
    (corpus / ecb_io.DEV_SMALL_DOCS).unlink()
    with pytest.raises(MissingDataError) as err:
        _load("events", corpus, tmp_path)
    msg = str(err.value)
    assert "ECBplus_coreference_sentences.csv" in msg and "dev_small_docs.txt" in msg and str(corpus) in msg
    # the strict (default) check also counts every missing topic folder of the release (the first few by name)
    with pytest.raises(MissingDataError, match=r"(?s)ECB\+/3\n.*and \d+ more in .*ECB\+/\d+, ECB\+/\d+"):
        ecb_io.release_documents(corpus)


def test_strict_release_requires_982_documents(tmp_path):
    corpus = tmp_path / "ecbplus"
    shutil.copytree(MINI, corpus)
    for t in ecb_io.ALL_TOPICS:
        (corpus / "ECB+" / str(t)).mkdir(exist_ok=True)
    with pytest.raises(MissingDataError, match=r"holds 5 XML documents, the ECB\+ release has 982"):
        figbench.load_dataset("ecbplus", "events", data_dir=str(corpus), cache_dir=str(tmp_path / "c"))


def test_checksum_verification(tmp_path):
    f = tmp_path / "ECBplus_coreference_sentences.csv"
    f.write_bytes(b"Topic,File,Sentence Number\n")
    good = hashlib.sha256(f.read_bytes()).hexdigest()
    verify_sha256(f, good, corpus="ecbplus")
    verify_sha256(f, None, corpus="ecbplus")  # unknown checksum: recorded as such, not checked
    with pytest.raises(ChecksumError,
                       match=r"checksum mismatch for https://x \(.*ECBplus_coreference_sentences\.csv\): "
                             r"expected sha256"):
        verify_sha256(f, "0" * 64, corpus="ecbplus", label="https://x")
    assert issubclass(ChecksumError, ValueError)
    # the recorded checksums are those of the original files
    for f in ecb_io.FILES:
        assert f.url.startswith("https://") and (f.sha256 is None or len(f.sha256) == 64), f.path
