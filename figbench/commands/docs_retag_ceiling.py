"""The README's account of how far a re-tagger of figbench's kind can go on META_m (rendered into the ``retag``
block from ``benchmarks/retag_ceiling.json``, written by ``benchmarks/retag_ceiling.py``): where the honest word
lists' disagreements come from, in-sample bounds of an edge rule for exact agreement and for flagging, and a
learned edge rule's agreement on ECB+ topics it was not fitted on."""

from __future__ import annotations

from pathlib import Path

from figbench.commands.docs_benchmarks import _pct, _span, _target, field, load

CEILING_JSON = "retag_ceiling.json"
#: the learners of ``benchmarks/retag_edge_cv.py``, as the README names them
_LEARNERS = {"table": "a back-off majority table", "logistic": "logistic regression"}


#: retag_ceiling.py's disagreement families, as the README names them
_FAMILIES = {"function_word_edge": "a function word at an edge", "shared_split": "a shared stretch cut elsewhere",
             "shared_reordered": "a shared stretch the release reorders", "content_edge": "a content word at an edge",
             "across_anchor": "across a kept word", "elsewhere": "outside the trigger's stretch",
             "over_kept_content": "over content words the paraphrase kept", "kept_trigger": "the trigger kept",
             "missing": "no stretch", "other": "other"}


def render_ceiling(benchmarks: Path, targets: tuple[float, float, float], precision: dict[str, float]) -> str:
    """Where the honest variants' disagreements come from and how far a rule of the re-tagger's kind can go
    (``retag_ceiling.json``); empty when the file is absent. ``targets``: exact, disagreements flagged, flagged at
    most. The flags target needs exact agreement of at least ``1 - most / flagged * p`` where ``p`` of the flagged
    spans disagree (``precision``: per variant missing both)."""
    exact_target, dis, most = targets
    most_per_dis = most / dis
    path = Path(benchmarks) / CEILING_JSON
    if not path.is_file():
        return ""
    data = load(benchmarks, CEILING_JSON, "retag_ceiling.py")
    c, e = field(data, path, "ceiling"), field(data, path, "edge_consistency", "coarse")
    fine = field(data, path, "edge_consistency", "fine")
    rows = []
    for variant, v in field(data, path, "variants").items():
        fams = sorted(((n, k) for k, n in v["families"].items() if n), reverse=True)[:3]
        rows.append(f"{variant} {_pct(v['exact'])} exact, {v['disagreements']:,} disagreements (most: "
                    + ", ".join(f"{_FAMILIES.get(k, k)} {n}" for n, k in fams)
                    + f"), at most {_pct(v['optimistic_bound'])}")
    split = [r for r in field(data, path, "edge_consistency", "recurring_coarse") if 0.2 < r["included_share"] < 0.8]
    mixed = "; ".join(f"a {'kept' if r['kept'] else 'rewritten'} {r['side']} `{r['word']}` in {r['included']}, "
                      f"out {r['excluded']}" for r in split[:3])
    return (f"How far a re-tagger of this kind can go (`benchmarks/retag_ceiling.py`, {data['set']}, "
            f"{data['mentions']:,} mentions; every disagreement put in one family by the script). The released, "
            f"hand-corrected spans decide the same edge both ways ({mixed}): a rule deciding each function-word "
            f"edge by its side, word and whether the model kept it matches at most {_pct(e['majority_rule_agreement'])}"
            f" of the {e['edges']:,} edges, and with the {c['unreachable_mentions']} mentions no stretch-based span "
            f"reaches, exact agreement is at most {_pct(c['bound_coarse'])} (with the neighbouring word as well, "
            f"{_pct(c['bound_fine'])}, a loose bound: {fine['singleton_patterns']:,} of its {fine['patterns']:,} "
            "patterns occur once). Per variant, with every reachable disagreement fixed where the release's edge "
            "decision is the majority and no agreement lost: " + "; ".join(rows) + f". So for the honest lists "
            f"on META_m no rule deciding edges by side, word and kept can reach the {_target(exact_target)} exact "
            "target; one keyed on the neighbouring word as well could in principle, though most of its patterns are "
            "seen once. The flags target needs exact agreement of at least "
            f"{_target(1 - most_per_dis)} even if every flag fell on a disagreement"
            + (", and at the share of flagged spans that disagree now on META_m validation ("
               + ", ".join(f"{v} {_pct(p)}" for v, p in precision.items()) + ") at least "
               + _span([1 - most_per_dis * p for p in precision.values()]) if precision else "")
            + ". Assumptions: " + c["assumptions"] + ".\n\n" + _flags_and_held_out(data, path, targets))


