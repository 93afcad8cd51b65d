"""figbench.scoring.coref: hand-computed cases, an independent brute-force reference, options and bad input."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import numpy as np
import pytest

import figbench.scoring.coref as coref
import figbench.scoring.matching as matching
from figbench.scoring.coref import SCORE_KEYS, bootstrap_coref, evaluate_coref

# ---------------------------------------------------------------------------------------------
# an independent, deliberately naive reference (pair sets, per-mention loops, brute-force CEAF)


def _prf(nr, dr, np_, dp):
    r = Fraction(nr) / dr if dr else Fraction(0)
    p = Fraction(np_) / dp if dp else Fraction(0)
    f = 2 * p * r / (p + r) if p + r else Fraction(0)
    return r, p, f


def _best_alignment(key, resp, sim):
    """Brute force over all one-to-one alignments (tiny inputs only)."""
    if len(key) > len(resp):
        return _best_alignment(resp, key, lambda a, b: sim(b, a))
    best = Fraction(0)
    for perm in itertools.permutations(range(len(resp)), len(key)):
        best = max(best, sum((sim(key[i], resp[j]) for i, j in enumerate(perm)), Fraction(0)))
    return best


def naive_counts(key, resp):
    key = [set(c) for c in key]
    resp = [set(c) for c in resp]
    kof = {m: i for i, c in enumerate(key) for m in c}
    rof = {m: i for i, c in enumerate(resp) for m in c}
    km, rm = set(kof), set(rof)
    c = {}
    c["mentions"] = (len(km & rm), len(km), len(km & rm), len(rm))
    # MUC (Vilain): partitions, twinless mentions as their own parts
    rnum = sum(len(k) - len({rof.get(m, ("k", m)) for m in k}) for k in key)
    pnum = sum(len(r) - len({kof.get(m, ("r", m)) for m in r}) for r in resp)
    c["muc"] = (rnum, sum(len(k) - 1 for k in key), pnum, sum(len(r) - 1 for r in resp))
    # B-cubed, per mention
    br = sum(Fraction(len(k & resp[rof[m]]) if m in rof else 0, len(k)) for k in key for m in k)
    bp = sum(Fraction(len(r & key[kof[m]]) if m in kof else 0, len(r)) for r in resp for m in r)
    c["bcub"] = (br, len(km), bp, len(rm))
    num_m = _best_alignment(key, resp, lambda a, b: Fraction(len(a & b)))
    c["ceafm"] = (num_m, len(km), num_m, len(rm))
    num_e = _best_alignment(key, resp, lambda a, b: Fraction(2 * len(a & b), len(a) + len(b)))
    c["ceafe"] = (num_e, len(key), num_e, len(resp))
    # BLANC, from explicit link sets
    def links(clusters):
        coref_links = {frozenset(p) for cl in clusters for p in itertools.combinations(sorted(cl), 2)}
        ms = sorted(set().union(*clusters)) if clusters else []
        all_links = {frozenset(p) for p in itertools.combinations(ms, 2)}
        return coref_links, all_links - coref_links
    kc, kn = links(key)
    rc, rn = links(resp)
    c["blanc"] = (len(kc & rc), len(kc), len(rc), len(kn & rn), len(kn), len(rn))
    # LEA (Moosavi & Strube 2016), singletons with a self-link
    def lea(side, other_of, other):
        num = Fraction(0)
        for cl in side:
            if len(cl) == 1:
                (m,) = cl
                res = Fraction(int(m in other_of and len(other[other_of[m]]) == 1))
            else:
                common = sum(1 for a, b in itertools.combinations(sorted(cl), 2)
                             if a in other_of and b in other_of and other_of[a] == other_of[b])
                res = Fraction(common, len(cl) * (len(cl) - 1) // 2)
            num += len(cl) * res
        return num, sum(len(cl) for cl in side)
    lr, ld = lea(key, rof, resp)
    lp, lpd = lea(resp, kof, key)
    c["lea"] = (lr, ld, lp, lpd)
    return c


def naive_scores(pred_docs, ref_docs):
    total = {}
    for p, k in zip(pred_docs, ref_docs):
        for m, v in naive_counts(k, p).items():
            total[m] = tuple(a + b for a, b in zip(total.get(m, (0,) * len(v)), v))
    out = {}
    for m in ("mentions", "muc", "bcub", "ceafm", "ceafe", "lea"):
        out[m] = _prf(*total[m])
    ci, kc, rc, ni, kn, rn = total["blanc"]
    ra = Fraction(ci, kc) if kc else None
    rr = Fraction(ni, kn) if kn else None
    pa = Fraction(ci, rc) if rc else Fraction(0)
    pr = Fraction(ni, rn) if rn else Fraction(0)
    fa = 2 * pa * ra / (pa + ra) if ra is not None and pa + ra else Fraction(0)
    fr = 2 * pr * rr / (pr + rr) if rr is not None and pr + rr else Fraction(0)
    if ra is None and rr is None:
        out["blanc"] = (0, 0, 0)
    elif ra is None:
        out["blanc"] = (rr, pr, fr)
    elif rr is None:
        out["blanc"] = (ra, pa, fa)
    else:
        out["blanc"] = ((ra + rr) / 2, (pa + pr) / 2, (fa + fr) / 2)
    return out


def random_docs(rng: random.Random, n_docs: int):
    preds, refs = [], []
    for d in range(n_docs):
        n = rng.randint(1, 9)
        key_labels = [rng.randrange(max(1, n // 2)) for _ in range(n)]
        key = {}
        for i, lab in enumerate(key_labels):
            key.setdefault(lab, []).append(f"d{d}m{i}")
        resp = {}
        for i, lab in enumerate(key_labels):
            if rng.random() < 0.8:
                resp.setdefault(lab if rng.random() < 0.6 else rng.randrange(6), []).append(f"d{d}m{i}")
        for j in range(rng.randint(0, 3)):  # twinless response mentions
            resp.setdefault(rng.randrange(8), []).append(f"d{d}x{j}")
        refs.append(list(key.values()))
        preds.append(list(resp.values()))
    return preds, refs


@pytest.mark.parametrize("seed", range(40))
def test_against_naive_reference(seed):
    rng = random.Random(seed)
    preds, refs = random_docs(rng, rng.choice([1, 2, 4]))
    if not any(refs):
        pytest.skip("no key mentions drawn")
    got = evaluate_coref(preds, refs)
    want = naive_scores(preds, refs)
    for metric, triple in want.items():
        for part, value in zip(("recall", "precision", "f1"), triple):
            assert got[f"{metric}_{part}"] == pytest.approx(float(value), abs=1e-12), (metric, part)
    conll = (float(want["muc"][2]) + float(want["bcub"][2]) + float(want["ceafe"][2])) / 3
    assert got["conll_f1"] == pytest.approx(conll, abs=1e-12)


# ---------------------------------------------------------------------------------------------
# hand-computed cases


def test_output_keys_and_perfect_score():
    doc = [["a", "b", "c"], ["d"], ["e", "f"]]
    scores = evaluate_coref([doc], [doc])
    assert tuple(scores) == SCORE_KEYS
    assert all(v == 1.0 for v in scores.values())


def test_lea_paper_example():
    """Moosavi & Strube (2016), section 4: K = {abc}{defg}, R = {ab}{cd}{fghi}."""
    key = [["a", "b", "c"], ["d", "e", "f", "g"]]
    resp = [["a", "b"], ["c", "d"], ["f", "g", "h", "i"]]
    s = evaluate_coref([resp], [key])
    assert s["lea_recall"] == pytest.approx((3 * 1 / 3 + 4 * 1 / 6) / 7)
    assert s["lea_precision"] == pytest.approx((2 * 1 + 2 * 0 + 4 * 1 / 6) / 8)


def test_lea_singletons_use_self_links():
    key = [["a"], ["b"], ["c", "d"]]
    resp = [["a"], ["b", "c"], ["d"]]
    s = evaluate_coref([resp], [key])
    # recall: {a} resolved (1), {b} not (b is in a 2-cluster), {c,d} 0 of 1 link -> 1 / 4
    assert s["lea_recall"] == pytest.approx(1 / 4)
    # precision: {a} 1, {b,c} 0 links, {d} is a response singleton but d's key cluster has 2 -> 1 / 4
    assert s["lea_precision"] == pytest.approx(1 / 4)


def test_muc_bcubed_ceaf_hand_computed():
    # Luo (2005)-style example: key {a b c d e}{f g}{h i j k l}; response merges the 2-cluster in
    key = [list("abcde"), list("fg"), list("hijkl")]
    resp = [list("abcdefg"), list("hijkl")]
    s = evaluate_coref([resp], [key])
    assert s["muc_recall"] == 1.0
    assert s["muc_precision"] == pytest.approx(9 / 10)
    assert s["bcub_precision"] == pytest.approx((5 * 5 / 7 + 2 * 2 / 7 + 5) / 12)
    assert s["ceafm_recall"] == pytest.approx(10 / 12)  # {abcde}->{abcdefg}: 5, {hijkl}: 5
    assert s["ceafe_recall"] == pytest.approx((2 * 5 / 12 + 1) / 3)
    assert s["ceafe_precision"] == pytest.approx((2 * 5 / 12 + 1) / 2)
    # BLANC: key coref links 10+1+10=21, response 21+10=31, common 21; non-coref key 66-21=45,
    # response 66-31=35, common 35
    ra, rr, pa, pr = 21 / 21, 35 / 45, 21 / 31, 35 / 35
    assert s["blanc_recall"] == pytest.approx((ra + rr) / 2)
    assert s["blanc_precision"] == pytest.approx((pa + pr) / 2)


def test_twinless_mentions_in_key_and_response():
    key = [["a", "b"], ["c"]]
    resp = [["a", "x"], ["y"]]  # b, c missed; x, y invented
    s = evaluate_coref([resp], [key])
    assert s["mentions_recall"] == pytest.approx(1 / 3)
    assert s["mentions_precision"] == pytest.approx(1 / 3)
    assert s["muc_recall"] == 0.0 and s["muc_precision"] == 0.0
    assert s["bcub_recall"] == pytest.approx((1 / 2) / 3)
    assert s["bcub_precision"] == pytest.approx((1 / 2) / 3)


def test_documents_sum_numerators_and_denominators():
    d1 = ([["a", "b"]], [["a", "b"]])            # MUC 1/1
    d2 = ([["c"], ["d"], ["e"]], [["c", "d", "e"]])  # MUC 0/2 recall, precision 0/0
    s = evaluate_coref([d1[0], d2[0]], [d1[1], d2[1]])
    assert s["muc_recall"] == pytest.approx(1 / 3)  # not the mean of 1 and 0
    assert s["muc_precision"] == pytest.approx(1.0)
    per = evaluate_coref([d1[0], d2[0]], [d1[1], d2[1]], per_document=True, names=["one", "two"])["per_document"]
    assert [p["document"] for p in per] == ["one", "two"]
    assert per[0]["muc_f1"] == 1.0 and per[1]["muc_recall"] == 0.0 and per[1]["muc_precision"] == 0.0


def test_per_document_default_names_and_keys():
    res = evaluate_coref([[["a"]], [["b"]]], [[["a"]], [["b"]]], per_document=True)
    assert [p["document"] for p in res["per_document"]] == ["document 0", "document 1"]
    assert set(res["per_document"][0]) == {"document", *SCORE_KEYS}


def test_remove_singletons():
    key = [["a", "b"], ["c"], ["d"]]
    resp = [["a", "b"], ["c", "d"], ["e"]]
    kept = evaluate_coref([resp], [key])
    removed = evaluate_coref([resp], [key], remove_singletons=True)
    assert kept["mentions_recall"] == 1.0 and kept["mentions_precision"] == pytest.approx(4 / 5)
    # without singletons: key {a b}; response {a b}{c d}
    assert removed["mentions_recall"] == 1.0 and removed["mentions_precision"] == pytest.approx(2 / 4)
    assert removed["muc_recall"] == 1.0 and removed["muc_precision"] == pytest.approx(1 / 2)


def test_zero_denominators_score_zero():
    # response with only singletons: no response links -> MUC precision 0 (not NaN)
    s = evaluate_coref([[["a"], ["b"]]], [[["a", "b"]]])
    assert s["muc_precision"] == 0.0 and s["muc_f1"] == 0.0
    assert not any(np.isnan(v) for v in s.values())
    # empty response document: every precision is 0
    s = evaluate_coref([[]], [[["a", "b"]]])
    assert s["mentions_precision"] == 0.0 and s["bcub_precision"] == 0.0 and s["conll_f1"] == 0.0


def test_peeled_and_flow_only_ceaf_agree(monkeypatch):
    """Leaf peeling on (the default) and off (every edge through the min-cost flow): the same scores."""
    rng = random.Random(5)
    preds, refs = random_docs(rng, 30)
    peeled = evaluate_coref(preds, refs)
    monkeypatch.setattr(matching, "_peel", lambda ek, er, w, nk: ([], np.arange(len(w)), w))
    flow_only = evaluate_coref(preds, refs)
    assert flow_only == pytest.approx(peeled, abs=1e-12)


def test_large_single_document_is_linear_and_fast():
    import time

    rng = np.random.default_rng(0)
    n = 20_000
    labels = rng.integers(0, 3000, n)
    key = [[f"m{i}" for i in np.flatnonzero(labels == c)] for c in range(3000)]
    noisy = np.where(rng.random(n) < 0.1, rng.integers(0, 3000, n), labels)
    resp = [[f"m{i}" for i in np.flatnonzero(noisy == c)] for c in range(3000)]
    key = [c for c in key if c]
    resp = [c for c in resp if c]
    t0 = time.perf_counter()
    s = evaluate_coref([resp], [key])
    assert time.perf_counter() - t0 < 10  # generous; benchmarks/bench_coref.py measures speed
    assert 0.5 < s["conll_f1"] < 1.0


# ---------------------------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize(
    "preds, refs, message",
    [
        ([], [], "empty input"),
        ([[["a"]]], [], "empty input"),
        ([[["a"]]], [[["a"]], [["b"]]], "mismatched lengths"),
        ([[["a", 3]]], [[["a"]]], "prediction document 0, cluster 0: mention ids must be strings"),
        ([[["a"]]], [[[None]]], "reference document 0, cluster 0: mention ids must be strings"),
        ([[["a"]]], [["a"]], "reference document 0, cluster 0: a cluster must be a list"),
        (["abc"], [[["a"]]], "prediction document 0: a document must be a list"),
        ("abc", [[["a"]]], "predictions must be a list of documents"),
        ([[["a"]], [["b", "b"]]], [[["a"]], [["b"]]], "prediction document 1: duplicate mention 'b'"),
        ([[["a"]]], [[["a"], ["b", "a"]]], "reference document 0: duplicate mention 'a' \\(in clusters 0 and 1"),
        ([[["a"]], [["b"]]], [[], [[]]], "no key \\(reference\\) mentions in document 0, document 1"),
    ],
)
def test_bad_input(preds, refs, message):
    with pytest.raises(ValueError, match=message):
        evaluate_coref(preds, refs)


def test_no_key_mentions_after_removing_singletons():
    with pytest.raises(ValueError, match="after removing singletons"):
        evaluate_coref([[["a", "b"]]], [[["a"], ["b"]]], remove_singletons=True)


def test_a_document_without_key_mentions_is_fine_among_others():
    s = evaluate_coref([[["a", "b"]], [["x"]]], [[["a", "b"]], []], per_document=True)
    assert s["mentions_recall"] == 1.0 and s["mentions_precision"] == pytest.approx(2 / 3)
    assert s["per_document"][1]["mentions_recall"] == 0.0


# ---------------------------------------------------------------------------------------------
# bootstrap


def test_bootstrap_documents_shape_and_determinism():
    rng = random.Random(1)
    preds, refs = random_docs(rng, 25)
    ci = bootstrap_coref(preds, refs, n_resamples=200, seed=3)
    assert set(ci) == set(SCORE_KEYS)
    point = evaluate_coref(preds, refs)
    for _, iv in ci.items():
        assert iv["unit"] == "documents" and iv["n_resamples"] == 200 and iv["level"] == 0.95
        assert 0.0 <= iv["low"] <= iv["high"] <= 1.0
    assert ci["conll_f1"]["low"] <= point["conll_f1"] <= ci["conll_f1"]["high"]
    assert ci["conll_f1"]["low"] < ci["conll_f1"]["high"]
    assert bootstrap_coref(preds, refs, n_resamples=200, seed=3) == ci


def test_bootstrap_document_resample_equals_recomputed_scores():
    """A resample's statistic equals evaluate_coref on the drawn documents (with repeats)."""
    rng = random.Random(2)
    preds, refs = random_docs(rng, 6)
    counts = coref.document_counts(preds, refs)
    idx = np.array([0, 0, 3, 5, 5, 5])
    fast = coref.scores_from_counts(counts[idx].sum(axis=0))
    # repeated documents get distinct mention ids, so they are separate documents
    slow = evaluate_coref([preds[i] for i in idx], [refs[i] for i in idx])
    assert fast == pytest.approx(slow, abs=1e-12)


