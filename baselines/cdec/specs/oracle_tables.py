"""The cdec README tables of the KNN oracle grid, computed from the committed records (``TABLES`` of
:mod:`figbench_baselines.cdec.specs`):

* ``cdec_oracle_recall``: the KNN oracle grid (frozen at 30 and at 15 context words, on raw and on unit
  vectors, vs the triplet-trained bi-encoder at 15 and its WiSE-FT mix, k = 5 / 10 / 20) as one matrix of
  B-cubed recall and gold-pair recall;
* ``cdec_oracle_reading`` / ``cdec_oracle_seeds``: that grid one change at a time (seed 0), and the trained
  and mixed encoders against the frozen one over three seeds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from figbench_baselines.cdec.specs.tables import NOT_MEASURED, _marked, _pct, _record, _split_label, _table
from figbench_baselines.specs import BaselineSpec, get_spec


def oracle_recall_table(specs: Iterable[BaselineSpec], results: Path) -> str:
    """B-cubed recall (gold-pair recall) of the KNN oracle: encoders x k by split."""
    from figbench_baselines.cdec.specs.oracle_grid import ORACLE_KS, ORACLE_SPLITS, oracle_grid_name

    header = ["bi-encoder", "k"] + [_split_label(get_spec(oracle_grid_name("trained", 5, *s))) for s in ORACLE_SPLITS]
    rows = []
    for encoder, label in (("frozen", "frozen MiniLM (30 context words)"),
                           ("frozen15", "frozen MiniLM (15 context words)"),
                           ("frozen15cos", "frozen MiniLM (15 context words, unit vectors: cosine)"),
                           ("trained", "MiniLM + triplet loss on ECB+ train, mixed negatives, selected on "
                                       "ECB+ and META_m validation (15 context words, unit vectors)"),
                           ("wise", "the trained MiniLM interpolated with the frozen one (WiSE-FT), alpha chosen "
                                    "on ECB+ and META_m validation")):
        for k in ORACLE_KS:
            cells = []
            for split in ORACLE_SPLITS:
                rec = _record(oracle_grid_name(encoder, k, *split), results)
                if rec is None:
                    cells.append("-")
                    continue
                s = rec["scores"]
                cells.append(f"**{_pct(s['bcub_recall'])}**{_marked(rec)} ({_pct(s['candidate_gold_pair_recall'])})")
            rows.append((label, str(k), *cells))
    from figbench_baselines.cdec.specs.reference import reference_name

    cells = []
    for split in ORACLE_SPLITS:
        rec = _record(reference_name("singletons", *split), results)
        cells.append("-" if rec is None else f"**{_pct(rec['scores']['bcub_recall'])}** (0.0)")
    rows.append(("reference: all singletons (no candidate pair)", "-", *cells))
    return _table(header, rows)


#: the splits of the one-change table (the seeds table: the two test splits), each followed by the gold-topic rows
_READING_SPLITS = (("ecbplus", "events", "test"), ("ecbmeta", "meta_m", "test"), ("ecbplus", "events", "validation"),
                   ("ecbmeta", "meta_m", "validation"))


def _reading_rows(encoders: tuple[str, ...],
                  splits: tuple[tuple[str, str, str], ...]) -> Iterable[tuple[str, str, dict[str, str]]]:
    """(split label, k, {encoder: spec name}) of every grid cell, then the gold-topic rows (k=5)."""
    from figbench_baselines.cdec.specs.oracle_grid import ORACLE_KS, oracle_grid_name, oracle_topic_name

    for split in splits:
        for k in ORACLE_KS:
            yield (_split_label(get_spec(oracle_grid_name("trained", k, *split))), str(k),
                   {e: oracle_grid_name(e, k, *split) for e in encoders})
    for short in ("ecbplus", "meta_m"):
        names = {e: oracle_topic_name(e, short) for e in encoders}
        yield _split_label(get_spec(names["trained"])) + ", gold topics", "5", names


def _recalls(names: Mapping[str, str], results: Path) -> tuple[dict[str, float], dict[str, str]] | None:
    """B-cubed recall (%) of each encoder's record and the mark of each (test-informed or "")."""
    recs = {e: _record(n, results) for e, n in names.items()}
    if any(r is None for r in recs.values()):
        return None
    return {e: 100 * rec["scores"]["bcub_recall"] for e, rec in recs.items()}, {e: _marked(r) for e, r in recs.items()}


def oracle_reading(specs: Iterable[BaselineSpec], results: Path) -> str:
    """KNN oracle B-cubed recall, one change at a time (seed 0): context words (frozen 30 vs 15), unit
    vectors (frozen at 15 words, L2 vs cosine) and training (frozen vs triplet-trained, both at 15 words
    on unit vectors), per k."""
    rows = []
    encoders = ("frozen", "frozen15", "frozen15cos", "trained")
    for label, k, names in _reading_rows(encoders, _READING_SPLITS):
        got = _recalls(names, results)
        if got is None:
            continue
        r, m = got
        rows.append((label, k, *(f"{r[e]:.1f}{m[e]}" for e in encoders), f"{r['frozen15'] - r['frozen']:+.1f}",
                     f"{r['frozen15cos'] - r['frozen15']:+.1f}",
                     f"**{r['trained'] - r['frozen15cos']:+.1f}**{m['trained']}",
                     f"{r['trained'] - r['frozen15']:+.1f}{m['trained']}"))
    return _table(("split", "k", "frozen, 30 words", "frozen, 15 words", "frozen, 15 words, unit vectors",
                   "trained, 15 words, unit vectors", "context 30 -> 15 (frozen)", "unit vectors (frozen, 15 words)",
                   "training alone (vs frozen, 15 words, unit vectors)",
                   "trained vs frozen at 15 words (training and unit vectors)"), rows)


