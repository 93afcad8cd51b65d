"""The Gradio 6 leaderboard (``figbench leaderboard serve``; also the Space's ``app_file``).

Everything shown is built from the task declarations (``figbench.tasks``): the overview (a group
selector, rank with ties, intervals; filters collapsed), one tab per task family with a table per
task, interactive Plotly plots from each task's ``Plot`` declarations, the submission detail (deep
link ``?submission=ID``; plots click through to it), the submit form, the queue and the About text,
one module each under :mod:`figbench_leaderboard.ui.tabs`. Only the overview is computed at page load;
other tabs when opened, all from a view cached per store revision. Nothing here returns gold labels.
Run as a Space: ``python app.py`` (see ``main``).
"""

import logging
import os
import threading
from collections.abc import Callable

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

from figbench_leaderboard.access.hidden_policy import HiddenSplitPolicy
from figbench_leaderboard.access.identity import oauth_enabled
from figbench_leaderboard.access.pacing import SHARE as PACER_SHARE
from figbench_leaderboard.access.pacing import TARPIT_S
from figbench_leaderboard.scoring.board import Leaderboard, Limits
from figbench_leaderboard.ui.about_text import header_text
from figbench_leaderboard.ui.assets import css, head_html, offline_theme

log = logging.getLogger(__name__)


def build_app(board: Leaderboard, *, worker=None, max_upload_bytes: int | None = None, refusals=None, cpu=None):
    """The Gradio Blocks app of ``board`` (``worker.wake()`` is called after each accepted submission;
    ``refusals``/``cpu``: the :mod:`~figbench_leaderboard.access.http_limits` counters its handlers feed)."""
    from figbench.imports import gradio

    gr = gradio()
    from figbench_leaderboard.ui.tabs import about, detail, families, overview, plot, queue, submit
    from figbench_leaderboard.ui.tabs.page import Page

    page = Page(board, worker=worker, max_bytes=max_upload_bytes or board.limits.max_bytes,
                use_oauth=oauth_enabled(), refusals=refusals, cpu=cpu)
    with gr.Blocks(title="figbench leaderboard", analytics_enabled=False, fill_width=True,
                   delete_cache=(300, 900)) as demo:
        gr.Markdown(f"# figbench leaderboard\n{header_text(page.registry)}")
        with gr.Tabs(selected="overview") as tabs:
            over = overview.build(page)
            fams = families.build(page)
            plots_tab = plot.build(page, over.group)
            det = detail.build(page)
            sub = submit.build(page)
            que = queue.build(page)
            ab = about.build(page)
        for opened in (*fams, plots_tab.opened, que.opened, over.opened, det.opened, sub, ab):
            # one request per opening: the tab's content, and the Queue timer off or on
            opened.tab.select(_with_timer(opened.fn, opened.timer, len(opened.outputs)), opened.inputs or None,
                              [*opened.outputs, que.timer], api_visibility="private")

        def on_load(request: gr.Request):
            sid = (request.query_params.get("submission") if request is not None else None) or ""
            table = over.view(*overview.default_controls(page))
            if sid:
                return table, gr.Tabs(selected="detail"), sid, detail.submission_html(page, sid)
            return table, gr.skip(), gr.skip(), gr.skip()

        demo.load(on_load, None, [over.table, tabs, det.sid_box, det.html], api_visibility="private")
        submit.register_api(page)
    # not a daemon: a process that builds the app and exits at once (a route listing, a test) waits for the warm-up
    # instead of finalising while it runs in pandas/ICU code, which aborted such a process once (SIGABRT, load ~5)
    threading.Thread(target=_warm, args=(page, plots_tab.default), name="figbench-leaderboard-warm").start()
    return demo


def _with_timer(fn: Callable | None, active: bool, n_out: int) -> Callable:
    """``fn``'s outputs followed by the Queue timer, on (``active``) or off."""
    from figbench.imports import gradio

    gr = gradio()

    def run(*args):
        if fn is None:
            return gr.Timer(active=active)
        out = fn(*args)
        out = out if isinstance(out, tuple) else (out,)
        return (*out, gr.Timer(active=active)) if n_out else gr.Timer(active=active)
    return run


def _warm(page, plot_default: str) -> None:
    """Compute what the first visits need (overview, every family's tables, the first plot) ahead of them."""
    from figbench_leaderboard.ui.tabs import families, overview, plot

    try:
        overview.overview_html(page, *overview.default_controls(page))
        for fam in page.registry.families():
            families.task_tables(page, fam, False, "25")
        plot.plot_figure(page, plot_default, page.first_group, 1)
    except Exception:  # only a head start: the handlers compute (and report) on their own
        log.exception("warming the board's views failed")


#: CPU seconds of validation and request parsing the board spends for all senders together in 10 s
BOARD_CPU_S = 1.0


