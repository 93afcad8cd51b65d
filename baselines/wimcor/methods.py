"""WiMCor metonymy baselines (Mathews & Strube): immediate-context windows
(frozen contextual embeddings + a pooled logistic-regression classifier), a predicate window
(needs a spaCy dependency parser) and a fine-tuned transformer with the PMW marked.

Every method maps (train examples, test examples, label key) to (predictions, throughput stats).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np
from figbench_baselines.common.figurative import rate

PMW_OPEN, PMW_CLOSE = "[pmw]", "[/pmw]"


# ------------------------------------------------------------------ context windows

def immediate_window(ex: dict, size: int) -> tuple[list[str], int, int]:
    """``size`` words left of the PMW, the PMW, ``size`` words right; returns (words, pmw start, end)."""
    s, e = ex["pmw_start"], ex["pmw_end"]
    left = ex["tokens"][max(0, s - size):s]
    words = left + ex["tokens"][s:e] + ex["tokens"][e:e + size]
    return words, len(left), len(left) + (e - s)


def find_parser(lang: str = "en"):
    """A loaded spaCy pipeline for ``lang`` with a dependency parser, or ValueError saying none is installed."""
    from figbench.imports import spacy as import_spacy

    spacy = import_spacy()

    for name in sorted(spacy.util.get_installed_models()):
        if not name.startswith(f"{lang}_"):
            continue
        nlp = spacy.load(name)
        if "parser" in nlp.pipe_names:
            return nlp
    raise ValueError(
        f"the predicate-window baseline needs a spaCy pipeline with a dependency parser for {lang!r} "
        f"(e.g. en_core_web_sm: `python -m spacy download en_core_web_sm`); none is installed. "
        f"Use --method imm instead.")


def predicate_window(doc, pmw_start: int, pmw_end: int, size: int) -> tuple[list[str], int, int]:
    """The PMW plus ``size`` words either side of its governing predicate.

    The predicate is the nearest VERB/AUX ancestor of the PMW's syntactic head (else the sentence
    root). ``doc`` is a parsed spaCy ``Doc`` whose tokens are the example's words.
    """
    head = doc[pmw_start:pmw_end].root
    pred = next((t for t in head.ancestors if t.pos_ in ("VERB", "AUX")), head.sent.root)
    lo, hi = max(0, pred.i - size), min(len(doc), pred.i + size + 1)
    keep = sorted(set(range(lo, hi)) | set(range(pmw_start, pmw_end)))
    words = [doc[i].text for i in keep]
    return words, keep.index(pmw_start), keep.index(pmw_end - 1) + 1


def predicate_windows(examples: Sequence[dict], size: int, nlp) -> list[tuple[list[str], int, int]]:
    """Parse each example's words (kept as tokenised) and take :func:`predicate_window`."""
    from figbench.imports import spacy as import_spacy

    import_spacy()   # spaCy without thinc's torch import (figbench.imports)
    from spacy.tokens import Doc

    out = []
    for ex in examples:
        doc = Doc(nlp.vocab, words=list(ex["tokens"]))
        for _, proc in nlp.pipeline:
            doc = proc(doc)
        out.append(predicate_window(doc, ex["pmw_start"], ex["pmw_end"], size))
    return out


# ------------------------------------------------------------------ frozen embeddings + classifier

def window_features(windows: Sequence[tuple[list[str], int, int]], tokenizer, model, *,
                    batch_size: int = 32, max_length: int = 256, desc: str = "embed") -> tuple[np.ndarray, dict]:
    """Frozen contextual features per window: [mean of PMW sub-tokens ; mean of the window]."""
    import torch
    from tqdm.auto import tqdm

    feats, t0 = [], time.perf_counter()
    with torch.inference_mode():
        for i in tqdm(range(0, len(windows), batch_size), desc=desc, leave=False):
            chunk = windows[i:i + batch_size]
            enc = tokenizer([w for w, _, _ in chunk], is_split_into_words=True, padding=True, truncation=True,
                            max_length=max_length, return_tensors="pt")
            hidden = model(**{k: v.to(model.device) for k, v in enc.items()}).last_hidden_state.float().cpu()
            for j, (_, s, e) in enumerate(chunk):
                wids = enc.word_ids(j)
                pmw = [k for k, w in enumerate(wids) if w is not None and s <= w < e]
                ctx = [k for k, w in enumerate(wids) if w is not None]
                pmw = pmw or ctx[:1]  # PMW truncated away: fall back to the first word
                feats.append(torch.cat([hidden[j, pmw].mean(0), hidden[j, ctx].mean(0)]).numpy())
    seconds = time.perf_counter() - t0
    return np.stack(feats), {"embed_examples_per_s": rate(len(windows), seconds)}


