"""Practical training for the cdec trainers: batching, exact resume, seeded determinism, samples, accelerate launch.

Tiny randomly initialised models only (no quality claims).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch
from figbench_baselines.common import checkpoints
from figbench_baselines.common.training import LengthGroupedBatchSampler, TrainConfig, grouped_loader, train

from figbench.results import read_result

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    import importlib.util

    spec = importlib.util.spec_from_file_location("fig_tiny_models", ROOT / "tests/fixtures/fig/tiny_models.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.tiny_bert(tmp_path_factory.mktemp("tiny_bert"))


@pytest.fixture()
def mention_files(fixtures_dir, tmp_path):
    return str(fixtures_dir / "cdec" / "mentions_test.json"), str(fixtures_dir / "cdec" / "mentions_train.json")


# --- batching ---------------------------------------------------------------------------------------

def test_length_grouped_batches_cover_every_example_in_a_seeded_order():
    lengths = [5, 50, 7, 48, 6, 49, 8, 47, 30, 31, 29]
    s = LengthGroupedBatchSampler(lengths, 2, seed=3, window=10)
    first = s.batches()
    assert sorted(i for b in first for i in b) == list(range(len(lengths)))
    assert s.batches() == first  # same (seed, epoch): same order
    s.set_epoch_order(1)
    assert s.batches() != first
    assert LengthGroupedBatchSampler(lengths, 2, seed=4, window=10).batches() != first
    # inside a window, batches hold neighbours in length: far less padding than random batches
    pad = sum(max(lengths[i] for i in b) * len(b) - sum(lengths[i] for i in b) for b in first)
    assert pad <= 25  # sorted: (50,49) (48,47) (31,30) (29,8) (7,6) (5); unsorted pairs pad ~100
    assert len(s) == 6


def _toy_run(tmp_path: Path, *, crash_after: int | None = None, resume: bool = False, delay: float = 0.0,
             stats: dict | None = None) -> dict[str, torch.Tensor]:
    """Train a small MLP for 2 epochs on length-grouped batches, optionally crashing after N steps (each step
    taking at least ``delay`` s); the training stats go to ``stats``."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Dropout(0.2), torch.nn.Linear(8, 1))
    x = torch.randn(40, 4)
    y = (x.sum(1) > 0).float()
    loader = grouped_loader(40, list(range(40)), 4, lambda idx: {"x": x[idx], "y": y[idx]}, seed=0)
    calls = {"n": 0}

    def loss_fn(m, b):
        calls["n"] += 1
        if crash_after is not None and calls["n"] > crash_after:
            raise KeyboardInterrupt("simulated interruption")
        time.sleep(delay)
        return torch.nn.functional.binary_cross_entropy_with_logits(m(b["x"]).squeeze(-1), b["y"])

    cfg = TrainConfig(epochs=2, batch_size=4, lr=1e-2, seed=0, checkpoint_dir=str(tmp_path / "ckpt"),
                      checkpoint_every=1, resume=resume, warmup_ratio=0.1)
    out = train(model, loader, loss_fn, cfg)
    if stats is not None:
        stats.update(out)
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def _position(progress: dict) -> dict:
    """Where a checkpoint's progress says the loop stands (beside it: seconds trained, resumes)."""
    return {k: progress[k] for k in ("step", "epoch", "batch")}


def _resume_ends_like(straight: dict[str, torch.Tensor], run: Path) -> None:
    """Resume the interrupted toy run in ``run``: the weights of the uninterrupted one, and one checkpoint left."""
    resumed = _toy_run(run, resume=True)
    for k in straight:
        torch.testing.assert_close(resumed[k], straight[k], rtol=0, atol=0)
    ckpt = run / "ckpt"
    assert sorted(p.name for p in ckpt.iterdir()) == ["LATEST", checkpoints.latest(ckpt)[0].name]


