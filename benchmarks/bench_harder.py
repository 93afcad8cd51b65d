"""Benchmark: is a generated corpus harder? ECB+ against the released META_m and figbench's own paraphrase.

On the same ECB+ mentions of ``--split`` (``dev_small``, the ECB+META paper's 40 documents, by default; ``test`` is
the split of the paper's Table 2), three versions: the original ECB+ triggers, the released ECB+META_m paraphrase
(``ecbmeta`` ``meta_m``, same split) and the corpus made by ``figbench generate metaphors`` from that split (the
folder ``--generated``, loaded with ``datasets.load_dataset``). All three
are restricted to the mentions every version holds (the generated corpus lacks the mentions of sentences the
model failed on; a run without any usable mention has no column), so every comparison is paired.

Per version: the corpus statistics the paper reports (ambiguity and diversity of head lemmas, trigger MTLD,
:mod:`figbench.stats`) and the baselines that run on this CPU without training (same-head lemma, the Lemma
Heuristic: CoNLL F1; the KNN filter with the frozen MiniLM bi-encoder, oracle B-cubed recall at k = 5, 10, 20),
and, with ``--ce-lh-model DIR``, a trained CE_LH cross-encoder (CoNLL F1): the record then says where that model
came from (its training command, measured training time and CPU from ``DIR/train_info.json``, whether its weights
are those of the committed CE_LH records) and its CoNLL F1 on all of ECB+ ``dev_small`` beside the committed
record's (same model, same split: they should agree; this check runs on ``dev_small`` whatever ``--split``).
The drop from ECB+ of each version is a paired topic bootstrap (:func:`figbench_baselines.cdec.compare.records_drop`,
1,000 resamples). Written to ``--out`` (a committed record, rendered into the README's "is it harder?" table
beside the paper's Table 1 / Table 2 drops).

Usage: python benchmarks/bench_harder.py --generated DIR [--split dev_small] [--ce-lh-model models/cdec/ce_lh_s4000]
       [--out results/generation/harder_<split>.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
from figbench.commands.docs_generation import paper_values  # at import: a renamed helper fails the tests

ROOT = Path(__file__).resolve().parent.parent

#: (row name, cdec argv after the dataset, score)
BASELINES = (("same-head lemma", ["--method", "lemma"], "conll_f1"),
             ("LH", ["--method", "lh"], "conll_f1"),
             *((f"KNN oracle k={k}", ["--method", "knn_oracle", "--k", str(k), "--no-train-biencoder",
                                      "--context-words", "15"], "bcub_recall") for k in (5, 10, 20)))
#: the committed CE_LH record a --ce-lh-model run is checked against (same split, all its mentions)
CE_LH_CHECK = "cdec_ce_lh_ecbplus_dev_small"
#: the per-version counts each baseline row keeps (how many pairs the candidate filter found, how many clusters)
COUNTS = ("candidate_pairs", "predicted_clusters")
STATS = ("mentions", "clusters", "ambiguity", "diversity", "mtld", "mtld_paper")


def _run(argv: list[str], dataset: str, config: str, rows: list[dict], split: str = "dev_small") -> dict:
    from figbench_baselines.cdec.cli import build_parser, normalise
    from figbench_baselines.cdec.pipeline import run

    args = normalise(build_parser().parse_args(["--out", "unused.json", "--dataset", dataset, "--config", config,
                                                "--split", split, "--n-resamples", "0", *argv]))
    return run(args, rows=rows)


def ce_lh_provenance(folder: str, command: str | None = None) -> dict:
    """Where the CE_LH model in ``folder`` came from: its training command (the reproduce step that writes
    ``folder`` unless ``command`` is given), measured training time and CPU (``train_info.json``), and the committed
    ECB+ ``dev_small`` CE_LH record to check it against (its weights hash and CoNLL F1)."""
    import shlex

    from figbench_baselines.cdec.reproduce import steps
    from figbench_baselines.cdec.steps.artifacts import INFO_FILE, is_complete

    if not is_complete(folder, "crossencoder"):
        raise FileNotFoundError(f"{folder}: no trained cross-encoder here (need crossencoder.pt and {INFO_FILE}); "
                                "train it with `python -m figbench_baselines.cdec.reproduce run --queue lh`")
    info = json.loads((Path(folder) / INFO_FILE).read_text("utf-8"))
    if info.get("method") != "ce_lh":
        raise ValueError(f"{Path(folder) / INFO_FILE}: method {info.get('method')!r}, not ce_lh")
    if command is None:
        match = [s for s in steps() if Path(s.model) == Path(folder)]
        if not match:
            raise ValueError(f"{folder}: no reproduce step writes this folder; say how it was trained with "
                             "--ce-lh-command")
        command = shlex.join(match[0].command())
    stats = info["train_stats"]
    record = json.loads((ROOT / "results" / f"{CE_LH_CHECK}.json").read_text("utf-8"))
    trained = record["provenance"]["training"]["crossencoder"]
    return {"folder": folder, "command": command, "model": info["model"], "sample": info["sample"]["description"],
            "seed": info["seed"], "train_seconds": stats["train_seconds"], "train_examples": stats["train_examples"],
            "train_steps": stats["train_steps"], "train_wall_time_s": info["train_wall_time_s"],
            "cpu_count": info["hardware"]["cpu_count"], "torch_threads": info["hardware"].get("torch_threads"),
            "torch": info["packages"].get("torch"), "saved_at": info["saved_at"],
            "weights_sha256": info["weights_sha256"],
            "final_loss": stats["final_loss"],
            "check": {"record": CE_LH_CHECK, "record_conll_f1": record["scores"]["conll_f1"],
                      "same_weights": info["weights_sha256"] == trained["weights_sha256"],
                      "record_train_examples": trained["train_stats"]["train_examples"],
                      "record_final_loss": trained["train_stats"]["final_loss"]}}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--generated", required=True, help="a folder made by `figbench generate metaphors` from --split")
    p.add_argument("--split", default="dev_small", help="the ECB+ / META_m split (dev_small, validation, test)")
    p.add_argument("--out", default=None, help="default: results/generation/harder_<split>.json")
    p.add_argument("--n-resamples", type=int, default=1000)
    p.add_argument("--ce-lh-model", default=None,
                   help="a trained CE_LH cross-encoder (figbench baseline cdec --method ce_lh --save-model DIR): adds "
                        "its row; without it the record says why CE_LH is missing")
    p.add_argument("--ce-lh-command", default=None,
                   help="the command that trained --ce-lh-model (default: the reproduce step that writes that folder, "
                        "python -m figbench_baselines.cdec.reproduce list)")
    p.add_argument("--ce-lh-missing", default="no trained cross-encoder was available on this machine",
                   help="the reason recorded when --ce-lh-model is not given")
    p.add_argument("--record", default=None,
                   help="the name of the generation run's record under results/generation/ (the README names it)")
    args = p.parse_args(argv)
    from figbench_baselines.cdec.steps.compare import records_drop

    import datasets
    import figbench
    from figbench.stats import coref_stats

    t0 = time.perf_counter()
    split = args.split
    args.out = args.out or str(ROOT / "results" / "generation" / f"harder_{split}.json")
    ecb = figbench.load_dataset("ecbplus", "events", split=split).to_list()
    released = figbench.load_dataset("ecbmeta", "meta_m", split=split).to_list()
    data = Path(args.generated) / "data"
    settings = json.loads((Path(args.generated) / "generation" / "settings.json").read_text())
    if settings.get("split") != split:
        raise SystemExit(f"{args.generated}: generated from ECB+ {settings.get('split')!r}, not --split {split}")
    generated: list[dict] = []
    if any(data.glob(f"{split}-*.parquet")):  # a run without a usable mention writes no data file
        # a private cache: datasets' shared cache served an earlier folder of the same name (77 rows for 85)
        with tempfile.TemporaryDirectory() as cache:
            generated = datasets.load_dataset(str(args.generated), split=split, cache_dir=cache).to_list()
    shared = {r["mention_id"] for r in ecb} & {r["mention_id"] for r in released}
    if generated:
        shared &= {r["mention_id"] for r in generated}
    versions = {"ecbplus": ("ecbplus", "events", ecb), "meta_m": ("ecbmeta", "meta_m", released)}
    if generated:
        versions["generated"] = ("ecbmeta", "meta_m", generated)
    rows = {v: [r for r in rs if r["mention_id"] in shared] for v, (_, _, rs) in versions.items()}
    gen_dir = Path(args.generated).resolve()
    # the folder's name, or its path inside the project: never a machine's temporary path
    where = str(gen_dir.relative_to(ROOT)) if gen_dir.is_relative_to(ROOT) else gen_dir.name
    out: dict = {"split": split, "generated": where, "generated_record": args.record,
                 "generation_settings": settings,
                 "mentions": {"ecbplus": len(ecb), "meta_m": len(released), "generated": len(generated),
                              "shared": len(shared)},
                 "stats": {}, "baselines": {}, "paper": paper_values(split), "n_resamples": args.n_resamples}
    for v in versions:
        st = coref_stats(rows[v], progress=False)
        out["stats"][v] = {k: st.get(k) for k in STATS}
        print(v, out["stats"][v], flush=True)
    baselines = list(BASELINES)
    if args.ce_lh_model:
        argv = ["--method", "ce_lh", "--load-model", args.ce_lh_model]
        baselines.append(("CE_LH", argv, "conll_f1"))
        out["ce_lh_model"] = ce_lh_provenance(args.ce_lh_model, args.ce_lh_command)
        check = ecb if split == "dev_small" else figbench.load_dataset("ecbplus", "events", split="dev_small").to_list()
        full = _run(argv, "ecbplus", "events", check)["scores"]["conll_f1"]  # all of dev_small, as the record ran
        out["ce_lh_model"]["check"] = {**out["ce_lh_model"]["check"], "conll_f1": full}
        print("CE_LH", json.dumps(out["ce_lh_model"]), flush=True)
    else:
        out["ce_lh"] = args.ce_lh_missing
    for name, cdec_argv, score in baselines:
        recs = {v: _run(cdec_argv, ds, cfg, rows[v], split) for v, (ds, cfg, _) in versions.items()}
        row = {"score": score, **{v: recs[v]["scores"][score] for v in versions},
               "counts": {v: {k: recs[v]["counts"].get(k) for k in COUNTS} for v in versions}}
        for v in [v for v in versions if v != "ecbplus"]:
            d = records_drop(recs["ecbplus"], recs[v], metric=score, n_resamples=args.n_resamples)
            row[f"drop_{v}"] = {"drop": d["drop"], "low": d["confidence_interval"]["low"],
                                "high": d["confidence_interval"]["high"], "units": d["units"]}
        out["baselines"][name] = row
        print(name, json.dumps(row), flush=True)
    out["seconds"] = round(time.perf_counter() - t0, 1)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n", "utf-8")
    print(f"written {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
