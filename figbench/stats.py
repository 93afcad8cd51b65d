"""Corpus statistics for ``figbench data stats``.

Every function takes a :class:`datasets.Dataset` or any iterable of row dicts, so it runs the same
on a loaded corpus and on a hand-written fixture.

Coreference statistics follow Table 1 of the WEC paper (Eirew et al., 2021):

* *ambiguity*: the average, over distinct (topic, head lemma) pairs, of the number of gold
  clusters of that topic whose mentions carry that lemma (``ambiguity_global`` ignores topics;
  the two agree on WEC-Eng, which has one topic; the per-topic value reproduces the published
  ECB+ 1.4, the global one gives 1.8-2.4 on ECB+);
* *diversity*: the average, over non-singleton clusters, of the number of distinct head lemmas;

and the ECB+META paper's lexical diversity of triggers: MTLD (``lexicalrichness``, threshold
0.72) of the concatenated trigger texts of each non-singleton cluster, averaged weighted by
cluster size. A cluster whose triggers hold no word (MTLD undefined) is left out and counted.

``mtld_paper`` is the variant the ECB+META paper's script computes (``lexical_diversity``'s
``lex_div.mtld``): lower-cased whitespace tokens of each non-singleton cluster, a factor closes only
once it is at least 10 tokens long, forward and reverse passes averaged, clusters weighted by their
token count. That package no longer imports with current setuptools, so figbench implements the
same definition in :func:`mtld_min_factor`.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

#: columns that make a dataset a coreference mention table
COREF_COLUMNS = ("mention_id", "cluster_id", "head_lemma", "text", "doc_id", "topic")
#: columns of a coreference ``documents`` config
DOCUMENT_COLUMNS = ("doc_id", "topic", "tokens", "sentence_ids")
MTLD_THRESHOLD = 0.72

#: Published values (corpus, config, split) -> statistic -> value, shown next to measured ones.
#: WEC paper Table 1 (ambiguity / diversity), ECB+META paper (MTLD), the issue's counts.
PUBLISHED: dict[tuple[str, str, str], dict[str, float | str]] = {
    ("ecbplus", "events", "train"): {"mentions": 3808, "clusters": 1527, "non_singleton_clusters": 411,
                                     "documents": 574, "ambiguity": 1.4, "diversity": "2.2-2.3"},
    ("ecbplus", "events", "validation"): {"mentions": 1245, "clusters": 409, "non_singleton_clusters": 129,
                                          "documents": 196, "ambiguity": 1.4, "diversity": "2.2-2.3"},
    ("ecbplus", "events", "test"): {"mentions": 1780, "clusters": 805, "non_singleton_clusters": 182,
                                    "documents": 206, "ambiguity": 1.4, "diversity": "2.2-2.3", "mtld_paper": 7.33},
    ("ecbmeta", "meta_1", "test"): {"mtld_paper": 11.92},
    ("ecbmeta", "meta_m", "validation"): {"mentions": 1241, "clusters": 407, "documents": 196},
    ("ecbmeta", "meta_m", "test"): {"mentions": 1777, "clusters": 803, "documents": 206, "mtld_paper": 26.48},
    ("wec_eng", "events", "train"): {"mentions": 40529, "clusters": 7042},
    ("wec_eng", "events", "validation"): {"mentions": 1250, "clusters": 233, "ambiguity": 2.7, "diversity": 1.7},
    ("wec_eng", "events", "test"): {"mentions": 1893, "clusters": 322, "ambiguity": 2.6, "diversity": 1.9},
}


def _columns(rows: Any, names: Sequence[str]) -> dict[str, list]:
    """The named columns of a Dataset (read column-wise) or of an iterable of row dicts."""
    if hasattr(rows, "column_names") and hasattr(rows, "select_columns"):
        missing = [n for n in names if n not in rows.column_names]
        if missing:
            raise ValueError(f"dataset lacks column(s) {missing}; it has {rows.column_names}")
        return {n: list(rows[n]) for n in names}
    rows = list(rows)
    out: dict[str, list] = {n: [] for n in names}
    for i, r in enumerate(rows):
        for n in names:
            if n not in r:
                raise ValueError(f"row {i} ({r.get('mention_id', r.get('doc_id', '?'))!r}) lacks field {n!r}")
            out[n].append(r[n])
    return out


def column_names(rows: Any) -> list[str]:
    if hasattr(rows, "column_names"):
        return list(rows.column_names)
    rows = list(rows) if not isinstance(rows, list) else rows
    return list(rows[0]) if rows else []


def is_coref(rows: Any) -> bool:
    return set(COREF_COLUMNS) <= set(column_names(rows))


def is_coref_documents(rows: Any) -> bool:
    names = set(column_names(rows))
    return set(DOCUMENT_COLUMNS) <= names and "mention_id" not in names


def clusters_of(cluster_ids: Iterable[str], values: Iterable[Any]) -> dict[str, list]:
    """Group ``values`` by cluster id, in first-seen order."""
    groups: dict[str, list] = defaultdict(list)
    for cid, v in zip(cluster_ids, values, strict=True):
        groups[str(cid)].append(v)
    return dict(groups)


def ambiguity(head_lemmas: Sequence[str], cluster_ids: Sequence[str], topics: Sequence[str] | None = None) -> float:
    """Average number of distinct clusters a head lemma occurs in.

    With ``topics``, lemmas are counted per topic: the average over (topic, lemma) pairs of the
    clusters of that topic with that lemma. This is how the WEC paper's Table 1 values come out
    (ECB+ 1.4, evaluated within topics; WEC-Eng, one topic per split, 2.7 / 2.6).
    """
    keys = zip(topics, head_lemmas, strict=True) if topics is not None else ((None, lem) for lem in head_lemmas)
    per_lemma: dict[tuple, set[str]] = defaultdict(set)
    for key, cid in zip(keys, cluster_ids, strict=True):
        per_lemma[key].add(str(cid))
    if not per_lemma:
        return float("nan")
    return sum(len(c) for c in per_lemma.values()) / len(per_lemma)


def diversity(head_lemmas: Sequence[str], cluster_ids: Sequence[str]) -> float:
    """Average number of distinct head lemmas in a non-singleton cluster."""
    groups = [g for g in clusters_of(cluster_ids, head_lemmas).values() if len(g) > 1]
    if not groups:
        return float("nan")
    return sum(len(set(g)) for g in groups) / len(groups)


def mtld_of(text: str, threshold: float = MTLD_THRESHOLD) -> float | None:
    """MTLD of a text with ``lexicalrichness``; None when the text has no word."""
    from lexicalrichness import LexicalRichness

    lex = LexicalRichness(text)
    if lex.words == 0:
        return None
    return float(lex.mtld(threshold=threshold))


def mtld_min_factor(tokens: Sequence[str], threshold: float = MTLD_THRESHOLD, min_factor: int = 10) -> float:
    """MTLD with a minimum factor length, forward and reverse averaged (0 when no factor closes).

    A factor ends at the first token where its type-token ratio drops below ``threshold`` and it
    holds at least ``min_factor`` tokens; the final stretch counts as the partial factor
    ``(1 - TTR) / (1 - threshold)``. MTLD = tokens in factors / factors.
    """

    def one_pass(seq: Sequence[str]) -> float:
        factors, factor_tokens, start = 0.0, 0, 0
        types: set[str] = set()
        for i, tok in enumerate(seq):
            types.add(tok)
            length = i + 1 - start
            ttr = len(types) / length
            if i + 1 == len(seq):
                factors += (1 - ttr) / (1 - threshold)
                factor_tokens += length
            elif ttr < threshold and length >= min_factor:
                factors += 1
                factor_tokens += length
                start, types = i + 1, set()
        return factor_tokens / factors if factors else 0.0

    seq = list(tokens)
    return (one_pass(seq) + one_pass(seq[::-1])) / 2


def trigger_mtld_paper(texts: Sequence[str], cluster_ids: Sequence[str]) -> float:
    """The ECB+META paper's trigger MTLD: :func:`mtld_min_factor` per non-singleton cluster over its
    lower-cased whitespace tokens, averaged weighted by the cluster's token count."""
    total, weight = 0.0, 0
    for g in clusters_of(cluster_ids, texts).values():
        if len(g) < 2:
            continue
        tokens = [t for text in g for t in str(text).strip().lower().split()]
        total += mtld_min_factor(tokens) * len(tokens)
        weight += len(tokens)
    return total / weight if weight else float("nan")


