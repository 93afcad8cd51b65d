"""Page loads while clients flood a served board with JSON structure bombs (issue 20).

The red team's flood: 6 clients, each sending sub-10 MB bombs (3.3 million empty lists) to the
``submit_json`` API one after another; each cost the board 4.4 s and 245 MB to refuse, and page loads
went from p50 0.11 s to 5.6 s (p95 9.7 s). Target: page-load p95 under 0.5 s during the flood.

Each mode serves the same store in its own ``figbench leaderboard serve`` process on 127.0.0.1:

* ``unguarded``: the board without the structure guard (the body-size cap only, bombs parsed by
  ``json.loads``, refusals counting toward nothing): the code before issue 20;
* ``guarded``: the board as shipped (bombs cut off by the body scan, refusals counted per address).

A prober (127.0.0.1) loads the page (``GET /``, ``/config`` and the overview the page asks for through
Gradio's queue, as a browser does) before and during the flood; the attackers run in another process
and bind 127.0.0.10+, so that each is its own identity. Bounded: ``--seconds`` of flood and ``--max-bombs``
per client, loopback only.

Issue 33 added two shapes that pass the scan and were answered 200 ``{"ok": false}`` after about a second of
server CPU each, so no refusal ever followed: ``keys`` (800,000 keys in one 9.5 MB object) and ``cluster`` (a
cdec cluster of 600,000 made-up ids). Every refusal now counts toward the sender's limit, the validation
CPU time is charged to the sender (2 s a minute), and a cluster far larger than the split is refused by a
count; big bodies reach Gradio one at a time, spaced, and Gradio's parse of each is charged too
(``access/pacing.py``). Target for each shape: page-load p95 under 0.5 s with 6 clients. The parse worker's
CPU and peak memory are measured beside the server's.

    python benchmarks/bench_flood.py [--clients 6] [--seconds 30] [--modes unguarded guarded]
                                     [--shapes lists keys cluster] [--json benchmarks/bench_flood.json]
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing as mp
import os
import statistics
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOLD = ROOT / "tests" / "fixtures" / "leaderboard" / "gold.json"
BOMB = "[" + ",".join(["[]"] * 3_300_000) + "]"      # 9.9 MB
FIX = ROOT / "tests" / "fixtures" / "leaderboard"
#: page-load p95 during a flood, seconds (issues 20 and 33)
TARGET_P95 = 0.5


def shape_payload(shape: str) -> str:
    """The text one attacker sends to submit_json: ``lists`` (3.3M empty lists, refused by the body scan),
    ``keys`` (a 9.5 MB predictions object of 800,000 keys) or ``cluster`` (a cdec cluster of 600,000
    made-up mention ids): the last two pass the scan and are refused 200 {"ok": false} by the board."""
    if shape == "lists":
        return BOMB
    if shape == "keys":
        sub = json.loads((FIX / "predictions_metonymy.json").read_text())
        sub["predictions"] = {f"{i:x}": 0 for i in range(800_000)}
    else:
        sub = json.loads((FIX / "predictions_cdec.json").read_text())
        sub["predictions"] = [[f"u{i}" for i in range(600_000)]]
    return json.dumps(sub)


# --- the server (a subprocess of this script) -----------------------------------------------------

def serve_unguarded() -> None:
    """The pre-issue-20 request path: no structure scan anywhere, refusals not counted."""
    from figbench_leaderboard.access import http_limits
    from figbench_leaderboard.domain import submission

    submission.check_shape = lambda *a, **k: None

    class Unguarded(http_limits.BodyLimit):
        def __init__(self, app, max_bytes, **kw):
            super().__init__(app, max_bytes, max_refusals=None, structure=False)

    http_limits.BodyLimit = Unguarded


def serve_main(args: argparse.Namespace) -> None:
    from figbench_leaderboard.scoring.gold import JsonGoldProvider
    from figbench_leaderboard.ui.app import serve

    if args.mode == "unguarded":
        serve_unguarded()
    serve(args.store, port=args.port, gold=JsonGoldProvider(GOLD))


# --- the clients ------------------------------------------------------------------------------------

def _conn(port: int, source: str, timeout: float = 120) -> http.client.HTTPConnection:
    return http.client.HTTPConnection("127.0.0.1", port, timeout=timeout, source_address=(source, 0))


def _request(port: int, method: str, path: str, body: bytes | None = None, source: str = "127.0.0.1",
             headers: dict | None = None) -> tuple[int, bytes]:
    conn = _conn(port, source)
    try:
        try:
            conn.request(method, path, body=body, headers={"Content-Type": "application/json", **(headers or {})})
        except (BrokenPipeError, ConnectionResetError):
            pass   # refused mid-body: the answer may already be there
        try:
            r = conn.getresponse()
            return r.status, r.read()
        except (OSError, http.client.HTTPException):
            return 0, b""   # the connection was cut before an answer could be read
    finally:
        conn.close()


def page_load(port: int, fn_index: int) -> float:
    """Seconds for what a browser does to show the overview: the page, its config, the load event."""
    t0 = time.perf_counter()
    status, _ = _request(port, "GET", "/")
    assert status == 200, status
    _request(port, "GET", "/config")
    session = uuid.uuid4().hex[:10]
    body = json.dumps({"data": [], "fn_index": fn_index, "session_hash": session, "event_data": None,
                       "trigger_id": None}).encode()
    status, _ = _request(port, "POST", "/gradio_api/queue/join", body)
    assert status == 200, status
    conn = _conn(port, "127.0.0.1")
    try:
        conn.request("GET", f"/gradio_api/queue/data?session_hash={session}")
        r = conn.getresponse()
        for raw in r:
            if raw.startswith(b"data:") and b'"process_completed"' in raw:
                assert b"overview-grid" in raw or b"fb-table" in raw, raw[:300]
                break
    finally:
        conn.close()
    return time.perf_counter() - t0


def load_fn(port: int) -> int:
    config = json.loads(_request(port, "GET", "/config")[1])
    comps = {c["id"]: c for c in config["components"]}
    for i, dep in enumerate(config["dependencies"]):
        outs = [comps.get(o, {}).get("props", {}).get("elem_id") for o in dep["outputs"]]
        if "overview-table" in outs and any(t[1] == "load" for t in dep["targets"]):
            return dep.get("id", i)
    raise RuntimeError("no load event")


class Attacker(threading.Thread):
    """Sends bombs to submit_json one after another (waiting for each answer, as the red team did)."""

    def __init__(self, port: int, source: str, stop: threading.Event, max_bombs: int, payload: bytes) -> None:
        super().__init__(daemon=True)
        self.port, self.source, self.stop, self.max_bombs = port, source, stop, max_bombs
        self.payload = payload
        self.answers: dict[int, int] = {}
        self.sent = 0

    def run(self) -> None:
        while not self.stop.is_set() and self.sent < self.max_bombs:
            status, body = _request(self.port, "POST", "/gradio_api/call/submit_json", self.payload, self.source)
            self.sent += 1
            self.answers[status] = self.answers.get(status, 0) + 1
            if status == 200:   # queued: wait for the board's answer (the parse happens there)
                event = json.loads(body)["event_id"]
                _request(self.port, "GET", f"/gradio_api/call/submit_json/{event}", source=self.source)


def flood(port: int, clients: int, seconds: float, max_bombs: int, shape: str, first: int, out: mp.Queue) -> None:
    """The attackers, in their own process (so that the prober shares no interpreter with them); each run of a
    mode uses fresh addresses (from ``127.0.<first>.10``) so no shape inherits another's refusals."""
    stop = threading.Event()
    payload = json.dumps({"data": [shape_payload(shape), ""]}).encode()
    attackers = [Attacker(port, f"127.0.{first}.{10 + i}", stop, max_bombs, payload) for i in range(clients)]
    for a in attackers:
        a.start()
    t0, cpu0 = time.perf_counter(), time.process_time()
    deadline = time.time() + seconds
    while time.time() < deadline and any(a.is_alive() for a in attackers):
        time.sleep(0.1)
    stop.set()
    cpu = (time.process_time() - cpu0) / (time.perf_counter() - t0)
    for a in attackers:
        a.join(timeout=300)
    answers: dict[int, int] = {}
    for a in attackers:
        for k, v in a.answers.items():
            answers[k] = answers.get(k, 0) + v
    out.put({"bombs": sum(a.sent for a in attackers), "answers": answers, "clients_cpu": cpu})


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def _hwm_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _cpu_s(pid: int) -> float:
    """User+system CPU seconds of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _children(pid: int) -> list[int]:
    """The server's child processes (the parse worker), as /proc lists them now."""
    kids: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            kids += [int(k) for k in (task / "children").read_text().split()]
        except OSError:
            pass
    return kids


