"""The served leaderboard in a real browser: Playwright driving Debian's Chromium (/usr/bin/chromium).

The server is ``figbench leaderboard serve`` in a subprocess on a free localhost port, gold labels from
the synthetic fixture file. Screenshots go to a temporary folder (never to the tracked
``leaderboard/screenshots/``; ``figbench leaderboard screenshots`` refreshes those). Besides the board's
features, each issue-13 attack that reaches the UI is performed here, with screenshots compared before
and after where the attack must leave the board unchanged, and every tab shows its content on a board
whose free-form fields are all at their limits (the 2-second target at 5,000 such submissions is timed
by ``benchmarks/bench_leaderboard_browser.py``, not here).
"""

from __future__ import annotations

import io
import json
import time
import urllib.error
import urllib.request
import warnings
from pathlib import Path
from urllib.parse import urlparse

import pytest
from figbench_leaderboard.client import submit
from figbench_leaderboard.screenshots import chromium_context, chromium_path, open_board, serving
from figbench_leaderboard.store.sqlite import Store

pytestmark = pytest.mark.browser

FIX = Path(__file__).parent / "fixtures" / "leaderboard"
GOLD = FIX / "gold.json"
CHROMIUM = chromium_path()
HOSTILE_NAME = 'evil<img src=x onerror="window.__pwned=1">'
MATHTEXT_NAME = "$x^{2}_{1}$<img src=x onerror=window.__pwned=2>"
FORMULA_NAME = '=HYPERLINK("x";"click")'


def _sub(path: Path, tmp: Path, **changes) -> Path:
    obj = json.loads(path.read_text())
    obj.pop("submitter", None)
    for k, v in changes.items():
        if k == "model":
            obj["model"].update(v)
        else:
            obj[k] = v
    out = tmp / f"sub-{len(list(tmp.glob('sub-*')))}.json"
    out.write_text(json.dumps(obj))
    return out


def _record(tmp: Path, name: str, micro_f1: float) -> Path:
    from figbench.results import RunClock, make_result, provenance

    rec = make_result(task="metonymy", dataset="wimcor", config="sample", split="test",
                      model={"name": name, "revision": None, "type": "other", "parameters": None},
                      scores={"micro_f1": micro_f1}, confidence_intervals={}, predictions=None,
                      provenance=provenance(RunClock(), seed=0))
    out = tmp / f"rec-{name}.json"
    out.write_text(json.dumps(rec))
    return out


DEV = [["d1", "d2"], ["d3"], ["d4", "d5", "d6"], ["d7"]]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian chromium is not installed (apt-get install -y chromium chromium-driver)")
    tmp = tmp_path_factory.mktemp("lb")
    store = tmp / "store"
    cdec, meto = FIX / "predictions_cdec.json", FIX / "predictions_metonymy.json"
    knn = {"name": "knn-fixture", "type": "retrieval", "parameters": 22_000_000}
    for path in (cdec, meto,
                 _sub(meto, tmp, model={"name": "big-llm", "type": "prompted LLM", "parameters": 7_000_000_000}),
                 _sub(cdec, tmp, dataset="ecbmeta", config="meta_m",   # the drop on metaphoric paraphrases
                      predictions=[["m1"], ["m2", "m3"], ["m4", "m5", "m6"], ["m7"], ["m8", "m9"], ["m10"]]),
                 _sub(cdec, tmp, dataset="ecbmeta", config="meta_1", split="dev_small",
                      predictions=DEV[:2] + [["d4"], ["d5", "d6"], ["d7"]]),
                 _sub(cdec, tmp, model=knn, predictions=[["m1", "m2", "m3"], ["m4", "m5"], ["m6", "m9"], ["m7", "m8"],
                                                         ["m10"]]),
                 _sub(cdec, tmp, model=knn, dataset="ecbmeta", config="meta_m",
                      predictions=[["m1", "m2"], ["m3", "m4", "m5"], ["m6", "m9"], ["m7", "m8"], ["m10"]]),
                 _sub(cdec, tmp, model=knn, dataset="ecbmeta", config="meta_1", split="dev_small", predictions=DEV),
                 _sub(meto, tmp, model={"name": HOSTILE_NAME, "revision": "x", "licence": "<b>bold</b>"},
                      description="<script>window.__pwned=1</script>"),
                 _sub(meto, tmp, model={"name": MATHTEXT_NAME, "revision": "m", "parameters": 1_000_000}),
                 _sub(meto, tmp, model={"name": FORMULA_NAME, "revision": "f"}),
                 _record(tmp, "self-reported-99", 0.99)):
        assert submit(path, store, gold_json=GOLD)["status"] == "FINISHED"
    cache = tmp / "gradio-cache"
    with serving(store, gold_json=GOLD, cwd=tmp, env={"GRADIO_TEMP_DIR": str(cache)},
                 args=["--max-upload-mb", "1", "--rate-limit", "200", "--hidden-quota", "100",
                       "--min-changed", "0"]) as srv:
        yield {"url": srv["url"], "store": store, "tmp": tmp, "cache": cache, "shots": tmp / "shots",
               "log": srv["log"]}


