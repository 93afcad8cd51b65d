"""The figurative training loop (baselines/common/early_stopping.py): batch order, seeded determinism,
exact resume, early stopping, saved models, and the same numbers under ``accelerate launch``.

Tiny randomly initialised models only (no quality claims).
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from figbench_baselines.common.early_stopping import EarlyStopping, epoch_batches, fit
from figbench_baselines.common.training import TrainConfig

from figbench.cli import main
from figbench.results import read_result
from tests.conftest import corpus_path, tiny_models

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return tiny_models().tiny_bert(tmp_path_factory.mktemp("tiny") / "bert")


def _token_clf(path: str, seed: int = 0):
    from transformers import AutoModelForTokenClassification

    torch.manual_seed(seed)
    return AutoModelForTokenClassification.from_pretrained(path, num_labels=3)


def _features(n: int = 40) -> list[dict]:
    rng = np.random.default_rng(0)
    out = []
    for _ in range(n):
        length = int(rng.integers(4, 12))
        ids = [101, *rng.integers(1000, 2000, size=length - 2).tolist(), 102]
        labels = [-100, *[int(i % 3) for i in ids[1:-1]], -100]
        out.append({"input_ids": ids, "attention_mask": [1] * length, "labels": labels})
    return out


@functools.lru_cache(maxsize=1)
def _pad_collate():
    from figbench_baselines.common.encoder import default_model_path
    from figbench_baselines.common.figurative import pad_collate
    from transformers import AutoTokenizer

    return pad_collate(AutoTokenizer.from_pretrained(default_model_path()))


def _collate(items):
    return _pad_collate()(items)   # one tokenizer for the module (loading it per batch was most of each fit)


def _cfg(**kw) -> TrainConfig:
    base = dict(epochs=2, batch_size=4, lr=1e-3, warmup_ratio=0.1, seed=3)
    base.update(kw)
    return TrainConfig(**base)


def _same_weights(a, b) -> bool:
    sa, sb = a.state_dict(), b.state_dict()
    return sa.keys() == sb.keys() and all(torch.equal(sa[k], sb[k]) for k in sa)


def test_epoch_batches_cover_every_example_once_grouped_by_length():
    lengths = [int(x) for x in np.random.default_rng(1).integers(1, 100, size=503)]
    b = epoch_batches(lengths, len(lengths), 8, seed=7, epoch=0)
    assert sorted(i for batch in b for i in batch) == list(range(503))
    assert b == epoch_batches(lengths, len(lengths), 8, seed=7, epoch=0)  # a function of (seed, epoch)
    assert b != epoch_batches(lengths, len(lengths), 8, seed=7, epoch=1)
    # length grouping: far less padding than plain shuffling
    pad = lambda bs: sum(max(lengths[i] for i in x) * len(x) - sum(lengths[i] for i in x) for x in bs)
    plain = epoch_batches(lengths, len(lengths), 8, seed=7, epoch=0, group_by_length=False)
    assert pad(b) < pad(plain) / 3


def test_same_seed_same_weights_and_resume_equals_an_uninterrupted_run(tiny, tmp_path):
    feats = _features()
    whole, _ = fit(_token_clf(tiny), feats, _collate, _cfg(checkpoint_dir=str(tmp_path / "a")), desc="a")
    again, _ = fit(_token_clf(tiny), feats, _collate, _cfg(), desc="again")
    assert _same_weights(whole, again)

    calls = {"n": 0}

    def interrupted_loss(model, batch):
        calls["n"] += 1
        if calls["n"] == 15:  # mid-epoch 2 (10 batches per epoch), after the checkpoint at step 14
            raise KeyboardInterrupt
        return model(**batch).loss

    ckpt = str(tmp_path / "b")
    with pytest.raises(KeyboardInterrupt):
        fit(_token_clf(tiny), feats, _collate, _cfg(checkpoint_dir=ckpt, checkpoint_every=7), loss_fn=interrupted_loss)
    resumed, stats = fit(_token_clf(tiny, seed=99), feats, _collate,
                         _cfg(checkpoint_dir=ckpt, checkpoint_every=7, resume=True), desc="resumed")
    assert stats["train_steps"] == 20
    assert _same_weights(whole, resumed)


def test_a_resumed_run_counts_the_time_and_examples_of_every_process(tiny, tmp_path):
    """Killed mid-epoch 2 after the checkpoint at step 14, resumed: the stats (and the record's training block)
    hold both processes' training time and every example once, and say it was resumed."""
    import time

    from figbench_baselines.common.figurative import training_summary

    feats, calls, ckpt = _features(), {"n": 0}, str(tmp_path / "ck")

    def slow_then_killed(model, batch):
        calls["n"] += 1
        if calls["n"] == 15:
            raise KeyboardInterrupt
        time.sleep(0.05)  # the first process trains at least 14 x 0.05 s before its last checkpoint
        return model(**batch).loss

    cfg = _cfg(checkpoint_dir=ckpt, checkpoint_every=7)
    with pytest.raises(KeyboardInterrupt):
        fit(_token_clf(tiny), feats, _collate, cfg, loss_fn=slow_then_killed)
    _, stats = fit(_token_clf(tiny), feats, _collate, _cfg(checkpoint_dir=ckpt, checkpoint_every=7, resume=True))
    assert stats["resumed"] == 1
    assert stats["train_examples_all_sessions"] == 2 * len(feats)  # 56 before the kill's checkpoint, 24 after
    assert stats["train_seconds_all_sessions"] >= stats["train_seconds"] + 14 * 0.05
    summary = training_summary(stats, cfg, n_train=len(feats), unit="examples")
    assert summary["resumed"] == 1 and summary["train_seconds"] == round(stats["train_seconds_all_sessions"], 3)
    assert summary["train_seconds_last_process"] < summary["train_seconds"]
    # resumed again (finished): one more resume, starting from the seconds the last checkpoint holds
    from figbench_baselines.common import checkpoints

    saved = checkpoints.latest(ckpt)[1]["seconds"]
    assert stats["train_seconds_all_sessions"] >= saved >= 14 * 0.05
    _, again = fit(_token_clf(tiny), feats, _collate, _cfg(checkpoint_dir=ckpt, resume=True))
    assert again["resumed"] == 2 and again["train_seconds_all_sessions"] >= saved
    # a run never interrupted
    _, once = fit(_token_clf(tiny), feats, _collate, _cfg())
    assert once["resumed"] == 0 and once["train_seconds_all_sessions"] == pytest.approx(once["train_seconds"], abs=0.01)


def test_early_stopping_keeps_the_best_epoch_and_stops_after_patience(tiny, tmp_path):
    from figbench_baselines.common.figurative import training_summary

    feats = _features()
    scripted = iter([0.5, 0.7, 0.6, 0.65, 0.9])
    snapshots = []

    def evaluate(model):
        snapshots.append({k: v.clone() for k, v in model.state_dict().items()})
        return {"f1": next(scripted)}

    for ckpt in (None, str(tmp_path / "ck")):
        scripted = iter([0.5, 0.7, 0.6, 0.65, 0.9])
        snapshots.clear()
        early = EarlyStopping(metric="f1", patience=2, max_epochs=5)
        model, stats = fit(_token_clf(tiny), feats, _collate, _cfg(checkpoint_dir=ckpt), evaluate=evaluate,
                           early=early)
        assert stats["epochs_run"] == 4 and stats["stopped_early"] and stats["best_epoch"] == 2
        assert stats["best_score"] == 0.7 and [h["validation"]["f1"] for h in stats["history"]] == [0.5, 0.7, 0.6, 0.65]
        assert all(torch.equal(model.state_dict()[k], snapshots[1][k]) for k in snapshots[1])
        assert not all(torch.equal(model.state_dict()[k], snapshots[3][k]) for k in snapshots[3])
        assert stats["total_steps_planned"] == 50  # the schedule spans max_epochs (10 steps per epoch)
        summary = training_summary(stats, _cfg(), n_train=len(feats), unit="examples")
        assert (summary["epochs"], summary["epochs_run"], summary["best_epoch"]) == (5, 4, 2)  # not cfg.epochs (2)
    # a finished run resumed only restores its best weights
    again, stats = fit(_token_clf(tiny, seed=5), feats, _collate,
                       _cfg(checkpoint_dir=str(tmp_path / "ck"), resume=True), evaluate=evaluate,
                       early=EarlyStopping(metric="f1", patience=2, max_epochs=5))
    assert stats["best_epoch"] == 2 and all(torch.equal(again.state_dict()[k], snapshots[1][k]) for k in snapshots[1])


@pytest.mark.parametrize("dies_at_save", [2, 3])
def test_a_kill_during_an_epoch_end_save_resumes_to_the_uninterrupted_result(tiny, tmp_path, monkeypatch,
                                                                            dies_at_save):
    """Saves 2 and 3 end epoch 1 (a new best) and sit mid-epoch 2; a kill inside either (the state written,
    the switch not made) resumes from the checkpoint before it, and the run ends with the weights, best epoch
    and history of an uninterrupted one. The checkpoint folder keeps one checkpoint and one best file."""
    from accelerate import Accelerator

    feats = _features()
    probe = _collate(feats[:8])

    def evaluate(model):  # a function of the weights only, so a redone epoch scores the same
        with torch.no_grad():
            return {"neg_loss": -float(model(**probe).loss)}

    def run(ckpt, **kw):
        return fit(_token_clf(tiny), feats, _collate, _cfg(checkpoint_dir=ckpt, checkpoint_every=7, **kw),
                   evaluate=evaluate, early=EarlyStopping(metric="neg_loss", patience=5, max_epochs=3))

    whole, whole_stats = run(str(tmp_path / "a"))
    real, calls = Accelerator.save_state, {"n": 0}

    def save_state(self, output_dir=None, **kw):
        calls["n"] += 1
        real(self, output_dir, **kw)
        if calls["n"] == dies_at_save:
            raise KeyboardInterrupt("killed while saving")

    ckpt = tmp_path / "b"
    with monkeypatch.context() as m:
        m.setattr(Accelerator, "save_state", save_state)
        with pytest.raises(KeyboardInterrupt):
            run(str(ckpt))
    resumed, stats = run(str(ckpt), resume=True)
    assert _same_weights(whole, resumed)
    assert stats["best_epoch"] == whole_stats["best_epoch"]
    assert [h["validation"] for h in stats["history"]] == [h["validation"] for h in whole_stats["history"]]
    names = sorted(p.name for p in ckpt.iterdir())
    assert names[0] == "LATEST" and names[1] == f"best-epoch{stats['best_epoch']:03d}.pt" and len(names) == 3


def test_early_stopping_needs_a_scorer(tiny):
    with pytest.raises(ValueError, match="evaluate"):
        fit(_token_clf(tiny), _features(8), _collate, _cfg(), early=EarlyStopping(metric="f1"))


# ------------------------------------------------------------------ the CLI on the real corpus

@pytest.fixture(scope="module")
def m4_dir():
    return str(corpus_path("meta4xnli", "meta4xnli", "detection", "splits", "en", "meta4xnli_train.tsv").parents[4])


def _command(tiny: str, m4_dir: str, out, *extra: str) -> list[str]:
    return ["baseline", "meta4xnli", "--task", "metaphor_detection", "--train", "en", "--model", tiny,
            "--data-dir", m4_dir, "--max-train", "24", "--max-test", "16", "--batch-size", "8", "--lr", "1e-3",
            "--patience", "1", "--max-epochs", "2", "--n-resamples", "20", "--seed", "5", *extra, "--out", str(out)]


@pytest.mark.slow
def test_same_command_twice_gives_the_same_numbers_and_a_saved_model_rescores_them(tiny, m4_dir, tmp_path):
    assert main(_command(tiny, m4_dir, tmp_path / "a.json", "--save-model", str(tmp_path / "model"))) == 0
    assert main(_command(tiny, m4_dir, tmp_path / "b.json")) == 0
    a, b = read_result(tmp_path / "a.json"), read_result(tmp_path / "b.json")
    assert a["scores"] == b["scores"] and a["confidence_intervals"] == b["confidence_intervals"]
    assert a["predictions"] == b["predictions"]
    assert a["method"] == "token_clf_en_to_en_earlystop"
    training = a["options"]["training"]
    assert training["n_train_sentences"] == 24 and training["early_stopping"]["patience"] == 1
    assert training["hardware"]["cpu_count"] and training["train_seconds"] > 0
    assert [h["epoch"] for h in training["history"]] == [1, 2][:training["epochs_run"]]
    # the record states what ran: the cap early stopping trained under (--max-epochs 2, not the paper's 4 epochs
    # that --epochs defaults to), the epochs run and the best one
    opts = a["options"]
    assert opts["epochs"] == training["epochs"] == 2
    assert opts["epochs_run"] == training["epochs_run"] and opts["best_epoch"] == training["best_epoch"] >= 1
    # re-scoring the saved model: one command, no training, the same numbers
    assert main(_command(tiny, m4_dir, tmp_path / "c.json", "--load-model", str(tmp_path / "model"))) == 0
    c = read_result(tmp_path / "c.json")
    assert c["scores"] == a["scores"] and c["predictions"] == a["predictions"]
    assert c["options"]["scored_saved_model"] == str(tmp_path / "model")
    assert c["options"]["training"]["history"] == training["history"]


@pytest.mark.ci_stage   # a second accelerate launch start-up (20 s): in make test-ci; make test launches the same
# training loop (baselines/common/training.py) in test_cdec_training.py's accelerate launch test
@pytest.mark.slow
def test_accelerate_launch_one_process_gives_the_plain_run_numbers(tiny, m4_dir, tmp_path):
    assert main(_command(tiny, m4_dir, tmp_path / "plain.json")) == 0
    env = {**os.environ, "TOKENIZERS_PARALLELISM": "false", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "HF_DATASETS_OFFLINE": "1"}
    cmd = [sys.executable, "-m", "accelerate.commands.launch", "--num_processes", "1", "--num_machines", "1",
           "--mixed_precision", "no", "--dynamo_backend", "no", "-m", "figbench.cli",
           *_command(tiny, m4_dir, tmp_path / "launched.json")]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    a, b = read_result(tmp_path / "plain.json"), read_result(tmp_path / "launched.json")
    assert a["scores"] == b["scores"] and a["predictions"] == b["predictions"]
