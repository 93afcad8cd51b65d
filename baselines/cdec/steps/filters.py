"""Candidate-pair filters: same-head-lemma, the Lemma Heuristic (LH) and KNN over mention embeddings.

Mentions are rows of :data:`figbench.schema.COREF_MENTION_FEATURES`. A filter returns candidate
pairs as an int array of shape (P, 2) of row indices with ``i < j``.

Pairs are restricted to mentions of the same ``within`` key (``"topic"`` by default, as the papers
do for ECB+; ``None`` = the whole split) and, as in the ECB+META code's pipeline, pairs of two
mentions in the same sentence of the same document can be dropped (``skip_same_sentence``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
from figbench_baselines.cdec.steps.pipeline_defaults import DEFAULT_LH_THRESHOLD


def _lemma(row: Mapping) -> str:
    return (row.get("head_lemma") or row.get("head") or row.get("text") or "").strip().lower()


def _bar(total: int, desc: str, unit: str, enabled: bool = True):
    """A tqdm bar with an ETA (shown for splits large enough to take seconds)."""
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit=unit, mininterval=1.0, disable=not enabled, unit_scale=True)


def group_index(rows: Sequence[Mapping], within: str | None) -> dict[str, list[int]]:
    """Row indices per ``within`` key (one group holding every row when ``within`` is None)."""
    groups: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(rows):
        if within is None:
            groups[""].append(i)
        else:
            if within not in r:
                raise ValueError(f"mention {r.get('mention_id', i)!r} has no field {within!r} to group pairs by")
            groups[str(r[within])].append(i)
    return groups


def group_labels(rows: Sequence[Mapping], within: str | None) -> np.ndarray:
    """The group of each row as an integer label (0 for every row when ``within`` is None): the
    clustering's ``groups``."""
    if within is None:
        return np.zeros(len(rows), dtype=np.int64)
    keys: dict[str, int] = {}
    return np.array([keys.setdefault(str(r[within]), len(keys)) for r in rows])


def _as_pairs(pairs: Iterable[tuple[int, int]]) -> np.ndarray:
    arr = np.array(sorted({(min(a, b), max(a, b)) for a, b in pairs if a != b}), dtype=np.int64)
    return arr.reshape(-1, 2)


def _sentence_key(row: Mapping) -> tuple[str, int]:
    return (str(row["doc_id"]), int(row["sentence_id"]))


def _drop_same_sentence(rows: Sequence[Mapping], pairs: np.ndarray) -> np.ndarray:
    if not len(pairs):
        return pairs
    keys = [_sentence_key(r) for r in rows]
    keep = np.array([keys[a] != keys[b] for a, b in pairs.tolist()], dtype=bool)
    return pairs[keep]


def same_lemma_pairs(rows: Sequence[Mapping], within: str | None = "topic",
                     skip_same_sentence: bool = False) -> np.ndarray:
    """All pairs of mentions (in the same ``within`` group) whose head lemmas are equal."""
    buckets: dict[tuple[str, str], list[int]] = defaultdict(list)
    for g, idx in group_index(rows, within).items():
        for i in idx:
            buckets[(g, _lemma(rows[i]))].append(i)
    pairs = [(a, b) for members in buckets.values() for k, a in enumerate(members) for b in members[k + 1:]]
    out = _as_pairs(pairs)
    return _drop_same_sentence(rows, out) if skip_same_sentence else out


def same_lemma_labels(rows: Sequence[Mapping], within: str | None = "topic") -> np.ndarray:
    """Cluster label per mention: one cluster per (group, head lemma) (the WEC paper's lemma baseline)."""
    keys: dict[tuple[str, str], int] = {}
    labels = np.empty(len(rows), dtype=np.int64)
    for g, idx in group_index(rows, within).items():
        for i in idx:
            labels[i] = keys.setdefault((g, _lemma(rows[i])), len(keys))
    return labels


def synonymous_lemma_pairs(train_rows: Iterable[Mapping]) -> set[tuple[str, str]]:
    """Sorted pairs of distinct head lemmas that occur in one gold cluster of the training rows."""
    lemmas: dict[str, set[str]] = defaultdict(set)
    for r in train_rows:
        cid = r.get("cluster_id")
        if cid in (None, ""):
            raise ValueError(f"training mention {r.get('mention_id')!r} has no gold cluster_id; "
                             "LH needs a training split with gold clusters")
        lemmas[str(cid)].add(_lemma(r))
    out: set[tuple[str, str]] = set()
    for ls in lemmas.values():
        ordered = sorted(ls)
        for k, a in enumerate(ordered):
            for b in ordered[k + 1:]:
                out.add((a, b))
    return out


def jaccard(a: set, b: set) -> float:
    union = len(a | b)
    return len(a & b) / union if union else 0.0


#: how LH represents a sentence for its Jaccard condition (``--lh-sentence-tokens``)
SENTENCE_TOKENS = ("all", "content_lemmas")
#: pronouns the ECB+META code keeps among the content lemmas (``parse_ecb.py``)
_KEPT_PRONOUNS = frozenset({"he", "she", "his", "him", "her"})


