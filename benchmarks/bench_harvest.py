"""Scale benchmark of ``figbench harvest wec`` and ``wimcor`` (issue 25): pages/s per worker, 1 -> 2 workers,
worker memory as the dump grows, and the CPU per page of the stages against an older checkout.

1. Writes (or reuses, when its ``generated.json`` matches the arguments) a synthetic dump in the real format:
   bz2 multistream + index (:func:`figbench.harvest.synthetic.write_large_dump`, streams compressed in
   parallel; ``--filler 1200000`` is about 1 GiB of bz2), and a prefix of it (its first ``--prefix-mb`` of
   streams, with its index, closed by ``</mediawiki>``; :func:`make_slice`).
2. Harvests the prefix with 1 and with ``--workers`` local Dask workers (WEC, then WiMCor): the speed-up,
   measured on the same pages in the same run; then the whole dump with ``--workers`` workers.
3. Per run: pages, wall seconds, pages/s per worker (pages over the summed task seconds of both passes),
   pages per CPU second, the worker processes' peak RSS; for the whole dump, the peak RSS of the workers
   after each tenth of the dump's partitions (flat: pages are streamed); the outputs loaded with the
   ``wec_eng`` / ``wimcor`` builders (``datasets.load_dataset`` with ``data_dir``).
4. ``--baseline-src DIR`` (a checkout of an older figbench): the CPU seconds per page of the four stage
   functions run in-process on ``--stage-mb`` of streams from the middle of the dump (the filler's mix, not
   the head's event and town pages), for that checkout and this one, side by side.

Writes the JSON (``--json``, default ``benchmarks/bench_harvest.json``, rewritten after every run so a
partial run keeps what it measured); the README's scale table and full-Wikipedia estimate are generated
from it (``figbench docs --write``).

    python benchmarks/bench_harvest.py --filler 1200000 --out /tmp/bench_harvest --baseline-src /tmp/old
"""

from __future__ import annotations

import argparse
import bz2
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAME = "enwiki-20240601-pages-articles-multistream.xml.bz2"
HEAD = {"n_events": 50, "backlinks": 200, "n_towns": 10}


def make_dump(folder: Path, filler: int, paragraphs: int | None, processes: int) -> tuple[Path, float]:
    """The dump in ``folder`` (reused when its ``generated.json`` matches) and the seconds its writing took."""
    from figbench.harvest import synthetic

    want = {"filler": filler, "paragraphs": paragraphs, "sizes": "real" if paragraphs is None else "fixed", **HEAD}
    meta = folder / "generated.json"
    path = folder / NAME
    if meta.is_file() and path.is_file():
        got = json.loads(meta.read_text())
        if {k: got.get(k) for k in want} == want and got.get("bytes") == path.stat().st_size:
            return path, got["generate_s"]
    shutil.rmtree(folder, ignore_errors=True)
    t0 = time.perf_counter()
    synthetic.write_large_dump(path, filler, paragraphs=paragraphs, processes=processes, **HEAD)
    gen = round(time.perf_counter() - t0, 1)
    meta.write_text(json.dumps({**want, "gen_processes": processes, "generate_s": gen, "bytes": path.stat().st_size}))
    return path, gen


def make_slice(path: Path, folder: Path, mb: float, start_mb: float = 0.0) -> Path:
    """A dump of the header stream and the streams from the first index offset at or past ``start_mb`` up to the
    first past ``start_mb + mb``, closed by ``</mediawiki>``, with its index (offsets shifted to fit)."""
    from figbench.harvest import dump, synthetic

    folder.mkdir(parents=True, exist_ok=True)
    out = folder / NAME
    header_end = dump.read_index_offsets(dump.index_path(path))[0]
    first = last = None
    with bz2.open(dump.index_path(path), "rt", encoding="utf-8") as src, \
            bz2.open(folder / NAME.replace("multistream", "multistream-index").replace(".xml", ".txt"), "wt",
                     encoding="utf-8") as dst:
        for line in src:
            off_s, rest = line.split(":", 1)
            off = int(off_s)
            if off < max(start_mb * 2**20, header_end):
                continue
            if first is None:
                first = off
            if off >= first + mb * 2**20:
                last = off
                break
            dst.write(f"{off - first + header_end}:{rest}")
    end = last if last is not None else path.stat().st_size
    with open(path, "rb") as f, open(out, "wb") as g:
        g.write(f.read(header_end))
        f.seek(first)
        left = end - first
        while left > 0:
            chunk = f.read(min(left, 1 << 22))
            g.write(chunk)
            left -= len(chunk)
        if last is not None:
            g.write(bz2.compress(synthetic.FOOTER.encode("utf-8"), 9))
    return out


