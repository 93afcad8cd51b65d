"""Whether a trained record's choices saw test: its spec's :class:`~figbench_baselines.specs.Selection`, stamped
into the record as ``provenance.selection`` (``validation-only`` | ``test-informed``, with a one-line note).

``figbench baseline run`` stamps every record it writes (:func:`stamp`); ``python -m
figbench_baselines.selection`` checks the committed records against their specs and ``--write`` stamps them
(only that field changes: no score is typed by hand). ``figbench docs`` marks every number of a
test-informed record where it prints it (:func:`figbench_baselines.tables.marked`), and refuses a trained record
without the field.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from figbench_baselines.specs import BaselineSpec


def stamp(record: dict[str, Any], spec: BaselineSpec, source: str) -> bool:
    """Set ``record``'s ``provenance.selection`` from ``spec`` (trained records only); True when it changed.
    A trained record whose spec declares no selection is an error naming ``source`` and the spec."""
    from figbench.results import ResultValidationError, is_trained

    if not is_trained(record):
        return False
    if spec.selection is None:
        raise ResultValidationError(f"{source}: a trained record, but spec {spec.name} declares no selection= "
                                    "(validation-only | test-informed, with a note)")
    want = spec.selection.as_dict()
    if record["provenance"].get("selection") == want:
        return False
    record["provenance"]["selection"] = want
    return True


def stale_records(results: Path, *, write: bool) -> list[str]:
    """The committed records of ``results`` whose selection differs from their spec's (stamped when ``write``)."""
    from figbench_baselines.specs import get_spec

    from figbench.results import read_result, write_result

    stale = []
    for path in sorted(results.glob("*.json")):
        record = read_result(path)
        if stamp(record, get_spec(path.stem), str(path)):
            stale.append(path.name)
            if write:
                write_result(record, path)
    return stale


def main(argv: list[str] | None = None) -> int:
    from figbench_baselines.tables import RESULTS

    p = argparse.ArgumentParser(prog="python -m figbench_baselines.selection", description=__doc__.split("\n\n")[0])
    p.add_argument("--write", action="store_true", help="stamp the records (default: check only; exit 1 if stale)")
    p.add_argument("--results-dir", default=str(RESULTS), help="folder of the result records (default: results/)")
    args = p.parse_args(argv)
    stale = stale_records(Path(args.results_dir), write=args.write)
    if stale and not args.write:
        print(f"{len(stale)} records lack their spec's selection (run with --write): {', '.join(stale)}",
              file=sys.stderr)
        return 1
    print(json.dumps({"stamped" if args.write else "stale": len(stale)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
