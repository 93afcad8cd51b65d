"""Number and text formatting shared by every table, the detail view, plots and downloads.

One decimal in percent, blanks as "–", intervals as ``value [low, high]``, parameters as ``22.7M``;
:func:`csv_safe` neutralises spreadsheet formulas; :func:`plot_text` makes a name inert in Plotly.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import pandas as pd

BLANK = "–"


def missing(x: Any) -> bool:
    """None, NaN, pandas NA."""
    if x is None:
        return True
    if isinstance(x, float):
        return x != x
    if isinstance(x, (int, str, bytes, Mapping, list, tuple)):
        return False
    try:
        return bool(pd.isna(x))
    except (TypeError, ValueError):
        return False


def pct(x: float | None, decimals: int = 1) -> str:
    """A fraction as percent with ``decimals`` decimals, or "–"."""
    return BLANK if missing(x) else f"{100.0 * float(x):.{decimals}f}"


def pct_ci(x: float | None, ci: Mapping[str, Any] | None, decimals: int = 1) -> str:
    """``65.1 [63.9, 66.3]`` (percent), or the value alone, or "–"."""
    if missing(x):
        return BLANK
    s = pct(x, decimals)
    if ci and not missing(ci.get("low")) and not missing(ci.get("high")):
        s += f" [{pct(ci['low'], decimals)}, {pct(ci['high'], decimals)}]"
    return s


def value_ci(v: float | None, low: float | None, high: float | None) -> str:
    """Like :func:`pct_ci` for values already in percent."""
    if missing(v):
        return BLANK
    s = f"{float(v):.1f}"
    if not missing(low) and not missing(high):
        s += f" [{float(low):.1f}, {float(high):.1f}]"
    return s


def params(n: Any) -> str:
    """``22.7M``, ``7.0B``, ``125.0K``, ``0``; "–" when unknown."""
    if missing(n):
        return BLANK
    n = float(n)
    for div, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")):
        if n >= div:
            return f"{n / div:.1f}{suffix}"
    return f"{int(n)}"


def when(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M UTC")


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n", "|", "%")


def csv_safe(value: Any) -> Any:
    """A text cell a spreadsheet will not evaluate: a leading ``= + - @`` (or tab/CR) gets a ``'`` prefix."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


#: the most characters of a model name a table cell shows (its column is at most 24em wide)
TABLE_NAME_CHARS = 36


def elide(text: str, limit: int) -> str:
    """``text`` in at most ``limit`` characters: its head, ``…`` and its tail. Two long names that share
    their first ``limit`` characters still look different (a name's distinguishing part is often its end:
    ``org/model-7b-instruct-v2``)."""
    if len(text) <= limit:
        return text
    tail = (limit - 1) // 2
    return text[: limit - 1 - tail] + "…" + text[len(text) - tail:]


def plot_text(value: Any, limit: int = 60) -> str:
    """A name as inert Plotly text: HTML-escaped (Plotly renders a subset of HTML), no ``$`` (LaTeX), at most
    ``limit`` characters (:func:`elide`)."""
    text = elide(str(value), limit)
    return html.escape(text, quote=True).replace("$", "&#36;").replace("%{", "%&#123;")


def html_table(df, *, table_id: str, links: dict[str, list[str | None]] | None = None,
               empty: str = "No submissions yet.") -> str:
    """A static HTML table of a frame of display strings: every cell escaped, numbers right-aligned;
    ``links``: column -> per-row submission ids, making those cells links to the detail view."""
    import html as _html

    if df is None or len(df) == 0:
        return f'<div class="fb-table-wrap" id="{table_id}"><p class="fb-empty">{_html.escape(empty)}</p></div>'
    cols = list(df.columns)
    numeric = {c for c in cols if c not in ("Model", "Type", "Benchmark", "Submitter", "Reason", "Status",
                                            "Submission", "Submitted", "Revision", "Verified")}
    head = "".join(f'<th scope="col"{" class=num" if c in numeric else ""}>{_html.escape(str(c))}</th>' for c in cols)
    body = []
    for i, row in enumerate(df.itertuples(index=False)):
        cells = []
        for c, v in zip(cols, row):
            text = _html.escape(elide(str(v), TABLE_NAME_CHARS) if c == "Model" else str(v))
            sid = (links or {}).get(c, [None] * len(df))[i]
            if sid and isinstance(sid, str) and sid.isalnum():
                text = f'<a href="?submission={sid}">{text}</a>'
            title = f' title="{_html.escape(str(v), quote=True)}"' if c == "Model" else ""  # truncated names
            cells.append(f'<td{" class=num" if c in numeric else ""}{title}>{text}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (f'<div class="fb-table-wrap" id="{table_id}"><table class="fb-table"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table></div>")
