"""Benchmark: the automatic trigger re-tagger against the released ECB+META spans, over word-list variants.

For every sentence of the released ECB+META_m (validation, test) and ECB+META_1 (the 277 Dev_small
mentions of ``ecb_meta_analysis.xlsx``), the re-tagger (:func:`figbench.generate.retag.retag`) gets the
ECB+ sentence with all its event triggers and the released paraphrase (its tokens), with each word list of
:data:`VARIANTS` as the model's "Metaphoric Word List": the released span itself (lowercased, detokenised,
edge punctuation stripped: the best a model could write, and circular, since it is the answer), its first
word in base form, its first content word only, its last token dropped (spans of 2+ tokens), and no list.
Its span of every released mention is compared with the released span (after the authors' hand
correction): exact-span agreement, token overlap (Dice of the token index sets), how many of its spans it
flags, and the share of disagreements that are flagged (what a reviewer of the flagged cases would see).

Targets (issue 35), per variant: exact agreement >= 90%, or >= 80% of the disagreements flagged with no
more than 25% of all mentions flagged. The re-tagger sees only what a run has (the ECB+ sentence, its triggers,
the paraphrase, the word list); the released span is used only to make the variant lists and to score. The
word-list rule (:mod:`figbench.generate.wordlist`) and the span edges (:mod:`figbench.generate.retag`) were
designed and tuned on META_m validation and META_1 Dev_small only; META_m test is held out, though the edge
revision came after an earlier test scoring had been seen (:data:`SELECTION`, rendered into the README, marked).

It also estimates the tokens and cost of a real META_m run over ECB+ validation + test (the paper: about
$18 with GPT-4): one request per sentence with event triggers, the prompt as ``figbench generate`` sends it,
the answer the JSON of Fig. 2 built from the released paraphrase; tokens counted with the offline MiniLM
WordPiece tokenizer (GPT-4's own tokenizer is not available offline; for English news text the counts are
close but not equal), priced at GPT-4-0613's list price ($30 / $60 per million prompt / completion tokens).

Usage: python benchmarks/bench_retag.py [--data-root ../shared/data] [--out benchmarks/bench_retag.json]
Writes the numbers as JSON (``--out``) and prints a table; exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

ROOT = Path(__file__).resolve().parent.parent
#: (name, ecbmeta config, split, ECB+ split)
SETS = (("META_m validation", "meta_m", "validation", "validation"),
        ("META_m test", "meta_m", "test", "test"),
        ("META_1 Dev_small", "meta_1", "dev_small", "validation"))
EXACT_TARGET, FLAGGED_TARGET, FLAGGED_AT_MOST = 0.90, 0.80, 0.25
#: how the re-tagger's word-list rule was chosen (``provenance.selection`` of result records: ``validation-only``
#: or ``test-informed``; a test-informed rule is marked in the README)
SELECTION = {"kind": "test-informed",
             "note": "the word-list rule (lemma look-up, fragment -> aligned stretch, an exact non-fragment match "
                     "answers weak_boundary/extra_words) was designed on META_m validation and META_1 Dev_small and "
                     "META_m test scored once; the edge revision after it (a leading preposition or verb kept, a "
                     "guessed cut's function words dropped, an entry cut short between two content words run on, "
                     "weak_boundary only where the span stops short of the kept function word) was made after that "
                     "test scoring had been seen, designed on META_m validation and META_1 Dev_small per-item output "
                     "only (test's never looked at), and META_m test scored once more after it was fixed; the "
                     "shared-stretch cut revision after that (a content word to each piece, no cut next to a "
                     "possessive, hyphen or 'of' where another place will do, a cut between content words allowed "
                     "when a function word is over 1.5 tokens further) was designed on META_m validation and META_1 "
                     "Dev_small only (benchmarks/retag_ceiling.py; test's per-item output never looked at), and "
                     "META_m test scored once after it was fixed"}


def _base_form(tokens: list[str]) -> str | None:
    from figbench.corpora.lemmas import lookup_lemma

    words = llm_word(tokens).split()
    return " ".join([lookup_lemma(words[0]), *words[1:]]) if words else None


def _first_content(tokens: list[str]) -> str | None:
    from figbench.generate.retag import is_content

    return next((llm_word([t]) for t in tokens if is_content(t)), None) or llm_word(tokens) or None


def _dropped(tokens: list[str]) -> str | None:
    words = [t for t in tokens if any(c.isalnum() for c in t)]
    return llm_word(words[:-1] if len(words) > 1 else words) or None


#: word-list variant -> the "Metaphoric Word List" entry a model gives for a released span (None: no list)
VARIANTS = {"released span": lambda toks: llm_word(toks), "first word in base form": _base_form,
            "first content word": _first_content, "last token dropped": _dropped, "no word list": None}


def verdict(r: dict) -> str:
    """Which target a variant's result meets: ``exact``, ``flags``, ``both`` or ``none``."""
    exact = r["exact"] >= EXACT_TARGET
    flags = r["disagreements_flagged"] >= FLAGGED_TARGET and r["flagged"] <= FLAGGED_AT_MOST
    return "both" if exact and flags else "exact" if exact else "flags" if flags else "none"


