"""The ``figbench`` command.

Each area registers its own sub-commands through a ``register(subparsers)`` function in a light
module (no heavy imports at parse time; the command's function imports what it needs), so
``figbench --help`` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from figbench import __version__

#: module -> it adds these top-level sub-commands; the extra of figbench they need (None: the core)
SUBCOMMAND_MODULES = (
    ("figbench.commands.metrics", None),            # metrics
    ("figbench.commands.score", None),              # score
    ("figbench.commands.data", None),               # data
    ("figbench.commands.quickstart", "baselines"),  # quickstart (the main job)
    ("figbench.commands.docs", None),               # docs (the generated blocks of the markdown files)
    ("figbench.generate.cli", "generate"),          # generate (metaphoric paraphrasing of coreference corpora)
    ("figbench_baselines.cli", "baselines"),        # baseline
    ("figbench_leaderboard.cli", "board"),          # submit, leaderboard
    ("figbench.harvest.cli", "harvest"),            # harvest (wec, wimcor)
    ("figbench.harnesses.cli", None),               # lm-eval, mteb (figbench tasks in those harnesses)
)
#: top-level command -> the extra it needs (filled by build_parser)
COMMAND_EXTRAS: dict[str, str] = {}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="figbench",
        description="Benchmark suite for figurative language and cross-document event coreference.",
    )
    parser.add_argument("--version", action="version", version=f"figbench {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, extra in SUBCOMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name != name:
                raise
            continue
        register = getattr(module, "register", None)
        if register is not None:
            before = set(sub.choices)
            register(sub)
            COMMAND_EXTRAS.update((command, extra) for command in set(sub.choices) - before if extra)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        # a group without a sub-command: show that group's help
        (getattr(args, "_parser", None) or parser).print_help()
        return 2
    from figbench.extras import missing_extra_line

    missing = missing_extra_line(COMMAND_EXTRAS[args.command]) if args.command in COMMAND_EXTRAS else None
    if missing:   # said before the command runs (a baseline would otherwise fail after its run)
        print(f"figbench: error: {missing}", file=sys.stderr)
        return 1
    try:
        return int(func(args) or 0)
    except ModuleNotFoundError as e:
        # a command of an extra that is not installed: one line naming the extra
        from figbench.extras import missing_extra_message

        print(f"figbench: error: {missing_extra_message(e) or e}", file=sys.stderr)
        return 1
    except (ValueError, FileNotFoundError, PermissionError, ConnectionError, ImportError) as e:
        # bad input, missing data, no network: a message naming the file/field, never a traceback
        print(f"figbench: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("figbench: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