def test_interrupted_training_resumes_to_the_same_weights(tmp_path):
    straight = _toy_run(tmp_path / "a")
    with pytest.raises(KeyboardInterrupt):
        _toy_run(tmp_path / "b", crash_after=13)  # mid second epoch
    state, progress = checkpoints.latest(tmp_path / "b" / "ckpt")
    assert _position(progress) == {"step": 13, "epoch": 1, "batch": 3}
    assert progress["resumed"] == 0 and progress["seconds"] > 0
    assert sorted(p.name for p in state.parent.iterdir()) == ["LATEST", state.name]  # older checkpoints removed
    _resume_ends_like(straight, tmp_path / "b")


def test_a_resumed_training_counts_the_seconds_of_every_process(tmp_path):
    """The checkpoint carries the seconds trained so far; a resumed run reports them beside its own."""
    with pytest.raises(KeyboardInterrupt):
        _toy_run(tmp_path, crash_after=13, delay=0.05)  # at least 13 x 0.05 s before the checkpoint at step 13
    stats: dict = {}
    _toy_run(tmp_path, resume=True, stats=stats)
    assert stats["resumed"] == 1 and stats["train_seconds_earlier_processes"] >= 13 * 0.05
    assert stats["train_seconds_all_sessions"] == pytest.approx(stats["train_seconds_earlier_processes"]
                                                                + stats["train_seconds"])
    once: dict = {}
    _toy_run(tmp_path / "once", stats=once)
    assert once["resumed"] == 0 and once["train_seconds_earlier_processes"] == 0.0
    # the cdec components' train_wall_time_s: this process's wall time plus the earlier processes' training
    from figbench_baselines.common.training import wall_time_s

    t0 = time.perf_counter()
    earlier = stats["train_seconds_earlier_processes"]
    assert earlier <= wall_time_s(t0, stats) < earlier + 1
    assert wall_time_s(t0, once) < 1


def _dies_during_save(monkeypatch, at_call: int, *, after_writing: bool) -> None:
    """Make the ``at_call``-th Accelerate save die, as a kill -9 would: before or after its files are written."""
    from accelerate import Accelerator

    real, calls = Accelerator.save_state, {"n": 0}

    def save_state(self, output_dir=None, **kw):
        calls["n"] += 1
        if calls["n"] == at_call:
            if after_writing:
                real(self, output_dir, **kw)
            else:  # half a state: the model written, the optimiser and RNG not
                Path(output_dir).mkdir(parents=True, exist_ok=True)
                (Path(output_dir) / "model.safetensors").write_bytes(b"\0" * 64)
            raise KeyboardInterrupt("killed while saving")
        return real(self, output_dir, **kw)

    monkeypatch.setattr(Accelerator, "save_state", save_state)


@pytest.mark.parametrize("after_writing", [False, True])
def test_a_kill_during_a_checkpoint_save_resumes_from_the_last_complete_one(tmp_path, monkeypatch, after_writing):
    """A save killed half-way (or after the state but before the switch) is ignored: the run resumes from
    the checkpoint before it and ends with the weights of an uninterrupted run; the leftovers are removed."""
    straight = _toy_run(tmp_path / "a")
    with monkeypatch.context() as m:
        _dies_during_save(m, 9, after_writing=after_writing)
        with pytest.raises(KeyboardInterrupt):
            _toy_run(tmp_path / "b")
    ckpt = tmp_path / "b" / "ckpt"
    assert (ckpt / "ckpt-00000009.partial").is_dir()
    assert _position(checkpoints.latest(ckpt)[1]) == {"step": 8, "epoch": 0, "batch": 8}
    _resume_ends_like(straight, tmp_path / "b")  # and the interrupted save's folder is gone


