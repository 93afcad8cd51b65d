"""Issue 36: figbench's tasks in lm-evaluation-harness, and its output on the board.

``lm_eval`` (the real CLI, 0.4.13) runs the task folder ``figbench lm-eval path`` writes, with a random 2-layer
GPT-2 saved by the test, on a few questions of each kind of task (label: WiMCor metonymy and Meta4XNLI NLI;
ranking: ePiC unseen proverb prediction; clustering: CDEC on ECB+META_1 dev_small); ``figbench submit
--from-lm-eval`` turns its ``--log_samples`` output into predictions and a local leaderboard store scores them.
For the accuracy-type tasks the board scores exactly the answered examples (gold for them in a JSON file,
the server's ``--gold-json``), and its accuracy equals lm-eval's ``acc``; the CDEC pairs' decisions are
clustered over the whole split and scored against the builders' gold.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import corpus_path
from tests.figbench_run import run_figbench

pytest.importorskip("lm_eval")

BIN = Path(sys.executable).parent
#: lm-eval task -> the indices of the questions it asks (lm_eval --samples)
SAMPLES = {
    "figbench_metonymy_wimcor_sample_test": list(range(12)),
    "figbench_metaphor_nli_meta4xnli_interpretation_test": list(range(12)),
    "figbench_proverb_prediction_epic_unseen_test": [0, 1, 2],
    "figbench_cdec_ecbmeta_meta_1_dev_small": list(range(16)),
}


def _tiny_causal_lm(path: Path) -> None:
    import torch
    from figbench_baselines.common.encoder import default_model_path
    from transformers import AutoTokenizer, GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    tok = AutoTokenizer.from_pretrained(default_model_path())   # the offline MiniLM WordPiece vocabulary
    tok.bos_token, tok.eos_token = tok.cls_token, tok.sep_token
    cfg = GPT2Config(vocab_size=len(tok), n_positions=512, n_embd=32, n_layer=2, n_head=2,
                     bos_token_id=tok.cls_token_id, eos_token_id=tok.sep_token_id)
    GPT2LMHeadModel(cfg).save_pretrained(path)
    tok.save_pretrained(path)


def _run(argv: list[str], env: dict, cwd: Path, timeout: int = 1200) -> str:
    out = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    assert out.returncode == 0, (argv, out.stdout[-3000:], out.stderr[-5000:])
    return out.stdout


def _figbench(*argv: str) -> str:
    """A figbench command in this process (the harness, lm_eval's own CLI, runs as a subprocess)."""
    out = run_figbench(argv)
    assert out.returncode == 0, (argv, out.stdout[-3000:], out.stderr[-5000:])
    return out.stdout


@pytest.mark.slow
def test_lm_eval_runs_figbench_tasks_and_the_board_scores_them(tmp_path, monkeypatch):
    for corpus in ("wimcor", "meta4xnli", "epic", "ecbmeta", "ecbplus"):
        corpus_path(corpus)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "FIGBENCH_CACHE": str(tmp_path / "cache")}
    monkeypatch.setenv("FIGBENCH_CACHE", env["FIGBENCH_CACHE"])
    monkeypatch.chdir(tmp_path)
    tasks = Path(_figbench("lm-eval", "path").strip())
    assert tasks == tmp_path / "cache" / "lm-eval" / __import__("figbench").__version__
    (tasks / "figbench_gone_task").mkdir()   # a task folder written for a declaration that no longer exists
    (tasks / "figbench_gone_task" / "figbench_questions.py").write_text("")
    assert Path(_figbench("lm-eval", "path").strip()) == tasks
    names = sorted(p.name for p in tasks.iterdir() if p.is_dir())
    assert "figbench_gone_task" not in names
    assert set(SAMPLES) <= set(names) and all(n.startswith("figbench_") for n in names)
    card = (tasks / "figbench_cdec_ecbmeta_meta_1_dev_small" / "README.md").read_text()
    assert "Do the two marked events refer to the same real-world event?" in card   # GPT_LH's prompt, documented

    _tiny_causal_lm(tmp_path / "tiny")
    _run([str(BIN / "lm_eval"), "--model", "hf", "--model_args", "pretrained=tiny,dtype=float32",
          "--device", "cpu", "--batch_size", "16", "--include_path", str(tasks), "--tasks", ",".join(SAMPLES),
          "--samples", json.dumps(SAMPLES), "--output_path", "out", "--log_samples"], env, tmp_path)
    [results] = (tmp_path / "out").rglob("results_*.json")
    acc = {t: r["acc,none"] for t, r in json.loads(results.read_text())["results"].items()}
    assert set(acc) == set(SAMPLES)

    # the board's gold for the examples lm-eval answered (accuracy tasks), and the builders' gold for CDEC
    from figbench.harnesses.lm_eval import read_samples, task_name
    from figbench.harnesses.questions import find
    from figbench.loading import load_dataset
    from figbench.tasks import get_task

    answered = read_samples(tmp_path / "out")
    gold = {}
    for key, qs in answered.items():
        b, task = find(key), get_task(find(key).task)
        assert len(qs) == len(SAMPLES[task_name(b)])
        split = load_dataset(b.dataset, b.config, split=b.split)
        if task.kind != "clustering":
            ids = {q["id"] for q, _ in qs}
            split = split.select([i for i, x in enumerate(split["id"]) if x in ids])
        gold[key] = task.gold_from_dataset(split, key).to_json()
    (tmp_path / "gold.json").write_text(json.dumps(gold))

    out = _figbench("submit", "--from-lm-eval", "out", "--to", "store", "--gold-json", "gold.json",
                    "--model-name", "tiny-random-gpt2")
    replies = {r["benchmark"]: r for r in json.loads(out)}
    assert {r["status"] for r in replies.values()} == {"FINISHED"}, replies
    for name, value in acc.items():
        key = next(k for k in replies if task_name(find(k)) == name)
        if get_task(find(key).task).kind == "clustering":
            assert 0.0 < replies[key]["scores"]["conll_f1"] <= 1.0
        else:
            assert replies[key]["scores"]["accuracy"] == pytest.approx(value, abs=1e-12), (name, value)
    # a submission of the same run's predictions, written where the user can read them
    written = sorted(p.name for p in (tmp_path / "out" / "figbench-predictions").glob("*.json"))
    assert len(written) == len(SAMPLES)
    sub = json.loads((tmp_path / "out" / "figbench-predictions" / "cdec_ecbmeta_meta_1_dev_small.json").read_text())
    assert sub["model"]["name"] == "tiny-random-gpt2" and sub["predictions"]["format"] == "clusters"
