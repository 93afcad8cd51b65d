"""``figbench data``: where corpora live (``where``), get them (``fetch``), prepare them for bare-name
loading (``prepare``), statistics (``stats``) and Hub-ready export (``export``)."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from typing import Any

from figbench.loading import builder_options

#: ``--data-dir``, the same everywhere (data, baseline, leaderboard): see :func:`figbench.paths.corpus_dir`
DATA_DIR_HELP = ("data root holding one folder per corpus, or several roots separated by "
                 f"'{os.pathsep}' (default $FIGBENCH_DATA_DIR); a corpus folder itself is accepted too")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("data", help="statistics and export of figbench corpora",
                       description="Statistics of a figbench corpus, or export it as a Hub-ready Parquet folder.")
    p.set_defaults(_parser=p)
    dsub = p.add_subparsers(dest="data_command", metavar="SUBCOMMAND")

    wp = dsub.add_parser("where", help="the data root and each corpus folder, with what is present",
                         description="Print the data root ($FIGBENCH_DATA_DIR, else the default) and, per corpus, "
                                     "its folder and whether its files are there.")
    wp.add_argument("--json", action="store_true", help="print JSON")
    wp.set_defaults(func=_where)

    fp = dsub.add_parser("fetch", help="download a corpus's public files into its folder (sha256 checked)",
                         description="Download the public original files of a corpus into its folder "
                                     "(<data root>/NAME or --data-dir), checking each against its recorded sha256.")
    fp.add_argument("names", nargs="+", metavar="NAME", help="corpus name(s)")
    fp.add_argument("--data-dir", default=None, help=DATA_DIR_HELP)
    fp.add_argument("--force", action="store_true", help="download again even when the files are there")
    fp.set_defaults(func=_fetch)

    pp = dsub.add_parser("prepare", help="build a corpus into the datasets cache for datasets.load_dataset(NAME)",
                         description="Build every config of a corpus (or only CONFIG) into the datasets cache, "
                                     "after which plain datasets.load_dataset(NAME, CONFIG) loads them offline "
                                     "without figbench.")
    _common(pp)
    pp.add_argument("--all-configs", action="store_true",
                    help="prepare every config that can be built (the default when no CONFIG is given)")
    pp.add_argument("--force", action="store_true", help="rebuild even when prepared (e.g. after corpus files changed)")
    pp.set_defaults(func=_prepare)

    sp = dsub.add_parser("stats", help="mentions, clusters, ambiguity, diversity, MTLD (or counts) per split",
                         description="Print per-split statistics of a corpus config, next to published values.")
    _common(sp)
    sp.add_argument("--split", action="append", default=None,
                    help="only this split (repeatable); default: every split that can be built")
    sp.add_argument("--no-mtld", action="store_true", help="skip the MTLD lexical diversity (faster)")
    sp.add_argument("--json", action="store_true", help="print JSON instead of a table")
    sp.set_defaults(func=_stats)

    ep = dsub.add_parser("export", help="write Parquet per config/split and the card, loadable without figbench",
                         description="Write a folder that plain datasets.load_dataset(DIR, CONFIG) loads; "
                                     "with --push-to-hub, upload it as a Hub dataset repo.")
    _common(ep)
    ep.add_argument("--to", required=True, metavar="DIR", help="target folder")
    ep.add_argument("--push-to-hub", metavar="REPO_ID", default=None, help="upload the folder to this Hub dataset repo")
    ep.add_argument("--private", action="store_true", help="create the Hub repo as private")
    ep.add_argument("--json", action="store_true", help="print the export report as JSON")
    ep.add_argument("--inputs-only", action="store_true",
                    help="leave out every gold column of the tasks scored on each split (what a submitter may be "
                         "given for a hidden benchmark)")
    ep.set_defaults(func=_export)


def _common(p: argparse.ArgumentParser) -> None:
    from figbench.paths import CORPORA

    p.add_argument("name", choices=CORPORA, metavar="NAME", help=f"corpus: {', '.join(CORPORA)}")
    p.add_argument("config", nargs="?", default=None, metavar="CONFIG", help="builder config (default: see below)")
    p.add_argument("--data-dir", default=None, help=DATA_DIR_HELP)
    p.add_argument("--cache-dir", default=None, help="datasets cache folder")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="builder config option, e.g. source=ucdcr (repeatable)")




def _clean(value: Any) -> Any:
    """JSON-safe: NaN -> None, recursively."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    return value


