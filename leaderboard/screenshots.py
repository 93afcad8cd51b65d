"""Serve a store on localhost and drive it with Playwright in Debian's Chromium.

``figbench leaderboard screenshots --store STORE --out DIR`` takes the README's screenshots from a
real store (e.g. one filled by ``figbench quickstart``); the browser tests use the same helpers
(:func:`serving`, :func:`chromium_page`) and write their screenshots to a temporary folder.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
VIEWPORT = {"width": 1400, "height": 1000}


def chromium_path(default: str = "/usr/bin/chromium") -> str:
    return shutil.which("chromium") or default


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve_command(store: str | os.PathLike, port: int, *, gold_json: str | os.PathLike | None = None,
                  data_dir: str | os.PathLike | None = None, args: Sequence[str] = (),
                  python: str | os.PathLike | None = None) -> list[str]:
    """The ``figbench leaderboard serve`` command line (run by ``python``, default this interpreter: another
    environment's, e.g. a wheel installed in a fresh venv); paths are made absolute, because the server runs in
    another folder (a relative ``--store`` would open a new, empty store there)."""
    store_arg = store if "://" in str(store) else Path(store).resolve()
    cmd = [str(python or sys.executable), "-m", "figbench.cli", "leaderboard", "serve", "--store", str(store_arg),
           "--port", str(port)]
    if gold_json:
        cmd += ["--gold-json", str(Path(gold_json).resolve())]
    if data_dir:
        cmd += ["--data-dir", str(Path(data_dir).resolve())]
    return cmd + list(args)


@contextmanager
def serving(store: str | os.PathLike, *, gold_json: str | os.PathLike | None = None,
            data_dir: str | os.PathLike | None = None, args: Sequence[str] = (), env: dict[str, str] | None = None,
            cwd: str | os.PathLike | None = None, timeout_s: float = 180.0,
            python: str | os.PathLike | None = None) -> Iterator[dict[str, Any]]:
    """``figbench leaderboard serve`` in a subprocess on a free localhost port (run by ``python``, see
    :func:`serve_command`); yields ``{"url", "proc", "port", "log"}``."""
    port = free_port()
    cmd = serve_command(store, port, gold_json=gold_json, data_dir=data_dir, args=args, python=python)
    full_env = {**os.environ, "GRADIO_ANALYTICS_ENABLED": "False", "OMP_NUM_THREADS": "2", **(env or {})}
    log = Path(cwd or ".") / f"serve-{port}.log" if cwd else None
    out = open(log, "w") if log else subprocess.DEVNULL
    proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=full_env, cwd=cwd)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + timeout_s
    try:
        while True:
            try:
                with urllib.request.urlopen(url + "/", timeout=5) as r:
                    if r.status == 200:
                        break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            if proc.poll() is not None or time.time() > deadline:
                tail = log.read_text()[-3000:] if log else ""
                raise RuntimeError(f"leaderboard server did not start: {tail}")
            time.sleep(0.1)   # a start takes seconds: polled often, it is seen within 0.1 s of answering
        yield {"url": url, "proc": proc, "port": port, "log": log}
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
        if log:
            out.close()


@contextmanager
def chromium_context(chromium: str | None = None, viewport: dict | None = None):
    """A Playwright browser context in Debian's Chromium (never ``playwright install``)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium or chromium_path(), headless=True, args=FLAGS)
        ctx = browser.new_context(viewport=viewport or VIEWPORT)
        ctx.set_default_timeout(60000)
        try:
            yield ctx
        finally:
            ctx.close()
            browser.close()


def open_board(ctx, url: str, *, wait_table: bool = True):
    page = ctx.new_page()
    page.goto(url + "/", wait_until="domcontentloaded", timeout=90000)
    if wait_table:
        page.wait_for_selector("#overview-table td", timeout=90000)
    return page


def _tab(page, name: str) -> None:
    page.get_by_role("tab", name=name, exact=True).click()


def take_screenshots(store: str | os.PathLike, out: str | os.PathLike, *, gold_json=None, data_dir=None,
                     chromium: str | None = None) -> list[Path]:
    """Serve ``store`` and write overview, a task tab, plots, queue, form and a refused upload to ``out``."""
    import tempfile

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory() as tmp, serving(store, gold_json=gold_json, data_dir=data_dir, cwd=tmp) as srv, \
            chromium_context(chromium) as ctx:
        page = open_board(ctx, srv["url"])
        page.wait_for_timeout(500)
        written.append(out / "overview.png")
        page.screenshot(path=str(written[-1]), full_page=False)
        tabs = [t.inner_text() for t in page.get_by_role("tab").all()]
        family = next((t for t in tabs if t not in ("Overview", "Plots", "Submission detail", "Submit", "Queue",
                                                    "About")), None)
        if family:
            _tab(page, family)
            page.wait_for_selector("[id^=task-] td, [id^=task-] .fb-empty", timeout=60000)
            page.wait_for_timeout(500)
            written.append(out / "task_tab.png")
            page.screenshot(path=str(written[-1]), full_page=False)
        _tab(page, "Plots")
        page.wait_for_selector("#board-plot .js-plotly-plot", timeout=60000)
        page.wait_for_timeout(1000)
        written.append(out / "plot.png")
        page.screenshot(path=str(written[-1]), full_page=False)
        _tab(page, "Queue")
        page.wait_for_selector("#queue-table td", timeout=60000)
        written.append(out / "queue.png")
        page.screenshot(path=str(written[-1]), full_page=False)
        _tab(page, "Submit")
        bad = Path(tmp) / "not-a-submission.json"
        bad.write_text('{"format": "figbench-predictions/1", "predictions": NaN}')
        page.locator("#f-name textarea, #f-name input").first.fill("my-org/my-model")
        written.append(out / "form.png")
        page.screenshot(path=str(written[-1]), full_page=False)
        page.locator("#submit-file input[type=file]").set_input_files(str(bad))
        page.wait_for_function("document.querySelector('#submit-file').innerText.includes('not-a-submission')")
        page.locator("#submit-button").click()
        page.wait_for_selector("#fb-submit-error", timeout=60000)
        written.append(out / "form_error.png")
        page.screenshot(path=str(written[-1]), full_page=False)
    return written
