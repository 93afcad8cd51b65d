"""The Gradio 6 leaderboard (``figbench leaderboard serve``; also the Space's ``app_file``).

Tabs: overview (search, filters, column choice, sorting, CSV/JSON download), one per task family
(sub-metrics with bootstrap intervals), plots, submission detail, submit form, queue, About. A
background :class:`~figbench_leaderboard.worker.Worker` scores the queue. Nothing here returns
gold labels: the gold provider is only used by validation and scoring.
"""



import html
import json
import os
import tempfile
from pathlib import Path
from typing import Any

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

from figbench_leaderboard.benchmarks import FAMILIES, BenchmarkRegistry  # noqa: E402
from figbench_leaderboard.board import Leaderboard, Limits  # noqa: E402
from figbench_leaderboard.formats import MODEL_TYPES  # noqa: E402
from figbench_leaderboard import tables  # noqa: E402

ABOUT = """
## About figbench

figbench scores **figurative language** and **cross-document event coreference** systems on six corpora.
Submissions are *predictions*, scored here against gold labels that never leave the server; self-reported
scores without predictions are shown as unverified.

| family | task | benchmarks | headline metric |
|---|---|---|---|
| Coreference | cross-document event coreference (`cdec`) | ECB+ test, ECB+META_1 dev_small, ECB+META_m test, WEC-Eng test | CoNLL F1 (mean of MUC, B-cubed, CEAF-e F1); also CEAF-m, LEA, BLANC |
| Meta4XNLI | metaphor detection (`metaphor_detection`) | detection EN / ES test | span F1 (strict IOB2) |
| Meta4XNLI | metaphor interpretation as NLI (`metaphor_nli`) | interpretation test | accuracy |
| WiMCor | metonymy resolution (`metonymy`) | sample test | micro F1 (also macro P/R/F1) |
| ePiC | proverb prediction (`proverb_prediction`) | seen / unseen test | accuracy (also MRR) |
| ePiC | alignment (`proverb_alignment`) | alignment test | token F1 |

Scores are percentages with 95% percentile-bootstrap intervals (1,000 resamples of documents, clusters,
sentences or examples).

**How to submit.** Upload a predictions file (format in the Space README: clusters of mention ids,
BIO tags per token, a label per example id, ranked proverb ids per narrative) or a figbench result record
with inline predictions, in the *Submit* tab; or from the command line:
`figbench submit results.json --to <this Space's URL>`. Submissions move PENDING -> RUNNING -> FINISHED
(or FAILED with the reason) in the *Queue* tab. One live submission per model, revision and benchmark.

**Citations.** ECB+ (Cybulska & Vossen, LREC 2014); ECB+META (Ahmed et al., 2024); WEC-Eng (Eirew et al.,
NAACL 2021); Meta4XNLI (Sanchez-Bayona & Agerri, 2024); WiMCor (Mathews & Strube, 2020); ePiC (Ghosh &
Srivastava, ACL 2022); CoNLL scorer (Pradhan et al., ACL 2014); LEA (Moosavi & Strube, ACL 2016).
"""

CSS = """
.fb-error {color: #b00020; border: 1px solid #b00020; padding: 8px; border-radius: 6px; white-space: pre-wrap;}
.fb-ok {color: #0b6e2e; border: 1px solid #0b6e2e; padding: 8px; border-radius: 6px;}
.fb-detail table {border-collapse: collapse;} .fb-detail th, .fb-detail td {padding: 2px 8px; text-align: left;}
"""

SYSTEM_FONTS = ["ui-sans-serif", "system-ui", "-apple-system", "Segoe UI", "Helvetica", "Arial", "sans-serif"]
MONO_FONTS = ["ui-monospace", "SFMono-Regular", "Menlo", "Consolas", "monospace"]


def offline_theme():
    """A theme with system fonts only, so the page never asks a font CDN for anything."""
    import gradio as gr

    return gr.themes.Base(font=SYSTEM_FONTS, font_mono=MONO_FONTS)


def _error_html(msg: str) -> str:
    return f'<div class="fb-error" id="fb-submit-error">Submission refused: {html.escape(msg)}</div>'


