"""Stages over dump partitions on Dask, with atomic per-partition outputs, a manifest and resume.

A stage maps a function over the partitions on a ``dask.distributed`` cluster: a ``LocalCluster`` of
this machine's cores (one single-threaded worker process per core, or ``workers``), or the cluster
at ``scheduler`` (``tcp://host:8786``; the workers need the dump at the same path and figbench
installed). Each partition's result comes back to this process, which writes it to
``<out>/.harvest/<stage>/<partition>.pkl.gz`` atomically (temporary file + rename) and records it in
``<out>/.harvest/manifest.json``. A rerun with the same dump files and options skips every partition
already recorded (a killed job resumes); another dump or other options start afresh.
"""

from __future__ import annotations

import gzip
import json
import os
import pickle
import resource
import shutil
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import CancelledError
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from figbench.harvest.dump import Partition, fingerprint

WORK = ".harvest"
MANIFEST = "manifest.json"


@contextmanager
def _atomic_open(path: Path) -> Iterator[IO[bytes]]:
    """A file that replaces ``path`` when the block ends without error (temporary file + rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _atomic_write(path: Path, data: bytes) -> None:
    with _atomic_open(path) as f:
        f.write(data)


def write_json(path: Path, obj: Any) -> None:
    """Write JSON atomically (a reader never sees half a file)."""
    _atomic_write(Path(path), json.dumps(obj, ensure_ascii=False, indent=1).encode("utf-8"))


def write_json_array(path: Path, items: Iterable[Any]) -> None:
    """Write a JSON array atomically, one item (one line) at a time: memory holds one item, not the file."""
    with _atomic_open(Path(path)) as f:
        f.write(b"[")
        for i, item in enumerate(items):
            f.write((",\n" if i else "\n").encode() + json.dumps(item, ensure_ascii=False).encode("utf-8"))
        f.write(b"\n]\n")


def memory_mb() -> tuple[float, float]:
    """(peak, current) resident memory of this process in MB: ``VmHWM`` / ``VmRSS`` of ``/proc/self/status``
    (the process's own peak; ``ru_maxrss`` would also count the memory of the process it was forked from before
    its exec), else ``ru_maxrss`` for both."""
    try:
        fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines() if ":" in line)
        return (round(int(fields["VmHWM"].split()[0]) / 1024, 1), round(int(fields["VmRSS"].split()[0]) / 1024, 1))
    except (OSError, KeyError, ValueError):
        peak = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
        return peak, peak


#: times a partition is submitted again after its worker died or its input was lost with a worker
RETRIES = 3
#: seconds a stage waits for its next partition to finish (a hung worker or a cluster without workers fails)
TASK_TIMEOUT = 3600.0
#: seconds a stage waits while the cluster has no worker at all (every worker lost and none restarted)
NO_WORKER_TIMEOUT = 300.0
#: seconds between the stage's checks of the cluster while it waits
POLL_S = 10.0
#: seconds a scatter to the workers or the fetch of a result may take
TRANSFER_TIMEOUT = 600.0
#: what a stage does with a partition whose task raises: ``stop`` the harvest (the default) or ``skip`` its bad
#: streams (each multistream partition is retried stream by stream; the streams that still fail are skipped)
ON_ERROR = ("stop", "skip")
#: how long connecting to a given ``--scheduler`` is retried before the harvest stops, naming it
CONNECT_TIMEOUT = "20s"


class TaskError(ValueError):
    """A partition's task failed (the message names the dump file and byte range); reported as bad input is."""


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split()) or type(e).__name__


def _add_stats(a: dict, b: dict) -> dict:
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) + v if isinstance(v, (int, float)) and not isinstance(v, bool) else v
    return out


