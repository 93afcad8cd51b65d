"""The detail view of one submission: HTML in which every value from a submitter is escaped."""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from figbench_leaderboard.domain.benchmarks import BenchmarkRegistry, hidden_split
from figbench_leaderboard.domain.release import gold_marker
from figbench_leaderboard.domain.selection import marked, row_test_informed
from figbench_leaderboard.ui import formatting as fmt


def _link(url: Any) -> str:
    if not url or not isinstance(url, str):
        return ""
    if url.startswith(("https://", "http://")):
        return f'<a href="{html.escape(url, quote=True)}" rel="nofollow noopener noreferrer" target="_blank">' \
               f"{html.escape(url)}</a>"
    return html.escape(url)


def _selection(selection: Any) -> str:
    """A trained run's ``provenance.selection``: whether a choice behind its numbers saw test results."""
    if not isinstance(selection, Mapping) or not selection.get("kind"):
        return fmt.BLANK
    kind = str(selection["kind"])
    head = "test-informed (a choice behind these numbers was made after seeing test results)" \
        if kind == "test-informed" else kind
    return f"{head}: {selection.get('note', '')}"


def detail_html(sub: Mapping[str, Any] | None, registry: BenchmarkRegistry) -> str:
    """HTML of one submission (pass the row as released by the board: on a hidden benchmark the Ladder's headline
    only, shown with one decimal; on public ones every score with two)."""
    if sub is None:
        return "<p>No such submission.</p>"
    e = html.escape
    meta = sub.get("metadata") or {}
    model = meta.get("model") or {}
    prov = meta.get("provenance") or {}
    key = f"{sub['task']}/{sub['dataset']}/{sub['config']}/{sub['split']}"
    bench = registry.get(key) if registry.has(key) else None
    task = registry.task(bench) if bench is not None else None
    hidden = bench is None or hidden_split(bench)
    decimals = 1 if hidden else 2
    label = bench.label if bench is not None else key
    marker = gold_marker(bench) if bench is not None else "hidden"
    rows = [("Submission", sub["id"]), ("Status", sub["status"]), ("Reason", sub.get("reason") or ""),
            ("Benchmark", f"{label} ({key})" + (f" — {marker}: gold held by the server only" if hidden
                                                 else " — public test set (gold released with the corpus)")),
            ("Model", sub["model_name"]), ("Revision", sub["model_revision"] or fmt.BLANK),
            ("Type", sub["model_type"]), ("Parameters", fmt.params(sub["model_parameters"])),
            ("Licence", model.get("licence") or ""), ("Submitter", sub.get("submitter") or ""),
            ("Description", meta.get("description") or ""), ("Method", meta.get("method") or ""),
            ("Verified", "yes (scored by the server)" if sub["verified"] else "no (self-reported, not ranked)"),
            ("Submitted", fmt.when(sub["created_at"])),
            ("figbench version", str(prov.get("figbench_version", ""))), ("Command", str(prov.get("command", ""))),
            ("Seed", str(prov.get("seed", ""))), ("Hardware", str(prov.get("hardware", ""))),
            ("Selection", _selection(prov.get("selection")))]
    parts = ['<div class="fb-detail"><table>']
    parts += [f"<tr><th>{e(k)}</th><td>{e(str(v))}</td></tr>" for k, v in rows]
    parts.append(f"<tr><th>Model link</th><td>{_link(model.get('link'))}</td></tr>")
    parts.append(f"<tr><th>Paper</th><td>{_link(meta.get('paper'))}</td></tr>")
    parts.append("</table>")
    scores = sub.get("scores") or {}
    if scores:
        cis, informed = sub.get("confidence_intervals") or {}, row_test_informed(sub)
        mism = sub.get("mismatches") or {}
        order = list(task.metric_names) if task is not None else []
        names = [m for m in order if m in scores] + sorted(set(scores) - set(order))
        parts.append("<h4>Scores (percent, 95% bootstrap interval)</h4><table><tr><th>metric</th><th>score</th>"
                     "<th>interval</th><th>self-reported</th></tr>")
        for m in names:
            title = task.metric(m).title if task is not None and m in order else m
            ci = cis.get(m)
            ci_s = f"[{fmt.pct(ci.get('low'), decimals)}, {fmt.pct(ci.get('high'), decimals)}]" if ci else ""
            rep = mism.get(m, {}).get("reported")
            rep_s = f"{fmt.pct(rep, decimals)} (mismatch)" if rep is not None else ""
            parts.append(f"<tr><td>{e(title)}</td><td>{marked(fmt.pct(scores[m], decimals), informed)}</td>"
                         f"<td>{ci_s}</td><td>{e(rep_s)}</td></tr>")
        parts.append("</table>")
    parts.append("</div>")
    return "".join(parts)
