"""Single-label classification: accuracy, micro/macro P/R/F1 over a declared label set, per-group accuracy.

Definitions are scikit-learn's ``precision_recall_fscore_support(labels=label_set, zero_division=0)``:
macro averages over *every declared label* (a label with no gold and no predicted example scores
0), micro P = R = F1 = accuracy. Computed from label indices so that the bootstrap is fast; tests
check equality with scikit-learn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from figbench.scoring import Scored


def encode_labels(gold: Sequence[str], pred: Sequence[str], label_set: Sequence[str],
                  ids: Sequence[str] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Indices of ``gold`` and ``pred`` in ``label_set``; a label outside it raises naming the example."""
    if len(gold) != len(pred):
        raise ValueError(f"{len(gold)} gold labels but {len(pred)} predictions")
    index = {lab: i for i, lab in enumerate(label_set)}
    out = []
    for side, labels in (("gold", gold), ("predicted", pred)):
        arr = np.empty(len(labels), dtype=np.int64)
        for n, lab in enumerate(labels):
            try:
                arr[n] = index[lab]
            except KeyError:
                where = f"example {ids[n]!r}" if ids is not None else f"example #{n}"
                raise ValueError(f"{where}: {side} label {lab!r} is not in the label set {list(label_set)}") from None
        out.append(arr)
    return out[0], out[1]


def label_statistics(y_true: np.ndarray, y_pred: np.ndarray, n_labels: int) -> dict[str, float]:
    """Accuracy and micro/macro precision, recall, F1 from label indices over all ``n_labels`` labels."""
    tp = np.bincount(y_true[y_true == y_pred], minlength=n_labels).astype(float)
    n_true = np.bincount(y_true, minlength=n_labels).astype(float)
    n_pred = np.bincount(y_pred, minlength=n_labels).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(n_pred > 0, tp / n_pred, 0.0)
        r = np.where(n_true > 0, tp / n_true, 0.0)
        f = np.where(p + r > 0, 2 * p * r / (p + r), 0.0)
    n = len(y_true)
    micro = float(tp.sum() / n) if n else 0.0  # single-label: micro P = R = F1 = accuracy
    return {"accuracy": micro, "micro_precision": micro, "micro_recall": micro, "micro_f1": micro,
            "macro_precision": float(p.mean()), "macro_recall": float(r.mean()), "macro_f1": float(f.mean())}


def group_masks(groups: Mapping[str, Sequence[str]], n: int) -> dict[str, np.ndarray]:
    """Boolean masks per group value and per pair of values of two group columns.

    ``groups`` maps a column (e.g. ``metaphor_status``, ``language``) to one value per example. Mask
    names are ``_<value>`` (``-`` dropped) for each column's values, and ``_<v1>_<v2>`` for value
    pairs of the first two columns with the second column first (Meta4XNLI: ``_en_met``).
    """
    cols = list(groups)
    arrays = {c: np.asarray(list(groups[c]), dtype=object) for c in cols}
    for c, a in arrays.items():
        if len(a) != n:
            raise ValueError(f"group column {c!r} has {len(a)} values for {n} examples")
    out: dict[str, np.ndarray] = {}
    for c in cols:
        for v in sorted(set(arrays[c])):
            out[f"_{str(v).replace('-', '')}"] = arrays[c] == v
    if len(cols) >= 2:
        first, second = arrays[cols[0]], arrays[cols[1]]
        for v2 in sorted(set(second)):
            for v1 in sorted(set(first)):
                out[f"_{str(v2).replace('-', '')}_{str(v1).replace('-', '')}"] = (second == v2) & (first == v1)
    return {k: m for k, m in out.items() if m.any()}


def group_accuracies(correct: np.ndarray, masks: Mapping[str, np.ndarray],
                     idx: np.ndarray | None = None) -> dict[str, float]:
    """``accuracy<name>`` per mask over the examples at ``idx`` (all by default)."""
    idx = np.arange(len(correct)) if idx is None else idx
    c = correct[idx]
    out = {}
    for name, mask in masks.items():
        m = mask[idx]
        if m.any():
            out[f"accuracy{name}"] = float(c[m].mean())
    return out


def score_labels(gold: Sequence[str], pred: Sequence[str], label_set: Sequence[str], *,
                 groups: Mapping[str, Sequence[str]] | None = None, ids: Sequence[str] | None = None,
                 n_resamples: int = 1000, seed: int = 0, unit: str = "examples") -> Scored:
    """Classification scores with percentile-bootstrap intervals over examples."""
    from figbench.bootstrap import bootstrap_ci

    y_true, y_pred = encode_labels(gold, pred, label_set, ids)
    if len(y_true) == 0:
        raise ValueError("no examples to score")
    k = len(label_set)
    masks = group_masks(groups, len(y_true)) if groups else {}
    correct = (y_true == y_pred).astype(float)
    scores = {**label_statistics(y_true, y_pred, k), **group_accuracies(correct, masks)}

    def stat(idx: np.ndarray) -> dict[str, float]:
        return {**label_statistics(y_true[idx], y_pred[idx], k), **group_accuracies(correct, masks, idx)}

    cis = bootstrap_ci(len(y_true), stat, n_resamples=n_resamples, seed=seed, unit=unit) if n_resamples else {}
    counts = {"examples": float(len(y_true)), "labels": float(k)}
    counts.update({f"n{name}": float(m.sum()) for name, m in masks.items()})
    return Scored(scores, {m: v for m, v in cis.items() if m in scores}, counts)