def trigger_mtld(texts: Sequence[str], cluster_ids: Sequence[str], *, threshold: float = MTLD_THRESHOLD,
                 progress: bool = True) -> dict[str, float | int]:
    """Size-weighted mean MTLD of the concatenated triggers of each non-singleton cluster.

    Returns ``{"mtld": value, "mtld_clusters": clusters used, "mtld_undefined": clusters left out}``.
    """
    import lexicalrichness  # noqa: F401  (slow first import: before the progress bar starts)
    from tqdm.auto import tqdm

    groups = [g for g in clusters_of(cluster_ids, texts).values() if len(g) > 1]
    total, weight, undefined = 0.0, 0, 0
    for g in tqdm(groups, desc="MTLD", unit="cluster", disable=not progress or len(groups) < 200, leave=False):
        value = mtld_of(" ".join(str(t) for t in g), threshold)
        if value is None:
            undefined += 1
            continue
        total += value * len(g)
        weight += len(g)
    return {"mtld": total / weight if weight else float("nan"), "mtld_clusters": len(groups) - undefined,
            "mtld_undefined": undefined}


def coref_stats(rows: Any, *, mtld: bool = True, progress: bool = True) -> dict[str, float | int]:
    """Counts, ambiguity, diversity and trigger MTLD of a coreference mention table."""
    cols = _columns(rows, COREF_COLUMNS)
    cids = [str(c) for c in cols["cluster_id"]]
    sizes = Counter(cids)
    ids = cols["mention_id"]
    if len(set(ids)) != len(ids):
        dup = next(m for m, n in Counter(ids).items() if n > 1)
        raise ValueError(f"duplicate mention_id {dup!r}: statistics need unique mentions")
    out: dict[str, float | int] = {
        "mentions": len(ids),
        "clusters": len(sizes),
        "non_singleton_clusters": sum(1 for n in sizes.values() if n > 1),
        "singletons": sum(1 for n in sizes.values() if n == 1),
        "documents": len(set(cols["doc_id"])),
        "topics": len(set(cols["topic"])),
        "head_lemmas": len(set(cols["head_lemma"])),
        "ambiguity": ambiguity(cols["head_lemma"], cids, [str(t) for t in cols["topic"]]),
        "ambiguity_global": ambiguity(cols["head_lemma"], cids),
        "diversity": diversity(cols["head_lemma"], cids),
    }
    if mtld:
        out.update(trigger_mtld(cols["text"], cids, progress=progress))
        out["mtld_paper"] = trigger_mtld_paper(cols["text"], cids)
    return out


