"""Coreference scores equal to the CoNLL reference scorer v8.01 (``scorer.pl all``), plus LEA.

Input: ``predictions`` and ``references`` are lists of documents; a document is a list of clusters;
a cluster is a list of mention ids (strings). For cross-document coreference the whole corpus is one
document. Mentions are matched by id (exact match).

Metrics (all fractions in [0, 1]):

* ``mentions_*``: mention detection (exact id match).
* ``muc_*`` (Vilain et al. 1995), ``bcub_*`` (Bagga & Baldwin 1998), ``ceafm_*`` / ``ceafe_*``
  (Luo 2005, phi3 / phi4 with an optimal alignment), ``blanc_*`` (predicted-mention BLANC of Luo,
  Pradhan, Recasens & Hovy 2014): exactly as the reference scorer v8.01 computes them, including
  twinless mentions (key only or response only) and singletons; numerators and denominators are
  summed over documents (BLANC: its link counts are summed, then combined as the scorer does).
* ``lea_*`` (Moosavi & Strube 2016): importance = cluster size, resolution = fraction of a cluster's
  links found in the other side; a singleton has one self-link, resolved when the other side has the
  same singleton (as in the authors' implementation).
* ``conll_f1``: mean of MUC, B-cubed and CEAF-e F1.

A zero denominator scores 0, as in the reference scorer. Everything is computed from cluster overlap
counts (memory linear in mentions); CEAF uses ``scipy.optimize.linear_sum_assignment`` on the
overlap matrix of each connected group of overlapping clusters (a sparse LAPJV matching for very
large groups).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from figbench.schema import Document

#: Score keys returned by :func:`evaluate_coref`, in order.
METRICS = ("mentions", "muc", "bcub", "ceafm", "ceafe", "blanc", "lea")
SCORE_KEYS = tuple(f"{m}_{p}" for m in METRICS for p in ("recall", "precision", "f1")) + ("conll_f1",)

#: Additive count fields of one document (or one group of clusters); see :func:`_finalize_counts`.
RAW_FIELDS = (
    "mention_match", "key_mentions", "resp_mentions",
    "muc_num", "muc_key_links", "muc_resp_links",
    "bcub_rnum", "bcub_pnum",
    "ceafm_num", "ceafe_num", "key_clusters", "resp_clusters",
    "lea_rnum", "lea_pnum",
    "blanc_cl_isect", "blanc_key_cl", "blanc_resp_cl", "blanc_key_matched_pairs", "blanc_resp_matched_pairs",
)
#: Document-level count fields; these add up across documents.
DOC_FIELDS = RAW_FIELDS[:-2] + ("blanc_ncl_isect", "blanc_key_ncl", "blanc_resp_ncl")
_R = {name: i for i, name in enumerate(RAW_FIELDS)}
_D = {name: i for i, name in enumerate(DOC_FIELDS)}

#: Components with more key x response clusters than this use a sparse matching instead of a dense one.
_DENSE_LIMIT = 250_000


# --------------------------------------------------------------------------------------------------
# input checking and flattening


@dataclass
class _Flat:
    """All documents of one evaluation, flattened to integer arrays."""

    names: list[str]
    n_docs: int
    k_size: np.ndarray     # key cluster -> size
    k_doc: np.ndarray      # key cluster -> document
    r_size: np.ndarray     # response cluster -> size
    r_doc: np.ndarray      # response cluster -> document
    edge_k: np.ndarray     # overlap edge -> key cluster
    edge_r: np.ndarray     # overlap edge -> response cluster
    edge_n: np.ndarray     # overlap edge -> number of shared mentions
    k_single_matched_single: np.ndarray  # key singleton whose mention is a response singleton (bool per key cluster)
    r_single_matched_single: np.ndarray  # same, per response cluster


def _doc_name(names: Sequence[str] | None, i: int) -> str:
    return names[i] if names is not None else f"document {i}"


def _check_document(doc, side: str, name: str) -> list[list[str]]:
    if isinstance(doc, (str, bytes)) or not isinstance(doc, Sequence):
        raise ValueError(f"{side} {name}: a document must be a list of clusters, got {type(doc).__name__}")
    clusters = []
    for ci, cluster in enumerate(doc):
        if isinstance(cluster, (str, bytes)) or not isinstance(cluster, Sequence):
            raise ValueError(f"{side} {name}, cluster {ci}: a cluster must be a list of mention ids, "
                             f"got {type(cluster).__name__}")
        for m in cluster:
            if not isinstance(m, str):
                raise ValueError(f"{side} {name}, cluster {ci}: mention ids must be strings, got {m!r} "
                                 f"({type(m).__name__})")
        if len(cluster):
            clusters.append(list(cluster))
    return clusters


def check_documents(predictions, references) -> None:
    """Check the input shape and id types only (for wrappers that convert inputs before scoring)."""
    for label, side, docs in (("predictions", "prediction", predictions), ("references", "reference", references)):
        if isinstance(docs, (str, bytes)) or not isinstance(docs, Sequence):
            raise ValueError(f"{label} must be a list of documents, got {type(docs).__name__}")
        for i, doc in enumerate(docs):
            _check_document(doc, side, f"document {i}")


def _duplicate_error(clusters: list[list[str]], side: str, name: str) -> ValueError:
    seen: dict[str, int] = {}
    for ci, cluster in enumerate(clusters):
        for m in cluster:
            if m in seen:
                where = "twice in cluster" if seen[m] == ci else f"in clusters {seen[m]} and"
                return ValueError(f"{side} {name}: duplicate mention {m!r} ({where} {ci}); "
                                  "each mention may appear only once per side")
            seen[m] = ci
    return ValueError(f"{side} {name}: duplicate mentions")


def _flatten(predictions, references, *, remove_singletons: bool, names: Sequence[str] | None) -> _Flat:
    for label, value in (("predictions", predictions), ("references", references)):
        if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
            raise ValueError(f"{label} must be a list of documents, got {type(value).__name__}")
    if len(predictions) == 0 or len(references) == 0:
        raise ValueError(f"empty input: {len(predictions)} predicted and {len(references)} reference documents")
    if len(predictions) != len(references):
        raise ValueError(f"mismatched lengths: {len(predictions)} predicted documents but "
                         f"{len(references)} reference documents")
    if names is not None and len(names) != len(references):
        raise ValueError("names must have one entry per document")

    k_sizes: list[int] = []
    k_docs: list[int] = []
    r_sizes: list[int] = []
    r_docs: list[int] = []
    e_k: list[np.ndarray] = []
    e_r: list[np.ndarray] = []
    k_base = r_base = 0
    for d, (pred, ref) in enumerate(zip(predictions, references)):
        name = _doc_name(names, d)
        key = _check_document(ref, "reference", name)
        resp = _check_document(pred, "prediction", name)
        if remove_singletons:
            key = [c for c in key if len(c) > 1]
            resp = [c for c in resp if len(c) > 1]
        key_of: dict[str, int] = {}
        n_key = 0
        for ci, cluster in enumerate(key):
            for m in cluster:
                key_of[m] = k_base + ci
            n_key += len(cluster)
        if len(key_of) != n_key:
            raise _duplicate_error(key, "reference", name)
        seen: set[str] = set()
        n_resp = 0
        for ci, cluster in enumerate(resp):
            seen.update(cluster)
            n_resp += len(cluster)
            matched = [key_of[m] for m in cluster if m in key_of]
            if matched:
                e_k.append(np.asarray(matched, dtype=np.int64))
                e_r.append(np.full(len(matched), r_base + ci, dtype=np.int64))
        if len(seen) != n_resp:
            raise _duplicate_error(resp, "prediction", name)
        k_sizes.extend(len(c) for c in key)
        r_sizes.extend(len(c) for c in resp)
        k_docs.extend([d] * len(key))
        r_docs.extend([d] * len(resp))
        k_base += len(key)
        r_base += len(resp)

    k_size = np.asarray(k_sizes, dtype=np.int64)
    r_size = np.asarray(r_sizes, dtype=np.int64)
    if k_size.sum() == 0:
        which = ", ".join(_doc_name(names, d) for d in range(len(references))[:5])
        more = "" if len(references) <= 5 else f" and {len(references) - 5} more"
        raise ValueError(f"no key (reference) mentions in {which}{more}"
                         + (" after removing singletons" if remove_singletons else "")
                         + ": recall is undefined")
    if e_k:
        mk = np.concatenate(e_k)
        mr = np.concatenate(e_r)
        n_r = max(len(r_size), 1)
        codes, counts = np.unique(mk * n_r + mr, return_counts=True)
        edge_k, edge_r, edge_n = codes // n_r, codes % n_r, counts.astype(np.int64)
    else:
        edge_k = edge_r = edge_n = np.zeros(0, dtype=np.int64)
    # singleton matched to singleton (LEA self-links)
    both_single = (k_size[edge_k] == 1) & (r_size[edge_r] == 1)
    k_ss = np.zeros(len(k_size), dtype=bool)
    r_ss = np.zeros(len(r_size), dtype=bool)
    k_ss[edge_k[both_single]] = True
    r_ss[edge_r[both_single]] = True
    return _Flat(
        names=[_doc_name(names, d) for d in range(len(references))], n_docs=len(references),
        k_size=k_size, k_doc=np.asarray(k_docs, dtype=np.int64),
        r_size=r_size, r_doc=np.asarray(r_docs, dtype=np.int64),
        edge_k=edge_k, edge_r=edge_r, edge_n=edge_n,
        k_single_matched_single=k_ss, r_single_matched_single=r_ss,
    )


# --------------------------------------------------------------------------------------------------
# counts


def _pairs(n: np.ndarray) -> np.ndarray:
    n = np.asarray(n, dtype=np.float64)
    return n * (n - 1) / 2


def _components(flat: _Flat) -> tuple[np.ndarray, np.ndarray, int]:
    """Connected components of the bipartite key/response overlap graph: labels of key and response clusters."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    nk, nr = len(flat.k_size), len(flat.r_size)
    n = nk + nr
    graph = coo_matrix((np.ones(len(flat.edge_k)), (flat.edge_k, nk + flat.edge_r)), shape=(n, n))
    n_comp, labels = connected_components(graph, directed=False)
    return labels[:nk], labels[nk:], n_comp


