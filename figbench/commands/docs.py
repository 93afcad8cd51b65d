"""Generated blocks of the project's markdown files, and the check that results appear only in them.

A generated block is ``<!-- generated:NAME -->`` ... ``<!-- /generated:NAME -->`` in a markdown file of
the checkout (``README.md``, ``baselines/README.md``, ``leaderboard/README.md``, the dataset and metric
cards). Its body is rendered from the committed result records (``results/*.json``), the baseline specs
and the task declarations; everything outside the blocks is prose and is kept. Every block is declared
once (:class:`Block`: file, name, renderer, anchor) by a provider listed in :data:`PROVIDERS`; a declared
block missing from its file is created right after its anchor line, so no marker is ever seeded by
hand, and a marker that no provider declares is an error naming the file.

``figbench docs --write`` rewrites every block of every file, ``figbench docs`` checks them (exit 1
when one is stale); ``figbench baseline tables`` and ``python -m figbench_leaderboard.ui.about_text`` do the
same for their own file. :func:`result_numbers_outside_blocks` finds numbers that look like results
(decimals) outside the blocks, for the test that keeps hand-typed results out of the prose.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

#: the checkout's root (the markdown files are not part of the installed package)
ROOT = Path(__file__).resolve().parents[2]
#: the committed result records
RESULTS = ROOT / "results"
#: "module:function" of every block provider: each returns the :class:`Block` objects it declares
PROVIDERS = ("figbench_baselines.tables:blocks", "figbench_leaderboard.ui.about_text:blocks",
             "figbench.commands.docs_benchmarks:blocks", "figbench.commands.docs_generation:blocks",
             "figbench.commands.docs_flood:blocks", "figbench.commands.docs_coref:blocks")
#: the markdown files whose prose :func:`result_numbers_outside_blocks` checks
CHECKED_FILES = ("README.md", "baselines/README.md", "leaderboard/README.md", "datasets/*/README.md",
                 "metrics/*/README.md")

#: a marker is a whole line (a marker quoted inside a line of prose is not one)
_BLOCK = re.compile(r"^<!-- generated:(?P<name>[\w.-]+) -->\n(?P<body>.*?)^<!-- /generated:(?P=name) -->$\n?",
                    re.S | re.M)
_OPEN = re.compile(r"^<!-- (/?)generated:([\w.-]+) -->$", re.M)


@dataclass(frozen=True)
class Block:
    """One generated block: where it lives, how its body is rendered, and where it is created."""

    file: str                          #: path of the markdown file, relative to the checkout root
    name: str                          #: unique in its file
    render: Callable[[Path], str]      #: results folder -> markdown body (ends with a newline)
    #: a whole line of the file after which the block is created when the file lacks it
    #: (a blank line is put between); "" appends it at the end of the file
    anchor: str = ""


def markers(name: str) -> tuple[str, str]:
    return f"<!-- generated:{name} -->", f"<!-- /generated:{name} -->"


def wrap(name: str, body: str) -> str:
    """The block ``name`` with its markers."""
    begin, end = markers(name)
    return f"{begin}\n{body if body.endswith(chr(10)) or not body else body + chr(10)}{end}\n"


def all_blocks() -> list[Block]:
    """Every provider's blocks; (file, name) unique."""
    out: list[Block] = []
    for ref in PROVIDERS:
        module, func = ref.split(":")
        out.extend(getattr(importlib.import_module(module), func)())
    seen: set[tuple[str, str]] = set()
    for b in out:
        if (b.file, b.name) in seen:
            raise ValueError(f"generated block {b.name!r} of {b.file} is declared twice")
        seen.add((b.file, b.name))
    return out


def regenerate(text: str, blocks: Iterable[Block], results: Path = RESULTS, *, file: str = "") -> str:
    """``text`` with every block of ``blocks`` re-rendered; a missing block is created after its anchor.

    Raises ValueError (naming ``file``) for an unbalanced marker, a marker no block declares, or an
    anchor that is not a line of the file."""
    blocks = list(blocks)
    where = f"{file}: " if file else ""
    opened = [m.group(2) for m in _OPEN.finditer(text) if not m.group(1)]
    closed = [m.group(2) for m in _OPEN.finditer(text) if m.group(1)]
    found = [m.group("name") for m in _BLOCK.finditer(text)]
    if sorted(opened) != sorted(found) or sorted(closed) != sorted(found):
        raise ValueError(f"{where}unbalanced generated-block markers (opened {sorted(opened)}, closed "
                         f"{sorted(closed)}): each <!-- generated:NAME --> needs its <!-- /generated:NAME -->")
    known = {b.name for b in blocks}
    unknown = sorted(set(found) - known)
    if unknown:
        raise ValueError(f"{where}generated blocks {unknown} are declared by no provider "
                         "(figbench.commands.docs.PROVIDERS)")
    dup = sorted({n for n in found if found.count(n) > 1})
    if dup:
        raise ValueError(f"{where}generated blocks {dup} appear more than once")
    for b in blocks:
        if b.name in found:
            continue
        block = wrap(b.name, "")
        if not b.anchor:
            text = text + ("" if text.endswith("\n") or not text else "\n") + "\n" + block
            continue
        lines = text.split("\n")
        if b.anchor not in lines:
            raise ValueError(f"{where}cannot create generated block {b.name!r}: its anchor line {b.anchor!r} "
                             "is not in the file")
        i = lines.index(b.anchor) + 1
        text = "\n".join([*lines[:i], "", block.rstrip("\n"), *lines[i:]])
    bodies = {b.name: b for b in blocks}
    return _BLOCK.sub(lambda m: wrap(m.group("name"), bodies[m.group("name")].render(results)), text)


