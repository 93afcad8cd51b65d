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
    from figbench.commands.docs_generation import HARDER_BLOCKS, OWN_LISTS, RUNS

    assert {p.stem for p in RECORDS} >= {*RUNS, *OWN_LISTS, *(name for _, name in HARDER_BLOCKS)}


@pytest.mark.parametrize("path", RECORDS, ids=[p.name for p in RECORDS])
def test_committed_generation_record(path):
    from figbench.generate.record import KIND, validate_record

    rec = json.loads(path.read_text("utf-8"))
    if rec.get("kind") == KIND:
        validate_record(rec, path.name)
        assert rec["settings"]["backend"] == "transformers"
        assert rec["machine"].get("gpu") or rec["machine"]["cpu_count"] >= 1  # a lent GPU's report, or this CPU
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
    # answers made on another machine (paraphrase_elsewhere.py answer): its machine, seconds and tokens
    device = {"platform": "Linux-gpu", "torch": "2.11.0+cu130", "transformers": "5.24.0", "device": "cuda:0",
              "gpu": "NVIDIA H200", "seconds": 2.0, "load_seconds": 1.0, "completion_tokens": 50, "prompt_tokens": 9}
    elsewhere = generation_record(out, name="t", command="figbench generate metaphors ...", wall_s=3.0,
                                  load_average=None, device=device)
    validate_record(elsewhere)
    assert elsewhere["machine"]["gpu"] == "NVIDIA H200" and elsewhere["machine"]["load_average_1min"] is None
    assert elsewhere["speed"] == {"generate_s": 2.0, "wall_s": 3.0, "completion_tokens": 50, "prompt_tokens": 9,
                                  "completion_tokens_per_s": 25.0}
    assert elsewhere["answers"] == rec["answers"] and elsewhere["mentions"] == rec["mentions"]
    with pytest.raises(ValueError, match="answers.closed_by_figbench <= answers"):
        validate_record({**rec, "answers": {**rec["answers"], "closed_by_figbench": 4}}, "t")
    bad = {**rec, "answers": {**rec["answers"], "usable": 3}}
    with pytest.raises(ValueError, match="t: generation record does not add up: answers.usable"):
        validate_record({**bad, "name": "t"}, "t")


def _harder_results(tmp_path, edit) -> Path:
    """A results folder holding the committed harder record changed by ``edit`` (and the run it names)."""
    rec = json.loads((GENERATION / "harder_dev_small.json").read_text("utf-8"))
    edit(rec)
    out = tmp_path / "results" / "generation"
    out.mkdir(parents=True)
    (out / "harder_dev_small.json").write_text(json.dumps(rec), "utf-8")
    if rec.get("generated_record"):
        name = f"{rec['generated_record']}.json"
        (out / name).write_text((GENERATION / name).read_text("utf-8"), "utf-8")
    return tmp_path / "results"


def test_a_ce_lh_row_needs_the_record_of_its_model(tmp_path):
    """A CE_LH row is rendered only with the record of the model that made it (command, time, check)."""
    from figbench.commands.docs_generation import render_harder

    def claim_without_model(rec):
        rec["baselines"].setdefault("CE_LH", rec["baselines"]["LH"])
        rec.pop("ce_lh_model", None)

    with pytest.raises(ValueError, match="harder_dev_small.json: baselines.CE_LH has no ce_lh_model record"):
        render_harder(_harder_results(tmp_path, claim_without_model))


def test_the_committed_ce_lh_row_says_where_its_model_came_from():
    from figbench.commands.docs_generation import render_harder

    rec = json.loads((GENERATION / "harder_dev_small.json").read_text("utf-8"))
    text = render_harder(GENERATION.parent)
    if "CE_LH" not in rec["baselines"]:
        assert rec["ce_lh"] and "CE_LH is not in the table: " in text
        return
    m = rec["ce_lh_model"]
    assert "ce_lh" not in rec  # no reason for a missing row beside the row
    assert "--method ce_lh" in m["command"] and f"--save-model {m['folder']}" in m["command"]
    assert m["train_seconds"] > 0 and m["cpu_count"] >= 1 and m["check"]["record"] == "cdec_ce_lh_ecbplus_dev_small"
    committed = json.loads((GENERATION.parent / "cdec_ce_lh_ecbplus_dev_small.json").read_text("utf-8"))
    assert m["check"]["record_conll_f1"] == committed["scores"]["conll_f1"]
    assert f"`{m['command']}`" in text and f"{m['train_seconds']:,.0f} s" in text
    assert "| CE_LH, CoNLL F1 |" in text and "78.1 -> 50.6, drop 27.5" in text
    same = abs(m["check"]["conll_f1"] - m["check"]["record_conll_f1"]) < 5e-4
    assert (f"the same as the committed record `{m['check']['record']}`" in text) == same


def test_bench_harder_names_a_missing_or_wrong_ce_lh_model(tmp_path):
    import runpy

    bench = runpy.run_path(str(GENERATION.parent.parent / "benchmarks" / "bench_harder.py"))
    with pytest.raises(FileNotFoundError, match=f"{tmp_path}: no trained cross-encoder here"):
        bench["ce_lh_provenance"](str(tmp_path))
    (tmp_path / "crossencoder.pt").write_bytes(b"")
    (tmp_path / "train_info.json").write_text(json.dumps({"component": "crossencoder", "method": "ce_knn"}))
    with pytest.raises(ValueError, match="train_info.json: method 'ce_knn', not ce_lh"):
        bench["ce_lh_provenance"](str(tmp_path))
    (tmp_path / "train_info.json").write_text(json.dumps({"component": "crossencoder", "method": "ce_lh"}))
    with pytest.raises(ValueError, match="no reproduce step writes this folder"):
        bench["ce_lh_provenance"](str(tmp_path))
