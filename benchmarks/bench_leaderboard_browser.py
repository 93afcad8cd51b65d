"""Leaderboard in Chromium: seconds from a page load or a tab click to the tab's first content.

Target (issue 13): with 5,000 submissions whose free-form fields are all at their limits, every tab
shows its first content in under 2 s. A store is filled (``figbench_leaderboard.store.synthetic``), served
by ``figbench leaderboard serve`` on localhost and opened in Debian's Chromium through Playwright.
Each repeat is a fresh page (the server's cached view is warmed by one load first); the table
prints the median and the worst per tab, and two references measured in the same run: Gradio's own
page boot (tabs mounted, any app pays it) and the static About tab (what a click costs the browser
by itself). On a loaded machine compare the board's share (time minus the reference).

    python benchmarks/bench_leaderboard_browser.py [--size 5000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOLD = ROOT / "tests" / "fixtures" / "leaderboard" / "gold.json"
TARGET_S = 2.0

#: tab -> CSS selector of its first content
TARGETS = {"Coreference": "#task-cdec-table td",
           "Meta4XNLI": "#task-metaphor_detection-table td",
           "WiMCor": "#task-metonymy-table td",
           "ePiC": "#task-proverb_prediction-table td",
           "Plots": "#board-plot .js-plotly-plot .scatterlayer .point",
           "Queue": "#queue-table td",
           "About": "text=About this leaderboard"}


def tab_timings(ctx, url: str, *, timeout_ms: int = 60000) -> dict[str, float]:
    """One fresh page: seconds to Gradio's mounted tabs, to the overview table, then to each tab's content."""
    page = ctx.new_page()
    try:
        t0 = time.perf_counter()
        page.goto(url + "/", wait_until="commit")
        page.wait_for_selector("[role=tab]", timeout=timeout_ms)
        out = {"Gradio page boot (reference)": time.perf_counter() - t0}
        page.wait_for_selector("#overview-table td", timeout=timeout_ms)
        out["Overview (page load)"] = time.perf_counter() - t0
        # a reader looks at the table first; meanwhile the page preloads Plotly in idle time
        page.wait_for_function("window.__fbPlotlyReady === true", timeout=timeout_ms)
        page.wait_for_timeout(500)
        for tab, selector in TARGETS.items():
            t0 = time.perf_counter()
            page.get_by_role("tab", name=tab, exact=True).click()
            page.wait_for_selector(selector, timeout=timeout_ms)
            out[tab] = time.perf_counter() - t0
        return out
    finally:
        page.close()


def measure(size: int, repeats: int, *, chromium: str | None = None) -> dict[str, list[float]]:
    """Fill a store with ``size`` maximal submissions, serve it, and time ``repeats`` fresh page loads."""
    from figbench_leaderboard.screenshots import chromium_context, chromium_path, open_board, serving
    from figbench_leaderboard.store.sqlite import Store
    from figbench_leaderboard.store.synthetic import fill_store

    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "store")
        fill_store(store, size, n_models=max(1, size // 11), maximal=True)
        store.close()
        with serving(Path(tmp) / "store", gold_json=GOLD, cwd=tmp) as srv, \
                chromium_context(chromium or chromium_path()) as ctx:
            open_board(ctx, srv["url"]).close()  # warms the server's cached view
            runs = [tab_timings(ctx, srv["url"]) for _ in range(repeats)]
    return {k: [r[k] for r in runs] for k in runs[0]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=5000, help="stored submissions (default 5000)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--chromium", default=None, help="Chromium binary (default: Debian's /usr/bin/chromium)")
    args = ap.parse_args(argv)
    timings = measure(args.size, args.repeats, chromium=args.chromium)
    load = os.getloadavg()[0] / (os.cpu_count() or 1)
    print(f"\n{args.size:,} submissions, every free-form field at its limit; {args.repeats} fresh page loads; "
          f"load {load:.1f} per core; seconds")
    print(f"{'':30} {'median':>8} {'worst':>8}")
    for k, v in timings.items():
        print(f"{k:30} {statistics.median(v):>8.2f} {max(v):>8.2f}")
    medians = {k: statistics.median(v) for k, v in timings.items() if "reference" not in k}
    slow = {k: round(v, 2) for k, v in medians.items() if v >= TARGET_S}
    print(f"\ntarget: every tab's first content < {TARGET_S:.0f} s (median) at {args.size:,}: "
          + ("PASS" if not slow else f"FAIL {slow}"))
    print(json.dumps({"size": args.size, "repeats": args.repeats, "load_per_core": round(load, 2),
                      "seconds": timings}))
    return 0 if not slow else 1


if __name__ == "__main__":
    sys.exit(main())
