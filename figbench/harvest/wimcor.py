"""The WiMCor method (Mathews & Strube, LREC 2020, §3.2) over a dump: location-metonymy samples.

1. ``scan`` (per partition): disambiguation pages (a disambiguation template; the anchor text is the
   title without `` (disambiguation)``) with the articles they link to, and the redirects.
2. In this process: every linked article's class (categories file or infobox type, below); metonymic pairs
   ``(W_L, W_M, a)``: two articles of one disambiguation page whose classes match a Table 1
   association, LOCATION-for-INSTITUTE / TEAM / ARTIFACT / EVENT (``W_L`` a LOCATION).
3. ``extract`` (per partition): the links between pair articles (the paper's second check: the two
   articles link to each other) and every backlink to a pair article in a prose paragraph.
4. In this process: pairs whose articles do not link to each other are dropped; each backlink paragraph
   of ``W`` becomes a sample with the linked mention replaced by the anchor text ``a`` (``[w -> a]P``),
   labelled with ``W``'s class; samples of fewer than 10 or more than 512 tokens are dropped (§3.2.2).

Without a categories file, the classes come from the dump itself: a linked article's first infobox type (of its
lead) in the packaged list :data:`.classes.INFOBOX_CLASSES` (settlement/country -> LOCATION, university/company ->
INSTITUTE, football club -> TEAM, stadium -> ARTIFACT, festival -> EVENT, ...), an approximation of DBpedia's
classes (which DBpedia maps from the same infoboxes); the card says so.

Categories file (``--categories``; the paper queried DBpedia online), one of:

* DBpedia instance types (``instance_types_en.ttl`` / ``.nt``, optionally ``.bz2``): lines
  ``<http://dbpedia.org/resource/Delft> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type>
  <http://dbpedia.org/ontology/City> .``; the class is mapped by :data:`.classes.DBPEDIA_CLASSES`;
* a TSV (any other name): ``Wikipedia title<TAB>CLASS``, CLASS a WiMCor medium label (LOCATION,
  INSTITUTE, TEAM, ARTIFACT, EVENT) or a DBpedia class name; ``#`` comments.

Output: the sample-file layout of :mod:`figbench.corpora.wimcor` (``wiki_{MEDIUM}_{train,test}.txt``,
lines ``a<SEP>paragraph with <ENT>a<ENT>``), split by anchor text (every sample of a pair in one split).
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from figbench.corpora.wimcor import MEDIUM_LABELS, SAMPLE_SPLITS, sample_files
from figbench.harvest import common, wikitext
from figbench.harvest.classes import (  # noqa: F401 - DBPEDIA_CLASSES, iter_categories: this method's API too
    DBPEDIA_CLASSES,
    INFOBOX_CLASSES,
    METONYMIC,
    card_section,
    categories_for,
    infobox_class,
    iter_categories,
    typed_classes,
)
from figbench.harvest.dump import Partition, Tally, articles, iter_pages

if TYPE_CHECKING:
    from figbench.harvest import driver

FILTERS = ("category", "mutual_links", "metadata", "tokens", "markers")
FILTER_TEXT = {
    "category": "pair candidates of a disambiguation page whose two classes match no Table 1 association "
                "(or have no class in the categories file)",
    "mutual_links": "metonymic pairs whose two articles do not link to each other (§3.2.1, second check)",
    "metadata": "backlinks in tables, lists, templates, captions or references (not a paragraph)",
    "tokens": "samples of fewer than min_tokens or more than max_tokens tokens (§3.2.2: 10-512)",
    "markers": "paragraphs holding the sample file's own markers (<SEP>, <ENT>)",
}


@dataclass
class WimcorOptions:
    """Options of a WiMCor harvest."""

    categories: str | None = None
    language: str = "en"
    disambiguation_templates: tuple[str, ...] = tuple(sorted(wikitext.DISAMBIGUATION_TEMPLATES))
    min_tokens: int = 10
    max_tokens: int = 512
    test_fraction: float = 0.2
    filters: tuple[str, ...] = FILTERS

    def as_dict(self) -> dict:
        d = asdict(self)
        d["disambiguation_templates"] = list(self.disambiguation_templates)
        d["filters"] = list(self.filters)
        return d


@dataclass
class Shared:
    options: WimcorOptions
    namespaces: tuple[str, ...] = ()
    aliases: dict[str, str] = field(default_factory=dict)  # title or redirect -> pair article
    infobox_classes: dict[str, str] = field(default_factory=dict)  # no categories file: infobox type -> label


# --------------------------------------------------------------------------- stages


def _namespaces(shared: Shared) -> frozenset[str]:
    return wikitext.BASE_NAMESPACES | set(shared.namespaces)


def anchor_of(title: str) -> str:
    """The anchor text of a disambiguation page: its title without `` (disambiguation)``."""
    t = title
    for suffix in (" (disambiguation)",):
        if t.endswith(suffix):
            t = t[: -len(suffix)]
    return t.strip()


def dab_precheck(templates: Iterable[str]) -> Callable[[str], bool]:
    """Cheap pre-check (not the parse): can a page's text hold one of ``templates``?

    :func:`wikitext.is_disambiguation` compares :func:`wikitext.template_name` (lower case, ``_`` and whitespace
    runs as one space, no ``Template:`` prefix) with ``templates``, so the lower-cased text of a page that uses one
    has ``{{``, optional whitespace or ``_``, an optional ``template:``, then the name with its spaces as runs of
    whitespace or ``_`` (``{{ Disambiguation }}``, ``{{Template:Disambiguation_cleanup}}``)."""
    names = "|".join(r"[\s_]+".join(re.escape(w) for w in t.split()) for t in sorted(templates) if t.split())
    search = re.compile(r"\{\{[\s_]*(?:template:[\s_]*)?(?:" + names + ")").search
    return lambda text: "{{" in text and search(text.lower()) is not None


def scan(part: Partition, shared: Shared) -> tuple[dict, dict]:
    """Stage 1: disambiguation pages and redirects of one partition (and, without a categories file, each
    article's class from its infobox type)."""
    templates = set(shared.options.disambiguation_templates)
    may_be_dab = dab_precheck(templates)
    dabs: dict[str, list[str]] = {}
    typed: dict[str, tuple[str, str]] = {}
    tally = Tally()
    for title, page in articles(part, tally):
        if shared.infobox_classes:
            found = infobox_class(page.text, shared.infobox_classes)
            if found:
                typed[title] = found
        if not may_be_dab(page.text):
            continue
        code = wikitext.parse(page.text)
        if wikitext.is_disambiguation(code, templates):
            dabs.setdefault(anchor_of(title), [])
            dabs[anchor_of(title)] += [t for t in dict.fromkeys(wikitext.links_of(code, _namespaces(shared)))
                                       if t != title]
    return ({"dabs": dabs, "redirects": tally.redirects, "latest": tally.latest, "typed": typed},
            {"pages": tally.pages, "disambiguation_pages": len(dabs), "redirects": len(tally.redirects)})


def extract(part: Partition, shared: Shared) -> tuple[dict, dict]:
    """Stage 3: links between pair articles and backlink paragraphs of pair articles."""
    aliases = shared.aliases
    from figbench.harvest.wec import _may_link

    links: dict[str, set[str]] = {}
    samples: list[dict] = []
    metadata: Counter = Counter()
    pages = 0
    for page in iter_pages(part):
        pages += 1
        if page.ns != 0 or page.redirect is not None:
            continue
        title = wikitext.normalize_title(page.title)
        if title not in aliases and not _may_link(page.text, aliases):
            continue
        code = wikitext.parse(page.text)
        if title in aliases:
            links[aliases[title]] = {aliases[t] for t in wikitext.links_of(code, _namespaces(shared))
                                     if t in aliases}
        for b, block in enumerate(wikitext.blocks(code, shared.namespaces)):
            seen: set[str] = set()
            for link in block.links:
                target = aliases.get(link.target)
                if target is None or target in seen or target == title:
                    continue
                seen.add(target)  # a hyperlink to an article appears once in a paragraph
                if block.kind != "prose":
                    metadata[block.kind] += 1
                    continue
                samples.append({"target": target, "source": title, "block": b, "text": block.text,
                                "start": link.start, "end": link.end})
    return ({"links": links, "samples": samples, "metadata": metadata},
            {"pages": pages, "samples": len(samples)})


# --------------------------------------------------------------------------- pairs, samples, files


def find_pairs(dabs: dict[str, list[str]], classes: dict[str, str]) -> tuple[list[tuple[str, str, str]], int]:
    """Metonymic pairs ``(W_L, W_M, anchor)`` of the disambiguation pages, and the candidates dropped."""
    pairs, dropped = [], 0
    for anchor, targets in sorted(dabs.items()):
        targets = list(dict.fromkeys(targets))
        locs = [t for t in targets if classes.get(t) == "LOCATION"]
        mets = [t for t in targets if classes.get(t) in METONYMIC]
        n = len(targets)
        dropped += n * (n - 1) // 2 - len(locs) * len(mets)
        pairs += [(loc, met, anchor) for loc in locs for met in mets]
    return pairs, dropped


def split_of(anchor: str, test: float) -> str:
    x = int(hashlib.sha256(anchor.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    return "test" if x < test else "train"


def harvest(dump, out: str | Path, opts: WimcorOptions, *, scheduler: str | None = None, workers: int | None = None,
            partition_bytes: int | None = None, keep_work: bool = False,
            progress: Callable[[str], None] | None = None, on_error: str = "stop") -> dict:
    """Run the WiMCor method over ``dump`` into the corpus folder ``out``; the report (also in the card)."""
    from figbench.harvest import driver
    from figbench.harvest import dump as dumps

    _check_options(opts)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    parts = dumps.partitions(dump, **({"partition_bytes": partition_bytes} if partition_bytes else {}))
    st = Path(opts.categories).stat() if opts.categories else None
    infobox_classes = {} if opts.categories else common.read_mapping(common.packaged(INFOBOX_CLASSES),
                                                                     labels=MEDIUM_LABELS, what="infobox class list")
    run = driver.Run(out, parts, {"method": "wimcor", **opts.as_dict(), "partition_bytes": partition_bytes,
                                  "on_error": on_error,
                                  "categories_file": [st.st_size, st.st_mtime_ns] if st else None})
    shared = Shared(opts, common.readable(parts, common.namespaces), infobox_classes=infobox_classes)
    on = set(opts.filters)
    counts = {f: 0 for f in FILTERS}
    with driver.cluster(scheduler, workers) as client:
        scan_stats = run.stage("scan", scan, client, shared, progress, on_error)
        dabs, latest = _disambiguations(run)
        linked = {t for ts in dabs.values() for t in ts}
        if opts.categories:
            classes, by_type = categories_for(opts.categories, linked), Counter()
        else:
            classes, by_type = typed_classes(run, linked)
        if "category" in on:
            pairs, counts["category"] = find_pairs(dabs, classes)
        else:
            pairs = [(x, y, a) for a, ts in dabs.items() for i, x in enumerate(ts) for y in ts[i + 1:]]
        shared.aliases = _aliases(run, pairs)
        extract_stats = run.stage("extract", extract, client, shared, progress, on_error)
    links, by_target, metadata = _extracted(run.outputs("extract"))
    if "mutual_links" in on:
        kept_pairs = [p for p in pairs if p[1] in links.get(p[0], ()) and p[0] in links.get(p[1], ())]
        counts["mutual_links"] = len(pairs) - len(kept_pairs)
        pairs = kept_pairs
    counts["metadata"] = sum(metadata.values()) if "metadata" in on else 0
    rows = _samples(pairs, classes, by_target, opts, counts)
    _write_samples(out, rows)
    info = common.dump_info(parts, scan_stats, latest)
    report = {
        "method": "wimcor", "dump": info, "options": opts.as_dict(), "filters_on": list(opts.filters),
        "categories_file": str(opts.categories) if opts.categories else None, "classes_found": len(classes),
        "class_source": (f"categories file {opts.categories}" if opts.categories else
                         f"infobox types of the linked articles ({INFOBOX_CLASSES}): an approximation of DBpedia's "
                         "classes"),
        "infobox_classes": infobox_classes, "classes_by_infobox": dict(by_type.most_common()),
        "disambiguation_pages": len(dabs), "candidate_links": sum(len(ts) for ts in dabs.values()),
        "candidates": sum(len(ts) * (len(ts) - 1) // 2 for ts in dabs.values()),
        "removed": counts, "metadata_kinds": dict(metadata),
        "pairs": [list(p) for p in pairs],
        "pairs_by_association": dict(Counter(f"LOCATION-for-{classes.get(p[1], '?')}" for p in pairs)),
        "samples": {s: {m: len(set(v)) for m, v in rows[s].items()} for s in SAMPLE_SPLITS},
        "partitions": {"scan": scan_stats, "extract": extract_stats}, "on_error": on_error,
        "skipped": run.skipped(),
    }
    report["empty_because"] = _empty_because(report)
    _write_card(out, report)
    if not keep_work:
        run.clean()
    return report


def _check_options(opts: WimcorOptions) -> None:
    """Refuse a run with a categories file that is not there or with an unknown filter, before any work."""
    if opts.categories and not Path(opts.categories).is_file():
        raise FileNotFoundError(f"categories file {opts.categories} does not exist")
    unknown = [f for f in opts.filters if f not in FILTERS]
    if unknown:
        raise ValueError(f"harvest wimcor: unknown filter(s) {unknown}; known: {', '.join(FILTERS)}")


def _disambiguations(run: driver.Run) -> tuple[dict[str, list[str]], str]:
    """Disambiguation page -> its linked articles (redirects resolved) over all partitions of the scan, and the
    newest revision time seen (the outputs are read one partition at a time, twice)."""
    dabs: dict[str, list[str]] = defaultdict(list)
    latest = ""
    for o in run.outputs("scan"):
        for a, ts in o["dabs"].items():
            dabs[a] += ts
        latest = max(latest, o["latest"])
    linked = {t for ts in dabs.values() for t in ts}
    resolved: dict[str, str] = {}
    for o in run.outputs("scan"):
        resolved.update({t: o["redirects"][t] for t in linked & o["redirects"].keys()})
    return {a: [resolved.get(t, t) for t in ts] for a, ts in dabs.items()}, latest


def _aliases(run: driver.Run, pairs: list[tuple[str, str, str]]) -> dict[str, str]:
    """Link target -> article for the pairs' articles: each itself, and the redirects to it."""
    articles = {t for p in pairs for t in p[:2]}
    aliases = {t: t for t in articles}
    for o in run.outputs("scan"):
        aliases.update({r: t for r, t in o["redirects"].items() if t in articles and r not in aliases})
    return aliases


def _extracted(extracts: Iterable[dict]) -> tuple[dict[str, set[str]], dict[str, list[dict]], Counter]:
    """The extract stage's outputs merged: article -> its links, article -> its samples, metadata link kinds."""
    links: dict[str, set[str]] = {}
    by_target: dict[str, list[dict]] = defaultdict(list)
    metadata: Counter = Counter()
    for o in extracts:
        links.update(o["links"])
        metadata.update(o["metadata"])
        for s in o["samples"]:
            by_target[s["target"]].append(s)
    return links, by_target, metadata


def _samples(pairs: list[tuple[str, str, str]], classes: dict[str, str], by_target: dict[str, list[dict]],
             opts: WimcorOptions, counts: dict[str, int]) -> dict[str, dict[str, list[str]]]:
    """split -> medium label -> sample lines ``anchor<SEP>left<ENT>anchor<ENT>right`` of the pairs' articles;
    the samples the ``markers`` and ``tokens`` filters remove are counted in ``counts``."""
    from figbench.harvest.wec import _tokenizer

    on = set(opts.filters)
    nlp = _tokenizer(opts.language)
    rows: dict[str, dict[str, list[str]]] = {s: {m: [] for m in MEDIUM_LABELS} for s in SAMPLE_SPLITS}
    jobs = sorted({(w, a, "LOCATION" if i == 0 else classes.get(w, "LOCATION"))
                   for loc, met, a in pairs for i, w in enumerate((loc, met))})
    for w, a, medium in jobs:
        split = split_of(a, opts.test_fraction)
        for s in sorted(by_target.get(w, ()), key=lambda s: (s["source"], s["block"], s["start"])):
            left, right = s["text"][: s["start"]], s["text"][s["end"]:]
            text = " ".join((left + "\x00" + right).split())
            if "markers" in on and ("<SEP>" in text or "<ENT>" in text):
                counts["markers"] += 1
                continue
            left, _, right = text.partition("\x00")
            n = len(nlp(left + a + right))
            if "tokens" in on and not opts.min_tokens <= n <= opts.max_tokens:
                counts["tokens"] += 1
                continue
            rows[split][medium].append(f"{a}<SEP>{left}<ENT>{a}<ENT>{right}")
    return rows


def _write_samples(out: Path, rows: dict[str, dict[str, list[str]]]) -> None:
    """One file per split and medium label, duplicates dropped (first kept)."""
    for split in SAMPLE_SPLITS:
        for medium, name in sample_files(split).items():
            lines = list(dict.fromkeys(rows[split][medium]))
            (out / name).write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def _empty_because(report: dict) -> str | None:
    """Why no sample was kept (None when some were)."""
    if sum(sum(v.values()) for v in report["samples"].values()):
        return None
    if not report["disambiguation_pages"]:
        return "no disambiguation page in the dump"
    if not report["pairs"]:
        dropped = report["removed"]["mutual_links"]
        return (f"no metonymic pair ({report['classes_found']:,} of the disambiguation pages' linked articles have a "
                "class, and no page links a LOCATION and an " + "/".join(METONYMIC) + " article"
                + (f" that link to each other: {dropped:,} pairs dropped by mutual_links" if dropped else "") + ")")
    return "the filters removed every sample of the metonymic pairs (see Filters)"


def _write_card(out: Path, report: dict) -> None:
    import json

    from figbench.harvest import card

    pairs = "\n".join(f"- {a}: ({loc}, {met})" for loc, met, a in report["pairs"][:100])
    samples = "\n".join(f"| {s} | " + " | ".join(str(report["samples"][s][m]) for m in MEDIUM_LABELS) + " |"
                        for s in SAMPLE_SPLITS)
    sections = [
        card.dump_section(report["dump"]),
        card_section(report),
        f"## Pairs\n\n{report['disambiguation_pages']:,} disambiguation pages, {report['candidate_links']:,} links, "
        f"{report['candidates']:,} candidate pairs; {len(report['pairs']):,} metonymic pairs kept "
        f"({report['pairs_by_association']}).\n\n{pairs}\n",
        card.filter_section(report, FILTER_TEXT),
        card.skipped_section(report),
        f"Metadata backlinks by kind: {report['metadata_kinds']}.\n",
        "## Samples\n\nSplit by anchor text (all samples of a pair in one split).\n\n| split | "
        + " | ".join(MEDIUM_LABELS) + " |\n|---|" + "---|" * len(MEDIUM_LABELS) + f"\n{samples}\n",
        "## Options\n\n```json\n" + json.dumps(report["options"], indent=1) + "\n```\n",
    ]
    card.write(out, "WiMCor-style location metonymy harvested from " + report["dump"]["dbname"], sections, report)