def test_bootstrap_cluster_units_equal_recomputed_scores():
    """Single document: summing unit counts equals scoring the drawn units as disjoint copies."""
    key = [["a", "b", "c"], ["d", "e"], ["f"], ["g", "h"]]
    resp = [["a", "b"], ["c", "d", "e"], ["f", "x"], ["y"], ["g"], ["h"]]
    flat = coref._flatten([resp], [key], remove_singletons=False, names=None)
    k_comp, r_comp, n_comp = coref._components(flat)
    raw = coref._raw_counts(flat, k_comp, r_comp, n_comp)
    # units: {abc, de | ab, cde}, {f | fx}, {y}, {gh | g, h}
    assert n_comp == 4
    idx = np.array([0, 0, 1, 3])
    fast = coref.scores_from_counts(coref._finalize_counts(raw[idx].sum(axis=0))[0])
    units_k = {0: [["a", "b", "c"], ["d", "e"]], 1: [["f"]], 2: [], 3: [["g", "h"]]}
    units_r = {0: [["a", "b"], ["c", "d", "e"]], 1: [["f", "x"]], 2: [["y"]], 3: [["g"], ["h"]]}
    label = {int(k_comp[0]): 0, int(k_comp[2]): 1, int(r_comp[3]): 2, int(k_comp[3]): 3}
    k_doc, r_doc = [], []
    for copy, u in enumerate(idx):
        unit = label[int(u)]
        k_doc += [[f"{m}#{copy}" for m in c] for c in units_k[unit]]
        r_doc += [[f"{m}#{copy}" for m in c] for c in units_r[unit]]
    slow = evaluate_coref([r_doc], [k_doc])
    assert fast == pytest.approx(slow, abs=1e-12)


