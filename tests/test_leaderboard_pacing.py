"""Big request bodies reach the app one at a time, spaced out (issue 33: page loads during a cluster flood).

The app is a real Starlette app behind the board's own :class:`BodyLimit`, driven through httpx's ASGI
transport; like Gradio, it reads each body and then holds the event loop for a while (its ``json.loads``).
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import httpx
import pytest
from figbench_leaderboard.access.http_limits import BodyLimit, CpuBudget, Refusals
from figbench_leaderboard.access.pacing import MIN_BYTES, BodyPacer
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

GOLD = Path(__file__).parent / "fixtures" / "leaderboard" / "gold.json"
HOLD_S = 0.08   # what the app's parse of one big body holds the loop for


def _app(seen: list[tuple[str, float, float]]) -> Starlette:
    async def submit(request: Request) -> JSONResponse:
        body = await request.body()
        t0 = time.monotonic()
        if len(body) >= MIN_BYTES:   # holds the loop's CPU, as Gradio's json.loads of a 9 MB body does
            cpu0 = time.thread_time()
            while time.thread_time() - cpu0 < HOLD_S:
                pass
        seen.append((request.headers["x-name"], t0, time.monotonic()))
        return JSONResponse({"bytes": len(body)})
    return Starlette(routes=[Route("/gradio_api/call/submit_json", submit, methods=["POST"]),
                             Route("/gradio_api/queue/join", submit, methods=["POST"])])


def _client(app: Starlette, pacer: BodyPacer | None, refusals: Refusals,
            cpu: CpuBudget | None = None) -> httpx.AsyncClient:
    guarded = BodyLimit(app, max_bytes=20 * 1024 * 1024, refusals=refusals, pacer=pacer, structure=False,
                        tarpit_s=0, cpu=cpu)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=guarded, client=("127.0.0.9", 5000)),
                             base_url="http://board")


def _big(n: int = 1) -> bytes:
    return b'{"data": ["' + b"u" * (MIN_BYTES * n) + b'"]}'


async def _send(client: httpx.AsyncClient, name: str, body: bytes, path: str = "/gradio_api/call/submit_json"):
    return await client.post(path, content=body, headers={"x-name": name})


@pytest.mark.parametrize("paced", [False, True])
def test_big_bodies_reach_the_app_one_at_a_time_with_a_pause_after_each(paced):
    seen: list[tuple[str, float, float]] = []
    share = 0.5   # a pause as long as the hold

    async def main():
        async with _client(_app(seen), BodyPacer(share=share) if paced else None, Refusals(20)) as client:
            answers = await asyncio.gather(*(_send(client, f"big{i}", _big()) for i in range(4)))
        assert [a.status_code for a in answers] == [200] * 4
    asyncio.run(main())
    starts = sorted(s for _, s, _ in seen)
    ends = sorted(e for _, _, e in seen)
    gaps = [b - a for a, b in zip(ends, starts[1:], strict=False)]
    if paced:
        # each waits for the previous answer and then about as long again (share 1/2)
        assert all(g >= HOLD_S * 0.8 for g in gaps), gaps
    else:
        # without the pacer the four arrive together, back to back: the loop is held 4 x HOLD_S at once
        assert all(g < HOLD_S * 0.5 for g in gaps), gaps


def test_small_bodies_pass_between_big_ones():
    seen: list[tuple[str, float, float]] = []

    async def main():
        async with _client(_app(seen), BodyPacer(share=0.25), Refusals(20)) as client:
            bigs = [asyncio.create_task(_send(client, f"big{i}", _big())) for i in range(3)]
            await asyncio.sleep(HOLD_S * 1.5)   # the first is through, the others wait for their turns
            t0 = time.monotonic()
            small = await _send(client, "small", b'{"data": []}', "/gradio_api/queue/join")
            took = time.monotonic() - t0
            await asyncio.gather(*bigs)
        assert small.status_code == 200
        return took
    took = asyncio.run(main())
    assert took < HOLD_S * 2, took   # not behind the waiting big bodies (3 x (hold + 3 x hold) ahead)
    order = [name for name, _, _ in sorted(seen, key=lambda r: r[1])]
    assert order.index("small") < 3, order


def test_too_many_waiting_is_429_unread_and_not_held_against_the_sender():
    seen: list[tuple[str, float, float]] = []
    refusals = Refusals(3)

    async def main():
        async with _client(_app(seen), BodyPacer(share=0.5, max_waiting=1), refusals) as client:
            return await asyncio.gather(*(_send(client, f"big{i}", _big()) for i in range(4)))
    answers = asyncio.run(main())
    codes = sorted(a.status_code for a in answers)
    assert codes.count(429) >= 1 and codes.count(200) >= 2, codes
    busy = next(a for a in answers if a.status_code == 429)
    assert "busy" in busy.json()["error"] and busy.headers["retry-after"]
    assert refusals.count("ip:127.0.0.9") == 0   # the board was busy; the sender did nothing wrong
    assert len(seen) == codes.count(200)


def test_the_loops_time_on_a_big_body_is_charged_to_the_sender_and_the_board():
    """Gradio's parse of a big body (the loop's CPU during its turn) is work like validation: charged to the
    sender's budget and to all senders' together, so a flood of big bodies is refused unread once spent."""
    seen: list[tuple[str, float, float]] = []
    cpu = CpuBudget(max_cpu_s=HOLD_S * 1.5, window_s=60, max_total_s=10.0)

    async def main():
        async with _client(_app(seen), BodyPacer(share=0.5), Refusals(20), cpu) as client:
            return [await _send(client, f"big{i}", _big()) for i in range(3)]
    answers = asyncio.run(main())
    assert [a.status_code for a in answers] == [200, 200, 429], [a.status_code for a in answers]
    assert "too much validation work for ip:127.0.0.9" in answers[2].json()["error"]
    assert len(seen) == 2
    assert cpu.busy_for() is None and cpu._total and sum(c for _, c in cpu._total) >= 2 * HOLD_S * 0.9


def test_the_served_board_paces_big_bodies(tmp_path):
    """A served board (``launch``) has the pacer: twelve big bodies sent at once from twelve addresses
    cannot all wait; those past the pacer's queue are answered 429 "busy" unread."""
    from concurrent.futures import ThreadPoolExecutor

    from figbench_leaderboard.screenshots import serving

    from tests.http_post import post

    payload = json.dumps({"data": ["x" * (2 * MIN_BYTES), ""]}).encode()
    with serving(tmp_path / "store", gold_json=GOLD, cwd=tmp_path) as srv:
        with ThreadPoolExecutor(12) as pool:
            answers = list(pool.map(lambda i: post(srv["port"], "/gradio_api/call/submit_json", payload,
                                                   source=f"127.0.3.{10 + i}", timeout=120), range(12)))
    codes = [status for status, _ in answers]
    busy = [body for status, body in answers if status == 429]
    assert codes.count(200) >= 1 and busy, codes
    assert all(b"busy" in body for body in busy), busy