@pytest.fixture(scope="module")
def browser_ctx(server):
    server["shots"].mkdir(exist_ok=True)
    with chromium_context(CHROMIUM) as ctx:
        requests: list[str] = []
        ctx.on("request", lambda r: requests.append(r.url))
        yield ctx, requests


SHOWS_OVERVIEW = "document.querySelector('#overview-table')?.innerText.includes('lemma-fixture')"


def _what_the_page_said(pg, server, heard: list[str]) -> str:
    """The overview's text, the server log's tail and what the browser logged (console, failed and refused requests)."""
    log = server["log"].read_text()[-4000:] if server.get("log") else ""
    shown = pg.evaluate("document.querySelector('#overview-table')?.innerText ?? '(no #overview-table)'") \
        if pg is not None else "(no page)"
    return (f"--- #overview-table ---\n{shown[:2000]}\n--- server log ---\n{log}\n--- browser ---\n"
            + "\n".join(heard[-60:]))


@pytest.fixture()
def page(server, browser_ctx):
    """A fresh page of the board once its overview shows. A page whose overview has not come after 90 s is
    reloaded once, with a warning carrying what the table, the server and the browser said: CI (at 2b8469d) once
    waited out the 90 s for one page at setup while the pages before and after it loaded in seconds, and that was
    not reproduced in 3 parallel runs at load 12-20; the warning is there to find the cause (a second failure
    fails the test with both reports)."""
    ctx, _ = browser_ctx
    heard: list[str] = []
    listeners = {"console": lambda m: heard.append(f"console {m.type}: {m.text}"),
                 "requestfailed": lambda r: heard.append(f"failed {r.method} {r.url}: {r.failure}"),
                 "response": lambda r: r.status >= 400 and heard.append(f"HTTP {r.status} {r.request.method} {r.url}")}
    for event, fn in listeners.items():
        ctx.on(event, fn)
    pg, first = None, ""
    try:
        for attempt in range(2):
            try:
                if pg is None:
                    pg = open_board(ctx, server["url"], wait_table=False)
                else:
                    pg.reload(wait_until="domcontentloaded", timeout=90000)
                pg.wait_for_function(SHOWS_OVERVIEW, timeout=90000)
                break
            except Exception as e:
                report = f"{e}\n{_what_the_page_said(pg, server, heard)}"
                if attempt:
                    raise AssertionError(f"the board's page did not show its overview, twice:\n{first}\n"
                                         f"=== after a reload ===\n{report}") from e
                first = report
                warnings.warn(f"the board's page did not show its overview in 90 s; reloading it:\n{report}",
                              stacklevel=1)
    finally:
        for event, fn in listeners.items():
            ctx.remove_listener(event, fn)
    yield pg
    pg.close()


def _text(page, elem="#overview-table") -> str:
    return page.locator(elem).inner_text()


def _rows(page, elem) -> list[list[str]]:
    js = """e => Array.from(document.querySelectorAll(e + ' tbody tr')).map(
        r => Array.from(r.querySelectorAll('td')).map(c => c.innerText.trim()))"""
    return page.evaluate(js, elem)


def _headers(page, elem) -> list[str]:
    return page.evaluate("e => Array.from(document.querySelectorAll(e + ' thead th')).map(c => c.innerText.trim())",
                         elem)


def _column(page, elem, name) -> list[str]:
    idx = _headers(page, elem).index(name)
    return [r[idx] for r in _rows(page, elem)]


