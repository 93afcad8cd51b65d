"""Trained and prompted cdec scorers on tiny models built from configs (code paths only, no quality claims)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import numpy as np
import pytest
from figbench_baselines.cdec.pipeline import run

from figbench.results import validate_result
from tests.cdec_args import cdec_args as _args


@pytest.fixture(scope="module")
def tiny_gpt(tmp_path_factory):
    """A 1-layer GPT-2 (random weights) with the MiniLM tokenizer, saved to a folder."""
    from figbench_baselines.common.encoder import default_model_path
    from transformers import AutoTokenizer, GPT2Config, GPT2LMHeadModel

    path = tmp_path_factory.mktemp("tiny_gpt")
    tok = AutoTokenizer.from_pretrained(default_model_path())
    cfg = GPT2Config(vocab_size=len(tok), n_positions=512, n_embd=32, n_layer=1, n_head=2)
    GPT2LMHeadModel(cfg).save_pretrained(path)
    tok.save_pretrained(path)
    return str(path)




def test_knn_oracle_with_triplet_trained_biencoder(rows, train_rows, tiny_bert, tmp_path):
    args = _args(train_rows, method="knn_oracle", model=tiny_bert, k=2, biencoder_steps=2, batch_size=2,
                 checkpoint_dir=str(tmp_path / "ckpt"), checkpoint_every=1)
    rec = run(args, rows=rows)
    validate_result(rec)
    assert rec["options"]["biencoder_trained"] is True and rec["options"]["biencoder_train_steps"] == 2
    assert rec["options"]["biencoder_margin"] == 10.0
    assert rec["provenance"]["throughput"]["encode_mentions_per_s"] > 0
    assert rec["scores"]["bcub_precision"] == pytest.approx(1.0)  # oracle never merges wrongly
    assert (tmp_path / "ckpt" / "LATEST").is_file()
    # k=2 within topics of 6 and 5 mentions: each mention has 2 neighbours
    assert rec["counts"]["candidate_pairs"] >= len(rows)
    # KNN keeps pairs of one sentence (only LH's filter drops them), and its record says so
    assert rec["options"]["skip_same_sentence"] is False


def test_triplets_follow_gold(train_rows):
    from figbench_baselines.cdec.models.biencoder import make_triplets

    trip = make_triplets(train_rows, seed=0)
    cid = [r["cluster_id"] for r in train_rows]
    assert trip and all(cid[a] == cid[p] and cid[a] != cid[n] for a, p, n in trip)
    with pytest.raises(ValueError, match="two or more"):
        make_triplets([dict(r, cluster_id=str(i)) for i, r in enumerate(train_rows)])


def test_hard_negatives_share_the_anchors_lemma_when_they_can(train_rows):
    """Issue 22: random negatives rarely share the anchor's trigger while positives often do."""
    from figbench_baselines.cdec.models.biencoder import make_triplets

    rows = [dict(r) for r in train_rows]
    cid = [r["cluster_id"] for r in rows]
    lemma = [str(r["head_lemma"]).lower() for r in rows]
    topic = [str(r.get("topic", "")) for r in rows]
    hard = make_triplets(rows, seed=0, negatives="hard")
    assert hard and all(cid[a] == cid[p] and cid[a] != cid[n] and topic[a] == topic[n] for a, p, n in hard)
    for a, _, n in hard:
        confusable = [j for j in range(len(rows)) if topic[j] == topic[a] and lemma[j] == lemma[a] and cid[j] != cid[a]]
        if confusable:
            assert lemma[n] == lemma[a], (a, n)
    # a topic where another cluster shares every anchor's lemma: every negative is such a confusion
    twin = [dict(r, head_lemma="strike", topic="t") for r in rows]
    tcid = [r["cluster_id"] for r in twin]
    assert all(tcid[a] != tcid[n] for a, _, n in make_triplets(twin, seed=1, negatives="hard"))
    with pytest.raises(ValueError, match="negatives"):
        make_triplets(rows, negatives="nearest")
    # mixed: in the all-confusable topic some negatives share the lemma... and in the real rows about half of
    # the anchors that have a confusable mention get one
    mixed = make_triplets(rows, seed=0, negatives="mixed")
    assert all(cid[a] == cid[p] and cid[a] != cid[n] for a, p, n in mixed)
    with_conf = [(a, n) for a, _, n in mixed
                 if any(topic[j] == topic[a] and lemma[j] == lemma[a] and cid[j] != cid[a] for j in range(len(rows)))]
    if len(with_conf) >= 8:
        share = sum(lemma[n] == lemma[a] for a, n in with_conf) / len(with_conf)
        assert 0.2 < share < 0.9, share


