"""What the tabs share: the board and its view cached per store revision, the benchmark groups, error handling,
and what a tab computes when it is opened."""

import html
import inspect
import logging
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
from figbench_leaderboard.scoring.board import Leaderboard
from figbench_leaderboard.ui import tables
from figbench_leaderboard.ui.board_view import BoardView
from figbench_leaderboard.ui.downloads import Downloads

log = logging.getLogger("figbench_leaderboard.ui.app")


class Page:
    """The board as the page shows it (``worker.wake()`` is called after each accepted submission)."""

    def __init__(self, board: Leaderboard, *, worker=None, max_bytes: int, use_oauth: bool, refusals=None,
                 cpu=None) -> None:
        self.board, self.worker, self.max_bytes, self.use_oauth = board, worker, max_bytes, use_oauth
        self.refusals, self.cpu = refusals, cpu   #: what the submit handlers record and charge (None: nothing)
        self.registry = board.registry
        self.view = BoardView(board)
        self.labels = [b.label for b in self.registry]
        self.groups = tables.group_choices(self.registry)
        self.downloads = Downloads()
        self.first_group = self.default_group()   # from the store as it is now; the selector changes it

    def default_group(self) -> str:
        return self.view.cached("default-group", lambda r: tables.default_group(r, self.registry))

    def members(self, group: str) -> list[str]:
        """The benchmark labels of ``group``."""
        return [b.label for b in tables.group_benchmarks(self.registry, group)]

    def overview_data(self, group: str | None) -> tuple[str, pd.DataFrame]:
        """``(group, its overview frame)``; an unknown group is the default one."""
        group = group if group in self.groups else self.default_group()
        return group, self.view.cached(("overview", group), lambda r: tables.overview(r, self.registry, group))

    def safe(self, fn: Callable, fallback: Callable[[str], Any]) -> Callable:
        """Run a view; on any error log it and show an escaped, path-free message instead of a toast."""
        def run(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except Exception as e:  # the page must keep working for everyone
                log.exception("view %s failed", getattr(fn, "__name__", fn))
                return fallback(self.board.redact(f"{type(e).__name__}: {e}"))
        run.__name__ = getattr(fn, "__name__", "view")
        return run


def error_html(msg: str) -> str:
    """A table or view that could not be built."""
    return f'<div class="fb-error">The table could not be built: {html.escape(msg)}</div>'


@dataclass
class Opened:
    """What opening ``tab`` computes: ``fn(*inputs)`` into ``outputs`` (nothing without ``fn``), and whether the
    Queue's refresh timer runs while the tab is shown."""

    tab: Any
    fn: Callable | None = None
    inputs: list = field(default_factory=list)
    outputs: list = field(default_factory=list)
    timer: bool = False


def for_gradio(fn: Callable, *, oauth: bool, doc: str | None = None) -> Callable:
    """``fn`` as Gradio should call it. Gradio fills a parameter by its type hint; without Hugging Face sign-in
    the ``gr.OAuthProfile``/``gr.OAuthToken`` parameters are hidden from it (they keep their ``None`` default),
    so the API neither advertises nor accepts an ``oauth_token``. ``doc``: the description, if not ``fn``'s."""
    from figbench.imports import gradio

    gr = gradio()

    hints = typing.get_type_hints(fn)
    oauth_hints = (gr.OAuthProfile, gr.OAuthToken, gr.OAuthProfile | None, gr.OAuthToken | None)
    sig = inspect.signature(fn)
    keep = [p for p in sig.parameters.values() if oauth or hints.get(p.name) not in oauth_hints]

    def call(*args, **kwargs):
        return fn(*args, **kwargs)

    call.__name__, call.__qualname__, call.__doc__ = fn.__name__, fn.__qualname__, doc or fn.__doc__
    call.__signature__ = sig.replace(parameters=keep)
    call.__annotations__ = {k: v for k, v in fn.__annotations__.items() if k in {p.name for p in keep} | {"return"}}
    return call