def _flags_and_held_out(data: dict, path: Path, targets: tuple[float, float, float]) -> str:
    """The in-sample flags bound and the held-out (leave-one-topic-out) estimate, and which target they rule out."""
    exact_target, dis, most = targets
    bound = field(data, path, "flags_bound")
    cv = field(data, path, "cross_validated")

    def per(level: str, key: str) -> str:
        return ", ".join(f"{v} {_pct(b[level][key])}" for v, b in bound.items())

    coarse = [b["coarse"]["flagged_needed"] for b in bound.values()]
    fine = [b["fine"]["flagged_needed"] for b in bound.values()]
    fine_exact = [b["fine"]["exact"] for b in bound.values()]
    runs = [r for learned in cv.values() for r in learned["variants"].values()]
    best_exact, best_flags = max(r["exact"] for r in runs), min(r["flagged_needed"] for r in runs)
    alone_exact = max(r["edge_only"]["exact"] for r in runs)
    alone_flags = min(r["edge_only"]["flagged_needed"] for r in runs)
    first = next(iter(cv.values()))
    names = " / ".join(_LEARNERS.get(k, k) for k in cv)
    text = (f"Flagging, in-sample: under the majority rule by side, word and kept, with the mentions most likely to "
            "disagree flagged first (by their edge patterns' minority share; those no stretch reaches first of all), "
            f"{_target(dis)} of the disagreements are flagged only with {per('coarse', 'flagged_needed')} of all "
            "mentions flagged, "
            + (f"over the {_target(most)} allowed: so no rule deciding edges by side, word and kept meets the flags "
               "target, even on the spans it was read from" if min(coarse) > most else f"within the {_target(most)}"
               " allowed")
            + f"; keyed on the neighbouring word as well, {_span(fine)} (exact {_span(fine_exact)}), which says "
            "little, since a pattern seen once has no minority decision. Held out (`benchmarks/retag_edge_cv.py`: an "
            f"edge rule learned from the released spans of all but one of the {first['folds']} ECB+ topics and "
            f"scored on the remaining one, in turn; {names}): edges decided as the release does "
            + " / ".join(_pct(r["edge_agreement"]) for r in cv.values()) + f" of {first['edges']:,}; applied to the "
            "re-tagger's spans, " + ", ".join(
                f"{v} " + " / ".join(_pct(r["variants"][v]["exact"]) for r in cv.values()) + " exact with "
                + " / ".join(_pct(r["variants"][v]["flagged_needed"]) for r in cv.values()) + " flagged"
                for v in first["variants"]) + f" (flagged: the share of mentions to flag, least confident first, for "
            f"{_target(dis)} of the disagreements)"
            + f"; even with every other disagreement fixed for free (the released span's own content words, learned "
            f"edges) at most {_pct(alone_exact)} exact, and at least {_pct(alone_flags)} flagged. ")
    if best_exact < exact_target and best_flags > most:
        return text + (f"So no learned edge rule of this kind meets either target for an honest word list on META_m: "
                       f"held out it stays below {_target(exact_target)} exact (at most {_pct(best_exact)}), and "
                       f"below the {_target(1 - most / dis)} exact that the flags target needs even with perfect flags"
                       if best_exact < 1 - most / dis else
                       f"So no learned edge rule of this kind meets either target for an honest word list on META_m: "
                       f"held out it stays below {_target(exact_target)} exact (at most {_pct(best_exact)}), and its "
                       f"confidence does not separate the disagreements enough to flag {_target(dis)} of them within "
                       f"{_target(most)}") + "; the re-tagger is left as it is."
    return text + (f"A learned edge rule meets a target held out (at best {_pct(best_exact)} exact, "
                   f"{_pct(best_flags)} flagged for {_target(dis)} of its disagreements).")
