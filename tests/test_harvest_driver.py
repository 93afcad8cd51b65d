"""Issue 31: the harvest's Dask driver finishes or fails, never hangs: stages that scatter the same object,
lost workers, bad partitions."""

from __future__ import annotations

import pytest

from figbench.harvest import driver, dump, synthetic, wimcor


@pytest.fixture(scope="module")
def longer_dump(tmp_path_factory):
    d = tmp_path_factory.mktemp("drv2")
    path, _ = synthetic.write_dump(d / "enwiki-20240601-pages-articles-multistream.xml.bz2",
                                   synthetic.synthetic_pages(n_events=3, backlinks=8, n_towns=1, filler=40),
                                   pages_per_stream=4)
    return path


@pytest.fixture(scope="module")
def small_dump(tmp_path_factory):
    d = tmp_path_factory.mktemp("drv")
    path, _ = synthetic.write_dump(d / "enwiki-20240601-pages-articles-multistream.xml.bz2",
                                   synthetic.synthetic_pages(n_events=2, backlinks=3, n_towns=1, filler=5),
                                   pages_per_stream=5)
    return path


def test_stages_scattering_an_unchanged_object_finish(small_dump, tmp_path):
    """Two stages scattering an equal object (a WiMCor run without metonymic pairs: the aliases stay empty) got
    the same content-hashed key while the first stage's copy was released: 'lost dependencies' or a hang in
    most runs. Repeated on one cluster, every pair of stages must finish with every partition done."""
    parts = dump.partitions(small_dump, partition_bytes=1000)
    shared = wimcor.Shared(wimcor.WimcorOptions(categories="unused"))
    with driver.cluster(workers=2) as client:
        for i in range(6):
            run = driver.Run(tmp_path / f"o{i}", parts, {"i": i})
            for stage in ("scan", "again"):
                stats = run.stage(stage, wimcor.scan, client, shared)
                assert len(stats) == len(parts)


def _corrupt_stream(tmp_path):
    """A multistream dump with one stream of 5 pages overwritten by junk (its bz2 data, not its offset); the
    titles of that stream."""
    import bz2

    pages = list(synthetic.synthetic_pages(n_events=2, backlinks=6, n_towns=1, filler=20))
    path, index = synthetic.write_dump(tmp_path / "enwiki-20240601-pages-articles-multistream.xml.bz2", pages,
                                       pages_per_stream=5)
    lines = [x.split(":", 2) for x in bz2.decompress(index.read_bytes()).decode().splitlines()]
    offsets = sorted({int(o) for o, _, _ in lines})
    bad = offsets[3]
    data = bytearray(path.read_bytes())
    data[bad + 10:bad + 60] = b"x" * 50
    path.write_bytes(bytes(data))
    return path, [t for o, _, t in lines if int(o) == bad], len(pages)


