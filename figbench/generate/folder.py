"""The files of an output folder of ``figbench generate metaphors`` (a Hub-layout dataset folder).

``DIR/README.md`` (the card, its YAML declares the config) and ``DIR/data/<split>-00000-of-00001.parquet``
are the corpus; ``DIR/generation/`` holds what rebuilds it: the settings, the source rows, the answer cache,
the parsed answers, the re-tagger's proposals, the reviewer's corrections, and the run report.
"""

from __future__ import annotations

import json
from pathlib import Path

GENERATION = "generation"
SETTINGS = f"{GENERATION}/settings.json"
SOURCE = f"{GENERATION}/source.parquet"
CACHE = f"{GENERATION}/cache.jsonl"
ANSWERS = f"{GENERATION}/answers.jsonl"
PROPOSALS = f"{GENERATION}/retag.jsonl"
CORRECTIONS = f"{GENERATION}/corrections.json"
REPORT = f"{GENERATION}/report.json"
CARD = "README.md"


def data_file(split: str) -> str:
    return f"data/{split}-00000-of-00001.parquet"


def read_json(path: Path, what: str):
    try:
        return json.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: no {what}; is this a folder made by `figbench generate metaphors`?") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: {what} is not valid JSON ({e})") from None


def read_jsonl(path: Path, what: str) -> list[dict]:
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no {what}; is this a folder made by `figbench generate metaphors`?")
    out = []
    for n, line in enumerate(path.read_text("utf-8").splitlines(), 1):
        if line.strip():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}: line {n} of the {what} is not JSON ({e})") from None
    return out


def write_jsonl(path: Path, records: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), "utf-8")
    tmp.replace(path)


def write_json(path: Path, obj) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(obj, indent=1, ensure_ascii=False) + "\n", "utf-8")
    tmp.replace(path)
