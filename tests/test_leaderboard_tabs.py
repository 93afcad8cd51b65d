"""The leaderboard page's parts (issue 23): the styles and scripts ship as package files, and the handlers Gradio
fills by type hint are written once, with the OAuth parameters hidden where there is no Hugging Face sign-in."""

import fnmatch
import inspect
import re
import typing
from pathlib import Path

from figbench_leaderboard.ui import assets
from figbench_leaderboard.ui.tabs.page import for_gradio

from figbench.imports import gradio

gr = gradio()

ROOT = Path(__file__).resolve().parents[1]


def test_assets_are_package_data_and_load():
    """Every file the page reads from the package is matched by setup.py's package_data (so the wheel has it),
    and the head scripts are complete (the Plotly chunk's name filled in)."""
    setup = (ROOT / "setup.py").read_text()
    patterns = re.findall(r'"([^"]+)"', re.search(r"package_data=\{\"\": \[([^\]]*)\]", setup).group(1))
    names = re.findall(r'_text\("([^"]+)"\)', inspect.getsource(assets))
    assert sorted(set(names)) == ["board.css", "plot_click.js", "plotly_preload.js"]
    for name in names:
        assert (ROOT / "leaderboard" / "ui" / name).is_file()
        assert any(fnmatch.fnmatch(name, p) for p in patterns), (name, patterns)
    assert ".fb-table-wrap" in assets.css() and "#queue-grid" in assets.css()
    head = assets.head_html()
    assert head.count("<script>") == 2 and head.count("</script>") == 2
    assert "plotly_click" in head and "__PLOTLY_ASSET__" not in head and "PlotlyPlot-" in head


class _Handlers:
    def submit(self, text: str, submitter: str, request: gr.Request, profile: gr.OAuthProfile | None = None,
               oauth: gr.OAuthToken | None = None) -> str:
        """Doc."""
        return f"{text}|{submitter}|{request}|{profile}|{oauth}"


def test_for_gradio_hides_oauth_parameters_without_sign_in():
    h = _Handlers()
    plain = for_gradio(h.submit, oauth=False)
    assert list(inspect.signature(plain).parameters) == ["text", "submitter", "request"]
    assert set(typing.get_type_hints(plain)) == {"text", "submitter", "request", "return"}
    assert plain.__name__ == "submit" and plain.__doc__ == "Doc."
    assert plain("t", "s", "R") == "t|s|R|None|None"
    signed = for_gradio(h.submit, oauth=True, doc="Other.")
    assert list(inspect.signature(signed).parameters) == ["text", "submitter", "request", "profile", "oauth"]
    assert typing.get_type_hints(signed)["profile"] == gr.OAuthProfile | None and signed.__doc__ == "Other."
    # Gradio fills the parameters by their hints: the request only, or the request and both OAuth values
    from gradio.helpers import special_args

    assert special_args(plain, ["t", "s"], None)[0] == ["t", "s", None]
    assert special_args(signed, ["t", "s"], None)[0] == ["t", "s", None, None, None]