def test_a_checkpoint_folder_of_the_earlier_layout_still_resumes(tmp_path):
    """State and figbench_progress.json directly in the folder (before checkpoints.py): resumed, then replaced."""
    straight = _toy_run(tmp_path / "a")
    with pytest.raises(KeyboardInterrupt):
        _toy_run(tmp_path / "b", crash_after=13)
    ckpt = tmp_path / "b" / "ckpt"
    for f in checkpoints.latest(ckpt)[0].iterdir():
        f.rename(ckpt / ("figbench_progress.json" if f.name == checkpoints.PROGRESS else f.name))
    for p in ckpt.iterdir():
        if p.name.startswith("ckpt-") or p.name == checkpoints.LATEST:
            shutil.rmtree(p) if p.is_dir() else p.unlink()
    assert _position(checkpoints.latest(ckpt)[1]) == {"step": 13, "epoch": 1, "batch": 3}
    _resume_ends_like(straight, tmp_path / "b")  # and the old layout's files are gone


# --- samples and inputs ------------------------------------------------------------------------------

def test_stratified_samples_are_proportional_and_nested():
    from figbench_baselines.cdec.steps.sampling import describe, stratified_sample

    rng = np.random.default_rng(0)
    rows = [{"topic": str(t)} for t in range(4) for _ in range(50)]
    pairs = np.stack([rng.integers(0, 200, 1000), rng.integers(0, 200, 1000)], axis=1)
    labels = (rng.random(1000) < 0.3).astype(float)
    full, info = stratified_sample(rows, pairs, labels, 200, seed=1)
    half, _ = stratified_sample(rows, pairs, labels, 200, fraction=0.5, seed=1)
    quarter, _ = stratified_sample(rows, pairs, labels, 200, fraction=0.25, seed=1)
    assert len(full) == 200 and info["pairs"] == 200
    assert set(quarter) <= set(half) <= set(full)
    assert abs(len(half) - 100) <= 8 and abs(len(quarter) - 50) <= 8  # rounding per stratum
    assert abs(labels[full].mean() - labels.mean()) < 0.02  # label share kept
    topics = np.array([int(rows[a]["topic"]) for a in pairs[:, 0]])
    for t in range(4):
        assert abs((topics[full] == t).mean() - (topics == t).mean()) < 0.02
    assert "stratified sample of 200 of 1,000" in describe(info, "pairs")
    everything, info_all = stratified_sample(rows, pairs, labels, None)
    assert len(everything) == 1000 and info_all["all_pairs"]


def test_pair_inputs_keep_both_triggers_when_trimmed(fixtures_dir):
    from figbench_baselines.cdec.steps.encoding import MentionTokens
    from figbench_baselines.common.encoder import default_model_path
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(default_model_path())
    tok.add_tokens(["<m>", "</m>"], special_tokens=True)
    rows = json.loads((fixtures_dir / "cdec" / "mentions_test.json").read_text())
    mt = MentionTokens(tok, rows, context_words=30, progress=False)
    for i, j in [(0, 1), (2, 3)]:
        full, (s, e), (t, u) = mt.pair(i, j, 512)
        short, (s2, e2), (t2, u2) = mt.pair(i, j, 12)
        assert len(short) <= 12
        assert short[s2:e2] == full[s:e] and short[t2:u2] == full[t:u]  # the triggers survive
        assert tok.convert_ids_to_tokens(short[s2 - 1]) == "<m>"
    batch = mt.collate_pairs([(0, 1), (2, 3)], 512)
    assert batch["input_ids"].shape[1] == max(mt.pair_length(0, 1, 512), mt.pair_length(2, 3, 512))  # dynamic padding


# --- the same command gives the same numbers ------------------------------------------------------------

def _cli(args: list[str]) -> int:
    from figbench.cli import main

    return main(args)


def _ce_command(tiny_bert, mention_files, out, extra=()):
    test_file, train_file = mention_files
    return ["baseline", "cdec", "--dataset", "ecbplus", "--split", "test", "--method", "ce_lh",
            "--mentions-file", test_file, "--train-mentions-file", train_file, "--model", tiny_bert,
            "--max-steps", "3", "--batch-size", "2", "--n-resamples", "50", "--seed", "7", "--out", str(out), *extra]