def pooled_classifier(x_train: np.ndarray, y_train: Sequence[str], x_test: np.ndarray, *, seed: int = 0
                      ) -> tuple[list[str], dict[str, float]]:
    """Logistic regression on frozen features (standardised); returns predictions and throughput."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    t0 = time.perf_counter()
    clf = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000, C=0.5, random_state=seed))
    clf.fit(x_train, list(y_train))
    t1 = time.perf_counter()
    pred = list(clf.predict(x_test))
    t2 = time.perf_counter()
    return pred, {"classifier_train_examples_per_s": rate(len(y_train), t1 - t0),
                  "classifier_inference_examples_per_s": rate(len(pred), t2 - t1)}


# ------------------------------------------------------------------ fine-tuned, PMW marked

def marked_text(ex: dict, size: int) -> list[str]:
    """Words of the ``size`` window with the PMW wrapped in marker tokens."""
    words, s, e = immediate_window(ex, size)
    return words[:s] + [PMW_OPEN] + words[s:e] + [PMW_CLOSE] + words[e:]


def _marked_features(tok, rows, key: str | None, label2id: dict | None, window: int, max_length: int) -> list[dict]:
    enc = tok([marked_text(ex, window) for ex in rows], is_split_into_words=True, truncation=True,
              max_length=max_length)
    feats = []
    for i, ex in enumerate(rows):
        item = {k: enc[k][i] for k in enc.keys()}
        item["labels"] = label2id[ex[key]] if key is not None else 0
        feats.append(item)
    return feats


def _predict_marked(tok, model, rows, *, window: int, max_length: int, desc: str) -> tuple[list[str], dict]:
    from figbench_baselines.common.figurative import pad_collate, predict_logits

    logits, stats = predict_logits(model, _marked_features(tok, rows, None, None, window, max_length),
                                   pad_collate(tok), desc=desc)
    return [model.config.id2label[int(np.argmax(lg))] for lg in logits], stats


def finetune_marked(train: Sequence[dict], test: Sequence[dict], key: str, labels: Sequence[str], cfg, *,
                    model_name: str | None, window: int = 50, max_length: int = 128, evaluate=None, early=None,
                    save_model: str | None = None) -> tuple[list[str], dict[str, float], dict[str, Any]]:
    """Fine-tune a sequence classifier on PMW-marked windows; returns predictions, stats, model info.

    With ``early`` and ``evaluate(predict) -> {metric: value}`` (``predict(rows) -> labels`` with the
    current weights) the run is early-stopped on the validation score and keeps the best epoch."""
    from figbench_baselines.common.early_stopping import phase
    from figbench_baselines.common.encoder import load_tokenizer_and_model
    from figbench_baselines.common.figurative import finetune, n_parameters, pad_collate, seed_everything, set_threads
    from transformers import AutoModelForSequenceClassification

    set_threads()
    seed_everything(cfg.seed)
    label2id = {lab: i for i, lab in enumerate(labels)}
    with phase("load the encoder"):
        tok, model = load_tokenizer_and_model(
            model_name, AutoModelForSequenceClassification, num_labels=len(labels),
            id2label=dict(enumerate(labels)), label2id=label2id)
        tok.add_special_tokens({"additional_special_tokens": [PMW_OPEN, PMW_CLOSE]})
        model.resize_token_embeddings(len(tok))
    collate = pad_collate(tok)
    with phase(f"tokenise {len(train)} training examples"):
        feats = _marked_features(tok, train, key, label2id, window, max_length)
    validate = None
    if early is not None:
        def validate(m):
            return evaluate(lambda rows: _predict_marked(tok, m, rows, window=window, max_length=max_length,
                                                         desc=f"validate {len(rows)}")[0])
    model, train_stats = finetune(model, feats, collate, cfg, desc="wimcor fine-tune", evaluate=validate, early=early)
    pred, inf_stats = _predict_marked(tok, model, test, window=window, max_length=max_length,
                                      desc=f"classify {len(test)} test examples")
    return pred, {**train_stats, **inf_stats}, {"parameters": n_parameters(model), "model": model, "tokenizer": tok}


def predict_marked_saved(path: str, test: Sequence[dict], *, window: int, max_length: int = 128
                         ) -> tuple[list[str], dict[str, float], dict[str, Any]]:
    """Predictions of a classifier saved with ``--save-model`` (re-scoring without training)."""
    from figbench_baselines.common.early_stopping import phase
    from figbench_baselines.common.encoder import load_tokenizer_and_model
    from figbench_baselines.common.figurative import n_parameters, set_threads
    from transformers import AutoModelForSequenceClassification

    set_threads()
    with phase(f"load the saved model {path}"):
        tok, model = load_tokenizer_and_model(path, AutoModelForSequenceClassification)
    model.eval()
    pred, stats = _predict_marked(tok, model, test, window=window, max_length=max_length,
                                  desc=f"classify {len(test)} test examples")
    return pred, stats, {"parameters": n_parameters(model)}
