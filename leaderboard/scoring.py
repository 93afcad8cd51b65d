"""Server-side scoring of validated predictions against gold, with bootstrap confidence intervals.

Metrics come from figbench (``figbench.scoring.coref``, ``figbench.scoring.spans``) and
scikit-learn; intervals from :func:`figbench.bootstrap.bootstrap_ci` (percentile bootstrap).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from figbench.bootstrap import bootstrap_ci
from figbench_leaderboard.gold import Gold

#: Absolute difference above which a self-reported score counts as a mismatch.
MISMATCH_TOLERANCE = 1e-6


@dataclass
class Scored:
    scores: dict[str, float]
    confidence_intervals: dict[str, dict[str, Any]]
    counts: dict[str, float] = field(default_factory=dict)


def _split_scores(values: Mapping[str, Any]) -> tuple[dict[str, float], dict[str, float]]:
    """Fractions in [0, 1] go to scores, other finite numbers to counts."""
    scores, counts = {}, {}
    for k, v in values.items():
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
            continue
        v = float(v)
        if not math.isfinite(v):
            continue
        if isinstance(values[k], (int, np.integer)) or not 0.0 <= v <= 1.0:
            counts[k] = v
        else:
            scores[k] = v
    return scores, counts


def score_coref(pred: list[list[str]], gold: Gold, *, n_resamples: int, seed: int) -> Scored:
    from figbench.scoring.coref import bootstrap_coref, evaluate_coref

    raw = evaluate_coref([pred], [gold.clusters])
    scores, counts = _split_scores(raw)
    cis = bootstrap_coref([pred], [gold.clusters], n_resamples=n_resamples, seed=seed) if n_resamples else {}
    counts.update({"mentions": float(len(gold.ids)), "gold_clusters": float(len(gold.clusters)),
                   "predicted_clusters": float(len(pred))})
    return Scored(scores, {k: v for k, v in cis.items() if k in scores}, counts)


def _label_arrays(pred: Mapping[str, str], gold: Gold) -> tuple[np.ndarray, np.ndarray, list[str]]:
    labels = sorted(set(gold.labels.values()) | set(pred.values()))
    index = {lab: i for i, lab in enumerate(labels)}
    ids = gold.ids
    y_true = np.fromiter((index[gold.labels[i]] for i in ids), dtype=np.int64, count=len(ids))
    y_pred = np.fromiter((index[pred[i]] for i in ids), dtype=np.int64, count=len(ids))
    return y_true, y_pred, labels


def label_statistics(y_true: np.ndarray, y_pred: np.ndarray, n_labels: int) -> dict[str, float]:
    """Accuracy and micro/macro P/R/F1 from label indices (scikit-learn's definitions, labels present
    in ``y_true`` or ``y_pred``, zero_division=0); vectorised for the bootstrap."""
    tp = np.bincount(y_true[y_true == y_pred], minlength=n_labels).astype(float)
    n_true = np.bincount(y_true, minlength=n_labels).astype(float)
    n_pred = np.bincount(y_pred, minlength=n_labels).astype(float)
    present = (n_true + n_pred) > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(n_pred > 0, tp / n_pred, 0.0)
        r = np.where(n_true > 0, tp / n_true, 0.0)
        f = np.where(p + r > 0, 2 * p * r / (p + r), 0.0)
    n = len(y_true)
    micro = float(tp.sum() / n) if n else 0.0  # single-label multiclass: micro P = R = F1 = accuracy
    return {"accuracy": micro, "micro_precision": micro, "micro_recall": micro, "micro_f1": micro,
            "macro_precision": float(p[present].mean()), "macro_recall": float(r[present].mean()),
            "macro_f1": float(f[present].mean())}


def score_labels(pred: Mapping[str, str], gold: Gold, *, n_resamples: int, seed: int) -> Scored:
    from sklearn.metrics import accuracy_score, precision_recall_fscore_support

    y_true, y_pred, labels = _label_arrays(pred, gold)
    scores = {"accuracy": float(accuracy_score(y_true, y_pred))}
    for avg in ("micro", "macro"):
        p, r, f, _ = precision_recall_fscore_support(y_true, y_pred, average=avg, zero_division=0)
        scores.update({f"{avg}_precision": float(p), f"{avg}_recall": float(r), f"{avg}_f1": float(f)})
    masks = group_masks(gold)
    correct = (y_true == y_pred).astype(float)
    scores.update(group_accuracies(correct, masks))

    def stat(idx: np.ndarray) -> dict[str, float]:
        return {**label_statistics(y_true[idx], y_pred[idx], len(labels)), **group_accuracies(correct, masks, idx)}

    cis = bootstrap_ci(len(y_true), stat, n_resamples=n_resamples, seed=seed, unit="examples") if n_resamples else {}
    counts = {"examples": float(len(y_true)), "labels": float(len(labels))}
    counts.update({f"n{name}": float(m.sum()) for name, m in masks.items()})
    return Scored(scores, {k: v for k, v in cis.items() if k in scores}, counts)


def group_masks(gold: Gold) -> dict[str, np.ndarray]:
    """Example subsets for Meta4XNLI's accuracy by metaphor status and language (and both):
    ``_met``, ``_no_met``, ``_nonrelevant``, ``_en``, ``_en_met``... (the baselines' key names)."""
    if not gold.groups or "metaphor_status" not in gold.groups:
        return {}
    status = np.array([gold.groups["metaphor_status"][i] for i in gold.ids], dtype=object)
    out: dict[str, np.ndarray] = {}
    statuses = sorted(set(status))
    for s in statuses:
        out[f"_{s.replace('-', '')}"] = status == s
    if "language" in gold.groups:
        lang = np.array([gold.groups["language"][i] for i in gold.ids], dtype=object)
        for lg in sorted(set(lang)):
            out[f"_{lg}"] = lang == lg
            for s in statuses:
                out[f"_{lg}_{s.replace('-', '')}"] = (lang == lg) & (status == s)
    return {k: v for k, v in out.items() if v.any()}


def group_accuracies(correct: np.ndarray, masks: Mapping[str, np.ndarray],
                     idx: np.ndarray | None = None) -> dict[str, float]:
    idx = np.arange(len(correct)) if idx is None else idx
    c = correct[idx]
    out = {}
    for name, mask in masks.items():
        m = mask[idx]
        if m.any():
            out[f"accuracy{name}"] = float(c[m].mean())
    return out


def score_ranking(pred: Mapping[str, list[str]], gold: Gold, *, n_resamples: int, seed: int) -> Scored:
    ids = gold.ids
    rr = np.zeros(len(ids))
    top5 = np.zeros(len(ids))
    for n, i in enumerate(ids):
        ranking = pred[i]
        try:
            rank = ranking.index(gold.labels[i]) + 1
        except ValueError:
            continue
        rr[n] = 1.0 / rank
        top5[n] = float(rank <= 5)
    top1 = (rr == 1.0).astype(float)

    def stat(idx: np.ndarray) -> dict[str, float]:
        return {"accuracy": float(top1[idx].mean()), "mrr": float(rr[idx].mean()),
                "top5_accuracy": float(top5[idx].mean())}

    scores = stat(np.arange(len(ids)))
    cis = bootstrap_ci(len(ids), stat, n_resamples=n_resamples, seed=seed, unit="examples") if n_resamples else {}
    return Scored(scores, cis, {"examples": float(len(ids))})


def _prf(correct: np.ndarray, predicted: np.ndarray, gold: np.ndarray) -> tuple[float, float, float]:
    c, p, g = float(correct.sum()), float(predicted.sum()), float(gold.sum())
    prec = c / p if p else 0.0
    rec = c / g if g else 0.0
    return prec, rec, (2 * prec * rec / (prec + rec) if prec + rec else 0.0)


def score_bio(pred: Mapping[str, list[str]], gold: Gold, *, n_resamples: int, seed: int) -> Scored:
    """Strict IOB2 span P/R/F1 and token P/R/F1 (``bio_span_scores``); sentences are resampled."""
    from figbench.scoring.spans import bio_span_scores

    ids = list(gold.ids)
    refs = [gold.tags[i] for i in ids]
    preds = [pred[i] for i in ids]
    raw = bio_span_scores(refs, preds)
    scores, counts = _split_scores(raw)
    if n_resamples:
        names = ("n_correct_spans", "n_pred_spans", "n_gold_spans", "n_correct_tokens", "n_pred_tokens",
                 "n_gold_tokens", "n_tokens")
        per = np.zeros((len(ids), len(names) + 1))
        for j, (r, p) in enumerate(zip(refs, preds)):
            one = bio_span_scores([r], [p])
            per[j, :-1] = [one[n] for n in names]
            per[j, -1] = one["accuracy"] * one["n_tokens"]

        def stat(idx: np.ndarray) -> dict[str, float]:
            s = per[idx]
            p, r, f = _prf(s[:, 0], s[:, 1], s[:, 2])
            tp_, tr, tf = _prf(s[:, 3], s[:, 4], s[:, 5])
            n_tok = s[:, 6].sum()
            return {"precision": p, "recall": r, "f1": f, "token_precision": tp_, "token_recall": tr,
                    "token_f1": tf, "accuracy": float(s[:, 7].sum() / n_tok) if n_tok else 0.0}

        cis = bootstrap_ci(len(ids), stat, n_resamples=n_resamples, seed=seed, unit="sentences")
    else:
        cis = {}
    return Scored(scores, {k: v for k, v in cis.items() if k in scores}, counts)


#: span_overlap_scores key -> leaderboard key (the ePiC task's headline is ``token_f1``)
_ALIGN_NAMES = {"precision": "token_precision", "recall": "token_recall", "f1": "token_f1",
                "micro_precision": "micro_token_precision", "micro_recall": "micro_token_recall",
                "micro_f1": "micro_token_f1"}


def score_alignment(pred: Mapping[str, str], gold: Gold, *, n_resamples: int, seed: int) -> Scored:
    """ePiC alignment: token-overlap P/R/F1 and exact match averaged over pairs (``span_overlap_scores``)."""
    from figbench.scoring.spans import span_overlap_scores

    ids = list(gold.ids)
    preds = [pred[i] for i in ids]
    passages = [gold.spans[i]["passage"] for i in ids]
    # character offsets are scored by position against the gold offsets (as the baselines do);
    # text against the gold span's text
    refs = [(gold.spans[i]["start"], gold.spans[i]["end"]) if isinstance(p, list) and "start" in gold.spans[i]
            else gold.spans[i]["answer"] for i, p in zip(ids, preds)]
    preds = [tuple(p) if isinstance(p, list) else p for p in preds]
    raw, counts = _split_scores(span_overlap_scores(preds, refs, passages=passages))
    scores = {_ALIGN_NAMES.get(k, k): v for k, v in raw.items()}
    if n_resamples:
        names = ("precision", "recall", "f1", "exact_match")
        per = np.array([[one[n] for n in names] for one in
                        (span_overlap_scores([p], [r], passages=[t]) for p, r, t in zip(preds, refs, passages))])

        def stat(idx: np.ndarray) -> dict[str, float]:
            return {_ALIGN_NAMES.get(n, n): float(x) for n, x in zip(names, per[idx].mean(axis=0))}

        cis = bootstrap_ci(len(ids), stat, n_resamples=n_resamples, seed=seed, unit="examples")
    else:
        cis = {}
    return Scored(scores, cis, counts)


_SCORERS = {
    "cdec": score_coref,
    "metaphor_detection": score_bio,
    "metaphor_nli": score_labels,
    "metonymy": score_labels,
    "proverb_prediction": score_ranking,
    "proverb_alignment": score_alignment,
}


def score(task: str, predictions: Any, gold: Gold, *, n_resamples: int = 1000, seed: int = 0) -> Scored:
    """Score normalised predictions (see :func:`figbench_leaderboard.formats.parse_predictions`)."""
    try:
        scorer = _SCORERS[task]
    except KeyError:
        raise ValueError(f"task {task!r} is not scored by the leaderboard") from None
    return scorer(predictions, gold, n_resamples=n_resamples, seed=seed)


def mismatches(reported: Mapping[str, float], server: Mapping[str, float],
               tolerance: float = MISMATCH_TOLERANCE) -> dict[str, dict[str, float]]:
    """Self-reported scores that differ from the server's by more than ``tolerance``."""
    out = {}
    for k, v in reported.items():
        if k in server and abs(float(v) - float(server[k])) > tolerance:
            out[k] = {"reported": float(v), "server": float(server[k])}
    return out
