"""The committed records of real generation runs and of the "is it harder?" comparison (issue 35).

Every ``results/generation/*.json`` is validated (its counts add up); a record made from a scripted-server run
measures what that server answered; the harder record's drops are its own columns' differences.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.llm_server import ScriptedLLM
from tests.test_generate import generate_cmd, run_cli

GENERATION = Path(__file__).resolve().parent.parent / "results" / "generation"
RECORDS = sorted(GENERATION.glob("*.json")) if GENERATION.is_dir() else []


def test_the_readme_runs_are_committed():
    from figbench.commands.docs_generation import HARDER, RUNS

    assert {p.stem for p in RECORDS} >= {*RUNS, HARDER}


@pytest.mark.parametrize("path", RECORDS, ids=[p.name for p in RECORDS])
def test_committed_generation_record(path):
    from figbench.generate.record import KIND, validate_record

    rec = json.loads(path.read_text("utf-8"))
    if rec.get("kind") == KIND:
        validate_record(rec, path.name)
        assert rec["settings"]["backend"] == "transformers" and rec["machine"]["cpu_count"] >= 1
        assert "figbench generate metaphors " in rec["command"]
        return
    for name, row in rec["baselines"].items():  # the harder record: drops are the columns' differences
        for v in [v for v in ("meta_m", "generated") if f"drop_{v}" in row]:
            d = row[f"drop_{v}"]
            assert d["drop"] == pytest.approx(row["ecbplus"] - row[v]), (name, v)
            assert d["low"] <= d["drop"] <= d["high"], (name, v)
    assert not rec["generated"].startswith(("/", "~"))  # a name or a path inside the project, never /tmp
    assert rec["mentions"]["shared"] <= min(rec["mentions"][v] for v in ("ecbplus", "meta_m", "generated")
                                            if rec["mentions"][v])


def test_a_record_measures_the_run_it_reads(tmp_path):
    from figbench.generate.record import generation_record, validate_record

    out = tmp_path / "rec"
    # each answer 0.1 s: the run's own seconds (rounded to 0.1 in the record) are above zero in process too
    with ScriptedLLM({"76ers": ["prose", "json"], "Cheeks": ["appended"]}, slow=0.1) as srv:
        assert run_cli(generate_cmd(out, srv.url, "validation")).returncode == 0
    rec = generation_record(out, name="t", command="figbench generate metaphors ...", wall_s=1.0,
                            load_average=[0.1, 0.2, 0.3])
    validate_record(rec)
    assert rec["answers"]["answers"] == 3 and rec["answers"]["valid_json_as_written"] == 2
    assert rec["answers"]["closed_by_figbench"] == 0  # an endpoint's answers are all its own
    assert rec["answers"]["usable"] == 2 and rec["answers"]["usable_sentences"] == ["2_1ecb#0", "2_2ecb#0"]
    assert rec["word_lists"] == {"entries": 2, "in_paraphrase": 2}
    assert rec["mentions"]["retagged"] == 2 and rec["mentions"]["flags"].get("untouched") == 1
    with pytest.raises(ValueError, match="answers.closed_by_figbench <= answers"):
        validate_record({**rec, "answers": {**rec["answers"], "closed_by_figbench": 4}}, "t")
    bad = {**rec, "answers": {**rec["answers"], "usable": 3}}
    with pytest.raises(ValueError, match="t: generation record does not add up: answers.usable"):
        validate_record({**bad, "name": "t"}, "t")
