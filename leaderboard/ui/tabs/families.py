"""One tab per task family: a table per task, best first, with the unverified toggle and the models-per-task cut."""

import html

from figbench_leaderboard.domain.selection import LEGEND as SELECTION_LEGEND
from figbench_leaderboard.ui import formatting as fmt
from figbench_leaderboard.ui.tabs.page import Opened, Page, error_html
from figbench_leaderboard.ui.task_tables import task_table


def task_tables(page: Page, family: str, show_unverified: bool, top) -> str | tuple[str, ...]:
    """The HTML table of each task of ``family`` (one string for a family of one task)."""
    top_n = None if top == "all" else int(top)

    def build(r, t):
        df = task_table(r, page.registry, t.name, show_unverified=bool(show_unverified), top=top_n)
        return fmt.html_table(df, table_id=f"task-{t.name}-grid", links={"Submission": df["Submission"].tolist()})

    out = [page.view.cached(("task", t.name, bool(show_unverified), top_n), lambda r, t=t: build(r, t))
           for t in page.registry.family_tasks(family)]
    return out[0] if len(out) == 1 else tuple(out)


def build(page: Page) -> list[Opened]:
    """The family tabs' components and events (inside ``gr.Tabs``); each computes its tables when opened."""
    from figbench.imports import gradio

    gr = gradio()

    opened = []
    for fam, title in page.registry.families().items():
        with gr.Tab(title, id=f"family-{fam}") as tab:
            with gr.Row():
                unverified = gr.Checkbox(False, label="Show unverified (self-reported) rows",
                                         elem_id=f"family-{fam}-unverified")
                top = gr.Dropdown(["25", "100", "all"], value="25", label="Models per benchmark",
                                  elem_id=f"family-{fam}-top")
            outs = []
            for t in page.registry.family_tasks(fam):
                gr.Markdown(f"### {html.escape(t.title)}\n{html.escape(t.description)} Percent with 95% "
                            f"bootstrap intervals `[low, high]`; best first. {SELECTION_LEGEND}")
                outs.append(gr.HTML(elem_id=f"task-{t.name}-table", padding=False))
        fn = page.safe(lambda show, k, fam=fam: task_tables(page, fam, show, k),
                       lambda m, n=len(outs): error_html(m) if n == 1 else tuple(error_html(m) for _ in range(n)))
        gr.on([unverified.change, top.change], fn, [unverified, top], outs, trigger_mode="always_last",
              api_visibility="private")   # one listener: redraws in order (see overview.build)
        opened.append(Opened(tab, fn, [unverified, top], outs))
    return opened
