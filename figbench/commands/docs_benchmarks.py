"""README blocks rendered from committed benchmark outputs (a provider of :data:`figbench.commands.docs.PROVIDERS`).

``retag`` and ``generation-cost`` ("Making harder corpora") come from ``benchmarks/bench_retag.json``,
written by ``benchmarks/bench_retag.py`` (the ``retag`` block's account of its bounds from
``benchmarks/retag_ceiling.json``: :mod:`figbench.commands.docs_retag_ceiling`); ``harvest-scale`` and
``harvest-estimate`` (the harvest section) from ``benchmarks/bench_harvest.json``, written by
``benchmarks/bench_harvest.py``; ``measured`` (README "Measured") from ``benchmarks/measured.json``, one entry
per measurement of figbench itself with the commit it measured, its date and the load; ``install-size`` (core
against ``[all]``) from ``benchmarks/bench_install.json``, written by ``benchmarks/bench_install.py``. The
full-Wikipedia estimate's dump size, page count and price per core-hour are stated assumptions
(:data:`ENWIKI_COMPRESSED_MB`, :data:`ENWIKI_ARTICLES`, :data:`PRICE_PER_CORE_HOUR`), not results; every other
number of these blocks is read from a benchmark file or derived from its numbers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from figbench.commands.docs import ROOT, Block
from figbench.commands.docs_harvest_rerun import render_rerun

#: the folder of the committed benchmark outputs
BENCHMARKS = ROOT / "benchmarks"
RETAG_JSON = "bench_retag.json"
MEASURED_JSON = "measured.json"
HARVEST_JSON = "bench_harvest.json"
INSTALL_JSON = "bench_install.json"
#: assumptions of the full English Wikipedia estimate (enwiki pages-articles-multistream: bz2 size, articles)
ENWIKI_COMPRESSED_MB = 22_000
ENWIKI_ARTICLES = 6_800_000
#: a stated cloud price, USD per core-hour (a parameter of the estimate, not a measurement)
PRICE_PER_CORE_HOUR = 0.05
#: workers of the cluster sizes the estimate gives
CLUSTER_SIZES = (16, 64)
ONE_GB_MB = 1024

#: (README label, bench_retag.json set name)
RETAG_SETS = (("META_m validation", "META_m validation"), ("META_m test", "META_m test"),
              ("META_1 Dev_small", "META_1 Dev_small"))
#: the set no choice of the re-tagger looked at (marked ‡ when bench_retag.json's selection is test-informed)
HELD_OUT = "META_m test"


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

_VERDICT = {"exact": "exact", "flags": "flags", "both": "both", "none": "**neither**"}


def render_retag(benchmarks: Path = BENCHMARKS, results: Path | None = None) -> str:
    """The re-tagger over word-list variants, per released set, and which target each meets; with ``results``,
    a last row for the real model's own word lists (its generation record)."""
    data = load(benchmarks, RETAG_JSON, "bench_retag.py")
    path = Path(benchmarks) / RETAG_JSON
    t = field(data, path, "targets")
    exact, dis, most = (field(t, path, k) for k in ("exact", "disagreements_flagged", "flagged_at_most"))
    selection = field(data, path, "selection")
    mark = "‡" if field(data, path, "selection", "kind") == "test-informed" else ""
    lines = ["| word list given to the re-tagger | released spans | mentions | exact | token overlap | flagged | "
             "disagreements flagged | target met |", "|---|---|---|---|---|---|---|---|"]
    met: dict[str, list[str]] = {}
    for variant in field(data, path, "variants"):
        for label, key in RETAG_SETS:
            r = field(data, path, "results", f"{key}, {variant}")
            met.setdefault(variant, []).append(r["verdict"])
            held = f" (held out{mark})" if key == HELD_OUT else ""
            lines.append(f"| {variant} | {label}{held} | {r['mentions']:,} | {_pct(r['exact'])} | "
                         f"{_pct(r['token_overlap'])} | {_pct(r['flagged'])} | {_pct(r['disagreements_flagged'])} "
                         f"({r['disagreements']:,}) | {_VERDICT[r['verdict']]} |")
    own = _own_lists_row(results) if results is not None else ""
    if own:
        lines.append(own)
    summary = "; ".join(f"{v}: " + (f"met on all {len(vs)} sets" if "none" not in vs else
                                    f"met on {sum(x != 'none' for x in vs)} of {len(vs)}")
                        for v, vs in met.items())
    note = f"{'‡ ' if mark else ''}Selection ({selection['kind']}): {field(data, path, 'selection', 'note')}."
    text = (f"Targets per variant and set: at least {_target(exact)} exact (**exact**), or at least {_target(dis)} of "
            f"the disagreements flagged with at most {_target(most)} of all mentions flagged (**flags**). {summary}. "
            "The released span as the word list is circular (it hands the re-tagger the answer); the other lists "
            "are what a model plausibly writes instead. The re-tagger sees only what a run has: the sentence, its "
            "triggers, the paraphrase and the list. The alignment's span is the rewritten stretch without leading "
            "articles, possessives, pronouns and conjunctions (a leading preposition or verb stays: `put an end "
            "to`); where triggers share a stretch, the guessed cut (in proportion to their places in the sentence, "
            "keeping `of` phrases, possessives and hyphenated words whole where it can) leaves its function words "
            "to neither side; "
            "`weak_boundary` is raised only where the span stops short of a function word the model kept. An entry "
            "is looked up verbatim, then by lemmas (a list in base "
            "form), then fuzzily (`fuzzy_word`); one word or a phrase ending with a function word inside the "
            "rewritten stretch the alignment finds is read as part of it, and the span runs from the entry to the "
            "stretch's end; an entry cut short between two rewritten content words runs on to the end of them; "
            "an entry that puts the span anywhere else is taken and flagged (`word_differs`, "
            "`word_elsewhere`) and keeps every flag of the alignment; only an entry that is exactly the aligned "
            "span and no such fragment (for one-word metaphors, META_1, one word is no fragment) answers the "
            "alignment's doubts about its edges (`weak_boundary`, `extra_words`). The flags target can only be "
            "met where at most "
            f"{_target(most / dis)} of the spans disagree (flagging {_target(dis)} of them within {_target(most)}); "
            "on META_m the first content word, the dropped token and no list disagree more often than that, "
            "because the alignment alone often misplaces a metaphor's edges (function words the model kept, "
            f"rewritten neighbours), so no flagging rule can meet it there. {note}")
    precision = {}   # per variant on META_m validation: the share of its flagged spans that disagree
    for variant in field(data, path, "variants"):
        r = field(data, path, "results", f"{RETAG_SETS[0][1]}, {variant}")
        if r["verdict"] == "none" and r["flagged"]:
            precision[variant] = r["disagreements_flagged"] * (1 - r["exact"]) / r["flagged"]
    from figbench.commands.docs_retag_ceiling import render_ceiling

    ceiling = render_ceiling(benchmarks, (exact, dis, most), precision)
    return "\n".join(lines) + "\n\n" + text + "\n" + (f"\n{ceiling}\n" if ceiling else "")


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


