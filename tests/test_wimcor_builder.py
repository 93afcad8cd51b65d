"""The `wimcor` builder: sample configs on the real files, full config on hand-made XML fixtures."""

from __future__ import annotations

import shutil
import tarfile
from collections import Counter
from pathlib import Path

import pytest

import datasets
import figbench
from figbench.corpora import wimcor as wio
from figbench.corpora.files import MissingDataError, verify_sha256
from tests.conftest import corpus_path

FIX = Path(__file__).resolve().parent / "fixtures" / "wimcor"
MEDIUM_COUNTS = {  # lines per sample file (train, test)
    "ARTIFACT": (500, 500), "EVENT": (482, 180), "INSTITUTE": (500, 500), "LOCATION": (500, 500), "TEAM": (500, 500),
}


def _builder_module():
    from figbench.corpora import wimcor

    return wimcor


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    root = corpus_path("wimcor", "wiki_ARTIFACT_train.txt").parent
    return figbench.load_dataset("wimcor", "sample", data_dir=str(root), cache_dir=str(tmp_path_factory.mktemp("c")))


#: The 7 test samples of the sample release that also occur in train (paragraph and PMW offsets), by
#: original id -> the train copy (original id); dropped from the sample test split by default (issue 11).
TRAIN_TEST_DUPLICATES = {
    "test-artifact-0033": "train-artifact-0268", "test-artifact-0206": "train-artifact-0040",
    "test-artifact-0287": "train-artifact-0162", "test-artifact-0343": "train-artifact-0032",
    "test-artifact-0394": "train-artifact-0337", "test-event-0137": "train-artifact-0477",
    "test-institute-0198": "train-artifact-0427",
}
DROPPED = {"ARTIFACT": 5, "EVENT": 1, "INSTITUTE": 1, "LOCATION": 0, "TEAM": 0}


def test_sample_counts_and_labels(sample):
    # 2,180 test samples in the files, less the 7 that also occur in train (dropped by default)
    assert {k: len(v) for k, v in sample.items()} == {"train": 2_482, "test": 2_173}
    medium = sample["train"].features["medium"]
    coarse = sample["train"].features["coarse"]
    assert medium.names == list(wio.MEDIUM_LABELS) and coarse.names == ["literal", "metonymic"]
    for i, split in enumerate(("train", "test")):
        counts = Counter(medium.int2str(m) for m in sample[split]["medium"])
        assert counts == {m: c[i] - (DROPPED[m] if split == "test" else 0) for m, c in MEDIUM_COUNTS.items()}
        for m, c in zip(sample[split]["medium"], sample[split]["coarse"]):
            assert coarse.int2str(c) == wio.coarse_for_medium(medium.int2str(m))
        assert set(sample[split]["fine"]) == {""}


def test_sample_offsets_and_ids(sample):
    # ids are opaque (issue 13; they were "train-artifact-0001"...): 16 hex digits, unique, ordered
    ids = [i for split in sample.values() for i in split["id"]]
    assert len(ids) == len(set(ids)) == 4_655
    assert all(len(i) == 16 and int(i, 16) >= 0 for i in ids)
    for split in sample.values():
        assert split["id"] == sorted(split["id"])
    for row in sample["test"]:
        assert row["text"][row["pmw_start"]:row["pmw_end"]] == row["pmw"]
        assert "<ENT>" not in row["text"] and "<SEP>" not in row["text"]
    original = wio.original_ids("sample", corpus_path("wimcor", "wiki_ARTIFACT_train.txt").parent)
    new = {v: k for k, v in original.items()}["train-artifact-0001"]
    first = sample["train"].filter(lambda r: r["id"] == new)[0]
    assert first["pmw"] == "Sarum" and first["text"].startswith("Michael Wise (1648–1687)")


