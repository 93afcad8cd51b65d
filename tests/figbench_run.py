"""``figbench`` commands run inside the test process, for tests of what a command does rather than of its process:
``figbench.cli.main`` with stdout and stderr captured, answered like ``subprocess.run`` (return code, stdout,
stderr). A fresh interpreter costs 4-8 s of imports (datasets, torch) on the 2-core CI machine before the command
starts; here the worker's imports are reused. Tests of the process itself (kill -9 and resume, a bare-name load
without figbench, the installed entry point) keep running it as a subprocess."""

from __future__ import annotations

import contextlib
import io
import subprocess
from collections.abc import Sequence


def run_figbench(argv: Sequence[str]) -> subprocess.CompletedProcess:
    """``figbench ARGV`` in this process; an argparse error (``SystemExit``) is its exit code, as in a shell."""
    from figbench.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    return subprocess.CompletedProcess(list(argv), int(code or 0), out.getvalue(), err.getvalue())
