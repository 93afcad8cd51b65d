"""Issue 10 (leaderboard side): the board is driven by the task declarations only.

A synthetic task registered at run time (its own family, benchmark, metrics and a distribution plot,
gold from an in-memory ``datasets`` split) appears on the board — registry, scored submissions, ranked
overview group, its own tab and table, its plot, the About text — without any leaderboard file naming
it; and no leaderboard module names a built-in task or corpus.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from figbench_leaderboard.domain.benchmarks import BenchmarkRegistry
from figbench_leaderboard.scoring.board import Leaderboard, Limits
from figbench_leaderboard.scoring.gold import BuilderGoldProvider, JsonGoldProvider
from figbench_leaderboard.store.sqlite import Store
from figbench_leaderboard.ui import plots, tables, task_tables
from figbench_leaderboard.ui.about_text import about_markdown, readme_sections

import datasets
from figbench.tasks import TASKS, Benchmark, Metric, Plot, benchmarks, register_task, unregister_task
from figbench.tasks.kinds import LabelTask

ROOT = Path(__file__).resolve().parent.parent
KEY = "idiom_literal/idioms_mem/default/test"
IDS = [hashlib.sha256(f"idiom-{i}".encode()).hexdigest()[:10] for i in range(60)]
GOLD_LABELS = ["idiomatic" if i % 3 else "literal" for i in range(60)]


def _split() -> datasets.Dataset:
    features = datasets.Features({"id": datasets.Value("string"),
                                  "label": datasets.ClassLabel(names=["idiomatic", "literal"])})
    return datasets.Dataset.from_dict({"id": IDS, "label": [0 if lab == "idiomatic" else 1 for lab in GOLD_LABELS]},
                                      features=features)


@pytest.fixture()
def idiom_task():
    task = LabelTask(
        name="idiom_literal", order=90, family="idioms", family_title="Idioms", title="Idiom or literal",
        description="Is the potentially idiomatic expression used idiomatically or literally?",
        headline="accuracy",
        metrics=(Metric("accuracy", "Accuracy"), Metric("macro_f1", "Macro F1"), Metric("macro_precision", "Macro P"),
                 Metric("macro_recall", "Macro R"), Metric("micro_f1", "Micro F1"),
                 Metric("micro_precision", "Micro P"), Metric("micro_recall", "Micro R")),
        columns=("accuracy", "macro_f1"),
        benchmarks=(Benchmark("idiom_literal", "idioms_mem", "default", "test", "Idioms (in memory)", "Idioms"),),
        plots=(Plot("distribution", "Idiom accuracy of every submission", "accuracy"),),
        predictions_doc="idiomatic or literal, per example id",
    )
    register_task(task)
    try:
        yield task
    finally:
        unregister_task(task.name)
    assert "idiom_literal" not in TASKS


def _sub(name: str, wrong: int) -> dict:
    preds = {i: lab for i, lab in zip(IDS, GOLD_LABELS)}
    for i in IDS[:wrong]:
        preds[i] = "literal" if preds[i] == "idiomatic" else "idiomatic"
    return {"format": "figbench-predictions/1", "task": "idiom_literal", "dataset": "idioms_mem",
            "config": "default", "split": "test", "model": {"name": name, "type": "other", "parameters": 10**8},
            "predictions": preds}


def test_a_registered_task_appears_on_the_board(idiom_task, tmp_path):
    registry = BenchmarkRegistry()
    assert registry.get(KEY).label == "Idioms (in memory)"
    assert registry.families()["idioms"] == "Idioms" and "Idioms" in registry.groups()
    # gold from an in-memory split through the task's own gold_from_dataset
    board = Leaderboard(Store(tmp_path / "s"), BuilderGoldProvider(loader=lambda b: _split()),
                        registry=registry, limits=Limits(n_resamples=100))
    for name, wrong in (("good-model", 3), ("weak-model", 30)):
        board.submit(_sub(name, wrong))
    assert board.run_pending() == 2
    rows = board.store.board_rows()
    assert {r["model_name"]: round(r["scores"]["accuracy"], 3) for r in rows} == {"good-model": 0.95,
                                                                                   "weak-model": 0.5}
    with pytest.raises(ValueError, match="unknown label 'maybe'"):
        board.submit(_sub("bad", 0) | {"predictions": dict(_sub("x", 0)["predictions"], **{IDS[0]: "maybe"})})
    # overview: its group, ranked
    ov = tables.overview(rows, registry, "Idioms")
    assert ov["Model"].tolist() == ["good-model", "weak-model"] and ov["Rank"].tolist() == [1, 2]
    # its own table with the declared columns (titles)
    table = task_tables.task_table(rows, registry, "idiom_literal")
    assert list(table.columns)[-2:] == ["Accuracy", "Macro F1"] and table.loc[0, "Model"] == "good-model"
    # its plot, from its Plot declaration
    [(task, plot)] = [(t, p) for t, p in plots.declared_plots(registry) if t.name == "idiom_literal"]
    fig = plots.distribution_figure(plots.distribution_frame(rows, registry, task, plot), task, plot)
    assert [tr.name for tr in fig.data] == ["Idioms (in memory)"] and len(fig.data[0].y) == 2
    # About and README sections
    assert "Idiom or literal" in about_markdown(registry) and "`idiom_literal`" in readme_sections(registry)


def test_a_registered_task_is_served_with_its_own_tab(idiom_task, tmp_path):
    """The served app (real Gradio, real HTTP) has the task's tab, table and plot choice."""
    from figbench_leaderboard.screenshots import free_port
    from figbench_leaderboard.ui.app import build_app

    gold = JsonGoldProvider({KEY: {"labels": dict(zip(IDS, GOLD_LABELS)), "label_set": ["idiomatic", "literal"]}})
    board = Leaderboard(Store(tmp_path / "s"), gold, limits=Limits(n_resamples=50))
    board.submit(_sub("served-model", 6))
    board.run_pending()
    demo = build_app(board)
    port = free_port()
    demo.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True, ssr_mode=False)
    try:
        deadline = time.monotonic() + 30
        while True:   # launch() returns once Gradio reached it; a busy machine has refused the next connect once
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/config", timeout=30) as r:
                    config = json.loads(r.read())
                break
            except urllib.error.URLError as e:
                if not isinstance(e.reason, ConnectionRefusedError) or time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
        comps = config["components"]
        labels = {c["props"].get("label") for c in comps if c.get("type") == "tabitem"}
        elem_ids = {c["props"].get("elem_id") for c in comps}
        choices = next(c["props"]["choices"] for c in comps if c["props"].get("elem_id") == "plot-select")
        assert "Idioms" in labels and "task-idiom_literal-table" in elem_ids
        assert ["Idiom accuracy of every submission"] * 2 in [list(ch) for ch in choices]
        # its family table as the tab loads it
        from figbench_leaderboard.ui.board_view import BoardView

        view = BoardView(board)
        frame = task_tables.task_table(view.rows(), board.registry, "idiom_literal")
        assert frame.loc[0, "Model"] == "served-model" and frame.loc[0, "Accuracy"].startswith("90.0 [")
    finally:
        demo.close()