def test_bootstrap_single_document_uses_clusters_and_is_fast():
    import time

    rng = np.random.default_rng(0)
    n = 1780  # ECB+ test size
    labels = rng.integers(0, 600, n)
    noisy = np.where(rng.random(n) < 0.15, rng.integers(0, 600, n), labels)
    key = [c for c in ([f"m{i}" for i in np.flatnonzero(labels == k)] for k in range(600)) if c]
    resp = [c for c in ([f"m{i}" for i in np.flatnonzero(noisy == k)] for k in range(600)) if c]
    t0 = time.perf_counter()
    ci = bootstrap_coref([resp], [key], n_resamples=1000, seed=0)
    elapsed = time.perf_counter() - t0
    assert ci["conll_f1"]["unit"] == "clusters"
    point = evaluate_coref([resp], [key])
    assert ci["conll_f1"]["low"] < point["conll_f1"] < ci["conll_f1"]["high"]
    assert elapsed < 30  # a few seconds normally; generous for a shared machine


@pytest.mark.parametrize("seed", range(30))
def test_reduced_ceaf_matching_equals_dense_assignment(seed, monkeypatch):
    """Peeling, the safe-edge reduction and the per-component solve give the optimum of linear_sum_assignment on
    the whole dense overlap matrix, for both CEAF weights (random responses: one big component)."""
    from scipy.optimize import linear_sum_assignment

    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 400))
    n_key = int(rng.integers(1, n))
    labels = rng.integers(0, n_key, n)
    key = [c for c in ([f"m{i}" for i in np.flatnonzero(labels == k)] for k in range(n_key)) if c]
    n_resp = int(rng.integers(1, n))
    noisy = np.where(rng.random(n) < rng.random(), rng.integers(0, n_resp, n), labels % n_resp)
    resp = [c for c in ([f"m{i}" for i in np.flatnonzero(noisy == k)] for k in range(n_resp)) if c]
    flat = coref._flatten([resp], [key], remove_singletons=False, names=None)
    ks, rs, en = flat.k_size, flat.r_size, flat.edge_n.astype(float)
    weights = [en, 2 * en / (ks[flat.edge_k] + rs[flat.edge_r])]
    for w, got in zip(weights, coref._ceaf_matchings(flat, weights)):
        dense = np.zeros((len(ks), len(rs)))
        dense[flat.edge_k, flat.edge_r] = w
        rows, cols = linear_sum_assignment(dense, maximize=True)
        assert got.sum() == pytest.approx(dense[rows, cols].sum(), rel=1e-13, abs=1e-13)
        # a matching: at most one chosen edge per cluster
        chosen = np.flatnonzero(got)
        assert len(set(flat.edge_k[chosen])) == len(chosen) == len(set(flat.edge_r[chosen]))