def test_sample_train_test_duplicates_dropped(sample, tmp_path):
    root = corpus_path("wimcor", "wiki_ARTIFACT_train.txt").parent
    parsed = wio.read_samples(wio.sample_paths(root, data_dir=str(root)))
    found = {t.id: [x.id for x in tr] for t, tr in wio.train_test_duplicates(parsed)}
    assert found == {k: [v] for k, v in TRAIN_TEST_DUPLICATES.items()}
    original = wio.original_ids("sample", root)
    assert not {original[i] for i in sample["test"]["id"]} & set(TRAIN_TEST_DUPLICATES)
    texts = set(sample["train"]["text"])
    assert not any(t in texts for t in sample["test"]["text"])  # no test paragraph occurs in train
    kept = figbench.load_dataset("wimcor", "sample", data_dir=str(root), cache_dir=str(tmp_path),
                                 keep_train_duplicates=True)
    assert len(kept["test"]) == 2_180 and kept["train"]["id"] == sample["train"]["id"]
    assert set(kept["test"]["id"]) - set(sample["test"]["id"]) == {
        k for k, v in original.items() if v in TRAIN_TEST_DUPLICATES}


def test_sample_with_validation_is_seeded_and_stratified(tmp_path):
    root = corpus_path("wimcor", "wiki_ARTIFACT_train.txt").parent
    d = figbench.load_dataset("wimcor", "sample_with_validation", data_dir=str(root), cache_dir=str(tmp_path / "a"))
    assert {k: len(v) for k, v in d.items()} == {"train": 2_234, "validation": 248, "test": 2_173}
    assert not set(d["train"]["id"]) & set(d["validation"]["id"])
    per_medium = Counter(d["validation"].features["medium"].int2str(m) for m in d["validation"]["medium"])
    assert per_medium == {"ARTIFACT": 50, "EVENT": 48, "INSTITUTE": 50, "LOCATION": 50, "TEAM": 50}
    again = figbench.load_dataset("wimcor", "sample_with_validation", data_dir=str(root), cache_dir=str(tmp_path / "b"))
    assert again["validation"]["id"] == d["validation"]["id"]
    other = figbench.load_dataset("wimcor", "sample", data_dir=str(root), cache_dir=str(tmp_path / "c"),
                                  validation_fraction=0.2, seed=1)
    assert len(other["validation"]) == 496 and set(other["validation"]["id"]) != set(d["validation"]["id"])


def test_sample_checksums_match_the_real_files():
    wimcor = _builder_module()
    root = corpus_path("wimcor", "wiki_ARTIFACT_train.txt").parent
    assert set(wimcor.SAMPLE_SHA256) == {n for s in wio.SAMPLE_SPLITS for n in wio.sample_files(s).values()}
    for name, digest in wimcor.SAMPLE_SHA256.items():
        verify_sha256(root / name, digest, corpus="wimcor", label=name)


def test_verify_sha256_names_the_file(tmp_path):
    path = tmp_path / "x.txt"
    path.write_bytes(b"abc")
    good = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    verify_sha256(path, good, corpus="wimcor", label="x.txt")
    verify_sha256(path, None, corpus="wimcor", label="x.txt")  # unknown checksum: nothing to check
    with pytest.raises(ValueError, match=r"checksum mismatch for https://example.org/x.txt .*x\.txt"):
        verify_sha256(path, "0" * 64, corpus="wimcor", label="https://example.org/x.txt")


def test_full_config_from_fixture_xml(tmp_path):
    d = figbench.load_dataset("wimcor", "full", data_dir=str(FIX / "full"), cache_dir=str(tmp_path),
                              verify_counts=False)
    assert {k: len(v) for k, v in d.items()} == {"train": 5, "validation": 2, "test": 3}
    # ids are opaque (issue 13; they were "train-000002"...), the partition order is the file's
    original = wio.original_ids("full", FIX / "full")
    assert [original[i] for i in d["validation"]["id"]] == ["validation-000001", "validation-000002"]
    row = d["train"][1]
    assert original[row["id"]] == "train-000002" and row["fine"] == "King's College London"
    assert row["text"][row["pmw_start"]:row["pmw_end"]] == "King's College"
    assert d["train"].features["coarse"].int2str(row["coarse"]) == "metonymic"
    ids = [i for v in d.values() for i in v["id"]]
    assert len(ids) == len(set(ids)) == 10 and all(len(i) == 16 for i in ids)


