"""The KNN oracle grid (README ``cdec_oracle_grid``): frozen, trained and interpolated bi-encoders x
k x split, and the trained encoders' test rows over seeds 1 and 2."""

from __future__ import annotations

from dataclasses import replace

from figbench_baselines.cdec.specs.protocol import _see, _short, _spec
from figbench_baselines.cdec.specs.published import (
    _TABLE1_ROWS,
    _TRAINED_KNN_DIFF,
    META_M_SIZE,
    ORACLE_KNN_ECB,
    ORACLE_KNN_META_M,
    TABLE1_KNN,
)
from figbench_baselines.cdec.specs.trained import (
    _SELECTED_MODEL,
    _SELECTED_RECIPE,
    BIENCODER_SELECTED,
    BIENCODER_WISE,
    GRID_SELECTION,
    seed_suffix,
)
from figbench_baselines.common.encoder import DEFAULT_MODEL_ID
from figbench_baselines.specs import SEEDS, BaselineSpec, seeded

#: KNN oracle grid: k values and splits (ECB+ and META_m test / validation / dev_small, META_1 dev_small)
ORACLE_KS = (5, 10, 20)
ORACLE_SPLITS = (("ecbplus", "events", "test"), ("ecbmeta", "meta_m", "test"), ("ecbplus", "events", "validation"),
                 ("ecbmeta", "meta_m", "validation"), ("ecbplus", "events", "dev_small"),
                 ("ecbmeta", "meta_m", "dev_small"), ("ecbmeta", "meta_1", "dev_small"))


#: the encoders of the KNN oracle grid: the frozen one at the trained encoder's 15 context words too, and on
#: unit vectors (cosine) as the trained one, so that each comparison changes one thing (issue 22); the trained
#: one interpolated with its untrained encoder (WiSE-FT, ``wise_ft.py``)
_GRID_ENCODERS = {"trained": "triplet-trained MiniLM", "frozen": "frozen MiniLM",
                  "frozen15": "frozen MiniLM, 15 context words",
                  "frozen15cos": "frozen MiniLM, 15 context words, cosine",
                  "wise": "triplet-trained MiniLM mixed with the frozen one, WiSE-FT"}
_FROZEN30 = f"frozen {DEFAULT_MODEL_ID} (trigger in a 30-word marked context)"
_FROZEN15 = f"frozen {DEFAULT_MODEL_ID} (trigger in a 15-word marked context, the trained encoder's)"
_FROZEN15COS = _FROZEN15 + ", unit vectors ranked by cosine as the trained encoder's"
_WISE_RECIPE = ("the selected bi-encoder's weights interpolated with its untrained encoder's, (1 - alpha) * frozen + "
                "alpha * trained (WiSE-FT, Wortsman et al. 2022), alpha in 0.1 ... 1.0 chosen on ECB+ validation and "
                "META_m validation (the largest worst gain in KNN oracle recall over the frozen encoder on unit "
                "vectors, across both sets and k = 5, 10, 20)")
_GRID_MODELS = {"trained": _SELECTED_MODEL, "frozen": _FROZEN30, "frozen15": _FROZEN15, "frozen15cos": _FROZEN15COS,
                "wise": f"{_WISE_RECIPE}; {BIENCODER_WISE}/train_info.json: alpha and its selection"}
_GRID_ARGV = {"trained": ("--biencoder", BIENCODER_SELECTED), "frozen": ("--no-train-biencoder",),
              "frozen15": ("--no-train-biencoder", "--context-words", "15"),
              "frozen15cos": ("--no-train-biencoder", "--context-words", "15", "--biencoder-normalize"),
              "wise": ("--biencoder", BIENCODER_WISE)}
#: the seed-0 encoders' folders whose test rows are rerun with seeds 1 and 2 (folder + seed_suffix)
#: the grid encoders that load a saved (trained) bi-encoder
_TRAINED_GRID = tuple(e for e, argv in _GRID_ARGV.items() if argv[0] == "--biencoder")
_SEEDED_FOLDERS = (BIENCODER_SELECTED, BIENCODER_WISE)


def oracle_grid_name(encoder: str, k: int, dataset: str, config: str, split: str) -> str:
    """The spec of one cell of the KNN oracle grid (the frozen k=5 test cells are the rows of cdec_oracle)."""
    short = _short(dataset, config)
    if encoder == "frozen" and k == 5 and split == "test":
        return f"cdec_knn_oracle_{short}_{split}"
    return f"cdec_knn_oracle_{encoder}_k{k}_{short}_{split}"


def oracle_topic_name(encoder: str, short: str) -> str:
    """The k=5 test row within gold topics (the paper's Table 1 grouping) of one grid encoder."""
    return f"cdec_knn_oracle_{'' if encoder == 'frozen' else encoder + '_'}topic_{short}_test"


