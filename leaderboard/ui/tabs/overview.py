"""The Overview tab: the group selector, the ranked table with the "All models" toggle, filters and downloads."""

import html
from dataclasses import dataclass
from typing import Any

from figbench_leaderboard.domain.selection import LEGEND as SELECTION_LEGEND
from figbench_leaderboard.ui import formatting as fmt
from figbench_leaderboard.ui import tables
from figbench_leaderboard.ui.about_text import gold_legend
from figbench_leaderboard.ui.tabs.page import Opened, Page, error_html

from figbench.results import MODEL_TYPES

OVERVIEW_EXTRA = ["Revision", "Benchmarks", "Verified"]


def overview_html(page: Page, group, search, types, sizes, show_unverified, columns, sort_by, descending, limit,
                  all_models=False) -> str:
    """The table of ``group`` (its models only, unless ``all_models``), filtered, sorted and cut to ``limit``."""
    group, df = page.overview_data(group)
    shown_rows = df if all_models else tables.in_group(df, page.registry, group)
    hidden = len(df) - len(shown_rows)
    df = tables.filter_table(shown_rows, search=search, types=types, sizes=sizes, sort_by=sort_by or "Rank",
                             descending=descending == "descending", show_unverified=bool(show_unverified))
    shown = [c for c in (columns or []) if c in page.labels]
    extra = [c for c in (columns or []) if c in OVERVIEW_EXTRA]
    disp = tables.display_overview(df, shown, extra=extra, limit=None if limit == "all" else int(limit))
    links = {lab: df[lab + tables.SID].head(len(disp)).tolist() for lab in shown}
    note = (f'<p class="fb-note" id="overview-hidden">{hidden} model{"s" if hidden != 1 else ""} without a '
            f'benchmark of {html.escape(group)} not shown; tick "All models" to list them.</p>' if hidden else "")
    return fmt.html_table(disp, table_id="overview-grid", links=links,
                          empty="No model matches; change the group, the search or the filters.") + note


def default_controls(page: Page) -> tuple:
    """The controls' values as the page opens (the arguments of :func:`overview_html`)."""
    return (page.first_group, "", list(MODEL_TYPES), list(tables.SIZE_BINS), False, page.members(page.first_group),
            "Rank", "descending", "100")


def download(page: Page, kind: str, *controls):
    """The filtered overview (all its rows) as a CSV or JSON file to download."""
    from figbench.imports import gradio

    gr = gradio()

    _, df = page.overview_data(controls[0])
    search, types, sizes, show_unverified = controls[1:5]
    df = tables.filter_table(df, search=search, types=types, sizes=sizes, show_unverified=bool(show_unverified))
    out = page.downloads.path(f".{kind}")
    data = tables.download_frame(df, page.registry)
    if kind == "csv":
        data.to_csv(out, index=False)
    else:
        data.to_json(out, orient="records", indent=2, force_ascii=False)
    return gr.File(value=str(out), visible=True)


@dataclass
class OverviewTab:
    opened: Opened
    group: Any     #: the group selector (the Plots tab's size plot follows it)
    table: Any
    view: Any      #: the safe :func:`overview_html` of this page, (*controls) -> HTML


def build(page: Page) -> OverviewTab:
    """The tab's components and events (inside ``gr.Tabs``)."""
    from figbench.imports import gradio

    gr = gradio()

    first = page.first_group
    with gr.Tab("Overview", id="overview") as tab:
        with gr.Row(equal_height=True):
            group = gr.Dropdown(page.groups, value=first, label="Benchmark group (averaged and ranked)",
                                elem_id="group-select", scale=2)
            search = gr.Textbox(label="Search models", placeholder="name; another name", elem_id="search-box",
                                scale=3)
            all_models = gr.Checkbox(False, label="All models", elem_id="show-all-models", scale=1,
                                     info="also those without a benchmark of the group")
        table = gr.HTML(elem_id="overview-table", padding=False)
        gr.Markdown("Percent with 95% bootstrap intervals; `=2` marks a tie (overlapping intervals). Only "
                    "models with every benchmark of the group are ranked; self-reported rows never are. "
                    f"{SELECTION_LEGEND} (An average is marked when one of its scores is.)",
                    elem_classes=["fb-note"])
        with gr.Accordion("Public and hidden gold", open=True, elem_id="gold-legend"):
            gr.Markdown(gold_legend(page.registry))
        with gr.Accordion("Filters, columns and sorting", open=False, elem_id="filters"):
            with gr.Row():
                types = gr.CheckboxGroup(list(MODEL_TYPES), value=list(MODEL_TYPES), label="Model type",
                                         elem_id="type-filter")
                sizes = gr.CheckboxGroup(list(tables.SIZE_BINS), value=list(tables.SIZE_BINS),
                                         label="Model size", elem_id="size-filter")
                show_unverified = gr.Checkbox(False, label="Show unverified (self-reported) rows",
                                              elem_id="show-unverified")
            columns = gr.CheckboxGroup(page.labels + OVERVIEW_EXTRA, value=page.members(first),
                                       label="Columns", elem_id="column-select")
            with gr.Row():
                sort_by = gr.Dropdown(["Rank", "Average", "Model", "Parameters"] + page.labels, value="Rank",
                                      label="Sort by", elem_id="sort-by")
                descending = gr.Radio(["descending", "ascending"], value="descending", label="Order",
                                      elem_id="sort-order")
                limit = gr.Dropdown(["50", "100", "200", "all"], value="100", label="Rows shown",
                                    elem_id="row-limit")
        with gr.Row():
            csv_btn = gr.Button("Download CSV", elem_id="download-csv", size="sm")
            json_btn = gr.Button("Download JSON", elem_id="download-json", size="sm")
        dl = gr.File(label="Download", interactive=False, elem_id="download-file", visible=False)
        controls = [group, search, types, sizes, show_unverified, columns, sort_by, descending, limit, all_models]

        def overview_view(*values):
            return overview_html(page, *values)

        view = page.safe(overview_view, error_html)
        # a new group shows its own benchmark columns (whose change redraws)
        group.change(lambda g: gr.CheckboxGroup(value=page.members(g if g in page.groups else first)),
                     group, columns, api_visibility="private")
        # one listener for every other control: a change while a redraw is pending waits for it and then redraws
        # with the latest values (always_last); a listener per control let two redraws run at once and the older
        # one land last (sorting by Model, then ascending, showed the descending table)
        gr.on([c.change for c in controls if c is not group], view, controls, table, trigger_mode="always_last",
              api_visibility="private")
        csv_btn.click(lambda *a: download(page, "csv", *a), controls, dl, api_visibility="private")
        json_btn.click(lambda *a: download(page, "json", *a), controls, dl, api_visibility="private")
    return OverviewTab(Opened(tab), group, table, view)