def _own_lists_row(results: Path) -> str:
    """The recorded runs' own word lists (:data:`~figbench.commands.docs_generation.OWN_LISTS`): agreement with the
    alignment (no released span exists for a new paraphrase)."""
    from figbench.commands.docs_generation import OWN_LISTS

    rows = []
    for name in OWN_LISTS:
        path = Path(results) / "generation" / f"{name}.json"
        if not path.is_file():
            continue
        rec = json.loads(path.read_text("utf-8"))
        o, model, split = rec["own_word_lists"], rec["settings"]["model"], rec["settings"]["split"]
        where = "a lent GPU" if rec["machine"].get("gpu") else "this CPU"
        n = o["compared"]
        if not n:
            rows.append(f"| the model's own lists (`{model}`) | its own ECB+ {split} paraphrases ({where}) | 0 | "
                        "- | - | - | - | the model returned no usable word list |")
            continue
        rows.append(f"| the model's own lists (`{model}`; exact = agreement with the alignment without a list) | its "
                    f"own ECB+ {split} paraphrases ({where}) | {n:,} | {_pct(o['agree_with_alignment'] / n)} | - | "
                    f"{_pct(o['flagged'] / n)} | "
                    f"{_pct(o['disagreements_flagged'] / o['disagreements']) if o['disagreements'] else '-'} "
                    f"({o['disagreements']:,}) | no released span to score |")
    return "\n".join(rows)


# ------------------------------------------------------------------ bench_harvest.json

METHOD_NAMES = {"wec": "WEC", "wimcor": "WiMCor"}


