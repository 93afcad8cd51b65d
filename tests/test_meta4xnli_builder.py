"""datasets/meta4xnli: every config from the real files (counts of the issue), and bad input on fixtures."""

from __future__ import annotations

import importlib
import shutil
from collections import Counter
from pathlib import Path

import pytest

import figbench
from figbench.corpora.files import MissingDataError, sha256_file

FIX = Path(__file__).parent / "fixtures" / "meta4xnli"
M = importlib.import_module("figbench.corpora.meta4xnli")
B = importlib.import_module("figbench_datasets.meta4xnli.meta4xnli")


@pytest.fixture(scope="session")
def m4x_root(data_root) -> Path:
    root = data_root / "meta4xnli"
    if not root.is_dir():
        pytest.skip(f"{root} is not available")
    return root


@pytest.fixture(scope="session")
def cache(datasets_cache) -> str:
    return datasets_cache


def _load(root, config, cache_dir, **kw):
    return figbench.load_dataset("meta4xnli", config, data_dir=str(root), cache_dir=cache_dir, **kw)


def _metaphor_tokens(ds) -> int:
    return sum(sum(1 for t in tags if t != 0) for tags in ds["tags"])


# ------------------------------------------------------------------------------------- real data

@pytest.mark.parametrize(
    "config, sentences, metaphors",
    [
        ("detection_en", {"train": 7259, "validation": 2431, "test": 3630},
         {"train": 1527, "validation": 697, "test": 1106}),
        ("detection_es", {"train": 7259, "validation": 2431, "test": 3630},
         {"train": 1053, "validation": 474, "test": 767}),
    ],
)
def test_detection_counts(m4x_root, cache, config, sentences, metaphors):
    ds = _load(m4x_root, config, cache)
    assert {k: len(v) for k, v in ds.items()} == sentences
    assert {k: _metaphor_tokens(v) for k, v in ds.items()} == metaphors
    assert ds["train"].features["tags"].feature.names == ["O", "B-METAPHOR", "I-METAPHOR"]
    ids = [i for split in ds.values() for i in split["id"]]
    assert len(ids) == len(set(ids))
    # every sentence is traced to its source file; source ids are unique and exist
    source_ids = [i for split in ds.values() for i in split["source_id"]]
    assert all(source_ids) and len(source_ids) == len(set(source_ids))
    lang = config[-2:]
    src = _load(m4x_root, f"xnli_dev_{lang}", cache)
    by_id = {r["id"]: r for r in src["premise"]}
    row = next(r for r in ds["train"] if r["source"] == "xnli_dev_prem")
    assert by_id[row["source_id"]]["tokens"] == row["tokens"]
    assert by_id[row["source_id"]]["tags"] == row["tags"]


