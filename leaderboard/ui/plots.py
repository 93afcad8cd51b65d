"""Interactive Plotly figures from the tasks' ``Plot`` declarations (hover, zoom, click to a submission).

* ``paired``: per model, the metric on the plot's first benchmark (x) against each other benchmark (y),
  with the diagonal: points below it lose on the second benchmark (e.g. the robustness drop from ECB+
  to ECB+META). Paginated: ``top`` models at a time, ranked by x.
* ``distribution``: per benchmark, a box of the metric over every model's latest verified submission
  (aggregated: at 5,000 submissions it is still a handful of boxes).
* score vs size: the overview's group average against the parameter count (log scale).

Names are inert text (:func:`figbench_leaderboard.ui.formatting.plot_text`); each point carries its submission
id in ``customdata`` (last item), which the page's script turns into a link to the detail view. A test-informed
submission's values carry :data:`~figbench.results.TEST_INFORMED` in the hover text (``customdata``), as in the
tables.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd
from figbench_leaderboard.domain.benchmarks import BenchmarkRegistry
from figbench_leaderboard.domain.selection import mark, marked, row_test_informed
from figbench_leaderboard.ui import formatting as fmt
from figbench_leaderboard.ui.tables import TI, latest_finished

from figbench.tasks import Plot, Task

PAIRED_COLUMNS = ["Model", "x", "Benchmark", "y", "Submission", "x" + TI, "y" + TI]
FONT = "ui-sans-serif, system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif"
HEIGHT = 480


def declared_plots(registry: BenchmarkRegistry) -> list[tuple[Task, Plot]]:
    """Every (task, plot) declared by the tasks on the board, in display order."""
    return [(t, p) for t in registry.tasks.values() for p in t.plots]


def plot_id(task: Task, plot: Plot) -> str:
    return f"{task.name}:{plot.kind}:{plot.metric}:{plot.title}"


def _latest(rows: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str, str], Mapping[str, Any]]:
    return {(n, rev, key): r for (n, rev, verified, key), r in latest_finished(rows).items() if verified}


def _model(name: str, rev: str) -> str:
    return f"{name}@{rev}" if rev else name


def paired_frame(rows: Iterable[Mapping[str, Any]], registry: BenchmarkRegistry, task: Task,
                 plot: Plot) -> pd.DataFrame:
    """Long format: Model, x (metric on the first benchmark), Benchmark, y, Submission (of y), percent; ``x``/``y
    test-informed``: whether that value's submission is test-informed."""
    keys = [k for k in plot.benchmarks if registry.has(k)] or [b.key for b in registry.task_benchmarks(task.name)]
    if len(keys) < 2:
        return pd.DataFrame(columns=PAIRED_COLUMNS)
    latest = _latest(rows)
    by_model: dict[str, dict[str, Mapping[str, Any]]] = {}
    for (name, rev, key), r in latest.items():
        if key in keys and r["scores"].get(plot.metric) is not None:
            by_model.setdefault(_model(name, rev), {})[key] = r
    recs = []
    for model, subs in by_model.items():
        if keys[0] not in subs:
            continue
        x = 100 * subs[keys[0]]["scores"][plot.metric]
        for k in keys[1:]:
            if k in subs:
                recs.append({"Model": model, "x": x, "Benchmark": registry.get(k).label,
                             "y": 100 * subs[k]["scores"][plot.metric], "Submission": subs[k]["id"],
                             "x" + TI: row_test_informed(subs[keys[0]]), "y" + TI: row_test_informed(subs[k])})
    return pd.DataFrame.from_records(recs, columns=PAIRED_COLUMNS)


def distribution_frame(rows: Iterable[Mapping[str, Any]], registry: BenchmarkRegistry, task: Task,
                       plot: Plot) -> pd.DataFrame:
    """Long format: Benchmark, Model, value (percent), Submission, ``value test-informed``; latest verified per
    model."""
    keys = [k for k in plot.benchmarks if registry.has(k)] or [b.key for b in registry.task_benchmarks(task.name)]
    recs = [{"Benchmark": registry.get(key).label, "Model": _model(name, rev),
             "value": 100 * r["scores"][plot.metric], "Submission": r["id"], "value" + TI: row_test_informed(r)}
            for (name, rev, key), r in _latest(rows).items()
            if key in keys and r["scores"].get(plot.metric) is not None]
    df = pd.DataFrame.from_records(recs, columns=["Benchmark", "Model", "value", "Submission", "value" + TI])
    order = {registry.get(k).label: i for i, k in enumerate(keys)}
    return df.assign(_o=df["Benchmark"].map(order)).sort_values(["_o", "value"], ascending=[True, False]) \
        .drop(columns="_o").reset_index(drop=True)


def _layout(fig, title: str, x: str, y: str) -> None:
    fig.update_layout(title={"text": fmt.plot_text(title, 120), "x": 0.01}, template="plotly_white", height=HEIGHT,
                      font={"family": FONT, "size": 13}, margin={"l": 60, "r": 20, "t": 60, "b": 60},
                      legend={"orientation": "h", "y": -0.18}, hovermode="closest")
    fig.update_xaxes(title_text=x)
    fig.update_yaxes(title_text=y)