def _family_cpu_s(pid: int, seen: dict[int, float]) -> float:
    """CPU seconds of the server's children so far, each child's last reading kept in ``seen`` (a worker
    replaced mid-flood still counts)."""
    for kid in _children(pid):
        try:
            seen[kid] = _cpu_s(kid)
        except OSError:
            pass
    return sum(seen.values())


def flood_shape(mode: str, shape: str, k: int, port: int, pid: int, fn: int, idle: list[float],
                args: argparse.Namespace) -> dict:
    """Page loads while ``args.clients`` attackers send ``shape`` (after the board has been idle a minute,
    so that one shape's CPU budget and queue do not spill into the next)."""
    if k:
        time.sleep(args.pause)
    results: mp.Queue = mp.Queue()
    attack = mp.Process(target=flood, args=(port, args.clients, args.seconds + 1.0, args.max_bombs, shape, k + 1,
                                            results))
    kids: dict[int, float] = {}
    cpu0, kids0, wall0 = _cpu_s(pid), _family_cpu_s(pid, kids), time.perf_counter()
    attack.start()
    time.sleep(1.0)   # the flood is under way
    loads, load_avg, t_end = [], [], time.time() + args.seconds
    worker_mb = 0.0
    while time.time() < t_end:
        loads.append(page_load(port, fn))
        load_avg.append(os.getloadavg()[0])
        _family_cpu_s(pid, kids)
        worker_mb = max([worker_mb] + [_hwm_mb(k) for k in _children(pid)])
        time.sleep(0.05)
    server_cpu, wall = _cpu_s(pid) - cpu0, time.perf_counter() - wall0
    worker_cpu = _family_cpu_s(pid, kids) - kids0
    flood_out = results.get(timeout=600)
    attack.join(timeout=60)
    return {"mode": mode, "shape": shape, "idle_p50": statistics.median(idle), "idle_p95": _pct(idle, 0.95),
            "flood_n": len(loads), "flood_p50": statistics.median(loads), "flood_p95": _pct(loads, 0.95),
            "flood_max": max(loads), "server_peak_mb": _hwm_mb(pid), "server_cpu": server_cpu / wall,
            "worker_peak_mb": worker_mb, "worker_cpu": worker_cpu / wall,
            "load_avg": [min(load_avg), max(load_avg)], **flood_out}


