"""Meta4XNLI baselines: metaphor detection as token classification (first sub-token of each word
labelled, max length 128) and metaphor interpretation as NLI (sequence-pair classification).

Detection scores: strict BIO span P/R/F1 and token P/R/F1 (:func:`figbench.scoring.spans.bio_span_scores`),
in-/out-of-vocabulary token P/R/F1 (:func:`figbench.scoring.vocab.vocab_scores`), bootstrap over
sentences. NLI scores: accuracy on all test pairs and separately on pairs with metaphors (``met``),
without (``no_met``) and with non-relevant metaphors, per language.
"""

from __future__ import annotations

from collections.abc import Sequence
import numpy as np

TAGS = ("O", "B-METAPHOR", "I-METAPHOR")
NLI_LABELS = ("entailment", "neutral", "contradiction")
STATUSES = ("met", "no_met", "non-relevant")


# ------------------------------------------------------------------ detection

def check_tags(rows: Sequence[dict], where: str, tags: Sequence[str] = TAGS) -> None:
    """Every tag must be one of ``tags`` (mismatched label sets are an error, naming the row)."""
    allowed = set(tags)
    for r in rows:
        bad = set(r["tags"]) - allowed
        if bad:
            raise ValueError(f"{where} row {r['id']}: tags {sorted(bad)} are not in the label set {list(tags)}")


def train_token_classifier(rows: Sequence[dict], cfg, *, model_name: str | None, max_length: int = 128):
    """Fine-tune ``AutoModelForTokenClassification`` on ``rows`` (tokens, tags)."""
    from transformers import AutoModelForTokenClassification

    from figbench_baselines.common.encoder import load_tokenizer_and_model
    from figbench_baselines.common.figurative import finetune, pad_collate, set_threads, word_label_features

    set_threads()
    label2id = {t: i for i, t in enumerate(TAGS)}
    tok, model = load_tokenizer_and_model(model_name, AutoModelForTokenClassification, num_labels=len(TAGS),
                                          id2label=dict(enumerate(TAGS)), label2id=label2id)
    feats, _ = word_label_features(tok, [r["tokens"] for r in rows], [[label2id[t] for t in r["tags"]] for r in rows],
                                   max_length=max_length)
    model, stats = finetune(model, feats, pad_collate(tok), cfg, desc="meta4xnli detection")
    return tok, model, stats


def predict_tags(tok, model, rows: Sequence[dict], *, max_length: int = 128) -> tuple[list[list[str]], dict]:
    """One tag per word; words beyond ``max_length`` sub-tokens are tagged ``O``."""
    from figbench_baselines.common.figurative import pad_collate, predict_logits, word_label_features, word_predictions

    feats, pos = word_label_features(tok, [r["tokens"] for r in rows], None, max_length=max_length)
    logits, stats = predict_logits(model, feats, pad_collate(tok))
    tags = word_predictions(logits, feats, pos, [len(r["tokens"]) for r in rows], dict(enumerate(TAGS)))
    return tags, stats


def detection_scores(train: Sequence[dict], test: Sequence[dict], pred: Sequence[Sequence[str]], *,
                     idx: np.ndarray | None = None) -> dict[str, float]:
    """Span/token scores and in-/out-of-vocabulary token scores over ``test[idx]``."""
    from figbench.scoring.spans import bio_span_scores
    from figbench.scoring.vocab import vocab_scores

    idx = np.arange(len(test)) if idx is None else idx
    gold = [test[i]["tags"] for i in idx]
    p = [pred[i] for i in idx]
    toks = [test[i]["tokens"] for i in idx]
    bio = bio_span_scores(gold, p)
    voc = vocab_scores([r["tokens"] for r in train], [r["tags"] for r in train], toks, gold, p)
    out = {k: float(bio[k]) for k in ("precision", "recall", "f1", "token_precision", "token_recall", "token_f1")}
    for part in ("in_vocab", "out_vocab"):
        for m in ("precision", "recall", "f1"):
            out[f"{part}_{m}"] = float(voc[f"{part}_{m}"])
    return out


def metaphor_vocabulary_rows(train: Sequence[dict]) -> list[dict]:
    """A one-sentence stand-in for ``train`` with the same metaphor vocabulary (fast bootstrap)."""
    toks = [t for r in train for t, g in zip(r["tokens"], r["tags"]) if g != "O"]
    return [{"tokens": toks or ["<none>"], "tags": ["B-METAPHOR"] * len(toks) if toks else ["O"]}]


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


def train_nli(rows: Sequence[dict], cfg, *, model_name: str | None, max_length: int = 128):
    from transformers import AutoModelForSequenceClassification

    from figbench_baselines.common.encoder import load_tokenizer_and_model
    from figbench_baselines.common.figurative import finetune, pad_collate, set_threads

    set_threads()
    label2id = {t: i for i, t in enumerate(NLI_LABELS)}
    tok, model = load_tokenizer_and_model(model_name, AutoModelForSequenceClassification, num_labels=len(NLI_LABELS),
                                          id2label=dict(enumerate(NLI_LABELS)), label2id=label2id)
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
    return [NLI_LABELS[int(np.argmax(lg))] for lg in logits], stats


def nli_groups(rows: Sequence[dict]) -> dict[str, np.ndarray]:
    """Boolean masks: all, per metaphor status, per language and per language x status."""
    status = np.array([r["metaphor_status"] for r in rows], dtype=object)
    lang = np.array([r["language"] for r in rows], dtype=object)
    groups = {"": np.ones(len(rows), dtype=bool)}
    for s in STATUSES:
        groups[f"_{s.replace('-', '')}"] = status == s
    for lg in sorted(set(lang)):
        groups[f"_{lg}"] = lang == lg
        for s in STATUSES:
            groups[f"_{lg}_{s.replace('-', '')}"] = (lang == lg) & (status == s)
    return {k: v for k, v in groups.items() if v.any()}


def nli_accuracies(correct: np.ndarray, groups: dict[str, np.ndarray], idx: np.ndarray | None = None) -> dict[str, float]:
    idx = np.arange(len(correct)) if idx is None else idx
    c = correct[idx]
    out = {}
    for name, mask in groups.items():
        m = mask[idx]
        if m.any():
            out[f"accuracy{name}"] = float(c[m].mean())
    return out


def nli_label_check(train: Sequence[dict], test: Sequence[dict]) -> None:
    from figbench_baselines.common.figurative import check_label_sets

    for where, rows in (("train", train), ("test", test)):
        bad = sorted({r["gold_label"] for r in rows} - set(NLI_LABELS))
        if bad:
            raise ValueError(f"meta4xnli interpretation {where}: labels {bad} are not NLI labels {list(NLI_LABELS)}")
    check_label_sets([r["gold_label"] for r in train], [r["gold_label"] for r in test], where="meta4xnli interpretation")