def test_selection_sources_and_rows_keep_corpora_apart(rows):
    """--biencoder-select: bare splits are ECB+'s; several sources are one list whose later sources' ids,
    topics and clusters are prefixed (ECB+META reuses ECB+'s ids), so no group or cluster spans two
    sources; bad entries name themselves."""
    from figbench_baselines.cdec.models import biencoder
    from figbench_baselines.cdec.steps.oracle import oracle_bcubed_recall

    assert biencoder.selection_sources("validation, ecbmeta/meta_m/validation") == [
        "ecbplus/events/validation", "ecbmeta/meta_m/validation"]
    for bad in ("", " , ", "ecbmeta/validation", "a//b"):
        with pytest.raises(ValueError, match="biencoder-select"):
            biencoder.selection_sources(bad)
    merged = biencoder.merge_sources([("ecbplus/events/validation", rows), ("ecbmeta/meta_m/validation", rows)])
    n = len(rows)
    assert len(merged) == 2 * n and merged[:n] == [dict(r) for r in rows]
    assert {r["mention_id"] for r in merged[:n]}.isdisjoint(r["mention_id"] for r in merged[n:])
    assert {r["cluster_id"] for r in merged[:n]}.isdisjoint(r["cluster_id"] for r in merged[n:])
    assert {r["subtopic"] for r in merged[:n]}.isdisjoint(r["subtopic"] for r in merged[n:])
    assert merged[n]["text"] == rows[0]["text"] and merged[n]["mention_id"].endswith(":" + rows[0]["mention_id"])
    # the oracle on the merged list is the mention-weighted mean of the two (identical) sources' oracles
    pairs = np.array([[i, j] for i in range(n) for j in range(i + 1, n) if rows[i]["subtopic"] == rows[j]["subtopic"]]
                     ).reshape(-1, 2)
    both = np.concatenate([pairs, pairs + n])
    assert oracle_bcubed_recall(merged, both) == pytest.approx(oracle_bcubed_recall(rows, pairs))


def test_normalized_biencoder_with_selection_keeps_the_best_epoch(rows, train_rows, tiny_bert, tmp_path):
    """Unit vectors (margin on their scale) and model selection on held-out mentions: the statistics say
    which epoch was kept, and the saved model re-encodes to the same unit vectors."""
    import numpy as np
    from figbench_baselines.cdec.models.biencoder import get_embeddings

    save = tmp_path / "be"
    args = _args(train_rows, method="knn_oracle", model=tiny_bert, k=2, batch_size=2, biencoder_epochs=2,
                 biencoder_negatives="hard", biencoder_normalize=True, margin=0.3, save_model=str(save))
    args.select_rows = rows
    rec = run(args, rows=rows)
    validate_result(rec)
    training = rec["provenance"]["training"]["biencoder"]
    assert training["negatives"] == "hard" and training["normalize"] is True
    sel = training["train_stats"]["selection"]
    assert [h["epoch"] for h in sel["history"]] == [0.0, 1.0, 2.0]
    best = max(sel["history"], key=lambda h: h["oracle_bcub_recall"])
    assert sel["best_score"] == best["oracle_bcub_recall"]
    # the kept weights are the best epoch's: re-scoring them on the same rows gives the best score
    assert rec["scores"]["bcub_recall"] == pytest.approx(sel["best_score"])
    emb, info = get_embeddings(rows, _args(train_rows, method="knn_oracle", model=tiny_bert, biencoder=str(save),
                                           no_cache=True))
    assert info["biencoder_normalize"] is True and np.allclose(np.linalg.norm(emb, axis=1), 1.0, atol=1e-5)