def _harvest_rows(benchmarks: Path) -> tuple[dict, list[dict], Path]:
    data = load(benchmarks, HARVEST_JSON, "bench_harvest.py")
    path = Path(benchmarks) / HARVEST_JSON
    rows = field(data, path, "rows")
    if not isinstance(rows, list) or not rows:
        raise ValueError(f"{path}: field 'rows' must be a non-empty list of runs")
    keys = ("dump", "method", "compressed_mb", "workers", "pages", "wall_s", "cpu_s", "pages_per_s_per_worker",
            "worker_peak_rss_mb")
    for i, row in enumerate(rows):
        for k in keys:
            if not isinstance(row, dict) or k not in row:
                raise ValueError(f"{path}: rows[{i}] has no field {k!r}")
    return data, rows, path


def _num(x: float) -> str:
    return f"{x:,.0f}"


def _found(r: dict) -> str:
    if r["method"] == "wec":
        return f"{r.get('mentions', 0):,} mentions, {r.get('clusters', 0):,} clusters"
    return f"{r.get('samples', 0):,} samples, {r.get('pairs', 0):,} pairs"


def _largest(rows: list[dict]) -> list[dict]:
    """The runs over the largest dump."""
    big = max(r["compressed_mb"] for r in rows)
    return [r for r in rows if r["compressed_mb"] == big]


