"""bootstrap_coref: groups, disjoint copies, cut links, degenerate cases; the CLI and metric options."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

import figbench.scoring.coref as coref
from figbench.bootstrap import DEFAULT_RESAMPLES, interval_is_sane
from figbench.scoring.coref import SCORE_KEYS, bootstrap_coref, evaluate_coref

FIX = Path(__file__).resolve().parent / "fixtures" / "coref"


def _topics(n_topics: int, seed: int = 0):
    """Topics of a few clusters; the response splits/merges inside a topic only."""
    rng = random.Random(seed)
    key, resp, groups = [], [], {}
    for t in range(n_topics):
        ids = [f"t{t}m{i}" for i in range(rng.randint(2, 9))]
        labels = [rng.randrange(3) for _ in ids]
        noisy = [lab if rng.random() < 0.7 else rng.randrange(4) for lab in labels]
        key += [[m for m, lab in zip(ids, labels) if lab == c] for c in set(labels)]
        resp += [[m for m, lab in zip(ids, noisy) if lab == c] for c in set(noisy)]
        extra = f"t{t}x"  # a twinless response mention
        resp.append([extra])
        groups.update({m: f"topic{t}" for m in ids + [extra]})
    return [c for c in resp if c], [c for c in key if c], groups


def test_groups_resample_equals_scoring_disjoint_copies():
    """A resample's score equals evaluate_coref on the drawn groups, copies renamed apart."""
    resp, key, groups = _topics(6, seed=1)
    # a response cluster crossing topics 0 and 1: the restriction cuts it
    resp = [c for c in resp if c] + [["t0x2", "t1x2"]]
    groups.update({"t0x2": "topic0", "t1x2": "topic1"})
    raw, sizes, notes = coref._single_document_units(resp, key, remove_singletons=False, groups=groups)
    assert len(raw) == 6 and "cut 1 of" in notes[0]
    idx = np.array([0, 0, 2, 5, 5, 5])
    fast = coref.scores_from_counts(coref._finalize_counts(raw[idx].sum(axis=0))[0])
    # groups are numbered in order of first appearance in the key: topic0, topic1, ...
    k_doc, r_doc = [], []
    for copy, g in enumerate(idx):
        name = f"topic{g}"
        for side, out in ((key, k_doc), (resp, r_doc)):
            for c in side:
                part = [f"{m}#{copy}" for m in c if groups[m] == name]
                if part:
                    out.append(part)
    slow = evaluate_coref([r_doc], [k_doc])
    assert fast == pytest.approx(slow, abs=1e-12)
    vec = coref._scores_matrix(coref._finalize_counts(raw[idx].sum(axis=0)))
    assert {k: float(v[0]) for k, v in vec.items()} == pytest.approx(fast, abs=0)


def test_groups_interval_fields_and_cut_warning():
    resp, key, groups = _topics(40)
    ci = bootstrap_coref([resp], [key], groups=groups, unit="topics", n_resamples=300)
    assert set(ci) == set(SCORE_KEYS)
    point = evaluate_coref([resp], [key])
    for _, iv in ci.items():
        assert iv["unit"] == "topics" and iv["n_units"] == 40 and iv["n_resamples"] == 300
        assert "warning" not in iv
    assert interval_is_sane(point["conll_f1"], ci["conll_f1"])
    crossing = resp + [["t0x9", "t1x9", "t2x9"]]
    groups.update({"t0x9": "topic0", "t1x9": "topic1", "t2x9": "topic2"})
    ci = bootstrap_coref([crossing], [key], groups=groups, n_resamples=50)
    assert ci["muc_f1"]["unit"] == "groups"
    assert "the groups cut 3 of" in ci["muc_f1"]["warning"]
    assert "interval describes the scores with clusters restricted" in ci["muc_f1"]["warning"]


def test_groups_must_cover_every_mention():
    resp, key, groups = _topics(3)
    del groups["t1x"]
    with pytest.raises(ValueError, match="groups: no resampling unit for prediction mention 't1x'"):
        bootstrap_coref([resp], [key], groups=groups, n_resamples=10)


def test_several_documents_grouped_by_topic():
    docs_r, docs_k, groups = [], [], {}
    for d in range(30):
        r, k, g = _topics(1, seed=d)
        r = [[f"d{d}{m}" for m in c] for c in r]
        k = [[f"d{d}{m}" for m in c] for c in k]
        docs_r.append(r)
        docs_k.append(k)
        groups.update({f"d{d}{m}": f"topic{d // 3}" for m in g})
    ci = bootstrap_coref(docs_r, docs_k, groups=groups, unit="topics", n_resamples=100)
    assert ci["conll_f1"]["n_units"] == 10 and ci["conll_f1"]["unit"] == "topics"
    assert "only 10 topics" in ci["conll_f1"]["warning"]
    assert bootstrap_coref(docs_r, docs_k, n_resamples=100)["conll_f1"]["n_units"] == 30
    groups[docs_k[0][0][0]] = "elsewhere"
    with pytest.raises(ValueError, match="document 0 has mentions in 2 groups"):
        bootstrap_coref(docs_r, docs_k, groups=groups, n_resamples=10)


def _key(n_mentions: int, n_clusters: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, n_clusters, n_mentions)
    ids = np.array([f"m{i}" for i in range(n_mentions)], dtype=object)
    return ids, labels, [ids[labels == c].tolist() for c in range(n_clusters) if (labels == c).any()]