@pytest.mark.parametrize("method", ["ce_lh", "ce_knn"])
def test_crossencoder_quick(rows, train_rows, tiny_bert, tmp_path, method):
    save = tmp_path / "ce"
    # k=5 over the 6 training mentions: every pair of the topic is a KNN candidate, so both labels occur
    # (with k=2 whether a coreferent pair is among the neighbours depends on the random weights)
    args = _args(train_rows, method=method, model=tiny_bert, max_steps=2, batch_size=2, k=5,
                 no_train_biencoder=True, save_model=str(save))
    rec = run(args, rows=rows)
    validate_result(rec)
    assert rec["model"]["type"] == "fine-tuned encoder" and rec["model"]["parameters"] > 0
    training = rec["provenance"]["training"]["crossencoder"]
    assert training["train_stats"]["train_steps"] == 2
    assert rec["counts"]["n_training_pairs"] == training["n_training_pairs"] > 0
    assert rec["provenance"]["train_wall_time_s"] > 0 and rec["provenance"]["eval_wall_time_s"] > 0
    assert rec["provenance"]["throughput"]["ce_pairs_per_s"] > 0
    assert (save / "crossencoder.pt").is_file() and (save / "train_info.json").is_file()
    # loading the saved model gives the same scores as the trained one
    args2 = _args(train_rows, method=method, model=tiny_bert, k=5, no_train_biencoder=True, load_model=str(save))
    rec2 = run(args2, rows=rows)
    assert rec2["scores"] == pytest.approx(rec["scores"])
    # the evaluation record carries the training's provenance
    assert rec2["provenance"]["training"]["crossencoder"]["loaded_from"] == str(save)
    assert rec2["provenance"]["train_wall_time_s"] == pytest.approx(training["train_wall_time_s"], abs=0.1)
    assert rec2["counts"]["n_training_pairs"] == rec["counts"]["n_training_pairs"]


def test_crossencoder_single_label_training_is_an_error(tiny_bert):
    from figbench_baselines.cdec.models.crossencoder import load_crossencoder, train_crossencoder
    from figbench_baselines.common.training import TrainConfig

    tok, model = load_crossencoder(tiny_bert)
    with pytest.raises(ValueError, match="same label"):
        train_crossencoder(model, tok, [{}], np.array([[0, 0]]), np.array([1.0]), TrainConfig())
    with pytest.raises(ValueError, match="no candidate pairs"):
        train_crossencoder(model, tok, [{}], np.zeros((0, 2), dtype=int), np.zeros(0), TrainConfig())


def test_wec_pairwise_quick(rows, train_rows, tiny_bert):
    args = _args(train_rows, method="wec_pairwise", model=tiny_bert, max_steps=3)
    args.tune_rows = rows
    rec = run(args, rows=rows)
    validate_result(rec)
    assert rec["options"]["clustering"] == "average"
    assert 0.3 <= rec["options"]["cluster_threshold"] <= 0.95
    assert rec["options"]["wec_negatives"] == "within"  # ECB+: every pair inside a group, as the WEC code
    # all pairs inside the two topics: 6*5/2 + 5*4/2
    assert rec["counts"]["candidate_pairs"] == 25


def test_wec_training_pairs_negative_sampling(train_rows):
    from figbench_baselines.cdec.models.wec_pairwise import training_pairs

    pairs, labels = training_pairs(train_rows, k_neg=10, seed=0)
    assert labels.sum() == 2 and (labels == 0).sum() == 20
    cid = [r["cluster_id"] for r in train_rows]
    assert all((cid[a] == cid[b]) == bool(y) for (a, b), y in zip(pairs.tolist(), labels))


def test_unloadable_model_is_a_clear_error(rows, train_rows, tmp_path):
    from figbench_baselines.common.encoder import ModelLoadError

    with pytest.raises(ModelLoadError, match="no_such_model"):
        run(_args(train_rows, method="ce_lh", model=str(tmp_path / "no_such_model")), rows=rows)


