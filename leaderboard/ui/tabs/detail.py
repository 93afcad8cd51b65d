"""The Submission detail tab (deep link ``?submission=ID``; the tables and plots link to it)."""

from dataclasses import dataclass
from typing import Any

from figbench_leaderboard.ui.detail_html import detail_html
from figbench_leaderboard.ui.tabs.page import Opened, Page


def submission_html(page: Page, sid: str | None) -> str:
    """The released view of submission ``sid`` (an id or its first 6+ characters)."""
    return detail_html(page.board.released(page.board.store.find(sid or "")), page.registry)


@dataclass
class DetailTab:
    opened: Opened
    sid_box: Any
    html: Any


def build(page: Page) -> DetailTab:
    """The tab's components and events (inside ``gr.Tabs``)."""
    from figbench.imports import gradio

    gr = gradio()

    with gr.Tab("Submission detail", id="detail") as tab:
        sid_box = gr.Textbox(label="Submission id (or its first 6+ characters)", elem_id="detail-id")
        show = gr.Button("Show", elem_id="detail-button")
        out = gr.HTML(elem_id="detail-html")

        def detail(sid):
            return submission_html(page, sid)

        show.click(detail, sid_box, out, api_visibility="private")
        sid_box.submit(detail, sid_box, out, api_visibility="private")
    return DetailTab(Opened(tab), sid_box, out)
