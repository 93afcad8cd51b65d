"""Smoke test of figbench's core install (``pip install figbench``, no extra), run by .ci/wheel_smoke.sh with the
core-only venv's python, outside the checkout: the core brings none of the board, the harvester, the trainers or
the harnesses; a corpus prepared and loaded by bare name, a metric by bare name, ``figbench score coref``; a
command of an extra says in one line which extra to install. Writes core_report.json.

Usage: FIGBENCH_DATA_DIR=<corpora> python .ci/core_smoke.py WORK_DIR
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

WORK = Path(sys.argv[1]).resolve() / "core"
SOURCE = Path(os.environ.get("FIGBENCH_SOURCE_ROOT", "")).resolve()
FIGBENCH = str(Path(sys.executable).parent / "figbench")
ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "FIGBENCH_SOURCE_ROOT")}
ENV.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", HF_DATASETS_CACHE=str(WORK / "hf-datasets"),
           HF_MODULES_CACHE=str(WORK / "hf-modules"), FIGBENCH_CACHE=str(WORK / "figbench-cache"))
report: dict = {}


def run(name: str, argv: list[str], *, expect: int = 0) -> subprocess.CompletedProcess:
    out = subprocess.run(argv, cwd=WORK, env=ENV, capture_output=True, text=True, timeout=900)
    print(f"[core: {name}] exit {out.returncode}", flush=True)
    if out.returncode != expect:
        print(out.stdout[-3000:], out.stderr[-3000:], sep="\n", file=sys.stderr)
        raise SystemExit(f"core smoke step {name} exited {out.returncode}, expected {expect}")
    return out


WORK.mkdir(parents=True, exist_ok=True)
report["absent_modules"] = [m for m in ("torch", "transformers", "accelerate", "faiss", "gradio", "dask", "icu",
                                        "lm_eval", "mteb") if importlib.util.find_spec(m) is None]
run("data prepare", [FIGBENCH, "data", "prepare", "ecbplus", "events"])
bare = run("bare dataset", [sys.executable, "-I", "-c",
                            "import sys, datasets; d = datasets.load_dataset('ecbplus', 'events', split='test'); "
                            "assert 'figbench' not in sys.modules; print(d.num_rows)"])
report["ecbplus_test_mentions"] = int(bare.stdout.split()[-1])
run("metrics install", [FIGBENCH, "metrics", "install"])
metric = run("bare metric", [sys.executable, "-I", "-c",
                             "import evaluate; m = evaluate.load('conll_coref'); print(m.compute(predictions="
                             "[[['a','b'],['c']]], references=[[['a','b','c']]])['conll_f1'])"])
report["conll_f1_example"] = float(metric.stdout.split()[-1])
fixtures = SOURCE / "tests" / "fixtures" / "coref"
score = run("score coref", [FIGBENCH, "score", "coref", str(fixtures / "nested.key.conll"),
                            str(fixtures / "nested.response.conll"), "--json", "--n-resamples", "0"])
report["score_coref_conll_f1"] = json.loads(score.stdout)["conll_f1"]
missing = {}
for extra, argv in (("baselines", ["baseline", "cdec", "--dataset", "ecbplus", "--split", "test", "--method", "lh"]),
                    ("board", ["leaderboard", "list", "--store", "store"])):
    err = run(f"{extra} command without its extra", [FIGBENCH, *argv], expect=1).stderr.strip().splitlines()
    missing[extra] = err
report["missing_extra_messages"] = missing
(WORK / "core_report.json").write_text(json.dumps(report, indent=2), encoding="utf-8")
print(json.dumps(report, indent=2))
