"""Constants shared by the CLI and the pipeline (kept import-light for ``figbench --help``)."""

METHODS = ("lemma", "lh", "lh_oracle", "knn_oracle", "ce_lh", "ce_knn", "wec_pairwise", "llm_lh", "llm_knn")
#: LH sentence-overlap threshold: Ahmed et al. 2023's code uses 0.05 (the ECB+META paper states
#: 0.005, its code 0.1); see baselines/README.md for the measured effect.
DEFAULT_LH_THRESHOLD = 0.05

#: encoder input settings when neither the command line nor a loaded model's train_info names them
ENCODING_DEFAULTS = {"max_length": 128, "context_words": 30, "pair_order": "both"}


def setting(args, name: str, saved: dict | None = None):
    """An encoding setting: the command line's, else the loaded model's (``train_info.json``), else the default."""
    value = getattr(args, name, None)
    if value is not None:
        return value
    if saved and saved.get(name) is not None:
        return saved[name]
    return ENCODING_DEFAULTS[name]
