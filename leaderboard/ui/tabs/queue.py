"""The Queue tab: submissions newest first, a page at a time, refreshed every 5 s while shown (and only when the
store changed)."""

from dataclasses import dataclass
from typing import Any

from figbench_leaderboard.ui import formatting as fmt
from figbench_leaderboard.ui import submission_tables
from figbench_leaderboard.ui.tabs.page import Opened, Page

QUEUE_PAGE = 50
STATUSES = ("PENDING", "RUNNING", "FINISHED", "FAILED")


def queue_html(page: Page, status, page_no) -> tuple[str, str, Any]:
    """``(table HTML, counts by status, the store revision shown)``."""
    page_no = max(0, int(page_no or 1) - 1)
    store = page.board.store
    rows = store.queue_page(limit=QUEUE_PAGE, offset=page_no * QUEUE_PAGE, status=None if status == "all" else status)
    counts = store.status_counts()
    summary = " · ".join(f"{s}: {counts.get(s, 0):,}" for s in STATUSES)
    df = submission_tables.queue_table(rows, page.registry, newest_first=True)
    return (fmt.html_table(df, table_id="queue-grid", links={"Submission": df["Submission"].tolist()},
                           empty="No submissions."), summary, page.view.revision())


def queue_refresh(page: Page, status, page_no, seen_rev):
    """The timer's refresh: nothing sent when the store is still at ``seen_rev``."""
    from figbench.imports import gradio

    gr = gradio()

    if seen_rev is not None and page.view.revision() == seen_rev:
        return gr.skip(), gr.skip(), gr.skip()
    return queue_html(page, status, page_no)


@dataclass
class QueueTab:
    opened: Opened
    timer: Any   #: on while the Queue tab is shown (each tab's opening sets it)


def build(page: Page) -> QueueTab:
    """The tab's components and events (inside ``gr.Tabs``)."""
    from figbench.imports import gradio

    gr = gradio()

    with gr.Tab("Queue", id="queue") as tab:
        with gr.Row():
            status = gr.Dropdown(["all", *STATUSES], value="all", label="Status", elem_id="queue-status")
            page_no = gr.Number(1, label=f"Page ({QUEUE_PAGE} per page, newest first)", precision=0, minimum=1,
                                elem_id="queue-page")
            refresh = gr.Button("Refresh", elem_id="queue-refresh")
        summary = gr.Markdown(elem_id="queue-summary")
        table = gr.HTML(elem_id="queue-table", padding=False)
        rev = gr.State(None)
        timer = gr.Timer(5.0, active=False)

        def queue_view(status, page_no):
            return queue_html(page, status, page_no)

        def queue_tick(status, page_no, seen_rev):
            return queue_refresh(page, status, page_no, seen_rev)

        for ev in (refresh.click, status.change, page_no.change):
            ev(queue_view, [status, page_no], [table, summary, rev], api_visibility="private")
        timer.tick(queue_tick, [status, page_no, rev], [table, summary, rev],
                   api_visibility="private")
    return QueueTab(Opened(tab, queue_view, [status, page_no], [table, summary, rev], timer=True), timer)