def sentence_token_set(tokens: Iterable[str], mode: str = "all") -> frozenset[str]:
    """The set a sentence enters LH's Jaccard overlap as.

    ``"all"``: its lower-cased tokens (figbench's default). ``"content_lemmas"``: as the ECB+META
    code (``llms_coref`` ``parse_ecb.py``, ``sentence_tokens``): lower-cased lemmas of the tokens that
    are neither spaCy stop words nor punctuation, plus the pronouns he/she/his/him/her; the lemmas
    are spaCy's English lookup lemmas (:mod:`figbench.corpora.lemmas`) where the code ran
    ``en_core_web_lg``.
    """
    if mode == "all":
        return frozenset(t.lower() for t in tokens)
    if mode != "content_lemmas":
        raise ValueError(f"unknown sentence token mode {mode!r}; choose from {SENTENCE_TOKENS}")
    import string

    from figbench.imports import spacy as import_spacy

    import_spacy()   # spaCy without thinc's torch import (figbench.imports)
    from spacy.lang.en.stop_words import STOP_WORDS

    from figbench.corpora.lemmas import lookup_lemma

    out = set()
    for t in tokens:
        lemma = lookup_lemma(t)
        punct = all(c in string.punctuation for c in t)
        if not (t.lower() in STOP_WORDS or punct) or lemma in _KEPT_PRONOUNS:
            out.add(lemma)
    return frozenset(out)


def lh_pairs(rows: Sequence[Mapping], syn_pairs: set[tuple[str, str]], threshold: float = DEFAULT_LH_THRESHOLD,
             within: str | None = "topic", skip_same_sentence: bool = True,
             sentence_tokens: str = "all") -> np.ndarray:
    """Lemma Heuristic (Ahmed et al. 2023) candidate pairs.

    A pair passes when (a) one head lemma occurs in the other mention's text, or one lemma contains
    the other, or the sorted lemma pair is in ``syn_pairs`` (lemmas seen coreferent in training), and
    (b) the Jaccard overlap of the two sentences' token sets (:func:`sentence_token_set`) is above
    ``threshold``.
    """
    lemmas = [_lemma(r) for r in rows]
    texts = [str(r.get("text", "")).lower() for r in rows]
    cache: dict[tuple[str, ...], frozenset[str]] = {}
    sents = []
    for r in rows:
        key = tuple(r.get("sentence") or ())
        if key not in cache:
            cache[key] = sentence_token_set(key, sentence_tokens)
        sents.append(cache[key])
    sent_keys = [_sentence_key(r) for r in rows] if skip_same_sentence else None
    pairs: list[tuple[int, int]] = []
    groups = list(group_index(rows, within).values())
    weight = [len(g) * (len(g) - 1) // 2 for g in groups]
    bar = _bar(sum(weight), "LH filter", "pair", enabled=len(rows) >= 1000)
    for idx, w in zip(groups, weight):
        bar.update(w)
        for k, i in enumerate(idx):
            li, ti, si = lemmas[i], texts[i], sents[i]
            for j in idx[k + 1:]:
                lj = lemmas[j]
                lemma_ok = (bool(li and lj) and (li in texts[j] or lj in ti or li in lj or lj in li)
                            or ((li, lj) if li < lj else (lj, li)) in syn_pairs)
                if not lemma_ok:
                    continue
                if sent_keys is not None and sent_keys[i] == sent_keys[j]:
                    continue
                if jaccard(si, sents[j]) > threshold:
                    pairs.append((i, j))
    bar.close()
    return _as_pairs(pairs)


def knn_pairs(embeddings: np.ndarray, k: int = 5, rows: Sequence[Mapping] | None = None,
              within: str | None = None, index: str = "flat", nprobe: int = 16,
              hnsw_m: int = 32, normalize: bool = False) -> np.ndarray:
    """Top-``k`` nearest neighbours of every mention (FAISS, L2) as candidate pairs.

    ``index``: ``"flat"`` (exact), ``"hnsw"`` or ``"ivf"`` (approximate). With ``within`` (and
    ``rows``) neighbours are searched inside each group only.
    """
    from figbench_baselines.cdec.steps.faiss_index import search

    x = np.ascontiguousarray(np.asarray(embeddings, dtype=np.float32))
    if x.ndim != 2 or len(x) == 0:
        raise ValueError("knn_pairs needs a non-empty 2-D embedding matrix")
    if normalize:
        x = x / np.clip(np.linalg.norm(x, axis=1, keepdims=True), 1e-12, None)
    groups = group_index(rows, within) if (within and rows is not None) else {"": list(range(len(x)))}
    out: list[tuple[int, int]] = []
    bar = _bar(len(x), f"KNN search (k={k})", "mention", enabled=len(x) >= 1000)
    for idx in groups.values():
        bar.update(len(idx))
        idx_arr = np.asarray(idx)
        kk = min(k + 1, len(idx_arr))
        if kk < 2:
            continue
        _, nbrs = search(x[idx_arr], x[idx_arr], kk, index=index, nprobe=nprobe, hnsw_m=hnsw_m)
        for a, row in enumerate(nbrs):
            for b in row:
                if b >= 0 and b != a:
                    out.append((int(idx_arr[a]), int(idx_arr[b])))
    bar.close()
    return _as_pairs(out)


def gold_pair_labels(rows: Sequence[Mapping], pairs: np.ndarray) -> np.ndarray:
    """1.0 where both mentions of a pair share a gold cluster, else 0.0."""
    cids = [r.get("cluster_id") for r in rows]
    return np.array([float(cids[a] not in (None, "") and cids[a] == cids[b]) for a, b in pairs.tolist()])
