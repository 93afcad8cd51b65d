"""The `epic` builder: every config from the real files, error cases on hand-written fixtures."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest

import datasets
import figbench
from figbench.corpora.files import MissingDataError
from tests.conftest import corpus_path

FIX = Path(__file__).resolve().parent / "fixtures" / "epic"


def _epic():
    from figbench.corpora import epic

    return epic


@pytest.fixture(scope="module")
def real(datasets_cache):
    root = corpus_path("epic", "full_dataset.json").parent
    for name in _epic().FILE_NAMES:
        corpus_path("epic", *name.split("/"))
    return {cfg: figbench.load_dataset("epic", cfg, data_dir=str(root), cache_dir=datasets_cache)
            for cfg in ("seen", "unseen", "alignment", "proverbs")}


def _proverbs(split):
    return {pid for pid in split["proverb_id"]}


def test_seen_split(real):
    d = real["seen"]
    assert {k: len(v) for k, v in d.items()} == {"train": 1_500, "test": 1_000}
    assert len(_proverbs(d["train"])) == len(_proverbs(d["test"])) == 250
    label = d["train"].features["label"]
    assert label.num_classes == 250
    for split in d.values():
        for row in split.select(range(0, len(split), 37)):
            assert label.int2str(row["label"]) == row["proverb"]
        assert Counter(split["proverb_id"]).most_common(1)[0][1] == (6 if split is d["train"] else 4)
    assert not set(d["train"]["id"]) & set(d["test"]["id"])


def test_unseen_split(real):
    d = real["unseen"]
    assert {k: len(v) for k, v in d.items()} == {"train": 1_500, "test": 1_000}
    train_p, test_p = _proverbs(d["train"]), _proverbs(d["test"])
    assert (len(train_p), len(test_p)) == (150, 100) and not train_p & test_p
    label = d["train"].features["label"]
    assert label.num_classes == 150
    assert all(label.int2str(r["label"]) == r["proverb"] for r in d["train"])
    assert set(d["test"]["label"]) == {-1}


def test_alignment(real):
    d = real["alignment"]
    assert {k: len(v) for k, v in d.items()} == {"train": 1_500, "test": 1_000}
    assert d["test"]["id"] == real["seen"]["test"]["id"]
    pairs = [(row, p) for split in d.values() for row in split for p in row["pairs"]]
    assert len(pairs) == 5_438
    matches = Counter(p["narrative_match"] for _, p in pairs)
    assert matches == {"exact": 5_433, "case_insensitive": 5}
    assert Counter(p["proverb_match"] for _, p in pairs) == {"exact": 5_425, "case_insensitive": 13}
    for row, p in pairs:
        found = row["narrative"][p["narrative_start"]:p["narrative_end"]]
        assert found.lower() == p["narrative_span"].lower()
        assert (found == p["narrative_span"]) == (p["narrative_match"] == "exact")
        assert row["proverb"][p["proverb_start"]:p["proverb_end"]].lower() == p["proverb_span"].lower()
        assert p["narrative_occurrences"] >= 1 and p["pair_id"].startswith(row["id"] + "-")
    assert sum(p["narrative_occurrences"] > 1 for _, p in pairs) == 203
    # pair ids are <opaque narrative id>-<k> (issue 13; they were Q185N2-2...): checked through the mapping
    original = _epic().original_ids(_epic().read_files(corpus_path("epic", "full_dataset.json").parent))
    odd = {original[p["pair_id"]] for _, p in pairs if p["narrative_match"] == "case_insensitive"}
    assert odd == {"Q185N2-2", "Q188N7-5", "Q211N4-2", "Q39N9-1", "Q88N8-2"}


def test_proverbs(real):
    d = real["proverbs"]
    assert list(d) == ["train"] and len(d["train"]) == 250
    rows = d["train"]
    assert set(rows["num_narratives"]) == {10}
    assert sorted(rows["seen_label"]) == list(range(250))
    assert Counter(rows["unseen_split"]) == {"train": 150, "test": 100}
    assert sorted(x for x in rows["unseen_label"] if x >= 0) == list(range(150))
    assert all((u >= 0) == (s == "train") for u, s in zip(rows["unseen_label"], rows["unseen_split"]))


def test_checksums_match_the_real_files():
    epic = _epic()
    root = corpus_path("epic", "full_dataset.json").parent
    from figbench.corpora.files import verify_sha256

    assert set(epic.SHA256) == set(epic.FILE_NAMES) == {f.path for f in epic.FILES}
    for name in epic.FILE_NAMES:
        verify_sha256(corpus_path("epic", *name.split("/")), epic.SHA256[name], corpus="epic", label=name)
    with pytest.raises(ValueError, match="checksum mismatch for all_proverbs.json"):
        verify_sha256(root / "all_proverbs.json", epic.SHA256["full_dataset.json"], corpus="epic",
                      label="all_proverbs.json")


def test_locate():
    locate = _epic().locate
    assert locate("he", "He said he would") == (8, 10, "exact", 1)
    assert locate("the cat", "The cat and the cat") == (12, 19, "exact", 1)
    assert locate("THE DOG", "the dog and the dog") == (0, 7, "case_insensitive", 2)
    assert locate("bird", "no such thing") == (-1, -1, "none", 0)


# ----------------------------------------------------------------------------- fixtures


def test_fixture_corpus_loads(tmp_path):
    d = figbench.load_dataset("epic", "alignment", data_dir=str(FIX / "good"), cache_dir=str(tmp_path))
    assert {k: len(v) for k, v in d.items()} == {"train": 3, "test": 3}
    original = _epic().original_ids(_epic().read_files(FIX / "good"))
    q2n2 = d["test"].filter(lambda r: original[r["id"]] == "Q2N2")[0]  # ids are opaque (issue 13)
    first = q2n2["pairs"][0]
    assert (first["narrative_match"], first["narrative_start"], first["narrative_end"]) == ("case_insensitive", 0, 23)
    seen = figbench.load_dataset("epic", "seen", data_dir=str(FIX / "good"), cache_dir=str(tmp_path))
    assert seen["train"].features["label"].names == ["Haste makes waste", "Look before you leap", "Time is money"]
    unseen = figbench.load_dataset("epic", "unseen", data_dir=str(FIX / "good"), cache_dir=str(tmp_path))
    # rows are in id order (issue 13; they were in split-file order, [0, 0, 1, 1])
    assert unseen["test"]["label"] == [-1, -1] and sorted(unseen["train"]["label"]) == [0, 0, 1, 1]


def _corpus_with(tmp_path, replacement: str, target: str) -> Path:
    root = tmp_path / "epic"
    shutil.copytree(FIX / "good", root)
    shutil.copy(FIX / "broken" / replacement, root / target)
    return root


SEEN_TRAIN = "data_splits/task_1_proverb_only_seen_train_data_indices.json"
SEEN_MAP = "data_splits/task_1_proverb_only_seen_label_map.json"


@pytest.mark.parametrize("replacement, target, message", [
    ("full_dataset_unaligned.json", "full_dataset.json",
     r"full_dataset\.json: record 'Q2N1': span_narrative_1 'read the lease twice' is not found in its narrative"),
    ("full_dataset_duplicate_pk.json", "full_dataset.json", r"full_dataset\.json: duplicate pk 'Q1N1' \(record 6\)"),
    ("full_dataset_missing_field.json", "full_dataset.json",
     r"full_dataset\.json: record 'Q3N1': field 'span_quote_3' is missing"),
    ("full_dataset_one_sided_pair.json", "full_dataset.json",
     r"full_dataset\.json: record 'Q1N2': span pair 2 has only one side"),
    ("full_dataset_truncated.json", "full_dataset.json", r"full_dataset\.json: not valid JSON"),
    ("seen_train_unknown_id.json", SEEN_TRAIN, r"seen_train_data_indices\.json: record 'Q3N9' is not in full_dataset"),
    ("seen_label_map_bad_indices.json", SEEN_MAP, r"seen_label_map\.json: label indices are not 0\.\.2"),
])
def test_bad_input_raises_naming_file_and_record(tmp_path, replacement, target, message):
    root = _corpus_with(tmp_path, replacement, target)
    for config in ("seen", "alignment"):
        with pytest.raises(ValueError, match=message):
            figbench.load_dataset("epic", config, data_dir=str(root), cache_dir=str(tmp_path / "cache"))


def test_unaligned_span_can_be_flagged(tmp_path):
    root = _corpus_with(tmp_path, "full_dataset_unaligned.json", "full_dataset.json")
    d = figbench.load_dataset("epic", "alignment", data_dir=str(root), cache_dir=str(tmp_path / "c"),
                              on_unaligned="flag")
    original = _epic().original_ids(_epic().read_files(root, on_unaligned="flag"))
    pair = d["train"].filter(lambda r: original[r["id"]] == "Q2N1")[0]["pairs"][0]
    assert (pair["narrative_start"], pair["narrative_end"], pair["narrative_match"]) == (-1, -1, "none")
    assert pair["narrative_span"] == "read the lease twice"
    with pytest.raises(ValueError, match="on_unaligned must be"):
        figbench.load_dataset("epic", "alignment", data_dir=str(root), cache_dir=str(tmp_path / "c"),
                              on_unaligned="drop")


def test_missing_files_are_listed(tmp_path):
    root = tmp_path / "epic"
    shutil.copytree(FIX / "good", root)
    (root / "all_proverbs.json").unlink()
    (root / SEEN_MAP).unlink()
    with pytest.raises(MissingDataError, match=r"2 required file\(s\)") as info:
        figbench.load_dataset("epic", "seen", data_dir=str(root), cache_dir=str(tmp_path / "c"))
    assert "all_proverbs.json" in str(info.value) and "seen_label_map.json" in str(info.value)


def test_export_round_trip_through_plain_datasets(tmp_path):
    from figbench.commands.export import export_dataset

    report = export_dataset("epic", "alignment", to=tmp_path / "hub", data_dir=str(FIX / "good"),
                            cache_dir=str(tmp_path / "c"))
    assert report.configs == {"alignment": {"train": 3, "test": 3}}
    plain = datasets.load_dataset(str(tmp_path / "hub"), "alignment", cache_dir=str(tmp_path / "c2"))
    built = figbench.load_dataset("epic", "alignment", data_dir=str(FIX / "good"), cache_dir=str(tmp_path / "c"))
    assert plain["test"].to_list() == built["test"].to_list()


def test_ids_are_opaque_stable_and_the_same_in_every_config(real, tmp_path):
    """Issue 13: narrative ids carry no proverb (they were Q12N3); same narrative, same id in every config
    (which exposes the cross-config overlap: see the next test)."""
    from tests.id_leaks import assert_no_id_leak, id_probe

    epic = _epic()
    root = corpus_path("epic", "full_dataset.json").parent
    again = figbench.load_dataset("epic", "seen", data_dir=str(root), cache_dir=str(tmp_path))
    for split in ("train", "test"):
        assert again[split]["id"] == real["seen"][split]["id"] == sorted(real["seen"][split]["id"])
        assert len(set(real["seen"][split]["id"])) == len(real["seen"][split])
    by_text = {r["narrative"]: r["id"] for cfg in ("seen", "unseen", "alignment") for split in ("train", "test")
               for r in real[cfg][split].select_columns(["id", "narrative"])}
    assert len(by_text) == len(set(by_text.values())) == 2_500
    for cfg in ("unseen", "alignment"):
        for split in ("train", "test"):
            assert all(by_text[t] == i for t, i in zip(real[cfg][split]["narrative"], real[cfg][split]["id"]))
    rows = [r for split in ("train", "test") for r in real["seen"][split].select_columns(["id", "proverb_id"])]
    ids, labels = [r["id"] for r in rows], [r["proverb_id"] for r in rows]
    assert_no_id_leak(ids, labels)
    original = epic.original_ids(epic.read_files(root))
    assert id_probe([original[i] for i in ids], labels)[0] > 0.5  # the probe finds the old leak (250 classes)
    assert all(original[i].split("N")[0] == p for i, p in zip(ids, labels))
    # row order carries no proverb either (the split files list narratives proverb by proverb)
    test = real["seen"]["test"]["proverb_id"]
    assert sum(a == b for a, b in zip(test, test[1:])) < 20


def test_cross_config_overlap_is_measured_and_reported(real):
    """Issue 20: 600 of the 1,000 seen-test narratives are in the unseen train split with the same proverb
    (and the reverse). Not a feature: the card and the board report it, and the baselines' clean protocol
    (the config's own train split) never trains on a test narrative."""
    from figbench_baselines.epic.data import check_clean, cross_config_overlap, load_alignment, load_prediction

    from figbench.tasks import find_benchmark

    root = str(corpus_path("epic", "full_dataset.json").parent)
    overlap = cross_config_overlap(root)
    assert overlap == {"seen/test in unseen/train": {"test": 1000, "shared": 600, "same_proverb": 600},
                       "unseen/test in seen/train": {"test": 1000, "shared": 600, "same_proverb": 600}}
    # the lookup attack the overlap allows: 60.0% on seen test with no model
    lookup = {r["id"]: r["proverb_id"] for r in real["unseen"]["train"].select_columns(["id", "proverb_id"])}
    test = real["seen"]["test"].select_columns(["id", "proverb_id"])
    assert sum(lookup.get(r["id"]) == r["proverb_id"] for r in test) / len(test) == 0.6
    # reported: the dataset card and every ePiC benchmark that the overlap affects on the board
    card = (Path(__file__).resolve().parents[1] / "datasets" / "epic" / "README.md").read_text("utf-8")
    assert "| `seen` test | 1,000 | 600 (`unseen` train) | 600 |" in card
    assert "| `unseen` test | 1,000 | 600 (`seen` train) | 600 |" in card
    for key in ("proverb_prediction/epic/seen/test", "proverb_prediction/epic/unseen/test",
                "similar_narratives/epic/seen/test"):
        note = find_benchmark(key).note
        assert "600 of the 1,000 seen-test narratives" in note and "own train split" in note, key
    # the clean protocol: no training narrative is a test narrative; the leaky one is refused
    for config in ("seen", "unseen"):
        data = load_prediction(config, root)
        assert not {r["id"] for r in data.train} & {r["id"] for r in data.test}
    aligned = load_alignment(root)
    assert not {r["id"] for r in aligned.train} & {r["id"] for r in aligned.test}
    other_train = [dict(r) for r in real["unseen"]["train"]]
    with pytest.raises(ValueError, match="600 training narrative"):
        check_clean(other_train, set(real["seen"]["test"]["id"]), "epic/seen")
    with pytest.raises(ValueError, match="clean"):
        load_prediction("seen", root, protocol="pooled")
