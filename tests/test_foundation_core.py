"""Shared schema, bootstrap, paths, builder registration and the CLI skeleton."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from figbench.bootstrap import bootstrap_ci
from figbench.corpora.files import MissingDataError, RemoteFile, resolve
from figbench.paths import corpus_dir
from figbench.schema import (
    COREF_MENTION_FEATURES,
    Mention,
    assignments_from_clusters,
    clusters_from_assignments,
    gold_clusters,
)

ROOT = Path(__file__).resolve().parent.parent


def test_clusters_from_rows():
    rows = [
        {"mention_id": "m1", "cluster_id": "c1", "topic": "1"},
        {"mention_id": "m2", "cluster_id": "c2", "topic": "1"},
        {"mention_id": "m3", "cluster_id": "c1", "topic": "2"},
    ]
    assert gold_clusters(rows) == [[["m1", "m3"], ["m2"]]]
    assert gold_clusters(rows, by="topic") == [[["m1"], ["m2"]], [["m3"]]]
    assert clusters_from_assignments(["a", "b"], [1, 1]) == [["a", "b"]]
    assert assignments_from_clusters([["a", "b"], ["c"]]) == {"a": 0, "b": 0, "c": 1}
    with pytest.raises(ValueError):
        clusters_from_assignments(["a", "b"], [1])


def test_mention_roundtrip_matches_features():
    m = Mention("m1", "1_1ecb", "1", "1_ecb", 3, 2, 4, "shot dead", "shot", "shoot", "VERB", "event",
                "ACTION_OCCURRENCE", "c1", ("He", "was", "shot", "dead"), ("He", "was", "shot", "dead"), 2, 4)
    row = m.to_row()
    assert set(row) == set(COREF_MENTION_FEATURES)
    assert Mention.from_row(row) == m
    with pytest.raises(ValueError, match="m1"):
        Mention.from_row({"mention_id": "m1"})


def test_bootstrap_mean_interval_covers_truth():
    values = np.random.default_rng(0).normal(0.5, 0.1, size=400)
    ci = bootstrap_ci(len(values), lambda idx: {"mean": values[idx].mean()}, n_resamples=300, seed=1)
    assert ci["mean"]["low"] < 0.5 < ci["mean"]["high"]
    assert ci["mean"]["high"] - ci["mean"]["low"] < 0.05
    # deterministic for a seed
    again = bootstrap_ci(len(values), lambda idx: {"mean": values[idx].mean()}, n_resamples=300, seed=1)
    assert again == ci
    with pytest.raises(ValueError):
        bootstrap_ci(0, lambda idx: {})


def test_a_search_path_of_data_roots(tmp_path, monkeypatch):
    """A new corpus in another root does not hide the corpora of the first (issue 23)."""
    import os

    from figbench.paths import data_roots

    a, b = tmp_path / "a", tmp_path / "b"
    (a / "idioms").mkdir(parents=True)
    (b / "epic").mkdir(parents=True)
    monkeypatch.setenv("FIGBENCH_DATA_DIR", f"{a}{os.pathsep}{b}")
    assert data_roots() == [a, b]
    assert corpus_dir("epic") == b / "epic" and corpus_dir("idioms") == a / "idioms"
    assert corpus_dir("wimcor") == a / "wimcor"   # in no root: looked for (and fetched) in the first
    monkeypatch.delenv("FIGBENCH_DATA_DIR")
    assert corpus_dir("epic", f"{a}{os.pathsep}{b}") == b / "epic"   # --data-dir: the same meaning
    assert corpus_dir("epic", b) == b / "epic"
    # a corpus folder that nests a folder of its own name (Meta4XNLI's release does) is the corpus folder
    (b / "meta4xnli" / "cometa").mkdir(parents=True)
    (b / "meta4xnli" / "cometa" / "cometa_test.tsv").write_text("x")
    (b / "meta4xnli" / "meta4xnli").mkdir()
    assert corpus_dir("meta4xnli", b / "meta4xnli") == b / "meta4xnli" == corpus_dir("meta4xnli", b)


def test_corpus_dir_and_missing_files(tmp_path, monkeypatch):
    monkeypatch.setenv("FIGBENCH_DATA_DIR", str(tmp_path))
    assert corpus_dir("epic") == tmp_path / "epic"
    # --data-dir / data_dir= is a data root (or a search path of roots), as $FIGBENCH_DATA_DIR is
    assert corpus_dir("epic", tmp_path / "x") == tmp_path / "x" / "epic"
    assert corpus_dir("epic", tmp_path / "epic") == tmp_path / "epic"   # the corpus folder itself: as before
    (tmp_path / "layout" / "val").mkdir(parents=True)   # a corpus folder in another layout, any name: as before
    assert corpus_dir("wec_eng", tmp_path / "layout") == tmp_path / "layout"
    (tmp_path / "a.txt").write_text("a")
    with pytest.raises(MissingDataError) as e:
        resolve("epic", tmp_path, [RemoteFile(p, f"https://example.org/{p}") for p in ("a.txt", "b.txt", "c/d.json")],
                download=False)
    assert "b.txt" in str(e.value) and "d.json" in str(e.value) and "a.txt" not in str(e.value)


def test_datasets_folder_does_not_shadow_library():
    out = subprocess.run([sys.executable, "-c", "import datasets; print(datasets.__file__)"],
                         cwd=ROOT, capture_output=True, text=True, check=True)
    assert "site-packages" in out.stdout
    assert not (ROOT / "datasets" / "__init__.py").exists()


def test_import_figbench_changes_nothing_in_datasets(tmp_path):
    """No hook: importing figbench (and loading through it) leaves how `datasets` resolves names alone."""
    code = """
