"""``figbench metrics``: list figbench's `evaluate` metrics, install them for bare-name loading, export Spaces."""

from __future__ import annotations

import argparse
import json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("metrics", help="list figbench metrics and their installed paths",
                       description="List figbench's evaluate metrics; use a path with evaluate.load(PATH).")
    p.set_defaults(_parser=p)
    msub = p.add_subparsers(dest="metrics_command", metavar="SUBCOMMAND")
    lp = msub.add_parser("list", help="every metric with its path")
    lp.add_argument("--json", action="store_true", help="print JSON")
    lp.set_defaults(func=_list)
    pp = msub.add_parser("path", help="the path of one metric, for evaluate.load(...)")
    pp.add_argument("name", help="metric name, e.g. conll_coref")
    pp.set_defaults(func=_path)
    ip = msub.add_parser("install", help="make evaluate.load(\"<name>\") find figbench's metrics (offline too)",
                         description="Write the metric modules where evaluate looks for canonical metrics it cannot "
                                     "reach on the Hub, so evaluate.load('conll_coref') works in any process.")
    ip.add_argument("names", nargs="*", metavar="NAME", help="metrics to install (default: all)")
    ip.set_defaults(func=_install)
    ep = msub.add_parser("export", help="write an evaluate metric Space folder (module, card, app.py, requirements)",
                         description="Write a folder that evaluate.load(DIR) loads and the Hub serves as a Space.")
    ep.add_argument("name", help="metric name, e.g. conll_coref")
    ep.add_argument("--to", required=True, metavar="DIR", help="target folder (its name becomes the module name)")
    ep.add_argument("--requirement", default=None,
                    help="pip requirement for figbench in requirements.txt (default: this version's git tag)")
    ep.add_argument("--wheel", default=None, help="copy this figbench wheel into the folder and install it from there")
    ep.set_defaults(func=_export)


def _list(args: argparse.Namespace) -> int:
    from figbench.paths import METRICS, metric_path

    paths = {name: metric_path(name) for name in METRICS}
    if args.json:
        print(json.dumps(paths, indent=2))
    else:
        for name, path in paths.items():
            print(f"{name:12s} {path}")
    return 0


def _path(args: argparse.Namespace) -> int:
    from figbench.paths import metric_path

    print(metric_path(args.name))
    return 0


def _install(args: argparse.Namespace) -> int:
    from figbench.metric_modules import install

    for name, path in install(args.names or None).items():
        print(f"{name:12s} {path}")
    return 0


def _export(args: argparse.Namespace) -> int:
    from figbench.metric_modules import export_space

    for path in export_space(args.name, args.to, requirement=args.requirement, wheel=args.wheel):
        print(path)
    return 0
