"""The README's paragraph on the harvest benchmark's rerun with real page sizes (``rerun`` of
``benchmarks/bench_harvest.json``, written by ``benchmarks/bench_harvest.py --as-rerun``): its runs and the CPU per
page of real pages beside the synthetic ones'. Rendered into the ``harvest-scale`` block."""

from __future__ import annotations

from pathlib import Path

NAMES = {"wec": "WEC", "wimcor": "WiMCor"}


def _field(rerun: dict, path: Path, key: str):
    if key not in rerun:
        raise ValueError(f"{path}: field 'rerun' has no field {key!r}")
    return rerun[key]


def render_rerun(data: dict, path: Path) -> str:
    """The rerun paragraph ('' when the JSON has none): what ran, on what load, and what it measured."""
    rerun = data.get("rerun")
    if not rerun:
        return ""
    d, args = _field(rerun, path, "dump"), rerun.get("args") or {}
    rows = _field(rerun, path, "rows")
    runs = "; ".join(
        f"{NAMES.get(r['method'], r['method'])} {r['dump']} {r['compressed_mb']:,.1f} MB on {r['workers']} "
        f"worker{'s' if r['workers'] > 1 else ''}: {r['pages']:,} pages in {r['wall_s']:,.0f} s wall, "
        f"{r['cpu_s']:,.0f} CPU s "
        f"({1000 * r['cpu_s'] / r['pages']:.1f} CPU ms a page)"
        + (f", wall speed-up {r['speed_up']:.2f}x" if r.get("speed_up") else "")
        for r in rows)
    full = any(r["dump"] == "full" for r in rows)
    text = (f"Rerun with the synthetic generator's page sizes drawn from the real sample ({rerun.get('date', '?')}, "
            f"{_field(rerun, path, 'machine')}; the 1 GiB run above predates it and is not redone): a "
            f"`--filler {d['filler']:,}` dump of {d['compressed_mb']:,.1f} MB of bz2 "
            f"({args.get('partition_mb', '?')} MB partitions), "
            + ("harvested whole and by its " if full else "**only its ") + f"{args.get('prefix_mb', '?')} MB prefix"
            + ("" if full else " harvested** (the whole dump did not fit the time this busy machine gave)")
            + f": {runs}.")
    rc = rerun.get("real_cpu")
    if rc:
        real, syn = rc["real"], rc["synthetic"]
        text += (f" CPU of the four stages per page: real pages ({real['file']}, {real['pages']:,}) "
                 f"{real['cpu_ms_per_page']:.2f} ms against synthetic pages {syn['cpu_ms_per_page']:.2f} ms, "
                 f"{real['cpu_ms_per_page'] / syn['cpu_ms_per_page']:.2f}x "
                 f"({1024 * real['compressed_mb'] / real['pages']:.2f} against "
                 f"{1024 * syn['compressed_mb'] / syn['pages']:.2f} KB of bz2 a page); per MB "
                 f"{real['cpu_s_per_mb']:.2f} against {syn['cpu_s_per_mb']:.2f} s, {rc['per_mb_ratio']:.2f}x.")
    return text