def run_task(func: Callable, part: Partition, shared: Any, on_error: str = "stop") -> tuple[Any, dict]:
    """Run ``func(part, shared)`` on a worker: ``(payloads, stats)``, the payloads a list (one per stream read when
    the partition was retried stream by stream), the stats with the task's wall and CPU seconds, the worker
    process's peak RSS so far and its RSS now, its pid, and ``skipped`` streams (``on_error='skip'``).

    A failure comes back as ``(None, {"error": message})`` rather than raised: no worker traceback in the log,
    the driver says it in one line."""
    from figbench.harvest.dump import index_titles, streams

    t0, c0 = time.perf_counter(), time.process_time()
    skipped: list[dict] = []
    try:
        payload, stats = func(part, shared)
        payloads = [payload]
    except Exception as e:  # reported by the driver, named by file and bytes
        if on_error != "skip":
            return None, {"error": _one_line(e), "partition": part.as_dict()}
        payloads, stats = [], {}
        subs = streams(part)
        if part.end == 0:  # a whole file: read again page by page, skipping (and listing) its bad pages
            payloads, stats, skipped = _page_by_page(func, part, shared)
            subs = []
        elif len(subs) == 1:  # one stream: nothing smaller to retry
            skipped.append({"partition": part.as_dict(), "error": _one_line(e), "pages": index_titles(part)})
            subs = []
        for sub in subs:
            try:
                payload, sub_stats = func(sub, shared)
            except Exception as e2:
                skipped.append({"partition": sub.as_dict(), "error": _one_line(e2), "pages": index_titles(sub)})
                continue
            payloads.append(payload)
            stats = _add_stats(stats, sub_stats)
    peak, now = memory_mb()
    stats = {**stats, "seconds": round(time.perf_counter() - t0, 3), "cpu_seconds": round(time.process_time() - c0, 3),
             "max_rss_mb": peak, "rss_mb": now, "pid": os.getpid(), "skipped": skipped}
    return payloads, stats


def _page_by_page(func: Callable, part: Partition, shared: Any) -> tuple[list, dict, list[dict]]:
    """``func`` over a whole file read page by page (:func:`~figbench.harvest.dump.skipping_bad_pages`): (payloads,
    stats, one skipped entry per bad page, with its ``page`` number, title and ``line``, or for a file that cannot
    be read to its end the pages after the last one read). A task that fails with no bad page found (the fault is
    not in the XML) skips the whole file, saying so; one that reads cleanly page by page skips nothing."""
    from figbench.harvest.dump import skipping_bad_pages

    try:
        with skipping_bad_pages() as bad:
            payload, stats = func(part, shared)
    except Exception as e:
        return [], {}, [{"partition": part.as_dict(), "error": _one_line(e), "pages": None,
                         "not_read": "every page of the file"}]
    return [payload], stats, [{"partition": part.as_dict(), "error": b["error"], "page": b["page"], "line": b["line"],
                               "pages": [b["title"]] if b["title"] else None,
                               **({"not_read": "every page after the last one read"} if b["page"] is None else {})}
                              for b in bad]


@contextmanager
def cluster(scheduler: str | None = None, workers: int | None = None) -> Iterator[Any]:
    """A ``dask.distributed`` client: of the cluster at ``scheduler``, else of a new local cluster."""
    import logging

    from dask.distributed import Client, LocalCluster

    if scheduler:
        try:
            client = Client(scheduler, timeout=CONNECT_TIMEOUT)
        except OSError as e:
            raise ConnectionError(f"cannot reach the dask scheduler at {scheduler}: {e}") from e
        try:
            yield client
        finally:
            client.close()
        return
    n = workers or os.cpu_count() or 1
    for attempt in range(2):  # a worker process that does not start in time (a loaded machine): once more
        try:
            lc = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0",
                              silence_logs=logging.ERROR)
            break
        except (RuntimeError, OSError, TimeoutError) as e:
            if attempt:
                raise ConnectionError(f"cannot start a local Dask cluster of {n} worker processes: {e}") from e
    with lc, Client(lc) as client:
        yield client