def _fmt(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, float):
        return f"{value:.2f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _stats(args: argparse.Namespace) -> int:
    import datasets
    from figbench.loading import builder_configs, load_dataset
    from figbench.stats import dataset_stats, published

    _, default = builder_configs(args.name)
    config = args.config or default
    dd = load_dataset(args.name, config, data_dir=args.data_dir, cache_dir=args.cache_dir,
                      **builder_options(args.option))
    if isinstance(dd, datasets.Dataset):
        dd = datasets.DatasetDict({"all": dd})
    if args.split:
        unknown = [s for s in args.split if s not in dd]
        if unknown:
            _why_missing(args, config, unknown)
            raise ValueError(f"{args.name}/{config} has no split(s) {unknown}; built: {', '.join(dd)}")
        dd = datasets.DatasetDict({s: dd[s] for s in args.split})
    stats = dataset_stats(dd, mtld=not args.no_mtld)
    pub = {s: published(args.name, config, s) for s in stats}
    if args.json:
        out = {"name": args.name, "config": config,
               "splits": {s: {**_clean(v), "published": pub[s]} for s, v in stats.items()}}
        print(json.dumps(out, indent=2))
        return 0
    print(f"{args.name} / {config}")
    print(render_table(stats, pub))
    return 0


def _why_missing(args: argparse.Namespace, config: str, splits: list[str]) -> None:
    """Raise the builder's own error for a split it knows but could not build (its file missing: a
    :class:`~figbench.corpora.files.MissingDataError` naming the file and its URL); else return."""
    from figbench.corpora.files import MissingDataError
    from figbench.loading import load_dataset

    for split in splits:
        try:
            load_dataset(args.name, config, split=split, data_dir=args.data_dir, cache_dir=args.cache_dir,
                         **builder_options(args.option))
        except MissingDataError:
            raise
        except (ValueError, KeyError):  # a split the corpus does not have
            continue


def render_table(stats: dict[str, dict[str, Any]], pub: dict[str, dict[str, Any]] | None = None) -> str:
    """A text table, statistics as rows and splits as columns (with published values when known)."""
    pub = pub or {}
    splits = list(stats)
    keys: list[str] = []
    for s in splits:
        keys += [k for k in stats[s] if k not in keys and k not in ("labels", "label_summary")]
    header = ["statistic"]
    for s in splits:
        header.append(s)
        if pub.get(s):
            header.append(f"{s} (published)")
    rows = [header]
    for k in keys:
        row = [k]
        for s in splits:
            row.append(_fmt(stats[s].get(k)))
            if pub.get(s):
                row.append(_fmt(pub[s].get(k)))
        rows.append(row)
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))) for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    for s in splits:
        for column, counts in (stats[s].get("labels") or {}).items():
            lines.append(f"\n[{s}] {column}: "
                         + ", ".join(f"{lab or repr(lab)} {_fmt(n)}" for lab, n in counts.items()))
        for column, summ in (stats[s].get("label_summary") or {}).items():
            lines.append(f"\n[{s}] {column}: {summ['distinct']:,} distinct values, "
                         f"{summ['min']:,}-{summ['max']:,} examples each")
    return "\n".join(lines)


def _export(args: argparse.Namespace) -> int:
    from figbench.commands.export import export_dataset, push_to_hub, validate_repo_id

    if args.push_to_hub:
        validate_repo_id(args.push_to_hub)  # fail before the (long) export
    report = export_dataset(args.name, args.config, args.to, data_dir=args.data_dir, cache_dir=args.cache_dir,
                            inputs_only=args.inputs_only, **builder_options(args.option))
    if args.push_to_hub:
        try:
            report.pushed_to = push_to_hub(report.folder, args.push_to_hub, private=args.private)
        except ConnectionError as e:
            _print_report(report, args.json)
            print(f"figbench: error: {e}", file=sys.stderr)
            return 1
    _print_report(report, args.json)
    return 0


def _print_report(report, as_json: bool) -> None:
    if as_json:
        print(json.dumps(report.to_dict(), indent=2))
        return
    print(f"exported to {report.folder}")
    for config, splits in report.configs.items():
        print(f"  {config}: " + ", ".join(f"{s} {n:,}" for s, n in splits.items()))
    for config, why in report.skipped.items():
        print(f"  skipped {config}: {why}")
    for where, cols in report.dropped.items():
        print(f"  {where}: gold columns left out: {', '.join(cols)}")
    if report.pushed_to:
        print(f"pushed to {report.pushed_to}")


