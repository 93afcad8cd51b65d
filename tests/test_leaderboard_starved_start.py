"""Issue 33: a board started on a machine starved of CPU keeps serving.

``make test`` at load 5-9 once failed ``test_forged_forwarded_for_off_a_space_is_the_connection`` with
``ConnectionResetError``: the board had answered its first page (so the test started) and then quit in the
middle of the test, because Gradio's ``launch()`` probes its own page once more (``HEAD /``, 3 s timeout)
and, when that probe is slow, raises "When localhost is not accessible, a shareable link must be created".
Here the server is stopped (SIGSTOP) for 4 s whenever it holds a request to its own port, as a starved
machine would hold it; afterwards it must still be running and take submissions."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time

import psutil
import pytest
from figbench_leaderboard.screenshots import free_port, serve_command

from tests.test_leaderboard_ownership import GOLD, LIMIT, submit

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGSTOP"), reason="needs SIGSTOP/SIGCONT")


def _listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


def _freeze_self_requests(pid: int, port: int, started, *, freeze_s: float = 4.0, watch_s: float = 15.0) -> int:
    """Until ``started()`` (the board printed that it serves: Gradio's ``launch()``, which makes every request of
    the server to itself, has returned), at most ``watch_s``, stop process ``pid`` for ``freeze_s`` whenever it holds
    a connection of its own to ``port`` (what a starved machine does to a request the server makes to itself);
    returns how many."""
    proc, seen = psutil.Process(pid), set()
    end = time.monotonic() + watch_s
    while time.monotonic() < end and proc.is_running() and not started():
        mine = {c.laddr.port for c in proc.net_connections(kind="tcp") if c.raddr and c.raddr.port == port}
        if mine - seen:
            seen |= mine
            os.kill(pid, signal.SIGSTOP)
            try:
                time.sleep(freeze_s)
            finally:
                os.kill(pid, signal.SIGCONT)
        time.sleep(0.01)
    return len(seen)


@pytest.mark.slow   # a 4 s stop of the server per self-request, up to 15 s of watching for them
def test_a_board_started_starved_of_cpu_keeps_serving(tmp_path):
    port = free_port()
    cmd = serve_command(tmp_path / "store", port, gold_json=GOLD,
                        args=["--rate-limit", str(LIMIT), "--hidden-quota", "0", "--min-changed", "0"])
    log = tmp_path / "serve.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, cwd=tmp_path,
                                env={**os.environ, "GRADIO_ANALYTICS_ENABLED": "False"})
    try:
        deadline = time.monotonic() + 180
        while not _listening(port):
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.05)
        def started() -> bool:
            return "figbench leaderboard: serving on http://127.0.0.1:" in log.read_text()
        assert _freeze_self_requests(proc.pid, port, started) >= 1   # Gradio's startup-events and HEAD / probe
        assert started(), log.read_text()[-3000:]
        assert proc.poll() is None, f"the board quit after a starved start:\n{log.read_text()[-3000:]}"
        outs = [submit(f"http://127.0.0.1:{port}", f"starved-{i}") for i in range(3)]
        assert all(o["ok"] for o in outs), outs
        assert proc.poll() is None
        assert "shareable link" not in log.read_text()
    finally:
        proc.send_signal(signal.SIGCONT)
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
