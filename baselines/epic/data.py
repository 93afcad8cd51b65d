"""ePiC rows for the baselines, read through the ``epic`` builder.

Prediction (``seen``/``unseen``): narratives with their gold ``proverb_id`` and the candidate
proverbs a test narrative is ranked against (seen: all 250; unseen test: the 100 proverbs of the
unseen test part, whose narratives never occur in training). Alignment: narratives with their
proverb/narrative span pairs (character offsets); pairs whose spans are not found in their text
are counted skips (the builder's ``on_unaligned="flag"``), never silently dropped. Test rows are
:class:`~figbench_baselines.common.splits.Rows`, which keep the split they come from (gold is read from it).

**Protocol.** ePiC's configs share narratives: 600 of the 1,000 ``seen`` test narratives are in the
``unseen`` train split with the same proverb, and 600 of the ``unseen`` test narratives are in the
``seen`` train split (:func:`cross_config_overlap`; ``datasets/epic/README.md``). The baselines follow the
*clean* protocol, the only one offered: a model is scored on a config's test narratives only if none
of them was a training narrative. :func:`check_clean` compares across configs: the narratives of the
split a model was trained on (this run's own train split, or, for ``--load-model``, the config its
``figbench_training.json`` names, :func:`check_loaded_model`) against the test narratives scored; a
bi-encoder trained on ``unseen`` and loaded for ``seen`` test is refused (600 shared narratives).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from figbench_baselines.common.splits import Rows, load_split


@dataclass
class PredictionData:
    train: list[dict[str, Any]]
    test: Rows
    proverbs: dict[str, str]  # proverb id -> text
    candidates: list[str]  # proverb ids a test narrative is ranked against
    train_candidates: list[str]
    config: str = "seen"  # the config (seen | unseen) of the test narratives


@dataclass
class AlignmentData:
    train: list[dict[str, Any]]
    test: Rows
    proverbs: dict[str, str]
    skipped: list[str] = field(default_factory=list)


def load_proverbs(data_dir: str | None) -> list[dict[str, Any]]:
    return list(load_split("epic", "proverbs", "train", data_dir))


CLEAN = "clean"   #: train on the config's own train split only (no test narrative among the training rows)


def check_clean(train: list[dict[str, Any]], test_ids: set[str], where: str) -> None:
    """Refuse training rows whose narrative is a test narrative (the cross-config leak)."""
    leaked = sorted({str(r["id"]) for r in train} & test_ids)
    if leaked:
        raise ValueError(f"{where}: {len(leaked)} training narrative(s) are test narratives (e.g. {leaked[:3]}); "
                         "the clean protocol trains on the config's own train split only")


#: the configs a saved ePiC model can have been trained on (the train split of each)
TRAIN_CONFIGS = ("seen", "unseen", "alignment")


def check_loaded_model(info: dict[str, Any], model_dir: str, test_config: str, test_ids: set[str],
                       data_dir: str | None) -> str:
    """The clean protocol for ``--load-model``: the train split of the config the saved model was trained on
    (``training.config`` of its ``figbench_training.json``) must hold none of the ``test_config`` test narratives
    scored. Returns that config; a model that names none is refused (its training cannot be checked)."""
    config = (info.get("training") or {}).get("config")
    if config not in TRAIN_CONFIGS:
        raise ValueError(f"--load-model {model_dir}: its figbench_training.json names no training config "
                         f"(training.config: {config!r}, expected one of {TRAIN_CONFIGS}), so the clean protocol "
                         f"cannot be checked against epic/{test_config} test; train it again with --save-model")
    train = [dict(r) for r in load_split("epic", config, "train", data_dir)]
    check_clean(train, test_ids, f"--load-model {model_dir} (trained on epic/{config}/train), scored on "
                                 f"epic/{test_config}/test")
    return config


def cross_config_overlap(data_dir: str | None) -> dict[str, dict[str, int]]:
    """Measured: for each test split, how many of its narratives are in the other config's train split
    (``shared``) and how many of those with the same proverb (``same_proverb``)."""
    rows = {(c, s): {r["id"]: r["proverb_id"] for r in load_split("epic", c, s, data_dir)}
            for c in ("seen", "unseen") for s in ("train", "test")}
    out = {}
    for test_cfg, train_cfg in (("seen", "unseen"), ("unseen", "seen")):
        test, train = rows[(test_cfg, "test")], rows[(train_cfg, "train")]
        shared = set(test) & set(train)
        out[f"{test_cfg}/test in {train_cfg}/train"] = {
            "test": len(test), "shared": len(shared), "same_proverb": sum(test[i] == train[i] for i in shared)}
    return out


def load_prediction(config: str, data_dir: str | None, protocol: str = CLEAN) -> PredictionData:
    """Train/test narratives and candidate proverbs of ``config`` (seen | unseen), under the clean protocol
    (train on the config's own train split; see the module's docstring)."""
    if protocol != CLEAN:
        raise ValueError(f"epic protocol must be {CLEAN!r} (train on the config's own train split), not {protocol!r}")
    if config not in ("seen", "unseen"):
        raise ValueError(f"epic proverb prediction config must be 'seen' or 'unseen', not {config!r}")
    test_split = load_split("epic", config, "test", data_dir)
    provs = load_proverbs(data_dir)
    text = {p["id"]: p["proverb"] for p in provs}
    train = [dict(r) for r in load_split("epic", config, "train", data_dir)]
    test = Rows.of(test_split, (dict(r) for r in test_split))
    check_clean(train, {str(r["id"]) for r in test}, f"epic/{config}")
    for split, rows in (("train", train), ("test", test)):
        if not rows:
            raise ValueError(f"epic/{config}/{split}: the split is empty")
        unknown = sorted({r["proverb_id"] for r in rows} - set(text))
        if unknown:
            raise ValueError(f"epic/{config}/{split}: proverb ids {unknown[:5]} are not in the proverbs list")
    train_ids = sorted({r["proverb_id"] for r in train})
    if config == "seen":
        candidates = sorted(text)
    else:
        candidates = sorted(p["id"] for p in provs if p["unseen_split"] == "test")
        overlap = set(candidates) & set(train_ids)
        if overlap:
            raise ValueError(f"epic/unseen: test proverbs {sorted(overlap)[:5]} also occur in training")
    missing = sorted({r["proverb_id"] for r in test} - set(candidates))
    if missing:
        raise ValueError(f"epic/{config}/test: gold proverbs {missing[:5]} are not among the candidates")
    return PredictionData(train, test, text, candidates, train_ids, config)


def load_alignment(data_dir: str | None) -> AlignmentData:
    """Alignment rows (seen split); unaligned span pairs are removed from ``pairs`` and reported."""
    splits = {s: load_split("epic", "alignment", s, data_dir, on_unaligned="flag") for s in ("train", "test")}
    text = {p["id"]: p["proverb"] for p in load_proverbs(data_dir)}
    train, skipped = keep_aligned([dict(r) for r in splits["train"]], "train")
    test, skipped_test = keep_aligned([dict(r) for r in splits["test"]], "test")
    check_clean(train, {str(r["id"]) for r in test}, "epic/alignment")
    return AlignmentData(train, Rows.of(splits["test"], test), text, skipped + skipped_test)


def keep_aligned(rows: list[dict[str, Any]], split: str) -> tuple[list[dict[str, Any]], list[str]]:
    """Remove span pairs not found in their text (builder flag ``*_match == "none"`` or offsets outside
    the narrative), returning the rows and one reason per removed pair; error if no pair is left."""
    skipped: list[str] = []
    for r in rows:
        keep = []
        for pair in r["pairs"]:
            n_s, n_e = pair["narrative_start"], pair["narrative_end"]
            if pair["narrative_match"] == "none" or pair["proverb_match"] == "none" or not (
                    0 <= n_s < n_e <= len(r["narrative"])):
                skipped.append(f"{split} {pair['pair_id']}: span not found in its text")
                continue
            keep.append(pair)
        r["pairs"] = keep
    if not any(r["pairs"] for r in rows):
        raise ValueError(f"epic/alignment/{split}: no aligned span pairs")
    return rows, skipped