class Tasks:
    """One stage's partitions on the cluster: submitted, awaited with a timeout, resubmitted when lost.

    A partition whose worker died (the scheduler gives up on it: ``KilledWorker``) or whose input was lost with a
    worker (the scattered ``shared`` object: 'lost dependencies') is submitted again, up to ``retries`` times, with
    the object scattered again when no worker holds it any more. Every wait is bounded: ``timeout`` seconds for the
    next partition to finish, ``no_worker_timeout`` while the cluster has no worker at all (all lost, none
    restarted), ``transfer_timeout`` for a scatter or a result."""

    def __init__(self, client, name: str, func: Callable, shared: Any, on_error: str,
                 progress: Callable[[str], None] | None = None, *, retries: int = RETRIES,
                 timeout: float = TASK_TIMEOUT, transfer_timeout: float = TRANSFER_TIMEOUT,
                 no_worker_timeout: float = NO_WORKER_TIMEOUT, poll: float = POLL_S):
        self.client, self.name, self.func, self.shared, self.on_error = client, name, func, shared, on_error
        self.progress, self.retries, self.timeout, self.transfer_timeout = progress, retries, timeout, transfer_timeout
        self.no_worker_timeout, self.poll = no_worker_timeout, poll
        self.data = None

    def _wait(self, pending: dict) -> None:
        """Until a partition finishes; TaskError after ``timeout`` s, or ``no_worker_timeout`` s without a worker."""
        from dask.distributed import wait

        start = time.monotonic()
        workerless = None
        while True:
            left = self.timeout - (time.monotonic() - start)
            if left <= 0:
                raise TaskError(f"{self.name}: no partition finished in {self.timeout:.0f} s ({len(pending)} "
                                f"waiting, {len(self.client.scheduler_info().get('workers', {}))} workers): "
                                "a hung worker or a cluster without workers")
            try:
                wait(list(pending), timeout=min(self.poll, left), return_when="FIRST_COMPLETED")
                return
            except TimeoutError:
                pass
            now = time.monotonic()
            if self.client.scheduler_info().get("workers"):
                workerless = None
            elif (workerless := workerless or now) and now - workerless >= self.no_worker_timeout:
                raise TaskError(f"{self.name}: the cluster has had no worker for {now - workerless:.0f} s "
                                f"({len(pending)} partitions waiting): its workers were lost and none restarted")

    def _scatter(self) -> None:
        if self.shared is None:
            return
        # a key of its own (hash=False): an equal object scattered by the stage before would get the same
        # content-hashed key while that stage's copy is being released ('lost dependencies', or a hang)
        for attempt in range(self.retries + 1):
            try:
                self.data = self.client.scatter(self.shared, broadcast=True, hash=False,
                                                timeout=self.transfer_timeout)
                return
            except OSError as e:  # a worker gone while the object was sent to it (CommClosedError)
                if attempt == self.retries:
                    raise TaskError(f"{self.name}: cannot send the stage's input to the workers: {e}") from e
                time.sleep(1 + attempt)

    def _submit(self, part: Partition):
        if self.shared is not None and (self.data is None or self.data.status != "finished"):
            self._scatter()  # the first submit, or every copy went with a lost worker
        return self.client.submit(run_task, self.func, part, self.data, self.on_error, pure=False)

    def run(self, todo: list[Partition]) -> Iterator[tuple[Partition, list, dict]]:
        """(partition, payloads, stats) of each of ``todo`` as it finishes."""
        pending = {self._submit(p): p for p in todo}
        tries: dict[str, int] = {}
        try:
            while pending:
                try:
                    self._wait(pending)
                except CancelledError:
                    pass  # a future cancelled (its input lost): handled below
                for fut in [f for f in pending if f.status != "pending"]:
                    part = pending.pop(fut)
                    result = self._result(fut)
                    if result is None:
                        tries[part.key] = tries.get(part.key, 0) + 1
                        if tries[part.key] > self.retries:
                            raise TaskError(f"{self.name}: {part.path} [bytes {part.start}:{part.end or 'end'}]: "
                                            f"lost {tries[part.key]} times (worker died or its input was lost)")
                        if self.progress:
                            self.progress(f"{self.name}: {part.key} lost with a worker; retry {tries[part.key]}")
                        pending[self._submit(part)] = part
                        continue
                    payloads, stats = result
                    if payloads is None:
                        raise TaskError(stats["error"])
                    yield part, payloads, stats
        finally:
            if pending:
                self.client.cancel(list(pending))

    def _result(self, fut) -> tuple | None:
        """A finished future's value, or None when it was lost (its worker died, its input was lost, or the result
        could not be fetched in time)."""
        from distributed.scheduler import KilledWorker

        try:
            return fut.result(timeout=self.transfer_timeout)
        except (CancelledError, KilledWorker, TimeoutError, OSError):
            return None
        finally:
            fut.release()