def test_same_seed_same_command_same_numbers(tiny_bert, mention_files, tmp_path):
    recs = []
    for k in range(2):
        assert _cli(_ce_command(tiny_bert, mention_files, tmp_path / f"r{k}.json")) == 0
        recs.append(read_result(tmp_path / f"r{k}.json"))
    assert recs[0]["scores"] == recs[1]["scores"]
    assert recs[0]["confidence_intervals"] == recs[1]["confidence_intervals"]
    assert recs[0]["predictions"] == recs[1]["predictions"]
    assert recs[0]["provenance"]["training"]["crossencoder"]["train_stats"]["final_loss"] == \
        recs[1]["provenance"]["training"]["crossencoder"]["train_stats"]["final_loss"]
    other = tmp_path / "seed8.json"
    assert _cli(_ce_command(tiny_bert, mention_files, other)[:-4] + ["--seed", "8", "--out", str(other)]) == 0
    assert read_result(other)["provenance"]["training"]["crossencoder"]["train_stats"]["final_loss"] != \
        recs[0]["provenance"]["training"]["crossencoder"]["train_stats"]["final_loss"]


def test_train_only_then_load_model_equals_one_run(tiny_bert, mention_files, tmp_path):
    model_dir = tmp_path / "m"
    one = tmp_path / "one.json"
    assert _cli(_ce_command(tiny_bert, mention_files, one)) == 0
    cmd = _ce_command(tiny_bert, mention_files, tmp_path / "unused.json",
                      ["--train-only", "--save-model", str(model_dir)])
    assert _cli(cmd) == 0
    assert not (tmp_path / "unused.json").exists()
    info = json.loads((model_dir / "train_info.json").read_text())
    assert info["n_training_pairs"] > 0 and info["train_wall_time_s"] >= 0 and info["hardware"]["cpu_count"]
    test_file, train_file = mention_files
    two = tmp_path / "two.json"
    assert _cli(["baseline", "cdec", "--dataset", "ecbplus", "--split", "test", "--method", "ce_lh",
                 "--mentions-file", test_file, "--train-mentions-file", train_file, "--load-model", str(model_dir),
                 "--n-resamples", "50", "--seed", "7", "--out", str(two)]) == 0
    a, b = read_result(one), read_result(two)
    assert a["scores"] == b["scores"] and a["predictions"] == b["predictions"]
    assert b["provenance"]["training"]["crossencoder"]["loaded_from"] == str(model_dir)
    assert b["counts"]["n_training_pairs"] == info["n_training_pairs"]


