"""README blocks rendered from committed benchmark outputs (a provider of :data:`figbench.docs.PROVIDERS`).

``retag`` and ``generation-cost`` ("Making harder corpora") come from ``benchmarks/bench_retag.json``,
written by ``benchmarks/bench_retag.py``; ``harvest-scale`` and ``harvest-estimate`` (the harvest
section) from ``benchmarks/bench_harvest.json``, written by ``benchmarks/bench_harvest.py``. The
full-Wikipedia estimate's dump size, page count and price per core-hour are stated assumptions
(:data:`ENWIKI_COMPRESSED_MB`, :data:`ENWIKI_PAGES`, :data:`PRICE_PER_CORE_HOUR`), not results; every
other number of these blocks is read from a benchmark file or derived from its numbers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from figbench.docs import ROOT, Block

#: the folder of the committed benchmark outputs
BENCHMARKS = ROOT / "benchmarks"
RETAG_JSON = "bench_retag.json"
HARVEST_JSON = "bench_harvest.json"
#: assumptions of the full English Wikipedia estimate (enwiki pages-articles-multistream, counting redirects)
ENWIKI_COMPRESSED_MB = 22_000
ENWIKI_PAGES = 24_000_000
#: a stated cloud price, USD per core-hour (a parameter of the estimate, not a measurement)
PRICE_PER_CORE_HOUR = 0.05
#: workers of the cluster sizes the estimate gives
CLUSTER_SIZES = (16, 64)
#: filler pages of a dump of about 1 GB of bz2 (``write_large_dump(path, 1_150_000)``)
ONE_GB_FILLER = 1_150_000
ONE_GB_MB = 1024

#: (README label, bench_retag.json set name)
RETAG_SETS = (("META_m validation", "META_m validation"), ("META_m test", "META_m test"),
              ("META_1 Dev_small", "META_1 Dev_small"))


def load(benchmarks: Path, name: str, script: str) -> dict[str, Any]:
    """The JSON ``benchmarks/name``; a clear error naming the file when it is missing or not JSON."""
    path = Path(benchmarks) / name
    if not path.is_file():
        raise FileNotFoundError(f"{path}: not found; it is written by `python benchmarks/{script}` and committed "
                                "(the README blocks are rendered from it)")
    try:
        data = json.loads(path.read_text("utf-8"))
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: not valid JSON ({e})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a JSON object")
    return data


def field(data: dict, path: Path | str, *keys: str) -> Any:
    """``data[k1][k2]...``; a missing key is an error naming the file and the key path."""
    cur: Any = data
    for i, k in enumerate(keys):
        if not isinstance(cur, dict) or k not in cur:
            raise ValueError(f"{path}: missing field {'.'.join(repr(x) for x in keys[: i + 1])}")
        cur = cur[k]
    return cur


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _target(x: float) -> str:
    return f"{100 * x:g}%"


def _span(values: list[float], fmt=_pct) -> str:
    lo, hi = min(values), max(values)
    return fmt(lo) if fmt(lo) == fmt(hi) else f"{fmt(lo)}-{fmt(hi)}"


# ------------------------------------------------------------------ bench_retag.json

def render_retag(benchmarks: Path = BENCHMARKS) -> str:
    """The re-tagger table and its verdicts against the targets."""
    data = load(benchmarks, RETAG_JSON, "bench_retag.py")
    path = Path(benchmarks) / RETAG_JSON

    def r(label: str, words: bool, key: str) -> Any:
        return field(data, path, "results", f"{label}, {'with' if words else 'without'} word list", key)

    target = field(data, path, "targets", "exact")
    lines = ["| released spans | mentions | exact, with the model's word list | same, ignoring the release's "
             "trailing punctuation | exact, no word list | token overlap, no word list | disagreements flagged, "
             "no word list |", "|---|---|---|---|---|---|---|"]
    for label, key in RETAG_SETS:
        lines.append(f"| {label} | {r(key, False, 'mentions'):,} | {_pct(r(key, True, 'exact'))} | "
                     f"{_pct(r(key, True, 'exact_without_trailing_punct'))} | {_pct(r(key, False, 'exact'))} | "
                     f"{_pct(r(key, False, 'token_overlap'))} | {_pct(r(key, False, 'disagreements_flagged'))} |")
    meta_m = [k for label, k in RETAG_SETS if label.startswith("META_m")]
    with_met = [label for label, k in RETAG_SETS if r(k, True, "exact") >= target]
    without_met = [label for label, k in RETAG_SETS if r(k, False, "exact") >= target]
    without_missed = [k for label, k in RETAG_SETS if r(k, False, "exact") < target]
    verdict_with = ("met on every set" if len(with_met) == len(RETAG_SETS)
                    else f"met on {' and '.join(with_met) or 'no set'} only")
    dis = [r(k, True, "disagreements") for k in meta_m]
    dis_flagged = [_pct(r(k, True, "disagreements_flagged")) for k in meta_m]
    text = [
        f"With the word list the model returns (here each released span as a model would write it), the "
        f"{_target(target)} target is {verdict_with}; of the {' and '.join(str(d) for d in dis)} META_m "
        f"disagreements, {' and '.join(dis_flagged)} are flagged; ignoring the release's trailing punctuation (a "
        f"comma or full stop that the re-tagger leaves out of a span), "
        f"{_span([r(k, True, 'exact_without_trailing_punct') for k in meta_m])} of the META_m mentions agree.",
    ]
    if without_missed:
        short = [100 * (target - r(k, False, "exact")) for k in without_missed]
        text.append(
            f"Without a word list the {_target(target)} target is met on {' and '.join(without_met) or 'no set'} and "
            f"missed by {_span(short, lambda x: f'{x:.1f}')} points on {' and '.join(without_missed)}: where the "
            f"model rewrote the words around a trigger too, the trigger's stretch has no marked boundary; "
            f"{_span([r(k, False, 'disagreements_flagged') for _, k in RETAG_SETS])} of those disagreements are "
            f"among the flagged cases, but {_span([r(k, False, 'flagged') for _, k in RETAG_SETS])} of all "
            "mentions are flagged then.")
    else:
        text.append(f"Without a word list the {_target(target)} target is met on every set too.")
    return "\n".join(lines) + "\n\n" + " ".join(text) + "\n"


def render_generation_cost(benchmarks: Path = BENCHMARKS) -> str:
    """The estimated tokens and cost of a real META_m run over ECB+ validation + test."""
    data = load(benchmarks, RETAG_JSON, "bench_retag.py")
    path = Path(benchmarks) / RETAG_JSON

    def f(*keys: str) -> Any:
        return field(data, path, "cost_estimate_meta_m_validation_test", *keys)

    price_in, price_out = f("price_per_mtok", "prompt"), f("price_per_mtok", "completion")
    return (f"A real META_m run over ECB+ validation + test, estimated from token counts (prompts as sent; "
            f"answers = Fig. 2's JSON with the released paraphrases; tokens counted with {f('tokenizer')}): "
            f"{f('sentences'):,} requests, {f('prompt_tokens'):,} prompt + {f('completion_tokens'):,} completion "
            "tokens, "
            f"${f('cost_usd'):.2f} at GPT-4-0613 list prices (${price_in:g}/${price_out:g} per million), against "
            f"the paper's about ${f('paper_cost_usd'):g}.\n")


# ------------------------------------------------------------------ bench_harvest.json

def _harvest_rows(benchmarks: Path) -> tuple[dict, list[dict], Path]:
    data = load(benchmarks, HARVEST_JSON, "bench_harvest.py")
    path = Path(benchmarks) / HARVEST_JSON
    rows = field(data, path, "rows")
    if not isinstance(rows, list) or not rows:
        raise ValueError(f"{path}: field 'rows' must be a non-empty list of runs")
    keys = ("filler", "compressed_mb", "workers", "pages", "wall_s", "pages_per_s_per_worker", "worker_peak_rss_mb")
    for i, row in enumerate(rows):
        for k in keys:
            if not isinstance(row, dict) or k not in row:
                raise ValueError(f"{path}: rows[{i}] has no field {k!r}")
    return data, rows, path


def _num(x: float) -> str:
    return f"{x:,.0f}"


def render_harvest_scale(benchmarks: Path = BENCHMARKS) -> str:
    """The scale table (one row per dump and worker count) and what it shows about memory and a 1 GB dump."""
    data, rows, path = _harvest_rows(benchmarks)
    filler, procs, part_mb = (field(data, path, "args", k) for k in ("filler", "gen_processes", "partition_mb"))
    machine = field(data, path, "machine")
    head = (f"`benchmarks/bench_harvest.py --filler {' '.join(str(n) for n in filler)}`: synthetic dumps in "
            f"the real format, bz2 multistream + index written by `figbench.harvest.synthetic.write_large_dump` with "
            f"{procs} processes, WEC harvest, {part_mb:g} MB partitions, local Dask "
            f"cluster; one run on {machine}.")
    if data.get("note"):
        head += f" {data['note']}"
    lines = [head, "", f"| dump (bz2) | pages | workers | wall | pages/s per worker | speed-up 1 -> "
             f"{max(r['workers'] for r in rows)} | worker peak RSS |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        sp = f"{r['speed_up']:.2f}x" if r.get("speed_up") is not None else ""
        lines.append(f"| {r['compressed_mb']:.1f} MB | {r['pages']:,} | {r['workers']} | {_num(r['wall_s'])} s | "
                     f"{_num(r['pages_per_s_per_worker'])} | {sp} | {_num(r['worker_peak_rss_mb'])} MB |")
    small, large = min(r["filler"] for r in rows), max(r["filler"] for r in rows)
    by = {(r["filler"], r["workers"]): r for r in rows}
    workers = sorted({r["workers"] for r in rows})
    big = by[(large, workers[0])]
    text = ["\nPages/s per worker counts both passes (scan and extract) over the summed task seconds."]
    if small != large:
        grow = big["compressed_mb"] / by[(small, workers[0])]["compressed_mb"]
        mem = ", ".join(f"{_num(by[(small, w)]['worker_peak_rss_mb'])} -> {_num(by[(large, w)]['worker_peak_rss_mb'])}"
                        f" MB with {w} worker{'s' if w > 1 else ''}" for w in workers
                        if (small, w) in by and (large, w) in by)
        text.append(f"Worker peak RSS as the dump grows {grow:.1f}x: {mem} (pages are streamed one at a time; most "
                    "of it is the Python, spaCy and Dask imports).")
    gen = big.get("generate_s")
    scale = ONE_GB_MB / big["compressed_mb"]
    if gen is not None:
        text.append(f"Writing the {big['compressed_mb']:.1f} MB dump took {gen:.1f} s.")
    if big["compressed_mb"] >= ONE_GB_MB:
        text.append(f"The largest dump harvested is the {big['compressed_mb']:.1f} MB one.")
    else:
        est = [f"{scale * by[(large, w)]['wall_s'] / 3600:.1f} h ({w} worker{'s' if w > 1 else ''})"
               for w in workers if (large, w) in by]
        text.append("**Not done**: a >= 1 GB dump. At these rates " +
                    (f"generating one takes about {scale * gen / 60:.0f} min here (`write_large_dump(path, "
                     f"{ONE_GB_FILLER:_})`) and " if gen is not None else "") +
                    f"harvesting it on these cores about {' / '.join(est)}; the largest dump harvested is the "
                    f"{big['compressed_mb']:.1f} MB one.")
    return "\n".join(lines) + "\n" + " ".join(text).rstrip() + "\n"


def render_harvest_estimate(benchmarks: Path = BENCHMARKS) -> str:
    """Full English Wikipedia, extrapolated from the largest dump's rows."""
    _, rows, path = _harvest_rows(benchmarks)
    large = max(r["filler"] for r in rows)
    one = [r for r in rows if r["filler"] == large and r["workers"] == 1]
    multi = [r for r in rows if r["filler"] == large and r["workers"] > 1 and r.get("speed_up") is not None]
    if not one:
        raise ValueError(f"{path}: no 1-worker row for the largest dump (filler {large}): nothing to extrapolate from")
    one = one[0]
    mb_s = one["compressed_mb"] / one["wall_s"]
    worker_h = ENWIKI_COMPRESSED_MB / mb_s / 3600
    pages_h = ENWIKI_PAGES / one["pages_per_s_per_worker"] / 3600
    out = (f"Estimate for full English Wikipedia (`enwiki-*-pages-articles-multistream.xml.bz2`, assumed "
           f"{ENWIKI_COMPRESSED_MB:,} MB compressed and {ENWIKI_PAGES / 1e6:.0f} M pages counting redirects), from "
           f"the {one['compressed_mb']:.1f} MB rows: one worker harvested {one['compressed_mb']:.1f} MB of bz2 in "
           f"{_num(one['wall_s'])} s, {mb_s:.3f} MB/s; {ENWIKI_COMPRESSED_MB:,} MB / {mb_s:.3f} MB/s = "
           f"{worker_h:.0f} worker-hours (counting pages instead: {ENWIKI_PAGES / 1e6:.0f} M / "
           f"{_num(one['pages_per_s_per_worker'])} pages/s = {pages_h:.0f} worker-hours).")
    if multi:
        m = multi[0]
        eff = m["speed_up"] / m["workers"]
        hours = [f"N = {n} workers take about {worker_h / (n * eff):.1f} h" for n in CLUSTER_SIZES]
        out += (f" With the measured {m['workers']}-worker efficiency of {100 * eff:.0f}% ({m['speed_up']:.2f}x / "
                f"{m['workers']}) holding, {' and '.join(hours)}; at ${PRICE_PER_CORE_HOUR:g} per core-hour "
                f"(an assumed price) that is about ${worker_h * PRICE_PER_CORE_HOUR:.1f} for the worker-hours, "
                f"${worker_h / eff * PRICE_PER_CORE_HOUR:.1f} for the {worker_h / eff:.0f} core-hours paid at that "
                "efficiency.")
    return out + "\n"


def blocks(benchmarks: Path = BENCHMARKS) -> list[Block]:
    """The README blocks rendered from ``benchmarks`` (the results folder argument is not used)."""
    return [
        Block("README.md", "retag", lambda _results: render_retag(benchmarks),
              anchor="the ECB+ sentence with its triggers and the released paraphrase; generated from "
                     "`benchmarks/bench_retag.json`):"),
        Block("README.md", "generation-cost", lambda _results: render_generation_cost(benchmarks),
              anchor="<!-- /generated:retag -->"),
        Block("README.md", "harvest-scale", lambda _results: render_harvest_scale(benchmarks),
              anchor="Scale of a WEC harvest (generated from `benchmarks/bench_harvest.json`):"),
        Block("README.md", "harvest-estimate", lambda _results: render_harvest_estimate(benchmarks),
              anchor="<!-- /generated:harvest-scale -->"),
    ]


__all__ = ["BENCHMARKS", "blocks", "load", "render_generation_cost", "render_harvest_estimate",
           "render_harvest_scale", "render_retag"]
