"""The Gradio 6 leaderboard (``figbench leaderboard serve``; also the Space's ``app_file``).

Everything shown is built from the task declarations (``figbench.tasks``): the overview (a group
selector, rank with ties, intervals; filters collapsed), one tab per task family with a table per
task, interactive Plotly plots from each task's ``Plot`` declarations, the submission detail (deep
link ``?submission=ID``; plots click through to it), the submit form, the queue and the About text.
Only the overview is computed at page load; other tabs when opened, all from a view cached per store
revision. Nothing here returns gold labels. Run as a Space: ``python app.py`` (see ``main``).
(No ``from __future__ import annotations`` here: Gradio reads the handlers' type hints at run time.)
"""

import html
import json
import logging
import os
import shutil
import tempfile
import threading
import time
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

from figbench_leaderboard import fmt, plots, tables
from figbench_leaderboard.about import about_markdown, gold_legend, header_text
from figbench_leaderboard.board import Leaderboard, Limits
from figbench_leaderboard.detail import detail_html
from figbench_leaderboard.identity import oauth_enabled, request_identity
from figbench_leaderboard.policy import HiddenSplitPolicy
from figbench_leaderboard.views import BoardView

from figbench.results import MODEL_TYPES

log = logging.getLogger(__name__)

CSS = """
.fb-error {color: #b00020; border: 1px solid #b00020; padding: 8px; border-radius: 6px; white-space: pre-wrap;}
.fb-ok {color: #0b6e2e; border: 1px solid #0b6e2e; padding: 8px; border-radius: 6px;}
.fb-note {color: #555; font-size: 0.9em;}
.fb-detail table {border-collapse: collapse;} .fb-detail th, .fb-detail td {padding: 2px 8px; text-align: left;}
.fb-table-wrap {max-height: 640px; overflow: auto; border: 1px solid var(--border-color-primary); border-radius: 6px;
                margin: 0 !important;}
.fb-table-wrap table.fb-table {border-collapse: separate !important; border-spacing: 0; width: 100%; margin: 0;
           font-size: 13.5px; font-variant-numeric: tabular-nums; border: none !important;}
.fb-table-wrap .fb-table th {position: sticky; top: 0; z-index: 2; background: var(--background-fill-secondary);
              text-align: left; font-weight: 600; padding: 6px 7px; border: none !important;
              border-bottom: 1px solid var(--border-color-primary) !important; white-space: normal;}
.fb-table-wrap .fb-table td {padding: 4px 7px; border: none !important; white-space: nowrap;
              border-bottom: 1px solid var(--border-color-primary) !important;
              max-width: 24em; overflow: hidden; text-overflow: ellipsis;}
.fb-table tbody tr:nth-child(even) td {background: var(--background-fill-secondary);}
.fb-table-wrap .fb-table .num {text-align: right;}
.fb-table a {color: inherit; text-decoration: none;} .fb-table a:hover {text-decoration: underline;}
#queue-grid td:last-child {white-space: normal; min-width: 20em;}
.fb-empty {padding: 12px; color: #666;}
"""

#: plots click through to the detail view: a point's customdata ends with its submission id
CLICK_JS = """
<script>
(function () {
  function hook(el) {
    if (el.__fbHooked || typeof el.on !== 'function') return;
    el.__fbHooked = true;
    el.on('plotly_click', function (ev) {
      var p = ev && ev.points && ev.points[0];
      var cd = p && p.customdata;
      var sid = Array.isArray(cd) ? cd[cd.length - 1] : cd;
      if (typeof sid === 'string' && /^[0-9a-f]{6,64}$/.test(sid)) {
        window.location.search = '?submission=' + sid;
      }
    });
  }
  new MutationObserver(function () {
    document.querySelectorAll('.js-plotly-plot').forEach(hook);
  }).observe(document.documentElement, {childList: true, subtree: true});
})();
</script>
"""