def llm_word(tokens: list[str]) -> str:
    """A released span as a model's "Metaphoric Word List" entry would give it."""
    text = " ".join(tokens)
    for a, b in ((" 's", "'s"), (" - ", "-"), (" n't", "n't"), (" ,", ","), (" .", ".")):
        text = text.replace(a, b)
    return text.strip(" .,;:!?\"'").lower()


def scored(ecb_rows: list[dict], meta_rows: list[dict], variant, style: str):
    """Per released mention: ``(ECB+ sentence, its triggers, paraphrase, released row, the re-tagger's Tag)``."""
    from figbench.generate.retag import retag

    ecb_by_sent: dict[tuple, list[dict]] = defaultdict(list)
    for r in ecb_rows:
        ecb_by_sent[(r["doc_id"], r["sentence_id"])].append(r)
    ecb_by_id = {r["mention_id"]: r for r in ecb_rows}
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for r in meta_rows:
        e = ecb_by_id[r["mention_id"]]
        groups[(e["doc_id"], e["sentence_id"], tuple(r["sentence"]))].append(r)
    for (doc, sid, para), released in groups.items():
        orig = ecb_by_sent[(doc, sid)]
        sentence = list(orig[0]["sentence"])
        triggers = [(r["mention_id"], r["token_start"], r["token_end"]) for r in orig]
        words = None
        if variant is not None:
            words = {r["mention_id"]: w for r in released
                     if (w := variant(list(para[r["token_start"]: r["token_end"]])))}
        tags = {t.mention_id: t for t in retag(sentence, triggers, list(para), words, style)}
        for r in released:
            yield sentence, triggers, list(para), r, tags[r["mention_id"]]


def evaluate(ecb_rows: list[dict], meta_rows: list[dict], variant, style: str) -> dict:
    ecb_by_id = {r["mention_id"]: r for r in ecb_rows}
    n = exact = loose = flagged = flagged_wrong = wrong = 0
    overlap = 0.0
    misses = []
    for sentence, _, para, r, t in scored(ecb_rows, meta_rows, variant, style):
        gold = set(range(r["token_start"], r["token_end"]))
        got = set(range(t.start, t.end)) if t.start is not None else set()
        n += 1
        ok = (t.start, t.end) == (r["token_start"], r["token_end"])
        exact += ok
        g0, g1 = r["token_start"], r["token_end"]
        while g1 > g0 + 1 and not any(c.isalnum() for c in para[g1 - 1]):
            g1 -= 1  # the release sometimes keeps the punctuation after a span
        loose += (t.start, t.end) == (g0, g1)
        overlap += 2 * len(gold & got) / (len(gold) + len(got)) if gold or got else 1.0
        flagged += t.flagged
        if not ok:
            wrong += 1
            flagged_wrong += t.flagged
            if len(misses) < 15 and not t.flagged:
                misses.append({"mention_id": r["mention_id"], "ecb": " ".join(sentence),
                               "trigger": ecb_by_id[r["mention_id"]]["text"], "released": r["text"],
                               "proposed": " ".join(para[t.start: t.end]) if t.start is not None else None})
    return {"mentions": n, "exact": exact / n, "exact_without_trailing_punct": loose / n,
            "token_overlap": overlap / n, "flagged": flagged / n,
            "disagreements": wrong, "disagreements_flagged": flagged_wrong / wrong if wrong else 1.0,
            "flagged_agreements": (flagged - flagged_wrong) / n,
            "unflagged_misses_sample": misses}


