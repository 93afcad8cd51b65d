"""``figbench metrics``: where figbench's `evaluate` metrics are installed."""

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