def build_app(board: Leaderboard, *, worker=None, max_upload_bytes: int | None = None):
    """The Gradio Blocks app of ``board`` (``worker.wake()`` is called after each accepted submission)."""
    import gradio as gr

    registry: BenchmarkRegistry = board.registry
    labels = [b.label for b in registry]
    max_bytes = max_upload_bytes or board.limits.max_bytes

    def rows():
        return board.store.list()

    def overview_view(search, types, sizes, columns, sort_by, descending):
        df = tables.overview(rows(), registry)
        return tables.filter_table(df, search=search, types=types, sizes=sizes, columns=columns,
                                   sort_by=sort_by or None, descending=descending == "descending")

    def download(kind, search, types, sizes, columns, sort_by, descending):
        df = overview_view(search, types, sizes, columns, sort_by, descending)
        out = Path(tempfile.mkdtemp(prefix="figbench-lb-")) / f"figbench_leaderboard.{kind}"
        if kind == "csv":
            df.to_csv(out, index=False)
        else:
            df.to_json(out, orient="records", indent=2, force_ascii=False)
        return gr.File(value=str(out), visible=True)

    def _who(submitter: str, request: gr.Request | None) -> str | None:
        """The client address for the per-client rate limit (behind the Spaces proxy: X-Forwarded-For)."""
        host = None
        if os.environ.get("SPACE_ID") and request is not None:
            forwarded = (request.headers.get("x-forwarded-for") or "").split(",")[0].strip()
            host = forwarded or None
        host = host or getattr(getattr(request, "client", None), "host", None)
        return f"ip:{host}" if host else None

    def submit_form(file, name, revision, mtype, params, link, licence, submitter, description, paper,
                    request: gr.Request):
        if file is None:
            return _error_html("choose a predictions or results JSON file to upload")
        path = Path(file if isinstance(file, str) else file.name)
        try:
            size = path.stat().st_size
            if size > max_bytes:
                return _error_html(f"upload is {size:,} bytes; the limit is {max_bytes:,} bytes")
            params_v: Any = None
            if str(params or "").strip():
                try:
                    params_v = int(str(params).replace(",", "").replace("_", "").strip())
                except ValueError:
                    return _error_html(f"model.parameters: {params!r} is not an integer")
            overrides = {"name": name, "revision": revision, "type": mtype, "parameters": params_v, "link": link,
                         "licence": licence, "submitter": submitter, "description": description, "paper": paper}
            out = board.submit(path.read_bytes(), overrides=overrides, client=_who(submitter, request))
        except ValueError as e:
            return _error_html(str(e))
        if worker is not None:
            worker.wake()
        return (f'<div class="fb-ok" id="fb-submit-ok">Accepted: submission <code>{html.escape(out["id"])}</code> '
                f'for {html.escape(out["benchmark"])}, status {html.escape(out["status"])}. Follow it in the Queue tab.</div>')

    def submit_json(text: str, submitter: str, request: gr.Request) -> str:
        """JSON API for ``figbench submit --to URL``: returns {"ok", "submission"|"error"}."""
        try:
            if len((text or "").encode("utf-8")) > max_bytes:
                raise ValueError(f"upload is larger than {max_bytes:,} bytes")
            out = board.submit(text or "", submitter=submitter or None, client=_who(submitter, request))
        except ValueError as e:
            return json.dumps({"ok": False, "error": str(e)})
        if worker is not None:
            worker.wake()
        return json.dumps({"ok": True, "submission": out})

    def submission_status(sid: str) -> str:
        """JSON API: status and scores of one submission (no predictions, no gold)."""
        sub = board.store.find(sid or "")
        if sub is None:
            return json.dumps({"ok": False, "error": "no such submission"})
        keep = ("id", "status", "reason", "task", "dataset", "config", "split", "model_name", "model_revision",
                "verified", "scores", "confidence_intervals", "mismatches")
        return json.dumps({"ok": True, "submission": {k: sub.get(k) for k in keep}})

    def detail(sid):
        return tables.detail_html(board.store.find(sid or ""), registry)

    def plots():
        r = rows()
        return (tables.robustness_plot(tables.robustness_frame(r, registry), registry),
                tables.size_plot(tables.overview(r, registry)))

    with gr.Blocks(title="figbench leaderboard", analytics_enabled=False, fill_width=True) as demo:
        gr.Markdown("# figbench leaderboard\nFigurative language and cross-document event coreference, "
                    "scored by the server against hidden gold labels.")
        with gr.Tabs():
            with gr.Tab("Overview", id="overview"):
                with gr.Row():
                    search = gr.Textbox(label="Search models", placeholder="name; another name", elem_id="search-box", scale=2)
                    sort_by = gr.Dropdown(["Average", "Model", "Parameters"] + labels, value="Average", label="Sort by",
                                          elem_id="sort-by")
                    descending = gr.Radio(["descending", "ascending"], value="descending", label="Order", elem_id="sort-order")
                with gr.Row():
                    types = gr.CheckboxGroup(list(MODEL_TYPES), value=list(MODEL_TYPES), label="Model type",
                                             elem_id="type-filter")
                    sizes = gr.CheckboxGroup(list(tables.SIZE_BINS), value=list(tables.SIZE_BINS), label="Model size",
                                             elem_id="size-filter")
                columns = gr.CheckboxGroup(["Average", "Benchmarks", "Verified"] + labels,
                                           value=["Average", "Benchmarks", "Verified"] + labels,
                                           label="Columns", elem_id="column-select")
                table = gr.Dataframe(interactive=False, elem_id="overview-table", wrap=False, max_height=600, max_chars=48,
                                     pinned_columns=1)
                with gr.Row():
                    csv_btn = gr.Button("Download CSV", elem_id="download-csv")
                    json_btn = gr.Button("Download JSON", elem_id="download-json")
                with gr.Row():
                    dl = gr.File(label="Download", interactive=False, elem_id="download-file", visible=False)
                controls = [search, types, sizes, columns, sort_by, descending]
                for c in controls:
                    c.change(overview_view, controls, table, api_visibility="private")
                csv_btn.click(lambda *a: download("csv", *a), controls, dl, api_visibility="private")
                json_btn.click(lambda *a: download("json", *a), controls, dl, api_visibility="private")
                demo.load(overview_view, controls, table, api_visibility="private")

            family_tables = {}
            for fam, title in FAMILIES.items():
                with gr.Tab(title, id=f"family-{fam}"):
                    gr.Markdown(f"Every sub-metric in percent with its 95% bootstrap interval `[low, high]`.")
                    family_tables[fam] = gr.Dataframe(interactive=False, elem_id=f"family-{fam}-table", wrap=False,
                                                      max_chars=48, pinned_columns=1)
            fam_list = list(family_tables)
            demo.load(lambda: [tables.family_table(rows(), registry, f) for f in fam_list], None,
                      [family_tables[f] for f in fam_list], api_visibility="private")

            with gr.Tab("Plots", id="plots"):
                plot_btn = gr.Button("Refresh plots")
                robust = gr.Plot(label="ECB+ vs ECB+META CoNLL F1 per model", elem_id="robustness-plot")
                size = gr.Plot(label="Score vs model size", elem_id="size-plot")
                plot_btn.click(plots, None, [robust, size], api_visibility="private")
                demo.load(plots, None, [robust, size], api_visibility="private")

            with gr.Tab("Submission detail", id="detail"):
                sid_box = gr.Textbox(label="Submission id (or its first 6+ characters)", elem_id="detail-id")
                detail_btn = gr.Button("Show", elem_id="detail-button")
                detail_out = gr.HTML(elem_id="detail-html")
                detail_btn.click(detail, sid_box, detail_out, api_visibility="private")
                sid_box.submit(detail, sid_box, detail_out, api_visibility="private")

            with gr.Tab("Submit", id="submit"):
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
                submit_btn = gr.Button("Submit", variant="primary", elem_id="submit-button")
                submit_out = gr.HTML(elem_id="submit-result")
                submit_btn.click(submit_form, [upload, f_name, f_rev, f_type, f_params, f_link, f_licence, f_submitter,
                                               f_desc, f_paper], submit_out, api_visibility="private")

            with gr.Tab("Queue", id="queue"):
                queue_btn = gr.Button("Refresh", elem_id="queue-refresh")
                queue = gr.Dataframe(interactive=False, elem_id="queue-table", wrap=True)
                queue_btn.click(lambda: tables.queue_table(rows()), None, queue, api_visibility="private")
                demo.load(lambda: tables.queue_table(rows()), None, queue, api_visibility="private")
                timer = gr.Timer(5.0)
                timer.tick(lambda: tables.queue_table(rows()), None, queue, api_visibility="private")

            with gr.Tab("About", id="about"):
                gr.Markdown(ABOUT)

        gr.api(submit_json, api_name="submit_json")
        gr.api(submission_status, api_name="submission_status")
    return demo