def empty_figure(title: str, message: str):
    """A blank figure titled ``title`` that says ``message`` (no data, an unknown choice, a failed plot)."""
    import plotly.graph_objects as go

    fig = go.Figure()
    _layout(fig, title, "", "")
    fig.add_annotation(text=fmt.plot_text(message, 200), showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper",
                       font={"size": 15})
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    return fig


def paired_figure(frame: pd.DataFrame, task: Task, plot: Plot, registry: BenchmarkRegistry, *, top: int = 50,
                  page: int = 0):
    """Scatter of the second benchmark(s) against the first, one point per model, with the diagonal."""
    import plotly.graph_objects as go

    keys = [k for k in plot.benchmarks if registry.has(k)]
    first = registry.get(keys[0]).label if keys else ""
    metric = task.metric(plot.metric).title
    if frame.empty:
        return empty_figure(plot.title, f"no models with {metric} on {first} and another benchmark of this plot yet")
    models = frame.groupby("Model")["x"].first().sort_values(ascending=False)
    n_pages = max(1, -(-len(models) // top))
    page = min(max(page, 0), n_pages - 1)
    chosen = set(models.index[page * top:(page + 1) * top])
    d = frame[frame["Model"].isin(chosen)]
    fig = go.Figure()
    lo, hi = float(d["x"].min()), float(d["x"].max())
    pad = max(0.5, (hi - lo) * 0.05)
    fig.add_trace(go.Scatter(x=[lo - pad, hi + pad], y=[lo - pad, hi + pad], mode="lines", name="no change",
                             line={"dash": "dot", "color": "#999"}, hoverinfo="skip"))
    for bench, g in d.groupby("Benchmark", sort=False):
        custom = [[fmt.plot_text(m), marked(f"{x - y:+.1f}", xt or yt), mark(xt), mark(yt), sid]
                  for m, x, y, xt, yt, sid in zip(g["Model"], g["x"], g["y"], g["x" + TI], g["y" + TI],
                                                  g["Submission"])]
        fig.add_trace(go.Scatter(
            x=g["x"], y=g["y"], mode="markers", name=fmt.plot_text(bench), customdata=custom, marker={"size": 10},
            hovertemplate=f"%{{customdata[0]}}<br>{fmt.plot_text(first)}: %{{x:.1f}}%{{customdata[2]}}<br>"
                          f"{fmt.plot_text(bench)}: %{{y:.1f}}%{{customdata[3]}} (drop %{{customdata[1]}})"
                          "<extra></extra>"))
    suffix = f" — models {page * top + 1}–{min((page + 1) * top, len(models))} of {len(models)}" \
        if n_pages > 1 else ""
    _layout(fig, plot.title + suffix, f"{metric} on {first}", f"{metric} on the other benchmark")
    return fig


def distribution_figure(frame: pd.DataFrame, task: Task, plot: Plot):
    """A box per benchmark (all points when few, outliers only when many)."""
    import plotly.graph_objects as go

    metric = task.metric(plot.metric).title
    if frame.empty:
        return empty_figure(plot.title, f"no verified submissions with {metric} yet")
    fig = go.Figure()
    for bench, g in frame.groupby("Benchmark", sort=False):
        custom = [[fmt.plot_text(m), mark(t), sid] for m, t, sid in zip(g["Model"], g["value" + TI], g["Submission"])]
        fig.add_trace(go.Box(y=g["value"], name=fmt.plot_text(bench), customdata=custom,
                             boxpoints="all" if len(g) <= 60 else "outliers", jitter=0.4, pointpos=0,
                             hovertemplate="%{customdata[0]}<br>%{y:.1f}%{customdata[1]}<extra></extra>"))
    _layout(fig, plot.title, "", f"{metric} (percent)")
    fig.update_layout(showlegend=False)
    return fig


def size_figure(ov: pd.DataFrame, group: str, *, label_top: int = 10):
    """The group average against the parameter count (log x), coloured by model type; the best labelled."""
    import plotly.graph_objects as go

    title = f"Score vs model size ({group} average)"
    d = ov[(ov["Verified"] == "yes") & ov["Average"].notna() & ov["Parameters"].notna()] if not ov.empty else ov
    d = d[d["Parameters"].astype(float) > 0] if not d.empty else d
    if d.empty:
        return empty_figure(title, "no ranked models with a parameter count in this group yet")
    sid_col = [c for c in d.columns if c.endswith(" id")]
    best = set(d.sort_values("Average", ascending=False)["Model"].head(label_top))
    fig = go.Figure()
    for mtype, g in d.groupby("Type", sort=True):
        sids = [next((r[c] for c in sid_col if isinstance(r[c], str)), "") for _, r in g.iterrows()]
        custom = [[fmt.plot_text(m), fmt.params(p), mark(t), sid]
                  for m, p, t, sid in zip(g["Model"], g["Parameters"], g["Average" + TI], sids)]
        fig.add_trace(go.Scatter(
            x=g["Parameters"].astype(float), y=g["Average"], mode="markers+text", name=fmt.plot_text(mtype),
            text=[fmt.plot_text(m, 28) if m in best else "" for m in g["Model"]], textposition="top center",
            customdata=custom, marker={"size": 10},
            hovertemplate="%{customdata[0]}<br>%{customdata[1]} parameters<br>average %{y:.1f}%{customdata[2]}"
                          "<extra></extra>"))
    _layout(fig, title, "parameters (log scale)", "group average (percent)")
    fig.update_xaxes(type="log")
    return fig