def test_llm_transformers_backend_with_cache(rows, train_rows, tiny_gpt, tmp_path):
    cache = tmp_path / "llm.jsonl"
    rec = run(_args(train_rows, method="llm_lh", llm_model=tiny_gpt, llm_cache=str(cache)), rows=rows)
    validate_result(rec)
    assert rec["model"]["type"] == "prompted LLM"
    n_pairs = rec["counts"]["candidate_pairs"]
    assert rec["options"]["llm_calls"] == n_pairs and len(cache.read_text().splitlines()) == n_pairs
    scores = [json.loads(line)["score"] for line in cache.read_text().splitlines()]
    assert all(0.0 <= s <= 1.0 for s in scores)
    rec2 = run(_args(train_rows, method="llm_lh", llm_model=tiny_gpt, llm_cache=str(cache)), rows=rows)
    assert rec2["options"]["llm_calls"] == 0 and rec2["options"]["llm_cache_hits"] == n_pairs
    assert rec2["scores"] == pytest.approx(rec["scores"])


class _Handler(BaseHTTPRequestHandler):
    requests: list = []

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _Handler.requests.append(body)
        prompt = body["messages"][0]["content"].split("Sentence A:", 1)[1]
        spans = [s.split("</m>")[0].strip().lower() for s in prompt.split("<m>")[1:]]
        same = len(spans) == 2 and (spans[0] in spans[1] or spans[1] in spans[0])
        reply = {"choices": [{"message": {"role": "assistant", "content": "Yes." if same else "No"}}]}
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *a):
        pass


@pytest.fixture()
def endpoint():
    server = HTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Handler.requests = []
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_llm_openai_compatible_endpoint(rows, train_rows, endpoint, tmp_path):
    cache = tmp_path / "ep.jsonl"
    rec = run(_args(train_rows, method="llm_lh", llm_model="test-model", llm_endpoint=endpoint,
                    llm_cache=str(cache)), rows=rows)
    n = rec["counts"]["candidate_pairs"]
    assert len(_Handler.requests) == n and _Handler.requests[0]["model"] == "test-model"
    assert _Handler.requests[0]["temperature"] == 0
    clusters = {frozenset(c) for c in rec["predictions"]["inline"]["clusters"]}
    # "quake" inside "earthquake": the fake LLM says yes; fired/sacked: no
    assert frozenset({"t2_d1_m1", "t2_d2_m1"}) in clusters
    assert frozenset({"t1_d1_m1"}) in clusters
    run(_args(train_rows, method="llm_lh", llm_model="test-model", llm_endpoint=endpoint, llm_cache=str(cache)),
        rows=rows)
    assert len(_Handler.requests) == n  # everything answered from the cache


def test_llm_unreachable_endpoint_is_a_clear_error(rows, train_rows, tmp_path):
    from figbench_baselines.cdec.models.llm import LLMEndpointError

    with pytest.raises(LLMEndpointError, match="127.0.0.1:9"):
        run(_args(train_rows, method="llm_lh", llm_model="m", llm_endpoint="http://127.0.0.1:9/v1",
                  llm_cache=str(tmp_path / "c.jsonl")), rows=rows)
    with pytest.raises(ValueError, match="--llm-model"):
        run(_args(train_rows, method="llm_lh"), rows=rows)


def test_trained_runs_are_reproducible_with_a_seed(rows, train_rows, tiny_bert):
    from figbench_baselines.cdec.models.crossencoder import run_crossencoder
    from figbench_baselines.cdec.pipeline import _train_candidates
    from figbench_baselines.cdec.steps.filters import lh_pairs, synonymous_lemma_pairs

    pairs = lh_pairs(rows, synonymous_lemma_pairs(train_rows), 0.05, within="topic")

    def once(seed):
        args = _args(train_rows, method="ce_lh", model=tiny_bert, max_steps=2, batch_size=2, seed=seed)
        scores, _ = run_crossencoder(rows, pairs, args, candidate_fn=lambda r: _train_candidates(r, args))
        return scores

    a, b, c = once(3), once(3), once(4)
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)