def oracle_seeds(specs: Iterable[BaselineSpec], results: Path) -> str:
    """The trained and the interpolated (WiSE-FT) bi-encoders against the frozen one at equal context, each
    over three seeds: recall per seed and mean ± sd of the difference, against the frozen encoder on raw
    vectors (L2) and on unit vectors (cosine, the trained encoder's), on the held-out test splits."""

    from figbench_baselines.tables import mean_sd, seed_records

    rows = []
    diffs: dict[tuple[str, str], list[list[float]]] = {}  # (encoder, frozen reference) -> per cell, per seed
    for label, k, names in _reading_rows(("frozen15", "frozen15cos", "trained", "wise"), _READING_SPLITS[:2]):
        got = _recalls(names, results)
        if got is None:
            continue
        r = got[0]
        cells = [f"{r['frozen15']:.1f}", f"{r['frozen15cos']:.1f}"]
        for encoder in ("trained", "wise"):
            seeds = seed_records(names[encoder], results)
            if len(seeds) < 2:
                cells += ["-", "-", "-"]
                continue
            values = [100 * seeds[s]["scores"]["bcub_recall"] for s in sorted(seeds)]
            mark = _marked(*seeds.values())
            cells.append(" / ".join(f"{v:.1f}" for v in values) + mark)
            for ref in ("frozen15", "frozen15cos"):
                d = [v - r[ref] for v in values]
                diffs.setdefault((encoder, ref), []).append((label, d))
                cells.append(f"**{mean_sd(d, signed=True)}**{mark}")
        rows.append((label, k, *cells))
    table = _table(("split", "k", "frozen, 15 words", "frozen, 15 words, unit vectors", "trained, seeds 0 / 1 / 2",
                    "trained - frozen", "trained - frozen, unit vectors", "WiSE-FT, seeds 0 / 1 / 2",
                    "WiSE-FT - frozen", "WiSE-FT - frozen, unit vectors"), rows)
    tally = []
    for encoder, label in (("trained", "trained"), ("wise", "WiSE-FT")):
        for ref, against in (("frozen15", "the frozen encoder"), ("frozen15cos", "the frozen encoder on unit vectors")):
            cells = diffs.get((encoder, ref), [])
            if cells:
                below = sum(x < 0 for _, d in cells for x in d)
                groups = [_gain_verdict(split, [d for lab, d in cells if lab.startswith(split)])
                          for split in ("ECB+ test", "META_m test")]
                tally.append(f"{label} against {against}: " + ", ".join(groups)
                             + f"; single seeds below in {below} of {sum(len(d) for _, d in cells)}")
    return (table + f"\nWiSE-FT's alpha: {wise_alphas(results)}.\n"
            + (f"\nThe target (trained >= frozen at equal context, every test cell; a mean gain no larger than the "
               "largest sample sd of those cells is within one seed's spread: no worse than frozen, not a gain): "
               f"{'; '.join(tally)}.\n" if tally else ""))


def _gain_verdict(split: str, cells: list[list[float]]) -> str:
    """What the per-seed differences of one split's cells (k = 5, 10, 20 and gold topics) show."""
    import statistics

    means = [statistics.mean(d) for d in cells]
    spread = max(statistics.stdev(d) for d in cells)
    span = f"{min(means):+.1f} to {max(means):+.1f}, sd up to {spread:.1f}"
    below = sum(m < 0 for m in means)
    if below:
        return f"{split} below frozen in {below} of {len(cells)} cells ({span})"
    if max(means) <= spread:
        return f"{split} no worse than frozen ({span}: within one seed's spread)"
    return f"{split} at or above frozen in every cell ({span})"


def wise_alphas(results: Path) -> str:
    """Each seed's interpolation weight and its worst validation gain, from the records' provenance."""
    from figbench_baselines.tables import seed_records

    seeds = seed_records("cdec_knn_oracle_wise_k5_meta_m_test", results)
    parts = []
    for seed in sorted(seeds):
        w = seeds[seed]["provenance"]["training"]["biencoder"]["wise_ft"]
        missed = (f"; no alpha met the target on validation, each fell below the frozen encoder in some validation "
                  f"cell, and the chosen one keeps {100 * (1 - w['alpha']):.0f}% frozen weights"
                  if w["worst_gain"] < 0 else "")
        parts.append(f"seed {seed}: alpha {w['alpha']:g}{_marked(seeds[seed])} (worst validation gain "
                     f"{100 * w['worst_gain']:+.1f}{missed})")
    return "; ".join(parts) if parts else NOT_MEASURED