import json, datasets
from datasets import packaged_modules
before = dict(packaged_modules._PACKAGED_DATASETS_MODULES)
import figbench, figbench.loading
figbench.loading.builder_class("ecbplus")
assert dict(packaged_modules._PACKAGED_DATASETS_MODULES) == before
ds = datasets.load_dataset("epic", split="train")   # the local folder named epic, not figbench's corpus
print(json.dumps(ds[0]))
"""
    (tmp_path / "epic").mkdir()
    (tmp_path / "epic" / "rows.json").write_text('{"x": 1}\n', encoding="utf-8")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_CACHE": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == '{"x": 1}'


def test_cli_help_everywhere():
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    top = subprocess.run([sys.executable, "-m", "figbench.cli", "--help"], capture_output=True, text=True,
                         env=env, check=True)
    commands = [c for c in ("metrics", "score", "data", "baseline", "submit", "leaderboard") if c in top.stdout]
    assert "metrics" in commands
    for cmd in commands:
        r = subprocess.run([sys.executable, "-m", "figbench.cli", cmd, "--help"], capture_output=True,
                           text=True, env=env)
        assert r.returncode == 0 and "usage" in r.stdout, (cmd, r.stderr)


def test_metric_paths():
    import figbench

    with pytest.raises(ValueError, match="unknown figbench metric"):
        figbench.metric_path("nope")


def test_spacy_is_imported_without_torch_and_still_tags():
    """figbench.imports.spacy: spaCy in a fresh process (a harvest's Dask worker, `figbench data prepare`) without
    thinc's torch import; the NER model still tags and torch still imports afterwards."""
    code = """
import json, sys
from figbench.imports import spacy
from figbench.harvest.wec import ner_pipeline
sp = spacy()
import thinc.compat
out = {"torch": "torch" in sys.modules, "has_torch": thinc.compat.has_torch, "same": spacy() is sp}
nlp = ner_pipeline(None, "en")
out["ents"] = [(e.text, e.label_) for e in nlp("Barack Obama visited Paris in 2009.").ents] if nlp else None
import torch
out["torch_after"] = torch.tensor([1]).tolist()
print(json.dumps(out))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["torch"] is False and got["has_torch"] is False and got["same"] and got["torch_after"] == [1]
    assert got["ents"] is None or ("Paris", "GPE") in [tuple(e) for e in got["ents"]]


def test_torch_is_hidden_from_the_spacy_import_only():
    """Another thread that imports torch while figbench.imports.spacy() runs gets torch (the hiding finder answers
    only the thread importing spaCy), and a thread asking for spaCy meanwhile gets the whole module."""
    code = """
import json, sys, threading, time
from figbench.imports import _HiddenFrom, spacy
got = {}
a = threading.Thread(target=lambda: got.setdefault("a", spacy()))
a.start()
t0 = time.time()
while not any(isinstance(f, _HiddenFrom) for f in sys.meta_path) and time.time() - t0 < 60:
    time.sleep(0.001)
seen = any(isinstance(f, _HiddenFrom) for f in sys.meta_path)
import torch
b = spacy()
a.join()
print(json.dumps({"seen": seen, "torch": torch.tensor([2]).tolist(), "whole": hasattr(b, "blank"),
                  "same": got["a"] is b, "finders_left": sum(isinstance(f, _HiddenFrom) for f in sys.meta_path)}))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got == {"seen": True, "torch": [2], "whole": True, "same": True, "finders_left": 0}


def test_gradio_is_imported_without_rewriting_its_stubs():
    """figbench.imports.gradio: Gradio's component classes are made without reading their source to regenerate
    the ``.pyi`` stubs (about 2 s of each board start); the components still work and inspect is left as it was."""
    code = """
import inspect, json, pathlib
getfile, read_text, reads = inspect.getfile, pathlib.Path.read_text, []
def counted(self, *a, **k):
    reads.append(str(self))
    return read_text(self, *a, **k)
pathlib.Path.read_text = counted
from figbench.imports import gradio
gr = gradio()
pathlib.Path.read_text = read_text
with gr.Blocks() as demo:
    box = gr.Textbox(label="name")
print(json.dumps({"component_reads": [r for r in reads if "/gradio/components/" in r],
                  "restored": inspect.getfile is getfile, "same": gradio() is gr,
                  "label": box.label, "file": inspect.getfile(gr.Textbox)}))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["component_reads"] == [] and got["restored"] and got["same"] and got["label"] == "name"
    assert got["file"].endswith("gradio/components/textbox.py")