def _ceaf_matching(flat: _Flat, k_comp: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Optimal one-to-one alignment of key and response clusters maximising ``weights`` (one per edge).

    Returns the weight each edge contributes (0 for edges outside the alignment). The problem
    decomposes over connected components; components with one cluster on a side take their best edge.
    """
    from scipy.optimize import linear_sum_assignment

    contrib = np.zeros(len(weights), dtype=np.float64)
    if len(weights) == 0:
        return contrib
    comp = k_comp[flat.edge_k]
    order = np.lexsort((-weights, comp))
    comp_sorted = comp[order]
    starts = np.flatnonzero(np.r_[True, comp_sorted[1:] != comp_sorted[:-1]])
    ends = np.r_[starts[1:], len(order)]
    # distinct key / response clusters per component
    nk_c = np.bincount(k_comp[np.unique(flat.edge_k)], minlength=k_comp.max() + 1)
    r_first_edge = np.unique(flat.edge_r, return_index=True)[1]  # an edge of each response cluster
    nr_c = np.bincount(comp[r_first_edge], minlength=k_comp.max() + 1)
    simple = (nk_c[comp_sorted[starts]] == 1) | (nr_c[comp_sorted[starts]] == 1)
    # one cluster on a side: the best edge of the component (first after sorting by -weight)
    contrib[order[starts[simple]]] = weights[order[starts[simple]]]
    big: list[np.ndarray] = []
    for s, e in zip(starts[~simple], ends[~simple]):
        idx = order[s:e]
        ks, ki = np.unique(flat.edge_k[idx], return_inverse=True)
        rs, ri = np.unique(flat.edge_r[idx], return_inverse=True)
        if len(ks) * len(rs) > _DENSE_LIMIT:
            big.append(idx)
            continue
        mat = np.zeros((len(ks), len(rs)))
        mat[ki, ri] = weights[idx]
        rows, cols = linear_sum_assignment(mat, maximize=True)
        lookup = np.full((len(ks), len(rs)), -1, dtype=np.int64)
        lookup[ki, ri] = idx
        chosen = lookup[rows, cols]
        chosen = chosen[chosen >= 0]
        contrib[chosen] = weights[chosen]
    if big:
        _sparse_matching(flat, np.concatenate(big), weights, contrib)
    return contrib


def _sparse_matching(flat: _Flat, idx: np.ndarray, weights: np.ndarray, contrib: np.ndarray) -> None:
    """Max-weight matching on a sparse graph (SciPy's LAPJVsp), edges ``idx``; fills ``contrib``.

    Every row (the smaller side) gets a private dummy column, so a matching covering all rows always
    exists: a real edge costs ``big - w``, a dummy ``big``; the minimum-cost full matching maximises
    the total weight of the real edges it uses.
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import min_weight_full_bipartite_matching

    ks, ki = np.unique(flat.edge_k[idx], return_inverse=True)
    rs, ri = np.unique(flat.edge_r[idx], return_inverse=True)
    rows, cols = (ki, ri) if len(ks) <= len(rs) else (ri, ki)
    n_rows, n_cols = (len(ks), len(rs)) if len(ks) <= len(rs) else (len(rs), len(ks))
    w = weights[idx]
    big = float(w.max()) + 1.0
    graph = coo_matrix(
        (np.concatenate([big - w, np.full(n_rows, big)]),
         (np.concatenate([rows, np.arange(n_rows)]), np.concatenate([cols, n_cols + np.arange(n_rows)]))),
        shape=(n_rows, n_cols + n_rows)).tocsr()
    row_ind, col_ind = min_weight_full_bipartite_matching(graph)
    real = col_ind < n_cols
    edge_of = {(int(a), int(b)): int(e) for a, b, e in zip(rows, cols, idx)}
    chosen = np.fromiter((edge_of[(int(a), int(b))] for a, b in zip(row_ind[real], col_ind[real])), dtype=np.int64)
    contrib[chosen] = weights[chosen]


def _raw_counts(flat: _Flat, k_group: np.ndarray, r_group: np.ndarray, n_groups: int,
                k_comp: np.ndarray) -> np.ndarray:
    """RAW_FIELDS counts per group (documents or components); returns an (n_groups, n_fields) array."""
    out = np.zeros((n_groups, len(RAW_FIELDS)))
    ks, rs = flat.k_size.astype(np.float64), flat.r_size.astype(np.float64)
    ek, er, en = flat.edge_k, flat.edge_r, flat.edge_n.astype(np.float64)
    e_group = k_group[ek]

    def add(field: str, groups: np.ndarray, values) -> None:
        out[:, _R[field]] += np.bincount(groups, weights=np.broadcast_to(values, groups.shape).astype(np.float64),
                                         minlength=n_groups)

    # mention detection
    add("mention_match", e_group, en)
    add("key_mentions", k_group, ks)
    add("resp_mentions", r_group, rs)
    # MUC: correct links = sum over overlaps (n - 1)
    add("muc_num", e_group, en - 1)
    add("muc_key_links", k_group, ks - 1)
    add("muc_resp_links", r_group, rs - 1)
    # B-cubed
    add("bcub_rnum", e_group, en * en / ks[ek])
    add("bcub_pnum", e_group, en * en / rs[er])
    # CEAF
    add("ceafm_num", e_group, _ceaf_matching(flat, k_comp, en))
    add("ceafe_num", e_group, _ceaf_matching(flat, k_comp, 2 * en / (ks[ek] + rs[er])))
    add("key_clusters", k_group, 1.0)
    add("resp_clusters", r_group, 1.0)
    # LEA: size * (common links / links); singletons have one self-link
    edge_links = _pairs(en)
    k_res = np.bincount(ek, weights=edge_links, minlength=len(ks))
    r_res = np.bincount(er, weights=edge_links, minlength=len(rs))
    with np.errstate(divide="ignore", invalid="ignore"):
        k_res = np.where(ks > 1, k_res / _pairs(ks), flat.k_single_matched_single.astype(np.float64))
        r_res = np.where(rs > 1, r_res / _pairs(rs), flat.r_single_matched_single.astype(np.float64))
    add("lea_rnum", k_group, ks * k_res)
    add("lea_pnum", r_group, rs * r_res)
    # BLANC: link counts from overlaps
    add("blanc_cl_isect", e_group, edge_links)
    add("blanc_key_cl", k_group, _pairs(ks))
    add("blanc_resp_cl", r_group, _pairs(rs))
    k_matched = np.bincount(ek, weights=en, minlength=len(ks))
    r_matched = np.bincount(er, weights=en, minlength=len(rs))
    add("blanc_key_matched_pairs", k_group, _pairs(k_matched))
    add("blanc_resp_matched_pairs", r_group, _pairs(r_matched))
    return out


def _finalize_counts(raw: np.ndarray) -> np.ndarray:
    """RAW_FIELDS rows (one per document) -> DOC_FIELDS rows, which add up across documents.

    BLANC non-coreference links: all mention pairs of the document minus its coreference links; those
    in both key and response are the pairs of matched mentions that are non-coreferent on both sides.
    """
    raw = np.atleast_2d(raw)
    out = np.zeros((raw.shape[0], len(DOC_FIELDS)))
    out[:, : len(RAW_FIELDS) - 2] = raw[:, : len(RAW_FIELDS) - 2]
    out[:, _D["blanc_key_ncl"]] = _pairs(raw[:, _R["key_mentions"]]) - raw[:, _R["blanc_key_cl"]]
    out[:, _D["blanc_resp_ncl"]] = _pairs(raw[:, _R["resp_mentions"]]) - raw[:, _R["blanc_resp_cl"]]
    out[:, _D["blanc_ncl_isect"]] = (_pairs(raw[:, _R["mention_match"]]) - raw[:, _R["blanc_key_matched_pairs"]]
                                     - raw[:, _R["blanc_resp_matched_pairs"]] + raw[:, _R["blanc_cl_isect"]])
    return out


def _prf(num_r: float, den_r: float, num_p: float, den_p: float) -> tuple[float, float, float]:
    r = num_r / den_r if den_r else 0.0
    p = num_p / den_p if den_p else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return r, p, f


def _blanc(c: np.ndarray) -> tuple[float, float, float]:
    """BLANC from summed link counts, combined exactly as the v8.01 scorer's ScoreBLANC does."""
    d = _D
    ra = c[d["blanc_cl_isect"]] / c[d["blanc_key_cl"]] if c[d["blanc_key_cl"]] else -1.0
    rr = c[d["blanc_ncl_isect"]] / c[d["blanc_key_ncl"]] if c[d["blanc_key_ncl"]] else -1.0
    pa = c[d["blanc_cl_isect"]] / c[d["blanc_resp_cl"]] if c[d["blanc_resp_cl"]] else 0.0
    pr = c[d["blanc_ncl_isect"]] / c[d["blanc_resp_ncl"]] if c[d["blanc_resp_ncl"]] else 0.0
    fa = 2 * pa * ra / (pa + ra) if pa + ra else 0.0
    fr = 2 * pr * rr / (pr + rr) if pr + rr else 0.0
    if ra == -1 and rr == -1:
        return 0.0, 0.0, 0.0
    if ra == -1:
        return rr, pr, fr
    if rr == -1:
        return ra, pa, fa
    return (ra + rr) / 2, (pa + pr) / 2, (fa + fr) / 2


def scores_from_counts(counts: np.ndarray) -> dict[str, float]:
    """Scores from one DOC_FIELDS vector (document counts summed over the documents to score)."""
    c = np.asarray(counts, dtype=np.float64)
    d = _D
    km, rm = c[d["key_mentions"]], c[d["resp_mentions"]]
    parts = {
        "mentions": _prf(c[d["mention_match"]], km, c[d["mention_match"]], rm),
        "muc": _prf(c[d["muc_num"]], c[d["muc_key_links"]], c[d["muc_num"]], c[d["muc_resp_links"]]),
        "bcub": _prf(c[d["bcub_rnum"]], km, c[d["bcub_pnum"]], rm),
        "ceafm": _prf(c[d["ceafm_num"]], km, c[d["ceafm_num"]], rm),
        "ceafe": _prf(c[d["ceafe_num"]], c[d["key_clusters"]], c[d["ceafe_num"]], c[d["resp_clusters"]]),
        "blanc": _blanc(c),
        "lea": _prf(c[d["lea_rnum"]], km, c[d["lea_pnum"]], rm),
    }
    out: dict[str, float] = {}
    for metric in METRICS:
        r, p, f = parts[metric]
        out[f"{metric}_recall"], out[f"{metric}_precision"], out[f"{metric}_f1"] = float(r), float(p), float(f)
    out["conll_f1"] = (out["muc_f1"] + out["bcub_f1"] + out["ceafe_f1"]) / 3
    return out


def document_counts(predictions, references, *, remove_singletons: bool = False,
                    names: Sequence[str] | None = None) -> np.ndarray:
    """Per-document count vectors (rows in DOC_FIELDS order); their sum scores the corpus."""
    flat = _flatten(predictions, references, remove_singletons=remove_singletons, names=names)
    k_comp, _, _ = _components(flat)
    raw = _raw_counts(flat, flat.k_doc, flat.r_doc, flat.n_docs, k_comp)
    return _finalize_counts(raw)


# --------------------------------------------------------------------------------------------------
# public API


def evaluate_coref(predictions: list[Document], references: list[Document], *, remove_singletons: bool = False,
                   per_document: bool = False, names: Sequence[str] | None = None) -> dict:
    """Score predicted against reference coreference clusters, as the CoNLL reference scorer v8.01 does.

    ``predictions`` / ``references``: lists of documents (a document is a list of clusters, a cluster
    a list of mention-id strings), aligned by position. Returns the :data:`SCORE_KEYS` scores
    (micro-averaged: numerators and denominators summed over documents). ``remove_singletons`` drops
    clusters of one mention from both sides first. With ``per_document=True`` the result also has
    ``"per_document"``: one dict per document with ``"document"`` (its name, or ``"document <i>"``)
    and that document's scores. ``names`` optionally names the documents in error messages and there.

    Raises ``ValueError`` for empty or mismatched inputs, non-string ids, duplicate mentions within
    one side of a document, and when there is no key mention at all.
    """
    counts = document_counts(predictions, references, remove_singletons=remove_singletons, names=names)
    result: dict = scores_from_counts(counts.sum(axis=0))
    if per_document:
        doc_names = [_doc_name(names, i) for i in range(len(references))]
        result["per_document"] = [{"document": doc_names[i], **scores_from_counts(row)}
                                  for i, row in enumerate(counts)]
    return result


def bootstrap_coref(predictions: list[Document], references: list[Document], *, n_resamples: int = 1000,
                    level: float = 0.95, seed: int = 0, remove_singletons: bool = False) -> dict[str, dict]:
    """Percentile bootstrap confidence intervals for every :func:`evaluate_coref` score.

    Several documents: documents are resampled with replacement (each resample sums the drawn
    documents' counts). One document (cross-document coreference): the units are the key clusters,
    each taken together with the response clusters that share mentions with it (connected groups of
    overlapping key and response clusters; a response cluster without key mentions is a unit of its
    own); drawn units are treated as disjoint copies, so the response is restricted to the drawn
    units. Returns the shape of a result record's ``confidence_intervals``.
    """
    from figbench.bootstrap import bootstrap_ci

    if len(references) > 1:
        counts = document_counts(predictions, references, remove_singletons=remove_singletons)

        def statistic(idx: np.ndarray) -> dict[str, float]:
            return scores_from_counts(counts[idx].sum(axis=0))

        return bootstrap_ci(len(counts), statistic, n_resamples=n_resamples, level=level, seed=seed,
                            unit="documents")

    flat = _flatten(predictions, references, remove_singletons=remove_singletons, names=None)
    k_comp, r_comp, n_comp = _components(flat)
    raw = _raw_counts(flat, k_comp, r_comp, n_comp, k_comp)

    def unit_statistic(idx: np.ndarray) -> dict[str, float]:
        return scores_from_counts(_finalize_counts(raw[idx].sum(axis=0))[0])

    return bootstrap_ci(n_comp, unit_statistic, n_resamples=n_resamples, level=level, seed=seed,
                        unit="clusters")
