"""``figbench generate review DIR``: a Gradio app that walks an annotator through the re-tagger's proposals.

Flagged mentions come first (then, for quality control, the others): the original sentence and the
paraphrase side by side, the trigger and the proposed span highlighted, every paraphrase token numbered.
The annotator accepts the span, moves it (token numbers ``start``/``end``, end exclusive) or marks the
mention unusable, and judges whether the paraphrased mention can reasonably refer to the original event
(§4.1). Each decision is written to ``generation/corrections.json`` at once; "Rebuild corpus" applies them.
"""

from __future__ import annotations

import html
from pathlib import Path

from figbench.generate import folder
from figbench.generate.build import build, load_corrections, save_correction
from figbench.generate.retag import FLAGS

CSS = """
.gen-pane { font-size: 1.05rem; line-height: 2.1; }
.gen-pane mark { background: #ffe08a; padding: 0.1em 0.2em; border-radius: 3px; }
.gen-pane sub { color: #888; font-size: 0.65em; margin-left: 1px; }
"""
SYSTEM_FONTS = ["system-ui", "-apple-system", "Segoe UI", "Roboto", "Helvetica Neue", "Arial", "sans-serif"]


def items(out: Path, walk_all: bool = False) -> list[dict]:
    """The proposals to review: flagged first, then (quality control) the unflagged ones."""
    proposals = [p for p in folder.read_jsonl(out / folder.PROPOSALS, "re-tagger proposals") if p["status"] == "ok"]
    flagged = [p for p in proposals if p["flags"] or p["start"] is None]
    rest = [p for p in proposals if not (p["flags"] or p["start"] is None)]
    return flagged + rest if not walk_all else proposals


def tokens_html(tokens: list[str], start: int | None, end: int | None, mark_id: str, numbered: bool) -> str:
    parts = []
    for i, tok in enumerate(tokens):
        word = html.escape(tok) + (f"<sub>{i}</sub>" if numbered else "")
        if i == start:
            parts.append(f'<mark id="{mark_id}">')
        parts.append(word + " ")
        if end is not None and i == end - 1:
            parts.append("</mark>")
    return f'<div class="gen-pane">{"".join(parts)}</div>'


def view(out: Path, todo: list[dict], index: int):
    """(header markdown, original html, paraphrase html, start, end, qc) of item ``index``."""
    if not todo:
        return "Nothing to review: no paraphrased mentions.", "", "", None, None, None
    index = max(0, min(index, len(todo) - 1))
    p = todo[index]
    d = load_corrections(out).get(p["mention_id"], {})
    start, end = (d["start"], d["end"]) if d.get("action") == "move" else (p["start"], p["end"])
    flags = "; ".join(f"**{f}**: {FLAGS.get(f, f)}" for f in p["flags"]) or "not flagged (quality control)"
    done = f" — decided: {d.get('action', '-')}, judgement: {d.get('qc', '-')}" if d else ""
    head = (f"Mention {index + 1} of {len(todo)}: `{p['mention_id']}` (trigger *{html.escape(p['trigger'])}*"
            f"{', metaphor *' + html.escape(p['metaphor']) + '*' if p.get('metaphor') else ''}). {flags}{done}")
    original = tokens_html(p["original"], p.get("trigger_start"), p.get("trigger_end"), "orig-span", False)
    para = tokens_html(p["paraphrase"], start, end, "para-span", True)
    return head, original, para, start, end, d.get("qc")


