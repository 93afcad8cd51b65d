"""Constants shared by the CLI and the pipeline (kept import-light for ``figbench --help``)."""

METHODS = ("lemma", "lh", "lh_oracle", "knn_oracle", "ce_lh", "ce_knn", "wec_pairwise", "llm_lh", "llm_knn")
#: LH sentence-overlap threshold: Ahmed et al. 2023's code uses 0.05 (the ECB+META paper states
#: 0.005, its code 0.1); see baselines/README.md for the measured effect.
DEFAULT_LH_THRESHOLD = 0.05
