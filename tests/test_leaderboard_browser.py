"""The served leaderboard in a real browser: Playwright driving Debian's Chromium (/usr/bin/chromium).

The server runs ``figbench leaderboard serve`` in a subprocess on a free localhost port, with gold
labels from the synthetic fixture file. Screenshots go to ``leaderboard/screenshots/``.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

import pytest

from figbench_leaderboard.client import submit
from figbench_leaderboard.store import Store

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
FIX = Path(__file__).parent / "fixtures" / "leaderboard"
GOLD = FIX / "gold.json"
SHOTS = ROOT / "leaderboard" / "screenshots"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
HOSTILE_NAME = 'evil<img src=x onerror="window.__pwned=1">'


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _sub(path: Path, tmp: Path, **changes) -> Path:
    obj = json.loads(path.read_text())
    for k, v in changes.items():
        if k == "model":
            obj["model"].update(v)
        else:
            obj[k] = v
    out = tmp / f"sub-{len(list(tmp.glob('sub-*')))}.json"
    out.write_text(json.dumps(obj))
    return out


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian chromium is not installed (apt-get install -y chromium chromium-driver)")
    tmp = tmp_path_factory.mktemp("lb")
    store = tmp / "store"
    cdec = FIX / "predictions_cdec.json"
    meto = FIX / "predictions_metonymy.json"
    for path in (cdec, meto,
                 _sub(meto, tmp, model={"name": "big-llm", "type": "prompted LLM", "parameters": 7_000_000_000}),
                 _sub(cdec, tmp, dataset="ecbmeta", config="meta_m",   # the drop on metaphoric paraphrases
                      predictions=[["m1"], ["m2", "m3"], ["m4", "m5", "m6"], ["m7"], ["m8", "m9"], ["m10"]]),
                 _sub(cdec, tmp, model={"name": "knn-fixture", "type": "retrieval", "parameters": 22_000_000},
                      predictions=[["m1", "m2", "m3"], ["m4", "m5"], ["m6", "m9"], ["m7", "m8"], ["m10"]]),
                 _sub(cdec, tmp, model={"name": "knn-fixture", "type": "retrieval", "parameters": 22_000_000},
                      dataset="ecbmeta", config="meta_m",
                      predictions=[["m1", "m2"], ["m3", "m4", "m5"], ["m6", "m9"], ["m7", "m8"], ["m10"]]),
                 _sub(meto, tmp, model={"name": HOSTILE_NAME, "revision": "x", "licence": "<b>bold</b>"},
                      description="<script>window.__pwned=1</script>")):
        assert submit(path, store, gold_json=GOLD)["status"] == "FINISHED"
    port = _free_port()
    env = {**os.environ, "GRADIO_ANALYTICS_ENABLED": "False", "OMP_NUM_THREADS": "2"}
    proc = subprocess.Popen([sys.executable, "-m", "figbench.cli", "leaderboard", "serve", "--store", str(store),
                             "--port", str(port), "--gold-json", str(GOLD), "--max-upload-mb", "1",
                             "--rate-limit", "60"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, cwd=tmp)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 120
    while True:
        try:
            with urllib.request.urlopen(url + "/", timeout=5) as r:
                if r.status == 200:
                    break
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        if proc.poll() is not None or time.time() > deadline:
            out = proc.stdout.read() if proc.poll() is not None else ""
            proc.kill()
            pytest.fail(f"leaderboard server did not start: {out[-2000:]}")
        time.sleep(0.5)
    yield {"url": url, "store": store, "tmp": tmp}
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="module")
def browser_ctx(server):
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
        ctx.set_default_timeout(60000)   # the machine is shared: be patient, not flaky
        requests: list[str] = []
        ctx.on("request", lambda r: requests.append(r.url))
        yield ctx, requests
        ctx.close()
        browser.close()


@pytest.fixture()
def page(server, browser_ctx):
    ctx, _ = browser_ctx
    pg = ctx.new_page()
    pg.goto(server["url"] + "/", wait_until="networkidle", timeout=90000)
    pg.wait_for_selector("#overview-table table", timeout=90000)
    pg.wait_for_function("document.querySelector('#overview-table').innerText.includes('lemma-fixture')",
                         timeout=90000)
    yield pg
    pg.close()


def _table_text(page, elem="#overview-table") -> str:
    return page.locator(elem).inner_text()


def _rows(page, elem) -> list[str]:
    """Text of each body row of a Gradio dataframe, cells separated by ' | '."""
    js = """e => Array.from(document.querySelectorAll(e + ' [role=row][data-index]')).map(
        r => Array.from(r.querySelectorAll('[role=gridcell]')).map(c => c.innerText.trim()).join(' | '))"""
    return page.evaluate(js, elem)


def _wait_text(page, elem, text, present=True, timeout=60000):
    fn = "([e, t, p]) => (document.querySelector(e)?.innerText || '').includes(t) === p"
    page.wait_for_function(fn, arg=[elem, text, present], timeout=timeout)


def _tab(page, name):
    page.get_by_role("tab", name=name, exact=True).click()


def test_page_loads_offline_and_escapes_html(page, browser_ctx):
    text = _table_text(page)
    assert "lemma-fixture" in text and "big-llm" in text and "majority-baseline" in text
    assert HOSTILE_NAME in text                       # shown as text...
    assert page.evaluate("window.__pwned") is None    # ...never run
    assert page.locator("#overview-table img").count() == 0
    page.screenshot(path=str(SHOTS / "overview.png"), full_page=True)
    _, requests = browser_ctx
    outside = [u for u in requests if urlparse(u).scheme in ("http", "https", "ws", "wss")
               and urlparse(u).hostname not in ("127.0.0.1", "localhost")]
    assert not outside, f"the page tried to reach the internet: {outside[:5]}"


def test_search_and_filters_change_the_table(page):
    search = page.locator("#search-box textarea, #search-box input").first
    search.fill("lemma")
    _wait_text(page, "#overview-table", "majority-baseline", present=False)
    assert "lemma-fixture" in _table_text(page)
    search.fill("")
    _wait_text(page, "#overview-table", "majority-baseline")

    page.locator("#type-filter label", has_text="heuristic").click()
    _wait_text(page, "#overview-table", "lemma-fixture", present=False)
    assert "big-llm" in _table_text(page)
    page.locator("#type-filter label", has_text="heuristic").click()
    _wait_text(page, "#overview-table", "lemma-fixture")

    page.locator("#size-filter label", has_text="1B-10B").click()
    _wait_text(page, "#overview-table", "big-llm", present=False)
    page.locator("#size-filter label", has_text="1B-10B").click()
    _wait_text(page, "#overview-table", "big-llm")

    first = lambda: _rows(page, "#overview-table")[0].split(" | ")[0]  # noqa: E731
    assert first() == "knn-fixture"                         # best average first
    page.locator("#sort-by input").click()
    page.get_by_role("option", name="Model", exact=True).click()
    page.locator("#sort-order label", has_text="ascending").click()
    page.wait_for_function("() => { const c = document.querySelector('#overview-table [role=gridcell]');"
                           " return c && c.innerText.trim() === 'big-llm'; }")
    header = page.locator("#overview-table thead")
    assert "ECB+META_m" in header.inner_text()
    page.locator("#column-select label", has_text="ECB+META_m").click()
    page.wait_for_function("!document.querySelector('#overview-table thead').innerText.includes('ECB+META_m')")


def test_csv_and_json_download(page, server):
    page.locator("#download-csv").click()
    page.wait_for_selector("#download-file a[href*='.csv']", timeout=60000)
    href = page.locator("#download-file a[href*='.csv']").first.get_attribute("href")
    with urllib.request.urlopen(href if href.startswith("http") else server["url"] + href, timeout=10) as r:
        text = r.read().decode("utf-8")
    assert text.splitlines()[0].startswith("Model,Revision,Type,Parameters,Average")
    assert "lemma-fixture" in text
    page.locator("#download-json").click()
    page.wait_for_selector("#download-file a[href*='.json']", timeout=60000)
    href = page.locator("#download-file a[href*='.json']").first.get_attribute("href")
    with urllib.request.urlopen(href if href.startswith("http") else server["url"] + href, timeout=10) as r:
        rows = json.loads(r.read())
    assert {"lemma-fixture", "big-llm"} <= {row["Model"] for row in rows}


def test_task_tab_and_plot(page):
    _tab(page, "Coreference")
    _wait_text(page, "#family-coreference-table", "conll_f1")
    text = _table_text(page, "#family-coreference-table")
    assert "ECB+META_m" in text and "[" in text   # sub-metrics with intervals
    page.screenshot(path=str(SHOTS / "task_tab.png"), full_page=True)
    _tab(page, "Plots")
    page.wait_for_selector("#robustness-plot img, #robustness-plot canvas, #robustness-plot svg", timeout=60000)
    page.wait_for_timeout(500)
    page.screenshot(path=str(SHOTS / "plot.png"), full_page=True)


def _upload(page, path: Path):
    if page.locator("#submit-file input[type=file]").count() == 0:   # a file is shown: remove it first
        page.locator("#submit-file button[aria-label='Clear']").first.click()
        page.wait_for_selector("#submit-file input[type=file]", state="attached")
    page.locator("#submit-file input[type=file]").set_input_files(str(path))
    page.wait_for_function(f"document.querySelector('#submit-file').innerText.includes({json.dumps(path.stem)})",
                           timeout=60000)


def test_form_submission_reaches_finished_with_metric_score(page, server):
    from sklearn.metrics import accuracy_score

    tmp = server["tmp"]
    preds = {"w1": "LOCATION", "w2": "TEAM", "w3": "TEAM", "w4": "INSTITUTE", "w5": "LOCATION", "w6": "ARTIFACT",
             "w7": "LOCATION", "w8": "TEAM"}
    path = _sub(FIX / "predictions_metonymy.json", tmp, predictions=preds, model={"name": "file-name"})
    _tab(page, "Submit")
    _upload(page, path)
    page.locator("#f-name textarea, #f-name input").first.fill("browser-model")
    page.locator("#f-submitter textarea, #f-submitter input").first.fill("playwright")
    page.locator("#f-description textarea").first.fill("submitted through the form")
    page.screenshot(path=str(SHOTS / "form.png"), full_page=True)
    page.locator("#submit-button").click()
    page.wait_for_selector("#fb-submit-ok", timeout=60000)
    _tab(page, "Queue")
    deadline = time.time() + 60
    while True:
        page.locator("#queue-refresh").click()
        page.wait_for_timeout(700)
        rows = [r for r in _rows(page, "#queue-table") if "browser-model" in r]
        if any("FINISHED" in r for r in rows) or time.time() > deadline:
            break
    assert any("FINISHED" in r for r in rows), rows
    sub = next(r for r in Store(server["store"]).list() if r["model_name"] == "browser-model")
    gold = json.loads(GOLD.read_text())["metonymy/wimcor/sample/test"]["labels"]
    expected = accuracy_score([gold[k] for k in sorted(gold)], [preds[k] for k in sorted(gold)])
    assert sub["status"] == "FINISHED" and sub["submitter"] == "playwright"
    assert sub["scores"]["micro_f1"] == pytest.approx(expected)
    # the detail view shows it
    _tab(page, "Submission detail")
    page.locator("#detail-id textarea, #detail-id input").first.fill(sub["id"][:10])
    page.locator("#detail-button").click()
    _wait_text(page, "#detail-html", "browser-model")
    assert f"{100 * expected:.2f}" in _table_text(page, "#detail-html")


def test_malformed_upload_shows_error_and_store_unchanged(page, server):
    before = Store(server["store"]).count()
    bad = _sub(FIX / "predictions_metonymy.json", server["tmp"], model={"name": "bad-model"},
               predictions={"w1": "LOCATION", "zzz": "TEAM"})
    _tab(page, "Submit")
    _upload(page, bad)
    page.locator("#submit-button").click()
    page.wait_for_selector("#fb-submit-error", timeout=60000)
    msg = page.locator("#fb-submit-error").inner_text()
    assert "unknown example id" in msg and "'zzz'" in msg
    page.screenshot(path=str(SHOTS / "form_error.png"), full_page=True)
    not_json = server["tmp"] / "broken.json"
    not_json.write_text('{"format": "figbench-predictions/1", "predictions": NaN}')
    _upload(page, not_json)
    page.locator("#submit-button").click()
    _wait_text(page, "#submit-result", "NaN")
    assert Store(server["store"]).count() == before


def test_detail_view_escapes_every_field(page, server):
    sid = next(r["id"] for r in Store(server["store"]).list() if r["model_name"] == HOSTILE_NAME)
    _tab(page, "Submission detail")
    page.locator("#detail-id textarea, #detail-id input").first.fill(sid)
    page.locator("#detail-button").click()
    _wait_text(page, "#detail-html", "window.__pwned")
    html_text = page.locator("#detail-html").inner_text()
    assert "<script>window.__pwned=1</script>" in html_text and "<b>bold</b>" in html_text
    assert page.locator("#detail-html img, #detail-html script, #detail-html b").count() == 0
    assert page.evaluate("window.__pwned") is None


def test_twenty_concurrent_api_submissions_all_stored(server):
    import threading

    from gradio_client import Client

    before = Store(server["store"]).count()
    base = json.loads((FIX / "predictions_metonymy.json").read_text())
    clients = [Client(server["url"], verbose=False) for _ in range(4)]
    results, errors = [], []
    barrier = threading.Barrier(20)

    def go(i):
        sub = dict(base, model=dict(base["model"], name=f"concurrent-{i}"))
        try:
            barrier.wait()
            reply = json.loads(clients[i % 4].predict(json.dumps(sub), f"user{i}", api_name="/submit_json"))
            results.append(reply)
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=go, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors and len(results) == 20 and all(r["ok"] for r in results), (errors, results)
    names = {r["model_name"] for r in Store(server["store"]).list()}
    assert {f"concurrent-{i}" for i in range(20)} <= names
    assert Store(server["store"]).count() == before + 20


def test_api_submit_and_no_gold_download(server):
    from gradio_client import Client

    url = server["url"]
    tmp = server["tmp"]
    out = submit(_sub(FIX / "predictions_metonymy.json", tmp, model={"name": "api-model"}), url, submitter="cli")
    assert out["status"] == "PENDING" and out["verified"]
    client = Client(url, verbose=False)
    deadline = time.time() + 60
    while True:
        status = json.loads(client.predict(out["id"], api_name="/submission_status"))
        if status["submission"]["status"] in ("FINISHED", "FAILED") or time.time() > deadline:
            break
        time.sleep(0.5)
    assert status["submission"]["status"] == "FINISHED"
    assert status["submission"]["scores"]["micro_f1"] == pytest.approx(0.5)
    with pytest.raises(ValueError, match="unknown example id"):
        submit(_sub(FIX / "predictions_metonymy.json", tmp, model={"name": "api-bad"}, predictions={"q": "TEAM"}),
               url)
    # only the two JSON endpoints are public; nothing returns gold labels
    api = client.view_api(return_format="dict", print_info=False)
    assert sorted(api["named_endpoints"]) == ["/submission_status", "/submit_json"]
    # gold and database files are not served
    for path in (GOLD, server["store"] / "leaderboard.sqlite"):
        for route in (f"/gradio_api/file={path}", f"/file={path}"):
            try:
                with urllib.request.urlopen(url + route, timeout=10) as r:
                    body = r.read()
                    assert r.status != 200 or b"metonymy/wimcor" not in body and b"SQLite" not in body
            except urllib.error.HTTPError as e:
                assert e.code in (403, 404, 405)
