"""Every committed result record (``results/<spec>.json``) follows the result schema, belongs to a baseline spec
and carries its predictions; trained runs state how they were made."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from figbench.results import ResultValidationError, read_result

RESULTS = Path(__file__).resolve().parent.parent / "results"
#: the records (results/predictions/ holds predictions, not records)
RECORDS = sorted(RESULTS.glob("*.json")) if RESULTS.is_dir() else []
TRAINED = ("ce_lh", "ce_knn", "wec_pairwise")


def _id(path: Path) -> str:
    return str(path.relative_to(RESULTS))


@pytest.mark.parametrize("path", RECORDS, ids=[_id(p) for p in RECORDS])
def test_committed_record_is_valid(path):
    record = read_result(path)  # raises ResultValidationError naming the file and field
    prov = record["provenance"]
    assert prov["wall_time_s"] >= 0 and prov["hardware"]
    if record.get("method") in TRAINED:
        # wall time of training and evaluation, hardware of the training, number of training pairs, sample, seed
        assert prov["train_wall_time_s"] > 0 and prov["eval_wall_time_s"] > 0, path
        for training in prov["training"].values():  # every trained component (CE_KNN: bi- and cross-encoder)
            assert training["hardware"]["cpu_count"] >= 1 and training["seed"] == prov["seed"] is not None, path
        assert record["counts"]["n_training_pairs"] > 0
        assert record["options"]["training_sample"]
    from figbench_baselines.specs import get_spec

    from figbench.results import is_trained, record_predictions

    spec = get_spec(path.stem)  # every record is the run of a spec
    if is_trained(record):  # how its choices were made, as its spec declares (stamped by `figbench baseline run`)
        assert record["provenance"].get("selection") is not None, f"{path}: a trained record without selection"
        assert record["provenance"]["selection"] == spec.selection.as_dict(), path
    assert (record["task"], record["dataset"], record["config"], record["split"]) == \
        (spec.task, spec.dataset, spec.config, spec.split), path
    predictions = record_predictions(record, path)  # inline, or a committed file beside the record
    assert predictions, path
    if spec.board:  # quickstart submits it: the server's bounds on free-form metadata must accept it
        from figbench_leaderboard.domain.submission import check_freeform

        check_freeform(record["provenance"], "provenance")


def test_there_are_committed_records():
    assert RECORDS, f"no result records under {RESULTS}"


def test_an_invalid_record_fails(tmp_path):
    source = RECORDS[0] if RECORDS else None
    if source is None:
        pytest.skip("no committed record to corrupt")
    record = json.loads(source.read_text("utf-8"))
    record["scores"] = {"conll_f1": 1.5}  # outside [0, 1]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(record), encoding="utf-8")
    with pytest.raises(ResultValidationError, match="bad.json"):
        read_result(bad)
    del record["provenance"]
    bad.write_text(json.dumps(record), encoding="utf-8")
    with pytest.raises(ResultValidationError, match="provenance"):
        read_result(bad)
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(ResultValidationError, match="not valid JSON"):
        read_result(bad)


def test_a_trained_record_without_selection_is_refused(tmp_path):
    """provenance.selection is required of every trained record: the docs refuse one without it (naming the
    file), an untrained record needs none, and the stamp puts back its spec's."""
    from figbench_baselines.selection import stale_records
    from figbench_baselines.specs import get_spec
    from figbench_baselines.tables import read_record

    from figbench.results import is_trained, record_selection

    trained = RESULTS / "epic_tagger_alignment.json"
    record = json.loads(trained.read_text("utf-8"))
    assert is_trained(record) and record["provenance"]["selection"]["kind"] == "test-informed"
    del record["provenance"]["selection"]
    (tmp_path / trained.name).write_text(json.dumps(record), "utf-8")
    with pytest.raises(ResultValidationError, match=r"epic_tagger_alignment.json: \$.provenance.selection"):
        read_record(get_spec("epic_tagger_alignment"), tmp_path)
    untrained = json.loads((RESULTS / "epic_whole_alignment_test.json").read_text("utf-8"))
    assert not is_trained(untrained) and record_selection(untrained) is None
    assert stale_records(tmp_path, write=True) == [trained.name]
    assert read_record(get_spec("epic_tagger_alignment"), tmp_path)["provenance"]["selection"] == \
        get_spec("epic_tagger_alignment").selection.as_dict()
    bad = dict(record, provenance={**record["provenance"], "selection": {"kind": "looked at test", "note": "x"}})
    (tmp_path / trained.name).write_text(json.dumps(bad), "utf-8")
    with pytest.raises(ResultValidationError, match="kind"):
        read_result(tmp_path / trained.name)
