"""figbench as Hugging Face users meet it: bare names in processes that never import figbench,
Hub-shaped folders, the prepared-data cache key, the default data root, a light import."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, corpus_path

ECB_MINI = FIXTURES / "ecbplus" / "mini"


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "FIGBENCH_"))}
    env.update(HF_HUB_OFFLINE="1", HF_DATASETS_CACHE=str(tmp_path / "hf-datasets"),
               HF_MODULES_CACHE=str(tmp_path / "hf-modules"), XDG_CACHE_HOME=str(tmp_path / "xdg"))
    env.update(extra)
    return env


def _isolated(code: str, tmp_path: Path, env: dict[str, str]) -> str:
    """Run ``code`` with ``python -I`` (no cwd, no PYTHONPATH) in ``tmp_path``; return its last stdout line."""
    out = subprocess.run([sys.executable, "-I", "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout.strip().splitlines()[-1]


def _figbench(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "figbench.cli", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)


def test_prepared_dataset_loads_by_bare_name_without_figbench(tmp_path):
    env = _env(tmp_path)
    prep = _figbench(["data", "prepare", "ecbplus", "events", "--data-dir", str(ECB_MINI),
                      "--option", "strict_release=False"], env, tmp_path)
    assert prep.returncode == 0, prep.stderr
    assert "datasets.load_dataset('ecbplus', 'events')" in prep.stdout
    code = """
import json, sys, datasets
dd = datasets.load_dataset("ecbplus", "events", strict_release=False)
assert "figbench" not in sys.modules, "the bare-name load imported figbench"
print(json.dumps({s: list(d["mention_id"]) for s, d in dd.items()}))
"""
    bare = json.loads(_isolated(code, tmp_path, env))
    import figbench

    ours = figbench.load_dataset("ecbplus", "events", data_dir=ECB_MINI, strict_release=False,
                                 cache_dir=str(tmp_path / "other-cache"))
    assert bare == {s: list(d["mention_id"]) for s, d in ours.items()} and bare


def test_bare_name_unprepared_fails_clearly(tmp_path):
    code = """
import datasets
try:
    datasets.load_dataset("ecbmeta", "meta_m")
except Exception as e:
    print(type(e).__name__)
"""
    assert _isolated(code, tmp_path, _env(tmp_path)) in ("ConnectionError", "FileNotFoundError", "DatasetNotFoundError")


@pytest.mark.ci_stage   # a fresh process preparing real ECB+META (20 s): in make test-ci; make test keeps the
# bare-name load in test_prepared_dataset_loads_by_bare_name_without_figbench, real counts in test_ecbmeta_real.py
@pytest.mark.slow
def test_real_ecbmeta_by_bare_name(tmp_path):
    corpus_path("ecbmeta", "ucdcr", "output_data", "all_mentions.parquet")
    root = corpus_path("ecbplus").parent
    env = _env(tmp_path, FIGBENCH_DATA_DIR=str(root))
    prep = _figbench(["data", "prepare", "ecbmeta", "meta_m"], env, tmp_path)
    assert prep.returncode == 0, prep.stderr
    env.pop("FIGBENCH_DATA_DIR")
    code = """