def _wait_text(page, elem, text, present=True, timeout=60000):
    fn = "([e, t, p]) => (document.querySelector(e)?.innerText || '').includes(t) === p"
    page.wait_for_function(fn, arg=[elem, text, present], timeout=timeout)


def _tab(page, name):
    page.get_by_role("tab", name=name, exact=True).click()


def _open_filters(page):
    if not page.locator("#type-filter").is_visible():
        page.get_by_text("Filters, columns and sorting").click()
        page.wait_for_selector("#type-filter", state="visible")


def _same_image(a: bytes, b: bytes) -> float:
    """Fraction of differing pixels between two PNG screenshots (1.0 if their sizes differ)."""
    from PIL import Image, ImageChops

    ia, ib = Image.open(io.BytesIO(a)).convert("RGB"), Image.open(io.BytesIO(b)).convert("RGB")
    if ia.size != ib.size:
        return 1.0
    diff = ImageChops.difference(ia, ib).convert("L").point(lambda v: 255 if v > 16 else 0)
    return sum(diff.histogram()[255:]) / (ia.size[0] * ia.size[1])


# --- the board ---------------------------------------------------------------------------------

def test_page_loads_offline_and_escapes_html(page, browser_ctx, server):
    text = _text(page)
    assert "lemma-fixture" in text and "knn-fixture" in text
    # issue 20: the board says which gold is public (every benchmark here) instead of claiming hidden gold
    assert "against hidden gold labels" not in text and "public test set" in _text(page, "#gold-legend")
    assert "WiMCor (sample): public test set" in _text(page, "#gold-legend")
    page.screenshot(path=str(server["shots"] / "overview.png"))
    _, requests = browser_ctx
    outside = [u for u in requests if urlparse(u).scheme in ("http", "https", "ws", "wss")
               and urlparse(u).hostname not in ("127.0.0.1", "localhost")]
    assert not outside, f"the page tried to reach the internet: {outside[:5]}"
    page.locator("#group-select input").click()
    page.get_by_role("option", name="WiMCor", exact=True).click()
    _wait_text(page, "#overview-table", "big-llm")
    from figbench_leaderboard.ui.formatting import TABLE_NAME_CHARS, elide

    assert elide(HOSTILE_NAME, TABLE_NAME_CHARS) in _text(page)   # shown as text (long: elided in the middle)...
    assert page.locator("#overview-table td[title]").evaluate_all("tds => tds.map(t => t.title)").count(HOSTILE_NAME)
    assert page.evaluate("window.__pwned") is None      # ...never run
    assert page.locator("#overview-table img").count() == 0


def test_group_ranks_only_complete_models_with_ties(page):
    """The default group is ECB+ and ECB+META: only models with all three benchmarks are ranked."""
    assert "ECB+ and ECB+META" in page.locator("#group-select").inner_text() or \
        page.locator("#group-select input").input_value() == "ECB+ and ECB+META"
    ranks = dict(zip(_column(page, "#overview-table", "Model"), _column(page, "#overview-table", "Rank")))
    assert ranks["knn-fixture"] in ("1", "=1") and ranks["lemma-fixture"] in ("2", "=1")
    assert _headers(page, "#overview-table")[:2] == ["Rank", "Model"]
    cell = _column(page, "#overview-table", "ECB+")[0]
    assert "[" in cell and cell.split()[0].count(".") == 1 and len(cell.split()[0].split(".")[1]) == 1