def test_a_task_reusing_a_board_label_is_refused():
    """Benchmark labels are the board's columns: a second benchmark with one of them is refused by name."""
    taken = benchmarks()[0]
    task = LabelTask(name="label_clash", order=91, family="idioms", family_title="Idioms", title="Clash",
                     description="-", headline="accuracy", metrics=(Metric("accuracy", "Accuracy"),),
                     benchmarks=(Benchmark("label_clash", "idioms_mem", "default", "test", taken.label),),
                     predictions_doc="-")
    with pytest.raises(ValueError, match=re.escape(f"label {taken.label!r} of benchmark {taken.key}")):
        register_task(task)
    assert "label_clash" not in TASKS
    labels = [b.label for b in benchmarks()]
    assert len(labels) == len(set(labels))


def test_no_leaderboard_module_names_a_task_or_corpus():
    names = set(TASKS) | {b.dataset for b in benchmarks()} | {b.label for b in benchmarks()}
    pattern = re.compile("|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)))
    offenders = {}
    for path in sorted((ROOT / "leaderboard").rglob("*.py")):
        text = path.read_text()
        hits = sorted({m.group(0) for m in re.finditer(r"[\"']([^\"'\n]*)[\"']", text)
                       if pattern.search(m.group(1)) and not m.group(1).startswith(("http", "figbench"))})
        if hits:
            offenders[str(path.relative_to(ROOT))] = hits
    assert not offenders, offenders


def test_readme_holds_the_generated_sections():
    """leaderboard/README.md's benchmark and predictions tables are the declarations' (regenerate with
    ``python -m figbench_leaderboard.ui.about_text``)."""
    readme = (ROOT / "leaderboard" / "README.md").read_text()
    assert readme_sections(BenchmarkRegistry()) in readme
