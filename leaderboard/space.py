"""``figbench leaderboard space --out DIR``: a deployable Hugging Face Space folder for the leaderboard.

The folder holds ``README.md`` (Space metadata: Gradio SDK, ``app.py``, OAuth for per-user rate
limits), ``app.py`` (serves the board with its queue worker and prints its URL), ``requirements.txt``
and, by default, the wheel of the figbench version that wrote it, which ``requirements.txt`` installs
by relative path with its ``[board]`` extra (exactly this version; its dependencies from PyPI, no torch, no
extra index); ``--requirement`` names another source instead.
What the running Space reads is configured by environment variables and secrets, documented in the
README it writes.
"""

from __future__ import annotations

import argparse
import os
import shutil
from pathlib import Path

APP = '''"""figbench leaderboard Space: serves the board and scores the queue (see README.md for the settings)."""

import os

from figbench_leaderboard.ui.app import serve, serving_line
from figbench_leaderboard.scoring.gold import BuilderGoldProvider, JsonGoldProvider

gold_json = os.environ.get("FIGBENCH_GOLD_JSON")
gold = JsonGoldProvider(gold_json) if gold_json else BuilderGoldProvider(os.environ.get("FIGBENCH_DATA_DIR"))
host = os.environ.get("GRADIO_SERVER_NAME", "0.0.0.0")
port = int(os.environ.get("PORT", "7860"))
demo, worker = serve(os.environ.get("FIGBENCH_LEADERBOARD_STORE", "data/store"), gold=gold, host=host, port=port,
                     block=False)
print(serving_line(host, port), flush=True)
demo.block_thread()
'''

README = """---
title: figbench leaderboard
emoji: 🏆
colorFrom: indigo
colorTo: green
sdk: gradio
sdk_version: {gradio}
app_file: app.py
pinned: true
hf_oauth: true
license: apache-2.0
short_description: Figurative language and cross-document event coreference
---

# figbench leaderboard

Submissions are predictions, scored here by the server: on public benchmarks (gold released with the
corpus) against a public test set, on hidden benchmarks against gold held only in the server's private
store (`FIGBENCH_PRIVATE_DIR`; never in this folder). This folder was written by `figbench leaderboard
space` (figbench {version}).

## Settings (Space variables and secrets)

| name | what | default |
|---|---|---|
| `FIGBENCH_LEADERBOARD_STORE` | where submissions live: a folder (persistent storage, e.g. `/data/store`) or `hf://datasets/ORG/NAME` (a Hub dataset; predictions are kept in its private companion, see `leaderboard/README.md`) | `data/store` |
| `FIGBENCH_DATA_DIR` | the corpora (one folder per corpus) the gold labels are read from; missing public files are downloaded there on first use | `~/.cache/figbench/data` |
| `FIGBENCH_GOLD_JSON` | instead of the corpora: a JSON file of gold labels per benchmark (for small or private boards) | unset |
| `FIGBENCH_PRIVATE_DIR` | the private store of hidden benchmarks (persistent storage outside this repository, e.g. `/data/private`, or a checkout of a private Hub dataset repo) | unset: no hidden benchmarks |
| `HF_TOKEN` (secret) | write access to the Hub store | unset |

With `hf_oauth: true` the submit form asks submitters to log in, and the rate limit counts
submissions per Hugging Face user; without a login it counts per client address as the Spaces
proxy reports it.

## Run it locally

```bash
pip install -r requirements.txt
FIGBENCH_LEADERBOARD_STORE=./store python app.py   # http://127.0.0.1:7860 with GRADIO_SERVER_NAME=127.0.0.1
```
"""  # noqa: E501 (Markdown table rows cannot be wrapped)


#: the extra of figbench the board needs (no torch: the core scores, the extra serves)
BOARD_EXTRA = "board"


def write_space(out: str | os.PathLike, *, wheel: str | os.PathLike | None = None,
                requirement: str | None = None) -> list[Path]:
    """Write the Space folder; figbench is installed from ``requirement`` when given, else from ``wheel``
    (copied in), else from the wheel of the running version (:func:`figbench.commands.wheel.wheel_of_running`).

    ``requirements.txt`` is that one line with the ``[board]`` extra (``./figbench-<version>-...whl[board]``):
    no torch and no extra package index (PyPI alone resolves it).
    """
    from importlib.metadata import PackageNotFoundError, version

    from figbench import __version__

    folder = Path(out).expanduser().resolve()
    folder.mkdir(parents=True, exist_ok=True)
    try:
        gradio = version("gradio")
    except PackageNotFoundError:  # pragma: no cover - gradio is a dependency
        gradio = "6.31.0"
    written = [folder / "README.md", folder / "app.py", folder / "requirements.txt"]
    written[0].write_text(README.format(gradio=gradio, version=__version__), encoding="utf-8")
    written[1].write_text(APP, encoding="utf-8")
    if requirement:
        spec = requirement
    else:
        if wheel is not None:
            wheel = Path(wheel)
            if not wheel.is_file() or wheel.suffix != ".whl":
                raise FileNotFoundError(f"{wheel}: not a wheel file (build one with `python -m build --wheel`)")
            if wheel.resolve() != (folder / wheel.name).resolve():
                shutil.copyfile(wheel, folder / wheel.name)
            copied = folder / wheel.name
        else:
            from figbench.commands.wheel import wheel_of_running

            copied = wheel_of_running(folder)
        written.append(copied)
        spec = f"./{copied.name}[{BOARD_EXTRA}]"
    written[2].write_text(f"{spec}\n", encoding="utf-8")
    return written


def register(lsub: argparse._SubParsersAction) -> None:
    sp = lsub.add_parser("space", help="write a deployable Hugging Face Space folder for the leaderboard",
                         description="Write README.md (Space metadata), app.py, requirements.txt and the wheel "
                                     "of this figbench version to --out; `pip install -r requirements.txt` there "
                                     "installs that wheel with its [board] extra (no torch).")
    sp.add_argument("--out", required=True, metavar="DIR", help="target folder")
    sp.add_argument("--wheel", default=None,
                    help="copy this figbench wheel into the folder (default: the wheel of the running version)")
    sp.add_argument("--requirement", default=None,
                    help="install figbench from this pip requirement instead of a wheel in the folder "
                         f"(e.g. 'figbench[{BOARD_EXTRA}] @ git+https://...'; name the [{BOARD_EXTRA}] extra)")
    sp.set_defaults(func=_space)


def _space(args: argparse.Namespace) -> int:
    for path in write_space(args.out, wheel=args.wheel, requirement=args.requirement):
        print(path)
    return 0