def render_harvest_scale(benchmarks: Path = BENCHMARKS) -> str:
    """The scale table (one row per dump, method and worker count), worker memory as the dump grows, the loads
    with the builders and the stage CPU against the older checkout."""
    data, rows, path = _harvest_rows(benchmarks)
    machine = field(data, path, "machine")
    d = data.get("dump") or {}
    mix = d.get("mix") or {}
    args = data.get("args") or {}
    head = (f"`benchmarks/bench_harvest.py --filler {d.get('filler', '?'):,}"
            + (f" --baseline-src {data['stage_cpu']['baseline']['rev']}" if data.get("stage_cpu") else "") + "`"
            f" ({data.get('date', '?')}, {machine}): a synthetic dump in the real format (bz2 multistream + index, "
            f"{d.get('compressed_mb', 0):,.1f} MB, written in {d.get('generate_s', 0):,.0f} s by "
            f"`figbench.harvest.synthetic.write_large_dump` with {d.get('gen_processes', '?')} processes; its filler "
            + (f"articles: {100 * mix['infobox']:.0f}% with an infobox, {100 * mix['disambiguation']:.0f}% "
               f"disambiguation pages, {100 * mix['event_link']:.0f}% linking to an event article, "
               f"{100 * mix['town_link']:.0f}% to a town, university or club; " if mix else "")
            + f"{args.get('partition_mb', '?')} MB partitions, local Dask cluster), harvested with "
            f"`figbench harvest wec` and `wimcor`: its first {args.get('prefix_mb', '?')} MB with 1 and 2 workers "
            "(the speed-up, same pages, same run), then all of it with 2 workers.")
    lines = [head, "", "| dump (bz2) | method | pages | workers | wall | pages/s per worker | pages per CPU s | "
             "speed-up | worker peak RSS | harvested |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        sp = f"{r['speed_up']:.2f}x" if r.get("speed_up") is not None else ""
        per_cpu = f"{_num(r['pages'] / r['cpu_s'])}" if r["cpu_s"] else ""
        lines.append(f"| {r['compressed_mb']:,.1f} MB | {METHOD_NAMES.get(r['method'], r['method'])} | "
                     f"{r['pages']:,} | {r['workers']} | {_num(r['wall_s'])} s | {_num(r['pages_per_s_per_worker'])} | "
                     f"{per_cpu} | {sp} | {_num(r['worker_peak_rss_mb'])} MB | {_found(r)} |")
    text = ["\nPages/s per worker: pages over the summed task seconds of both passes (scan and extract); pages per "
            "CPU s: over the tasks' CPU seconds (the gap is waiting for a core on this shared machine)."]
    big = _largest(rows)
    cols = [(r, st) for r in big for st in ("scan", "extract") if (r.get("memory") or {}).get(st)]
    memory = ""
    if cols:
        n = min(len(r["memory"][st]) for r, st in cols)
        first = cols[0][0]["memory"][cols[0][1]]
        memory = ("\n\nWorkers' peak RSS (the largest over the workers; the process peak so far) as the "
                  f"{big[0]['compressed_mb']:,.1f} MB dump is read, by harvest and pass:\n\n| dump read | "
                  + " | ".join(f"{METHOD_NAMES.get(r['method'], r['method'])} {st}" for r, st in cols) + " |\n|---|"
                  + "---|" * len(cols) + "\n"
                  + "\n".join(f"| {first[i]['dump_mb_read']:,.0f} MB | "
                              + " | ".join(f"{_num(r['memory'][st][i]['worker_peak_rss_mb'])} MB" for r, st in cols)
                              + " |" for i in range(n)))
    if memory:
        drift = ", ".join(f"{METHOD_NAMES.get(r['method'], r['method'])} {st} "
                          f"{_num(r['memory'][st][0]['worker_peak_rss_mb'])} -> "
                          f"{_num(r['memory'][st][-1]['worker_peak_rss_mb'])} MB" for r, st in cols)
        text.append(f"Worker memory as the dump grows (table below; first -> last checkpoint: {drift}): pages are "
                    "streamed one at a time and each partition's result leaves the worker; most of the RSS is the "
                    "Python, spaCy and Dask imports, and a drift of a few MB per GB is left to watch at full scale.")
    loaded = data.get("loaded") or {}
    if loaded:
        text.append("The whole dump's outputs load with the builders (`figbench.load_dataset(..., data_dir=...)`): "
                    + "; ".join(f"`{'wec_eng' if m == 'wec' else 'wimcor'}`"
                                + (" (`sample`)" if m == "wimcor" else "") + ": "
                                + ", ".join(f"{s} {n:,}" for s, n in splits.items()) for m, splits in loaded.items())
                    + " rows.")
    sc = data.get("stage_cpu")
    if sc:
        base, now = sc["baseline"], sc["current"]
        text.append(f"CPU per page of the four stage functions (in one process, on {sc['dump_mb']:.1f} MB of "
                    f"streams from the middle of the dump, {sc['pages']:,} pages): {base['cpu_ms_per_page']:.2f} ms "
                    f"at {base['rev']}, {now['cpu_ms_per_page']:.2f} ms at {now['rev']} ({sc['speed_up']:.2f}x less; "
                    "per stage " + ", ".join(
                        f"{k} {sc['baseline'][k]:.1f} -> {sc['current'][k]:.1f} s" for k in
                        ("wec_scan", "wec_extract", "wimcor_scan", "wimcor_extract")) + ").")
    text.append(render_rerun(data, path))
    if max(r["compressed_mb"] for r in rows) < ONE_GB_MB:
        text.append(f"**Not done**: a >= 1 GB dump; the largest harvested is the {big[0]['compressed_mb']:.1f} MB "
                    "one.")
    return "\n".join(lines) + "\n" + " ".join(text).rstrip() + memory + "\n"


def render_harvest_estimate(benchmarks: Path = BENCHMARKS) -> str:
    """Full English Wikipedia on N workers, extrapolated from the CPU seconds of the largest dump's runs."""
    data, rows, path = _harvest_rows(benchmarks)
    big = _largest(rows)
    methods = sorted({r["method"] for r in big})
    workers = max(r["workers"] for r in big)
    # the tasks' CPU seconds (both passes, both harvests), on dedicated cores the core-seconds to pay; the wall
    # time of a shared machine also counts the waits for a core taken by other jobs
    cpu = sum(r["cpu_s"] for r in big)
    paid = sum(r["wall_s"] * r["workers"] for r in big)
    mb, pages = big[0]["compressed_mb"], big[0]["pages"]
    per_mb, per_page = cpu / mb, cpu / pages
    by_mb = ENWIKI_COMPRESSED_MB * per_mb / 3600
    by_pages = ENWIKI_ARTICLES * per_page / 3600
    core_h = max(by_mb, by_pages)
    names = " + ".join(METHOD_NAMES.get(m, m) for m in methods)
    out = (f"Estimate for full English Wikipedia ({names}; assumed {ENWIKI_COMPRESSED_MB:,} MB of "
           f"`enwiki-*-pages-articles-multistream.xml.bz2` and {ENWIKI_ARTICLES / 1e6:.1f} M articles), from the "
           f"{mb:,.1f} MB runs on {workers} workers: their tasks took {_num(cpu)} CPU seconds for {mb:,.1f} MB and "
           f"{pages:,} pages ({_num(paid)} s of wall x workers on this shared machine), so "
           f"{ENWIKI_COMPRESSED_MB:,} MB x {per_mb:.2f} s/MB = {by_mb:.1f} core-hours, or by articles "
           f"{ENWIKI_ARTICLES / 1e6:.1f} M x {1000 * per_page:.2f} ms = {by_pages:.1f} core-hours; the larger, "
           f"{core_h:.1f} (real articles are bigger than the synthetic ones).")
    rc = data.get("real_cpu")
    if rc:
        real, syn = rc["real"], rc["synthetic"]
        adjusted = by_mb * rc["per_mb_ratio"]
        core_h = max(core_h, adjusted)
        per_page = real["cpu_ms_per_page"] / syn["cpu_ms_per_page"]
        out += (f" Real pages are heavier: the four stages take {real['cpu_s_per_mb']:.2f} CPU s per MB of the real "
                f"`{real['file']}` ({real['pages']:,} pages, {real['compressed_mb']:.1f} MB: the first, long "
                f"articles of enwiki) against {syn['cpu_s_per_mb']:.2f} s per MB of the synthetic dump, "
                f"{rc['per_mb_ratio']:.2f}x; per page {real['cpu_ms_per_page']:.2f} ms against "
                f"{syn['cpu_ms_per_page']:.2f} ms, {per_page:.1f}x ({1024 * real['compressed_mb'] / real['pages']:.1f} "
                f"against {1024 * syn['compressed_mb'] / syn['pages']:.2f} KB of bz2 a page); scaled by the per-MB "
                f"ratio, {by_mb:.1f} x {rc['per_mb_ratio']:.2f} = {adjusted:.1f} core-hours.")
    out += f" The estimate uses {core_h:.0f} core-hours."
    worst = (rc or {}).get("real_every_infobox_an_event")
    if worst:
        upper = by_mb * rc["worst_per_mb_ratio"]
        out += (f" That shortened dump has few links to event articles; with every infobox type of it made an event "
                f"type (most of its pages then link to an \"event\" and are parsed in full) it takes "
                f"{worst['cpu_s_per_mb']:.2f} s per MB, {rc['worst_per_mb_ratio']:.2f}x the synthetic dump's: an upper "
                f"bound of {upper:.0f} core-hours (${upper * PRICE_PER_CORE_HOUR:.2f}).")
    multi = [r for r in rows if r["workers"] > 1 and r.get("speed_up") is not None]
    if multi:
        w = multi[0]["workers"]
        ones = {r["method"]: r for r in rows if r["workers"] == 1 and r["dump"] == multi[0]["dump"]}
        overhead = [r["cpu_s"] / ones[r["method"]]["cpu_s"] for r in multi if r["method"] in ones]
        hours = [f"N = {n} dedicated workers about {core_h / n:.1f} h" for n in CLUSTER_SIZES]
        out += (f" Going from 1 to {w} workers on the prefix cost "
                + ", ".join(f"{100 * (o - 1):+.0f}%" for o in overhead) + " CPU ("
                + ", ".join(METHOD_NAMES.get(r["method"], r["method"]) for r in multi if r["method"] in ones)
                + f"; already in the {w}-worker CPU seconds above); the wall speed-ups measured here ("
                + ", ".join(f"{METHOD_NAMES.get(r['method'], r['method'])} {r['speed_up']:.2f}x" for r in multi)
                + (f"; an earlier measurement of the same prefix, {data.get('earlier_machine', '')}: " + ", ".join(
                    f"{METHOD_NAMES.get(r['method'], r['method'])} {r['speed_up']:.2f}x"
                    for r in data["earlier_prefix_rows"] if r.get("speed_up") is not None)
                   if data.get("earlier_prefix_rows") else "")
                + ") depend on what else ran on the 2 cores. On dedicated cores the wall time is about core-hours "
                f"/ N: {' and '.join(hours)} (plus the serial merge in the driver, minutes); at "
                f"${PRICE_PER_CORE_HOUR:g} per core-hour (an assumed price, one core a worker) the harvest costs "
                f"about ${core_h * PRICE_PER_CORE_HOUR:.2f}, whatever N.")
    return out + "\n"


# ------------------------------------------------------------------ measured.json

def _current_counts() -> dict[str, int]:
    """The sizes a measurement of ``measured.json`` can go stale on, as the checkout has them now."""
    from figbench_baselines.specs import board_specs, fast_specs

    fast, board = len(fast_specs()), len(board_specs())
    return {"fast_runs": fast, "committed_records_loaded": board, "stored": fast + board, "board_rows": fast + board}


def render_measured(benchmarks: Path = BENCHMARKS) -> str:
    """README "Measured": one row per measurement of ``measured.json`` with its commit, date and load, then the
    latest flood run's rows (``bench_flood.json``); a row whose sizes (fast runs, board rows) differ from the
    checkout's says it is stale."""
    data = load(benchmarks, MEASURED_JSON, "the measurement named in each row")
    path = Path(benchmarks) / MEASURED_JSON
    now = _current_counts()
    from figbench.commands.docs_flood import measured_rows

    lines = ["| what | measured | commit, date, load |", "|---|---|---|"]
    for i, row in enumerate([*field(data, path, "rows"), *measured_rows(benchmarks)]):
        for k in ("what", "measured", "commit", "date", "load"):
            if k not in row:
                raise ValueError(f"{path}: rows[{i}] has no field {k!r}")
        stale = [f"{k} {v:,} then, {now[k]:,} now" for k, v in (row.get("counts") or {}).items()
                 if k in now and now[k] != v]
        note = f" **Stale** ({'; '.join(stale)}): rerun it." if stale else ""
        lines.append(f"| {row['what']} | {row['measured']}{note} | `{row['commit']}`, {row['date']}, {row['load']} |")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ bench_install.json

def render_install_size(benchmarks: Path = BENCHMARKS) -> str:
    """The core against ``[all]``: install time, size and distributions in a fresh venv (bench_install.py)."""
    data = load(benchmarks, INSTALL_JSON, "bench_install.py")
    path = Path(benchmarks) / INSTALL_JSON
    rows = ["| install | pip install | time | size (site-packages) | distributions | of torch, transformers, "
            "Accelerate, FAISS, Gradio, Dask, PyICU, scikit-learn, lm-eval, mteb |", "|---|---|---|---|---|---|"]
    for label, title in (("core", "`pip install figbench`"), ("all", "`pip install figbench[all]`")):
        heavy = field(data, path, label, "heavy_modules")
        steps = "` then `".join(field(data, path, label, "pip_install"))
        rows.append(f"| {title} | `{steps}` | {field(data, path, label, 'seconds'):.0f} s "
                    f"| {field(data, path, label, 'site_packages_mb'):,.0f} MB "
                    f"| {field(data, path, label, 'distributions')} "
                    f"| {'none' if not heavy else f'{len(heavy)} present'} |")
    core, full = field(data, path, "core"), field(data, path, "all")
    where = (f"{field(data, path, 'machine')}, Python {field(data, path, 'python')}, pip cache "
             f"{field(data, path, 'pip_cache')}; WHEEL is {field(data, path, 'wheel')}")
    return "\n".join(rows) + (
        f"\n\nThe core is {core['site_packages_mb'] / full['site_packages_mb']:.0%} of `[all]`'s size and takes "
        f"{core['seconds'] / full['seconds']:.0%} of its time ({where}).\n")


def blocks(benchmarks: Path = BENCHMARKS) -> list[Block]:
    """The README blocks rendered from ``benchmarks`` (the results folder argument is not used)."""
    return [
        Block("README.md", "retag", lambda results: render_retag(benchmarks, results),
              anchor="list made from the released span; generated from `benchmarks/bench_retag.json`):"),
        Block("README.md", "generation-cost", lambda _results: render_generation_cost(benchmarks),
              anchor="<!-- /generated:retag -->"),
        Block("README.md", "harvest-scale", lambda _results: render_harvest_scale(benchmarks),
              anchor="Scale of the WEC and WiMCor harvests (generated from `benchmarks/bench_harvest.json`):"),
        Block("README.md", "harvest-estimate", lambda _results: render_harvest_estimate(benchmarks),
              anchor="<!-- /generated:harvest-scale -->"),
        Block("README.md", "measured", lambda _results: render_measured(benchmarks),
              anchor="(`make test` prints its 25 slowest tests). Speed targets are timed by the `benchmarks/` "
                     "scripts, never by tests."),
        Block("README.md", "install-size", lambda _results: render_install_size(benchmarks),
              anchor="Install size and time in a fresh venv (`benchmarks/bench_install.py`; pip's cache off):"),
    ]


__all__ = ["BENCHMARKS", "blocks", "load", "render_generation_cost", "render_harvest_estimate",
           "render_harvest_scale", "render_install_size", "render_measured", "render_retag"]
