"""The WiMCor stream parser (figbench.corpora.wimcor) on hand-written XML and sample fixtures."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

from figbench.corpora import wimcor as wio

FIX = Path(__file__).resolve().parent / "fixtures" / "wimcor"
XML = FIX / "full" / "wimcor-v1.1" / "dataset" / "xml"


def _parse(path, **kw):
    report = wio.ParseReport()
    return list(wio.iter_xml_samples(path, report=report, **kw)), report


def test_train_partition_repairs_and_offsets():
    samples, report = _parse(XML / "train-partition.xml", id_prefix="train-")
    assert [s.id for s in samples] == [f"train-{i:06d}" for i in range(1, 6)]
    for s in samples:
        assert s.text[s.pmw_start:s.pmw_end] == s.pmw
        assert "<" not in s.pmw and s.text == s.text.strip()
    first, kings, leeds, troy, hastings = samples
    assert (first.text, first.coarse, first.medium, first.fine) == (
        "The delegation flew from Oslo to Bergen on Monday.", "literal", "LOCATION", "Bergen")
    # apostrophe inside a single-quoted attribute, and a bare '&' in the text
    assert kings.fine == "King's College London" and kings.pmw == "King's College"
    assert kings.text.endswith("the survey & the data.") and kings.coarse == "metonymic"
    assert leeds.text.endswith("(score <5> goals).") and leeds.medium == "TEAM"
    # a tag glued to the preceding word gets a separating space
    assert troy.text.startswith("He studied the ruins of Troy, a site << older")
    assert hastings.medium == "EVENT" and hastings.text.endswith("land étates.")
    assert report.samples == 5
    assert (report.bare_ampersands, report.requoted_attributes, report.glued_pmw, report.html_entities) == (1, 1, 1, 1)
    assert report.stray_brackets == 3  # '<5>' and '<<'
    assert report.inconsistent_labels == 0


def test_file_without_root_element_and_entities():
    samples, _ = _parse(XML / "test-partition.xml")
    assert [s.pmw for s in samples] == ["Bolton", "Derby", "Harvard"]
    assert samples[1].text == "The road from Derby to Leek is steep & narrow."


@pytest.mark.parametrize("chunk_size", [1, 7, 64, 1 << 20])
@pytest.mark.parametrize("name", ["train-partition.xml", "test-partition.xml"])
def test_chunk_boundaries_do_not_change_results(chunk_size, name):
    reference, ref_report = _parse(XML / name)
    samples, report = _parse(XML / name, chunk_size=chunk_size)
    assert samples == reference and report == ref_report


@pytest.mark.parametrize("chunk_size", [1, 5, 1 << 20])
def test_declaration_without_root_element(tmp_path, chunk_size):
    path = tmp_path / "noroot.xml"
    path.write_bytes(b"<?xml version='1.0' encoding='utf-8'?>\n" + (XML / "test-partition.xml").read_bytes())
    samples, _ = _parse(path, chunk_size=chunk_size)
    assert [s.pmw for s in samples] == ["Bolton", "Derby", "Harvard"]


def test_file_object_and_bom():
    data = (XML / "val-partition.xml").read_bytes()
    samples, _ = _parse(io.BytesIO(b"\xef\xbb\xbf" + data), name="bom.xml")
    assert [s.fine for s in samples] == ["Tiverton", "Congress of Vienna"]


def test_reads_partition_from_release_archive(tmp_path):
    archive = tmp_path / wio.RELEASE_ARCHIVE
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(XML / "val-partition.xml", arcname=f"{wio.RELEASE_XML_DIR}/val-partition.xml")
    samples = list(wio.iter_archive_partition(archive, "validation", id_prefix="validation-"))
    assert [s.id for s in samples] == ["validation-000001", "validation-000002"]
    with pytest.raises(ValueError, match="no member .*test-partition.xml"):
        list(wio.iter_archive_partition(archive, "test"))


@pytest.mark.parametrize("name, message", [
    ("truncated.xml", r"truncated\.xml: truncated or not well-formed XML at line 4"),
    ("unknown_tag.xml", r"unknown_tag\.xml: sample 1: unknown tag <b> inside <sample>"),
    ("unknown_element.xml", r"unknown_element\.xml: unknown tag <note> after sample 1"),
    ("bad_label.xml", r"bad_label\.xml: sample 1: unknown medium label 'CITY'"),
    ("no_pmw.xml", r"no_pmw\.xml: sample 1: a sample needs exactly one <pmw>, found 0"),
])
def test_bad_xml_raises_naming_file_and_record(name, message):
    with pytest.raises(ValueError, match=message):
        list(wio.iter_xml_samples(FIX / "broken" / name))


def test_bad_xml_in_memory(tmp_path):
    bad = tmp_path / "bad.xml"
    bad.write_bytes(b"<c>\n<sample>x <pmw coarse='maybe' medium='TEAM' fine='y'>Z</pmw></sample>\n</c>\n")
    with pytest.raises(wio.WimcorFormatError, match="bad.xml: sample 1: unknown coarse label 'maybe'"):
        list(wio.iter_xml_samples(bad))
    bad.write_bytes(b"<c>\n<sample>caf\xe9 <pmw coarse='lit' medium='LOCATION' fine='y'>Z</pmw></sample>\n</c>\n")
    with pytest.raises(ValueError, match="bad.xml: not valid UTF-8 near byte"):
        list(wio.iter_xml_samples(bad))
    bad.write_bytes(b"")
    with pytest.raises(ValueError, match="bad.xml"):
        list(wio.iter_xml_samples(bad))


def test_inconsistent_labels_are_counted_not_dropped(tmp_path):
    path = tmp_path / "odd.xml"
    path.write_text("<c>\n<sample>At <pmw coarse='met' medium='LOCATION' fine='Ely'>Ely</pmw>.</sample>\n</c>\n")
    samples, report = _parse(path)
    assert len(samples) == 1 and samples[0].coarse == "metonymic" and report.inconsistent_labels == 1


def test_write_xml_round_trip(tmp_path):
    samples, _ = _parse(XML / "train-partition.xml")
    out = tmp_path / "round.xml"
    wio.write_xml(samples, out)
    again, report = _parse(out)
    assert again == samples and report.bare_ampersands == 0 and report.requoted_attributes == 0


def test_sample_files_parse_with_offsets():
    samples = list(wio.iter_sample_file(FIX / "sample" / "wiki_ARTIFACT_train.txt", "ARTIFACT", "train"))
    assert [s.id for s in samples] == ["train-artifact-0001", "train-artifact-0002"]
    first, second = samples
    assert first.text == "The frigate was fitted out at Chatham in 1790."
    assert (first.pmw, first.pmw_start, first.pmw_end) == ("Chatham", 30, 37)
    assert second.text == "Repairs were done at Rosyth ."
    assert second.text[second.pmw_start:second.pmw_end] == "Rosyth"
    assert (first.coarse, first.medium, first.fine) == ("metonymic", "ARTIFACT", "")
    loc = list(wio.iter_sample_file(FIX / "sample" / "wiki_LOCATION_train.txt", "LOCATION", "train"))
    assert {s.coarse for s in loc} == {"literal"}
    assert loc[2].text == "Braga and Braga again." and loc[2].pmw_start == 10  # the marked occurrence


def test_bad_sample_lines(tmp_path):
    with pytest.raises(ValueError, match=r"wiki_TEAM_train\.txt: line 2: expected two <ENT> markers"):
        list(wio.iter_sample_file(FIX / "sample_broken" / "wiki_TEAM_train.txt", "TEAM", "train"))
    path = tmp_path / "wiki_TEAM_test.txt"
    path.write_text("Leeds<SEP>Fans of <ENT>Bolton<ENT> sang.\n")
    with pytest.raises(ValueError, match=r"line 1: target 'Leeds' differs from the marked entity 'Bolton'"):
        list(wio.iter_sample_file(path, "TEAM", "test"))
    path.write_text("Leeds<SEP>Fans of <ENT>Leeds<ENT> sang.\n\nLeeds<SEP>x <ENT>Leeds<ENT>\n")
    with pytest.raises(ValueError, match="line 2 is empty"):
        list(wio.iter_sample_file(path, "TEAM", "test"))
    with pytest.raises(ValueError, match="unknown medium label 'CITY'"):
        list(wio.iter_sample_file(path, "CITY", "test"))