@pytest.mark.parametrize("share", ["0", "1.5", "-0.1", "nan", "a tenth"])
def test_serve_refuses_a_big_body_share_outside_zero_to_one(share, tmp_path, capsys):
    from figbench.cli import main

    with pytest.raises(SystemExit) as e:
        main(["leaderboard", "serve", "--store", str(tmp_path / "store"), "--big-body-share", share])
    assert e.value.code == 2
    assert f"--big-body-share: {share!r} is not a fraction in (0, 1]" in capsys.readouterr().err
    assert not (tmp_path / "store").exists()   # refused before anything is opened


@pytest.mark.parametrize("seconds", ["-1", "nan", "inf", "a second"])
def test_serve_refuses_a_tarpit_that_is_not_seconds(seconds, tmp_path, capsys):
    from figbench.cli import main

    with pytest.raises(SystemExit) as e:
        main(["leaderboard", "serve", "--store", str(tmp_path / "store"), "--tarpit-s", seconds])
    assert e.value.code == 2
    assert f"--tarpit-s: {seconds!r} is not a number of seconds, 0 or more" in capsys.readouterr().err
    assert not (tmp_path / "store").exists()


def test_a_sender_over_its_refusal_limit_waits_out_the_default_tarpit_unread():
    """The served default (``serve --tarpit-s``, 1 s): each 429 to a sender past its refusals is held that long;
    the served tests of the rate limit set it small (tests/test_leaderboard_server.py)."""
    from figbench_leaderboard.access.pacing import TARPIT_S

    from figbench.cli import build_parser

    assert TARPIT_S == 1.0
    assert build_parser().parse_args(["leaderboard", "serve", "--store", "s"]).tarpit_s == TARPIT_S
    seen: list[tuple[str, float, float]] = []
    refusals = Refusals(1)
    refusals.record("ip:127.0.0.9")   # one refusal already: at the limit

    async def main(tarpit: dict) -> tuple[int, float]:
        guarded = BodyLimit(_app(seen), max_bytes=1024 * 1024, refusals=refusals, **tarpit)
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=guarded, client=("127.0.0.9", 5000)),
                                     base_url="http://board") as client:
            t0 = time.monotonic()
            answer = await _send(client, "over", b'{"data": ["x"]}')
            return answer.status_code, time.monotonic() - t0
    status, held = asyncio.run(main({}))
    assert status == 429 and held >= TARPIT_S, held
    status, held = asyncio.run(main({"tarpit_s": 0}))
    assert status == 429 and held < TARPIT_S, held
    assert seen == []   # neither body reached the app