def _corpus_files(name: str):
    """The :class:`~figbench.corpora.files.RemoteFile` list of a corpus (``figbench.corpora.<name>.FILES``)."""
    from importlib import import_module

    return tuple(getattr(import_module(f"figbench.corpora.{name}"), "FILES", ()))


def _where(args: argparse.Namespace) -> int:
    import os

    from figbench.corpora.files import missing
    from figbench.paths import CORPORA, DATA_DIR_ENV, corpus_dir, data_root, data_roots, default_data_dir

    root = data_root()
    out = {"data_root": str(root), "data_roots": [str(r) for r in data_roots()],
           "from": DATA_DIR_ENV if os.environ.get(DATA_DIR_ENV) else "default",
           "default": str(default_data_dir()), "corpora": {}}
    for name in CORPORA:
        folder = corpus_dir(name)
        files = _corpus_files(name)
        absent = missing(folder, files)
        out["corpora"][name] = {"folder": str(folder), "exists": folder.is_dir(), "files": len(files),
                                "missing": [f.path for f in absent]}
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(f"data root: {root}  "
          f"({'$' + DATA_DIR_ENV if out['from'] != 'default' else 'default; set $' + DATA_DIR_ENV + ' to change it'})")
    for name, info in out["corpora"].items():
        state = ("complete" if not info["missing"] else
                 f"{len(info['missing'])} of {info['files']} downloadable files missing"
                 ) if info["exists"] else "absent"
        print(f"  {name:10s} {info['folder']}  [{state}]")
    return 0


def _fetch(args: argparse.Namespace) -> int:
    from figbench.corpora.files import (
        MissingDataError,
        downloads_allowed,
        fetch,
        missing,
        missing_message,
        offline_reason,
        resolve,
    )
    from figbench.paths import CORPORA, corpus_dir

    for name in args.names:
        if name not in CORPORA:
            raise ValueError(f"unknown figbench dataset {name!r}; known: {', '.join(CORPORA)}")
        folder = corpus_dir(name, args.data_dir)
        files = _corpus_files(name)
        if args.force:
            if not downloads_allowed():
                raise MissingDataError(missing_message(name, folder, files, data_dir=args.data_dir,
                                                       reason=offline_reason()))
            got = fetch(name, folder, files, force=True, data_dir=args.data_dir)
        else:
            got = [folder / f.path for f in missing(folder, files)]
            resolve(name, folder, files, data_dir=args.data_dir)  # downloads what is missing, or says why not
        print(f"{name}: {len(got)} file(s) downloaded into {folder}" if got else f"{name}: complete in {folder}")
    return 0


def _prepare(args: argparse.Namespace) -> int:
    """CONFIG given: that config; else every config of the corpus (a config that cannot be built is
    reported with the command that prepares it once the cause is fixed; none built: the first error)."""
    from figbench.loading import builder_configs, prepare

    names, _ = builder_configs(args.name)
    if args.config and not args.all_configs:
        done = prepare(args.name, [args.config], data_dir=args.data_dir, cache_dir=args.cache_dir,
                       force=args.force, **builder_options(args.option))
        _print_prepared(args.name, done)
        return 0
    prepared, skipped, first_error = 0, {}, None
    for config in names:
        try:
            done = prepare(args.name, [config], data_dir=args.data_dir, cache_dir=args.cache_dir,
                           force=args.force, **builder_options(args.option))
        except (FileNotFoundError, ValueError) as e:
            from figbench.corpora.files import MissingDataError

            fetch = f"`figbench data fetch {args.name}`, then " if isinstance(e, MissingDataError) else ""
            skipped[config] = (str(e).splitlines()[0].rstrip(":"), fetch)
            first_error = first_error or e
            continue
        prepared += 1
        _print_prepared(args.name, done)
    if not prepared and first_error is not None:
        raise first_error
    for config, (why, fetch) in skipped.items():
        print(f"  not prepared {args.name}/{config}: {why}; {fetch}`figbench data prepare {args.name} {config}` "
              "prepares it")
    return 0


def _print_prepared(name: str, done: dict) -> None:
    for config, splits in done.items():
        print(f"prepared {name}/{config}: " + ", ".join(f"{s} {n:,}" for s, n in splits.items())
              + f"  -> datasets.load_dataset({name!r}, {config!r})")
