"""Smoke test of an installed figbench (run by .ci/wheel_smoke.sh with the fresh venv's python, outside
the checkout): a corpus by bare name, a metric by bare name, a heuristic baseline, a submission to a
store, quickstart without the server, and the Space app serving its page. Writes smoke_report.json.

Usage: FIGBENCH_DATA_DIR=<corpora> python .ci/smoke.py WORK_DIR
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

WORK = Path(sys.argv[1]).resolve()
SOURCE = Path(os.environ.get("FIGBENCH_SOURCE_ROOT", "")).resolve()
BIN = Path(sys.executable).parent
report: dict = {"steps": {}}


def step(name: str, argv: list[str], *, env: dict | None = None, timeout: int = 900, cwd: Path = WORK) -> str:
    t0 = time.perf_counter()
    out = subprocess.run(argv, cwd=cwd, env={**ENV, **(env or {})}, capture_output=True, text=True, timeout=timeout)
    seconds = round(time.perf_counter() - t0, 2)
    report["steps"][name] = {"seconds": seconds, "returncode": out.returncode}
    print(f"[{name}] {seconds:.1f} s, exit {out.returncode}", flush=True)
    if out.returncode != 0:
        print(out.stdout[-3000:], out.stderr[-5000:], sep="\n", file=sys.stderr)
        _write()
        raise SystemExit(f"smoke step {name} failed")
    return out.stdout


def _write() -> None:
    (WORK / "smoke_report.json").write_text(json.dumps(report, indent=2), encoding="utf-8")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "FIGBENCH_SOURCE_ROOT")}
ENV.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TRANSFORMERS_OFFLINE="1", GRADIO_ANALYTICS_ENABLED="False",
           HF_DATASETS_CACHE=str(WORK / "hf-datasets"), HF_MODULES_CACHE=str(WORK / "hf-modules"),
           FIGBENCH_CACHE=str(WORK / "figbench-cache"))
data = os.environ.get("FIGBENCH_DATA_DIR", "")
if not (Path(data) / "ecbplus" / "ECB+").is_dir():
    raise SystemExit(f"smoke: FIGBENCH_DATA_DIR={data!r} has no ecbplus/ECB+ folder; the smoke test needs the corpora")

# 1. the installed package, not the checkout
where = step("import", [sys.executable, "-I", "-c", "import figbench, figbench_datasets.ecbplus.ecbplus as b, "
             "figbench_metrics, figbench_leaderboard; print(figbench.__file__); print(b.__file__)"])
assert "site-packages" in where and (not SOURCE.parts or str(SOURCE) not in where), where
t0 = time.perf_counter()
step("help", [str(BIN / "figbench"), "--help"])
report["figbench_help_s"] = round(time.perf_counter() - t0, 3)

# 2. a corpus: prepared, then loaded by bare name in a process that never imports figbench
step("data prepare", [str(BIN / "figbench"), "data", "prepare", "ecbplus", "events"])
n = step("bare dataset", [sys.executable, "-I", "-c",
                          "import sys, datasets; d = datasets.load_dataset('ecbplus', 'events', split='test'); "
                          "assert 'figbench' not in sys.modules; print(d.num_rows)"])
report["ecbplus_test_mentions"] = int(n.split()[-1])

# 3. a metric by bare name
step("metrics install", [str(BIN / "figbench"), "metrics", "install"])
f1 = step("bare metric", [sys.executable, "-I", "-c",
                          "import evaluate; m = evaluate.load('conll_coref'); print(m.compute("
                          "predictions=[[['a','b'],['c']]], references=[[['a','b','c']]])['conll_f1'])"])
report["conll_f1_example"] = float(f1.split()[-1])

# 4. a heuristic baseline, submitted to a store and scored there
store = WORK / "store"
step("baseline", [str(BIN / "figbench"), "baseline", "cdec", "--dataset", "ecbplus", "--split", "test",
                  "--method", "lemma", "--out", str(WORK / "lemma.json")])
sub = step("submit", [str(BIN / "figbench"), "submit", str(WORK / "lemma.json"), "--to", str(store)])
reply = json.loads(sub)
assert reply["status"] == "FINISHED", reply
report["submitted_conll_f1"] = reply["scores"]["conll_f1"]

# 5. quickstart without the server, on one corpus
step("quickstart", [str(BIN / "figbench"), "quickstart", "--no-serve", "--only", "ecbplus",
                    "--store", str(WORK / "qs-store")], timeout=1800)

# 6. the Space app serving the board from the store
port = free_port()
app = subprocess.Popen([sys.executable, str(WORK / "space" / "app.py")], cwd=WORK / "space",
                       env={**ENV, "GRADIO_SERVER_NAME": "127.0.0.1", "PORT": str(port),
                            "FIGBENCH_LEADERBOARD_STORE": str(store)},
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
try:
    t0, page = time.perf_counter(), ""
    while time.perf_counter() - t0 < 180 and app.poll() is None:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as r:
                page = r.read().decode("utf-8", "replace")
                break
        except OSError:
            time.sleep(1)
    report["space_start_s"] = round(time.perf_counter() - t0, 1)
    assert "figbench" in page.lower(), (
        f"the Space did not serve its page (exit {app.poll()}): {app.stderr.read() if app.poll() is not None else ''}"
    )
finally:
    app.terminate()
    app.wait(30)
report["ok"] = True
_write()
print(json.dumps(report, indent=2))
