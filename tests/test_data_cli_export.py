"""``figbench data stats`` / ``figbench data export``: CLI, Hub-ready folder, round trip without figbench."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from figbench.cli import main
from figbench.commands.export import export_dataset, validate_repo_id
from tests.conftest import ROOT, corpus_path


@pytest.fixture()
def original_dir(fixtures_dir):
    return fixtures_dir / "wec_eng" / "original"


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "FIGBENCH_", "PYTHON"))}
    env.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", HF_HOME=str(tmp_path / "hf_home"),
               OMP_NUM_THREADS="2")
    return env


def test_stats_json_on_fixture(original_dir, tmp_path, capsys):
    rc = main(["data", "stats", "wec_eng", "--data-dir", str(original_dir), "--cache-dir", str(tmp_path), "--json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert out["config"] == "events"
    test = out["splits"]["test"]
    assert (test["mentions"], test["clusters"], test["non_singleton_clusters"], test["documents"]) == (5, 2, 2, 4)
    # test lemmas: katrina, storm | destroy, bombing, bomb: each in one cluster; 2 and 3 per cluster
    assert test["ambiguity"] == pytest.approx(1.0)
    assert test["diversity"] == pytest.approx((2 + 3) / 2)
    assert test["published"]["ambiguity"] == 2.6
    assert set(out["splits"]) == {"train", "validation", "test"}


def test_stats_table_and_split_filter(original_dir, tmp_path, capsys):
    rc = main(["data", "stats", "wec_eng", "events", "--data-dir", str(original_dir), "--cache-dir", str(tmp_path),
               "--split", "validation", "--no-mtld"])
    assert rc == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0] == "wec_eng / events"
    assert "validation (published)" in text and "ambiguity" in text and "mtld" not in text
    assert "test" not in text.splitlines()[1]
    rc = main(["data", "stats", "wec_eng", "--data-dir", str(original_dir), "--cache-dir", str(tmp_path),
               "--split", "dev"])
    assert rc == 1
    assert "no split(s) ['dev']" in capsys.readouterr().err


def test_stats_documents_config(original_dir, tmp_path, capsys):
    rc = main(["data", "stats", "wec_eng", "documents", "--data-dir", str(original_dir), "--cache-dir",
               str(tmp_path), "--json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)["splits"]
    assert out["validation"]["documents"] == 3 and out["validation"]["tokens"] == 14 + 5 + 5 + 11


def test_stats_missing_corpus_is_a_clear_error(tmp_path, capsys):
    rc = main(["data", "stats", "wec_eng", "--data-dir", str(tmp_path / "absent"), "--cache-dir", str(tmp_path)])
    assert rc == 1
    assert "Dev_Event_gold_mentions_validated.json" in capsys.readouterr().err


def _roundtrip(folder: Path, config: str, tmp_path: Path) -> dict:
    """Load an exported folder in a fresh interpreter that never imports figbench."""
    code = (
        "import json, sys, datasets\n"
        f"d = datasets.load_dataset({str(folder)!r}, {config!r}, cache_dir={str(tmp_path / 'rt_cache')!r})\n"
        "assert not [m for m in sys.modules if m == 'figbench' or m.startswith(('figbench.', 'figbench_'))]\n"
        "print(json.dumps({s: {'rows': len(x), 'columns': x.column_names,"
        " 'first': x[0].get('mention_id', x[0].get('doc_id'))} for s, x in d.items()}))\n"
    )
    proc = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, cwd=tmp_path,
                          env=_env(tmp_path), timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _first_validation_id(original_dir) -> str:
    """The first released validation mention: the smallest opaque id of WEC's d1-d4."""
    from figbench.corpora import wec_eng

    return min(i for i, o in wec_eng.original_ids(original_dir).items() if o.startswith("d"))