@pytest.mark.parametrize("lang", ["en", "es"])
def test_detection_ids_carry_no_label(m4x_root, cache, tmp_path, lang):
    """Issue 13: the split files list sentences with metaphors first; ids and order no longer tell it."""
    from tests.id_leaks import assert_no_id_leak

    ds = _load(m4x_root, f"detection_{lang}", cache)
    again = _load(m4x_root, f"detection_{lang}", str(tmp_path))
    original = M.original_ids(lang, m4x_root)
    ids = [i for split in ("train", "test") for i in ds[split]["id"]]   # columns, not row by row
    has = [any(t) for split in ("train", "test") for t in ds[split]["tags"]]
    for split in ds:
        assert again[split]["id"] == ds[split]["id"] == sorted(ds[split]["id"])
    assert all(len(i) == 16 for i in ids) and set(original) >= set(ids)
    assert_no_id_leak(ids, has)
    # the position ids leaked: sorted by position, the first tenth of the test file is mostly metaphoric
    by_position = [any(t) for _, t in sorted(zip((original[i] for i in ds["test"]["id"]), ds["test"]["tags"]))]
    assert sum(by_position[: len(by_position) // 10]) / (len(by_position) // 10) > 0.75
    test = [any(t) for t in ds["test"]["tags"]]
    first_tenth = test[: len(test) // 10]
    assert abs(sum(first_tenth) / len(first_tenth) - sum(test) / len(test)) < 0.1  # was 0.83 vs 0.2-0.3


def test_interpretation_ids_carry_no_label(m4x_root, cache):
    """Issue 13: NLI ids are opaque (XNLI's pair ids, kept in ``pair_id``, number a premise's hypotheses in
    sequence and are shared by a pair's EN and ES rows); fit on train, their substrings predict test
    labels at the majority level, and rows are in id order."""
    from tests.id_leaks import assert_no_id_leak, probe

    ds = _load(m4x_root, "interpretation", cache)
    tr, te = ds["train"], ds["test"]
    assert not set(tr["pair_id"]) & set(te["pair_id"])
    assert_no_id_leak([], [], result=probe(tr["id"], tr["gold_label"], te["id"], te["gold_label"]))
    assert all(len(i) == 16 and int(i, 16) >= 0 for i in te["id"]) and list(te["id"]) == sorted(te["id"])
    assert len(set(tr["id"]) | set(te["id"])) == len(tr) + len(te)


@pytest.mark.parametrize("lang", ["en", "es"])
def test_source_configs(m4x_root, cache, lang):
    expected = {"xnli_dev": (830, 2490), "xnli_test": (1670, 5010), "esxnli": (830, 2490)}
    total_met = 0
    for source, (prem, hyp) in expected.items():
        ds = _load(m4x_root, f"{source}_{lang}", cache)
        assert (len(ds["premise"]), len(ds["hypothesis"])) == (prem, hyp)
        assert set(ds["premise"]["source"]) == {f"{source}_prem"}
        total_met += sum(_metaphor_tokens(v) for v in ds.values())
    # the sources hold exactly the metaphor tokens of the three detection splits
    assert total_met == {"en": 1527 + 697 + 1106, "es": 1053 + 474 + 767}[lang]


def test_interpretation(m4x_root, cache):
    ds = _load(m4x_root, "interpretation", cache)
    assert {k: len(v) for k, v in ds.items()} == {"train": 12772, "validation": 3206, "test": 4002}
    status = Counter((s, m) for s, v in ds.items() for m in v["metaphor_status"])
    assert status[("train", "met")] == 1592 and status[("train", "no_met")] == 8964
    assert status[("train", "non-relevant")] == 2216
    assert status[("test", "met")] == 500 and status[("validation", "met")] == 402
    train = ds["train"]
    assert set(train["language"]) == {"en", "es"}
    assert train.features["gold_label"].names == ["entailment", "neutral", "contradiction"]
    assert set(train["source"]) == {"xnli.dev", "xnli.test", "esxnli"}
    ids = [i for v in ds.values() for i in v["id"]]
    assert len(ids) == len(set(ids)) == 19980
    src = _load(m4x_root, "interpretation_sources", cache)
    assert {k: len(v) for k, v in src.items()} == {"xnli_dev": 4980, "xnli_test": 10020, "esxnli": 4980}
    assert set(ids) == {i for v in src.values() for i in v["id"]}


def test_cross_domain(m4x_root, cache):
    vua = _load(m4x_root, "vua", cache)
    assert {k: len(v) for k, v in vua.items()} == {"train": 9632, "validation": 2409, "test": 4066}
    assert {k: _metaphor_tokens(v) for k, v in vua.items()} == {"train": 8668, "validation": 2372, "test": 3982}
    cometa = _load(m4x_root, "cometa", cache)
    assert {k: len(v) for k, v in cometa.items()} == {"train": 2906, "test": 727}
    assert set(cometa["train"]["lang"]) == {"es"}


def test_original_defects_are_counted(m4x_root):
    """The defects the card reports: 3 orphan I-METAPHOR tags in EN, 1 empty token in CoMeta train."""
    orphans = {s: len(M.read_tagged(m4x_root / M._detection_split("en", s)).defects.get("orphan_inside_tag", []))
               for s in M.SPLIT_FILES}
    assert orphans == {"train": 1, "validation": 1, "test": 1}
    assert all(not M.read_tagged(m4x_root / M._detection_split("es", s)).defects for s in M.SPLIT_FILES)
    cometa = M.read_tagged(m4x_root / "cometa/cometa_train.tsv").defects
    assert [line for line, _ in cometa["empty_token"]] == [93969]


def test_local_files_match_recorded_checksums(m4x_root):
    for rel in M._SHA256:
        M.verify_checksum(m4x_root / rel, rel)


def test_figbench_data_dir_env_and_load_dataset(m4x_root, cache, monkeypatch):
    monkeypatch.setenv("FIGBENCH_DATA_DIR", str(m4x_root.parent))
    ds = figbench.load_dataset("meta4xnli", "cometa", split="test", cache_dir=cache)
    assert len(ds) == 727 and ds[0]["id"] == "cometa-test-00000"


# ------------------------------------------------------------------------------------- fixtures

def _layout(tmp_path: Path, files: dict[str, str]) -> Path:
    """A corpus folder with the given fixture file at each relative path."""
    root = tmp_path / "meta4xnli"
    for rel, fixture in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(FIX / fixture, root / rel)
    return root


def _vua(tmp_path, train="tagged_good.tsv"):
    return _layout(tmp_path, {"vua/vua_train.tsv": train, "vua/vua_dev.tsv": "tagged_good.tsv",
                              "vua/vua_test.tsv": "tagged_good.tsv"})


def _interp(tmp_path, train_met="interp_good.tsv", train_nonrelevant="interp_header_only.tsv"):
    files = {f"meta4xnli/interpretation/splits/{s}_{st}.tsv": "interp_header_only.tsv"
             for s in ("train", "dev", "test") for st in ("met", "no_met", "nonrelevant")}
    files["meta4xnli/interpretation/splits/train_met.tsv"] = train_met
    files["meta4xnli/interpretation/splits/train_nonrelevant.tsv"] = train_nonrelevant
    files["meta4xnli/interpretation/splits/dev_no_met.tsv"] = "interp_good_dev.tsv"
    files["meta4xnli/interpretation/splits/test_nonrelevant.tsv"] = "interp_good_test.tsv"
    return _layout(tmp_path, files)


def test_fixture_tagged_file_loads(tmp_path):
    ds = _load(_vua(tmp_path), "vua", str(tmp_path / "cache"))
    row = ds["train"][1]
    assert row["tokens"] == ["Time", "flies", "away"] and row["tags"] == [0, 1, 2]
    assert row["id"] == "vua-train-00001"


@pytest.mark.parametrize(
    "fixture, message",
    [
        ("tagged_bad_columns.tsv", r"vua/vua_train.tsv, line 3: expected 2 tab-separated columns"),
        ("tagged_unknown_tag.tsv", r"vua/vua_train.tsv, line 2: unknown tag 'B-MET'"),
        ("tagged_truncated.tsv", r"vua/vua_train.tsv, line 4: expected 2 tab-separated columns"),
    ],
)
def test_bad_tagged_file(tmp_path, fixture, message):
    with pytest.raises(ValueError, match=message):
        _load(_vua(tmp_path, train=fixture), "vua", str(tmp_path / "cache"))


def test_defects_kept_and_recorded():
    tf = M.read_tagged(FIX / "tagged_defects.tsv")
    assert [s.tokens for s in tf.sentences] == [["Keep", "her", "away"], ["A", "", "b"]]
    assert [line for line, _ in tf.defects["orphan_inside_tag"]] == [3]
    assert [line for line, _ in tf.defects["empty_token"]] == [6]


def test_interpretation_fixture_loads(tmp_path):
    ds = _load(_interp(tmp_path), "interpretation", str(tmp_path / "cache"))
    assert {k: len(v) for k, v in ds.items()} == {"train": 2, "validation": 1, "test": 1}
    [row] = [r for r in ds["train"] if r["pair_id"] == "1_xnli.dev" and r["language"] == "es"]
    assert len(row["id"]) == 16 and row["metaphor_status"] == "met"
    assert row["premise"] == "El tiempo vuela." and row["gold_label"] == 0
    assert ds["validation"][0]["metaphor_status"] == "no_met" and ds["validation"][0]["source"] == "esxnli"
    test = ds["test"][0]
    assert test["metaphor_status"] == "non-relevant" and test["gold_label"] == 2 and test["pair_id"] == "7_xnli.test"


def test_empty_split_is_an_error(tmp_path):
    root = _interp(tmp_path)
    shutil.copy(FIX / "interp_header_only.tsv", root / "meta4xnli/interpretation/splits/test_nonrelevant.tsv")
    with pytest.raises(ValueError, match=r"interpretation: split 'test' has no examples in .*test_met.tsv"):
        _load(root, "interpretation", str(tmp_path / "cache"))


def test_interpretation_duplicate_pair(tmp_path):
    # train_nonrelevant repeats pair 1_xnli.dev (en) of train_met: a duplicate id
    root = _interp(tmp_path, train_nonrelevant="interp_duplicate.tsv")
    with pytest.raises(ValueError, match=r"train_nonrelevant.tsv, line 2: duplicate pair '1_xnli.dev' \(en\)"):
        _load(root, "interpretation", str(tmp_path / "cache"))


@pytest.mark.parametrize(
    "fixture, message",
    [
        ("interp_bad_columns.tsv", r"train_met.tsv, line 2: expected 8 tab-separated columns, got 7"),
        ("interp_bad_label.tsv", r"train_met.tsv, line 2: unknown gold_label 'maybe'"),
        ("interp_bad_header.tsv", r"train_met.tsv, line 1: header"),
    ],
)
def test_bad_interpretation_file(tmp_path, fixture, message):
    with pytest.raises(ValueError, match=message):
        _load(_interp(tmp_path, train_met=fixture), "interpretation", str(tmp_path / "cache"))


def test_interpretation_rows_from_fixture():
    rows = M.read_interpretation(FIX / "interp_good.tsv")
    assert [(line, r["language"], r["gold_label"]) for line, r in rows] == [(2, "en", "entailment"),
                                                                             (3, "es", "entailment")]
    assert M._status("x/train_no_met.tsv") == "no_met" and M._status("x/xnli_dev_met.tsv") == "met"
    assert M._status("x/esxnli_nonrelevant.tsv") == "non-relevant"


def test_missing_files_listed_in_one_error(tmp_path):
    root = tmp_path / "meta4xnli"
    (root / "vua").mkdir(parents=True)
    shutil.copy(FIX / "tagged_good.tsv", root / "vua" / "vua_dev.tsv")
    with pytest.raises(MissingDataError) as err:
        _load(root, "vua", str(tmp_path / "cache"))
    text = str(err.value)
    assert "2 required file(s)" in text and "vua_train.tsv" in text and "vua_test.tsv" in text
    assert str(root) in text
    with pytest.raises(MissingDataError, match=r"9 required file\(s\)"):  # 3 splits + 6 source files
        _load(tmp_path / "empty", "detection_en", str(tmp_path / "cache"))


def test_checksum_verification(tmp_path):
    rel = "vua/vua_dev.tsv"
    bad = tmp_path / "vua_dev.tsv"
    shutil.copy(FIX / "tagged_good.tsv", bad)
    with pytest.raises(ValueError, match=r"checksum mismatch for vua/vua_dev.tsv"):
        M.verify_checksum(bad, rel)
    assert sha256_file(bad) == __import__("hashlib").sha256(bad.read_bytes()).hexdigest()
    with pytest.raises(ValueError, match="no recorded checksum"):
        M.verify_checksum(bad, "unknown.tsv")
    assert set(M._URLS) == set(M._SHA256)
    assert all(u.startswith("https://raw.githubusercontent.com/elisanchez-beep/meta4xnli/") for u in M._URLS.values())


def test_configs_declared():
    names = {c.name for c in B.Meta4xnli.BUILDER_CONFIGS}
    assert names == {"detection_en", "detection_es", "xnli_dev_en", "xnli_test_en", "esxnli_en", "xnli_dev_es",
                     "xnli_test_es", "esxnli_es", "interpretation", "interpretation_sources", "vua", "cometa"}
    # every file a config needs has a checksum for the download path
    for cfg in B.Meta4xnli.BUILDER_CONFIGS:
        assert set(M._required(cfg)) <= set(M._SHA256), cfg.name


# ------------------------------------------------------------------ download path (no local folder)

def _no_local_folder(monkeypatch, urls: dict[str, str], data_root: Path):
    """An empty data root, downloads allowed, and the given files served from local ``file://`` URLs."""
    monkeypatch.setenv("FIGBENCH_DATA_DIR", str(data_root))
    for var in ("FIGBENCH_OFFLINE", "HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(M, "_URLS", {**M._URLS, **{rel: Path(p).as_uri() for rel, p in urls.items()}})


def test_download_path_rejects_a_corrupt_file(tmp_path, monkeypatch):
    """With the files missing from the corpus folder the builder downloads them there (here from
    local file:// URLs in place of the GitHub URLs) and checks every sha256."""
    for name in ("vua_train", "vua_dev", "vua_test"):
        shutil.copy(FIX / "tagged_good.tsv", tmp_path / f"{name}.tsv")
    _no_local_folder(monkeypatch,
                     {f"vua/{n}.tsv": str(tmp_path / f"{n}.tsv") for n in ("vua_train", "vua_dev", "vua_test")},
                     tmp_path / "data")
    with pytest.raises(ValueError, match=r"checksum mismatch for vua/vua_(train|dev|test).tsv"):
        figbench.load_dataset("meta4xnli", "vua", cache_dir=str(tmp_path / "cache"))


def test_download_path_accepts_the_original_files(m4x_root, tmp_path, monkeypatch):
    _no_local_folder(monkeypatch,
                     {rel: str(m4x_root / rel) for rel in ("cometa/cometa_train.tsv", "cometa/cometa_test.tsv")},
                     tmp_path / "data")
    ds = figbench.load_dataset("meta4xnli", "cometa", cache_dir=str(tmp_path / "cache"))
    assert {k: len(v) for k, v in ds.items()} == {"train": 2906, "test": 727}