def test_search_filters_and_sorting(page):
    search = page.locator("#search-box textarea, #search-box input").first
    search.fill("knn")
    _wait_text(page, "#overview-table", "lemma-fixture", present=False)
    search.fill("")
    _wait_text(page, "#overview-table", "lemma-fixture")
    _open_filters(page)
    page.locator("#type-filter label", has_text="heuristic").click()
    _wait_text(page, "#overview-table", "lemma-fixture", present=False)
    assert "knn-fixture" in _text(page)
    page.locator("#type-filter label", has_text="heuristic").click()
    _wait_text(page, "#overview-table", "lemma-fixture")
    page.locator("#size-filter label", has_text="< 100M").click()
    _wait_text(page, "#overview-table", "knn-fixture", present=False)
    page.locator("#size-filter label", has_text="< 100M").click()
    _wait_text(page, "#overview-table", "knn-fixture")
    assert "$x^" not in _text(page)   # no benchmark of the group: behind "All models" (issue 21)
    page.locator("#show-all-models input").check()
    _wait_text(page, "#overview-table", "$x^")
    page.locator("#sort-by input").click()
    page.get_by_role("option", name="Model", exact=True).click()
    page.locator("#sort-order label", has_text="ascending").click()
    page.wait_for_function("() => { const r = document.querySelector('#overview-table tbody tr');"
                           " return r && r.innerText.includes('$x^'); }")
    assert "ECB+META_m" in _headers(page, "#overview-table")
    page.locator("#column-select label", has_text="ECB+META_m").click()
    page.wait_for_function("!document.querySelector('#overview-table thead').innerText.includes('ECB+META_m')")


def test_unverified_rows_hidden_by_default_and_marked(page):
    page.locator("#group-select input").click()
    page.get_by_role("option", name="WiMCor", exact=True).click()
    _wait_text(page, "#overview-table", "big-llm")
    assert "self-reported-99" not in _text(page)
    _open_filters(page)
    page.locator("#show-unverified input").check()
    _wait_text(page, "#overview-table", "self-reported-99 (unverified)")
    rows = {r[1]: r for r in _rows(page, "#overview-table")}
    assert rows["self-reported-99 (unverified)"][0] == "–"
    assert list(rows)[-1] == "self-reported-99 (unverified)"    # after every verified row, whatever its 99.0


def test_csv_and_json_download(page, server):
    page.locator("#download-csv").click()
    page.wait_for_selector("#download-file a[href*='.csv']", timeout=60000)
    href = page.locator("#download-file a[href*='.csv']").first.get_attribute("href")
    with urllib.request.urlopen(href if href.startswith("http") else server["url"] + href, timeout=10) as r:
        text = r.read().decode("utf-8")
    assert text.splitlines()[0].startswith("Model,Revision,Type,Parameters,Average")
    assert "lemma-fixture" in text
    import csv

    models = [row[0] for row in csv.reader(io.StringIO(text))][1:]
    assert "'" + FORMULA_NAME in models and FORMULA_NAME not in models     # no live formula
    page.locator("#download-json").click()
    page.wait_for_selector("#download-file a[href*='.json']", timeout=60000)
    href = page.locator("#download-file a[href*='.json']").first.get_attribute("href")
    with urllib.request.urlopen(href if href.startswith("http") else server["url"] + href, timeout=10) as r:
        rows = json.loads(r.read())
    assert {"lemma-fixture", "knn-fixture"} <= {row["Model"] for row in rows}


def test_task_tabs_one_table_per_task(page, server):
    _tab(page, "Coreference")
    _wait_text(page, "#task-cdec-table", "CoNLL F1")
    text = _text(page, "#task-cdec-table")
    assert "ECB+META_m" in text and "[" in text and "public test set" in text   # the Gold column
    page.screenshot(path=str(server["shots"] / "task_tab.png"))
    _tab(page, "ePiC")
    for name in ("proverb_prediction", "proverb_alignment"):    # split by task, each its own columns
        assert page.locator(f"#task-{name}-table").count() == 1
    assert page.locator("#task-narrative_generation-table").count() == 0    # it declares no benchmark


def test_plots_are_interactive_and_click_through(page, server):
    _tab(page, "Plots")
    page.wait_for_selector("#board-plot .js-plotly-plot .scatterlayer .point", timeout=60000)
    page.wait_for_timeout(500)
    page.screenshot(path=str(server["shots"] / "plot.png"))
    assert page.locator("#board-plot img").count() == 0              # no PNG: a Plotly graph
    point = page.locator("#board-plot .scatterlayer .point").first
    box = point.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_selector("#board-plot .hoverlayer .hovertext", timeout=20000)
    hover = page.locator("#board-plot .hoverlayer").text_content()
    assert "knn-fixture" in hover or "lemma-fixture" in hover
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_url("**/?submission=*", timeout=30000)
    page.wait_for_selector("#detail-html .fb-detail", timeout=60000)
    assert "ECB+META" in _text(page, "#detail-html")


