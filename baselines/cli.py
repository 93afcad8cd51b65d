"""``figbench baseline ...``: one sub-command per baseline family, registered from each package."""

from __future__ import annotations

import argparse
import importlib

FAMILIES = ("cdec", "meta4xnli", "wimcor", "epic")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("baseline", help="run a baseline and write a result record",
                       description="Run a figbench baseline; every run writes one result record (--out).")
    p.set_defaults(_parser=p)
    bsub = p.add_subparsers(dest="family", metavar="FAMILY")
    for family in FAMILIES:
        try:
            module = importlib.import_module(f"figbench_baselines.{family}.cli")
        except ModuleNotFoundError as e:
            if e.name != f"figbench_baselines.{family}.cli":
                raise
            continue
        module.register(bsub)