def memory_points(stats: list[dict], dump_mb: float, points: int = 10) -> list[dict]:
    """Workers' peak RSS (the largest over them) after each ``1/points`` of the partitions, in partition order."""
    latest: dict[int, float] = {}
    now: dict[int, float] = {}
    out = []
    n = len(stats)
    marks = sorted({max(1, round(n * k / points)) for k in range(1, points + 1)})
    for i, s in enumerate(stats, 1):
        latest[s["pid"]] = max(latest.get(s["pid"], 0.0), s["max_rss_mb"])
        now[s["pid"]] = s.get("rss_mb", s["max_rss_mb"])
        if i in marks:
            end = s["partition"]["end"] / 2**20
            out.append({"partitions": i, "dump_mb_read": round(end or dump_mb, 1),
                        "worker_peak_rss_mb": max(latest.values()), "worker_rss_mb": max(now.values())})
    return out


def harvest(method: str, path: Path, out: Path, workers: int, partition_mb: float, cats: Path) -> dict:
    from figbench.harvest import wec, wimcor

    shutil.rmtree(out, ignore_errors=True)
    pb = int(partition_mb * 2**20)
    t0 = time.perf_counter()
    if method == "wec":
        rep = wec.harvest(path, out, wec.WecOptions(), workers=workers, partition_bytes=pb)
        found = {"mentions": sum(rep["kept"].values()), "clusters": sum(rep["clusters"].values())}
    else:
        rep = wimcor.harvest(path, out, wimcor.WimcorOptions(categories=str(cats)), workers=workers, partition_bytes=pb)
        found = {"samples": sum(sum(v.values()) for v in rep["samples"].values()), "pairs": len(rep["pairs"])}
    wall = time.perf_counter() - t0
    stages = rep["partitions"]
    tasks = stages["scan"] + stages["extract"]
    pages = sum(s["pages"] for s in stages["scan"])
    task_s = sum(s["seconds"] for s in tasks)
    cpu_s = sum(s.get("cpu_seconds", 0.0) for s in tasks)
    mb = path.stat().st_size / 2**20
    return {"method": method, "compressed_mb": round(mb, 1), "workers": workers, "pages": pages,
            "partitions": len(stages["scan"]), "wall_s": round(wall, 1), "task_s": round(task_s, 1),
            "cpu_s": round(cpu_s, 1), "pages_per_s_per_worker": round(pages / task_s, 1),
            "pages_per_cpu_s": round(pages / cpu_s, 1) if cpu_s else None,
            "worker_peak_rss_mb": max(s["max_rss_mb"] for s in tasks), **found,
            "memory": {st: memory_points(stages[st], mb) for st in ("scan", "extract")}}


def load_check(method: str, out: Path, cache: Path) -> dict:
    """Rows per split of the harvested corpus loaded with its builder."""
    import figbench

    name, config = ("wec_eng", None) if method == "wec" else ("wimcor", "sample")
    dd = figbench.load_dataset(name, config, data_dir=str(out), cache_dir=str(cache))
    return {split: len(ds) for split, ds in dd.items()}


