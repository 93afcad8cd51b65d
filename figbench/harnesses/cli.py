"""``figbench lm-eval path`` and ``figbench mteb tasks`` (light module: the harnesses are imported lazily)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    lp = sub.add_parser("lm-eval", help="figbench tasks for lm-evaluation-harness",
                        description="figbench's language-model tasks for lm-evaluation-harness: "
                                    'lm_eval --include_path "$(figbench lm-eval path)" --tasks figbench ...')
    lp.set_defaults(_parser=lp)
    lsub = lp.add_subparsers(dest="lm_eval_command", metavar="SUBCOMMAND")
    pp = lsub.add_parser("path", help="write the task folder (YAML, cards) and print its path",
                         description="Write the lm-evaluation-harness task folder, generated from the task "
                                     "declarations, and print its path (for lm_eval --include_path).")
    pp.add_argument("--out", default=None, help="where to write it (default $FIGBENCH_CACHE/lm-eval/VERSION, "
                                                "$FIGBENCH_CACHE defaulting to ~/.cache/figbench)")
    pp.set_defaults(func=_lm_eval_path)
    lsub.add_parser("tasks", help="list the lm-eval tasks and their benchmarks").set_defaults(func=_lm_eval_tasks)

    mp = sub.add_parser("mteb", help="figbench tasks for MTEB", description="figbench's embedding tasks as MTEB tasks.")
    mp.set_defaults(_parser=mp)
    msub = mp.add_subparsers(dest="mteb_command", metavar="SUBCOMMAND")
    msub.add_parser("tasks", help="list the MTEB tasks (name, type, benchmark, main score)").set_defaults(
        func=_mteb_tasks)


def _lm_eval_path(args: argparse.Namespace) -> int:
    from figbench.harnesses.lm_eval import write_tasks

    print(write_tasks(args.out))
    return 0


def _lm_eval_tasks(args: argparse.Namespace) -> int:
    from figbench.harnesses.lm_eval import task_name
    from figbench.harnesses.questions import asked_benchmarks

    for b in asked_benchmarks():
        print(f"{task_name(b):55s} {b.key}")
    return 0


def _mteb_tasks(args: argparse.Namespace) -> int:
    from figbench.harnesses.mteb_tasks import TASK_CLASSES

    for cls in TASK_CLASSES:
        m = cls.metadata
        print(f"{m.name:45s} {m.type:20s} {cls.benchmark:38s} {m.main_score}")
    return 0