def cost_estimate(ecb_rows: list[dict], meta_rows: list[dict], price_in: float = 30.0,
                  price_out: float = 60.0) -> dict:
    """Tokens and cost of one META_m request per ECB+ sentence, answered with the released paraphrase."""
    from figbench_baselines.common.encoder import default_model_path
    from transformers import AutoTokenizer

    from figbench.generate.prompts import render
    from figbench.generate.source import units_of

    tok = AutoTokenizer.from_pretrained(default_model_path())
    para = {}
    for r in meta_rows:
        para.setdefault(f"{r['doc_id']}#{r['sentence_id']}", (r["sentence"], []))[1].append(r["text"])
    n_in = n_out = answered = 0
    units, _ = units_of(ecb_rows, "ecbplus/events")
    for u in units:
        n_in += len(tok(render("multi", u.text, u.words), add_special_tokens=False)["input_ids"])
        if u.key in para:
            sentence, words = para[u.key]
            answer = json.dumps({"Original Sentence": u.text, "Original Word List": u.words,
                                 "Metaphoric Word List": words, "Metaphoric Sentence": " ".join(sentence)}, indent=1)
            n_out += len(tok(answer, add_special_tokens=False)["input_ids"])
            answered += 1
    n_out_all = n_out * len(units) / answered if answered else 0
    return {"sentences": len(units), "prompt_tokens": n_in, "completion_tokens": round(n_out_all),
            "cost_usd": round(n_in / 1e6 * price_in + n_out_all / 1e6 * price_out, 2),
            "price_per_mtok": {"prompt": price_in, "completion": price_out}, "paper_cost_usd": 18.0,
            "tokenizer": "all-MiniLM-L6-v2 WordPiece (stand-in for GPT-4's)"}


def data_args(argv: list[str] | None, doc: str, out_name: str) -> argparse.Namespace:
    """``--data-root`` (made FIGBENCH_DATA_DIR) and ``--out`` (default ``benchmarks/<out_name>``) of a script."""
    p = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    p.add_argument("--data-root", default=os.environ.get("FIGBENCH_DATA_DIR", str(ROOT.parent / "shared" / "data")))
    p.add_argument("--out", default=str(ROOT / "benchmarks" / out_name))
    args = p.parse_args(argv)
    os.environ["FIGBENCH_DATA_DIR"] = args.data_root
    return args


def main(argv: list[str] | None = None) -> int:
    args = data_args(argv, __doc__, "bench_retag.json")
    import figbench

    t0 = time.perf_counter()
    ecb = figbench.load_dataset("ecbplus", "events")
    results: dict[str, dict] = {}
    for name, config, split, ecb_split in SETS:
        meta = figbench.load_dataset("ecbmeta", config, split=split).to_list()
        ecb_rows = ecb[ecb_split].to_list()
        for variant, make in VARIANTS.items():
            key = f"{name}, {variant}"
            t1 = time.perf_counter()
            results[key] = evaluate(ecb_rows, meta, make, "single" if config == "meta_1" else "multi")
            results[key]["seconds"] = round(time.perf_counter() - t1, 2)
            results[key]["verdict"] = verdict(results[key])
    ecb_all = ecb["validation"].to_list() + ecb["test"].to_list()
    meta_all = (figbench.load_dataset("ecbmeta", "meta_m", split="validation").to_list()
                + figbench.load_dataset("ecbmeta", "meta_m", split="test").to_list())
    cost = cost_estimate(ecb_all, meta_all)
    ok = all(r["verdict"] != "none" for r in results.values())
    out = {"targets": {"exact": EXACT_TARGET, "disagreements_flagged": FLAGGED_TARGET,
                       "flagged_at_most": FLAGGED_AT_MOST},
           "variants": list(VARIANTS), "sets": [name for name, *_ in SETS], "met": ok, "selection": SELECTION,
           "results": results, "cost_estimate_meta_m_validation_test": cost,
           "seconds": round(time.perf_counter() - t0, 1)}
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n", "utf-8")
    print(f"{'set':50s} {'n':>5s} {'exact':>7s} {'overlap':>8s} {'flagged':>8s} {'miss flagged':>13s} verdict")
    for key, r in results.items():
        print(f"{key:50s} {r['mentions']:5d} {r['exact']:7.1%} {r['token_overlap']:8.1%} {r['flagged']:8.1%} "
              f"{r['disagreements_flagged']:13.1%} {r['verdict']}")
    print(f"META_m run over ECB+ validation + test, estimated: {cost['sentences']} requests, "
          f"{cost['prompt_tokens']:,} prompt + {cost['completion_tokens']:,} completion tokens, "
          f"${cost['cost_usd']:.2f} at GPT-4 list price (paper: about $18)")
    print(f"written {args.out}; targets {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