STAGE_SCRIPT = r"""
import json, sys, time
from figbench.harvest import common, dump, wec, wimcor
path, cats = sys.argv[1], sys.argv[2]
parts = dump.partitions(path, partition_bytes=8 << 20)
ns = common.namespaces(parts[0])
opts = wec.WecOptions()
if len(sys.argv) > 3:  # every infobox type of the dump an event type: most pages link to an "event" and are parsed
    ev, ne = wec.load_lists(opts)
    types = set()
    for p in parts:
        types.update(wec.scan(p, wec.Shared(opts, ev, ne, ns))[0]["infoboxes"])
    with open(sys.argv[3], "w", encoding="utf-8") as f:
        f.writelines(f"{t}\tHISTORICAL_EVENT\n" for t in sorted(types) if "\t" not in t and t.strip())
    opts = wec.WecOptions(event_infoboxes=sys.argv[3])
ev, ne = wec.load_lists(opts)
wec._tokenizer("en")  # the spaCy import is not per-page work
out = {}
def timed(name, f):
    c = time.process_time()
    r = [f(p) for p in parts]
    out[name] = round(time.process_time() - c, 2)
    return r
sh = wec.Shared(opts, ev, ne, ns)
scans = timed("wec_scan", lambda p: wec.scan(p, sh))
events = {}
for s, _ in scans:
    for k, v in s["events"].items():
        events.setdefault(k, v)
al = {t: t for t in events}
for s, _ in scans:
    al.update({r: t for r, t in s["redirects"].items() if t in events and r not in al})
sh.aliases = al
timed("wec_extract", lambda p: wec.extract(p, sh))
wsh = wimcor.Shared(wimcor.WimcorOptions(categories=cats), ns)
wscans = timed("wimcor_scan", lambda p: wimcor.scan(p, wsh))
dabs = {}
for s, _ in wscans:
    for a, ts in s["dabs"].items():
        dabs.setdefault(a, []).extend(ts)
classes = wimcor.categories_for(cats, {t for ts in dabs.values() for t in ts})
pairs, _ = wimcor.find_pairs(dabs, classes)
arts = {t for p in pairs for t in p[:2]}
a2 = {t: t for t in arts}
for s, _ in wscans:
    a2.update({r: t for r, t in s["redirects"].items() if t in arts and r not in a2})
wsh.aliases = a2
timed("wimcor_extract", lambda p: wimcor.extract(p, wsh))
out["pages"] = sum(s[1]["pages"] for s in scans)
print(json.dumps(out))
"""


def stage_cpu(src: Path, path: Path, cats: Path, all_events: Path | None = None) -> dict:
    """CPU seconds of the four stage functions of the figbench checkout at ``src`` over ``path`` (one process);
    ``all_events``: a list file to write with every infobox type of the dump as an event type (worst case)."""
    env = {**os.environ, "PYTHONPATH": str(src), "HF_HUB_OFFLINE": "1"}
    extra = [str(all_events)] if all_events else []
    r = subprocess.run([sys.executable, "-c", STAGE_SCRIPT, str(path), str(cats), *extra], env=env, capture_output=True,
                       text=True, cwd="/", check=False)
    if r.returncode:
        raise RuntimeError(f"stage CPU run of {src} failed:\n{r.stderr[-2000:]}")
    got = json.loads(r.stdout.strip().splitlines()[-1])
    total = sum(v for k, v in got.items() if k != "pages")
    return {**got, "total_cpu_s": round(total, 2), "cpu_ms_per_page": round(1000 * total / got["pages"], 3)}


def real_cpu(real: Path, synthetic_slice: Path, root: Path) -> dict:
    """CPU seconds per compressed MB (and per page) of the four stages, this checkout, on a real dump and on the
    synthetic slice: how much heavier real pages are than the generated ones."""
    from figbench.harvest import synthetic

    cats = root / "categories.tsv"
    cats.write_text(synthetic.categories_tsv(HEAD["n_towns"]))
    out = {}
    for name, path in (("real", real), ("synthetic", synthetic_slice)):
        got = stage_cpu(ROOT, path, cats)
        mb = path.stat().st_size / 2**20
        out[name] = {"file": path.name, "compressed_mb": round(mb, 2), "pages": got["pages"],
                     "total_cpu_s": got["total_cpu_s"], "cpu_s_per_mb": round(got["total_cpu_s"] / mb, 3),
                     "cpu_ms_per_page": got["cpu_ms_per_page"]}
    out["per_mb_ratio"] = round(out["real"]["cpu_s_per_mb"] / out["synthetic"]["cpu_s_per_mb"], 2)
    out["per_page_ratio"] = round(out["real"]["cpu_ms_per_page"] / out["synthetic"]["cpu_ms_per_page"], 2)
    worst = stage_cpu(ROOT, real, cats, root / "all_infobox_types.txt")
    mb = real.stat().st_size / 2**20
    out["real_every_infobox_an_event"] = {"total_cpu_s": worst["total_cpu_s"],
                                          "cpu_s_per_mb": round(worst["total_cpu_s"] / mb, 3),
                                          "cpu_ms_per_page": worst["cpu_ms_per_page"]}
    out["worst_per_mb_ratio"] = round(out["real_every_infobox_an_event"]["cpu_s_per_mb"]
                                      / out["synthetic"]["cpu_s_per_mb"], 2)
    out["rev"] = git_rev(ROOT)
    return out


