"""``figbench baseline ...``: one sub-command per baseline family (registered from each package), plus
``--list`` (the baseline specs), ``run SPEC...`` (a spec's command, writing ``./results/<spec>.json``) and
``tables`` (regenerate the reproduction tables of baselines/README.md from the specs)."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import pkgutil


def _discover() -> tuple[str, ...]:
    """Baseline families: the sub-packages of ``figbench_baselines`` with a ``cli`` module (their own
    ``figbench baseline <family>`` command) or only a ``specs`` module (spec lines of other families'
    commands, e.g. a new corpus's trivial baselines), ordered by their package's ``ORDER`` (then name).
    Adding a family is adding its folder."""
    import figbench_baselines

    found = []
    for info in pkgutil.iter_modules(figbench_baselines.__path__):
        if not info.ispkg or info.name == "common":
            continue
        package = importlib.import_module(f"figbench_baselines.{info.name}")
        if any(importlib.util.find_spec(f"figbench_baselines.{info.name}.{m}") is not None for m in ("cli", "specs")):
            found.append((getattr(package, "ORDER", 100), info.name))
    return tuple(name for _, name in sorted(found))


FAMILIES = _discover()


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("baseline", help="run a baseline and write a result record",
                       description="Run a figbench baseline; every run writes one result record (--out). "
                                   "`figbench baseline --list` lists the specified runs.")
    p.add_argument("--list", action="store_true", help="list the baseline specs (name, benchmark, command)")
    p.set_defaults(_parser=p, func=_root)
    bsub = p.add_subparsers(dest="family", metavar="FAMILY")
    for family in FAMILIES:
        try:
            module = importlib.import_module(f"figbench_baselines.{family}.cli")
        except ModuleNotFoundError as e:
            if e.name != f"figbench_baselines.{family}.cli":
                raise
            continue
        module.register(bsub)
    r = bsub.add_parser("run", help="run baseline specs by name, writing results/<spec>.json",
                        description="Run each named spec's command with --out RESULTS/<spec>.json (predictions "
                                    "beside it in RESULTS/predictions/, not committed).")
    r.add_argument("specs", nargs="+", metavar="SPEC",
                   help="spec names (figbench baseline --list) or shell-style patterns, e.g. 'cdec_*meta_m*' "
                        "(a pattern skips the specs that are not run here: quick trained or not_run ones)")
    r.add_argument("--results-dir", default="results",
                   help="folder of the result records (default: results/ under the current directory)")
    r.set_defaults(func=_run_specs)
    t = bsub.add_parser("tables", help="regenerate the generated blocks (reproduction tables, headlines)",
                        description="Regenerate every <!-- generated:NAME --> block from the baseline specs and the "
                                    "committed result records (as `figbench docs`); --readme: only that copy of "
                                    "baselines/README.md.")
    t.add_argument("--write", action="store_true", help="rewrite the files (default: check only)")
    t.add_argument("--readme", default=None, help="a copy of baselines/README.md to update instead of every file")
    t.add_argument("--results-dir", default=None, help="folder of the result records (default: results/)")
    t.set_defaults(func=_tables)


def _root(args: argparse.Namespace) -> int:
    if not args.list:
        args._parser.print_help()
        return 2
    from figbench_baselines.specs import all_specs

    for s in all_specs():
        flags = ",".join(f for f, on in (("fast", s.fast), ("quick", s.quick), ("not run", bool(s.not_run))) if on)
        print(f"{s.name:44s} {s.benchmark:52s} {flags:9s} {s.command()}")
    return 0


def _run_specs(args: argparse.Namespace) -> int:
    from pathlib import Path

    from figbench.cli import main

    # where the user is (never the installed package's folder): results/ under the current directory
    results = Path(args.results_dir)
    specs = expand_specs(args.specs)
    failed = 0
    for spec in specs:
        out = results / f"{spec.name}.json"
        # absolute: a record names its predictions file relative to itself, not to the current directory
        argv = ["baseline", *spec.argv, "--out", str(out),
                "--predictions-file", str((results / "predictions" / f"{spec.name}.json").resolve())]
        print(f"[{spec.name}] figbench {' '.join(argv)}", flush=True)
        if main(argv) != 0:
            failed += 1
            continue
        _portable(out, spec)
    return 1 if failed else 0


def expand_specs(names: list[str]):
    """The specs named, in order; a name with ``*``, ``?`` or ``[`` is a pattern over every spec name, which
    selects the specs that can run here (neither ``quick`` nor ``not_run``, and every saved model their
    command loads present); a pattern matching none is an error."""
    import sys
    from fnmatch import fnmatchcase

    from figbench_baselines.specs import all_specs, get_spec

    chosen, seen = [], set()
    for name in names:
        if any(c in name for c in "*?["):
            matched = [s for s in all_specs() if fnmatchcase(s.name, name) and not s.quick and not s.not_run]
            absent = {s.name: m for s in matched for m in missing_models(s)}
            if absent:
                print(f"{name}: skipping {len(absent)} spec(s) whose saved model is absent: "
                      + ", ".join(f"{n} ({m})" for n, m in absent.items()), file=sys.stderr)
                matched = [s for s in matched if s.name not in absent]
            if not matched:
                raise ValueError(f"no runnable baseline spec matches {name!r}; `figbench baseline --list` lists them")
        else:
            matched = [get_spec(name)]
        for spec in matched:
            if spec.name not in seen:
                seen.add(spec.name)
                chosen.append(spec)
    return chosen


#: options naming a saved model folder that a spec's command loads
MODEL_OPTIONS = ("--load-model", "--biencoder")


def missing_models(spec) -> list[str]:
    """The saved model folders ``spec``'s command loads that do not exist here."""
    from pathlib import Path

    argv = spec.argv
    return [argv[i + 1] for i, a in enumerate(argv[:-1]) if a in MODEL_OPTIONS and not Path(argv[i + 1]).exists()]


#: predictions files up to this size go inline into a committed record; larger ones are gzip-compressed
#: beside it (results/predictions/<spec>.json.gz, committed) and referenced
INLINE_MAX_BYTES = 100_000


def _portable(record_path, spec) -> None:
    """Make a committed record name the spec's command (not ``figbench baseline run``) with the ``--out``
    it was written to (as given: ``results/<spec>.json`` by default), say how a trained run's choices were
    made (its spec's selection, :mod:`figbench_baselines.selection`), and carry its predictions: inline
    when small, else as ``predictions/<spec>.json.gz`` relative to the record (the uncompressed file
    stays beside it, ignored by git)."""
    import gzip
    import json
    from pathlib import Path

    from figbench_baselines.selection import stamp

    from figbench.results import write_result

    record = json.loads(record_path.read_text("utf-8"))
    record["provenance"]["command"] = spec.command(str(record_path))
    stamp(record, spec, str(record_path))
    path = record["predictions"].get("path")
    if path:
        file = Path(path) if Path(path).is_absolute() else record_path.parent / path
        raw = file.read_bytes()
        if len(raw) <= INLINE_MAX_BYTES:
            record["predictions"] = {"inline": json.loads(raw)}
        else:
            packed = file.with_name(file.name + ".gz")
            packed.write_bytes(gzip.compress(json.dumps(json.loads(raw), ensure_ascii=False,
                                                        separators=(",", ":")).encode("utf-8"), mtime=0))
            record["predictions"] = {"path": str(packed.resolve().relative_to(record_path.parent.resolve())),
                                     "format": "json.gz"}
    write_result(record, record_path)


def _tables(args: argparse.Namespace) -> int:
    import sys
    from pathlib import Path

    from figbench_baselines.tables import RESULTS, check_or_write

    from figbench.commands.docs import ROOT, report
    from figbench.commands.docs import check_or_write as check_all

    results = Path(args.results_dir) if args.results_dir else RESULTS
    if not args.readme:
        return report(check_all(ROOT, results, write=args.write), write=args.write,
                      command="figbench baseline tables --write")
    readme = Path(args.readme)
    fresh = check_or_write(readme, results, write=args.write)
    if args.write:
        print(f"{readme}: {'up to date' if fresh else 'tables regenerated'}")
        return 0
    if not fresh:
        print(f"{readme}: the reproduction tables are stale; run `figbench baseline tables --write`", file=sys.stderr)
        return 1
    print(f"{readme}: up to date")
    return 0