class Run:
    """The work folder of one harvest: manifest, finished partitions, their outputs."""

    def __init__(self, out: str | Path, parts: list[Partition], options: dict):
        self.out = Path(out)
        self.work = self.out / WORK
        self.parts = parts
        self.identity = {"fingerprint": fingerprint(parts), "options": options}
        self.manifest = self._load()

    def _load(self) -> dict:
        path = self.work / MANIFEST
        if path.is_file():
            try:
                m = json.loads(path.read_text(encoding="utf-8"))
            except json.JSONDecodeError:
                m = {}
            if {k: m.get(k) for k in self.identity} == self.identity:
                return m
            shutil.rmtree(self.work)  # another dump or other options: start afresh
        return {**self.identity, "stages": {}}

    def _save(self) -> None:
        write_json(self.work / MANIFEST, self.manifest)

    def output(self, stage: str, part: Partition) -> Path:
        return self.work / stage / f"{part.key}.pkl.gz"

    def done(self, stage: str) -> dict[str, dict]:
        """partition key -> stats of the partitions of ``stage`` finished (recorded and on disk)."""
        got = self.manifest["stages"].get(stage, {})
        return {k: v for k, v in got.items() if self.output(stage, Partition(**v["partition"])).is_file()}

    def stage(self, name: str, func: Callable, client, shared: Any = None,
              progress: Callable[[str], None] | None = None, on_error: str = "stop") -> list[dict]:
        """Run ``func`` on every unfinished partition; every partition's stats (finished before or now).

        A failed partition stops the stage with :class:`TaskError` (``on_error='stop'``) or has its bad streams
        skipped and recorded in its stats (``'skip'``, see :func:`run_task`)."""
        if on_error not in ON_ERROR:
            raise ValueError(f"on_error must be one of {ON_ERROR}, not {on_error!r}")
        finished = self.done(name)
        todo = [p for p in self.parts if p.key not in finished]
        if progress and finished:
            progress(f"{name}: {len(finished)} of {len(self.parts)} partitions already done (resuming)")
        for part, payloads, stats in Tasks(client, name, func, shared, on_error, progress).run(todo):
            _atomic_write(self.output(name, part), gzip.compress(pickle.dumps(payloads, protocol=5), 3))
            self.manifest["stages"].setdefault(name, {})[part.key] = {**stats, "partition": part.as_dict()}
            self._save()
            if progress:
                progress(f"{name}: {part.key} done ({stats.get('pages', 0)} pages, {stats['seconds']} s)")
                for sk in stats["skipped"]:
                    progress(f"{name}: skipped bytes {sk['partition']['start']}:{sk['partition']['end']} "
                             f"({len(sk['pages'] or ())} pages in the index): {sk['error']}")
        stats = self.done(name)
        return [stats[p.key] for p in self.parts]

    def outputs(self, stage: str) -> Iterator[Any]:
        """The payloads of a finished stage, one partition (or stream) at a time, in partition order."""
        for p in self.parts:
            with gzip.open(self.output(stage, p), "rb") as f:
                yield from pickle.load(f)

    def skipped(self) -> list[dict]:
        """Every stream skipped by a stage (``on_error='skip'``): stage, byte range, error, the index's titles."""
        out = []
        for stage, parts in self.manifest["stages"].items():
            for p in self.parts:
                for s in parts.get(p.key, {}).get("skipped", ()):
                    out.append({"stage": stage, **s})
        return out

    def clean(self) -> None:
        """Remove the intermediate outputs (after the corpus is written)."""
        shutil.rmtree(self.work, ignore_errors=True)
