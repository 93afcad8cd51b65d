"""The `wimcor` builder: sample configs on the real files, full config on hand-made XML fixtures."""

from __future__ import annotations

import shutil
import tarfile
from collections import Counter
from pathlib import Path

import datasets
import pytest
from tests.conftest import corpus_path

import figbench
from figbench.corpora import wimcor as wio
from figbench.corpora.files import MissingDataError

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


def test_sample_counts_and_labels(sample):
    assert {k: len(v) for k, v in sample.items()} == {"train": 2_482, "test": 2_180}
    medium = sample["train"].features["medium"]
    coarse = sample["train"].features["coarse"]
    assert medium.names == list(wio.MEDIUM_LABELS) and coarse.names == ["literal", "metonymic"]
    for i, split in enumerate(("train", "test")):
        counts = Counter(medium.int2str(m) for m in sample[split]["medium"])
        assert counts == {m: c[i] for m, c in MEDIUM_COUNTS.items()}
        for m, c in zip(sample[split]["medium"], sample[split]["coarse"]):
            assert coarse.int2str(c) == wio.coarse_for_medium(medium.int2str(m))
        assert set(sample[split]["fine"]) == {""}


def test_sample_offsets_and_ids(sample):
    ids = [i for split in sample.values() for i in split["id"]]
    assert len(ids) == len(set(ids)) == 4_662
    for row in sample["test"]:
        assert row["text"][row["pmw_start"]:row["pmw_end"]] == row["pmw"]
        assert "<ENT>" not in row["text"] and "<SEP>" not in row["text"]
    first = sample["train"].filter(lambda r: r["id"] == "train-artifact-0001")[0]
    assert first["pmw"] == "Sarum" and first["text"].startswith("Michael Wise (1648–1687)")


def test_sample_with_validation_is_seeded_and_stratified(tmp_path):
    root = corpus_path("wimcor", "wiki_ARTIFACT_train.txt").parent
    d = figbench.load_dataset("wimcor", "sample_with_validation", data_dir=str(root), cache_dir=str(tmp_path / "a"))
    assert {k: len(v) for k, v in d.items()} == {"train": 2_234, "validation": 248, "test": 2_180}
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
        wimcor.verify_sha256(root / name, digest, name)


def test_verify_sha256_names_the_file(tmp_path):
    wimcor = _builder_module()
    path = tmp_path / "x.txt"
    path.write_bytes(b"abc")
    good = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    wimcor.verify_sha256(path, good, "x.txt")
    wimcor.verify_sha256(path, None, "x.txt")  # unknown checksum: nothing to check
    with pytest.raises(ValueError, match=r"checksum mismatch for https://example.org/x.txt .*x\.txt"):
        wimcor.verify_sha256(path, "0" * 64, "https://example.org/x.txt")


def test_full_config_from_fixture_xml(tmp_path):
    d = figbench.load_dataset("wimcor", "full", data_dir=str(FIX / "full"), cache_dir=str(tmp_path),
                              verify_counts=False)
    assert {k: len(v) for k, v in d.items()} == {"train": 5, "validation": 2, "test": 3}
    row = d["train"][1]
    assert row["id"] == "train-000002" and row["fine"] == "King's College London"
    assert row["text"][row["pmw_start"]:row["pmw_end"]] == "King's College"
    assert d["train"].features["coarse"].int2str(row["coarse"]) == "metonymic"
    assert d["validation"]["id"] == ["validation-000001", "validation-000002"]


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
    d2 = figbench.load_dataset("wimcor", "full", data_dir=str(flat), cache_dir=str(tmp_path / "c2"), verify_counts=False)
    assert d2["test"]["id"] == d["test"]["id"]


def test_full_config_bad_xml_names_file_and_sample(tmp_path):
    corpus = tmp_path / "wimcor"
    shutil.copytree(FIX / "full", corpus)
    shutil.copy(FIX / "broken" / "unknown_tag.xml", corpus / wio.RELEASE_XML_DIR / "val-partition.xml")
    with pytest.raises(Exception) as info:
        figbench.load_dataset("wimcor", "full", data_dir=str(corpus), cache_dir=str(tmp_path / "c"), verify_counts=False)
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
    from figbench.export import export_dataset

    report = export_dataset("wimcor", "sample", to=tmp_path / "hub", data_dir=str(FIX / "sample"),
                            cache_dir=str(tmp_path / "c"))
    assert report.configs == {"sample": {"train": 9, "test": 5}}
    plain = datasets.load_dataset(str(tmp_path / "hub"), "sample", cache_dir=str(tmp_path / "c2"))
    built = figbench.load_dataset("wimcor", "sample", data_dir=str(FIX / "sample"), cache_dir=str(tmp_path / "c"))
    assert plain["train"].to_list() == built["train"].to_list()
    assert plain["train"].features == built["train"].features