def test_a_bad_stream_stops_with_one_line_by_default(tmp_path):
    import subprocess
    import sys

    path, _, _ = _corrupt_stream(tmp_path)
    p = subprocess.run([sys.executable, "-m", "figbench.cli", "harvest", "wec", "--dump", str(path), "--out",
                        str(tmp_path / "out"), "--workers", "1", "--quiet"], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 1, p.stderr[-2000:]
    assert "Compute Failed" not in p.stderr and "Traceback" not in p.stderr, p.stderr[-3000:]
    (line,) = [x for x in p.stderr.splitlines() if x.strip()]
    assert line.startswith("figbench: error: ") and path.name in line and "corrupt" in line


def test_on_error_skip_skips_and_counts_the_bad_stream(tmp_path):
    import json
    import subprocess
    import sys

    path, titles, n_pages = _corrupt_stream(tmp_path)
    out = tmp_path / "out"
    p = subprocess.run([sys.executable, "-m", "figbench.cli", "harvest", "wec", "--dump", str(path), "--out",
                        str(out), "--workers", "1", "--quiet", "--on-error", "skip"], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    assert "Compute Failed" not in p.stderr and "Traceback" not in p.stderr
    report = json.loads((out / "harvest.json").read_text())
    skipped = report["skipped"]
    assert {s["stage"] for s in skipped} == {"scan", "extract"} and len(skipped) == 2
    assert all(s["pages"] == titles and "corrupt" in s["error"] for s in skipped)
    assert report["dump"]["pages"] == n_pages - len(titles) and report["on_error"] == "skip"
    card = (out / "README.md").read_text()
    assert "## Skipped" in card and titles[0] in card


def test_on_error_skip_skips_only_the_bad_page_of_a_plain_file(tmp_path, dask_scheduler):
    """A plain (non-multistream) bz2 file with one page of non-UTF-8 bytes: that page is skipped and listed (its
    number, title and line), every other page is harvested (before: the whole file was skipped)."""
    import bz2
    import json

    from figbench.harvest import wec

    pages = list(synthetic.synthetic_pages(n_events=2, backlinks=6, n_towns=1, filler=20))
    k = len(pages) // 2
    body = [synthetic.page_xml(p, t, x, redirect=r).encode() for p, t, x, r in pages]
    body[k] = body[k].replace(b"</text>", b"\xc3(</text>")  # an invalid UTF-8 sequence
    path = tmp_path / "enwiki-20240601-pages-articles1.xml.bz2"
    path.write_bytes(bz2.compress(synthetic.header().encode() + b"".join(body) + synthetic.FOOTER.encode()))
    report = wec.harvest(path, tmp_path / "out", wec.WecOptions(ner_model="none"), scheduler=dask_scheduler,
                         on_error="skip")
    assert report["dump"]["pages"] == len(pages) - 1
    skipped = report["skipped"]
    assert [s["stage"] for s in skipped] == ["scan", "extract"]
    assert all(s["pages"] == [pages[k][1]] and s["page"] == k + 1 and s["line"] > 1 for s in skipped)
    assert json.loads((tmp_path / "out" / "harvest.json").read_text())["skipped"] == skipped
    card = (tmp_path / "out" / "README.md").read_text()
    assert f"page {k + 1} (line {skipped[0]['line']} of its XML)" in card and pages[k][1] in card


def _spawned_children() -> list:
    """This process's children started by multiprocessing's spawn (dask worker processes)."""
    import os

    import psutil

    found = []
    for c in psutil.Process(os.getpid()).children(recursive=True):
        try:
            if any("spawn_main" in a for a in c.cmdline()):
                found.append(c.pid)
        except psutil.NoSuchProcess:
            pass
    return found


def _kill_a_worker_when(manifest, stage: str, done: int, killed: list, deadline: float,
                        spare: frozenset = frozenset()) -> None:
    """Kill the dask worker processes (children started by multiprocessing's spawn, except ``spare``: the
    session cluster's, started before the harvest) once ``done`` partitions of ``stage`` are recorded."""
    import json
    import os
    import signal
    import time


    while time.time() < deadline:
        try:
            n = len(json.loads(manifest.read_text())["stages"].get(stage, {}))
        except (OSError, ValueError, KeyError):
            n = 0
        if n >= done:
            for pid in set(_spawned_children()) - spare:
                try:
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
                except ProcessLookupError:
                    pass
            return
        time.sleep(0.05)


@pytest.fixture(scope="module")
def undisturbed(longer_dump, tmp_path_factory, dask_scheduler):
    """An undisturbed harvest of the longer dump (on the session's cluster): its report and its output folder."""
    from figbench.harvest import wec

    folder = tmp_path_factory.mktemp("ref")
    return wec.harvest(longer_dump, folder, wec.WecOptions(min_cluster_size=1), scheduler=dask_scheduler,
                       partition_bytes=1000), folder


@pytest.mark.parametrize("stage", ["scan", "extract"])
def test_a_worker_killed_mid_run_is_replaced_and_the_output_is_identical(longer_dump, undisturbed, tmp_path, stage):
    """The only worker killed in the middle of a stage (its copy of the scattered object lost with it): the lost
    tasks are retried (the object scattered again) and the corpus is the same as an undisturbed run's."""
    import json
    import threading
    import time

    from figbench.harvest import wec

    opts = wec.WecOptions(min_cluster_size=1)
    ref, ref_dir = undisturbed
    out = tmp_path / "out"
    killed: list[int] = []
    t = threading.Thread(target=_kill_a_worker_when,
                         args=(out / driver.WORK / driver.MANIFEST, stage, 2, killed, time.time() + 120,
                               frozenset(_spawned_children())))
    t.start()
    try:
        got = wec.harvest(longer_dump, out, opts, workers=1, partition_bytes=1000)
    finally:
        t.join()
    assert killed, "no worker was killed"
    stats = got["partitions"][stage]
    assert len(stats) > 4 and len({s["pid"] for s in stats}) == 2  # the worker was replaced mid-stage
    assert got["kept"] == ref["kept"] and got["removed"] == ref["removed"]
    for name in ("Train_Event_gold_mentions.json", "Dev_Event_gold_mentions_validated.json",
                 "Test_Event_gold_mentions_validated.json", "Event_gold_mention_contexts.json"):
        assert (out / name).read_bytes() == (ref_dir / name).read_bytes()
    assert json.loads((out / "harvest.json").read_text())["dump"] == ref["dump"]


def test_a_stage_without_workers_times_out_with_a_clear_error(small_dump):
    """Every wait is bounded: a cluster whose workers never run a task fails after the timeout, naming it."""
    from dask.distributed import Client, LocalCluster

    parts = dump.partitions(small_dump, partition_bytes=1000)
    with LocalCluster(n_workers=0, processes=False, dashboard_address=None) as lc, Client(lc) as client:
        tasks = driver.Tasks(client, "scan", wimcor.scan, None, "stop", timeout=2)
        with pytest.raises(driver.TaskError, match=r"scan: no partition finished in 2 s \(\d+ waiting, 0 workers\)"):
            list(tasks.run(parts))


def test_a_cluster_left_without_workers_fails_long_before_the_task_timeout(small_dump):
    """A cluster whose every worker was lost and none restarted (seen once under heavy load: a killed worker's
    nanny did not start another) fails after ``no_worker_timeout``, not after the hour-long task timeout."""
    import time

    from dask.distributed import Client, LocalCluster

    parts = dump.partitions(small_dump, partition_bytes=1000)
    with LocalCluster(n_workers=0, processes=False, dashboard_address=None) as lc, Client(lc) as client:
        tasks = driver.Tasks(client, "extract", wimcor.scan, None, "stop", timeout=600, no_worker_timeout=2, poll=0.5)
        t0 = time.monotonic()
        with pytest.raises(driver.TaskError, match=r"extract: the cluster has had no worker for \d+ s \(\d+ partitions "
                                                   r"waiting\): its workers were lost and none restarted"):
            list(tasks.run(parts))
        assert time.monotonic() - t0 < 60
