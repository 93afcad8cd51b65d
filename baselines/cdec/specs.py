"""The cdec baseline runs (reproduction tables ``cdec_heuristics``, ``cdec_oracle``, ``cdec_trained``).

Published values: only for the same split as the run. TODO(cdec): check every published value's table
number and protocol against the papers, and fill in the ECB+META paper's Dev_small values (its Tables 1
and 4) for the dev_small rows.
"""

from __future__ import annotations

from figbench_baselines.common.encoder import DEFAULT_MODEL_ID
from figbench_baselines.specs import BaselineSpec, Historical, Published

ECBPLUS = "ECB+ 1.0 (cltl/ecbPlus XML via uCDCR; validated sentences); ecbplus builder 1.0.0, events"
META_M = "ECB+META_m (llms_coref data, uCDCR processing); ecbmeta builder 1.0.0"
META_1 = "ECB+META_1 Dev_small, 277 mentions (llms_coref ecb_meta_analysis.xlsx); ecbmeta builder 1.0.0"
WEC = "WEC-Eng test, 1,893 mentions (uCDCR unified format); wec_eng builder 1.0.0"
DATA = {("ecbplus", "events"): ECBPLUS, ("ecbmeta", "meta_m"): META_M, ("ecbmeta", "meta_1"): META_1,
        ("wec_eng", "events"): WEC}
CONLL = ("muc_f1", "bcub_f1", "ceafe_f1", "conll_f1")
ORACLE = ("bcub_recall", "candidate_gold_pair_recall")
_C = "c4a6e5b"  # the commit whose code measured the historical cdec values
META_PAPER = "Ahmed et al., ECB+META paper"
DEV_SMALL_TODO = ("the ECB+META paper's Dev_small values (Tables 1 and 4) are not filled in yet (TODO cdec); "
                  "its test values are not comparable with a dev_small run")


def _protocol(dataset: str, method: str, **extra: str) -> dict[str, str]:
    topics = "none: pairs over the whole split" if dataset == "wec_eng" else "gold subtopics (--within auto)"
    clustering = {"lemma": "one cluster per (group, head lemma)", "wec_pairwise": "average link, threshold tuned"}
    out = {"topics": topics, "singletons": "kept", "clustering": clustering.get(method, "connected components")}
    if method in ("lh", "lh_oracle", "ce_lh", "llm_lh"):
        out["threshold"] = "LH sentence Jaccard > 0.05"
    if method.startswith(("ce_", "llm_")):
        out["pair threshold"] = "0.5"
    if method.startswith("knn") or method == "ce_knn":
        out["candidates"] = "k=5 neighbours within the group (FAISS flat)"
    out.update(extra)
    return out


def _spec(name: str, table: str, dataset: str, config: str, split: str, method: str, *extra_argv: str,
          **kw) -> BaselineSpec:
    argv = ("cdec", "--dataset", dataset, "--config", config, "--split", split, "--method", method, *extra_argv)
    needs = ("ecbplus",) if dataset == "ecbmeta" and method != "lemma" else ()
    kw.setdefault("metrics", ORACLE if method.endswith("_oracle") else CONLL)
    kw.setdefault("protocol", _protocol(dataset, method))
    return BaselineSpec(name=name, table=table, family="cdec", task="cdec", dataset=dataset, config=config,
                        split=split, method=method, argv=argv, data_version=DATA[(dataset, config)], needs=needs, **kw)


