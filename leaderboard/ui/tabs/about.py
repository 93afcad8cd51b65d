"""The About tab: the tasks, scoring and hidden-split policy, from the task declarations."""

from figbench_leaderboard.ui.about_text import about_markdown
from figbench_leaderboard.ui.tabs.page import Opened, Page


def build(page: Page) -> Opened:
    """The tab (inside ``gr.Tabs``)."""
    from figbench.imports import gradio

    gr = gradio()

    with gr.Tab("About", id="about") as tab:
        gr.Markdown(about_markdown(page.registry, page.board.policy))
    return Opened(tab)
