"""Result records: schema, validation messages, atomic writing."""

from __future__ import annotations

import json
import math

import pytest

from figbench.results import (
    ResultValidationError,
    RunClock,
    make_result,
    provenance,
    read_result,
    result_schema,
    schema_path,
    validate_result,
    write_result,
)


def _record(**overrides):
    clock = RunClock()
    rec = make_result(
        task="cdec", dataset="ecbplus", config="events", split="test", method="lh",
        model={"name": "lemma-heuristic", "revision": None, "type": "heuristic", "parameters": 0},
        scores={"conll_f1": 0.741, "muc_f1": 0.8},
        confidence_intervals={"conll_f1": {"low": 0.72, "high": 0.76, "level": 0.95,
                                           "n_resamples": 100, "unit": "clusters"}},
        predictions=[["a", "b"], ["c"]],
        provenance=provenance(clock, seed=3, command="figbench baseline cdec", throughput={"mentions_per_s": 10.0}),
        counts={"mentions": 3},
    )
    rec.update(overrides)
    return rec


def test_valid_record_roundtrip(tmp_path):
    rec = _record()
    assert rec["schema_version"] == "1.0"
    prov = rec["provenance"]
    assert prov["seed"] == 3 and prov["figbench_version"] and "torch" in prov["packages"]
    assert prov["hardware"]["cpu_count"] >= 1 and prov["wall_time_s"] >= 0
    path = write_result(rec, tmp_path / "sub" / "r.json")
    assert read_result(path) == json.loads(path.read_text())


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_records_are_written_with_the_umask_mode(tmp_path, umask, mode):
    """A result record is a normal file (0644 under umask 022), not the 0600 of its temporary file."""
    import os

    old = os.umask(umask)
    try:
        path = write_result(_record(), tmp_path / "r.json")
    finally:
        os.umask(old)
    assert path.stat().st_mode & 0o777 == mode


def test_schema_file_ships_with_package():
    assert schema_path().is_file()
    assert result_schema()["title"] == "figbench result record"


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda r: r["scores"].__setitem__("muc_f1", 1.5), "scores.muc_f1"),
        (lambda r: r["scores"].__setitem__("muc_f1", math.nan), "NaN"),
        (lambda r: r.__setitem__("task", "nonsense"), "unknown task"),
        (lambda r: r["model"].__setitem__("type", "magic"), "model.type"),
        (lambda r: r.pop("provenance"), "provenance"),
        (lambda r: r["confidence_intervals"]["conll_f1"].__setitem__("low", 0.9), "low > high"),
        (lambda r: r.__setitem__("predictions", {"inline": [], "path": "x"}), "predictions"),
    ],
)
def test_invalid_records_name_the_field(mutate, message):
    rec = _record()
    mutate(rec)
    with pytest.raises(ResultValidationError, match=message.replace(".", r"\.").replace("(", r"\(")):
        validate_result(rec)


def test_invalid_record_never_written(tmp_path):
    rec = _record()
    rec["scores"]["muc_f1"] = -0.1
    target = tmp_path / "r.json"
    with pytest.raises(ResultValidationError):
        write_result(rec, target)
    assert not target.exists() and list(tmp_path.iterdir()) == []


def test_read_result_names_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ResultValidationError, match="bad.json"):
        read_result(bad)
