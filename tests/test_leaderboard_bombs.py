"""Structure bombs (3.3 million empty lists in 10 MB) are refused before any Python object is built, and
each refusal costs the sender: past the board's rate limit its bodies are refused unread (429)."""

from __future__ import annotations

import json
import time
import tracemalloc
from pathlib import Path

import pytest
from figbench_leaderboard.access.http_limits import Refusals
from figbench_leaderboard.domain.submission import MAX_CONTAINERS, JsonShape, StructureError, loads_strict
from figbench_leaderboard.screenshots import serving

from tests.http_post import post as _post

FIX = Path(__file__).parent / "fixtures" / "leaderboard"
GOLD = FIX / "gold.json"
BOMB = b"[" + b",".join([b"[]"] * 3_300_000) + b"]"      # 9.9 MB


def test_loads_strict_refuses_a_bomb_before_parsing():
    tracemalloc.start()
    t0 = time.perf_counter()
    with pytest.raises(StructureError, match=r"upload.json: more than 250,000 JSON arrays and objects"):
        loads_strict(BOMB, source="upload.json")
    took = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(f"\nbomb refused in {took * 1000:.0f} ms, peak {peak / 1e6:.1f} MB traced")
    assert peak < 30e6            # json.loads of it: about 250 MB of lists
    with pytest.raises(StructureError, match="JSON values"):
        loads_strict(b"[" + b"0," * 3_000_000 + b"0]")
    # a submission sent as a JSON string, with its brackets escaped, is bounded the same way
    escaped = json.dumps({"data": [json.dumps([[]] * (MAX_CONTAINERS + 1))]}).replace("[", "\\u005b")
    with pytest.raises(StructureError):
        loads_strict(escaped)
    fine = json.dumps({"predictions": {f"id{i}": ["O", "B-MET"] for i in range(100_000)}})
    assert len(loads_strict(fine)["predictions"]) == 100_000


def test_shape_counts_escapes_across_any_chunking():
    raw = json.dumps({"data": [json.dumps([[]] * 10)]}).encode().replace(b"[", b"\\u005B")
    for size in (1, 2, 3, 5, 6, 7, 64):
        shape = JsonShape()
        for i in range(0, len(raw), size):
            shape.feed(raw[i:i + size])
        assert shape.containers == 13, size


def test_refusals_window():
    r = Refusals(3, window_s=10)
    for t in (0, 1, 2):
        assert r.retry_after("ip:1", now=t) is None
        r.record("ip:1", now=t)
    assert r.retry_after("ip:1", now=3) == pytest.approx(7) and r.retry_after("ip:2", now=3) is None
    assert r.retry_after("ip:1", now=10.5) is None       # the first refusal left the window




def test_served_board_refuses_bombs_cheaply_and_counts_them(tmp_path):
    payload = json.dumps({"data": [BOMB.decode(), ""]}).encode()   # submit_json's text: the bomb
    with serving(tmp_path / "store", gold_json=GOLD, cwd=tmp_path, args=["--rate-limit", "3"]) as srv:
        port = srv["port"]
        for _ in range(3):
            t0 = time.perf_counter()
            status, body = _post(port, "/gradio_api/call/submit_json", payload, source="127.0.0.2", timeout=60)
            took = time.perf_counter() - t0
            assert status == 413 and b"JSON arrays and objects" in body, (status, body[:200])
            assert took < 5.0, took              # before: seconds of parsing per bomb (4.4 s, 245 MB)
        # the fourth body from that address is refused before it is read
        status, body = _post(port, "/gradio_api/call/submit_json", payload, source="127.0.0.2", send_body=False,
                             timeout=60)
        assert status == 429 and b"ip:127.0.0.2" in body, (status, body)
        # the raw JSON payload as a bomb (Gradio would parse it itself) from another address
        status, body = _post(port, "/gradio_api/queue/join", BOMB, source="127.0.0.3", timeout=60)
        assert status == 413
        # everyone else is served: a real submission from another address is accepted
        sub = json.loads((FIX / "predictions_metonymy.json").read_text())
        sub.pop("submitter")
        status, body = _post(port, "/gradio_api/call/submit_json",
                             json.dumps({"data": [json.dumps(sub), ""]}).encode(), source="127.0.0.4", timeout=60)
        assert status == 200 and b"event_id" in body, (status, body)