def _by_file(blocks: Iterable[Block]) -> dict[str, list[Block]]:
    out: dict[str, list[Block]] = {}
    for b in blocks:
        out.setdefault(b.file, []).append(b)
    return out


def check_or_write(root: Path = ROOT, results: Path = RESULTS, *, write: bool,
                   files: Sequence[str] | None = None) -> list[str]:
    """Regenerate the blocks of ``files`` (default: every file with a block); write them (``write``).
    Returns the files that were stale."""
    stale = []
    for file, blocks in _by_file(all_blocks()).items():
        if files is not None and file not in files:
            continue
        path = root / file
        if not path.is_file():
            raise FileNotFoundError(f"{path}: not found (generated blocks are written in a figbench checkout)")
        text = path.read_text("utf-8")
        new = regenerate(text, blocks, results, file=file)
        if new != text:
            stale.append(file)
            if write:
                path.write_text(new, "utf-8")
    return stale


# ------------------------------------------------------------------ result numbers in prose

#: a decimal number (not part of a version like 1.0.0, an id, a path or a number like 4.4e-16)
_NUMBER = re.compile(r"(?<![\w.\-/])\d+\.\d+(?![\w.]*\d)(?!\.\d)(?![eE][-+]?\d)")
#: what follows a number that is a measurement of the software or a share of a count, not a result:
#: time, size, speed units, "x" (a ratio) and "%" (figbench prints results as bare percentages)
_UNIT_AFTER = re.compile(r"^(?:\s?(?:s|ms|min|h|GB|MB|KB|GiB|MiB|KiB|B)\b|\s?x\b|×|%|/s\b|-\d+(?:\.\d+)?\s?(?:s|x|%))")
#: what precedes a number that is a setting, version, licence or section number, not a result
_NOT_RESULT_BEFORE = re.compile(
    r"(?:version|Python\s*>=?|python_version:?\s*\"?|License|CC BY(?:-[A-Z]{2})*|ECB\+|threshold|temperature|>|<|=|lr|"
    r"decay|margin|level|Geometric\(|§)\s*$", re.I)
#: headings of sections that report measurements of figbench itself, not results of a system: speed and
#: memory, corpus statistics, the bootstrap's coverage in simulation, the id-leak probes of the cards
NOT_RESULT_SECTIONS = re.compile(r"^#+ .*\b(measured|speed|statistics|scale|size|memory|coverage|ids)\b", re.I)


def _prose(text: str) -> list[tuple[int, str]]:
    """(line number, line) of ``text`` outside generated blocks, fenced code and not-result sections;
    inline code spans blanked."""
    out, in_block, in_code, skip_level = [], None, False, 0
    for n, line in enumerate(text.split("\n"), 1):
        m = _OPEN.match(line)
        if in_block is not None:
            if m and m.group(1) and m.group(2) == in_block:
                in_block = None
            continue
        if m and not m.group(1):
            in_block = m.group(2)
            continue
        if line.lstrip().startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        heading = re.match(r"^(#+) ", line)
        if heading:
            level = len(heading.group(1))
            if skip_level and level > skip_level:
                continue
            skip_level = level if NOT_RESULT_SECTIONS.match(line) else 0
            continue
        if skip_level:
            continue
        out.append((n, re.sub(r"`[^`]*`", lambda c: " " * len(c.group()), line)))
    return out


def result_numbers_outside_blocks(text: str) -> list[tuple[int, str, str]]:
    """(line number, number, line) of every result-looking number of ``text`` outside generated blocks:
    a decimal that is neither followed by a unit (time, size, speed, ratio, share) nor preceded by a
    setting, version or licence word, outside code and outside the sections :data:`NOT_RESULT_SECTIONS`
    names."""
    found = []
    for n, line in _prose(text):
        for m in _NUMBER.finditer(line):
            if _UNIT_AFTER.match(line[m.end():]) or _NOT_RESULT_BEFORE.search(line[:m.start()]):
                continue
            found.append((n, m.group(), line.strip()))
    return found


def checked_files(root: Path = ROOT) -> list[Path]:
    return sorted({p for pattern in CHECKED_FILES for p in root.glob(pattern)})


# ------------------------------------------------------------------ command

def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("docs", help="regenerate the generated blocks of the project's markdown files",
                       description="Render every <!-- generated:NAME --> block (README.md, baselines/README.md, "
                                   "leaderboard/README.md, cards) from the committed result records and the specs; "
                                   "a declared block that a file lacks is created at its anchor.")
    p.add_argument("--write", action="store_true", help="rewrite the files (default: check only; exit 1 if stale)")
    p.add_argument("--results-dir", default=None, help="folder of the result records (default: results/)")
    p.set_defaults(func=_docs)


def _docs(args: argparse.Namespace) -> int:
    results = Path(args.results_dir) if args.results_dir else RESULTS
    return report(check_or_write(ROOT, results, write=args.write), write=args.write, command="figbench docs --write")


def report(stale: list[str], *, write: bool, command: str) -> int:
    """Print what :func:`check_or_write` found; the exit status."""
    if write:
        print("regenerated: " + ", ".join(stale) if stale else "generated blocks: up to date")
        return 0
    if stale:
        print(f"stale generated blocks in {', '.join(stale)}; run `{command}`", file=sys.stderr)
        return 1
    print("generated blocks: up to date")
    return 0


__all__ = ["Block", "all_blocks", "check_or_write", "regenerate", "result_numbers_outside_blocks", "wrap"]
