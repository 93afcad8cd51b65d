"""Loading coreference mention rows for the cdec baselines, with the checks training needs."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from figbench.paths import DATA_DIR_ENV

#: Where each dataset's training mentions come from (the ECB+META paper trains META on ECB+ train).
TRAIN_SOURCE = {
    "ecbplus": ("ecbplus", "events", "train"),
    "ecbmeta": ("ecbplus", "events", "train"),
    "wec_eng": ("wec_eng", "events", "train"),
}

REQUIRED = ("mention_id", "doc_id", "topic", "sentence_id", "head_lemma", "cluster_id")
#: what an inputs-only file (a hidden benchmark's ``inputs.jsonl``: no gold) must hold
REQUIRED_INPUTS = tuple(k for k in REQUIRED if k != "cluster_id")


class NoGoldError(ValueError):
    """A split has no gold clusters where they are needed (training, oracle, evaluation)."""


def inputs_only(rows: Sequence[Mapping]) -> bool:
    """Whether mention rows carry no gold at all (a hidden benchmark's inputs): predictions only, no scores."""
    return bool(rows) and not any("cluster_id" in r for r in rows)


def check_rows(rows: Sequence[Mapping], where: str, *, need_gold: bool = True) -> None:
    """Raise ValueError naming ``where`` and the record when rows are empty or lack fields/gold labels
    (``need_gold=False``: rows without any ``cluster_id`` are inputs only, and fine)."""
    if not rows:
        raise ValueError(f"{where}: no mentions (empty split or everything filtered out)")
    seen: set[str] = set()
    required = REQUIRED_INPUTS if not need_gold and inputs_only(rows) else REQUIRED
    for i, r in enumerate(rows):
        missing = [k for k in required if k not in r]
        if missing:
            raise ValueError(f"{where}: mention #{i} ({r.get('mention_id', '?')!r}) lacks fields {missing}")
        mid = str(r["mention_id"])
        if mid in seen:
            raise ValueError(f"{where}: duplicate mention_id {mid!r}")
        seen.add(mid)
        if need_gold and r.get("cluster_id") in (None, ""):
            raise NoGoldError(f"{where}: mention {mid!r} has no gold cluster_id (field 'cluster_id'); "
                              "this split has no gold clusters, which this step needs")


def filter_class(rows: list[dict], mention_class: str | None) -> list[dict]:
    """Keep the rows of one mention class ("event"/"entity"); None or "all" keeps everything."""
    if mention_class in (None, "all"):
        return rows
    return [r for r in rows if r.get("mention_class", mention_class) == mention_class]


def sibling_data_dir(data_dir: str | None, corpus: str) -> str | None:
    """The folder of ``corpus`` under ``data_dir`` (a data root or search path), else, for a corpus folder given
    as ``data_dir``, ``<its parent>/<corpus>`` (ecbmeta's folder -> ecbplus's) when it exists; else None."""
    if not data_dir:
        return None
    from figbench.paths import split_roots

    for root in split_roots(data_dir):   # --data-dir is a data root (or search path) holding it
        if (root / corpus).is_dir():
            return str(root / corpus)
    if os.environ.get(DATA_DIR_ENV) or os.pathsep in str(data_dir):
        return None
    cand = Path(data_dir).expanduser().resolve().parent / corpus   # the corpus folder given as --data-dir
    return str(cand) if cand.is_dir() else None


def load_mentions(dataset: str, config: str | None, split: str, data_dir: str | None = None,
                  mention_class: str | None = "event") -> list[dict]:
    """Rows of one split of a coreference corpus through the figbench ``datasets`` builders."""
    import sys
    import time

    from figbench_baselines.common.splits import load_split

    t0 = time.perf_counter()
    print(f"loading {dataset}/{config}/{split} ...", file=sys.stderr, flush=True)
    try:
        ds = load_split(dataset, config, split, data_dir)
    except ValueError as e:
        raise ValueError(f"cannot load {dataset}/{config}/{split}: {e}") from e
    rows = filter_class(ds.to_list(), mention_class)
    print(f"loaded {dataset}/{config}/{split}: {len(rows):,} mentions in {time.perf_counter() - t0:.1f} s",
          file=sys.stderr, flush=True)
    return rows


def load_train_mentions(dataset: str, data_dir: str | None, train_data_dir: str | None = None,
                        mention_class: str | None = "event") -> tuple[list[dict], str]:
    """Training mentions for ``dataset`` (ECB+ train for ecbplus/ecbmeta) and a label naming them."""
    corpus, config, split = TRAIN_SOURCE.get(dataset, (dataset, None, "train"))
    tdir = train_data_dir
    if tdir is None:
        tdir = data_dir if corpus == dataset else sibling_data_dir(data_dir, corpus)
    rows = load_mentions(corpus, config, split, tdir, mention_class)
    where = f"{corpus}/{config}/{split}"
    check_rows(rows, where, need_gold=True)
    return rows, where


def read_mentions_file(path: str) -> list[dict]:
    """Mention rows from a JSON list (or JSON lines) file with the coreference mention fields."""
    import json
    from pathlib import Path

    text = Path(path).read_text("utf-8")
    try:
        rows = json.loads(text)
    except json.JSONDecodeError:
        rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    if not isinstance(rows, list):
        raise ValueError(f"{path}: expected a JSON list of mention rows")
    return rows


def training_rows(args, *, cap: bool = True) -> tuple[list[dict], str]:
    """Training mentions: ``args.train_rows`` when given programmatically, else the training split.

    With ``cap`` the quick configuration's ``--max-train-mentions`` applies (model training only; LH's
    lemma pairs always come from the whole training split)."""
    given = getattr(args, "train_rows", None)
    if given is None and getattr(args, "train_mentions_file", None):
        given = read_mentions_file(args.train_mentions_file)
    if given is not None:
        check_rows(given, "given training rows", need_gold=True)
        rows, where = given, "given training rows"
    else:
        rows, where = load_train_mentions(args.dataset, args.data_dir, args.train_data_dir)
    n = getattr(args, "max_train_mentions", None) or (400 if getattr(args, "quick", False) else None)
    if cap and n and len(rows) > n:
        rows, where = rows[:n], f"{where} (first {n} mentions)"
    return rows, where
