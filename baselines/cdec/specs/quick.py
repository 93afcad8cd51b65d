"""The quick trained and prompted rows of ``cdec_trained`` (quick CPU runs, no quality claim; the WEC-Eng
and LLM rows that are not run offline)."""

from __future__ import annotations

from figbench_baselines.cdec.specs.protocol import _C, WEC_PAPER, _spec
from figbench_baselines.cdec.specs.published import NO_DEV_SMALL, READ
from figbench_baselines.common.encoder import DEFAULT_MODEL_ID
from figbench_baselines.specs import BaselineSpec, Historical, Published

QUICK_SPECS: tuple[BaselineSpec, ...] = (
    # ---------------------------------------------------------------- trained and prompted scorers
    _spec("cdec_ce_lh_quick_ecbplus_dev_small", "cdec_trained", "ecbplus", "events", "dev_small", "ce_lh",
          "--quick", "--save-model", "models/ce_lh_quick", quick=True, title="CE_LH (saves models/ce_lh_quick)",
          model=f"{DEFAULT_MODEL_ID} cross-encoder, quick: 8 steps", encoder=DEFAULT_MODEL_ID,
          historical=Historical("70.0 / 81.9 / 72.1 / **74.7** [68.8, 80.5] (LH alone: 78.6)", _C),
          comparability="quick MiniLM run, no quality claim; " + NO_DEV_SMALL,
          gpu_command="accelerate launch -m figbench.cli baseline cdec --dataset ecbplus --split test --method ce_lh "
                      "--model roberta-base --epochs 20 --batch-size 16 --lr 1e-5 --mixed-precision bf16 "
                      "--max-length 512 --checkpoint-dir ckpt/ce_lh --checkpoint-every 500 --save-model models/ce_lh "
                      "--out ce_lh_ecb.json"),
    _spec("cdec_ce_lh_quick_meta_m_dev_small", "cdec_trained", "ecbmeta", "meta_m", "dev_small", "ce_lh",
          "--load-model", "models/ce_lh_quick", quick=True, title="CE_LH (the model of the row above)",
          model=f"{DEFAULT_MODEL_ID} cross-encoder, quick", encoder=DEFAULT_MODEL_ID,
          historical=Historical("26.6 / 71.1 / 61.4 / **53.1** [46.4, 59.8] (LH alone: 58.0)", _C),
          comparability="quick run, no quality claim; " + NO_DEV_SMALL,
          gpu_command="figbench baseline cdec --dataset ecbmeta --config meta_m --split test --method ce_lh "
                      "--model roberta-base --load-model models/ce_lh --out ce_lh_metam.json"),
    _spec("cdec_ce_lh_quick_meta_1_dev_small", "cdec_trained", "ecbmeta", "meta_1", "dev_small", "ce_lh",
          "--load-model", "models/ce_lh_quick", quick=True, title="CE_LH (the same model)",
          model=f"{DEFAULT_MODEL_ID} cross-encoder, quick", encoder=DEFAULT_MODEL_ID,
          historical=Historical("38.3 / 76.0 / 68.7 / **61.0** [55.7, 66.5] (LH alone: 63.5)", _C),
          comparability="quick run, no quality claim; " + NO_DEV_SMALL),
    _spec("cdec_ce_knn_quick_ecbplus_dev_small", "cdec_trained", "ecbplus", "events", "dev_small", "ce_knn",
          "--quick", quick=True, title="CE_KNN", model=f"{DEFAULT_MODEL_ID} bi- and cross-encoder, quick",
          encoder=DEFAULT_MODEL_ID, historical=Historical("54.4 / 52.3 / 36.8 / **47.9** [40.4, 56.2]", _C),
          comparability="quick run, no quality claim; by issue 11 the ECB+META paper clusters its KNN methods with "
                        "Held et al.'s greedy agglomeration (--clustering greedy; its §4.2), this row with "
                        "connected components; "
                        + NO_DEV_SMALL,
          gpu_command="accelerate launch -m figbench.cli baseline cdec --dataset ecbplus --split test --method ce_knn "
                      "--model roberta-base --epochs 20 --batch-size 16 --lr 1e-5 --k 5 --mixed-precision bf16 "
                      "--within topic --clustering greedy --out ce_knn_ecb.json"),
    _spec("cdec_wec_pairwise_quick_ecbplus_dev_small", "cdec_trained", "ecbplus", "events", "dev_small",
          "wec_pairwise", "--quick", "--tune-split", "dev_rest", quick=True, title="WEC pairwise",
          model=f"{DEFAULT_MODEL_ID} span vectors + MLP, quick: 60 steps", encoder=DEFAULT_MODEL_ID,
          protocol_extra={"threshold": "0.35, tuned on dev_rest"},
          historical=Historical("69.6 / 79.4 / 68.5 / **72.5** [65.5, 78.9] (threshold 0.35 tuned on dev_rest)", _C),
          comparability="quick run, no quality claim; no published value for ECB+ Dev_small"),
    _spec("cdec_wec_pairwise_wec_eng_test", "cdec_trained", "wec_eng", "events", "test", "wec_pairwise",
          title="WEC pairwise", encoder="roberta-large",
          model=f"{DEFAULT_MODEL_ID} span vectors + MLP (the command's defaults; paper scale: RoBERTa-large)",
          not_run="WEC-Eng train (40,529 mentions) is not available offline",
          published=Published("62.3", "CoNLL F1", WEC_PAPER, "Table 5", "test",
                              "whole test split, average link tuned on validation", verified=READ,
                              cell="row Our model, column CoNLL F1", model="RoBERTa-large span vectors + MLP",
                              verdict="differs: model and size: the row's command runs the CLI's defaults "
                                      "(all-MiniLM-L6-v2 (22M) span vectors, MLP 2 epochs, batch 128, lr 1e-3); only "
                                      "its paper-scale command (RoBERTa-large, 10 epochs) is the paper's model"),
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
