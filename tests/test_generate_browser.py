"""``figbench generate review DIR`` in a real browser (Playwright driving Debian's Chromium, as the board's
tests): the flagged span shown beside the original, moved through the app, another accepted, one marked
unusable, quality-control judgements recorded, the corpus rebuilt from the corrections and loaded with plain
``datasets.load_dataset`` (``test_generate.py`` scores a reviewed, rebuilt corpus with the lemma baseline)."""

from __future__ import annotations

import json
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from figbench_leaderboard.screenshots import chromium_context, chromium_path, free_port

from tests.llm_server import ScriptedLLM
from tests.test_generate import ENV, FIGBENCH, generate_cmd, run_cli

pytestmark = pytest.mark.browser


@pytest.fixture()
def review_server(tmp_path):
    out = tmp_path / "review_run"
    with ScriptedLLM({"Tara Reid": ["nolist"]}) as srv:
        r = run_cli(generate_cmd(out, srv.url, "train"))
    assert r.returncode == 0, r.stderr
    port = free_port()
    log = open(tmp_path / "review.log", "w")
    proc = subprocess.Popen([*FIGBENCH, "generate", "review", str(out), "--port", str(port)], env=ENV,
                            stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.time() + 120
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as resp:
                if resp.status == 200:
                    break
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        assert proc.poll() is None and time.time() < deadline, (tmp_path / "review.log").read_text()[-2000:]
        time.sleep(0.5)
    yield out, url
    proc.terminate()
    proc.wait(timeout=30)


def test_review_moves_accepts_rejects_and_rebuilds(review_server, tmp_path):
    import pyarrow.parquet as pq

    import datasets

    if not Path(chromium_path()).exists():
        pytest.skip("Debian chromium is not installed (apt-get install -y chromium chromium-driver)")
    out, url = review_server
    proposals = [json.loads(line) for line in (out / "generation" / "retag.jsonl").read_text().splitlines()]
    flagged = [p for p in proposals if p["flags"]]
    # no word list: "checked herself into" -> "stormed the gates of herself into", the kept "herself into"
    # (function words) bounds both spans
    # and "checks into" -> "sails into": the alignment keeps "into", the word list says "sails into" (word_differs)
    assert [p["mention_id"] for p in flagged] == ["1_1ecb_2", "1_1ecb_6", "1_1ecbplus_2"]
    assert flagged[0]["flags"] == ["partial", "weak_boundary"] and flagged[1]["flags"] == ["weak_boundary"]
    assert flagged[2]["flags"] == ["partial", "word_differs"]
    with chromium_context(chromium_path()) as ctx:
        page = ctx.new_page()
        page.goto(url, wait_until="domcontentloaded", timeout=90000)
        page.wait_for_selector("#para-span", timeout=90000)
        # the flagged case first: original and paraphrase side by side, both spans highlighted
        assert "1_1ecb_2" in page.inner_text("#item-header") and "partial" in page.inner_text("#item-header")
        assert page.inner_text("#orig-span").split() == ["checked", "herself", "into"]
        assert page.inner_text("#para-span").split() == ["stormed2", "the3", "gates4"]
        # a bad span is refused with a message, nothing saved
        page.locator("#span-start input").fill("4")
        page.locator("#span-end input").fill("99")
        page.click("#move-btn")
        page.wait_for_function("document.querySelector('#status').innerText.includes('Not saved')")
        assert not (out / "generation" / "corrections.json").exists()
        # move the span to "stormed" and judge it valid
        page.locator("#span-start input").fill("2")
        page.locator("#span-end input").fill("3")
        page.locator("#qc").get_by_label("valid", exact=True).check()
        page.click("#move-btn")
        page.wait_for_function("document.querySelector('#status').innerText.includes('Saved move')")
        page.wait_for_function("document.querySelector('#item-header').innerText.includes('Mention 2 of 3')")
        # the next one: accept, judged invalid
        page.locator("#qc").get_by_label("invalid", exact=True).check()
        page.click("#accept-btn")
        page.wait_for_function("document.querySelector('#status').innerText.includes('Saved accept')")
        page.wait_for_function("document.querySelector('#item-header').innerText.includes('Mention 3 of 3')")
        page.click("#unusable-btn")
        page.wait_for_function("document.querySelector('#status').innerText.includes('Saved unusable')")
        page.click("#build-btn")
        page.wait_for_function("document.querySelector('#build-out').innerText.includes('Rebuilt')")
        built = page.inner_text("#build-out")
        page.screenshot(path=str(tmp_path / "review.png"))
    assert "2 mentions of 3" in built and "1 moved, 1 unusable" in built and "share valid 50.0%" in built
    corrections = json.loads((out / "generation" / "corrections.json").read_text())["mentions"]
    assert corrections["1_1ecb_2"] == {"action": "move", "start": 2, "end": 3, "qc": "valid"}
    assert [d["action"] for d in corrections.values()] == ["move", "accept", "unusable"]
    rows = {r["mention_id"]: r for r in datasets.load_dataset(str(out), split="train")}
    assert rows["1_1ecb_2"]["text"] == "stormed" and rows["1_1ecb_2"]["cluster_id"] == "ACT001"
    assert len(rows) == 2
    assert "1_1ecbplus_2" not in rows and corrections["1_1ecbplus_2"] == {"action": "unusable"}
    # the build is reproducible from (cache + corrections): the CLI gives the same files
    before = (out / "data" / "train-00000-of-00001.parquet").read_bytes()
    r = run_cli([*FIGBENCH, "generate", "build", str(out)])
    assert r.returncode == 0 and "share valid 50.0%" in r.stdout
    assert pq.read_table(out / "data" / "train-00000-of-00001.parquet").equals(
        pq.read_table(__import__("io").BytesIO(before)))
    card = (out / "README.md").read_text()
    assert "2 mentions judged, valid 50.0%" in card and "1 spans moved by hand" in card