def launch(board: Leaderboard, *, host: str = "127.0.0.1", port: int = 7860, max_upload_mb: float = 10.0,
           block: bool = True, start_worker: bool = True, board_cpu_s: float = BOARD_CPU_S,
           big_body_share: float = PACER_SHARE, tarpit_s: float = TARPIT_S):
    """Start the worker and the server (analytics off, no share link, offline theme, request bodies capped,
    big ones paced to ``big_body_share`` of the event loop, each 429 held ``tarpit_s``). Returns (demo, worker)."""
    from figbench_leaderboard.access.api_allowlist import ApiAllowlist
    from figbench_leaderboard.access.http_limits import BodyLimit, CpuBudget, Refusals
    from figbench_leaderboard.access.identity import untrusted_forwarding
    from figbench_leaderboard.access.pacing import BodyPacer
    from figbench_leaderboard.access.uploads import UploadGuard
    from figbench_leaderboard.scoring.parse_worker import ParseWorker
    from figbench_leaderboard.scoring.worker import Worker
    from figbench_leaderboard.ui.ports import PortInUseError, check_port_free
    from starlette.middleware import Middleware

    check_port_free(host, port)   # before the worker starts: "port N is in use", not Gradio's traceback
    if host not in ("127.0.0.1", "localhost", "::1") and os.environ.get("SPACE_ID") is None:
        print(f"figbench leaderboard: serving on {host}: reachable from other machines", flush=True)
    max_bytes = int(max_upload_mb * 1024 * 1024)
    pacer = BodyPacer(share=big_body_share)   # a share outside (0, 1] is refused before anything starts
    worker = Worker(board).start() if start_worker else None
    if board.parser is None:   # big bodies are validated in a child process: page loads keep the GIL
        board.parser = ParseWorker(board.gold)
    refusals = Refusals(board.store.rate_limit.max_submissions, board.store.rate_limit.window_s)
    # per sender 2 s a minute; all senders together board_cpu_s in 10 s (as served 1 s: a tenth of a core)
    cpu = CpuBudget(max_total_s=board_cpu_s, total_window_s=10.0)
    demo = build_app(board, worker=worker, max_upload_bytes=max_bytes, refusals=refusals, cpu=cpu)
    demo.queue(default_concurrency_limit=4)
    untrusted_forwarding()   # the client address is the connection's unless a configured proxy vouches otherwise
    try:
        demo.launch(server_name=host, server_port=port, share=False, prevent_thread_lock=not block, quiet=True,
                    max_file_size=max_bytes, ssr_mode=False, theme=offline_theme(), css=css(), head=head_html(),
                    footer_links=["api"], show_error=False, mcp_server=False, pwa=False,
                    # no self-probe: once serving, launch() asks for its own page again (HEAD /, 3 s
                    # timeout) and raises when that is slow, which on a loaded machine took down a board
                    # already answering requests (issue 33); the probe is for notebooks without
                    # localhost, and _frontend gates nothing else (Gradio 6.31)
                    _frontend=False,
                    app_kwargs={"middleware": [Middleware(ApiAllowlist),
                                               Middleware(BodyLimit, max_bytes=2 * max_bytes + 1024 * 1024,
                                                          refusals=refusals, cpu=cpu, pacer=pacer,
                                                          tarpit_s=tarpit_s),
                                               Middleware(UploadGuard, require_account=oauth_enabled(),
                                                          per_request_bytes=max_bytes)]})
    except OSError as e:  # taken between the check and the bind
        if worker is not None:
            worker.stop()
        board.parser.close()
        if "empty port" in str(e):
            raise PortInUseError(host, port) from None
        raise
    return demo, worker


def serving_line(host: str, port: int) -> str:
    """What ``serve`` and the Space print once the board answers: its local URL (and, listening on every
    interface, that it is reachable from other machines)."""
    local = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    return (f"figbench leaderboard: serving on http://{local}:{port}"
            + (f" (listening on {host}: reachable from other machines)" if host != local else ""))


def serve(store: str | os.PathLike, *, host: str = "127.0.0.1", port: int = 7860, gold=None,
          max_upload_mb: float = 10.0, rate_limit: int = 20, policy: HiddenSplitPolicy | None = None,
          block: bool = True, private_dir: str | os.PathLike | None = None, board_cpu_s: float = BOARD_CPU_S,
          big_body_share: float = PACER_SHARE, tarpit_s: float = TARPIT_S):
    """``figbench leaderboard serve``: open the store (folder or ``hf://``) and serve it with the hidden-benchmark
    policy; hidden benchmarks come from the private store (``private_dir``, else ``$FIGBENCH_PRIVATE_DIR``)."""
    from figbench_leaderboard.scoring.gold import BuilderGoldProvider, ServerGold, private_store
    from figbench_leaderboard.store.hub import open_store
    from figbench_leaderboard.store.limits import RateLimit

    gold = ServerGold(gold if gold is not None else BuilderGoldProvider(), private_store(private_dir))
    board = Leaderboard(open_store(store, rate_limit=RateLimit(max_submissions=rate_limit)), gold,
                        limits=Limits(max_bytes=int(max_upload_mb * 1024 * 1024)),
                        policy=policy if policy is not None else HiddenSplitPolicy())
    return launch(board, host=host, port=port, max_upload_mb=max_upload_mb, block=block, board_cpu_s=board_cpu_s,
                  big_body_share=big_body_share, tarpit_s=tarpit_s)


def main() -> None:
    """The Space entry point: ``FIGBENCH_LEADERBOARD_STORE`` (folder or ``hf://datasets/ORG/NAME``), port ``PORT``."""
    serve(os.environ.get("FIGBENCH_LEADERBOARD_STORE", "data"), host=os.environ.get("GRADIO_SERVER_NAME", "0.0.0.0"),
          port=int(os.environ.get("PORT", "7860")))


if __name__ == "__main__":
    main()