def git_rev(src: Path) -> str:
    """The commit of a checkout (``git rev-parse``), or of an exported tree (its ``.git_rev`` file)."""
    r = subprocess.run(["git", "-C", str(src), "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                       check=False)
    mark = src / ".git_rev"
    return r.stdout.strip() or (mark.read_text().strip() if mark.is_file() else "unknown")


def main() -> None:
    from figbench.harvest import synthetic

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--filler", type=int, default=1_200_000, help="filler pages of the dump (1,200,000: ~1 GiB)")
    ap.add_argument("--paragraphs", type=int, default=None,
                    help="paragraphs of every filler article (default: page sizes drawn as the real English sample's, "
                         "figbench.harvest.synthetic.REAL_SIZES)")
    ap.add_argument("--real-only", action="store_true",
                    help="with --real-dump: only the real-vs-synthetic stage CPU (per MB and per page), into --json")
    ap.add_argument("--prefix-mb", type=float, default=100.0, help="the prefix harvested with 1 and N workers")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--partition-mb", type=float, default=8.0)
    ap.add_argument("--gen-processes", type=int, default=2)
    ap.add_argument("--baseline-src", default=None, help="an older figbench checkout for the stage CPU comparison")
    ap.add_argument("--stage-mb", type=float, default=16.0,
                    help="MB of the stage CPU comparison (streams from the middle of the dump: the filler's mix)")
    ap.add_argument("--skip-full", action="store_true", help="harvest the prefix only")
    ap.add_argument("--real-dump", default=None,
                    help="a real dump (the shortened enwiki one): its stage CPU per MB beside the synthetic slice's")
    ap.add_argument("--merge", action="store_true",
                    help="update the existing --json: with --real-dump add that comparison and harvest nothing, "
                         "else harvest the prefix again and replace its rows (the earlier ones kept aside)")
    ap.add_argument("--as-rerun", action="store_true",
                    help="keep the --json run as it is and write this one under its 'rerun' key (a smaller rerun "
                         "beside the committed 1 GiB run; the README renders both)")
    ap.add_argument("--out", default="/tmp/bench_harvest", help="folder of the dumps and harvests (not the repo)")
    ap.add_argument("--json", default=str(ROOT / "benchmarks" / "bench_harvest.json"), help="where the rows go")
    args = ap.parse_args()
    root = Path(args.out)
    if root.resolve().is_relative_to(ROOT):
        ap.error(f"--out {root} is inside the repository; put the dumps elsewhere (/tmp)")
    loads = [os.getloadavg()[0]]
    record: dict = {"args": {k: v for k, v in vars(args).items() if k not in ("json", "out")},
                    "machine": "", "date": time.strftime("%Y-%m-%d"), "rows": [], "stage_cpu": None, "loaded": {}}

    kept = json.loads(Path(args.json).read_text("utf-8")) if args.as_rerun else None

    def write() -> None:
        out = record if kept is None else {**kept, "rerun": record}
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n", "utf-8")

    def save() -> None:
        record["machine"] = (f"{os.cpu_count()} CPU cores shared with other jobs (1-minute load average "
                             f"{min(loads):.1f}-{max(loads):.1f} at the run's checkpoints)")
        record["driver_peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
        write()

    if args.merge:  # --real-dump: add that comparison; else: measure the prefix rows again (1 and N workers)
        record = json.loads(Path(args.json).read_text("utf-8"))
        loads = [os.getloadavg()[0]]
        if not args.real_dump:
            record["earlier_prefix_rows"] = [r for r in record["rows"] if r["dump"] == "prefix"]
            record["earlier_machine"] = record["machine"]
            record["rows"] = [r for r in record["rows"] if r["dump"] != "prefix"]
            args.skip_full = True
            args.baseline_src = None
    path, gen = make_dump(root / f"dump{args.filler}", args.filler, args.paragraphs, args.gen_processes)
    full_mb = path.stat().st_size / 2**20
    record["dump"] = {"filler": args.filler, "compressed_mb": round(full_mb, 1), "generate_s": gen,
                      "gen_processes": args.gen_processes,
                      "mix": {"infobox": synthetic.FILLER_INFOBOX, "disambiguation": synthetic.FILLER_DISAMBIGUATION,
                              "event_link": synthetic.FILLER_EVENT_LINK, "town_link": synthetic.FILLER_TOWN_LINK}}
    print(f"dump {path}: {full_mb:.1f} MB (written in {gen} s)", flush=True)
    if args.real_dump:
        stage = make_slice(path, root / "stage", args.stage_mb, full_mb / 2)
        record["real_cpu"] = real_cpu(Path(args.real_dump), stage, root)
        print("real vs synthetic", json.dumps(record["real_cpu"]), flush=True)
        real, syn = record["real_cpu"]["real"], record["real_cpu"]["synthetic"]
        for name, r in (("real", real), ("synthetic", syn)):
            print(f"  {name:>9}: {r['cpu_ms_per_page']:.2f} CPU ms per page, {r['cpu_s_per_mb']:.2f} CPU s per MB "
                  f"({r['pages']:,} pages, {1024 * r['compressed_mb'] / r['pages']:.2f} KB of bz2 a page)", flush=True)
        print(f"  real / synthetic: {real['cpu_ms_per_page'] / syn['cpu_ms_per_page']:.2f}x per page, "
              f"{record['real_cpu']['per_mb_ratio']:.2f}x per MB", flush=True)
        if args.real_only:
            write()
            return
        if args.merge:
            write()
            return
    prefix = make_slice(path, root / "prefix", args.prefix_mb)
    cats = root / "categories.tsv"
    cats.write_text(synthetic.categories_tsv(HEAD["n_towns"]))
    if args.baseline_src:
        stage = make_slice(path, root / "stage", args.stage_mb, full_mb / 2)  # the bulk of the dump, not its head
        base = stage_cpu(Path(args.baseline_src), stage, cats)
        now = stage_cpu(ROOT, stage, cats)
        record["stage_cpu"] = {"dump_mb": round(stage.stat().st_size / 2**20, 1), "pages": now["pages"],
                               "baseline": {"rev": git_rev(Path(args.baseline_src)), **base},
                               "current": {"rev": git_rev(ROOT), **now},
                               "speed_up": round(base["cpu_ms_per_page"] / now["cpu_ms_per_page"], 2)}
        print("stage CPU", json.dumps(record["stage_cpu"]), flush=True)
        loads.append(os.getloadavg()[0])
        save()
    runs = [("prefix", prefix, 1), ("prefix", prefix, args.workers)] + ([] if args.skip_full else
                                                                        [("full", path, args.workers)])
    for which, dump_path, w in runs:
        for method in ("wec", "wimcor"):
            out = root / f"out_{which}_{method}_{w}"
            row = {"dump": which, "filler": args.filler, **harvest(method, dump_path, out, w, args.partition_mb, cats)}
            loads.append(os.getloadavg()[0])
            if which == "full":
                record["loaded"][method] = load_check(method, out, root / "hf_cache")
            one = [r for r in record["rows"] if r["dump"] == which and r["method"] == method and r["workers"] == 1]
            row["speed_up"] = round(one[0]["wall_s"] / row["wall_s"], 2) if one and w > 1 else None
            record["rows"].insert(sum(r["dump"] == "prefix" for r in record["rows"]), row)
            print(json.dumps({k: v for k, v in row.items() if k != "memory"}), flush=True)
            save()
    print(f"written {args.json}")


if __name__ == "__main__":
    main()