def launch(board: Leaderboard, *, host: str = "127.0.0.1", port: int = 7860, max_upload_mb: float = 10.0,
           block: bool = True, start_worker: bool = True):
    if host not in ("127.0.0.1", "localhost", "::1") and os.environ.get("SPACE_ID") is None:
        print(f"figbench leaderboard: serving on {host}: reachable from other machines", flush=True)
    """Start the worker and the server (analytics off, no share link, offline theme). Returns (demo, worker)."""
    from figbench_leaderboard.worker import Worker

    worker = Worker(board).start() if start_worker else None
    demo = build_app(board, worker=worker, max_upload_bytes=int(max_upload_mb * 1024 * 1024))
    demo.queue(default_concurrency_limit=4)
    demo.launch(server_name=host, server_port=port, share=False, prevent_thread_lock=not block, quiet=True,
                max_file_size=int(max_upload_mb * 1024 * 1024), ssr_mode=False, theme=offline_theme(), css=CSS,
                footer_links=["api"], show_error=True, mcp_server=False, pwa=False)
    return demo, worker


def serve(store: str | os.PathLike, *, host: str = "127.0.0.1", port: int = 7860, gold=None,
          max_upload_mb: float = 10.0, rate_limit: int = 20, block: bool = True):
    """``figbench leaderboard serve``: open the store (folder or ``hf://``) and serve it."""
    from figbench_leaderboard.hub_store import open_store
    from figbench_leaderboard.store import RateLimit

    board = Leaderboard(open_store(store, rate_limit=RateLimit(max_submissions=rate_limit)), gold,
                        limits=Limits(max_bytes=int(max_upload_mb * 1024 * 1024)))
    return launch(board, host=host, port=port, max_upload_mb=max_upload_mb, block=block)


if __name__ == "__main__":  # the Space entry point
    serve(os.environ.get("FIGBENCH_LEADERBOARD_STORE", "data"), host=os.environ.get("GRADIO_SERVER_NAME", "0.0.0.0"),
          port=int(os.environ.get("PORT", "7860")))