def document_stats(rows: Any) -> dict[str, int]:
    """Counts of a coreference ``documents`` config."""
    cols = _columns(rows, DOCUMENT_COLUMNS)
    return {
        "documents": len(cols["doc_id"]),
        "topics": len(set(cols["topic"])),
        "tokens": sum(len(t) for t in cols["tokens"]),
        "sentences": sum(len(set(s)) for s in cols["sentence_ids"]),
    }


_TEXT_COLUMNS = ("text", "sentence", "premise", "hypothesis", "narrative", "proverb", "context")
_TOKEN_COLUMNS = ("tokens", "words")
_MAX_LABELS = 30


def _feature_kind(features: Mapping | None, name: str) -> str:
    """'label', 'label_seq', 'str', 'str_seq' or 'other' for a column."""
    if features is None or name not in features:
        return "unknown"
    import datasets

    f = features[name]
    if isinstance(f, datasets.ClassLabel):
        return "label"
    inner = getattr(f, "feature", None)
    if inner is not None:  # Sequence / List feature
        if isinstance(inner, datasets.ClassLabel):
            return "label_seq"
        if isinstance(inner, datasets.Value) and inner.dtype in ("string", "large_string"):
            return "str_seq"
        return "other"
    if isinstance(f, datasets.Value) and f.dtype in ("string", "large_string"):
        return "str"
    return "other"