def build_app(out: str | Path, walk_all: bool = False):
    from figbench.imports import gradio

    gr = gradio()

    out = Path(out)
    todo = items(out, walk_all)

    def show(i):
        return (i, *view(out, todo, i))

    def decide(i, action, start, end, qc):
        if not todo:
            return (i, "Nothing to review.", *view(out, todo, i))
        p = todo[i]
        if action == "move":
            try:
                s, e = int(start), int(end)
            except (TypeError, ValueError):
                return (i, f"Not saved: start and end must be token numbers, got {start!r} and {end!r}.",
                        *view(out, todo, i))
            if not 0 <= s < e <= len(p["paraphrase"]):
                return (i, f"Not saved: the span {s}:{e} must satisfy 0 <= start < end <= {len(p['paraphrase'])}.",
                        *view(out, todo, i))
            save_correction(out, p["mention_id"], action="move", start=s, end=e, qc=qc or None)
        else:
            save_correction(out, p["mention_id"], action=action, qc=qc or None)
        msg = f"Saved {action} for `{p['mention_id']}`" + (f" (judged {qc})" if qc else "") + "."
        nxt = min(i + 1, len(todo) - 1)
        return (nxt, msg, *view(out, todo, nxt))

    def rebuild():
        s = build(out)
        c, qc = s["counts"], s["qc"]
        share = f"{qc['share_valid']:.1%}" if qc["share_valid"] is not None else "none judged"
        return (f"Rebuilt: {c.get('mentions', 0)} mentions of {c.get('source_mentions', 0)}; "
                f"{c.get('moved', 0)} moved, {len(s['dropped'].get('unusable', []))} unusable; "
                f"quality control: {qc['judged']} judged, share valid {share}.")

    with gr.Blocks(title="figbench generate review", analytics_enabled=False) as demo:
        gr.Markdown(f"## Review of `{out.name}`: re-tagged triggers and quality control")
        index = gr.State(0)
        header = gr.Markdown(elem_id="item-header")
        with gr.Row():
            with gr.Column():
                gr.Markdown("**Original** (trigger highlighted)")
                original = gr.HTML(elem_id="original")
            with gr.Column():
                gr.Markdown("**Paraphrase** (proposed span highlighted; token numbers in small print)")
                para = gr.HTML(elem_id="paraphrase")
        with gr.Row():
            start = gr.Number(label="span start (token number)", precision=0, elem_id="span-start")
            end = gr.Number(label="span end (exclusive)", precision=0, elem_id="span-end")
            qc = gr.Radio(["valid", "invalid"], label="Can the paraphrased mention refer to the original event?",
                          elem_id="qc")
        with gr.Row():
            accept = gr.Button("Accept span", variant="primary", elem_id="accept-btn")
            move = gr.Button("Move span to start/end", elem_id="move-btn")
            unusable = gr.Button("Mark unusable", variant="stop", elem_id="unusable-btn")
        with gr.Row():
            prev = gr.Button("Previous", elem_id="prev-btn")
            nxt = gr.Button("Next", elem_id="next-btn")
            rebuild_btn = gr.Button("Rebuild corpus", elem_id="build-btn")
        status = gr.Markdown(elem_id="status")
        built = gr.Markdown(elem_id="build-out")
        shown = [index, header, original, para, start, end, qc]
        demo.load(show, [index], shown)
        prev.click(lambda i: show(max(0, i - 1)), [index], shown)
        nxt.click(lambda i: show(min(len(todo) - 1, i + 1) if todo else 0), [index], shown)
        with_status = [index, status, header, original, para, start, end, qc]
        accept.click(lambda i, s, e, q: decide(i, "accept", s, e, q), [index, start, end, qc], with_status)
        move.click(lambda i, s, e, q: decide(i, "move", s, e, q), [index, start, end, qc], with_status)
        unusable.click(lambda i, s, e, q: decide(i, "unusable", s, e, q), [index, start, end, qc], with_status)
        rebuild_btn.click(rebuild, None, built)
    return demo


def launch(out: str | Path, *, host: str = "127.0.0.1", port: int = 7861, walk_all: bool = False,
           block: bool = True):
    from figbench.imports import gradio

    gr = gradio()

    out = Path(out)
    if not (out / folder.PROPOSALS).is_file():
        raise FileNotFoundError(f"{out / folder.PROPOSALS}: no re-tagger proposals; run "
                                "`figbench generate metaphors --out DIR` first")
    demo = build_app(out, walk_all)
    print(f"figbench generate review: http://{host}:{port}/ (decisions go to {out / folder.CORRECTIONS})",
          flush=True)
    demo.launch(server_name=host, server_port=port, share=False, prevent_thread_lock=not block, quiet=True,
                ssr_mode=False, theme=gr.themes.Base(font=SYSTEM_FONTS, font_mono=["monospace"]), css=CSS,
                footer_links=[], mcp_server=False, pwa=False)
    return demo
