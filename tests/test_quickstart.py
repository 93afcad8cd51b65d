"""The main job (`figbench quickstart`) on the real corpora, without the web server."""

from __future__ import annotations

import json

import pytest

from figbench.cli import main


@pytest.mark.slow
def test_quickstart_runs_and_submits(data_root, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("FIGBENCH_DATA_DIR", str(data_root))
    store = tmp_path / "store"
    # ECB+ and WiMCor: every kind of fast run (coreference heuristics, label baselines) on real corpora. The ePiC
    # runs are left to their own tests: its MiniLM retrieval runs encode 2 x ~1,000 narratives (about 4 CPU
    # minutes), which is the model, not quickstart
    assert main(["quickstart", "--store", str(store), "--only", "ecbplus,wimcor", "--n-resamples", "20",
                 "--no-serve", "--no-committed"]) == 0
    out = capsys.readouterr().out
    assert "quickstart summary" in out and "failed" not in out
    assert main(["leaderboard", "list", "--store", str(store), "--json"]) == 0
    subs = json.loads(capsys.readouterr().out)
    from figbench_baselines.specs import fast_specs

    expected = [s for s in fast_specs() if s.dataset in {"ecbplus", "wimcor"}]
    assert len(subs) == len(expected)
    assert {s["status"] for s in subs} == {"FINISHED"}
    names = {s["model"]["name"] if "model" in s else s["model_name"] for s in subs}
    assert {"figbench-lemma", "figbench-lh", "figbench-majority", "figbench-random"} <= names
    assert (tmp_path / "results" / "cdec_lh_ecbplus_test.json").is_file()


def test_quickstart_without_corpora_is_a_clear_error(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("FIGBENCH_DATA_DIR", str(tmp_path / "none"))
    assert main(["quickstart", "--store", str(tmp_path / "s"), "--no-serve"]) == 1
    assert "no corpus found" in capsys.readouterr().err


def _fake_submit(monkeypatch, calls):
    """Submissions go straight into the store as FINISHED (the server's scoring is the leaderboard's test)."""
    import hashlib

    from figbench_leaderboard import client
    from figbench_leaderboard.store.sqlite import Store

    def submit(path, to, **_):
        rec = client.load_submission(path)  # the client's own reading (inlines a record's predictions file)
        calls.append(rec)
        Store(to).add({"task": rec["task"], "dataset": rec["dataset"], "config": rec["config"], "split": rec["split"],
                       "model_name": rec["model"]["name"], "model_revision": rec["model"]["revision"],
                       "model_type": rec["model"]["type"], "sha256": hashlib.sha256(str(path).encode()).hexdigest(),
                       "status": "FINISHED", "scores": rec["scores"]})
        return {"status": "FINISHED", "mismatches": {}}

    monkeypatch.setattr(client, "submit", submit)


def test_second_quickstart_skips_stored_runs_and_force_reruns(tmp_path, monkeypatch, capsys):
    from figbench_baselines.specs import fast_specs

    from figbench.paths import CORPORA
    from tests.baseline_splits import use_fixture_splits

    use_fixture_splits(monkeypatch)
    for corpus in CORPORA:
        (tmp_path / "data" / corpus).mkdir(parents=True)
    monkeypatch.setenv("FIGBENCH_DATA_DIR", str(tmp_path / "data"))
    calls: list = []
    _fake_submit(monkeypatch, calls)
    store = tmp_path / "store"
    argv = ["quickstart", "--store", str(store), "--only", "wimcor", "--n-resamples", "10", "--no-serve",
            "--no-trained"]
    wimcor = [s for s in fast_specs() if s.dataset == "wimcor"]
    assert main(argv) == 0 and len(calls) == len(wimcor)
    assert "submitted" in capsys.readouterr().out
    # a second run holds everything already: nothing runs, exit 0
    assert main(argv) == 0 and len(calls) == len(wimcor)
    out = capsys.readouterr().out
    assert out.count("already in the store") == len(wimcor) and f"{len(wimcor)} already stored" in out
    # --force re-runs and resubmits under a revision the store accepts beside the stored one
    assert main([*argv, "--force"]) == 0 and len(calls) == 2 * len(wimcor)
    assert all(c["model"]["revision"].startswith("rerun-") and c["options"]["supersedes"] for c in calls[-len(wimcor):])
    assert "revision rerun-" in capsys.readouterr().out


def test_committed_records_of_trained_runs_are_loaded_once(tmp_path, monkeypatch):
    """quickstart loads results/<spec>.json of the board specs (compressed predictions inlined), once."""
    import gzip

    from figbench_baselines.common.runs import with_system_name
    from figbench_baselines.specs import get_spec

    from figbench.commands.quickstart import load_committed
    from figbench.results import RunClock, make_result, provenance, write_result

    spec = get_spec("wimcor_finetune_marked10_earlystop")
    assert spec.board
    results = tmp_path / "results"
    (results / "predictions").mkdir(parents=True)
    preds = {"a": "LOCATION", "b": "EVENT"}
    (results / "predictions" / f"{spec.name}.json.gz").write_bytes(gzip.compress(json.dumps(preds).encode()))
    record = make_result(task=spec.task, dataset=spec.dataset, config=spec.config, split=spec.split,
                         model={"name": "sentence-transformers/all-MiniLM-L6-v2", "revision": None,
                                "type": "fine-tuned encoder", "parameters": 22_000_000},
                         scores={"micro_f1": 0.5}, confidence_intervals={}, predictions=None,
                         predictions_path=f"predictions/{spec.name}.json.gz", provenance=provenance(RunClock(), seed=0),
                         method=spec.method)
    write_result(with_system_name(record), results / f"{spec.name}.json")
    calls: list = []
    _fake_submit(monkeypatch, calls)
    from figbench_leaderboard import client

    store = tmp_path / "store"
    first = load_committed([spec], store, results, submit=client.submit)
    assert [o.status for o in first] == ["loaded"] and calls[0]["predictions"] == {"inline": preds}
    assert calls[0]["model"]["name"] == spec.system_name
    again = load_committed([spec], store, results, submit=client.submit)
    assert [o.status for o in again] == ["stored"] and len(calls) == 1


@pytest.mark.slow
def test_quickstart_twice_on_real_data(data_root, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("FIGBENCH_DATA_DIR", str(data_root))
    argv = ["quickstart", "--store", str(tmp_path / "store"), "--only", "ecbplus", "--n-resamples", "20", "--no-serve"]
    assert main(argv) == 0
    assert "no failures" in capsys.readouterr().out.split("quickstart summary")[1]
    assert main(argv) == 0
    assert "0 submitted" in capsys.readouterr().out


@pytest.mark.slow
def test_committed_records_are_loaded_verified_and_once(data_root, tmp_path, monkeypatch, capsys):
    """Trained runs are not repeated by quickstart: their committed records (with predictions) go into
    the store, re-scored by the server from the predictions, and a second load skips them."""
    from figbench_baselines.specs import get_spec
    from figbench_leaderboard.store.sqlite import Store

    from figbench.commands.quickstart import NOT_INSTALLED, load_committed, print_summary

    monkeypatch.setenv("FIGBENCH_DATA_DIR", str(data_root))
    spec = get_spec("cdec_lemma_ecbplus_test")
    committed = tmp_path / "committed"
    assert main(["baseline", *spec.argv, "--out", str(committed / f"{spec.name}.json"), "--n-resamples", "50",
                 "--predictions-file", str(committed / "predictions" / f"{spec.name}.json")]) == 0
    store = tmp_path / "store"
    [first] = load_committed([spec], store, committed)
    assert first.status == "loaded" and "FINISHED" in first.detail and "MISMATCH" not in first.detail
    [row] = Store(store).list()
    assert row["verified"] and row["model_name"] == spec.system_name
    [again] = load_committed([spec], store, committed)
    assert again.status == "stored"
    [absent] = load_committed([get_spec("cdec_lh_ecbplus_test")], store, committed)
    assert absent.status == "not run yet" and "figbench baseline run cdec_lh_ecbplus_test" in absent.detail
    # installed from a wheel: no results/ folder at all is not "not run yet" (the runs were made)
    [elsewhere] = load_committed([get_spec("cdec_lh_ecbplus_test")], store, tmp_path / "no_results")
    assert elsewhere.status == NOT_INSTALLED and "source repository" in elsewhere.detail
    [other] = load_committed([get_spec("cdec_lemma_ecbplus_test")], tmp_path / "store2", tmp_path / "no_results")
    print_summary([first, elsewhere, other], 1.0)
    out = capsys.readouterr().out
    assert "2 trained runs whose records are not in this install" in out
    # one line for the absent records (a wheel's quickstart printed one long line per trained run)
    [line] = [ln for ln in out.splitlines() if NOT_INSTALLED in ln and "trained run(s)" in ln]
    assert "cdec_lh_ecbplus_test, cdec_lemma_ecbplus_test" in line
    assert sum(NOT_INSTALLED in ln for ln in out.splitlines()) == 1


@pytest.mark.slow
def test_every_committed_board_record_loads_verified(data_root, tmp_path, monkeypatch):
    """What `make run` loads: every board spec's committed record (results/<spec>.json) goes into a fresh
    store, re-scored from its predictions, FINISHED, verified and without a mismatch (a committed record of
    a benchmark the leaderboard did not score made every `make run` exit 1)."""
    from figbench_baselines.specs import board_specs
    from figbench_baselines.tables import RESULTS

    from figbench.commands.quickstart import load_committed

    monkeypatch.setenv("FIGBENCH_DATA_DIR", str(data_root))
    specs = list(board_specs())
    outcomes = load_committed(specs, tmp_path / "store", RESULTS)
    bad = [(o.name, o.status, o.detail) for o in outcomes
           if o.status != "loaded" or "FINISHED" not in o.detail or "MISMATCH" in o.detail]
    assert bad == [] and len(outcomes) == len(specs) >= 14
