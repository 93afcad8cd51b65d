"""The Plots tab: each task's declared plots and score against model size, interactive (Plotly)."""

from dataclasses import dataclass
from typing import Any

from figbench_leaderboard.domain.selection import LEGEND as SELECTION_LEGEND
from figbench_leaderboard.ui import plots
from figbench_leaderboard.ui.tabs.page import Opened, Page

SIZE_PLOT = "Score vs model size"


def plot_figure(page: Page, choice, group, page_no):
    """The figure titled ``choice`` (the size plot of the overview's ``group``; ``page_no``: paired plots' page)."""
    page_no = max(0, int(page_no or 1) - 1)
    if choice == SIZE_PLOT:
        g, df = page.overview_data(group)
        return page.view.cached(("size", g), lambda r: plots.size_figure(df, g))
    found = next(((t, p) for t, p in plots.declared_plots(page.registry) if p.title == choice), None)
    if found is None:
        return plots.empty_figure(str(choice), "choose a plot")
    task, plot = found
    frame = page.view.cached(_frame_key(task, plot), lambda r: _frame(page, r, task, plot))
    if plot.kind == "paired":
        return page.view.cached(("paired-fig", plots.plot_id(task, plot), page_no),
                                lambda r: plots.paired_figure(frame, task, plot, page.registry, page=page_no))
    return page.view.cached(("dist-fig", plots.plot_id(task, plot)),
                            lambda r: plots.distribution_figure(frame, task, plot))


def _frame_key(task, plot) -> tuple[str, str]:
    return ("paired" if plot.kind == "paired" else "dist", plots.plot_id(task, plot))


def _frame(page: Page, revision, task, plot):
    make = plots.paired_frame if plot.kind == "paired" else plots.distribution_frame
    return make(revision, page.registry, task, plot)


def first_plot(page: Page) -> str:
    """The first declared plot that has something to show (the size plot, otherwise)."""
    for task, plot in plots.declared_plots(page.registry):
        if not page.view.cached(_frame_key(task, plot), lambda r, t=task, p=plot: _frame(page, r, t, p)).empty:
            return plot.title
    return SIZE_PLOT


@dataclass
class PlotTab:
    opened: Opened
    default: str   #: the plot shown first


def build(page: Page, group: Any) -> PlotTab:
    """The tab's components and events (inside ``gr.Tabs``); ``group``: the overview's group selector."""
    from figbench.imports import gradio

    gr = gradio()

    choices = [p.title for _, p in plots.declared_plots(page.registry)] + [SIZE_PLOT]
    default = first_plot(page)
    with gr.Tab("Plots", id="plots") as tab:
        with gr.Row():
            choice = gr.Dropdown(choices, value=default, label="Plot", elem_id="plot-select", scale=3)
            page_no = gr.Number(1, label="Page (50 models each)", precision=0, minimum=1, elem_id="plot-page",
                                scale=1)
        figure = gr.Plot(label="plot", elem_id="board-plot", show_label=False)
        gr.Markdown("Hover for values, drag to zoom, double-click to reset; click a point to open its "
                    f"submission. {SELECTION_LEGEND}", elem_classes=["fb-note"])

    def plot_view(choice, group, page_no):
        return plot_figure(page, choice, group, page_no)

    view = page.safe(plot_view, lambda m: plots.empty_figure("Plot unavailable", m))
    gr.on([choice.change, page_no.change], view, [choice, group, page_no], figure, trigger_mode="always_last",
          api_visibility="private")   # one listener: redraws in order (see overview.build)
    return PlotTab(Opened(tab, view, [choice, group, page_no], [figure]), default)
