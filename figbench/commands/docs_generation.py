"""README blocks of the generation records (a provider of :data:`figbench.commands.docs.PROVIDERS`).

``generation-run`` renders the records of real ``figbench generate metaphors`` runs
(``results/generation/<run>.json``, written by ``benchmarks/record_generation.py``); ``harder`` (and
``harder-validation``, ``harder-test``) render ``results/generation/harder_<split>.json``
(``benchmarks/bench_harder.py``): ECB+ against the released META_m and the generated corpus, beside the paper's
drops.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from figbench.commands.docs import Block

#: the committed generation runs, the first the headline run (record names under results/generation/)
RUNS = ("smollm2_135m_prefill_stop_dev_small", "smollm2_135m_prefill_gpu_dev_small",
        "smollm2_135m_prefill_gpu_validation", "smollm2_135m_prefill_gpu_test", "smollm2_135m_prefill_dev_small",
        "smollm2_135m_prefill_dev_small_10", "gemma3_270m_prefill_dev_small_10", "smollm2_135m_dev_small",
        "smollm2_135m_json_mode_dev_small_16")
#: the runs whose own word lists are rows of the README's re-tagging table
OWN_LISTS = ("smollm2_135m_prefill_stop_dev_small", "smollm2_135m_prefill_gpu_validation",
             "smollm2_135m_prefill_gpu_test")
#: the head-to-head of the registered models on the same sentences (the default model is chosen by it)
COMPARE = ("smollm2_135m_prefill_dev_small_10", "gemma3_270m_prefill_dev_small_10")
HARDER = "harder_dev_small"
#: the "is it harder?" records, one README block each: (block name, record name)
HARDER_BLOCKS = (("harder", HARDER), ("harder-validation", "harder_validation"), ("harder-test", "harder_test"))


def paper_values(split: str = "dev_small") -> dict[str, dict]:
    """The paper's values (Ahmed et al. 2024) on the harder table's rows of ``split``, from where figbench keeps each
    one: Table 2 (CoNLL F1, test split; LH and CE_LH, as the cdec baselines' specs quote it), Table 1 (KNN oracle
    B3 recall on the same split: Test, Dev_small, or Dev, which is the validation documents outside Dev_small; the
    paper does not give its k here) and the trigger MTLD of its §4 (test, :data:`figbench.stats.PUBLISHED`)."""
    from figbench_baselines.cdec.specs.published import (
        LH_ECB,
        LH_META_M,
        ORACLE_KNN_ECB,
        ORACLE_KNN_META_M,
        TABLE1_KNN,
    )
    from figbench_baselines.cdec.specs.trained import _CE_PAPER

    from figbench.stats import PUBLISHED

    if split == "test":
        knn = {"ecbplus": float(ORACLE_KNN_ECB.value), "meta_m": float(ORACLE_KNN_META_M.value),
               "where": "Table 1 KNN, test"}
    else:
        column = "Dev_small" if split == "dev_small" else "Dev (the validation documents outside Dev_small)"
        key = "dev_small" if split == "dev_small" else "validation"
        knn = {"ecbplus": float(TABLE1_KNN[("events", key)]), "meta_m": float(TABLE1_KNN[("meta_m", key)]),
               "where": f"Table 1 KNN, {column}"}
    return {"LH": {"ecbplus": float(LH_ECB.value), "meta_m": float(LH_META_M.value), "where": "Table 2, test"},
            "CE_LH": {"ecbplus": float(_CE_PAPER[("ce_lh", "ecbplus")]),
                      "meta_m": float(_CE_PAPER[("ce_lh", "ecbmeta")]), "where": "Table 2, test; RoBERTa-base"},
            "KNN oracle k=5": knn,
            "mtld_paper": {"ecbplus": float(PUBLISHED[("ecbplus", "events", "test")]["mtld_paper"]),
                           "meta_m": float(PUBLISHED[("ecbmeta", "meta_m", "test")]["mtld_paper"]),
                           "where": "§4, test"}}


def _load(results: Path, name: str, script: str) -> dict[str, Any]:
    path = Path(results) / "generation" / f"{name}.json"
    if not path.is_file():
        raise FileNotFoundError(f"{path}: not found; it is written by `python benchmarks/{script}` and committed")
    try:
        return json.loads(path.read_text("utf-8"))
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: not valid JSON ({e})") from None


def _pct(a: int, b: int) -> str:
    return f"{a:,} of {b:,} ({100 * a / b:.0f}%)" if b else f"{a:,} of 0"


def _minutes(s: float) -> str:
    return f"{s / 60:.0f} min" if s >= 120 else f"{s:.0f} s"


def _label(r: dict) -> str:
    s = r["settings"]
    stop = ""
    if s.get("prefill") == "inputs":  # a record without closed_by_figbench ran before the sentence's own stop
        stop = " (sentence stop)" if "closed_by_figbench" in r["answers"] else " (JSON stop, earlier)"
    return (f"`{s['model']}`" + (" `--json-mode`" if s.get("json_mode") else "")
            + (f" `--prefill {s['prefill']}`" if s.get("prefill", "none") != "none" else "") + stop)


def _compare(recs: dict[str, dict]) -> str:
    """The head-to-head of :data:`COMPARE`: the same sentences, each model's usable answers and speed."""
    from figbench.local_models import DEFAULT_MODEL

    a, b = (recs[n] for n in COMPARE)
    same = a["answers"]["sentence_keys"] == b["answers"]["sentence_keys"]
    parts = []
    for r in (a, b):
        ans, m = r["answers"], r["mentions"]
        parts.append(f"`{r['settings']['model']}` {ans['usable']} of {ans['sentences']} usable "
                     f"({ans['valid_json_as_written']} valid JSON as written), {m['retagged']} of {m['source']} "
                     f"mentions re-tagged, {m['flagged']} flagged, {r['speed']['completion_tokens_per_s']:.1f} "
                     f"completion tokens/s in {_minutes(r['speed']['wall_s'])}")
    return (f"Head to head on {'the same' if same else 'DIFFERENT'} {a['answers']['sentences']} `dev_small` sentences, "
            f"`--prefill inputs`: {'; '.join(parts)}. The default model (without `--llm-model`) is "
            f"`{DEFAULT_MODEL}`, chosen by this comparison.")