def generic_stats(rows: Any) -> dict[str, Any]:
    """Examples, tokens and label/tag counts of a non-coreference dataset.

    Label counts: ClassLabel columns, sequences of ClassLabel (tags), string sequences named
    ``*tags``/``labels``, and string columns with at most 30 distinct values (labels, genres...);
    a label column with more distinct values is summarised under ``label_summary``.
    """
    features = getattr(rows, "features", None)
    names = column_names(rows)
    if features is None:
        rows = list(rows)
    n = len(rows)
    out: dict[str, Any] = {"examples": n}

    def col(name: str) -> list:
        return list(rows[name]) if features is not None else [r.get(name) for r in rows]

    token_col = next((c for c in _TOKEN_COLUMNS if c in names), None)
    if token_col is not None:
        out["tokens"] = sum(len(t or []) for t in col(token_col))
    else:
        text_cols = [c for c in _TEXT_COLUMNS if c in names]
        if text_cols:
            out["tokens"] = sum(len(str(v or "").split()) for c in text_cols for v in col(c)
                                if isinstance(v, str) or v is None)
    labels: dict[str, dict[str, int]] = {}
    summary: dict[str, dict[str, int]] = {}
    for name in names:
        counts = _label_counts(name, _feature_kind(features, name), features, col, n)
        if counts is None:
            continue
        if len(counts) > _MAX_LABELS:  # e.g. 250 proverbs: summarise instead of listing
            summary[name] = {"distinct": len(counts), "min": min(counts.values()), "max": max(counts.values())}
            continue
        labels[name] = dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    if labels:
        out["labels"] = labels
    if summary:
        out["label_summary"] = summary
    return out


def _label_counts(name: str, kind: str, features: Any, col, n: int) -> Counter | None:
    """Value counts of a label-like column (see :func:`generic_stats`), or None for a column that is not one."""
    if kind == "label":
        feat = features[name]
        return Counter(feat.int2str(v) if isinstance(v, int) and v >= 0 else str(v) for v in col(name))
    if kind == "label_seq":
        feat = features[name].feature
        return Counter(feat.int2str(v) for seq in col(name) for v in seq)
    if kind in ("str_seq", "unknown") and (name.endswith("tags") or name == "labels"):
        values = col(name)
        if not values or not all(isinstance(v, list) for v in values):
            return None
        return Counter(str(v) for seq in values for v in seq)
    if kind in ("str", "unknown") and not name.endswith("id") and name not in _TEXT_COLUMNS:
        values = col(name)
        if not values or not all(isinstance(v, str) for v in values):
            return None
        counts = Counter(values)
        label_like = name in ("label", "labels") or name.endswith("label")
        if not label_like and (len(counts) > _MAX_LABELS or len(counts) == n > 1):
            return None
        return counts
    return None


def split_stats(rows: Any, *, mtld: bool = True, progress: bool = True) -> dict[str, Any]:
    """The statistics that fit a split: coreference mentions, coreference documents, or generic."""
    if is_coref(rows):
        return coref_stats(rows, mtld=mtld, progress=progress)
    if is_coref_documents(rows):
        return document_stats(rows)
    return generic_stats(rows)


def dataset_stats(dataset: Any, *, mtld: bool = True, progress: bool = True) -> dict[str, dict[str, Any]]:
    """Statistics of every split of a DatasetDict (or ``{"all": ...}`` for a single Dataset or rows)."""
    if isinstance(dataset, Mapping):
        return {str(s): split_stats(dataset[s], mtld=mtld, progress=progress) for s in dataset}
    return {"all": split_stats(dataset, mtld=mtld, progress=progress)}


def published(name: str, config: str | None, split: str) -> dict[str, float | str]:
    """Published values for a corpus split (empty when none are known)."""
    return dict(PUBLISHED.get((name, config or "", split), {}))
