"""Generated text against references: corpus BLEU (sacrebleu) and mean ROUGE-L F1 (rouge-score)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from figbench.scoring import Scored


def text_unit_stats(hyps: Sequence[str], refs: Sequence[str]):
    """Per-example BLEU sufficient statistics and ROUGE-L F1 (for corpus scores and the bootstrap)."""
    from rouge_score import rouge_scorer
    from sacrebleu.metrics import BLEU

    if len(hyps) != len(refs):
        raise ValueError(f"{len(hyps)} generated texts for {len(refs)} references")
    bleu = BLEU()
    stats = np.asarray(bleu._extract_corpus_statistics(list(hyps), [list(refs)]), dtype=np.int64)
    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)
    rouge = np.array([scorer.score(r, h)["rougeL"].fmeasure for h, r in zip(hyps, refs)])
    return bleu, stats, rouge


def text_scores(bleu, stats: np.ndarray, rouge: np.ndarray, idx: np.ndarray | None = None) -> dict[str, float]:
    """Corpus BLEU (as a fraction) and mean ROUGE-L F1 over the examples at ``idx``."""
    idx = np.arange(len(rouge)) if idx is None else idx
    b = bleu._compute_score_from_stats(list(stats[idx].sum(0))).score / 100.0
    return {"bleu": float(b), "rougeL": float(rouge[idx].mean())}


def score_generation(refs: Sequence[str], hyps: Sequence[str], *, n_resamples: int = 1000, seed: int = 0,
                     unit: str = "examples") -> Scored:
    from figbench.bootstrap import bootstrap_ci

    bleu, stats, rouge = text_unit_stats(hyps, refs)
    if len(rouge) == 0:
        raise ValueError("no examples to score")
    cis = bootstrap_ci(len(rouge), lambda idx: text_scores(bleu, stats, rouge, idx), n_resamples=n_resamples,
                       seed=seed, unit=unit) if n_resamples else {}
    return Scored(text_scores(bleu, stats, rouge), cis, {"examples": float(len(rouge))})
