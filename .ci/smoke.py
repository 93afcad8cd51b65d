"""Smoke test of an installed figbench (run by .ci/wheel_smoke.sh with the fresh venv's python, outside
the checkout): README.md's flow in a folder outside the checkout (``figbench baseline run SPEC`` writes
./results/SPEC.json, ``figbench submit results/SPEC.json`` is scored, ``figbench leaderboard space --out
space`` writes a folder whose requirements install offline into another environment, and its app.py prints
its URL and serves the board); then a corpus by bare name, a metric by bare name, a heuristic baseline, a
submission to a store and quickstart without the server; then issue 24's ``figbench generate metaphors`` /
``generate build`` against a scripted OpenAI-compatible server (the checkout's tests/llm_server.py in its own
process) and issue 25's ``figbench harvest wec`` / ``harvest wimcor``, their outputs loaded with ``datasets`` and
the builders. Writes smoke_report.json.

Usage: FIGBENCH_DATA_DIR=<corpora> python .ci/smoke.py WORK_DIR
"""

from __future__ import annotations

import json
import os
import select
import shutil
import socket
import subprocess
import sys
import sysconfig
import time
import urllib.request
from pathlib import Path

WORK = Path(sys.argv[1]).resolve()
SOURCE = Path(os.environ.get("FIGBENCH_SOURCE_ROOT", "")).resolve()
BIN = Path(sys.executable).parent
report: dict = {"steps": {}}


def step(name: str, argv: list[str], *, env: dict | None = None, timeout: int = 900, cwd: Path = WORK,
         stderr: bool = False) -> str:
    t0 = time.perf_counter()
    out = subprocess.run(argv, cwd=cwd, env={**ENV, **(env or {})}, capture_output=True, text=True, timeout=timeout)
    seconds = round(time.perf_counter() - t0, 2)
    report["steps"][name] = {"seconds": seconds, "returncode": out.returncode}
    print(f"[{name}] {seconds:.1f} s, exit {out.returncode}", flush=True)
    if out.returncode != 0:
        print(out.stdout[-3000:], out.stderr[-5000:], sep="\n", file=sys.stderr)
        _write()
        raise SystemExit(f"smoke step {name} failed")
    return out.stdout + (out.stderr if stderr else "")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


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

README_SPEC = "cdec_lh_meta_m_test"


def readme_flow() -> None:
    """README.md's commands, in order, from a folder outside the checkout (relative paths as written there)."""
    user = WORK / "user"
    user.mkdir(parents=True, exist_ok=True)
    figbench = str(BIN / "figbench")
    step("readme: data where", [figbench, "data", "where"], cwd=user)
    step("readme: baseline run", [figbench, "baseline", "run", README_SPEC], cwd=user)
    record = user / "results" / f"{README_SPEC}.json"
    assert record.is_file(), f"figbench baseline run did not write {record}"
    stray = Path(sysconfig.get_paths()["purelib"]) / "results"
    assert not stray.exists(), f"figbench baseline run wrote into the environment: {stray}"
    report["readme_record"] = str(record.relative_to(user))
    report["readme_record_mode"] = oct(record.stat().st_mode & 0o777)
    report["umask"] = oct(_umask())
    report["readme_record_command"] = json.loads(record.read_text("utf-8"))["provenance"]["command"]
    sub = step("readme: submit", [figbench, "submit", f"results/{README_SPEC}.json", "--to", ".figbench/store"],
               cwd=user)
    report["readme_submit_status"] = json.loads(sub)["status"]
    step("readme: leaderboard space", [figbench, "leaderboard", "space", "--out", "space"], cwd=user)
    # the Space folder installs into a truly fresh environment (its own pip, no links to this one's packages)
    # by pip's own resolution from the package index, as a Space does: figbench from the folder's wheel with
    # its [board] extra, no torch, no extra index url (issue 36); then it serves from there
    venv = WORK / "space-venv"
    step("space: venv", [sys.executable, "-m", "venv", str(venv)])
    space_py = venv / "bin" / "python"
    t0 = time.perf_counter()
    step("space: pip install -r requirements.txt", [str(space_py), "-m", "pip", "install", "--quiet",
                                                    "-r", "requirements.txt"], cwd=user / "space", timeout=1800)
    probe = ("import importlib.util, json, subprocess, sys; listed = subprocess.run([sys.executable, '-m', 'pip', "
             "'list', '--format=json'], capture_output=True, text=True).stdout; print(json.dumps({'torch_installed': "
             "importlib.util.find_spec('torch') is not None, 'distributions': len(json.loads(listed))}))")
    fresh = json.loads(step("space: what it installed", [str(space_py), "-c", probe],
                            cwd=user / "space").strip().splitlines()[-1])
    report["space_fresh_install"] = {**fresh, "seconds": round(time.perf_counter() - t0, 1)}
    where = step("space: figbench from its folder", [str(space_py), "-c", "import figbench_leaderboard as m; "
                                                     "print(m.__file__)"], cwd=user / "space")
    assert str(venv) in where, where
    report["space_installed_in"] = where.strip()
    report["space_wheel"] = sorted(p.name for p in (user / "space").glob("figbench-*.whl"))
    report["space_requirements"] = (user / "space" / "requirements.txt").read_text("utf-8").splitlines()
    serve_space(space_py, user / "space", user / ".figbench" / "store")