def _machine(r: dict) -> str:
    m = r["machine"]
    if m.get("gpu"):
        return f"lent {m['gpu']}, nothing else running"
    load = m["load_average_1min"]
    return f"CPU, load {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}"


def render_generation_run(results: Path) -> str:
    """The real runs: what the model answered and what the pipeline made of it."""
    from figbench.generate.record import validate_record

    recs = []
    for name in RUNS:
        rec = _load(results, name, "record_generation.py")
        validate_record(rec, f"results/generation/{name}.json")
        recs.append(rec)
    lines = ["| model (`--llm-model`) | sentences | answers valid JSON as written | usable answers | word-list entries "
             "in the paraphrase | mentions re-tagged | flagged | completion tokens/s | wall time | machine (load "
             "average min / mean / max) |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in recs:
        a, w, m, sp = r["answers"], r["word_lists"], r["mentions"], r["speed"]
        cells = [_label(r) + f" ECB+ `{r['settings']['split']}`" + (f", batches of {r['settings']['batch_size']}"
                                                                 if r["machine"].get("gpu") else ""),
                 str(a["sentences"]), _pct(a["valid_json_as_written"], a["answers"]),
                 _pct(a["usable"], a["sentences"]), _pct(w["in_paraphrase"], w["entries"]),
                 _pct(m["retagged"], m["source"]), _pct(m["flagged"], m["in_corpus"]),
                 f"{sp['completion_tokens_per_s']:.1f}", _minutes(sp["wall_s"]), _machine(r)]
        lines.append("| " + " | ".join(cells) + " |")
    head, other = recs[0], [r for r in recs[1:] if r["name"] not in COMPARE]
    s, m, o = head["settings"], head["mentions"], head["own_word_lists"]
    kinds = ", ".join(f"{k} {n}" for k, n in head["failure_kinds"].items()) or "none"
    flags = ", ".join(f"`{k}` {n}" for k, n in list(m["flags"].items())[:4]) or "none"
    gpus = [r for r in recs if r["machine"].get("gpu")]
    text = [f"Recorded runs (`results/generation/`), offline, the CPU rows on this machine's CPU "
            f"({head['machine']['cpu_count']} cores shared with other jobs: the load averages show how busy it was, "
            f"so the speeds are lower bounds). The first row: ECB+ `{s['split']}` with the Fig. 2 {s['style']}-word "
            f"prompt, temperature {s['temperature']}, batches of {s['batch_size']}, {s['json_retries']} JSON retries: "
            f"`{head['command']}`."]
    if gpus:
        splits = ", ".join(f"`{r['settings']['split']}`" for r in gpus)
        text.append(f"The GPU rows ran the same model and settings on ECB+ {splits} on a lent "
                    f"{gpus[0]['machine']['gpu']} (torch {gpus[0]['machine']['torch']}), in three steps: "
                    f"`{gpus[-1]['command']}`; their speeds are the GPU's, the answers sampled anew (not the CPU run's "
                    "answers replayed).")
    text.append(f"With `{s['model']}` the unusable answers were: {kinds}; the flags on the re-tagged mentions: "
                f"{flags}.")
    if "closed_by_figbench" in head["answers"]:
        closed = _pct(head["answers"]["closed_by_figbench"], head["answers"]["answers"])
        text.append(f"Sentence stop: the model's second step ends where its \"Metaphoric Sentence\" string closes "
                    f"and figbench writes the `}}` that closes the object ({closed}"
                    " answers; counted in \"valid JSON as written\", as are the keys figbench prefilled); the "
                    "earlier runs' second step ran until the JSON closed or the token cap, where a small model "
                    "often kept writing keys.")
    if o["compared"]:
        text.append(f"Its own word lists as the re-tagger's word list: "
                    f"{_pct(o['agree_with_alignment'], o['compared'])} of the mentions with an entry get the span the "
                    f"alignment finds without a list; of the {o['disagreements']:,} others, "
                    f"{_pct(o['disagreements_flagged'], o['disagreements'])} are flagged (a new paraphrase has no "
                    "hand-corrected span, so this is agreement, not accuracy).")
    elif head["word_lists"]["entries"]:
        text.append(f"None of its {head['word_lists']['entries']:,} word-list entries could be paired with a trigger "
                    "(an entry per trigger, or the original list's words matched; it wrote nested lists or lists of "
                    "another length, Fig. 2 asking for 5 metaphors a word), so its own lists give no re-tagging "
                    "variant.")
    else:
        text.append("It returned no usable word list, so its own lists give no re-tagging variant.")
    for r in other:
        both = set(r["answers"]["answered_sentences"]) & set(head["answers"]["answered_sentences"])
        mode = " with " + _label(r).split(" ", 1)[1] if " " in _label(r) else ""
        rk = ", ".join(f"{k} {n}" for k, n in r["failure_kinds"].items()) or "none"
        rf = ", ".join(f"`{k}` {n}" for k, n in r["mentions"]["flags"].items()) or "none"
        text.append(f"`{r['settings']['model']}`{mode} on {len(r['answers']['answered_sentences'])} sentences: "
                    f"usable {len(r['answers']['usable_sentences'])} (unusable: {rk}; flags: {rf}); on the "
                    f"{len(both)} sentences both runs "
                    f"answered, {len(set(r['answers']['usable_sentences']) & both)} against "
                    f"{len(set(head['answers']['usable_sentences']) & both)} usable.")
    text.append(_compare({r["name"]: r for r in recs}))
    for r in recs:
        if r.get("note"):
            text.append(f"`{r['name']}`: {r['note']}")
    return "\n".join(lines) + "\n\n" + " ".join(text) + "\n"


def _paper(row: str, paper: dict[str, dict], drop: bool = True) -> str:
    p = paper.get(row)
    if not p:
        return ""
    return (f"{p['ecbplus']:g} -> {p['meta_m']:g}" + (f", drop {p['ecbplus'] - p['meta_m']:.1f}" if drop else "")
            + f" ({p['where']})")


def _ci(d: dict) -> str:
    return f"{100 * d['drop']:.1f} [{100 * d['low']:.1f}, {100 * d['high']:.1f}]"


def _ce_lh_text(h: dict) -> str:
    """Where the CE_LH row's model came from; a CE_LH row without the record of its model is an error."""
    m = h.get("ce_lh_model")
    if not isinstance(m, dict) or not m.get("command") or "train_seconds" not in m or "check" not in m:
        raise ValueError(f"results/generation/harder_{h['split']}.json: baselines.CE_LH has no ce_lh_model record "
                         "(the model's training command, measured training time and check); rebuild it with "
                         "`python benchmarks/bench_harder.py --ce-lh-model DIR`")
    c = m["check"]
    threads = f", {m['torch_threads']} torch thread{'s' if m['torch_threads'] != 1 else ''}" if m.get(
        "torch_threads") else ""
    agree = "the same" if abs(c["conll_f1"] - c["record_conll_f1"]) < 5e-4 else "NOT the same as"
    return (f"CE_LH is the {m['model']} cross-encoder `{m['folder']}` ({m['sample']}), trained "
            f"for {m['train_steps']:.0f} steps ({m['train_examples']:,.0f} pairs in this run) in "
            f"{m['train_seconds']:,.0f} s on this machine's CPU ({m['cpu_count']} cores shared with other jobs"
            f"{threads}, torch {m['torch']}; {m['saved_at'][:10]}) by `{m['command']}`. On all of ECB+ "
            f"`{h['split']}` it scores CoNLL F1 {100 * c['conll_f1']:.1f}, {agree} as the committed record "
            f"`{c['record']}` ({100 * c['record_conll_f1']:.1f}); its weights are "
            f"{'identical to' if c['same_weights'] else 'not bit-identical to'} that record's model (final training "
            f"loss {m['final_loss']:.6f} here, {c['record_final_loss']:.6f} there"
            + (f"; that run's last process trained {c['record_train_examples']:,.0f} of its pairs, resuming from a "
               "checkpoint" if c["record_train_examples"] < m["train_examples"] else "") + "). The paper's "
            "CE_LH is RoBERTa-base trained on every candidate pair (gold topics, content-word LH), so compare the "
            "drops, not the levels." + _ce_lh_pruning(h["baselines"]))


def _ce_lh_pruning(b: dict) -> str:
    """CE_LH only keeps or drops LH's candidate pairs: say how many there were where its score equals LH's."""
    ce, lh = b["CE_LH"], b.get("LH")
    same = [v for v in ("meta_m", "generated") if lh and v in ce and ce[v] == lh.get(v) and "counts" in ce]
    if not same:
        return ""
    parts = [f"{'released META_m' if v == 'meta_m' else 'generated'}: {ce['counts'][v]['candidate_pairs']:,.0f} "
             f"candidate pairs, {ce['counts'][v]['predicted_clusters']:,.0f} clusters as LH's "
             f"{lh['counts'][v]['predicted_clusters']:,.0f}" for v in same]
    return (f" Where CE_LH scores exactly LH's F1, LH found few candidate pairs for it to prune ({'; '.join(parts)}; "
            f"ECB+: {ce['counts']['ecbplus']['candidate_pairs']:,.0f} candidate pairs).")


def render_harder(results: Path, name: str = HARDER) -> str:
    """ECB+ vs the released META_m vs the generated corpus on the same mentions, beside the paper's drops."""
    h = _load(results, name, "bench_harder.py")
    published = paper_values(h["split"])  # built once per table, not per row
    n, st, b = h["mentions"], h["stats"], h["baselines"]
    model = h["generation_settings"].get("model", "?")
    gen = "generated" in st

    def cell(d: dict, key: str, fmt) -> str:
        return fmt(d[key]) if key in d else "no usable mention"

    lines = [f"| on the {n['shared']:,} shared `{h['split']}` mentions | ECB+ | META_m (released) | generated "
             f"(`{model}`) | drop to META_m [95% CI] | drop to generated [95% CI] | paper, ECB+ -> META_m |",
             "|---|---|---|---|---|---|---|"]
    for key, label in (("ambiguity", "ambiguity (head lemmas)"), ("diversity", "diversity (head lemmas)"),
                       ("mtld_paper", "trigger MTLD (the paper's script)")):
        paper = _paper(key, published, drop=False)
        lines.append(f"| {label} | {st['ecbplus'][key]:.2f} | {st['meta_m'][key]:.2f} | "
                     f"{cell(st.get('generated', {}), key, lambda x: f'{x:.2f}')} |  |  | {paper} |")
    for name, row in b.items():
        score = "CoNLL F1" if row["score"] == "conll_f1" else "oracle B3 recall"
        paper = _paper(name, published)
        lines.append(f"| {name}, {score} | {100 * row['ecbplus']:.1f} | {100 * row['meta_m']:.1f} | "
                     f"{cell(row, 'generated', lambda x: f'{100 * x:.1f}')} | {_ci(row['drop_meta_m'])} | "
                     f"{cell(row, 'drop_generated', _ci)} | {paper} |")
    units = next(iter(b.values()))["drop_meta_m"]["units"]
    text = (f"Mentions: ECB+ {n['ecbplus']:,}, released META_m {n['meta_m']:,}, generated {n['generated']:,}; every "
            f"column is restricted to the {n['shared']:,} mentions the versions with rows all hold, so the drops are "
            f"paired (a bootstrap over the {units} topics, {h['n_resamples']:,} resamples: few units, wide intervals). "
            "The paper's values are its own runs, on its test split or Dev_small as marked.")
    if gen:
        text += (f" The generated column is figbench's own corpus of these sentences (`{h['generated']}`, the run "
                 f"recorded as `{h.get('generated_record') or '?'}`): only the {n['generated']:,} mentions the "
                 f"re-tagger placed in a usable paraphrase, so every column is cut to those {n['shared']:,}.")
        if h.get("generated_record"):
            flags = _load(results, h["generated_record"], "record_generation.py")["mentions"]["flags"]
            kept = flags.get("untouched", 0)
            share = "mostly" if 2 * kept > n["generated"] else "partly"
            text += (f" Of those, {kept:,} are flagged `untouched` (the model kept the trigger word in its "
                     f"paraphrase), so this column measures {share} ECB+'s own words, not metaphors.")
    if "CE_LH" in b:
        text += " " + _ce_lh_text(h)
    elif h.get("ce_lh"):
        text += " CE_LH is not in the table: " + h["ce_lh"].rstrip(".") + "."
    if not gen:
        text += (f" The generated corpus has no usable mention (`{model}` answered no usable JSON; see the run "
                 "above), so whether figbench's own paraphrases are harder is not measured by this run.")
    return "\n".join(lines) + "\n\n" + text + "\n"


def blocks() -> list[Block]:
    from functools import partial

    return [
        Block("README.md", "generation-run", render_generation_run,
              anchor="A real language model in the loop: runs recorded by `benchmarks/record_generation.py` (generated "
                     "from `results/generation/`):"),
        *(Block("README.md", block, partial(render_harder, name=name),
                anchor=f"generated from `results/generation/{name}.json`):") for block, name in HARDER_BLOCKS),
    ]


__all__ = ["COMPARE", "HARDER", "RUNS", "blocks", "render_generation_run", "paper_values", "render_harder"]