@pytest.mark.slow
def test_accelerate_launch_one_process_gives_the_plain_run_numbers(tiny_bert, mention_files, tmp_path):
    """Each trained method (cross-encoder, bi-encoder k-NN, WEC pairwise) under ``accelerate launch`` gives the
    numbers of its plain run; the three launched runs share one launched process (one start-up, not three)."""
    test_file, _ = mention_files
    extras = {"ce_lh": [], "knn_oracle": ["--k", "2", "--biencoder-steps", "3"],
              "wec_pairwise": ["--tune-mentions-file", test_file, "--no-cache"]}

    def command(method, out):
        cmd = _ce_command(tiny_bert, mention_files, out, extras[method])
        cmd[cmd.index("ce_lh")] = method
        return cmd

    for method in extras:
        assert _cli(command(method, tmp_path / f"plain-{method}.json")) == 0
    commands = tmp_path / "commands.json"
    commands.write_text(json.dumps([command(m, tmp_path / f"launched-{m}.json") for m in extras]))
    env = {**os.environ, "TOKENIZERS_PARALLELISM": "false", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    cmd = [sys.executable, "-m", "accelerate.commands.launch", "--num_processes", "1", "--num_machines", "1",
           "--mixed_precision", "no", "--dynamo_backend", "no", str(ROOT / "tests" / "fixtures" / "launch_cli_runs.py"),
           str(commands)]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    for method in extras:
        a, b = read_result(tmp_path / f"plain-{method}.json"), read_result(tmp_path / f"launched-{method}.json")
        assert a["scores"] == b["scores"] and a["predictions"] == b["predictions"], method
        # recorded (to 0.1 s: a 3-step tiny run in a warm process can round to 0.0)
        assert b["provenance"]["training"] and b["provenance"]["train_wall_time_s"] >= 0, method


# --- robustness drop ------------------------------------------------------------------------------------

def test_paired_drop_between_two_records(fixtures_dir):
    from figbench_baselines.cdec.pipeline import default_args, run
    from figbench_baselines.cdec.steps.compare import paired_drop, records_drop, unit_counts
    from figbench_baselines.cdec.steps.evaluation import evaluate

    from figbench.scoring.coref import scores_from_counts

    rows = json.loads((fixtures_dir / "cdec" / "mentions_test.json").read_text())
    good = run(default_args(method="lemma", n_resamples=0, within="subtopic"), rows=rows)
    block = good["options"]["unit_counts"]
    assert block["unit"] == "topic" and block["cut_links"] == 0
    assert len(block["counts"]) == len({r["topic"] for r in rows})
    total = np.asarray(list(block["counts"].values())).sum(0)  # topics add up to the record's own scores
    assert scores_from_counts(total)["conll_f1"] == pytest.approx(good["scores"]["conll_f1"], abs=1e-12)
    same = records_drop(good, good, n_resamples=200)
    ci = same["confidence_interval"]
    assert same["drop"] == 0 and ci["low"] == ci["high"] == 0 and ci["unit"] == "topics (paired)"
    alone = unit_counts(rows, [[r["mention_id"]] for r in rows], by="topic")  # a worse system: every mention alone
    out = paired_drop(block, alone, n_resamples=200)
    assert out["drop"] == pytest.approx(good["scores"]["conll_f1"] - evaluate(rows, np.arange(len(rows)))["conll_f1"])
    ci = out["confidence_interval"]
    assert ci["low"] <= out["drop"] <= ci["high"] and out["units"] == len({r["topic"] for r in rows})
    assert "fewer than 20" in ci["warning"]  # a fixture has few topics: the interval says it is unreliable


# --- specs of the trained runs --------------------------------------------------------------------------

def test_every_trained_spec_loads_a_model_that_reproduce_trains(tmp_path, monkeypatch):
    from figbench_baselines.cdec.reproduce import specs_needing, steps
    from figbench_baselines.cdec.specs import TRAINED_SPECS
    from figbench_baselines.cli import expand_specs, missing_models

    served = {name for step in steps() for name in specs_needing(step.model)}
    loading = {s.name for s in TRAINED_SPECS if s.family == "cdec" and "--no-train-biencoder" not in s.argv}
    assert loading and loading <= served
    assert len({(s.system_name, s.benchmark) for s in TRAINED_SPECS if s.board}) == \
        sum(s.board for s in TRAINED_SPECS)  # one board spec per system and benchmark
    monkeypatch.chdir(tmp_path)  # no saved model here: patterns skip the specs that load one
    assert missing_models(next(s for s in TRAINED_SPECS if s.name == "cdec_ce_lh_ecbplus_test")) == \
        ["models/cdec/ce_lh_s4000"]
    names = {s.name for s in expand_specs(["cdec_knn_oracle_*"])}
    assert {"cdec_knn_oracle_frozen_k10_ecbplus_test", "cdec_knn_oracle_frozen15cos_k10_ecbplus_test"} <= names
    assert not any(n.startswith(("cdec_knn_oracle_trained_", "cdec_knn_oracle_wise_")) for n in names)