def _oracle_grid_specs() -> list[BaselineSpec]:
    out = []
    for encoder in _GRID_ENCODERS:
        for dataset, config, split in ORACLE_SPLITS:
            for k in ORACLE_KS:
                if encoder == "frozen" and k == 5 and split == "test":
                    continue  # already a row of cdec_oracle
                name = oracle_grid_name(encoder, k, dataset, config, split)
                topic_row = oracle_topic_name("frozen", _short(dataset, config))  # holds Table 1's value
                note = (_see(topic_row, "Table 1's value (k=5, RoBERTa bi-encoder) paired within gold topics")
                        if split == "test" and k == 5 else
                        f"the ECB+META paper's Table 1 prints {TABLE1_KNN[(config, split)]} (row "
                        f"{_TABLE1_ROWS[config]} KNN, column {'Dev_small' if split == 'dev_small' else 'Dev'}): "
                        "differs: " + ("split (its Dev is the validation documents outside Dev_small), "
                                       if split == "validation" else "") + "topics (gold topics), model and size "
                        "(a RoBERTa-base bi-encoder trained 20 iterations)"
                        if k == 5 and (config, split) in TABLE1_KNN else
                        "no published value for this split, k and protocol")
                out.append(_spec(
                    name, "cdec_oracle_grid", dataset, config, split, "knn_oracle", "--k", str(k),
                    *_GRID_ARGV[encoder], title=f"KNN filter (k={k}, {_GRID_ENCODERS[encoder]}), oracle",
                    model=_GRID_MODELS[encoder], encoder=DEFAULT_MODEL_ID if encoder in _TRAINED_GRID else None,
                    selection=GRID_SELECTION.get(encoder), comparability=note))
    for dataset, config in (("ecbplus", "events"), ("ecbmeta", "meta_m")):
        short = _short(dataset, config)
        published = ORACLE_KNN_ECB if dataset == "ecbplus" else ORACLE_KNN_META_M
        for encoder in ("trained", "frozen15", "frozen15cos", "wise"):
            trained = encoder in _TRAINED_GRID
            pub = published  # a trained row's verdict describes its own encoder, not the frozen one
            if trained:
                pub = replace(published, verdict=_TRAINED_KNN_DIFF[encoder] + (
                    "; " + META_M_SIZE["test"] if dataset == "ecbmeta" else ""))
            note = ("the encoder's epoch" + (" and alpha were" if encoder == "wise" else " was")
                    + " selected on ECB+ and META_m validation, but the recipe was chosen after test results were "
                      "seen (test-informed: the record's provenance.selection)" if trained else
                    "the frozen row at the trained encoder's context (15 words)"
                    + (" and unit vectors" if encoder == "frozen15cos" else ""))
            argv = _GRID_ARGV[encoder]
            head = 2 if trained else 1  # the encoder option (--biencoder DIR), then --within, then the rest
            out.append(_spec(
                oracle_topic_name(encoder, short), "cdec_oracle_grid", dataset, config, "test", "knn_oracle",
                *argv[:head], "--within", "topic", *argv[head:],
                title=f"KNN filter (k=5, {_GRID_ENCODERS[encoder]}), oracle, gold topics",
                model=_GRID_MODELS[encoder], encoder=DEFAULT_MODEL_ID if trained else None, published=pub,
                selection=GRID_SELECTION.get(encoder),
                comparability=note))
    return out + _biencoder_seed_specs(out)


def _biencoder_seed_specs(grid: list[BaselineSpec]) -> list[BaselineSpec]:
    """The trained (and interpolated) encoders' test rows with the same recipe retrained with seeds 1 and 2."""
    note = ("one of three seeds of the trained encoder's recipe: seed 0 (the headline row) was trained on a lent "
            "H200 GPU, seeds 1 and 2 with the same command and --seed on this CPU, each selecting its own epoch on "
            "validation")
    out = []
    for folder in _SEEDED_FOLDERS:
        runs = [s for s in grid if s.split == "test" and folder in s.argv]
        for seed in SEEDS:
            seeded_folder = folder + seed_suffix(seed)
            model = (f"{_SELECTED_RECIPE}; seed {seed}, trained on this CPU ({seeded_folder}/train_info.json: its "
                     "epoch)" if folder == BIENCODER_SELECTED else
                     f"{_WISE_RECIPE}, of the selected bi-encoder of seed {seed} (trained on this CPU; "
                     f"{seeded_folder}/train_info.json: alpha and its selection)")
            subs = {folder: seeded_folder}
            why = note + ("" if folder == BIENCODER_SELECTED else ", and its own alpha")
            out += [replace(seeded(s, seed, subs, note=why), model=model) for s in runs]
    return out