def test_export_roundtrip_without_figbench(original_dir, tmp_path):
    out = tmp_path / "export"
    report = export_dataset("wec_eng", None, out, data_dir=str(original_dir), cache_dir=str(tmp_path / "c"))
    assert report.configs == {"events": {"train": 6, "validation": 4, "test": 5},
                              "documents": {"train": 5, "validation": 3, "test": 4}}
    assert report.skipped == {}
    assert (out / "events" / "validation-00000-of-00001.parquet").is_file()
    header = (out / "README.md").read_text().split("---")[1]
    meta = yaml.safe_load(header)
    configs = {c["config_name"]: c for c in meta["configs"]}
    assert configs["events"]["default"] is True
    assert {f["split"]: f["path"] for f in configs["documents"]["data_files"]}["test"] == \
        "documents/test-00000-of-00001.parquet"
    events = _roundtrip(out, "events", tmp_path)
    assert {s: v["rows"] for s, v in events.items()} == {"train": 6, "validation": 4, "test": 5}
    # rows are in opaque-id order (issue 13; the first row was WEC's "d1")
    assert events["validation"]["first"] == _first_validation_id(original_dir)
    assert "cluster_id" in events["test"]["columns"]
    documents = _roundtrip(out, "documents", tmp_path)
    assert documents["validation"]["rows"] == 3


def test_export_reports_missing_splits_and_roundtrips(original_dir, tmp_path, capsys):
    data = tmp_path / "wec"
    data.mkdir()
    shutil.copy(original_dir / "Dev_Event_gold_mentions_validated.json", data)
    out = tmp_path / "export"
    rc = main(["data", "export", "wec_eng", "events", "--to", str(out), "--data-dir", str(data),
               "--cache-dir", str(tmp_path / "c"), "--json"])
    assert rc == 0
    report = json.loads(capsys.readouterr().out)
    assert report["configs"] == {"events": {"validation": 4}}
    assert "Train_Event_gold_mentions.json" in report["skipped"]["events/train"]
    assert "Test_Event_gold_mentions_validated.json" in report["skipped"]["events/test"]
    assert "events/train" in (out / "README.md").read_text()  # the card says what was left out
    loaded = _roundtrip(out, "events", tmp_path)
    assert list(loaded) == ["validation"]
    assert (loaded["validation"]["rows"], loaded["validation"]["first"]) == (4, _first_validation_id(original_dir))


def test_export_named_config_that_cannot_be_built_raises(tmp_path, capsys):
    rc = main(["data", "export", "wec_eng", "events", "--to", str(tmp_path / "o"), "--data-dir",
               str(tmp_path / "absent"), "--cache-dir", str(tmp_path / "c")])
    assert rc == 1
    assert "not found" in capsys.readouterr().err
    with pytest.raises(ValueError, match="has no config 'nope'"):
        export_dataset("wec_eng", "nope", tmp_path / "o")


def test_push_to_hub_repo_id_is_checked_before_export(original_dir, tmp_path, capsys):
    with pytest.raises(ValueError, match="invalid --push-to-hub repository id"):
        validate_repo_id("not a/valid//id")
    rc = main(["data", "export", "wec_eng", "--to", str(tmp_path / "o"), "--data-dir", str(original_dir),
               "--push-to-hub", "bad//id"])
    assert rc == 1
    assert "invalid --push-to-hub repository id" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_push_to_hub_offline_is_a_clear_error_and_keeps_the_folder(original_dir, tmp_path):
    out = tmp_path / "o"
    env = _env(tmp_path)
    env["PYTHONPATH"] = str(ROOT)
    proc = subprocess.run(
        [sys.executable, "-m", "figbench.cli", "data", "export", "wec_eng", "events", "--to", str(out),
         "--data-dir", str(original_dir), "--cache-dir", str(tmp_path / "c"), "--push-to-hub", "figbench/wec-test"],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=300,
    )
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert "cannot push" in proc.stderr and "figbench/wec-test" in proc.stderr and "offline" in proc.stderr
    assert (out / "README.md").is_file() and (out / "events" / "test-00000-of-00001.parquet").is_file()


def test_export_real_wec_eng(tmp_path):
    root = corpus_path("wec_eng", "ucdcr", "test", "event_mentions.json").parents[2]
    report = export_dataset("wec_eng", "events", tmp_path / "o", data_dir=str(root), cache_dir=str(tmp_path / "c"))
    assert report.configs == {"events": {"validation": 1250, "test": 1893}}
    assert "events/train" in report.skipped
    rows = _roundtrip(tmp_path / "o", "events", tmp_path)
    assert rows["test"]["rows"] == 1893
