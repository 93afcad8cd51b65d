"""The page's styles, scripts and theme: ``board.css``, ``plot_click.js`` and ``plotly_preload.js`` ship in the
package (setup.py's package_data), so an installed wheel finds them without the checkout."""

import json
from importlib.resources import files
from pathlib import Path

SYSTEM_FONTS = ["ui-sans-serif", "system-ui", "-apple-system", "Segoe UI", "Helvetica", "Arial", "sans-serif"]
MONO_FONTS = ["ui-monospace", "SFMono-Regular", "Menlo", "Consolas", "monospace"]


def _text(name: str) -> str:
    return files(__package__).joinpath(name).read_text(encoding="utf-8")


def css() -> str:
    """The page's extra styles (tables, notes, errors)."""
    return _text("board.css")


def plotly_preload_js() -> str:
    """A script that imports Gradio's Plotly chunk once the overview is shown and the page is idle (empty if
    Gradio's build has no such chunk)."""
    from figbench.imports import gradio as import_gradio

    gradio = import_gradio()

    found = sorted((Path(gradio.__file__).parent / "templates" / "frontend" / "assets").glob("PlotlyPlot-*.js"))
    if not found:
        return ""
    return _text("plotly_preload.js").replace("__PLOTLY_ASSET__", json.dumps(f"./assets/{found[0].name}"))


def head_html() -> str:
    """The ``<head>`` scripts: plots click through to the submission detail; Plotly is fetched ahead of time."""
    scripts = [_text("plot_click.js"), plotly_preload_js()]
    return "".join(f"\n<script>\n{s}</script>\n" for s in scripts if s)


def offline_theme():
    """A theme with system fonts only, so the page never asks a font CDN for anything."""
    from figbench.imports import gradio

    gr = gradio()

    return gr.themes.Base(font=SYSTEM_FONTS, font_mono=MONO_FONTS)