def test_mathtext_name_does_not_break_plots_or_inject(page, server):
    _tab(page, "Plots")
    page.locator("#plot-select input").click()
    page.get_by_role("option", name="Score vs model size", exact=True).click()
    page.wait_for_selector("#board-plot .js-plotly-plot .scatterlayer .point", timeout=60000)
    page.locator("#plot-select input").click()
    page.get_by_role("option", name="Micro F1 of every submission", exact=True).click()
    page.wait_for_selector("#board-plot .js-plotly-plot .boxlayer", timeout=60000)
    page.wait_for_timeout(500)
    assert page.evaluate("window.__pwned") is None
    assert page.locator(".toast-body, .toast-wrap .error").count() == 0          # no error toast
    assert page.locator("#board-plot img").count() == 0
    page.reload(wait_until="domcontentloaded")
    page.wait_for_selector("#overview-table td", timeout=60000)
    page.wait_for_timeout(500)
    assert page.locator(".toast-body").count() == 0 and page.evaluate("window.__pwned") is None


def test_queue_tab_is_paged_with_readable_headers(page, server):
    _tab(page, "Queue")
    page.wait_for_selector("#queue-table td", timeout=60000)
    assert _headers(page, "#queue-table") == ["Submission", "Submitted", "Status", "Model", "Benchmark",
                                               "Submitter", "Reason"]
    assert "FINISHED:" in _text(page, "#queue-summary")
    page.screenshot(path=str(server["shots"] / "queue.png"))


# --- submissions through the form -------------------------------------------------------------

def _upload(page, path: Path):
    if page.locator("#submit-file input[type=file]").count() == 0:   # a file is shown: remove it first
        page.locator("#submit-file button[aria-label='Clear']").first.click()
        page.wait_for_selector("#submit-file input[type=file]", state="attached")
    page.locator("#submit-file input[type=file]").set_input_files(str(path))
    page.wait_for_function(f"document.querySelector('#submit-file').innerText.includes({json.dumps(path.stem)})",
                           timeout=60000)


def test_form_submission_reaches_finished_and_upload_is_removed(page, server):
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
    page.screenshot(path=str(server["shots"] / "form.png"))
    page.locator("#submit-button").click()
    page.wait_for_selector("#fb-submit-ok", timeout=60000)
    uploaded = [p for p in server["cache"].rglob("*") if p.is_file() and p.stem.startswith(path.stem)]
    assert not uploaded, f"the upload stayed in Gradio's cache: {uploaded}"
    _tab(page, "Queue")
    deadline = time.time() + 60
    while True:
        page.locator("#queue-refresh").click()
        page.wait_for_timeout(700)
        rows = [" ".join(r) for r in _rows(page, "#queue-table") if any("browser-model" in c for c in r)]
        if any("FINISHED" in r for r in rows) or time.time() > deadline:
            break
    assert any("FINISHED" in r for r in rows), rows
    sub = next(r for r in Store(server["store"]).list() if r["model_name"] == "browser-model")
    gold = json.loads(GOLD.read_text())["metonymy/wimcor/sample/test"]["labels"]
    expected = accuracy_score([gold[k] for k in sorted(gold)], [preds[k] for k in sorted(gold)])
    assert sub["status"] == "FINISHED" and sub["submitter"] == "playwright"
    assert sub["scores"]["micro_f1"] == pytest.approx(expected)
    _tab(page, "Submission detail")
    page.locator("#detail-id textarea, #detail-id input").first.fill(sub["id"][:10])
    page.locator("#detail-button").click()
    _wait_text(page, "#detail-html", "browser-model")
    assert f"{100 * expected:.2f}" in _text(page, "#detail-html")   # a public test set: in full (two decimals)
    assert "public test set" in _text(page, "#detail-html")


def test_malformed_upload_shows_error_and_store_unchanged(page, server):
    before = Store(server["store"]).count()
    bad = _sub(FIX / "predictions_metonymy.json", server["tmp"], model={"name": "bad-model"},
               predictions={"w1": "LOCATION", "zzz": "TEAM"})
    _tab(page, "Submit")
    _upload(page, bad)
    page.locator("#submit-button").click()
    page.wait_for_selector("#fb-submit-error", timeout=60000)
    msg = page.locator("#fb-submit-error").inner_text()
    assert "unknown example id" in msg and "'zzz'" in msg and str(server["tmp"]) not in msg
    page.screenshot(path=str(server["shots"] / "form_error.png"))
    not_json = server["tmp"] / "broken.json"
    not_json.write_text('{"format": "figbench-predictions/1", "predictions": NaN}')
    _upload(page, not_json)
    page.locator("#submit-button").click()
    _wait_text(page, "#submit-result", "NaN")
    assert Store(server["store"]).count() == before