def serve_space(python: Path, folder: Path, store: Path) -> None:
    """Start the Space's app.py, read the URL it prints, and fetch the page from it."""
    port = free_port()
    app = subprocess.Popen([str(python), "app.py"], cwd=folder,
                           env={**ENV, "GRADIO_SERVER_NAME": "127.0.0.1", "PORT": str(port),
                                "FIGBENCH_LEADERBOARD_STORE": str(store)},
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        t0 = time.perf_counter()
        line = app.stdout.readline().strip()   # app.py prints where it serves once it listens
        report["space_printed"] = line
        url = next((w for w in line.split() if w.startswith("http://")), "")
        died = app.stderr.read() if app.poll() is not None else ""
        assert url == f"http://127.0.0.1:{port}", (line, app.poll(), died)
        direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with direct.open(url + "/", timeout=60) as r:
            page = r.read().decode("utf-8", "replace")
        report["space_start_s"] = round(time.perf_counter() - t0, 1)
        assert "figbench" in page.lower(), page[:500]
    finally:
        app.terminate()
        app.wait(30)


LLM_SERVER = """import sys
sys.path.insert(0, sys.argv[1])
from llm_server import ScriptedLLM
with ScriptedLLM() as srv:
    print(srv.url, flush=True)
    sys.stdin.read()                 # serve until the smoke closes stdin
    print(len(srv.requests), flush=True)
"""
GEN_SPLIT, GEN_SENTENCES = "validation", 4


def generate_smoke() -> None:
    """Paraphrase GEN_SENTENCES sentences of real ECB+ validation, build, load with plain ``datasets``: every
    mention keeps its ECB+ mention_id and cluster_id; the rerun is served from the cache (no request reaches
    the server, counted by the server itself)."""
    tests = SOURCE / "tests"
    assert (tests / "llm_server.py").is_file(), f"no scripted LLM server at {tests}"
    t0 = time.perf_counter()
    srv = subprocess.Popen([sys.executable, "-I", "-c", LLM_SERVER, str(tests)], cwd=WORK, env=ENV, text=True,
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        ready, _, _ = select.select([srv.stdout], [], [], 60)
        url = srv.stdout.readline().strip() if ready else ""
        assert url.startswith("http://127.0.0.1:"), (url, srv.poll())
        out = WORK / "generated meta"  # a space in the path
        shutil.rmtree(out, ignore_errors=True)  # a second smoke in the same folder starts with no cache
        cmd = [str(BIN / "figbench"), "generate", "metaphors", "--dataset", "ecbplus", "--config", "events",
               "--split", GEN_SPLIT, "--style", "multi", "--llm-model", "scripted", "--llm-endpoint", url,
               "--max-sentences", str(GEN_SENTENCES), "--out", str(out), "--no-progress"]
        step("generate metaphors", cmd, timeout=600)
        first = json.loads((out / "generation" / "report.json").read_text("utf-8"))["run"]
        step("generate build", [str(BIN / "figbench"), "generate", "build", str(out)], timeout=600)
        step("generate metaphors (rerun)", cmd, timeout=600)
        again = json.loads((out / "generation" / "report.json").read_text("utf-8"))["run"]
        srv.stdin.close()
        served = int(srv.stdout.readline().strip() or -1)
    finally:
        if srv.poll() is None:
            srv.kill()
        srv.wait(30)
    check = ("import json, sys, datasets\n"
             "out, split = sys.argv[1], sys.argv[2]\n"
             "rows = datasets.load_dataset(out, split=split).to_list()\n"
             "src = datasets.load_dataset('ecbplus', 'events', split=split)\n"
             "want = {r['mention_id']: r['cluster_id'] for r in src}\n"
             "kept = sum(want.get(r['mention_id']) == r['cluster_id'] for r in rows)\n"
             "spans = sum(' '.join(r['sentence'][r['token_start']:r['token_end']]) == r['text'] for r in rows)\n"
             "assert 'figbench' not in sys.modules\n"
             "print(json.dumps({'rows': len(rows), 'ids_and_clusters_kept': kept, 'spans_match_text': spans,\n"
             "                  'clusters': len({r['cluster_id'] for r in rows})}))\n")
    loaded = json.loads(step("generate: datasets.load_dataset", [sys.executable, "-I", "-c", check, str(out),
                                                                 GEN_SPLIT]).strip().splitlines()[-1])
    report["generate"] = {"sentences": first["sentences"], "failed": first["failed"],
                          "requests": first["requests"], "rerun_requests": again["requests"],
                          "rerun_cache_hits": again["cache_hits"], "server_requests": served, **loaded,
                          "seconds": round(time.perf_counter() - t0, 1)}


WIKI_EN = "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2"


def harvest_smoke() -> None:
    """`figbench harvest wec` on the real shortened English dump (the one event infobox type it holds, as an
    edited list), `figbench harvest wimcor` on a dump written by figbench.harvest.synthetic (disambiguation
    pages with metonymic pairs); both outputs loaded with their builders by figbench.load_dataset."""
    t0 = time.perf_counter()
    dump = Path(data) / "wikipedia" / WIKI_EN
    assert dump.is_file(), f"smoke: no shortened English dump at {dump}"
    h = WORK / "harvest"
    shutil.rmtree(h, ignore_errors=True)
    h.mkdir()
    (h / "events.txt").write_text("military conflict\tHISTORICAL_EVENT\n", encoding="utf-8")
    figbench = str(BIN / "figbench")
    step("harvest wec", [figbench, "harvest", "wec", "--dump", str(dump), "--out", "wec-out", "--event-infoboxes",
                         "events.txt", "--min-cluster-size", "1", "--workers", "1", "--quiet"], cwd=h, timeout=600)
    wec = json.loads(step("harvest wec: load", [sys.executable, "-I", "-c",
                          "import json, figbench; dd = figbench.load_dataset('wec_eng', data_dir='wec-out', "
                          "cache_dir='wec-cache'); print(json.dumps({'mentions': sum(len(dd[s]) for s in dd), "
                          "'clusters': sorted({c for s in dd for c in dd[s]['cluster_id']})}))"],
                          cwd=h).strip().splitlines()[-1])
    wec["kept"] = json.loads((h / "wec-out" / "harvest.json").read_text("utf-8"))["kept"]
    step("harvest wimcor: write dump", [sys.executable, "-I", "-c",
                                        "from pathlib import Path; from figbench.harvest import synthetic; "
                                        "synthetic.write_dump(Path('enwiki-20240601-pages-articles-multistream"
                                        ".xml.bz2'), synthetic.synthetic_pages(n_events=4, backlinks=8, n_towns=4,"
                                        " filler=10), pages_per_stream=10); "
                                        "Path('cats.tsv').write_text(synthetic.categories_tsv(4))"], cwd=h)
    step("harvest wimcor", [figbench, "harvest", "wimcor", "--dump", "enwiki-20240601-pages-articles-multistream"
                            ".xml.bz2", "--out", "wimcor-out", "--categories", "cats.tsv", "--workers", "1",
                            "--quiet"], cwd=h, timeout=600)
    wim = json.loads(step("harvest wimcor: load", [sys.executable, "-I", "-c",
                          "import json, figbench; dd = figbench.load_dataset('wimcor', 'sample', data_dir="
                          "'wimcor-out', cache_dir='wimcor-cache'); print(json.dumps({s: len(dd[s]) for s in dd}))"],
                          cwd=h).strip().splitlines()[-1])
    rep = json.loads((h / "wimcor-out" / "harvest.json").read_text("utf-8"))
    report["harvest"] = {"wec": wec, "wimcor": {"rows": wim, "pairs_by_association": rep["pairs_by_association"],
                                                "samples": sum(sum(v.values()) for v in rep["samples"].values())},
                         "seconds": round(time.perf_counter() - t0, 1)}


# 0. the README's flow
readme_flow()

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
qs = step("quickstart", [str(BIN / "figbench"), "quickstart", "--no-serve", "--only", "ecbplus",
                         "--store", str(WORK / "qs-store")], timeout=1800, stderr=True)
# the wheel has no results/: its trained runs are "not in this install", not "not run yet" (they were run)
assert "not run yet" not in qs and "record not in this install" in qs, qs[-2000:]
report["quickstart_trained_runs"] = "record not in this install"
report["quickstart_not_installed_lines"] = sum("record not in this install" in ln for ln in qs.splitlines())
report["quickstart_progress_lines"] = sum(("Generating " in ln and " split" in ln) or "Map:" in ln
                                          for ln in qs.splitlines())

# 6. issue 24: `figbench generate metaphors` on real ECB+ (capped) against a scripted OpenAI-compatible server
#    (tests/llm_server.py, a separate process on 127.0.0.1), `generate build`, plain datasets.load_dataset
generate_smoke()

# 7. issue 25: `figbench harvest wec` on the real shortened English dump, `harvest wimcor` on a written one
harvest_smoke()

report["ok"] = True
_write()
print(json.dumps(report, indent=2))
