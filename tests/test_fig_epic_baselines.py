"""ePiC baselines: ranking, similar narratives, span scoring, keywords, generation scores, CLI runs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from figbench_baselines.epic import alignment as A
from figbench_baselines.epic import generation as G
from figbench_baselines.epic import prediction as P
from figbench_baselines.epic import similar as S

import figbench
from figbench.cli import main
from figbench.results import read_result
from tests.conftest import corpus_path, tiny_models

FIX = Path(__file__).parent / "fixtures" / "fig"


def _tiny():
    return tiny_models()


def test_ranking_scores_by_hand():
    from figbench.scoring.ranking import ranks_from_scores, score_rankings

    scores = np.array([[0.9, 0.1, 0.0], [0.2, 0.5, 0.7], [0.3, 0.3, 0.1]])
    gold = [0, 1, 1]  # ranks 1, 2, 2 (the tie in row 3 goes to the lower candidate index)
    ids = ["a", "b", "c"]
    s = score_rankings([ids[g] for g in gold], P.top_k(scores, ids, 3), n_resamples=0).scores
    assert s["accuracy"] == pytest.approx(1 / 3)
    assert s["mrr"] == pytest.approx((1 + 0.5 + 0.5) / 3)
    assert P.top_k(scores, ["a", "b", "c"], 2)[1] == ["c", "b"]
    # ranks equal the gold's position in the submitted ranking, ties included
    for gold in ([0, 1, 1], [0, 2, 0], [1, 0, 2]):
        ranking = P.top_k(scores, ids, 3)
        expected = [ranking[i].index(ids[g]) + 1 for i, g in enumerate(gold)]
        assert ranks_from_scores(scores, gold).tolist() == expected


def test_bm25_prefers_lexical_overlap():
    scores, stats = P.bm25_scores(["the early bird catches the worm every day"],
                                  ["Ignorance is bliss", "The early bird catches the worm",
                                   "Home is where the heart is"])
    assert scores.shape == (1, 3) and scores[0, 1] > max(scores[0, 0], scores[0, 2])
    assert stats["inference_examples_per_s"] > 0


def test_similar_by_distribution_matches_brute_force():
    rng = np.random.default_rng(1)
    d = S.softmax(rng.normal(size=(7, 4)))
    assert np.allclose(d.sum(1), 1)
    from scipy.spatial.distance import jensenshannon

    nn = S.by_distribution(d, "js")
    for i in range(7):
        dist = [jensenshannon(d[i], d[j]) if j != i else np.inf for j in range(7)]
        assert nn[i] == int(np.argmin(dist))
    for i, j in enumerate(S.by_distribution(d, "l1")):
        assert j == int(np.argmin([np.abs(d[i] - d[k]).sum() if k != i else np.inf for k in range(7)]))
    emb = np.array([[1, 0], [0.9, 0.1], [0, 1], [0.1, 0.9]])
    assert list(S.by_embedding(emb)) == [1, 0, 3, 2]
    from figbench.scoring.ranking import score_neighbours

    ids = ["a", "b", "c", "d"]
    nearest = {ids[i]: ids[j] for i, j in enumerate([1, 0, 3, 2])}
    labels = dict(zip(ids, ["p", "p", "q", "r"]))
    assert score_neighbours(labels, nearest, ids, n_resamples=0).scores["accuracy"] == 0.5  # hits 1, 1, 0, 0
    with pytest.raises(ValueError, match="at least two"):
        S.nearest_other(np.zeros((1, 1)))


def test_best_span_respects_context_and_order():
    offsets = [None, None, (0, 3), (4, 8), (9, 12), None]
    start = np.array([9, 9, 0.1, 2.0, 0.5, 9])
    end = np.array([9, 9, 3.0, 0.1, 1.0, 9])
    # best valid start<=end inside the narrative: start 3 (2.0) + end 4 (1.0) = 3.0 vs start 2 + end 2 = 3.1
    assert A.best_span(start, end, offsets) == (0, 3)
    assert A.best_span(start, end, [None] * 6) == (0, 0)


def test_qa_features_gold_positions_map_back_to_gold_text():
    from figbench_baselines.common.encoder import default_model_path
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(default_model_path())
    narrative = "Tom saved coins for years. Finally he bought a small boat and sailed away."
    start = narrative.index("he bought")
    ex = {"question": "a penny saved | A penny saved is a penny earned", "narrative": narrative,
          "start": start, "end": start + len("he bought a small boat")}
    feats, offsets, truncated = A.qa_features(tok, [ex])
    f, o = feats[0], offsets[0]
    assert truncated == 0
    assert narrative[o[f["start_positions"]][0]:o[f["end_positions"]][1]] == "he bought a small boat"


def test_lexical_spans_pick_the_overlapping_sentence():
    ex = {"question": "birds of a feather", "narrative": "The sky was grey. Birds of one feather flew together! End."}
    s, e = A.lexical_spans([ex])[0]
    assert ex["narrative"][s:e] == "Birds of one feather flew together!"


def test_heuristic_keywords_and_recall():
    kws = G.heuristic_keywords("Yesterday Anna Smith walked to Paris. She bought bread and was thinking of times past.")
    assert "Anna Smith" in kws and "Paris" in kws
    assert "walked" in kws and "bought" in kws and "thinking" in kws
    assert "Yesterday" not in kws and "times" not in kws and "She" not in kws
    assert G.keyword_recall("anna smith went to paris", ["Anna Smith", "Paris", "walked"]) == pytest.approx(2 / 3)
    assert G.keyword_recall("anything", []) == 1.0


def test_generation_scores_equal_sacrebleu_and_rouge():
    import sacrebleu
    from rouge_score import rouge_scorer

    from figbench.scoring.text import text_scores, text_unit_stats

    hyps = ["the cat sat on the mat", "a dog ran far away", "hello there"]
    refs = ["the cat sat on a mat", "the dog ran away", "general kenobi"]
    kws = [["cat"], ["dog", "far"], ["hi"]]
    bleu, stats, rouge = text_unit_stats(hyps, refs)
    s = {**text_scores(bleu, stats, rouge),
         "keyword_recall": np.mean([G.keyword_recall(h, k) for h, k in zip(hyps, kws)])}
    assert s["bleu"] == pytest.approx(sacrebleu.corpus_bleu(hyps, [refs]).score / 100)
    sc = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)
    assert s["rougeL"] == pytest.approx(np.mean([sc.score(r, h)["rougeL"].fmeasure for h, r in zip(hyps, refs)]))
    assert s["keyword_recall"] == pytest.approx((1 + 1 + 0) / 3)
    sub = text_scores(bleu, stats, rouge, np.array([0, 0]))
    assert sub["bleu"] == pytest.approx(sacrebleu.corpus_bleu(hyps[:1] * 2, [refs[:1] * 2]).score / 100)


# ------------------------------------------------------------------ CLI on the real corpus

@pytest.fixture(scope="module")
def epic_dir():
    return str(corpus_path("epic", "full_dataset.json").parent)


def _run(args, out):
    assert main(["baseline", "epic", *args, "--out", str(out), "--n-resamples", "30"]) == 0
    return read_result(out)


@pytest.fixture(scope="module")
def bm25_seen(epic_dir, tmp_path_factory):
    """``baseline epic --task prediction --method bm25`` on the seen test split: its record file (one run, read by
    the bm25 test and piped into the pipelined alignment)."""
    out = tmp_path_factory.mktemp("bm25") / "s.json"
    _run(["--task", "prediction", "--method", "bm25", "--data-dir", epic_dir], out)
    return out


def test_cli_bm25_seen_and_unseen(epic_dir, bm25_seen, tmp_path):
    rec = read_result(bm25_seen)
    assert rec["counts"]["n_candidates"] == 250 and rec["counts"]["n_test"] == 1000
    preds = rec["predictions"]["inline"]
    assert all(len(v) == 250 and len(set(v)) == 250 for v in preds.values())  # the full ranking
    assert 0 <= rec["scores"]["accuracy"] <= rec["scores"]["mrr"] <= 1
    # the reported scores are those of the submitted ranking
    from figbench import load_dataset

    gold = {r["id"]: r["proverb_id"] for r in load_dataset("epic", "seen", split="test", data_dir=epic_dir)}
    rr = [1 / (preds[i].index(g) + 1) for i, g in gold.items()]
    assert rec["scores"]["mrr"] == pytest.approx(sum(rr) / len(rr), abs=1e-12)
    rec_u = _run(["--task", "prediction", "--method", "bm25", "--config", "unseen", "--data-dir", epic_dir],
                 tmp_path / "u.json")
    assert rec_u["counts"]["n_candidates"] == 100


def test_cli_finetuned_prediction_and_similar_with_tiny_model(epic_dir, tmp_path):
    model = _tiny().tiny_bert(tmp_path / "tiny")
    rec = _run(["--task", "prediction", "--method", "finetune", "--model", model, "--max-train", "16",
                "--max-test", "20", "--max-steps", "2", "--batch-size", "8", "--data-dir", epic_dir],
               tmp_path / "f.json")
    assert rec["model"]["type"] == "fine-tuned encoder" and rec["model"]["train_steps"] == 2
    assert rec["provenance"]["throughput"]["train_examples_per_s"] > 0
    rec = _run(["--task", "similar", "--method", "distribution", "--scorer", "embedding", "--model", model,
                "--max-test", "30", "--data-dir", epic_dir], tmp_path / "d.json")
    assert {"accuracy_cosine", "accuracy_js", "accuracy_l2", "accuracy_l1"} <= set(rec["scores"])
    assert rec["scores"]["accuracy"] == rec["scores"]["accuracy_js"]
    ids = set(rec["predictions"]["inline"])
    assert all(v in ids and v != k for k, v in rec["predictions"]["inline"].items())


def test_cli_alignment_lexical_and_pipelined(epic_dir, bm25_seen, tmp_path):
    rec = _run(["--task", "alignment", "--method", "lexical", "--data-dir", epic_dir], tmp_path / "a.json")
    assert rec["counts"]["n_test_pairs"] > 1000 and 0 < rec["scores"]["token_f1"] < 1
    # pipelined with a prediction record: a wrong proverb zeroes that narrative's spans
    pred = read_result(bm25_seen)
    rec_p = _run(["--task", "alignment", "--method", "lexical", "--pipeline", str(bm25_seen),
                  "--data-dir", epic_dir], tmp_path / "ap.json")
    top1 = pred["predictions"]["inline"]
    # gold proverbs from the dataset (issue 13: narrative ids no longer name the proverb, as Q12N3 did)
    seen_test = figbench.load_dataset("epic", "seen", split="test", data_dir=epic_dir)
    gold = dict(zip(seen_test["id"], seen_test["proverb_id"]))
    wrong = {k for k, v in top1.items() if v[0] != gold[k]}
    assert rec_p["counts"]["n_wrong_proverb_narratives"] == len(wrong) > 900
    assert rec_p["scores"]["token_f1"] < rec["scores"]["token_f1"]
    for pair_id, span in rec_p["predictions"]["inline"].items():
        if pair_id.rsplit("-", 1)[0] in wrong:
            assert span == [0, 0]


def test_cli_alignment_finetune_tiny(epic_dir, tmp_path):
    model = _tiny().tiny_bert(tmp_path / "tiny")
    rec = _run(["--task", "alignment", "--method", "finetune", "--model", model, "--max-train", "6", "--max-test", "5",
                "--max-steps", "2", "--batch-size", "4", "--data-dir", epic_dir], tmp_path / "af.json")
    assert rec["task"] == "proverb_alignment" and rec["options"]["train_steps"] == 2
    assert rec["provenance"]["throughput"]["inference_examples_per_s"] > 0


def test_cli_generation_keywords_and_tiny_t5(epic_dir, tmp_path):
    rec = _run(["--task", "generation", "--method", "keywords", "--max-test", "50", "--data-dir", epic_dir],
               tmp_path / "g.json")
    assert rec["scores"]["keyword_recall"] == 1.0 and rec["task"] == "narrative_generation"
    t5 = _tiny().tiny_t5(tmp_path / "t5")
    rec = _run(["--task", "generation", "--method", "seq2seq", "--model", t5, "--max-train", "8", "--max-test", "4",
                "--max-steps", "2", "--batch-size", "4", "--data-dir", epic_dir], tmp_path / "g2.json")
    assert len(rec["predictions"]["inline"]) == 4 and rec["options"]["train_steps"] == 2


def test_cli_generation_seq2seq_needs_model(epic_dir, tmp_path, capsys):
    out = tmp_path / "x.json"
    assert main(["baseline", "epic", "--task", "generation", "--method", "seq2seq", "--data-dir", epic_dir,
                 "--out", str(out)]) == 1
    assert "needs --model" in capsys.readouterr().err and not out.exists()


def test_cli_unknown_method_for_task(epic_dir, tmp_path, capsys):
    out = tmp_path / "x.json"
    assert main(["baseline", "epic", "--task", "alignment", "--method", "bm25", "--data-dir", epic_dir,
                 "--out", str(out)]) == 1
    assert "unknown method" in capsys.readouterr().err


def test_frozen_embedding_cache(tmp_path, monkeypatch):
    from figbench_baselines.common.figurative import embed_texts, embedding_cache_path, load_encoder

    monkeypatch.setenv("FIGBENCH_CACHE", str(tmp_path / "cache"))
    tok, model = load_encoder(_tiny().tiny_bert(tmp_path / "tiny"))
    texts = ["a penny saved", "is a penny earned", "birds of a feather"]
    first, s1 = embed_texts(texts, tok, model)
    assert "embed_cached" not in s1 and embedding_cache_path(model, texts, max_length=256, normalize=True).is_file()
    again, s2 = embed_texts(texts, tok, model)
    assert s2["embed_cached"] == 1.0 and np.array_equal(first, again)
    other, s3 = embed_texts(texts[:2], tok, model)  # different texts: a different entry
    assert "embed_cached" not in s3 and np.allclose(other, first[:2], atol=1e-5)
    model._figbench_finetuned = True  # a fine-tuned model is never served from the cache
    assert embedding_cache_path(model, texts, max_length=256, normalize=True) is None
    monkeypatch.setenv("FIGBENCH_CACHE", "off")
    model._figbench_finetuned = False
    assert embedding_cache_path(model, texts, max_length=256, normalize=True) is None


def test_processes_embedding_the_same_texts_at_once_compute_them_once(tmp_path, monkeypatch):
    """Two callers (threads here; processes alike) asking for the same uncached embeddings at the same time:
    one computes the entry, the other waits for it and reads it, and both get the same array."""
    import threading
    import time

    from figbench_baselines.common import figurative

    monkeypatch.setenv("FIGBENCH_CACHE", str(tmp_path / "cache"))
    tok, model = figurative.load_encoder(_tiny().tiny_bert(tmp_path / "tiny"))
    computed, real_embed = [], figurative._embed

    def slow_embed(*args, **kwargs):
        computed.append(1)
        time.sleep(1.0)   # long enough for the other caller to arrive while this one computes
        return real_embed(*args, **kwargs)

    monkeypatch.setattr(figurative, "_embed", slow_embed)
    texts = ["a penny saved", "is a penny earned", "birds of a feather"]
    results: list = [None, None]

    def run(k):
        results[k] = figurative.embed_texts(texts, tok, model)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(computed) == 1
    assert sorted("embed_cached" in stats for _, stats in results) == [False, True]
    assert np.array_equal(results[0][0], results[1][0])


def test_unaligned_span_pairs_are_counted_skips():
    from figbench_baselines.epic.data import keep_aligned

    def pair(pid, s, e, match="exact"):
        return {"pair_id": pid, "narrative_start": s, "narrative_end": e, "narrative_match": match,
                "proverb_match": "exact"}

    rows = [{"id": "Q1N1", "narrative": "abcdefghij",
             "pairs": [pair("Q1N1-1", 0, 4), pair("Q1N1-2", -1, -1, "none"), pair("Q1N1-3", 5, 40)]}]
    kept, skipped = keep_aligned(rows, "test")
    assert [p["pair_id"] for p in kept[0]["pairs"]] == ["Q1N1-1"]
    assert len(skipped) == 2 and "Q1N1-2" in skipped[0] and "Q1N1-3" in skipped[1]
    with pytest.raises(ValueError, match="no aligned span pairs"):
        keep_aligned([{"id": "x", "narrative": "ab", "pairs": [pair("x-1", -1, -1, "none")]}], "train")


@pytest.mark.slow
def test_cli_quick_finetuned_prediction_with_minilm(epic_dir, tmp_path):
    """The documented --quick path with the offline MiniLM encoder (steps and batches capped to stay short)."""
    rec = _run(["--task", "prediction", "--method", "finetune", "--quick", "--max-steps", "2", "--max-train", "32",
                "--batch-size", "4", "--max-test", "20", "--data-dir", epic_dir], tmp_path / "q.json")
    assert rec["model"]["encoder"] == "sentence-transformers/all-MiniLM-L6-v2" and rec["model"]["train_steps"] == 2
    assert rec["options"]["quick"] and rec["counts"]["n_test"] == 20


def test_a_model_trained_on_the_other_config_is_refused(epic_dir, tmp_path, capsys):
    """The clean protocol across configs (issue 34): a bi-encoder saved from ``unseen`` train (600 of whose
    narratives are ``seen`` test narratives) is refused on ``seen`` test, naming the model, the configs and the
    leak; scored on its own config it runs; a saved model whose figbench_training.json names no config is refused."""
    import json

    from figbench_baselines.epic.data import check_loaded_model

    model = _tiny().tiny_bert(tmp_path / "tiny")
    saved = tmp_path / "be_unseen"
    _run(["--task", "prediction", "--config", "unseen", "--method", "finetune", "--model", model, "--max-train", "16",
          "--max-test", "10", "--max-steps", "1", "--batch-size", "8", "--save-model", str(saved),
          "--data-dir", epic_dir], tmp_path / "train.json")
    assert json.loads((saved / "figbench_training.json").read_text("utf-8"))["training"]["config"] == "unseen"
    args = ["baseline", "epic", "--task", "similar", "--method", "embedding", "--load-model", str(saved),
            "--max-test", "20", "--data-dir", epic_dir, "--n-resamples", "10"]
    assert main([*args, "--out", str(tmp_path / "leak.json")]) != 0
    err = capsys.readouterr().err
    assert f"--load-model {saved} (trained on epic/unseen/train), scored on epic/seen/test" in err
    assert "training narrative(s) are test narratives" in err and not (tmp_path / "leak.json").exists()
    assert main([*args, "--config", "unseen", "--out", str(tmp_path / "own.json")]) == 0
    with pytest.raises(ValueError, match="600 training narrative"):
        from figbench import load_dataset

        seen_test = {str(r["id"]) for r in load_dataset("epic", "seen", split="test", data_dir=epic_dir)}
        check_loaded_model({"training": {"config": "unseen"}}, "m", "seen", seen_test, epic_dir)
    with pytest.raises(ValueError, match="names no training config"):
        check_loaded_model({"training": {}}, "m", "seen", seen_test, epic_dir)
