"""Issue 25: the ``figbench harvest`` commands are registered, documented and light at parse time."""

from __future__ import annotations

import subprocess
import sys


def test_harvest_help_and_light_parser():
    code = ("import sys, figbench.cli\nfigbench.cli.build_parser()\n"
            "print(','.join(m for m in ('dask', 'distributed', 'mwxml', 'mwparserfromhell', 'spacy') "
            "if m in sys.modules) or 'none')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "none"
    for args, words in ((["harvest", "wec", "--help"], ["--dump", "--out", "--language", "--event-infoboxes",
                                                       "--scheduler", "--no-filter"]),
                        (["harvest", "wimcor", "--help"], ["--dump", "--out", "--categories", "--scheduler"])):
        r = subprocess.run([sys.executable, "-m", "figbench.cli", *args], capture_output=True, text=True)
        assert r.returncode == 0 and all(w in r.stdout for w in words), r.stderr


def test_bad_options_are_clear_errors(tmp_path):
    r = subprocess.run([sys.executable, "-m", "figbench.cli", "harvest", "wec", "--dump", str(tmp_path / "none*.bz2"),
                        "--out", str(tmp_path / "o")], capture_output=True, text=True)
    assert r.returncode == 1 and "no dump file matches" in r.stderr and "Traceback" not in r.stderr
    r = subprocess.run([sys.executable, "-m", "figbench.cli", "harvest", "wec", "--dump", "x", "--out", "o",
                        "--no-filter", "nonsense"], capture_output=True, text=True)
    assert r.returncode == 1 and "unknown filter(s) ['nonsense']" in r.stderr
    r = subprocess.run([sys.executable, "-m", "figbench.cli", "harvest", "wimcor", "--dump", "x", "--out", "o",
                        "--categories", str(tmp_path / "missing.tsv")], capture_output=True, text=True)
    assert r.returncode == 1 and "missing.tsv does not exist" in r.stderr
