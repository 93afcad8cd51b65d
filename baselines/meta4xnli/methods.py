"""Meta4XNLI baselines: metaphor detection as token classification (first sub-token of each word
labelled, max length 128), the most-frequent-tag lexicon, and metaphor interpretation as NLI
(sequence-pair classification).

Tag and label sets are the builder's ``ClassLabel`` names (the model's output order). Scores are the
tasks' (``metaphor_detection``, ``metaphor_nli``): :mod:`figbench_baselines.common.scoring`, plus
in-/out-of-vocabulary scores (:mod:`figbench.scoring.vocab_spans`) for detection.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: the metaphor status of NLI pairs whose metaphor is not relevant to the inference (excluded by the paper)
NON_RELEVANT = "non-relevant"


# ------------------------------------------------------------------ detection

def check_tags(rows: Sequence[dict], where: str, tags: Sequence[str]) -> None:
    """Every tag must be one of ``tags`` (mismatched label sets are an error, naming the row)."""
    allowed = set(tags)
    for r in rows:
        bad = set(r["tags"]) - allowed
        if bad:
            raise ValueError(f"{where} row {r['id']}: tags {sorted(bad)} are not in the label set {list(tags)}")


def train_token_classifier(rows: Sequence[dict], cfg, *, tags: Sequence[str], model_name: str | None,
                           max_length: int = 128, evaluate=None, early=None):
    """Fine-tune ``AutoModelForTokenClassification`` on ``rows`` (tokens, tags); ``tags``: the tag set.

    With ``early`` and ``evaluate(tok, model) -> {metric: value}`` (a validation split's scores) the run
    is early-stopped and ends with the best epoch's weights."""
    from figbench_baselines.common.early_stopping import phase
    from figbench_baselines.common.encoder import load_tokenizer_and_model
    from figbench_baselines.common.figurative import (
        finetune,
        pad_collate,
        seed_everything,
        set_threads,
        word_label_features,
    )
    from transformers import AutoModelForTokenClassification

    set_threads()
    seed_everything(cfg.seed)
    label2id = {t: i for i, t in enumerate(tags)}
    with phase("load the encoder"):
        tok, model = load_tokenizer_and_model(model_name, AutoModelForTokenClassification, num_labels=len(tags),
                                              id2label=dict(enumerate(tags)), label2id=label2id)
    with phase(f"tokenise {len(rows)} training sentences"):
        feats, _ = word_label_features(tok, [r["tokens"] for r in rows],
                                       [[label2id[t] for t in r["tags"]] for r in rows], max_length=max_length)
    model, stats = finetune(model, feats, pad_collate(tok), cfg, desc="meta4xnli detection", early=early,
                            evaluate=(lambda m: evaluate(tok, m)) if evaluate is not None else None)
    return tok, model, stats


def predict_tags(tok, model, rows: Sequence[dict], *, max_length: int = 128) -> tuple[list[list[str]], dict]:
    """One tag per word (names from the model's ``id2label``); words beyond ``max_length`` sub-tokens are ``O``."""
    from figbench_baselines.common.figurative import pad_collate, predict_logits, word_label_features, word_predictions

    feats, pos = word_label_features(tok, [r["tokens"] for r in rows], None, max_length=max_length)
    logits, stats = predict_logits(model, feats, pad_collate(tok), desc=f"tag {len(rows)} sentences")
    tags = word_predictions(logits, feats, pos, [len(r["tokens"]) for r in rows], model.config.id2label)
    return tags, stats


def most_frequent_tags(train: Sequence[dict]) -> dict[str, str]:
    """The most frequent tag of each lowercased word form in ``train`` (ties go to ``O``).

    The classic most-frequent-tag baseline: only forms whose majority tag is a metaphor tag are kept.
    """
    from collections import Counter, defaultdict

    counts: dict[str, Counter] = defaultdict(Counter)
    for r in train:
        for tok, tag in zip(r["tokens"], r["tags"]):
            counts[tok.lower()][tag] += 1
    lexicon = {}
    for form, c in counts.items():
        tag, n = max(c.items(), key=lambda kv: (kv[1], kv[0] == "O"))
        if tag != "O":
            lexicon[form] = tag
    return lexicon


def lexicon_predict(lexicon: dict[str, str], rows: Sequence[dict]) -> list[list[str]]:
    """Tag each token with its form's most frequent tag; an ``I-`` that follows ``O`` becomes ``B-``."""
    out = []
    for r in rows:
        tags: list[str] = []
        for tok in r["tokens"]:
            tag = lexicon.get(tok.lower(), "O")
            if tag.startswith("I-") and (not tags or tags[-1] == "O"):
                tag = "B-" + tag[2:]
            tags.append(tag)
        out.append(tags)
    return out


# ------------------------------------------------------------------ NLI

def select_training(rows: Sequence[dict], train_on: str) -> list[dict]:
    """``no_met``: pairs without metaphors only; ``all``: every pair."""
    if train_on == "all":
        return list(rows)
    if train_on == "no_met":
        return [r for r in rows if r["metaphor_status"] == "no_met"]
    raise ValueError(f"unknown --train-on {train_on!r}; choose no_met or all")


def is_relevant(row: dict) -> bool:
    """False for pairs whose metaphor is not relevant to the inference (the paper leaves them out)."""
    return row["metaphor_status"] != NON_RELEVANT


def train_nli(rows: Sequence[dict], cfg, *, labels: Sequence[str], model_name: str | None, max_length: int = 128):
    """Fine-tune a sequence-pair classifier over ``labels`` (the NLI label set) on ``rows``."""
    from figbench_baselines.common.encoder import load_tokenizer_and_model
    from figbench_baselines.common.figurative import finetune, pad_collate, set_threads
    from transformers import AutoModelForSequenceClassification

    set_threads()
    label2id = {t: i for i, t in enumerate(labels)}
    tok, model = load_tokenizer_and_model(model_name, AutoModelForSequenceClassification, num_labels=len(labels),
                                          id2label=dict(enumerate(labels)), label2id=label2id)
    feats = nli_features(tok, rows, max_length=max_length, label2id=label2id)
    model, stats = finetune(model, feats, pad_collate(tok), cfg, desc="meta4xnli nli")
    return tok, model, stats


def nli_features(tok, rows: Sequence[dict], *, max_length: int = 128, label2id: dict | None = None) -> list[dict]:
    enc = tok([r["premise"] for r in rows], [r["hypothesis"] for r in rows], truncation=True, max_length=max_length)
    feats = []
    for i, r in enumerate(rows):
        item = {k: enc[k][i] for k in enc.keys()}
        item["labels"] = label2id[r["gold_label"]] if label2id else 0
        feats.append(item)
    return feats


def predict_nli(tok, model, rows: Sequence[dict], *, max_length: int = 128) -> tuple[list[str], dict]:
    from figbench_baselines.common.figurative import pad_collate, predict_logits

    logits, stats = predict_logits(model, nli_features(tok, rows, max_length=max_length), pad_collate(tok))
    return [model.config.id2label[int(np.argmax(lg))] for lg in logits], stats


def nli_label_check(train: Sequence[dict], test: Sequence[dict], labels: Sequence[str]) -> None:
    """Every gold label is one of ``labels``; test labels all occur in training."""
    from figbench_baselines.common.figurative import check_label_sets

    for where, rows in (("train", train), ("test", test)):
        bad = sorted({r["gold_label"] for r in rows} - set(labels))
        if bad:
            raise ValueError(f"meta4xnli interpretation {where}: labels {bad} are not NLI labels {list(labels)}")
    check_label_sets([r["gold_label"] for r in train], [r["gold_label"] for r in test],
                     where="meta4xnli interpretation")