SPECS: tuple[BaselineSpec, ...] = (
    # ---------------------------------------------------------------- heuristics
    _spec("cdec_lemma_ecbplus_test", "cdec_heuristics", "ecbplus", "events", "test", "lemma", fast=True,
          title="same-head-lemma",
          historical=Historical("78.7 / 78.4 / 74.5 / **77.2** [74.4, 80.0]", _C),
          published=Published("77.8 / 78.1 / 73.6 / 76.5", "MUC / B3 / CEAF-e / CoNLL F1",
                              "Barhom et al. 2019, as quoted by the WEC-Eng paper (Eirew et al. 2021)", "", "test",
                              "predicted topics (document clustering); not re-read offline"),
          comparability="figbench groups by gold subtopics, which nearly always equal the predicted topics"),
    _spec("cdec_lemma_wec_eng_test", "cdec_heuristics", "wec_eng", "events", "test", "lemma", fast=True,
          title="same-head-lemma",
          historical=Historical("82.6 / 45.5 / 31.2 / **53.1** [48.9, 83.1]", _C),
          published=Published("53.1", "CoNLL F1", "WEC-Eng paper (Eirew et al. 2021)", "", "test",
                              "whole test split; not re-read offline")),
    _spec("cdec_lemma_meta_m_test", "cdec_heuristics", "ecbmeta", "meta_m", "test", "lemma",
          title="same-head-lemma",
          historical=Historical("32.3 / 62.3 / 57.1 / **50.6** [47.0, 55.5]", _C),
          comparability="no published same-head-lemma value for ECB+META_m is known"),
    _spec("cdec_lh_ecbplus_test", "cdec_heuristics", "ecbplus", "events", "test", "lh", fast=True,
          title="LH (Lemma Heuristic)",
          historical=Historical("79.4 / 76.4 / 69.2 / **75.0** [71.1, 79.1]", _C),
          published=Published("74.1", "CoNLL F1", META_PAPER, "", "test",
                              "predicted topics; LH threshold as in the paper (0.005 stated, 0.05-0.15 in its code)"),
          comparability="the paper's threshold is unclear; 75.1 (0.005) to 76.9 (0.2) measured, see the text"),
    _spec("cdec_lh_meta_m_test", "cdec_heuristics", "ecbmeta", "meta_m", "test", "lh", fast=True,
          title="LH",
          historical=Historical("56.5 / 58.4 / 49.7 / **54.9** [50.2, 60.5]", _C),
          published=Published("54.0", "CoNLL F1", META_PAPER, "", "test", "predicted topics; LH as above")),
    _spec("cdec_lh_meta_1_dev_small", "cdec_heuristics", "ecbmeta", "meta_1", "dev_small", "lh", fast=True,
          title="LH",
          historical=Historical("43.1 / 76.9 / 70.4 / **63.5** [58.4, 69.0]", _C),
          comparability="the paper's 49.8 is on META_1 test, which is not public; " + DEV_SMALL_TODO),
    _spec("cdec_lh_meta_m_dev_small", "cdec_heuristics", "ecbmeta", "meta_m", "dev_small", "lh",
          title="LH", historical=Historical("38.6 / 71.8 / 63.6 / **58.0** [50.6, 65.7]", _C),
          comparability=DEV_SMALL_TODO),
    _spec("cdec_lh_ecbplus_dev_small", "cdec_heuristics", "ecbplus", "events", "dev_small", "lh",
          title="LH", historical=Historical("76.3 / 83.6 / 75.9 / **78.6**", _C), comparability=DEV_SMALL_TODO),
    # ---------------------------------------------------------------- oracle recall of the filters (Table 1)
    _spec("cdec_lh_oracle_ecbplus_test", "cdec_oracle", "ecbplus", "events", "test", "lh_oracle",
          title="LH filter, oracle", model="oracle (gold pair labels)",
          historical=Historical("B3 recall **84.2**, pair recall 57.1", _C),
          published=Published("81.5", "oracle B3 recall", META_PAPER, "Table 1", "test",
                              "gold labels on the LH candidates, connected components"),
          comparability="candidate pairs differ slightly (gold subtopics, same-sentence pairs dropped, spaCy "
                        "lookup lemmas)"),
    _spec("cdec_lh_oracle_meta_m_test", "cdec_oracle", "ecbmeta", "meta_m", "test", "lh_oracle",
          title="LH filter, oracle", model="oracle (gold pair labels)",
          historical=Historical("B3 recall **58.0**, pair recall 11.8", _C),
          published=Published("51.3", "oracle B3 recall", META_PAPER, "Table 1", "test",
                              "gold labels on the LH candidates, connected components"),
          comparability="the builder's META_m test has 1,777 mentions (uCDCR processing); the paper's may differ"),
    _spec("cdec_lh_oracle_meta_1_dev_small", "cdec_oracle", "ecbmeta", "meta_1", "dev_small", "lh_oracle",
          title="LH filter, oracle", model="oracle (gold pair labels)",
          historical=Historical("B3 recall **64.7**", _C),
          comparability="Table 1 prints 58.2 for META_1; its split (Dev_small or test) is to be checked (TODO cdec)"),
    _spec("cdec_lh_oracle_meta_m_dev_small", "cdec_oracle", "ecbmeta", "meta_m", "dev_small", "lh_oracle",
          title="LH filter, oracle", model="oracle (gold pair labels)",
          historical=Historical("B3 recall **65.1**", _C), comparability=DEV_SMALL_TODO),
    _spec("cdec_lh_oracle_ecbplus_dev_small", "cdec_oracle", "ecbplus", "events", "dev_small", "lh_oracle",
          title="LH filter, oracle", model="oracle (gold pair labels)",
          historical=Historical("B3 recall **88.5**", _C), comparability=DEV_SMALL_TODO),
    _spec("cdec_knn_oracle_ecbplus_test", "cdec_oracle", "ecbplus", "events", "test", "knn_oracle",
          "--no-train-biencoder", title="KNN filter (k=5, frozen MiniLM), oracle",
          model=f"frozen {DEFAULT_MODEL_ID} (trigger in a 30-word marked context)",
          historical=Historical("B3 recall **90.7**", _C),
          published=Published("94.9", "oracle B3 recall", META_PAPER, "Table 1", "test",
                              "gold labels on the KNN candidates, connected components",
                              model="RoBERTa bi-encoder trained with a triplet loss"),
          comparability="frozen MiniLM instead of the paper's trained RoBERTa bi-encoder"),
    _spec("cdec_knn_oracle_meta_m_test", "cdec_oracle", "ecbmeta", "meta_m", "test", "knn_oracle",
          "--no-train-biencoder", title="KNN filter (k=5, frozen MiniLM), oracle",
          model=f"frozen {DEFAULT_MODEL_ID}", historical=Historical("B3 recall **81.0**", _C),
          published=Published("85.6", "oracle B3 recall", META_PAPER, "Table 1", "test",
                              "gold labels on the KNN candidates, connected components",
                              model="RoBERTa bi-encoder trained with a triplet loss"),
          comparability="frozen MiniLM instead of the paper's trained RoBERTa bi-encoder"),
    _spec("cdec_knn_oracle_quick_ecbplus_test", "cdec_oracle", "ecbplus", "events", "test", "knn_oracle",
          "--quick", quick=True, title="KNN filter, triplet-trained bi-encoder (quick: 20 steps), oracle",
          model=f"{DEFAULT_MODEL_ID}, 20 triplet steps on 400 ECB+ train mentions (margin 10)",
          historical=Historical("B3 recall **87.6**", _C),
          published=Published("94.9", "oracle B3 recall", META_PAPER, "Table 1", "test",
                              "gold labels on the KNN candidates, connected components",
                              model="RoBERTa bi-encoder trained for epochs on a GPU"),
          comparability="20 quick steps are far too few (below the frozen encoder)"),
    # ---------------------------------------------------------------- trained and prompted scorers
    _spec("cdec_ce_lh_quick_ecbplus_dev_small", "cdec_trained", "ecbplus", "events", "dev_small", "ce_lh",
          "--quick", "--save-model", "models/ce_lh_quick", quick=True, title="CE_LH (saves models/ce_lh_quick)",
          model=f"{DEFAULT_MODEL_ID} cross-encoder, quick: 8 steps", encoder=DEFAULT_MODEL_ID,
          historical=Historical("70.0 / 81.9 / 72.1 / **74.7** [68.8, 80.5] (LH alone: 78.6)", _C),
          comparability="the paper's 78.1 (RoBERTa) is on ECB+ test; quick MiniLM run, no quality claim; "
                        + DEV_SMALL_TODO,
          gpu_command="accelerate launch -m figbench.cli baseline cdec --dataset ecbplus --split test --method ce_lh "
                      "--model roberta-base --epochs 20 --batch-size 16 --lr 1e-5 --mixed-precision bf16 "
                      "--max-length 512 --checkpoint-dir ckpt/ce_lh --checkpoint-every 500 --save-model models/ce_lh "
                      "--out ce_lh_ecb.json"),
    _spec("cdec_ce_lh_quick_meta_m_dev_small", "cdec_trained", "ecbmeta", "meta_m", "dev_small", "ce_lh",
          "--load-model", "models/ce_lh_quick", quick=True, title="CE_LH (the model of the row above)",
          model=f"{DEFAULT_MODEL_ID} cross-encoder, quick", encoder=DEFAULT_MODEL_ID,
          historical=Historical("26.6 / 71.1 / 61.4 / **53.1** [46.4, 59.8] (LH alone: 58.0)", _C),
          comparability="the paper's 50.6 is on META_m test; quick run; " + DEV_SMALL_TODO,
          gpu_command="figbench baseline cdec --dataset ecbmeta --config meta_m --split test --method ce_lh "
                      "--model roberta-base --load-model models/ce_lh --out ce_lh_metam.json"),
    _spec("cdec_ce_lh_quick_meta_1_dev_small", "cdec_trained", "ecbmeta", "meta_1", "dev_small", "ce_lh",
          "--load-model", "models/ce_lh_quick", quick=True, title="CE_LH (the same model)",
          model=f"{DEFAULT_MODEL_ID} cross-encoder, quick", encoder=DEFAULT_MODEL_ID,
          historical=Historical("38.3 / 76.0 / 68.7 / **61.0** [55.7, 66.5] (LH alone: 63.5)", _C),
          comparability="the paper's 60.9 is on META_1 test; quick run; " + DEV_SMALL_TODO),
    _spec("cdec_ce_knn_quick_ecbplus_dev_small", "cdec_trained", "ecbplus", "events", "dev_small", "ce_knn",
          "--quick", quick=True, title="CE_KNN", model=f"{DEFAULT_MODEL_ID} bi- and cross-encoder, quick",
          encoder=DEFAULT_MODEL_ID, historical=Historical("54.4 / 52.3 / 36.8 / **47.9** [40.4, 56.2]", _C),
          comparability="the paper's 78 is on ECB+ test; quick run; " + DEV_SMALL_TODO,
          gpu_command="accelerate launch -m figbench.cli baseline cdec --dataset ecbplus --split test --method ce_knn "
                      "--model roberta-base --epochs 20 --batch-size 16 --lr 1e-5 --k 5 --mixed-precision bf16 "
                      "--out ce_knn_ecb.json"),
    _spec("cdec_wec_pairwise_quick_ecbplus_dev_small", "cdec_trained", "ecbplus", "events", "dev_small",
          "wec_pairwise", "--quick", "--tune-split", "dev_rest", quick=True, title="WEC pairwise",
          model=f"{DEFAULT_MODEL_ID} span vectors + MLP, quick: 60 steps", encoder=DEFAULT_MODEL_ID,
          protocol=_protocol("ecbplus", "wec_pairwise", threshold="0.35, tuned on dev_rest"),
          historical=Historical("69.6 / 79.4 / 68.5 / **72.5** [65.5, 78.9] (threshold 0.35 tuned on dev_rest)", _C),
          comparability="the WEC-Eng paper's 80.8 (RoBERTa-large) is on ECB+ test; quick run, no quality claim"),
    _spec("cdec_wec_pairwise_wec_eng_test", "cdec_trained", "wec_eng", "events", "test", "wec_pairwise",
          title="WEC pairwise", model="RoBERTa-large span vectors + MLP", encoder="roberta-large",
          not_run="WEC-Eng train (40,529 mentions) is not available offline",
          published=Published("62.3", "CoNLL F1", "WEC-Eng paper (Eirew et al. 2021)", "", "test",
                              "whole test split, average link tuned on validation"),
          gpu_command="accelerate launch -m figbench.cli baseline cdec --dataset wec_eng --split test "
                      "--method wec_pairwise --model roberta-large --epochs 10 --batch-size 128 --lr 1e-3 "
                      "--out wec_pairwise_wec.json"),
    _spec("cdec_llm_lh_meta_m_test", "cdec_trained", "ecbmeta", "meta_m", "test", "llm_lh",
          "--llm-model", "MODEL", title="GPT_LH / GPT_KNN (llm_lh, llm_knn)",
          model="any causal LM or OpenAI-compatible endpoint",
          not_run="no LLM offline (code path tested with a tiny GPT-2 and a local endpoint)",
          comparability="no LLM was run",
          gpu_command="figbench baseline cdec --dataset ecbmeta --config meta_m --split test --method llm_lh "
                      "--llm-model gpt-4 --llm-endpoint https://api.openai.com/v1 --llm-cache cache/gpt4.jsonl "
                      "--out gpt_lh.json"),
)