def plotly_preload_js() -> str:
    """A script that imports Gradio's Plotly chunk once the overview is shown and the page is idle, so the
    Plots tab does not wait for 4 MB of JavaScript to be fetched and compiled (empty if it is not found)."""
    import gradio

    found = sorted((Path(gradio.__file__).parent / "templates" / "frontend" / "assets").glob("PlotlyPlot-*.js"))
    if not found:
        return ""
    asset = json.dumps(f"./assets/{found[0].name}")
    return f"""
<script>
(function () {{
  function later() {{
    if (!document.querySelector('#overview-table td')) {{ setTimeout(later, 500); return; }}
    (window.requestIdleCallback || setTimeout)(function () {{
      import({asset}).then(function () {{ window.__fbPlotlyReady = true; }}, function () {{}});
    }}, {{timeout: 4000}});
  }}
  setTimeout(later, 500);   // Gradio adds this script after the page's load event
}})();
</script>
"""


SYSTEM_FONTS = ["ui-sans-serif", "system-ui", "-apple-system", "Segoe UI", "Helvetica", "Arial", "sans-serif"]
MONO_FONTS = ["ui-monospace", "SFMono-Regular", "Menlo", "Consolas", "monospace"]
OVERVIEW_EXTRA = ["Revision", "Benchmarks", "Verified"]
QUEUE_PAGE = 50
SIZE_PLOT = "Score vs model size"


def offline_theme():
    """A theme with system fonts only, so the page never asks a font CDN for anything."""
    import gradio as gr

    return gr.themes.Base(font=SYSTEM_FONTS, font_mono=MONO_FONTS)


def _error_html(msg: str) -> str:
    return f'<div class="fb-error" id="fb-submit-error">Submission refused: {html.escape(msg)}</div>'