import json, sys, datasets
dd = datasets.load_dataset("ecbmeta", "meta_m")
assert "figbench" not in sys.modules
print(json.dumps({s: len(d) for s, d in dd.items()}))
"""
    sizes = json.loads(_isolated(code, tmp_path, env))
    assert sizes["test"] == 1777 and sizes["validation"] == 1241


def test_cache_key_covers_code_data_and_options(tmp_path, monkeypatch):
    from figbench import loading, paths

    base = loading.cache_hash("ecbplus")
    assert loading.cache_hash("ecbplus") == base
    assert loading.cache_hash("ecbplus", data_dir=tmp_path) != base
    assert loading.cache_hash("ecbplus", config_kwargs={"strict_release": False}) != base
    monkeypatch.setenv("FIGBENCH_DATA_DIR", str(tmp_path))
    assert loading.cache_hash("ecbplus") != base
    monkeypatch.setattr(loading, "code_fingerprint", lambda: "another version of the code")
    assert loading.cache_hash("ecbplus", data_dir=tmp_path) != base
    # the fingerprint reads every figbench and builder source file
    assert len(paths.code_fingerprint()) == 64


def test_code_change_rebuilds_instead_of_serving_stale_data(tmp_path, monkeypatch):
    import figbench
    from figbench import loading

    kwargs = dict(data_dir=ECB_MINI, strict_release=False, cache_dir=str(tmp_path))
    first = loading.load_dataset_builder("ecbplus", "events", **kwargs)
    figbench.load_dataset("ecbplus", "events", split="test", **kwargs)
    monkeypatch.setattr(loading, "code_fingerprint", lambda: "changed")
    second = loading.load_dataset_builder("ecbplus", "events", **kwargs)
    assert first.cache_dir != second.cache_dir
    assert Path(first.cache_dir, "dataset_info.json").is_file()
    assert not Path(second.cache_dir, "dataset_info.json").exists()


@pytest.mark.parametrize("variables", [{"HF_MODULES_CACHE": "m"}, {"HF_HOME": "h"}, {"XDG_CACHE_HOME": "x"}, {}])
def test_metric_modules_go_where_evaluate_looks(tmp_path, monkeypatch, variables):
    """figbench resolves evaluate's modules folder without importing evaluate: the same folder as
    ``evaluate.config`` under each environment rule (evaluate's config re-read under that environment)."""
    import importlib

    import evaluate.config as evaluate_config

    from figbench.metric_modules import evaluate_modules_dir

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for name in ("HF_MODULES_CACHE", "HF_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    for name, sub in variables.items():
        monkeypatch.setenv(name, str(tmp_path / sub))
    try:
        ours = evaluate_modules_dir()
        config = importlib.reload(evaluate_config)
        theirs = Path(config.HF_MODULES_CACHE) / config.MODULE_NAME_FOR_DYNAMIC_MODULES
    finally:
        monkeypatch.undo()
        importlib.reload(evaluate_config)
    assert ours == theirs and (ours / "__init__.py").is_file() and (ours.parent / "__init__.py").is_file()
    assert str(ours).startswith(str(tmp_path))


def test_metrics_load_by_bare_name_without_figbench(tmp_path):
    env = _env(tmp_path)
    del env["HF_MODULES_CACHE"]  # evaluate's default under XDG_CACHE_HOME: install must find the same folder
    r = _figbench(["metrics", "install"], env, tmp_path)
    assert r.returncode == 0, r.stderr
    code = """
import json, sys, evaluate
out = {}
for name in ("conll_coref", "span_f1", "vocab_f1"):
    out[name] = type(evaluate.load(name)).__name__
out["conll_f1"] = evaluate.load("conll_coref").compute(
    predictions=[[["a", "b"], ["c"]]], references=[[["a", "b", "c"]]])["conll_f1"]
print(json.dumps(out))
"""
    got = json.loads(_isolated(code, tmp_path, env))
    from figbench.scoring.coref import evaluate_coref

    assert got["conll_coref"] == "ConllCoref" and got["span_f1"] == "SpanF1" and got["vocab_f1"] == "VocabF1"
    assert got["conll_f1"] == pytest.approx(evaluate_coref([[["a", "b"], ["c"]]], [[["a", "b", "c"]]])["conll_f1"])


def test_metric_space_folder_loads_and_has_space_metadata(tmp_path):
    from huggingface_hub import RepoCard

    target = tmp_path / "conll_coref"
    env = _env(tmp_path)
    r = _figbench(["metrics", "export", "conll_coref", "--to", str(target)], env, tmp_path)
    assert r.returncode == 0, r.stderr
    card = RepoCard.load(target / "README.md")
    assert card.data.sdk == "gradio" and card.data.app_file == "app.py" and "evaluate" in card.data.tags
    assert "figbench" in (target / "requirements.txt").read_text()
    compile((target / "app.py").read_text(), "app.py", "exec")
    import evaluate  # here, not in a fresh process: evaluate's own import is ~10 s (it imports transformers)

    metric = evaluate.load(str(target))
    assert metric.compute(predictions=[[["a", "b"]]], references=[[["a", "b"]]])["conll_f1"] == 1.0


def test_default_data_root_is_printed(tmp_path):
    env = _env(tmp_path)
    r = _figbench(["data", "where", "--json"], env, tmp_path)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["data_root"] == str(tmp_path / "xdg" / "figbench" / "data") and out["from"] == "default"
    assert set(out["corpora"]) >= {"ecbplus", "ecbmeta", "wec_eng", "meta4xnli", "wimcor", "epic"}


def test_import_and_cli_parser_stay_light(tmp_path):
    code = """
import sys, figbench, figbench.cli
figbench.cli.build_parser()
heavy = [m for m in ("datasets", "pandas", "numpy", "torch", "transformers", "evaluate", "gradio", "jsonschema")
         if m in sys.modules]
print(",".join(heavy) or "none")
"""
    assert _isolated(code, tmp_path, _env(tmp_path)) == "none"