def test_merge_everything_falls_back_to_the_jackknife_with_a_warning():
    """The issue's case: one response cluster -> one overlap group, formerly [0.2692, 0.2692] silently."""
    ids, _, key = _key(2000, 300)
    response = [ids.tolist()]
    ci = bootstrap_coref([response], [key], n_resamples=200)
    iv = ci["conll_f1"]
    assert iv["unit"] == "key clusters (jackknife)" and iv["n_units"] == len(key) and iv["n_resamples"] == 20
    assert "links 100% of the mentions into one of 1 groups" in iv["warning"]
    assert "delete-a-group jackknife over key clusters" in iv["warning"]
    point = evaluate_coref([response], [key])
    assert iv["low"] < point["conll_f1"] < iv["high"]
    assert interval_is_sane(point["conll_f1"], iv)
    assert ci["mentions_f1"]["low"] == ci["mentions_f1"]["high"] == 1.0  # nothing varies at the bound


def test_random_response_giant_group_falls_back_to_the_jackknife():
    """The issue's case (0.237 with [0.225, 0.583] before): random clusters link almost everything."""
    ids, labels, key = _key(2000, 1200)
    noisy = np.random.default_rng(1).integers(0, 1200, len(ids))
    resp = [ids[noisy == c].tolist() for c in range(1200) if (noisy == c).any()]
    iv = bootstrap_coref([resp], [key], n_resamples=200)["conll_f1"]
    assert "of the mentions into one of" in iv["warning"] and iv["unit"] == "key clusters (jackknife)"
    assert interval_is_sane(evaluate_coref([resp], [key])["conll_f1"], iv)


def test_jackknife_replicate_equals_rescoring_the_rest():
    """Leaving units out of the flat arrays equals scoring the documents without them."""
    resp, key, _ = _topics(30, seed=4)
    resp = resp + [["lonely1", "lonely2"]]  # a response cluster without key mentions: its own unit
    flat = coref._flatten([resp], [key], remove_singletons=False, names=None)
    _, owner, twinless, n_units = coref._jackknife_units(flat)
    keyless = [c for c in resp if not any(m in {x for k in key for x in k} for m in c)]
    assert n_units == len(key) + len(keyless) and keyless[-1] == ["lonely1", "lonely2"]
    dropped = np.zeros(n_units, dtype=bool)
    dropped[[0, 3, 7, n_units - 1]] = True
    fast = coref._flat_scores(coref._without_units(flat, dropped, owner, twinless))
    gone = {m for i in (0, 3, 7) for m in key[i]} | {"lonely1", "lonely2"}
    # twinless mentions go with the key cluster sharing most mentions with their response cluster
    k_of = {m: i for i, c in enumerate(key) for m in c}
    for c in resp:
        shared = [k_of[m] for m in c if m in k_of]
        if shared:
            best = max(set(shared), key=lambda i: (shared.count(i), -i))
            if best in (0, 3, 7):
                gone |= {m for m in c if m not in k_of}
    slow = evaluate_coref([[x for x in ([m for m in c if m not in gone] for c in resp) if x]],
                          [[c for i, c in enumerate(key) if i not in (0, 3, 7)]])
    assert fast == pytest.approx(slow, abs=1e-12)


def test_default_single_document_unit_is_overlap_groups():
    resp, key, _ = _topics(60, seed=3)
    ci = bootstrap_coref([resp], [key], n_resamples=200)
    iv = ci["conll_f1"]
    assert iv["unit"] == "clusters" and iv["n_units"] > 60 and "warning" not in iv
    assert interval_is_sane(evaluate_coref([resp], [key])["conll_f1"], iv)


def test_default_resamples_is_shared():
    resp, key, _ = _topics(25)
    assert bootstrap_coref([resp], [key])["muc_f1"]["n_resamples"] == DEFAULT_RESAMPLES


def test_cli_bootstrap_default_and_off(capsys):
    from figbench.cli import main

    key, response = str(FIX / "nested.key.conll"), str(FIX / "nested.response.conll")
    assert main(["score", "coref", key, response, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    iv = result["confidence_intervals"]["conll_f1"]
    assert iv["n_resamples"] == DEFAULT_RESAMPLES and iv["n_units"] == 2 and "only 2 documents" in iv["warning"]
    assert main(["score", "coref", key, response, "--json", "--n-resamples", "0"]) == 0
    assert "confidence_intervals" not in json.loads(capsys.readouterr().out)
    assert main(["score", "coref", key, response]) == 0
    out = capsys.readouterr().out
    assert "bootstrap intervals (1000 resamples of 2 documents)" in out and "WARNING (confidence intervals)" in out


def test_metric_groups_and_direct_path():
    import evaluate

    import figbench

    metric = evaluate.load(figbench.metric_path("conll_coref"))
    resp, key, groups = _topics(25)
    out = metric.compute(predictions=[resp], references=[key], n_resamples=100, groups=groups, unit="topics")
    assert out["confidence_intervals"]["conll_f1"]["unit"] == "topics"
    assert out["confidence_intervals"]["conll_f1"]["n_units"] == 25
    assert {k: out[k] for k in SCORE_KEYS} == evaluate_coref([resp], [key])
    # add_batch then compute() still goes through evaluate's Arrow path
    metric.add_batch(predictions=[resp], references=[key])
    assert metric.compute()["conll_f1"] == pytest.approx(out["conll_f1"], abs=1e-15)
    with pytest.raises(ValueError, match="mention ids must be strings"):
        metric.compute(predictions=[[[1, 2]]], references=[[["1", "2"]]])