@pytest.mark.parametrize("seed", range(30))
def test_flow_matching_equals_dense_assignment(seed, monkeypatch):
    """The min-cost flow matching (odd seeds: CEAF-e rounded coarsely, so the certificate often fails
    and LAPJVsp repairs): still the dense optimum, both weights."""
    from scipy.optimize import linear_sum_assignment

    if seed % 2:
        monkeypatch.setattr(matching, "ROUNDED_MAX", 8)
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(20, 600))
    n_key = int(rng.integers(2, n // 2))
    labels = rng.integers(0, n_key, n)
    key = [c for c in ([f"m{i}" for i in np.flatnonzero(labels == k)] for k in range(n_key)) if c]
    noisy = np.where(rng.random(n) < 0.3 + 0.7 * rng.random(), rng.integers(0, n_key, n), labels)
    resp = [c for c in ([f"m{i}" for i in np.flatnonzero(noisy == k)] for k in range(n_key)) if c]
    flat = coref._flatten([resp], [key], remove_singletons=False, names=None)
    ks, rs, en = flat.k_size, flat.r_size, flat.edge_n.astype(float)
    weights = [en, 2 * en / (ks[flat.edge_k] + rs[flat.edge_r])]
    for w, got in zip(weights, coref._ceaf_matchings(flat, weights)):
        dense = np.zeros((len(ks), len(rs)))
        dense[flat.edge_k, flat.edge_r] = w
        rows, cols = linear_sum_assignment(dense, maximize=True)
        assert got.sum() == pytest.approx(dense[rows, cols].sum(), rel=1e-13, abs=1e-13)
        chosen = np.flatnonzero(got)
        assert len(set(flat.edge_k[chosen])) == len(chosen) == len(set(flat.edge_r[chosen]))
