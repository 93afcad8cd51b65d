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
counts (memory linear in mentions); CEAF's optimal alignment is an exact maximum-weight matching of
the overlap graph (:mod:`figbench.scoring.matching`: leaf peeling solves trees and paths in linear
time, the rest is one min-cost flow, exact for integer weights and certified or repaired for
CEAF-e's), equal to the dense solver.

Confidence intervals: :func:`bootstrap_coref` (percentile bootstrap over documents, given groups such
as topics, or the groups of overlapping clusters of one document) and :func:`jackknife_coref` (its
fallback for one document whose overlap groups are degenerate); see the conll_coref metric card.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from figbench.bootstrap import DEFAULT_RESAMPLES
from figbench.schema import Document
from figbench.scoring.matching import max_weight_matching

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
        kind = type(cluster)
        if kind is not list and (isinstance(cluster, (str, bytes)) or not isinstance(cluster, Sequence)):
            raise ValueError(f"{side} {name}, cluster {ci}: a cluster must be a list of mention ids, "
                             f"got {type(cluster).__name__}")
        if not cluster:
            continue
        if set(map(type, cluster)) != {str}:  # fast path: exact str ids; subclasses checked one by one
            for m in cluster:
                if not isinstance(m, str):
                    raise ValueError(f"{side} {name}, cluster {ci}: mention ids must be strings, got {m!r} "
                                     f"({type(m).__name__})")
        clusters.append(cluster if kind is list else list(cluster))
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


def _singletons_matched(k_size: np.ndarray, r_size: np.ndarray, edge_k: np.ndarray,
                        edge_r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Key and response singletons whose mention is a singleton on the other side (LEA's self-links)."""
    both_single = (k_size[edge_k] == 1) & (r_size[edge_r] == 1)
    k_ss = np.zeros(len(k_size), dtype=bool)
    r_ss = np.zeros(len(r_size), dtype=bool)
    k_ss[edge_k[both_single]] = True
    r_ss[edge_r[both_single]] = True
    return k_ss, r_ss


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
        key_sizes = [len(c) for c in key]
        resp_sizes = [len(c) for c in resp]
        key_ids = [m for c in key for m in c]
        key_of = dict(zip(key_ids, np.repeat(np.arange(k_base, k_base + len(key)), key_sizes).tolist()))
        if len(key_of) != len(key_ids):
            raise _duplicate_error(key, "reference", name)
        resp_ids = [m for c in resp for m in c]
        if len(set(resp_ids)) != len(resp_ids):
            raise _duplicate_error(resp, "prediction", name)
        matched = np.fromiter((key_of.get(m, -1) for m in resp_ids), dtype=np.int64, count=len(resp_ids))
        owner = np.repeat(np.arange(r_base, r_base + len(resp), dtype=np.int64), resp_sizes)
        hit = matched >= 0
        e_k.append(matched[hit])
        e_r.append(owner[hit])
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
    if e_k and sum(len(a) for a in e_k):
        mk = np.concatenate(e_k)
        mr = np.concatenate(e_r)
        n_r = max(len(r_size), 1)
        codes, counts = np.unique(mk * n_r + mr, return_counts=True)
        edge_k, edge_r, edge_n = codes // n_r, codes % n_r, counts.astype(np.int64)
    else:
        edge_k = edge_r = edge_n = np.zeros(0, dtype=np.int64)
    k_ss, r_ss = _singletons_matched(k_size, r_size, edge_k, edge_r)
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


def _ceaf_matchings(flat: _Flat, weight_sets: list[np.ndarray]) -> list[np.ndarray]:
    """Optimal one-to-one alignments of key and response clusters, one per weighting of the overlap
    edges (CEAF-m and CEAF-e): the weight each edge contributes (0 outside the alignment). Exact, by
    :func:`figbench.scoring.matching.max_weight_matching`."""
    out = []
    for weights in weight_sets:
        contrib = np.zeros(len(flat.edge_k), dtype=np.float64)
        chosen = max_weight_matching(flat.edge_k, flat.edge_r, weights, len(flat.k_size), len(flat.r_size))
        contrib[chosen] = weights[chosen]
        out.append(contrib)
    return out


def _raw_counts(flat: _Flat, k_group: np.ndarray, r_group: np.ndarray, n_groups: int) -> np.ndarray:
    """RAW_FIELDS counts per group (documents or components); returns an (n_groups, n_fields) array."""
    out = np.zeros((n_groups, len(RAW_FIELDS)))
    ks, rs = flat.k_size.astype(np.float64), flat.r_size.astype(np.float64)
    ek, er, en = flat.edge_k, flat.edge_r, flat.edge_n.astype(np.float64)
    e_group = k_group[ek]

    def add(field: str, groups: np.ndarray, values: np.ndarray | float) -> None:
        if np.isscalar(values):
            out[:, _R[field]] += np.bincount(groups, minlength=n_groups) * float(values)
        else:
            out[:, _R[field]] += np.bincount(groups, weights=values, minlength=n_groups)

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
    ceafm, ceafe = _ceaf_matchings(flat, [en, 2 * en / (ks[ek] + rs[er])])
    add("ceafm_num", e_group, ceafm)
    add("ceafe_num", e_group, ceafe)
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


def scores_from_counts(counts: np.ndarray) -> dict[str, float]:
    """Scores from one DOC_FIELDS vector (document counts summed over the documents to score)."""
    return {name: float(values[0]) for name, values in scores_of_rows(counts).items()}


def scores_of_rows(counts: np.ndarray) -> dict[str, np.ndarray]:
    """Scores of each DOC_FIELDS row at once (e.g. one row per bootstrap resample): ``name -> array``; row
    ``i`` equals :func:`scores_from_counts` of that row."""
    return _scores_matrix(np.asarray(counts, dtype=np.float64))


def document_counts(predictions, references, *, remove_singletons: bool = False,
                    names: Sequence[str] | None = None) -> np.ndarray:
    """Per-document count vectors (rows in DOC_FIELDS order); their sum scores the corpus."""
    flat = _flatten(predictions, references, remove_singletons=remove_singletons, names=names)
    raw = _raw_counts(flat, flat.k_doc, flat.r_doc, flat.n_docs)
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


def _scores_matrix(counts: np.ndarray) -> dict[str, np.ndarray]:
    """Scores of many DOC_FIELDS rows at once (one row per resample; :func:`scores_from_counts` is its
    one-row case). A zero denominator scores 0; BLANC combines its parts as the v8.01 scorer's
    ScoreBLANC does (an undefined recall, marked -1, drops that part)."""
    c = np.atleast_2d(np.asarray(counts, dtype=np.float64))
    d = _D

    def ratio(num: np.ndarray, den: np.ndarray, empty: float = 0.0) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(den != 0, num / np.where(den != 0, den, 1.0), empty)

    def f1(p: np.ndarray, r: np.ndarray) -> np.ndarray:
        return ratio(2 * p * r, p + r)

    def prf(num_r, den_r, num_p, den_p):
        r, p = ratio(num_r, den_r), ratio(num_p, den_p)
        return r, p, f1(p, r)

    col = {name: c[:, i] for name, i in d.items()}
    km, rm, mm = col["key_mentions"], col["resp_mentions"], col["mention_match"]
    parts = {
        "mentions": prf(mm, km, mm, rm),
        "muc": prf(col["muc_num"], col["muc_key_links"], col["muc_num"], col["muc_resp_links"]),
        "bcub": prf(col["bcub_rnum"], km, col["bcub_pnum"], rm),
        "ceafm": prf(col["ceafm_num"], km, col["ceafm_num"], rm),
        "ceafe": prf(col["ceafe_num"], col["key_clusters"], col["ceafe_num"], col["resp_clusters"]),
    }
    # BLANC: -1 marks an undefined recall
    ra = ratio(col["blanc_cl_isect"], col["blanc_key_cl"], -1.0)
    rr = ratio(col["blanc_ncl_isect"], col["blanc_key_ncl"], -1.0)
    pa = ratio(col["blanc_cl_isect"], col["blanc_resp_cl"])
    pr = ratio(col["blanc_ncl_isect"], col["blanc_resp_ncl"])
    fa, fr = f1(pa, ra), f1(pr, rr)
    no_a, no_r = ra == -1, rr == -1
    parts["blanc"] = tuple(
        np.where(no_a & no_r, 0.0, np.where(no_a, b, np.where(no_r, a, (a + b) / 2)))
        for a, b in ((ra, rr), (pa, pr), (fa, fr)))
    parts["lea"] = prf(col["lea_rnum"], km, col["lea_pnum"], rm)
    out: dict[str, np.ndarray] = {}
    for metric in METRICS:
        out[f"{metric}_recall"], out[f"{metric}_precision"], out[f"{metric}_f1"] = parts[metric]
    out["conll_f1"] = (out["muc_f1"] + out["bcub_f1"] + out["ceafe_f1"]) / 3
    return out


def _resampled_scores(unit_counts: np.ndarray, n_resamples: int, seed: int, *, raw: bool) -> dict[str, np.ndarray]:
    """Scores of ``n_resamples`` bootstrap resamples of the rows of ``unit_counts`` (one row per unit).

    A resample sums the drawn units' rows (a unit drawn twice counts twice, as a disjoint copy);
    ``raw`` rows are RAW_FIELDS (one document: BLANC's non-coreference links come from the summed
    mention totals), otherwise DOC_FIELDS. Draws the same indices as :func:`figbench.bootstrap.bootstrap_ci`.
    """
    n_units = len(unit_counts)
    rng = np.random.default_rng(seed)
    chunk = max(1, min(n_resamples, 2_000_000 // max(n_units, 1)))
    pieces: list[dict[str, np.ndarray]] = []
    done = 0
    while done < n_resamples:
        b = min(chunk, n_resamples - done)
        idx = rng.integers(0, n_units, size=(b, n_units))
        flat_idx = (idx + (np.arange(b) * n_units)[:, None]).ravel()
        weights = np.bincount(flat_idx, minlength=b * n_units).reshape(b, n_units).astype(np.float64)
        sums = weights @ unit_counts
        pieces.append(_scores_matrix(_finalize_counts(sums) if raw else sums))
        done += b
    return {k: np.concatenate([p[k] for p in pieces]) for k in pieces[0]}


def _group_labels(groups: Mapping[str, Hashable], flat_ids: Sequence[str], side: str) -> list:
    try:
        return [groups[m] for m in flat_ids]
    except KeyError as e:
        raise ValueError(f"groups: no resampling unit for {side} mention {e.args[0]!r}; groups must map "
                         "every mention id of both sides to a unit") from None


def _cut_by_group(doc: list[list[str]], groups: Mapping[str, Hashable], side: str) -> tuple[list[list[str]], list, int]:
    """Clusters split at group boundaries: (pieces, group of each piece, coreference links cut)."""
    pieces: list[list[str]] = []
    labels: list = []
    cut = 0
    for cluster in doc:
        by: dict = {}
        for m, g in zip(cluster, _group_labels(groups, cluster, side)):
            by.setdefault(g, []).append(m)
        if len(by) > 1:
            n = len(cluster)
            cut += n * (n - 1) // 2 - sum(len(v) * (len(v) - 1) // 2 for v in by.values())
        pieces.extend(by.values())
        labels.extend(by.keys())
    return pieces, labels, cut


def _single_document_units(prediction, reference, *, remove_singletons: bool,
                           groups: Mapping[str, Hashable] | None) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """RAW_FIELDS rows per resampling unit of one document, each unit's mention count, and notes."""
    key = _check_document(reference, "reference", "document 0")
    resp = _check_document(prediction, "prediction", "document 0")
    if remove_singletons:
        key = [c for c in key if len(c) > 1]
        resp = [c for c in resp if len(c) > 1]
    notes: list[str] = []
    if groups is None:
        flat = _flatten([resp], [key], remove_singletons=False, names=None)
        k_comp, r_comp, n_comp = _components(flat)
        raw = _raw_counts(flat, k_comp, r_comp, n_comp)
    else:
        key_cut, k_lab, k_links = _cut_by_group(key, groups, "reference")
        resp_cut, r_lab, r_links = _cut_by_group(resp, groups, "prediction")
        codes: dict = {}
        k_group = np.asarray([codes.setdefault(g, len(codes)) for g in k_lab], dtype=np.int64)
        r_group = np.asarray([codes.setdefault(g, len(codes)) for g in r_lab], dtype=np.int64)
        flat = _flatten([resp_cut], [key_cut], remove_singletons=False, names=None)
        raw = _raw_counts(flat, k_group, r_group, len(codes))
        if r_links or k_links:
            total_r = sum(len(c) * (len(c) - 1) // 2 for c in resp)
            total_k = sum(len(c) * (len(c) - 1) // 2 for c in key)
            notes.append(
                f"the groups cut {r_links} of {total_r} response and {k_links} of {total_k} key coreference links "
                "(clusters crossing groups): the interval describes the scores with clusters restricted to each "
                "group, the point estimate does not")
    sizes = raw[:, _R["key_mentions"]] + raw[:, _R["resp_mentions"]] - raw[:, _R["mention_match"]]
    return raw, sizes, notes


#: Delete-a-group jackknife (the fallback for one document whose overlap groups are degenerate):
#: key clusters are split at random into this many groups, each left out once.
JACKKNIFE_GROUPS = 20


def _jackknife_units(flat: _Flat) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Units of the jackknife: each key cluster, with the twinless response mentions of the response
    clusters it dominates (most shared mentions, ties to the lowest index); a response cluster
    without key mentions is a unit of its own. Returns (unit of each key cluster, unit owning each
    response cluster's twinless mentions, twinless mentions per response cluster, number of units)."""
    nk, nr = len(flat.k_size), len(flat.r_size)
    shared = np.bincount(flat.edge_r, weights=flat.edge_n, minlength=nr).astype(np.int64)
    twinless = flat.r_size - shared
    owner = np.full(nr, -1, dtype=np.int64)
    if len(flat.edge_n):
        order = np.lexsort((flat.edge_k, -flat.edge_n, flat.edge_r))
        er = flat.edge_r[order]
        first = np.r_[True, er[1:] != er[:-1]]
        owner[er[first]] = flat.edge_k[order[first]]
    keyless = np.flatnonzero(owner < 0)
    owner[keyless] = nk + np.arange(len(keyless))
    return np.arange(nk), owner, twinless, nk + len(keyless)


def _without_units(flat: _Flat, dropped: np.ndarray, owner: np.ndarray, twinless: np.ndarray) -> _Flat | None:
    """``flat`` with the units marked in ``dropped`` (bool per unit) left out of both sides."""
    nk = len(flat.k_size)
    k_keep = ~dropped[:nk]
    e_keep = k_keep[flat.edge_k]
    r_size = (np.bincount(flat.edge_r[e_keep], weights=flat.edge_n[e_keep], minlength=len(flat.r_size))
              .astype(np.int64) + np.where(dropped[owner], 0, twinless))
    r_keep = r_size > 0
    if not k_keep.any():
        return None
    k_new = np.cumsum(k_keep) - 1
    r_new = np.cumsum(r_keep) - 1
    k_size, r_size = flat.k_size[k_keep], r_size[r_keep]
    edge_k, edge_r, edge_n = k_new[flat.edge_k[e_keep]], r_new[flat.edge_r[e_keep]], flat.edge_n[e_keep]
    k_ss, r_ss = _singletons_matched(k_size, r_size, edge_k, edge_r)
    return _Flat(names=flat.names, n_docs=1, k_size=k_size, k_doc=np.zeros(len(k_size), dtype=np.int64),
                 r_size=r_size, r_doc=np.zeros(len(r_size), dtype=np.int64), edge_k=edge_k, edge_r=edge_r,
                 edge_n=edge_n, k_single_matched_single=k_ss, r_single_matched_single=r_ss)


def _flat_scores(flat: _Flat) -> dict[str, float]:
    one_k = np.zeros(len(flat.k_size), dtype=np.int64)
    one_r = np.zeros(len(flat.r_size), dtype=np.int64)
    return scores_from_counts(_finalize_counts(_raw_counts(flat, one_k, one_r, 1))[0])


def jackknife_coref(prediction: Document, reference: Document, *, level: float = 0.95, seed: int = 0,
                    n_groups: int = JACKKNIFE_GROUPS, remove_singletons: bool = False,
                    unit: str = "clusters") -> dict[str, dict]:
    """Delete-a-group jackknife intervals for one document (cross-document coreference).

    The key clusters (each with the twinless response mentions of the response clusters it
    dominates; a response cluster without key mentions is a unit of its own) are split at random
    into ``n_groups`` groups (all units if fewer); each replicate leaves one group out of both sides
    and rescores exactly (the response restricted to the remaining mentions: nothing is duplicated
    or cut). Interval: ``point +- t(n_groups - 1) * se`` with the jackknife standard error
    ``se^2 = (G - 1) / G * sum (score_-g - mean)^2``, clipped to [0, 1]. Used by
    :func:`bootstrap_coref` when the response links most clusters into one group; valid when the
    key clusters (events) are the sampling units, however the response links them.
    """
    from scipy.special import stdtrit  # Student t quantile (scipy.stats is slow to import)

    from figbench.bootstrap import degenerate_reasons, make_interval

    flat = _flatten([prediction], [reference], remove_singletons=remove_singletons, names=None)
    point = _flat_scores(flat)
    _, owner, twinless, n_units = _jackknife_units(flat)
    reasons = degenerate_reasons(n_units, unit=unit.replace(" (jackknife)", ""))
    groups = min(n_groups, n_units)
    if groups < 2:
        return {k: make_interval(v, v, level=level, n_resamples=1, unit=unit, n_units=n_units, point=v,
                                 reasons=reasons) for k, v in point.items()}
    label = np.random.default_rng(seed).permutation(n_units) % groups
    reps: dict[str, list[float]] = {k: [] for k in point}
    for g in range(groups):
        sub = _without_units(flat, label == g, owner, twinless)
        scores = _flat_scores(sub) if sub is not None else dict.fromkeys(point, 0.0)
        for k, v in scores.items():
            reps[k].append(v)
    t = float(stdtrit(groups - 1, (1 + level) / 2))
    out = {}
    for k, values in reps.items():
        v = np.asarray(values)
        se = float(np.sqrt((groups - 1) / groups * ((v - v.mean()) ** 2).sum()))
        out[k] = make_interval(max(0.0, point[k] - t * se), min(1.0, point[k] + t * se), level=level,
                               n_resamples=groups, unit=unit, n_units=n_units, point=point[k], reasons=reasons)
    return out


def bootstrap_coref(predictions: list[Document], references: list[Document], *,
                    n_resamples: int = DEFAULT_RESAMPLES, level: float = 0.95, seed: int = 0,
                    remove_singletons: bool = False, groups: Mapping[str, Hashable] | None = None,
                    unit: str | None = None) -> dict[str, dict]:
    """Percentile bootstrap confidence intervals for every :func:`evaluate_coref` score.

    Resampling units (drawn with replacement; a unit drawn twice is a disjoint copy, as if its
    mention ids were renamed, so no cluster ever holds a mention twice):

    * ``groups`` (mention id -> unit, e.g. the mention's topic; every mention of both sides): one
      document: the groups; a drawn group contributes its key clusters and its response clusters
      restricted to its own mentions (clusters crossing groups are cut; the warning then says how
      many links were cut and that the interval describes the restricted scores). Several
      documents: every document must lie in one group; a group contributes its documents.
    * otherwise, several documents: the documents (``unit: "documents"``);
    * otherwise, one document (cross-document coreference): the connected groups of overlapping key
      and response clusters, i.e. each key cluster together with every response cluster sharing a
      mention with it, transitively (``unit: "clusters"``): nothing is cut, so every resample is an
      exact score of disjoint copies. If these groups are degenerate (fewer than 20, or one holding
      more than half of the mentions, as when a response links most clusters), the intervals come
      from :func:`jackknife_coref` over key clusters instead (``unit: "key clusters (jackknife)"``,
      ``n_resamples`` = its 20 replicates), with a ``warning`` saying so.

    Each interval also has ``n_units`` and, for degenerate cases (see :mod:`figbench.bootstrap`), a
    ``warning``. ``unit`` names the units in the output (default ``"groups"`` with ``groups``).
    Returns the shape of a result record's ``confidence_intervals``.
    """
    from figbench.bootstrap import degenerate_reasons, percentile_intervals

    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be >= 1, got {n_resamples}")
    def point() -> dict[str, float]:  # only needed for the zero-width check
        return evaluate_coref(predictions, references, remove_singletons=remove_singletons)

    notes: list[str] = []
    if len(references) > 1:
        counts = document_counts(predictions, references, remove_singletons=remove_singletons)
        if groups is not None:
            counts, name = _group_documents(counts, predictions, references, groups), unit or "groups"
        else:
            name = unit or "documents"
        sizes = counts[:, _D["key_mentions"]] + counts[:, _D["resp_mentions"]] - counts[:, _D["mention_match"]]
        samples = _resampled_scores(counts, n_resamples, seed, raw=False)
    else:
        raw, sizes, notes = _single_document_units(predictions[0], references[0], remove_singletons=remove_singletons,
                                                   groups=groups)
        name = unit or ("groups" if groups is not None else "clusters")
        reasons = degenerate_reasons(len(sizes), unit_sizes=sizes, unit=name)
        if groups is None and reasons:
            return _jackknife_fallback(predictions[0], references[0], sizes, level=level, seed=seed,
                                       remove_singletons=remove_singletons, unit=unit)
        samples = _resampled_scores(raw, n_resamples, seed, raw=True)
    reasons = degenerate_reasons(len(sizes), unit_sizes=sizes, unit=name) + notes
    return percentile_intervals(samples, level=level, n_resamples=n_resamples, unit=name, n_units=len(sizes),
                                point=point, reasons=reasons)


def _jackknife_fallback(prediction, reference, sizes: np.ndarray, *, level: float, seed: int,
                        remove_singletons: bool, unit: str | None) -> dict[str, dict]:
    """:func:`jackknife_coref` intervals, each with a warning saying why and how they were made (the
    number of key clusters and of groups actually used)."""
    share = 100 * float(sizes.max()) / max(float(sizes.sum()), 1.0)
    ci = jackknife_coref(prediction, reference, level=level, seed=seed, remove_singletons=remove_singletons,
                         unit=unit or "key clusters (jackknife)")
    first = next(iter(ci.values()), None)
    if first is None:
        return ci
    n_units, groups = first["n_units"], first["n_resamples"]
    why = (f"the response links {share:.0f}% of the mentions into one of {len(sizes)} groups of overlapping "
           "clusters, which cannot be resampled as units: the interval is a delete-a-group jackknife over key "
           f"clusters ({n_units} key clusters in {groups} groups, t interval), not a percentile bootstrap")
    for iv in ci.values():
        iv["warning"] = "; ".join(x for x in (why, iv.get("warning")) if x)[:500]
    return ci


def _group_documents(counts: np.ndarray, predictions, references, groups: Mapping[str, Hashable]) -> np.ndarray:
    """Per-document DOC_FIELDS rows summed per group; each document must lie in one group."""
    codes: dict = {}
    doc_group = []
    for d, (pred, ref) in enumerate(zip(predictions, references)):
        ids = [m for doc in (ref, pred) for c in doc for m in c]
        labels = set(_group_labels(groups, ids, f"document {d}"))
        if len(labels) > 1:
            raise ValueError(f"groups: document {d} has mentions in {len(labels)} groups; with several documents "
                             "each document must lie in one group (e.g. its topic)")
        label = labels.pop() if labels else ("__empty__", d)
        doc_group.append(codes.setdefault(label, len(codes)))
    out = np.zeros((len(codes), counts.shape[1]))
    np.add.at(out, np.asarray(doc_group), counts)
    return out