def _safe(fn: Callable, fallback: Callable[[str], Any], board: Leaderboard) -> Callable:
    """Run a view; on any error log it and show an escaped, path-free message instead of a toast."""
    def run(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception as e:  # the page must keep working for everyone
            log.exception("view %s failed", getattr(fn, "__name__", fn))
            return fallback(board.redact(f"{type(e).__name__}: {e}"))
    run.__name__ = getattr(fn, "__name__", "view")
    return run


DOWNLOADS_PREFIX = "figbench-lb-downloads-"


class _Downloads:
    """CSV/JSON downloads in one private folder ``figbench-lb-downloads-<pid>-*`` in the temporary directory:
    made at the first download (a server nobody downloads from leaves nothing), removed at exit, and removed
    by the next start when its process was killed; files older than ``max_age_s`` are removed."""

    def __init__(self, max_age_s: float = 600) -> None:
        self.max_age_s = max_age_s
        self._folder: Path | None = None
        self._lock = threading.Lock()
        remove_stale_downloads()

    @property
    def folder(self) -> Path:
        with self._lock:
            if self._folder is None:
                self._folder = Path(tempfile.mkdtemp(prefix=f"{DOWNLOADS_PREFIX}{os.getpid()}-"))
                weakref.finalize(self, shutil.rmtree, str(self._folder), True)   # also at interpreter exit
            return self._folder

    def path(self, suffix: str) -> Path:
        folder = self.folder
        now = time.time()
        for old in folder.glob("*"):
            if now - old.stat().st_mtime > self.max_age_s:
                old.unlink(missing_ok=True)
        return Path(tempfile.mkstemp(prefix="figbench_leaderboard_", suffix=suffix, dir=folder)[1])


def remove_stale_downloads(tmp: str | os.PathLike | None = None) -> int:
    """Remove the download folders of servers on this machine whose process is gone (killed before their exit
    handlers ran); returns how many."""
    n = 0
    for folder in Path(tmp or tempfile.gettempdir()).glob(f"{DOWNLOADS_PREFIX}*"):
        pid = folder.name[len(DOWNLOADS_PREFIX):].split("-", 1)[0]
        if not (pid.isdigit() and folder.is_dir()) or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
            continue   # alive (or not ours to signal)
        except ProcessLookupError:
            pass
        except PermissionError:
            continue
        shutil.rmtree(folder, ignore_errors=True)
        n += 1
    return n


def _remove_upload(path: Path) -> None:
    """Delete an uploaded file from Gradio's cache once read (never anything outside it)."""
    from gradio.utils import get_upload_folder

    try:
        cache = Path(get_upload_folder()).resolve()
        p = path.resolve()
        if cache in p.parents:
            p.unlink(missing_ok=True)
            if p.parent != cache and not any(p.parent.iterdir()):
                p.parent.rmdir()
    except OSError as e:
        log.warning("could not remove an upload: %s", e)


def build_app(board: Leaderboard, *, worker=None, max_upload_bytes: int | None = None):
    """The Gradio Blocks app of ``board`` (``worker.wake()`` is called after each accepted submission)."""
    import gradio as gr
    import pandas as pd

    registry = board.registry
    view = BoardView(board)
    labels = [b.label for b in registry]
    groups = tables.group_choices(registry)
    max_bytes = max_upload_bytes or board.limits.max_bytes
    downloads = _Downloads()
    use_oauth = oauth_enabled()
    plot_choices = [p.title for _, p in plots.declared_plots(registry)] + [SIZE_PLOT]

    def default_group() -> str:
        return view.cached("default-group", lambda r: tables.default_group(r, registry))

    def members(group: str) -> list[str]:
        return [b.label for b in tables.group_benchmarks(registry, group)]

    # --- overview -----------------------------------------------------------------------------
    def overview_data(group: str | None) -> tuple[str, pd.DataFrame]:
        group = group if group in groups else default_group()
        return group, view.cached(("overview", group), lambda r: tables.overview(r, registry, group))

    def overview_view(group, search, types, sizes, show_unverified, columns, sort_by, descending, limit,
                      all_models=False):
        group, df = overview_data(group)
        shown_rows = df if all_models else tables.in_group(df, registry, group)
        hidden = len(df) - len(shown_rows)
        df = tables.filter_table(shown_rows, search=search, types=types, sizes=sizes, sort_by=sort_by or "Rank",
                                 descending=descending == "descending", show_unverified=bool(show_unverified))
        shown = [c for c in (columns or []) if c in labels]
        extra = [c for c in (columns or []) if c in OVERVIEW_EXTRA]
        disp = tables.display_overview(df, shown, extra=extra, limit=None if limit == "all" else int(limit))
        links = {lab: df[lab + tables.SID].head(len(disp)).tolist() for lab in shown}
        note = (f'<p class="fb-note" id="overview-hidden">{hidden} model{"s" if hidden != 1 else ""} without a '
                f'benchmark of {html.escape(group)} not shown; tick "All models" to list them.</p>' if hidden else "")
        return fmt.html_table(disp, table_id="overview-grid", links=links,
                              empty="No model matches; change the group, the search or the filters.") + note

    def overview_error(msg: str) -> str:
        return f'<div class="fb-error">The table could not be built: {html.escape(msg)}</div>'

    def download(kind, *controls):
        group, df = overview_data(controls[0])
        search, types, sizes, show_unverified = controls[1:5]
        df = tables.filter_table(df, search=search, types=types, sizes=sizes, show_unverified=bool(show_unverified))
        out = downloads.path(f".{kind}")
        data = tables.download_frame(df, registry)
        if kind == "csv":
            data.to_csv(out, index=False)
        else:
            data.to_json(out, orient="records", indent=2, force_ascii=False)
        return gr.File(value=str(out), visible=True)

    # --- families, plots, detail, queue ---------------------------------------------------------
    def task_tables(family: str, show_unverified: bool, top):
        top_n = None if top == "all" else int(top)
        def build(r, t):
            df = tables.task_table(r, registry, t.name, show_unverified=bool(show_unverified), top=top_n)
            return fmt.html_table(df, table_id=f"task-{t.name}-grid", links={"Submission": df["Submission"].tolist()})

        out = [view.cached(("task", t.name, bool(show_unverified), top_n), lambda r, t=t: build(r, t))
               for t in registry.family_tasks(family)]
        return out[0] if len(out) == 1 else tuple(out)

    def plot_view(choice, group, page):
        page = max(0, int(page or 1) - 1)
        if choice == SIZE_PLOT:
            g, df = overview_data(group)
            return view.cached(("size", g), lambda r: plots.size_figure(df, g))
        for task, plot in plots.declared_plots(registry):
            if plot.title == choice:
                if plot.kind == "paired":
                    frame = view.cached(("paired", plots.plot_id(task, plot)),
                                        lambda r, task=task, plot=plot: plots.paired_frame(r, registry, task, plot))
                    return view.cached(("paired-fig", plots.plot_id(task, plot), page),
                                       lambda r, frame=frame, task=task, plot=plot:
                                       plots.paired_figure(frame, task, plot, registry, page=page))
                frame = view.cached(("dist", plots.plot_id(task, plot)),
                                    lambda r, task=task, plot=plot: plots.distribution_frame(r, registry, task, plot))
                return view.cached(("dist-fig", plots.plot_id(task, plot)),
                                   lambda r, frame=frame, task=task, plot=plot:
                                   plots.distribution_figure(frame, task, plot))
        return plots._empty(str(choice), "choose a plot")

    def detail(sid):
        return detail_html(board.released(board.store.find(sid or "")), registry)

    def queue_view(status, page):
        page = max(0, int(page or 1) - 1)
        rows = board.store.queue_page(limit=QUEUE_PAGE, offset=page * QUEUE_PAGE, status=None if status == "all"
                                      else status)
        counts = board.store.status_counts()
        summary = " · ".join(f"{s}: {counts.get(s, 0):,}" for s in ("PENDING", "RUNNING", "FINISHED", "FAILED"))
        df = tables.queue_table(rows, registry, newest_first=True)
        return (fmt.html_table(df, table_id="queue-grid", links={"Submission": df["Submission"].tolist()},
                               empty="No submissions."), summary, view.revision())

    def queue_tick(status, page, seen_rev):
        if seen_rev is not None and view.revision() == seen_rev:
            return gr.skip(), gr.skip(), gr.skip()
        return queue_view(status, page)

    # --- submissions ----------------------------------------------------------------------------
    def _submit_form(file, name, revision, mtype, params, link, licence, submitter, description, paper, token,
                     request, profile=None):
        if use_oauth and profile is None:
            return _error_html("sign in with Hugging Face (button above) to submit")
        try:
            client, account = request_identity(request, profile, require_account=use_oauth,
                                               token=None if use_oauth else token)
        except ValueError as e:
            return _error_html(str(e))
        if file is None:
            return _error_html("choose a predictions or results JSON file to upload")
        path = Path(file if isinstance(file, str) else file.name)
        try:
            size = path.stat().st_size
            if size > max_bytes:
                return _error_html(f"upload is {size:,} bytes; the limit is {max_bytes:,} bytes")
            data = path.read_bytes()
        except OSError as e:
            return _error_html(board.redact(f"cannot read the upload: {e.strerror}"))
        finally:
            _remove_upload(path)
        try:
            params_v: Any = None
            if str(params or "").strip():
                try:
                    params_v = int(str(params).replace(",", "").replace("_", "").strip())
                except ValueError:
                    return _error_html(f"model.parameters: {str(params)[:40]!r} is not an integer")
            overrides = {"name": name, "revision": revision, "type": mtype, "parameters": params_v, "link": link,
                         "licence": licence, "submitter": _label(submitter, account), "description": description,
                         "paper": paper}
            out = board.submit(data, overrides=overrides, client=client, account=account)
        except ValueError as e:
            return _error_html(board.redact(str(e)))
        if worker is not None:
            worker.wake()
        return (f'<div class="fb-ok" id="fb-submit-ok">Accepted: submission <code>{html.escape(out["id"])}</code> '
                f'for {html.escape(out["benchmark"])}, status {html.escape(out["status"])}. Follow it in the Queue '
                "tab.</div>")

    def _label(submitter: str | None, account: str | None) -> str | None:
        """The submitter shown: a signed-in user's Hugging Face name, else the label typed in."""
        return account[3:] if account and account.startswith("hf:") else (submitter or None)

    def _submit_json(text, submitter, request, profile=None, oauth=None) -> str:
        try:
            client, account = request_identity(request, profile, oauth, require_account=use_oauth)
            if len((text or "").encode("utf-8")) > max_bytes:
                raise ValueError(f"upload is larger than {max_bytes:,} bytes")
            out = board.submit(text or "", submitter=_label(submitter, account), client=client, account=account)
        except ValueError as e:
            return json.dumps({"ok": False, "error": board.redact(str(e))})
        if worker is not None:
            worker.wake()
        return json.dumps({"ok": True, "submission": out})

    if use_oauth:
        def submit_form(file, name, revision, mtype, params, link, licence, submitter, description, paper, token,
                        request: gr.Request, profile: gr.OAuthProfile | None):
            return _submit_form(file, name, revision, mtype, params, link, licence, submitter, description, paper,
                                token, request, profile)

        def submit_json(text: str, submitter: str, request: gr.Request, profile: gr.OAuthProfile | None,
                        oauth: gr.OAuthToken | None) -> str:
            """JSON API for ``figbench submit --to URL``: returns {"ok", "submission"|"error"}. Needs a signed-in
            Hugging Face account: the page's session, or a Hugging Face access token (``oauth_token``)."""
            return _submit_json(text, submitter, request, profile, oauth)
    else:
        def submit_form(file, name, revision, mtype, params, link, licence, submitter, description, paper, token,
                        request: gr.Request):
            return _submit_form(file, name, revision, mtype, params, link, licence, submitter, description, paper,
                                token, request)

        def submit_json(text: str, submitter: str, request: gr.Request) -> str:
            """JSON API for ``figbench submit --to URL``: returns {"ok", "submission"|"error"}. A submitter token
            in the ``X-Figbench-Token`` header is the submitter's identity (else the client address)."""
            return _submit_json(text, submitter, request)

    def submission_status(sid: str) -> str:
        """JSON API: status and scores of one submission as the board releases them (no predictions, no gold)."""
        sub = board.released(board.store.find(sid or ""))
        if sub is None:
            return json.dumps({"ok": False, "error": "no such submission"})
        keep = ("id", "status", "reason", "task", "dataset", "config", "split", "model_name", "model_revision",
                "verified", "gold", "scores", "confidence_intervals", "mismatches")
        return json.dumps({"ok": True, "submission": {k: sub.get(k) for k in keep}})

    def warm() -> None:
        """Compute what the first visits need (overview, every family's tables, the first plot) ahead of them."""
        try:
            overview_view(first_group, "", list(MODEL_TYPES), list(tables.SIZE_BINS), False, members(first_group),
                          "Rank", "descending", "100")
            for fam in registry.families():
                task_tables(fam, False, "25")
            plot_view(plot_default, first_group, 1)
        except Exception:  # only a head start: the handlers compute (and report) on their own
            log.exception("warming the board's views failed")

    def first_plot() -> str:
        """The first declared plot that has something to show (the last choice, size, otherwise)."""
        for task, plot in plots.declared_plots(registry):
            make = plots.paired_frame if plot.kind == "paired" else plots.distribution_frame
            frame = view.cached(("paired" if plot.kind == "paired" else "dist", plots.plot_id(task, plot)),
                                lambda r, t=task, p=plot, f=make: f(r, registry, t, p))
            if not frame.empty:
                return plot.title
        return SIZE_PLOT

    # --- layout ---------------------------------------------------------------------------------
    first_group = default_group()   # from the store as it is now; the selector changes it
    plot_default = first_plot()
    import threading

    threading.Thread(target=warm, name="figbench-leaderboard-warm", daemon=True).start()
    with gr.Blocks(title="figbench leaderboard", analytics_enabled=False, fill_width=True,
                   delete_cache=(300, 900)) as demo:
        gr.Markdown(f"# figbench leaderboard\n{header_text(registry)}")
        with gr.Tabs(selected="overview") as tabs:
            with gr.Tab("Overview", id="overview") as overview_tab:
                with gr.Row(equal_height=True):
                    group = gr.Dropdown(groups, value=first_group, label="Benchmark group (averaged and ranked)",
                                        elem_id="group-select", scale=2)
                    search = gr.Textbox(label="Search models", placeholder="name; another name", elem_id="search-box",
                                        scale=3)
                    all_models = gr.Checkbox(False, label="All models", elem_id="show-all-models", scale=1,
                                             info="also those without a benchmark of the group")
                table = gr.HTML(elem_id="overview-table", padding=False)
                gr.Markdown("Percent with 95% bootstrap intervals; `=2` marks a tie (overlapping intervals). Only "
                            "models with every benchmark of the group are ranked; self-reported rows never are.",
                            elem_classes=["fb-note"])
                with gr.Accordion("Public and hidden gold", open=True, elem_id="gold-legend"):
                    gr.Markdown(gold_legend(registry))
                with gr.Accordion("Filters, columns and sorting", open=False, elem_id="filters"):
                    with gr.Row():
                        types = gr.CheckboxGroup(list(MODEL_TYPES), value=list(MODEL_TYPES), label="Model type",
                                                 elem_id="type-filter")
                        sizes = gr.CheckboxGroup(list(tables.SIZE_BINS), value=list(tables.SIZE_BINS),
                                                 label="Model size", elem_id="size-filter")
                        show_unverified = gr.Checkbox(False, label="Show unverified (self-reported) rows",
                                                      elem_id="show-unverified")
                    columns = gr.CheckboxGroup(labels + OVERVIEW_EXTRA, value=members(first_group),
                                               label="Columns", elem_id="column-select")
                    with gr.Row():
                        sort_by = gr.Dropdown(["Rank", "Average", "Model", "Parameters"] + labels, value="Rank",
                                              label="Sort by", elem_id="sort-by")
                        descending = gr.Radio(["descending", "ascending"], value="descending", label="Order",
                                              elem_id="sort-order")
                        limit = gr.Dropdown(["50", "100", "200", "all"], value="100", label="Rows shown",
                                            elem_id="row-limit")
                with gr.Row():
                    csv_btn = gr.Button("Download CSV", elem_id="download-csv", size="sm")
                    json_btn = gr.Button("Download JSON", elem_id="download-json", size="sm")
                dl = gr.File(label="Download", interactive=False, elem_id="download-file", visible=False)
                controls = [group, search, types, sizes, show_unverified, columns, sort_by, descending, limit,
                            all_models]
                safe_overview = _safe(overview_view, overview_error, board)
                for c in controls:
                    if c is group:   # a new group shows its own benchmark columns (whose change redraws)
                        c.change(lambda g: gr.CheckboxGroup(value=members(g if g in groups else first_group)),
                                 group, columns, api_visibility="private")
                    else:
                        c.change(safe_overview, controls, table, api_visibility="private")
                csv_btn.click(lambda *a: download("csv", *a), controls, dl, api_visibility="private")
                json_btn.click(lambda *a: download("json", *a), controls, dl, api_visibility="private")

            family_outputs: dict[str, list] = {}
            family_tabs = {}
            for fam, title in registry.families().items():
                with gr.Tab(title, id=f"family-{fam}") as ftab:
                    with gr.Row():
                        fam_unverified = gr.Checkbox(False, label="Show unverified (self-reported) rows",
                                                     elem_id=f"family-{fam}-unverified")
                        fam_top = gr.Dropdown(["25", "100", "all"], value="25", label="Models per benchmark",
                                              elem_id=f"family-{fam}-top")
                    outs = []
                    for t in registry.family_tasks(fam):
                        gr.Markdown(f"### {html.escape(t.title)}\n{html.escape(t.description)} Percent with 95% "
                                    "bootstrap intervals `[low, high]`; best first.")
                        outs.append(gr.HTML(elem_id=f"task-{t.name}-table", padding=False))
                    family_outputs[fam] = outs
                    family_tabs[fam] = (ftab, fam_unverified, fam_top)

            with gr.Tab("Plots", id="plots") as plots_tab:
                with gr.Row():
                    plot_choice = gr.Dropdown(plot_choices, value=plot_default, label="Plot", elem_id="plot-select",
                                              scale=3)
                    plot_page = gr.Number(1, label="Page (50 models each)", precision=0, minimum=1,
                                          elem_id="plot-page", scale=1)
                plot = gr.Plot(label="plot", elem_id="board-plot", show_label=False)
                gr.Markdown("Hover for values, drag to zoom, double-click to reset; click a point to open its "
                            "submission.", elem_classes=["fb-note"])
                safe_plot = _safe(plot_view, lambda m: plots._empty("Plot unavailable", m), board)
                for c in (plot_choice, plot_page):
                    c.change(safe_plot, [plot_choice, group, plot_page], plot, api_visibility="private")

            with gr.Tab("Submission detail", id="detail") as detail_tab:
                sid_box = gr.Textbox(label="Submission id (or its first 6+ characters)", elem_id="detail-id")
                detail_btn = gr.Button("Show", elem_id="detail-button")
                detail_out = gr.HTML(elem_id="detail-html")
                detail_btn.click(detail, sid_box, detail_out, api_visibility="private")
                sid_box.submit(detail, sid_box, detail_out, api_visibility="private")

            with gr.Tab("Submit", id="submit") as submit_tab:
                if use_oauth:
                    gr.LoginButton()
                gr.Markdown("Upload a predictions file or a result record (JSON, at most "
                            f"{max_bytes / 1e6:.0f} MB). Fields filled here override the file's metadata.")
                upload = gr.File(label="Predictions or result record (.json)", file_types=[".json"], type="filepath",
                                 elem_id="submit-file")
                with gr.Row():
                    f_name = gr.Textbox(label="Model name", elem_id="f-name")
                    f_rev = gr.Textbox(label="Revision / commit hash", elem_id="f-revision")
                    f_type = gr.Dropdown(list(MODEL_TYPES), value=None, label="Model type", elem_id="f-type")
                    f_params = gr.Textbox(label="Parameters", elem_id="f-params")
                with gr.Row():
                    f_link = gr.Textbox(label="Model link", elem_id="f-link")
                    f_licence = gr.Textbox(label="Licence", elem_id="f-licence")
                    f_submitter = gr.Textbox(label="Submitter", elem_id="f-submitter")
                    f_paper = gr.Textbox(label="Paper link", elem_id="f-paper")
                f_desc = gr.Textbox(label="Description", lines=2, elem_id="f-description")
                f_token = gr.Textbox(label="Submitter token (optional; the model names you submit first belong to "
                                     "it: use the same token to submit under them again)", type="password",
                                     elem_id="f-token", visible=not use_oauth)
                submit_btn = gr.Button("Submit", variant="primary", elem_id="submit-button")
                submit_out = gr.HTML(elem_id="submit-result")
                submit_btn.click(submit_form, [upload, f_name, f_rev, f_type, f_params, f_link, f_licence,
                                               f_submitter, f_desc, f_paper, f_token], submit_out,
                               api_visibility="private")

            with gr.Tab("Queue", id="queue") as queue_tab:
                with gr.Row():
                    q_status = gr.Dropdown(["all", "PENDING", "RUNNING", "FINISHED", "FAILED"], value="all",
                                           label="Status", elem_id="queue-status")
                    q_page = gr.Number(1, label=f"Page ({QUEUE_PAGE} per page, newest first)", precision=0,
                                       minimum=1, elem_id="queue-page")
                    queue_btn = gr.Button("Refresh", elem_id="queue-refresh")
                q_summary = gr.Markdown(elem_id="queue-summary")
                queue = gr.HTML(elem_id="queue-table", padding=False)
                q_rev = gr.State(None)
                timer = gr.Timer(5.0, active=False)
                for ev in (queue_btn.click, q_status.change, q_page.change):
                    ev(queue_view, [q_status, q_page], [queue, q_summary, q_rev], api_visibility="private")
                timer.tick(queue_tick, [q_status, q_page, q_rev], [queue, q_summary, q_rev], api_visibility="private")

            with gr.Tab("About", id="about") as about_tab:
                gr.Markdown(about_markdown(registry, board.policy))

        # each tab computes its content when opened (one request, which also turns the Queue timer off or on)
        def with_timer(fn: Callable, active: bool, n_out: int) -> Callable:
            def run(*args):
                out = fn(*args)
                out = out if isinstance(out, tuple) else (out,)
                return (*out, gr.Timer(active=active)) if n_out else gr.Timer(active=active)
            return run

        for fam, (ftab, unv, top) in family_tabs.items():
            outs = family_outputs[fam]
            fn = _safe(lambda show, k, fam=fam: task_tables(fam, show, k),
                       lambda m, n=len(outs): (overview_error(m) if n == 1
                                               else tuple(overview_error(m) for _ in range(n))),
                       board)
            ftab.select(with_timer(fn, False, len(outs)), [unv, top], [*outs, timer], api_visibility="private")
            unv.change(fn, [unv, top], outs, api_visibility="private")
            top.change(fn, [unv, top], outs, api_visibility="private")
        plots_tab.select(with_timer(safe_plot, False, 1), [plot_choice, group, plot_page], [plot, timer],
                         api_visibility="private")
        queue_tab.select(with_timer(queue_view, True, 3), [q_status, q_page], [queue, q_summary, q_rev, timer],
                         api_visibility="private")
        for other in (overview_tab, detail_tab, submit_tab, about_tab):
            other.select(with_timer(lambda: None, False, 0), None, timer, api_visibility="private")

        def on_load(request: gr.Request):
            sid = (request.query_params.get("submission") if request is not None else None) or ""
            table_v = safe_overview(first_group, "", list(MODEL_TYPES), list(tables.SIZE_BINS), False,
                                    members(first_group), "Rank", "descending", "100")
            if sid:
                return table_v, gr.Tabs(selected="detail"), sid, detail(sid)
            return table_v, gr.skip(), gr.skip(), gr.skip()

        demo.load(on_load, None, [table, tabs, sid_box, detail_out], api_visibility="private")
        gr.api(submit_json, api_name="submit_json")
        gr.api(submission_status, api_name="submission_status")
    return demo


def launch(board: Leaderboard, *, host: str = "127.0.0.1", port: int = 7860, max_upload_mb: float = 10.0,
           block: bool = True, start_worker: bool = True):
    """Start the worker and the server (analytics off, no share link, offline theme, request bodies capped).
    Returns (demo, worker)."""
    from figbench_leaderboard.api_guard import ApiAllowlist
    from figbench_leaderboard.http_limits import BodyLimit
    from figbench_leaderboard.identity import untrusted_forwarding
    from figbench_leaderboard.ports import PortInUseError, check_port_free
    from figbench_leaderboard.worker import Worker
    from starlette.middleware import Middleware

    check_port_free(host, port)   # before the worker starts: "port N is in use", not Gradio's traceback
    if host not in ("127.0.0.1", "localhost", "::1") and os.environ.get("SPACE_ID") is None:
        print(f"figbench leaderboard: serving on {host}: reachable from other machines", flush=True)
    max_bytes = int(max_upload_mb * 1024 * 1024)
    worker = Worker(board).start() if start_worker else None
    demo = build_app(board, worker=worker, max_upload_bytes=max_bytes)
    demo.queue(default_concurrency_limit=4)
    untrusted_forwarding()   # the client address is the connection's unless a configured proxy vouches otherwise
    try:
        demo.launch(server_name=host, server_port=port, share=False, prevent_thread_lock=not block, quiet=True,
                    max_file_size=max_bytes, ssr_mode=False, theme=offline_theme(), css=CSS,
                    head=CLICK_JS + plotly_preload_js(),
                    footer_links=["api"], show_error=False, mcp_server=False, pwa=False,
                    app_kwargs={"middleware": [Middleware(ApiAllowlist),
                                               Middleware(BodyLimit, max_bytes=2 * max_bytes + 1024 * 1024,
                                                          rate_limit=board.store.rate_limit)]})
    except OSError as e:  # taken between the check and the bind
        if worker is not None:
            worker.stop()
        if "empty port" in str(e):
            raise PortInUseError(host, port) from None
        raise
    return demo, worker


def serve(store: str | os.PathLike, *, host: str = "127.0.0.1", port: int = 7860, gold=None,
          max_upload_mb: float = 10.0, rate_limit: int = 20, policy: HiddenSplitPolicy | None = None,
          block: bool = True, private_dir: str | os.PathLike | None = None):
    """``figbench leaderboard serve``: open the store (folder or ``hf://``) and serve it with the hidden-benchmark
    policy; hidden benchmarks come from the private store (``private_dir``, else ``$FIGBENCH_PRIVATE_DIR``)."""
    from figbench_leaderboard.gold import BuilderGoldProvider, ServerGold, private_store
    from figbench_leaderboard.hub_store import open_store
    from figbench_leaderboard.store import RateLimit

    gold = ServerGold(gold if gold is not None else BuilderGoldProvider(), private_store(private_dir))
    board = Leaderboard(open_store(store, rate_limit=RateLimit(max_submissions=rate_limit)), gold,
                        limits=Limits(max_bytes=int(max_upload_mb * 1024 * 1024)),
                        policy=policy if policy is not None else HiddenSplitPolicy())
    return launch(board, host=host, port=port, max_upload_mb=max_upload_mb, block=block)


def main() -> None:
    """The Space entry point: ``FIGBENCH_LEADERBOARD_STORE`` (folder or ``hf://datasets/ORG/NAME``), port ``PORT``."""
    serve(os.environ.get("FIGBENCH_LEADERBOARD_STORE", "data"), host=os.environ.get("GRADIO_SERVER_NAME", "0.0.0.0"),
          port=int(os.environ.get("PORT", "7860")))


if __name__ == "__main__":
    main()
