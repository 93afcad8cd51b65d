"""Narrative generation from a proverb and keywords, with any seq2seq model; scored by the
``narrative_generation`` task (BLEU, ROUGE-L) plus keyword recall.

Keywords are the verbs and named entities of the gold narrative. With a spaCy pipeline that has a
tagger and NER installed (e.g. ``en_core_web_sm``) those are used. Without one (the offline default)
a documented heuristic stands in:

- named entities: maximal runs of capitalised tokens that do not start a sentence (``I`` excluded);
- verbs: tokens the spaCy English lookup tables (``spacy-lookups-data``: ``lemma_exc`` irregular
  verb forms, ``lemma_rules`` suffix rules, ``lemma_index`` verb lemmas) identify as an *inflected*
  verb form (-ed/-ing or irregular), excluding stop words. Base forms and -s forms are ignored because
  they are mostly ambiguous with nouns ("time", "loans").
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from figbench_baselines.common.figurative import rate

_TOKEN = re.compile(r"[A-Za-z][A-Za-z'-]*|[.!?]")


@lru_cache(maxsize=1)
def _verb_tables():
    from figbench.imports import spacy as import_spacy

    import_spacy()   # spaCy without thinc's torch import (figbench.imports)
    from spacy.lang.en.stop_words import STOP_WORDS
    from spacy.lookups import load_lookups

    lk = load_lookups("en", ["lemma_index", "lemma_exc", "lemma_rules"])
    index = set(lk.get_table("lemma_index")["verb"])
    exc = {k for k, v in lk.get_table("lemma_exc")["verb"].items() if k not in v}
    rules = [tuple(r) for r in lk.get_table("lemma_rules")["verb"] if r[0] in ("ed", "ing")]
    return index, exc, rules, STOP_WORDS


def is_inflected_verb(word: str) -> bool:
    """True if the lookup tables say ``word`` is an inflected verb form (see module doc)."""
    index, exc, rules, stop = _verb_tables()
    w = word.lower()
    if w in stop or len(w) < 3:
        return False
    if w in exc:
        return True
    return any(w.endswith(old) and old and (w[: len(w) - len(old)] + new) in index for old, new in rules)


def heuristic_keywords(text: str) -> list[str]:
    """Verbs and named entities of ``text`` by the lookup/capitalisation heuristic (order kept, unique)."""
    toks = _TOKEN.findall(text)
    out: list[str] = []
    run: list[str] = []
    sentence_start = True
    for t in toks + ["."]:
        if t in ".!?":
            if run:
                out.append(" ".join(run))
            run, sentence_start = [], True
            continue
        if t[0].isupper() and not sentence_start and t != "I":
            run.append(t)
        else:
            if run:
                out.append(" ".join(run))
                run = []
            if is_inflected_verb(t):
                out.append(t.lower())
        sentence_start = False
    return list(dict.fromkeys(out))


def find_tagger_pipeline(lang: str = "en"):
    """An installed spaCy pipeline with tagger and NER, or None."""
    from figbench.imports import spacy as import_spacy

    spacy = import_spacy()

    for name in sorted(spacy.util.get_installed_models()):
        if name.startswith(f"{lang}_"):
            nlp = spacy.load(name)
            if "ner" in nlp.pipe_names and ("tagger" in nlp.pipe_names or "morphologizer" in nlp.pipe_names):
                return nlp
    return None


def keywords(texts: Sequence[str], nlp=None) -> list[list[str]]:
    """Keywords per text: spaCy verbs + entities when ``nlp`` is given, else :func:`heuristic_keywords`."""
    if nlp is None:
        return [heuristic_keywords(t) for t in texts]
    out = []
    for doc in nlp.pipe(texts):
        kws = [e.text for e in doc.ents] + [t.text.lower() for t in doc if t.pos_ == "VERB"]
        out.append(list(dict.fromkeys(kws)))
    return out


def prompt(proverb: str, kws: Sequence[str]) -> str:
    return f"proverb: {proverb} keywords: {', '.join(kws)}"


def keyword_baseline(proverbs: Sequence[str], kws: Sequence[Sequence[str]]) -> list[str]:
    """Untrained reference output: the proverb followed by the keywords."""
    return [f"{p} {' '.join(k)}".strip() for p, k in zip(proverbs, kws)]


# ------------------------------------------------------------------ seq2seq

def load_seq2seq(name: str):
    from figbench_baselines.common.encoder import ModelLoadError
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    try:
        return AutoTokenizer.from_pretrained(name), AutoModelForSeq2SeqLM.from_pretrained(name)
    except (OSError, ValueError) as e:
        raise ModelLoadError(f"cannot load seq2seq model {name!r}: {e}") from e


def finetune_seq2seq(tok, model, sources: Sequence[str], targets: Sequence[str], cfg, *,
                     max_source: int = 128, max_target: int = 192) -> tuple[Any, dict[str, float]]:
    from figbench_baselines.common.figurative import finetune, pad_collate

    src = tok(list(sources), truncation=True, max_length=max_source)
    tgt = tok(text_target=list(targets), truncation=True, max_length=max_target)
    feats = [{"input_ids": src["input_ids"][i], "attention_mask": src["attention_mask"][i],
              "labels": tgt["input_ids"][i]} for i in range(len(sources))]
    collate = pad_collate(tok)

    def collate_labels(items):
        width = max(len(it["labels"]) for it in items)
        batch = collate([{k: v for k, v in it.items() if k != "labels"} for it in items])
        import torch

        batch["labels"] = torch.tensor([it["labels"] + [-100] * (width - len(it["labels"])) for it in items])
        return batch

    return finetune(model, feats, collate_labels, cfg, desc="epic generation")


def generate(tok, model, sources: Sequence[str], *, max_new_tokens: int = 128, batch_size: int = 16,
             num_beams: int = 1) -> tuple[list[str], dict[str, float]]:
    import torch
    from tqdm.auto import tqdm

    model.eval()
    out, t0 = [], time.perf_counter()
    device = next(model.parameters()).device
    with torch.inference_mode():
        for i in tqdm(range(0, len(sources), batch_size), desc="generate", leave=False):
            enc = tok(list(sources[i:i + batch_size]), padding=True, truncation=True, max_length=128,
                      return_tensors="pt").to(device)
            ids = model.generate(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"],
                                 max_new_tokens=max_new_tokens, num_beams=num_beams, do_sample=False)
            out += tok.batch_decode(ids, skip_special_tokens=True)
    return out, {"inference_examples_per_s": rate(len(sources), time.perf_counter() - t0)}


# ------------------------------------------------------------------ scores

def keyword_recall(generated: str, kws: Sequence[str]) -> float:
    """Fraction of keywords found (case-insensitive, whole words) in the generated text; 1.0 if none."""
    if not kws:
        return 1.0
    low = f" {' '.join(re.findall(r'[a-z0-9]+', generated.lower()))} "
    found = sum(f" {' '.join(re.findall(r'[a-z0-9]+', k.lower()))} " in low for k in kws)
    return found / len(kws)