@pytest.mark.parametrize("name, field", [("lemma-fixture\u200b", "f-name"), ("lemma-f\u0456xture", "f-name"),
                                         ("20000000000000000000", "f-params")])
def test_attacks_through_the_form_leave_the_board_unchanged(page, server, name, field):
    """A look-alike of an existing model, and 2e19 parameters: refused in plain words; the overview's
    screenshot is the same before and after."""
    before = page.locator("#overview-table").screenshot()
    count = Store(server["store"]).count()
    meta = _sub(FIX / "predictions_cdec.json", server["tmp"], dataset="ecbmeta", config="meta_m",
                model={"name": "lemma-fixture", "revision": "v2"})
    _tab(page, "Submit")
    _upload(page, meta)
    page.locator(f"#{field} textarea, #{field} input").first.fill(name)
    page.locator("#submit-button").click()
    page.wait_for_selector("#fb-submit-error", timeout=60000)
    msg = page.locator("#fb-submit-error").inner_text()
    # (the page's identity is not the maintainer's, who loaded lemma-fixture: the name is not the page's either)
    assert (("looks like the existing model" in msg or "belongs to another submitter" in msg) if field == "f-name"
            else ("model.parameters" in msg)), msg
    assert Store(server["store"]).count() == count
    page.screenshot(path=str(server["shots"] / f"refused-{field}-{len(name)}.png"))
    _tab(page, "Overview")
    page.reload(wait_until="domcontentloaded")
    page.wait_for_selector("#overview-table td", timeout=60000)
    page.wait_for_timeout(300)
    after = page.locator("#overview-table").screenshot()
    assert _same_image(before, after) < 0.002


def test_detail_view_escapes_every_field(page, server):
    sid = next(r["id"] for r in Store(server["store"]).list() if r["model_name"] == HOSTILE_NAME)
    page.goto(server["url"] + f"/?submission={sid}", wait_until="domcontentloaded")    # deep link
    _wait_text(page, "#detail-html", "window.__pwned")
    html_text = page.locator("#detail-html").inner_text()
    assert "<script>window.__pwned=1</script>" in html_text and "<b>bold</b>" in html_text
    assert page.locator("#detail-html img, #detail-html script, #detail-html b").count() == 0
    assert page.evaluate("window.__pwned") is None


# --- the API ----------------------------------------------------------------------------------

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


# --- every tab with every free-form field at its limit -------------------------------------------
# (the 2-second target at 5,000 such submissions is timed by benchmarks/bench_leaderboard_browser.py,
# which this test runs on a small board, untimed, so the benchmark cannot rot)

def _bench_module():
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "bench_leaderboard_browser", Path(__file__).parents[1] / "benchmarks" / "bench_leaderboard_browser.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def maximal_board(tmp_path_factory):
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian chromium is not installed")
    from figbench_leaderboard.store.synthetic import fill_store

    tmp = tmp_path_factory.mktemp("maximal")
    store = Store(tmp / "store")
    fill_store(store, 120, n_models=11, maximal=True)
    store.close()
    with serving(tmp / "store", gold_json=GOLD, cwd=tmp) as srv:
        yield srv


def test_every_tab_shows_its_content_with_maximal_fields(maximal_board, browser_ctx):
    """The benchmark's walk through the tabs (page load, then each tab's first content) on a board whose
    free-form fields are all at their limits; nothing is timed here."""
    ctx, _ = browser_ctx
    seen = _bench_module().tab_timings(ctx, maximal_board["url"])
    assert set(seen) >= {"Overview (page load)", "Coreference", "Meta4XNLI", "WiMCor", "ePiC", "Plots", "Queue",
                         "About"}
    page = open_board(ctx, maximal_board["url"])
    try:
        assert len(_rows(page, "#overview-table")) >= 10
        assert not page.evaluate("window.__pwned")
    finally:
        page.close()