def test_full_config_checks_published_partition_sizes(tmp_path):
    with pytest.raises(Exception) as info:
        figbench.load_dataset("wimcor", "full", data_dir=str(FIX / "full"), cache_dir=str(tmp_path))
    err = info.value if isinstance(info.value, ValueError) else info.value.__cause__
    assert isinstance(err, ValueError)
    assert "train-partition.xml has 5 samples, the v1.1 train partition has 123,600" in str(err)


def test_full_config_reads_release_archive_and_flat_layout(tmp_path):
    corpus = tmp_path / "wimcor"
    corpus.mkdir()
    with tarfile.open(corpus / wio.RELEASE_ARCHIVE, "w:gz") as tar:
        tar.add(FIX / "full" / "wimcor-v1.1", arcname="wimcor-v1.1")
    d = figbench.load_dataset("wimcor", "full", data_dir=str(corpus), cache_dir=str(tmp_path / "c1"),
                              verify_counts=False)
    assert {k: len(v) for k, v in d.items()} == {"train": 5, "validation": 2, "test": 3}
    flat = tmp_path / "flat"
    shutil.copytree(FIX / "full" / "wimcor-v1.1" / "dataset" / "xml", flat)
    d2 = figbench.load_dataset("wimcor", "full", data_dir=str(flat), cache_dir=str(tmp_path / "c2"),
                               verify_counts=False)
    assert d2["test"]["id"] == d["test"]["id"]


def test_full_config_bad_xml_names_file_and_sample(tmp_path):
    corpus = tmp_path / "wimcor"
    shutil.copytree(FIX / "full", corpus)
    shutil.copy(FIX / "broken" / "unknown_tag.xml", corpus / wio.RELEASE_XML_DIR / "val-partition.xml")
    with pytest.raises(Exception) as info:
        figbench.load_dataset("wimcor", "full", data_dir=str(corpus), cache_dir=str(tmp_path / "c"),
                              verify_counts=False)
    err = info.value if isinstance(info.value, ValueError) else info.value.__cause__
    assert isinstance(err, ValueError) and "val-partition.xml: sample 1: unknown tag <b>" in str(err)


def test_missing_files_are_listed(tmp_path):
    empty = tmp_path / "wimcor"
    empty.mkdir()
    with pytest.raises(MissingDataError) as info:
        figbench.load_dataset("wimcor", "full", data_dir=str(empty), cache_dir=str(tmp_path / "c"))
    msg = str(info.value)
    for name in ("train-partition.xml", "val-partition.xml", "test-partition.xml", "wimcor-v1.1.tar.gz"):
        assert name in msg
    with pytest.raises(MissingDataError, match=r"10 required file\(s\) not found"):
        figbench.load_dataset("wimcor", "sample", data_dir=str(empty), cache_dir=str(tmp_path / "c"))


def test_bad_sample_file_raises_value_error(tmp_path):
    with pytest.raises(ValueError, match=r"wiki_TEAM_train\.txt: line 2: expected two <ENT>"):
        figbench.load_dataset("wimcor", "sample", data_dir=str(FIX / "sample_broken"), cache_dir=str(tmp_path))


def test_fixture_sample_folder_loads(tmp_path):
    d = figbench.load_dataset("wimcor", "sample", data_dir=str(FIX / "sample"), cache_dir=str(tmp_path))
    assert {k: len(v) for k, v in d.items()} == {"train": 9, "test": 5}