def run_mode(mode: str, store: Path, args: argparse.Namespace) -> list[dict]:
    import subprocess

    from figbench_leaderboard.screenshots import free_port

    port = free_port()
    log = open(store.parent / f"serve-{mode}.log", "w")
    proc = subprocess.Popen([sys.executable, __file__, "--serve", "--mode", mode, "--store", str(store),
                             "--port", str(port)], stdout=log, stderr=subprocess.STDOUT,
                            env={**os.environ, "GRADIO_ANALYTICS_ENABLED": "False"})
    try:
        deadline = time.time() + 180
        while True:
            try:
                if _request(port, "GET", "/")[0] == 200:
                    break
            except OSError:
                pass
            if proc.poll() is not None or time.time() > deadline:
                raise RuntimeError(f"{mode}: server did not start")
            time.sleep(0.5)
        fn = load_fn(port)
        page_load(port, fn)   # warm
        idle = [page_load(port, fn) for _ in range(args.idle_probes)]
        return [flood_shape(mode, shape, k, port, proc.pid, fn, idle, args) for k, shape in enumerate(args.shapes)]
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=6)
    ap.add_argument("--seconds", type=float, default=30.0, help="flood duration per mode")
    ap.add_argument("--max-bombs", type=int, default=5000, help="bombs per client at most")
    ap.add_argument("--idle-probes", type=int, default=10)
    ap.add_argument("--rows", type=int, default=500, help="FINISHED submissions on the board")
    ap.add_argument("--modes", nargs="+", default=["unguarded", "guarded"], choices=["unguarded", "guarded"])
    ap.add_argument("--shapes", nargs="+", default=["lists", "keys", "cluster"], choices=["lists", "keys", "cluster"],
                    help="what the attackers send (see shape_payload)")
    ap.add_argument("--pause", type=float, default=65.0, help="idle seconds between two shapes (the CPU budget's "
                    "window)")
    ap.add_argument("--json", default=str(ROOT / "benchmarks" / "bench_flood.json"),
                    help="where the run is recorded (empty: nowhere)")
    ap.add_argument("--note", default="", help="what else ran on the machine, for the record")
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--mode", help=argparse.SUPPRESS)
    ap.add_argument("--store", help=argparse.SUPPRESS)
    ap.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        serve_main(args)
        return
    from figbench_leaderboard.store.sqlite import Store
    from figbench_leaderboard.store.synthetic import fill_store

    with tempfile.TemporaryDirectory(prefix="bench-flood-") as tmp:
        store = Path(tmp) / "store"
        s = Store(store)
        fill_store(s, args.rows)
        s.close()
        load_start = os.getloadavg()[0]
        print(f"{args.rows} submissions; {args.clients} clients flooding {args.shapes} for {args.seconds:g} s per "
              f"mode and shape; page load = GET /, /config, overview event; load average "
              f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs", flush=True)
        results = []
        for mode in args.modes:
            for r in run_mode(mode, store, args):
                results.append(r)
                print(f"{mode:9s} {r['shape']:7s}  idle p50 {r['idle_p50']:.3f} p95 {r['idle_p95']:.3f} s | flood: "
                      f"{r['flood_n']} loads, p50 {r['flood_p50']:.3f} s, p95 {r['flood_p95']:.3f} s, max "
                      f"{r['flood_max']:.3f} s | {r['bombs']} bombs sent, answers {r['answers']} | server peak RSS "
                      f"{r['server_peak_mb']:.0f} MB (parse worker {r['worker_peak_mb']:.0f} MB), CPU in the flood: "
                      f"server {r['server_cpu']:.2f} + parse worker {r['worker_cpu']:.2f}, attackers "
                      f"{r['clients_cpu']:.2f} cores | load average {os.getloadavg()[0]:.1f}", flush=True)
        for r in results:
            if r["mode"] == "guarded":
                ok = r["flood_p95"] < TARGET_P95
                print(f"target page-load p95 < {TARGET_P95} s during the {r['shape']} flood: "
                      f"{'met' if ok else 'NOT met'} ({r['flood_p95']:.3f} s)")
        if args.json:
            write_json(Path(args.json), args, load_start, results)
            print(f"wrote {args.json}")


def _commit() -> str:
    """The checkout's short commit, ``+changes`` when the working tree differs from it."""
    import subprocess

    def git(*a: str) -> str:
        return subprocess.run(["git", *a], cwd=ROOT, capture_output=True, text=True).stdout.strip()

    head = git("rev-parse", "--short=7", "HEAD") or "unknown"
    return head + ("+changes" if git("status", "--porcelain", "--untracked-files=no", "--", "leaderboard") else "")


def write_json(path: Path, args: argparse.Namespace, load_start: float, results: list[dict]) -> None:
    """Append this run (commit, date, load, settings, results) to ``path`` (``figbench docs`` renders the
    README and leaderboard README flood numbers from it); a run of the same commit and shapes replaces the
    earlier one."""
    import datetime

    data = json.loads(path.read_text("utf-8")) if path.is_file() else {}
    runs = [r for r in data.get("runs", []) if not (r["commit"] == _commit() and r["shapes"] == args.shapes
                                                   and r["modes"] == args.modes)]
    runs.append({
        "commit": _commit(), "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d"),
        "load_avg_start": round(load_start, 1), "cpus": os.cpu_count(), "clients": args.clients,
        "seconds": args.seconds, "rows": args.rows, "modes": args.modes, "shapes": args.shapes,
        "note": args.note,
        "results": [{k: (round(v, 4) if isinstance(v, float) else v) for k, v in r.items()} for r in results]})
    out = {"about": "benchmarks/bench_flood.py: page loads (GET /, /config, the overview event) while clients flood "
                    "submit_json; one entry per run with the commit it measured, its date and the load; "
                    "`figbench docs --write` renders README 'Measured' and leaderboard/README 'Speed' from it",
           "target_p95_s": TARGET_P95, "runs": runs}
    path.write_text(json.dumps(out, indent=1) + "\n", "utf-8")

if __name__ == "__main__":
    main()
