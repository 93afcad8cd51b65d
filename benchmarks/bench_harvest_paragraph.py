"""Worst-case pages of ``figbench harvest wec`` (issue 31): work linear in a paragraph's links, and no
tokenizing of what the boilerplate filter drops.

1. One paragraph with N links to the event (N = ``--links``, default 1,000 and 3,000): the extract stage, the
   filters and the split files, in a fresh process each; CPU seconds, peak RSS, the payload's pickled size and
   the JSON written (the split files and the paragraphs file, each paragraph once). Linear work: 3x the links,
   about 3x each figure (quadratic would be 9x; the release's layout, every record repeating its paragraph, was).
2. A paragraph with a link and a run of ``--braces`` unclosed braces: extract with the boilerplate filter on
   (the paragraph is not tokenized) and off (spaCy tokenizes the braces), side by side.

    python benchmarks/bench_harvest_paragraph.py --links 1000 3000 --braces 5000
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import pickle
import tempfile
import time
from pathlib import Path

EVENT = "1999 Zorn earthquake"


def _run(text: str, filters_off: tuple[str, ...], queue) -> None:
    from figbench.harvest import driver, dump, synthetic, wec

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "xxwiki-pages-articles.xml"
        synthetic.write_dump(path, [(1, EVENT, "{{Infobox earthquake}} A quake.", None), (2, "Chronicle", text, None)])
        opts = wec.WecOptions(min_cluster_size=1, filters=tuple(f for f in wec.FILTERS if f not in filters_off))
        wec._tokenizer("en")  # loaded before the clock starts
        c0 = time.process_time()
        payload, _ = wec.extract(dump.Partition(str(path)), wec.Shared(opts, {}, {}, aliases={EVENT: EVENT}))
        c1 = time.process_time()
        events = {EVENT: (1, "earthquake")}
        splits, report = wec.apply_filters(payload["mentions"], payload["paragraphs"], opts, events, lambda a: "")
        files = wec.write_splits(Path(d), splits, payload["paragraphs"], events, {"earthquake": "EVENT_UNK"})
        c2 = time.process_time()
        json_mb = sum((Path(d) / f).stat().st_size for f in [*files.values(), wec.CONTEXTS_FILE]) / 2**20
        queue.put({"extract_cpu_s": round(c1 - c0, 2), "filter_write_cpu_s": round(c2 - c1, 2),
                   "peak_rss_mb": driver.memory_mb()[0], "payload_mb": round(len(pickle.dumps(payload)) / 2**20, 2),
                   "json_mb": round(json_mb, 1), "mentions": len(payload["mentions"]),
                   "kept": sum(report["kept"].values())})


def measure(text: str, filters_off: tuple[str, ...] = ()) -> dict:
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=_run, args=(text, filters_off, q))
    p.start()
    out = q.get(timeout=3600)
    p.join()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--links", type=int, nargs="+", default=[1000, 3000])
    ap.add_argument("--braces", type=int, default=5000)
    args = ap.parse_args(argv)
    print("1. one paragraph, N links to the event (fresh process each)")
    rows = []
    for n in args.links:
        text = " ".join(f"On day {i} [[{EVENT}|the quake number {i}]] struck." for i in range(n))
        r = measure(text)
        rows.append((n, r))
        print(f"  links {n:>6,}: {r}", flush=True)
    if len(rows) > 1:
        (n0, a), (n1, b) = rows[0], rows[-1]
        print(f"  {n1 / n0:.1f}x the links: extract CPU {b['extract_cpu_s'] / max(a['extract_cpu_s'], 1e-3):.1f}x, "
              f"payload {b['payload_mb'] / max(a['payload_mb'], 1e-3):.1f}x, peak RSS "
              f"{b['peak_rss_mb'] / a['peak_rss_mb']:.1f}x, JSON {b['json_mb'] / max(a['json_mb'], 1e-3):.1f}x")
    print(f"2. a paragraph with a link and {args.braces:,} unclosed braces")
    text = f"The [[{EVENT}|great quake]] of the year was felt in every town of the land. " + "{" * args.braces
    on, off = measure(text), measure(text, ("boilerplate",))
    print(f"  boilerplate filter on (not tokenized): extract CPU {on['extract_cpu_s']} s")
    print(f"  boilerplate filter off (tokenized):    extract CPU {off['extract_cpu_s']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