@pytest.mark.slow
def test_full_release_counts(tmp_path):
    root = corpus_path("wimcor", "wimcor-v1.1", "dataset", "xml", "train-partition.xml").parents[3]
    d = figbench.load_dataset("wimcor", "full", data_dir=str(root), cache_dir=str(tmp_path))
    assert {k: len(v) for k, v in d.items()} == {"train": 123_600, "validation": 41_200, "test": 41_200}


def test_export_round_trip_through_plain_datasets(tmp_path):
    from figbench.commands.export import export_dataset

    report = export_dataset("wimcor", "sample", to=tmp_path / "hub", data_dir=str(FIX / "sample"),
                            cache_dir=str(tmp_path / "c"))
    assert report.configs == {"sample": {"train": 9, "test": 5}}
    plain = datasets.load_dataset(str(tmp_path / "hub"), "sample", cache_dir=str(tmp_path / "c2"))
    built = figbench.load_dataset("wimcor", "sample", data_dir=str(FIX / "sample"), cache_dir=str(tmp_path / "c"))
    assert plain["train"].to_list() == built["train"].to_list()
    assert plain["train"].features == built["train"].features


def test_sample_ids_are_stable_and_carry_no_label(sample, tmp_path):
    from tests.id_leaks import assert_no_id_leak, id_probe

    root = corpus_path("wimcor", "wiki_ARTIFACT_train.txt").parent
    again = figbench.load_dataset("wimcor", "sample", data_dir=str(root), cache_dir=str(tmp_path))
    for split in ("train", "test"):
        assert again[split]["id"] == sample[split]["id"] and again[split]["text"] == sample[split]["text"]
    rows = [r for split in ("train", "test") for r in sample[split].select_columns(["id", "medium"])]
    ids, labels = [r["id"] for r in rows], [r["medium"] for r in rows]
    assert_no_id_leak(ids, labels)
    # the probe finds the leak of the original ids ("test-event-0042")
    original = wio.original_ids("sample", root)
    assert id_probe([original[i] for i in ids], labels)[0] > 0.95
    # ...and of the original row order (grouped by label): ids are sorted, so order carries nothing
    media = sample["test"]["medium"]
    assert sum(a == b for a, b in zip(media, media[1:])) / (len(media) - 1) < 0.3


def _s(text, start, medium, sid):
    return wio.WimcorSample(id=sid, text=text, pmw=text[start:start + 4], pmw_start=start, pmw_end=start + 4,
                            coarse=wio.coarse_for_medium(medium), medium=medium, fine="")


def test_sample_splits_ids_duplicates_and_validation():
    parsed = {"train": [_s("In Rome the pope spoke.", 3, "LOCATION", "train-location-0001"),
                        _s("Lyon beat Nice 2-0.", 0, "TEAM", "train-team-0001"),
                        _s("Lyon beat Nice 2-0.", 0, "TEAM", "train-team-0002")],  # a repeat inside train
              "test": [_s("Lyon beat Nice 2-0.", 0, "TEAM", "test-team-0001"),      # also in train: dropped
                       _s("Lyon beat Nice 2-0.", 10, "TEAM", "test-team-0002"),     # other offsets: kept
                       _s("Oslo voted no.", 0, "INSTITUTE", "test-institute-0001")]}
    out = wio.sample_splits(parsed)
    assert [len(out[s]) for s in ("train", "test")] == [3, 2]
    assert len({s.id for v in out.values() for s in v}) == 5  # the repeat gets its own id
    kept = wio.sample_splits(parsed, keep_train_duplicates=True)
    assert len(kept["test"]) == 3 and {s.id for s in out["test"]} < {s.id for s in kept["test"]}
    carved = wio.sample_splits(parsed, validation_fraction=0.5, seed=0)
    assert {s.id for s in carved["train"] + carved["validation"]} == {s.id for s in out["train"]}
    for v in (out, kept, carved):
        for rows in v.values():
            assert [s.id for s in rows] == sorted(s.id for s in rows)
    assert wio.sample_splits(parsed)["test"][0].id == out["test"][0].id  # deterministic
