"""ECB+META builder on hand-written fixtures (uCDCR tables and the analysis sheet written from JSON)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import figbench
from figbench.corpora.files import MissingDataError

FIX = Path(__file__).resolve().parent / "fixtures"
ECB_MINI = FIX / "ecbplus" / "mini"


def _write_corpus(root: Path, mentions=None, documents=None, sheet=None) -> Path:
    """An ``ecbmeta`` folder in the original layout, from the JSON fixtures (optionally altered)."""
    out = root / "ucdcr" / "output_data"
    out.mkdir(parents=True, exist_ok=True)
    mentions = mentions if mentions is not None else json.loads((FIX / "ecbmeta" / "mentions.json").read_text())
    documents = documents if documents is not None else json.loads((FIX / "ecbmeta" / "documents.json").read_text())
    sheet = sheet if sheet is not None else json.loads((FIX / "ecbmeta" / "comprehension_sheet.json").read_text())
    pd.DataFrame(mentions).to_parquet(out / "all_mentions.parquet")
    pd.DataFrame(documents).to_parquet(out / "all_documents.parquet")
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Comprehension_analysis"
    for row in sheet:
        ws.append(row)
    wb.save(root / "ecb_meta_analysis.xlsx")
    return root


def _load(config, root, tmp_path, **kw):
    return figbench.load_dataset("ecbmeta", config, data_dir=str(root), cache_dir=str(tmp_path / "cache"),
                                 ecbplus_dir=str(ECB_MINI), strict_release=False, **kw)


@pytest.fixture
def corpus(tmp_path):
    return _write_corpus(tmp_path / "ecbmeta")


def test_meta_m_aligned_to_ecbplus(corpus, tmp_path):
    ds = _load("meta_m", corpus, tmp_path)
    # dev_rest is empty in this fixture (its only ECB+ mention has no META_m version), so it is left out
    assert {s: len(d) for s, d in ds.items()} == {"validation": 1, "dev_small": 1, "test": 1}
    r = ds["validation"][0]
    assert r["mention_id"] == "2_1ecb_2" and r["cluster_id"] == "ACT200" and r["original_text"] == "fired"
    # default head_source="content": the last word of the first content-word run. "sent packing" is the
    # rule's documented miss (a verb with a bare complement); uCDCR's parser head is kept by "ucdcr".
    # (Changed deliberately with the head rule of issue 11: this pinned uCDCR's head "sent"/"send"/VERB.)
    assert r["text"] == "sent packing" and (r["head"], r["head_lemma"], r["pos"]) == ("packing", "pack", "")
    assert r["sentence"][r["token_start"]:r["token_end"]] == ["sent", "packing"]
    assert r["context"][r["context_start"]:r["context_end"]] == ["sent", "packing"]
    t = ds["test"][0]
    assert (t["mention_id"], t["cluster_id"], t["original_text"]) == ("36_1ecb_2", "Singleton_36_1ecb_2", "arrested")
    assert t["context"] == ["Police", "netted", "two", "leaders", ".", "They", "did", "not", "resist", "."]


def test_meta_1_and_aligned(corpus, tmp_path):
    m1 = _load("meta_1", corpus, tmp_path)
    assert list(m1) == ["dev_small"]
    r = m1["dev_small"][0]
    assert r["sentence"] == ["The", "76ers", "axed", "coach", "Cheeks", "."]
    assert (r["token_start"], r["token_end"], r["text"], r["head_lemma"]) == (2, 3, "axed", "axe")
    assert (r["cluster_id"], r["original_text"]) == ("ACT200", "fired")
    al = _load("ecbplus_aligned", corpus, tmp_path)
    v = al["validation"]
    assert v["mention_id"] == ["2_1ecb_2", "2_2ecb_2"]
    assert v["has_meta_m"] == [True, False] and v["has_meta_1"] == [True, False]
    assert v["meta_m_text"] == ["sent packing", ""] and v["ecb_text"] == ["fired", "fired"]
    assert v["meta_1_token_start"] == [2, -1]


def test_documents_drop_repeated_blocks(corpus, tmp_path):
    docs = _load("documents", corpus, tmp_path)
    assert docs["validation"]["doc_id"] == ["2_1ecb", "2_2ecb"]
    assert docs["validation"][1]["tokens"] == "Cheeks was shown the door Saturday .".split()
    assert docs["test"][0]["sentence_ids"] == [0] * 5 + [1] * 5


def test_head_source_option(corpus, tmp_path):
    u = _load("meta_m", corpus, tmp_path, head_source="ucdcr")["validation"][0]
    assert (u["head"], u["head_lemma"], u["pos"]) == ("sent", "send", "VERB")  # uCDCR's head, lemma lower-cased
    f = _load("meta_m", corpus, tmp_path, head_source="first_content")["validation"][0]
    assert (f["head"], f["head_lemma"], f["pos"]) == ("sent", "send", "VERB")  # the ECB+ rule; uCDCR's token
    t = _load("meta_m", corpus, tmp_path)["test"][0]
    assert (t["head"], t["head_lemma"], t["pos"]) == ("netted", "net", "VERB")  # one word: uCDCR's token
    with pytest.raises(ValueError, match="head_source must be one of 'content', 'first_content', 'ucdcr'"):
        _load("meta_m", corpus, tmp_path, head_source="parser")


@pytest.mark.parametrize("text, head", [
    ("storm of warfare", "storm"),                    # a function word ends the head's run
    ("dancing to the tune of", "dancing"),
    ("judicial crucible", "crucible"),                # pre-modifiers precede the head
    ("earth 's angry 7.6 voice", "voice"),            # the possessive joins the run
    ("high - stakes venture", "venture"),             # hyphens join
    ("6 . 1 seismic shockwave", "shockwave"),         # a decimal point joins
    ("engrave their names", "engrave"),               # a determiner starts the verb's object
    ("put a stopper in the bottle of", "stopper"),    # 'put' is a spaCy stop word
    ("persisted relentlessly", "persisted"),          # an adverb-only word is never the head
    ("doggedly followed", "followed"),
    ("invaded like an army", "invaded"),              # 'like' is a preposition (not a spaCy stop word)
    ("unleashed fury", "fury"),                       # documented miss: verb + bare noun
])
def test_phrase_head_rule(text, head):
    from figbench.corpora.ecbmeta import phrase_head_index

    words = text.split()
    assert words[phrase_head_index(words)] == head


def test_phrase_head_rule_without_content_word():
    from figbench.corpora.ecbmeta import meta_m_head, phrase_head_index

    assert phrase_head_index(["the", "one", "which"]) is None
    m = {"mention_head": "one", "mention_head_lemma": "one", "mention_head_pos": "NOUN", "mention_head_id": 8}
    assert meta_m_head(m, ["the", "one", "which"], [7, 8, 9]) == ("one", "one", "NOUN", "fallback")
    m = {"mention_head": "of", "mention_head_lemma": "of", "mention_head_pos": "ADP", "mention_head_id": 2}
    assert meta_m_head(m, ["storm", "of", "warfare"], [0, 1, 2]) == ("storm", "storm", "", "changed")


def test_cluster_source_option(corpus, tmp_path):
    ds = _load("meta_m", corpus, tmp_path, cluster_source="ucdcr")
    assert ds["validation"]["cluster_id"] == ["ACT200"]  # a chain equal to one ECB+ cluster keeps its id
    with pytest.raises(ValueError, match="cluster_source"):
        _load("meta_m", corpus, tmp_path, cluster_source="nope")


def _mentions():
    return json.loads((FIX / "ecbmeta" / "mentions.json").read_text())


def test_span_not_found_names_file_and_mention(tmp_path):
    ms = _mentions()
    ms[0]["tokens_text"] = "['sent', 'packed']"
    root = _write_corpus(tmp_path / "ecbmeta", mentions=ms)
    with pytest.raises(ValueError, match=r"all_mentions\.parquet: mention ECBPlusMETAm_2_1ecb_ACT200_0_2_Ab12: "
                                         r"span \['sent', 'packed'\] not found"):
        _load("meta_m", root, tmp_path)


def test_unaligned_and_duplicate_mentions(tmp_path):
    ms = _mentions()
    ms[0]["mention_id"] = "ECBPlusMETAm_2_1ecb_ACT200_0_4_Ab12"
    root = _write_corpus(tmp_path / "a", mentions=ms)
    with pytest.raises(ValueError, match=r"ECBPlusMETAm_2_1ecb_ACT200_0_4_Ab12: no ECB\+ event mention starts at "
                                         r"2_1ecb sentence 0 token 4"):
        _load("meta_m", root, tmp_path)
    ms = _mentions()
    root = _write_corpus(tmp_path / "b", mentions=ms + [ms[0]])
    with pytest.raises(ValueError, match=r"all_mentions\.parquet: duplicate mention_id ECBPlusMETAm_2_1ecb_ACT200"):
        _load("meta_m", root, tmp_path)
    bad = _mentions()
    bad[2]["split"] = "dev"
    root = _write_corpus(tmp_path / "c", mentions=bad)
    with pytest.raises(ValueError, match=r"unknown split value\(s\) \['dev'\]"):
        _load("meta_m", root, tmp_path)


def test_bad_sheet(tmp_path):
    sheet = json.loads((FIX / "ecbmeta" / "comprehension_sheet.json").read_text())
    sheet[1][2] = "The <m> 76ers </m> <m> axed </m> coach Cheeks."
    root = _write_corpus(tmp_path / "a", sheet=sheet)
    with pytest.raises(ValueError, match=r"ecb_meta_analysis\.xlsx: Comprehension_analysis row 2 "
                                         r"\(m_id 2_1ecb\.xml_2\): "
                                         r"expected one <m> \.\.\. </m> span, found 2"):
        _load("meta_1", root, tmp_path)
    sheet = json.loads((FIX / "ecbmeta" / "comprehension_sheet.json").read_text())
    sheet[0][1] = "ECB"
    root = _write_corpus(tmp_path / "b", sheet=sheet)
    with pytest.raises(ValueError, match=r"ecb_meta_analysis\.xlsx: sheet Comprehension_analysis header"):
        _load("meta_1", root, tmp_path)


def test_missing_files(tmp_path, monkeypatch):
    monkeypatch.delenv("FIGBENCH_DATA_DIR", raising=False)  # no ECB+ to be found there either
    root = _write_corpus(tmp_path / "ecbmeta")
    (root / "ucdcr" / "output_data" / "all_mentions.parquet").unlink()
    (root / "ucdcr" / "output_data" / "all_documents.parquet").unlink()
    with pytest.raises(MissingDataError) as err:
        _load("meta_m", root, tmp_path)
    assert "all_mentions.parquet" in str(err.value) and "all_documents.parquet" in str(err.value)
    # no ECB+ release beside it and none named: one error naming where it looked
    root = _write_corpus(tmp_path / "x" / "ecbmeta")
    with pytest.raises(MissingDataError, match=r"(?s)ECB\+ release is needed.*x/ecbplus/ECB\+"):
        figbench.load_dataset("ecbmeta", "meta_m", data_dir=str(root), cache_dir=str(tmp_path / "c2"))


def _mention_map():
    """A small llms_coref ``mention_map`` (ECB+META_1): an entity, a train mention and two paraphrases."""
    return {
        "2_1ecb.xml_2": {"men_type": "evt", "split": "dev", "mention_text": "axed", "gold_cluster": "ACT200",
                         "marked_sentence": "The 76ers <m> axed </m> coach Cheeks."},
        "2_2ecb.xml_2": {"men_type": "evt", "split": "dev", "mention_text": "sacked", "gold_cluster": "ACT200",
                         "marked_sentence": "Cheeks was <m> sacked </m> Saturday."},
        "36_1ecb.xml_2": {"men_type": "evt", "split": "test", "mention_text": "netted", "gold_cluster": 10000000000,
                          "marked_sentence": "Police <m> netted </m> two leaders."},
        "36_1ecb.xml_1": {"men_type": "ent", "split": "test", "marked_sentence": "<m> Police </m> netted two leaders."},
        "1_1ecb.xml_2": {"men_type": "evt", "split": "train",
                         "marked_sentence": "Tara Reid <m> checked into </m> rehab ."},
    }


def _write_pkl(root: Path, data) -> None:
    import pickle

    (root / "ecb_meta_single").mkdir(parents=True, exist_ok=True)
    with open(root / "ecb_meta_single" / "mention_map.pkl", "wb") as f:
        pickle.dump(data, f)


def test_meta_1_from_llms_coref_mention_map(corpus, tmp_path):
    _write_pkl(corpus, _mention_map())
    ds = _load("meta_1", corpus, tmp_path)
    assert {s: d["mention_id"] for s, d in ds.items()} == {
        "validation": ["2_1ecb_2", "2_2ecb_2"], "dev_small": ["2_1ecb_2"], "dev_rest": ["2_2ecb_2"],
        "test": ["36_1ecb_2"]}
    assert ds["validation"]["text"] == ["axed", "sacked"] and ds["validation"]["cluster_id"] == ["ACT200"] * 2
    assert ds["test"][0]["sentence"] == ["Police", "netted", "two", "leaders", "."]
    al = _load("ecbplus_aligned", corpus, tmp_path)
    assert al["validation"]["has_meta_1"] == [True, True] and al["test"]["meta_1_text"] == ["netted"]


def test_mention_map_refuses_code_and_bad_records(tmp_path):
    import os
    import pickle

    class Evil:
        def __reduce__(self):
            return (os.system, ("echo pwned",))

    root = _write_corpus(tmp_path / "a")
    (root / "ecb_meta_single").mkdir()
    (root / "ecb_meta_single" / "mention_map.pkl").write_bytes(pickle.dumps({"x": Evil()}))
    with pytest.raises(ValueError, match=r"mention_map\.pkl: not an llms_coref mention_map pickle \(global "
                                         r"(posix|nt)\.system is not plain data\)"):
        _load("meta_1", root, tmp_path)
    data = _mention_map()
    del data["2_2ecb.xml_2"]["marked_sentence"]
    root = _write_corpus(tmp_path / "b")
    _write_pkl(root, data)
    with pytest.raises(ValueError, match=r"mention_map\.pkl: mention 2_2ecb\.xml_2: no marked_sentence"):
        _load("meta_1", root, tmp_path)
    data = _mention_map()
    data["2_9ecb.xml_4"] = dict(data["2_1ecb.xml_2"])
    root = _write_corpus(tmp_path / "c")
    _write_pkl(root, data)
    with pytest.raises(ValueError, match=r"mention 2_9ecb\.xml_4: not an ECB\+ validation event mention"):
        _load("meta_1", root, tmp_path)
