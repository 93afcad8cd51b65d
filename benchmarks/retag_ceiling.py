"""Ceiling analysis of the trigger re-tagger on ECB+META_m validation (never test): where its disagreements with
the released spans come from, and how far any deterministic alignment rule could go.

For each word-list variant of ``benchmarks/bench_retag.py`` whose list is not the answer (first content word, last
token dropped, no list; plus the released span for reference) every disagreement is put in one family, first that
applies (:func:`family`):

* ``kept_trigger``: the alignment keeps the trigger word for word (the release tags something else);
* ``elsewhere``: the released span shares no token with the trigger's rewritten stretch (the stretch between the
  kept tokens around it) nor touches it: reordered or moved, out of reach of a rule that reads stretches;
* ``over_kept_content``: the released span runs over content words the paraphrase kept from the sentence;
* ``function_word_edge``: proposal and released span overlap and differ only by function words and punctuation
  at their edges (``ringmaster`` / ``ringmaster of the``, ``the journey`` / ``journey``);
* ``shared_reordered``: several triggers share the stretch and the release puts them in another order than the
  sentence's (out of reach of a split that hands out the pieces in order);
* ``shared_split``: several triggers share the stretch, in order (the cut between them);
* ``missing``: no span proposed though the released span lies in the stretch;
* ``content_edge``: one trigger in the stretch, differing by content words (the stretch also rewrote others);
* ``other``.

Edge consistency of the release itself, over all its spans (not only disagreements): for each span, the function
word right after its last content word (and right before its first) in the paraphrase, and whether the released
span includes it. A rule that decides an edge from that word, its side and whether the paraphrase kept it from the
sentence (the coarse key ``(side, word, kept)``) gets at most the majority decision of every such pattern right;
a finer key (adding the content word it follows or precedes) is given too, to show how much the bound depends on
the key (most fine patterns occur once, so that bound is loose).

Ceiling (``bound_coarse`` / ``bound_fine``): one minus the share of mentions lost by any rule that (a) takes its
spans from the alignment's rewritten stretches and the function words around them and hands a shared stretch
out in the triggers' order (the no-list variant's ``over_kept_content``, ``elsewhere`` and ``shared_reordered``
cases are lost) and (b) decides each function-word edge by the key (the release's minority decisions are lost):
the union of both sets, per mention, over all released spans. It is an upper bound only under those assumptions:
a rule using more context for the edges, or a different alignment, could go above it; a word list that reveals
the span's length (``last token dropped``: the span is the entry plus one token) carries edge information that
an honest rule should not exploit and the bound does not credit.

Per variant, ``optimistic_bound``: its exact agreement if every one of its disagreements were fixed except the
unreachable ones and those where the release takes the minority edge decision, with none of its agreements lost
(a rule that fixes them without breaking others need not exist; it may exceed the coarse bound, which charges
the minority decisions of every span, agreements included).

Flags bound (``flags_bound``, per honest variant, coarse and fine key): under the majority edge rule the variant's
disagreements are its unreachable ones and the mentions with a minority edge decision; ranking the mentions by
their chance of disagreeing (one minus the product of their edges' majority shares; an unreachable one counts as a
certain disagreement), the smallest share of all mentions to flag for 80% of those disagreements. In-sample, so
optimistic; over 25% means no rule of this kind meets the flags target. With the fine key it is not informative:
a pattern seen once has no minority, so its mentions count as certain agreements.

Held-out estimate (``cross_validated``, :mod:`retag_edge_cv`): a learned edge rule (a back-off majority table, and
logistic regression) fitted on the released spans of all ECB+ topics of META_m validation but one and applied to
the held-out topic, to each honest variant's spans (the re-tagger's content core, edges decided anew) and to the
released span's own core (``edge_only``: every other disagreement fixed for free, the unreachable ones lost):
exact agreement, the share of mentions to flag for 80% of the disagreements when flagged by the learned
decisions' confidence, and the share of disagreements flagged within 25%.

Usage: python benchmarks/retag_ceiling.py [--data-root ../shared/data] [--out benchmarks/retag_ceiling.json]
"""

from __future__ import annotations

import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_retag import FLAGGED_AT_MOST, FLAGGED_TARGET, VARIANTS, data_args, scored
from retag_edge_cv import LEARNERS, caught_within, cross_validate, to_flag

FAMILIES = ("kept_trigger", "over_kept_content", "across_anchor", "elsewhere", "function_word_edge",
            "shared_reordered", "shared_split", "missing", "content_edge", "other")
#: the word lists that do not hand the re-tagger the span
HONEST = ("first content word", "last token dropped", "no word list")
#: families no rule reading the alignment's stretches (and the function words around them) reaches
UNREACHABLE = ("over_kept_content", "elsewhere", "shared_reordered")


def stretches(sentence: list[str], triggers: list[tuple[str, int, int]], para: list[str]
              ) -> tuple[dict[str, tuple[int, int, int]], set[int]]:
    """mention id -> the paraphrase range ``[start, end)`` between the kept tokens around its trigger and how many
    triggers share it (absent: the alignment keeps the trigger word for word); and the paraphrase positions of
    the kept tokens outside the triggers."""
    from figbench.generate.retag import _anchors, _unchanged_and_gaps

    anchored = _anchors(sentence, para)
    _, gaps = _unchanged_and_gaps(sentence, triggers, anchored)
    out = {}
    for (left, right), group in gaps.items():
        start = anchored[left] + 1 if left >= 0 else 0
        end = anchored[right] if right < len(sentence) else len(para)
        out.update({mid: (start, end, len(group)) for mid, _, _ in group})
    inside = {i for _, s, e in triggers for i in range(s, e)}
    return out, {j for i, j in anchored.items() if i not in inside}


_KEPT: dict[tuple, set[int]] = {}


def kept_of(sentence: list[str], triggers: list[tuple[str, int, int]], para: list[str]) -> set[int]:
    """:func:`stretches`' kept positions, aligned once per sentence."""
    key = (tuple(sentence), tuple(triggers), tuple(para))
    if key not in _KEPT:
        _KEPT[key] = stretches(sentence, triggers, para)[1]
    return _KEPT[key]


def family(sentence, triggers, para, row, tag, gold: dict[str, tuple[int, int]]) -> str:
    """The family of one disagreement (see the module docstring); ``gold``: mention id -> released span."""
    from figbench.generate.retag import is_content

    g0, g1 = row["token_start"], row["token_end"]
    where, kept = stretches(sentence, triggers, para)
    if row["mention_id"] not in where:
        return "kept_trigger"
    s0, s1, shared = where[row["mention_id"]]
    if any(is_content(para[i]) and i in kept for i in range(g0, g1)):
        return "over_kept_content"
    others = [(a, b) for mid, (a, b, _) in where.items() if (a, b) != (s0, s1)]
    if any(is_content(para[i]) and not s0 <= i < s1 and any(a <= i < b for a, b in others) for i in range(g0, g1)):
        return "across_anchor"
    if g1 < s0 or g0 > s1:
        return "elsewhere"
    if tag.start is not None and tag.start < g1 and g0 < tag.end:
        diff = set(range(g0, g1)) ^ set(range(tag.start, tag.end))
        if not any(is_content(para[i]) for i in diff):
            return "function_word_edge"
    if shared > 1:
        starts = {mid: s for mid, s, _ in triggers}
        mates = [mid for mid, (a, b, _) in where.items() if (a, b) == (s0, s1) and mid in gold]
        mine = row["mention_id"]
        if any((starts[m] < starts[mine]) != (gold[m][0] < g0) for m in mates if m != mine):
            return "shared_reordered"
        return "shared_split"
    if tag.start is None:
        return "missing"
    return "content_edge" if s0 <= g0 and g1 <= s1 else "other"


def edge_patterns(items: list[tuple]) -> dict:
    """Per key: how often the released spans include (``in``) or exclude (``out``) the function word next to
    their outermost content words (``trailing`` after the last, ``leading`` before the first); the coarse key is
    ``(side, word, kept)`` (kept: the word is one the paraphrase kept from the sentence), the fine one adds the
    content word it is next to."""
    from figbench.generate.retag import is_content, is_punct, norm

    coarse: dict[tuple, Counter] = defaultdict(Counter)
    fine: dict[tuple, Counter] = defaultdict(Counter)
    per_mention: dict[str, list[tuple]] = defaultdict(list)
    for sentence, triggers, para, r in items:
        kept = kept_of(sentence, triggers, para)
        g0, g1 = r["token_start"], r["token_end"]
        content = [i for i in range(g0, g1) if is_content(para[i])]
        if not content:
            continue
        first, last = content[0], content[-1]
        for side, k, inside, neighbour in (("trailing", last + 1, last + 1 < g1, para[last]),
                                           ("leading", first - 1, first - 1 >= g0, para[first])):
            if not 0 <= k < len(para) or is_punct(para[k]) or is_content(para[k]):
                continue
            key = (side, norm(para[k]), k in kept)
            fine_key = (*key, norm(neighbour))
            decision = "in" if inside else "out"
            coarse[key][decision] += 1
            fine[fine_key][decision] += 1
            per_mention[r["mention_id"]].append((key, fine_key, decision))
    return {"coarse": coarse, "fine": fine, "per_mention": per_mention}


def _minority(counts: Counter, decision: str) -> bool:
    other = "out" if decision == "in" else "in"
    return counts[decision] < counts[other] or (counts[decision] == counts[other] and decision == "in")


def flags_bound(mentions: list[str], per_mention: dict, level: int, table: dict, lost: set[str],
                unreachable: set[str]) -> dict:
    """Under the majority edge rule of ``table`` (``level``: 0 coarse, 1 fine key of ``per_mention``'s edges):
    exact agreement, and the smallest share of mentions to flag for ``FLAGGED_TARGET`` of its disagreements (the
    ``lost`` minority-edge and the ``unreachable`` mentions) when flagged by their chance of disagreeing (one minus the
    product of the majority shares of their edges' patterns; 1 where unreachable), in-sample."""
    chances = []
    for mid in mentions:
        agree = 1.0
        for edge in per_mention.get(mid, ()):
            c = table[edge[level]]
            agree *= max(c["in"], c["out"]) / (c["in"] + c["out"])
        chances.append((1.0, True) if mid in unreachable else (round(1 - agree, 9), mid in lost))
    wrong = sum(w for _, w in chances)
    return {"exact": round(1 - wrong / len(mentions), 4), "disagreements": wrong,
            "flagged_needed": round(to_flag(chances), 4), "caught_within_limit": round(caught_within(chances), 4)}


def analyse(ecb_rows: list[dict], meta_rows: list[dict]) -> dict:
    items = [(sentence, triggers, para, row) for sentence, triggers, para, row, _ in
             scored(ecb_rows, meta_rows, None, "multi")]
    patterns = edge_patterns(items)
    gold = {r["mention_id"]: (r["token_start"], r["token_end"]) for r in meta_rows}
    lost_coarse = {mid for mid, edges in patterns["per_mention"].items()
                   if any(_minority(patterns["coarse"][key], d) for key, _, d in edges)}
    lost_fine = {mid for mid, edges in patterns["per_mention"].items()
                 if any(_minority(patterns["fine"][fine], d) for _, fine, d in edges)}
    n = len(meta_rows)
    out: dict = {"mentions": n, "flags_target": {"disagreements_flagged": FLAGGED_TARGET,
                                                 "flagged_at_most": FLAGGED_AT_MOST}, "variants": {}}
    proposals: dict[str, dict[str, tuple]] = {}
    unreachable_of: dict[str, set[str]] = {}
    for variant in ("released span", *HONEST):
        fams: Counter = Counter()
        spans = proposals[variant] = {}
        lost_here = unreachable_of[variant] = set()
        minority: Counter = Counter()
        exact = 0
        for sentence, triggers, para, row, tag in scored(ecb_rows, meta_rows, VARIANTS[variant], "multi"):
            spans[row["mention_id"]] = (tag.start, tag.end)
            if (tag.start, tag.end) == (row["token_start"], row["token_end"]):
                exact += 1
                continue
            f = family(sentence, triggers, para, row, tag, gold)
            fams[f] += 1
            minority[f] += row["mention_id"] in lost_coarse
            if f in UNREACHABLE:
                lost_here.add(row["mention_id"])
        out["variants"][variant] = {"exact": round(exact / n, 6), "disagreements": n - exact,
                                    "families": {f: fams[f] for f in FAMILIES},
                                    "families_edge_minority": {f: minority[f] for f in FAMILIES},
                                    "families_share_of_mentions": {f: round(fams[f] / n, 4) for f in FAMILIES},
                                    "optimistic_bound": round((n - sum(fams[f] for f in UNREACHABLE) - sum(
                                        minority[f] for f in FAMILIES if f not in UNREACHABLE)) / n, 4)}
    edges = {}
    for name in ("coarse", "fine"):
        table = patterns[name]
        decided = sum(sum(c.values()) for c in table.values())
        majority = sum(max(c["in"], c["out"]) for c in table.values())
        edges[name] = {"edges": decided, "patterns": len(table),
                       "singleton_patterns": sum(sum(c.values()) == 1 for c in table.values()),
                       "majority_rule_agreement": round(majority / decided, 4) if decided else None}
    recurring = sorted(((k, c) for k, c in patterns["coarse"].items() if sum(c.values()) >= 10),
                       key=lambda kc: -sum(kc[1].values()))
    edges["recurring_coarse"] = [{"side": k[0], "word": k[1], "kept": k[2], "included": c["in"], "excluded": c["out"],
                                  "included_share": round(c["in"] / (c["in"] + c["out"]), 3)}
                                 for k, c in recurring]
    out["edge_consistency"] = edges
    mentions = [r["mention_id"] for r in meta_rows]
    out["flags_bound"] = {v: {name: flags_bound(mentions, patterns["per_mention"], level, patterns[name], lost,
                                                 unreachable_of[v])
                              for level, (name, lost) in enumerate((("coarse", lost_coarse), ("fine", lost_fine)))}
                          for v in HONEST}
    held = [{"mention_id": r["mention_id"], "topic": r["doc_id"].split("_")[0], "para": para,
             "kept": kept_of(sentence, triggers, para), "gold": (r["token_start"], r["token_end"])}
            for sentence, triggers, para, r in items]
    out["cross_validated"] = {learner: cross_validate(held, {v: proposals[v] for v in HONEST}, unreachable_of,
                                                      learner) for learner in LEARNERS}
    unreachable = unreachable_of["no word list"]  # out of the stretch: no list-free rule reaches it
    out["ceiling"] = {
        "unreachable_mentions": len(unreachable),
        "edge_minority_mentions_coarse": len(lost_coarse),
        "edge_minority_mentions_fine": len(lost_fine),
        "bound_coarse": round(1 - len(unreachable | lost_coarse) / n, 4),
        "bound_fine": round(1 - len(unreachable | lost_fine) / n, 4),
        "assumptions": "spans from the alignment's rewritten stretches and adjacent function words, shared "
                       "stretches handed out in the triggers' order (the no-list variant's over_kept_content / "
                       "elsewhere / shared_reordered disagreements lost); each function-word edge "
                       "decided by (side, word, kept) (coarse) or that and the neighbouring content word (fine), the "
                       "release's minority decisions lost; no edge information from the word list"}
    return out


def main(argv: list[str] | None = None) -> int:
    args = data_args(argv, __doc__, "retag_ceiling.json")
    import figbench

    ecb = figbench.load_dataset("ecbplus", "events")["validation"].to_list()
    meta = figbench.load_dataset("ecbmeta", "meta_m", split="validation").to_list()
    result = {"set": "META_m validation", **analyse(ecb, meta)}
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n", "utf-8")
    for variant, r in result["variants"].items():
        print(f"{variant:22s} exact {r['exact']:.1%}  " + "  ".join(f"{f} {c}" for f, c in r["families"].items()))
    c = result["ceiling"]
    bounds = ", ".join(f"{v} {r['optimistic_bound']:.1%}" for v, r in result["variants"].items())
    print(f"optimistic per variant: {bounds}")
    print(f"ceiling: {c['bound_coarse']:.1%} (edges by word), {c['bound_fine']:.1%} (by word and neighbour); "
          f"unreachable {c['unreachable_mentions']}, edge minority {c['edge_minority_mentions_coarse']} / "
          f"{c['edge_minority_mentions_fine']}")
    for v, b in result["flags_bound"].items():
        print(f"flags bound, {v}: " + "; ".join(f"{k} exact {r['exact']:.1%}, flag {r['flagged_needed']:.1%} for 80%, "
                                              f"{r['caught_within_limit']:.1%} within 25%" for k, r in b.items()))
    for learner, cv in result["cross_validated"].items():
        print(f"cross-validated {learner} ({cv['folds']} topics, edges {cv['edge_agreement']:.1%} of {cv['edges']}): "
              + "; ".join(f"{v} exact {r['exact']:.1%}, flag {r['flagged_needed']:.1%} for 80%, "
                          f"{r['caught_within_limit']:.1%} within 25% (edge only: {r['edge_only']['exact']:.1%}, "
                          f"{r['edge_only']['flagged_needed']:.1%}, {r['edge_only']['caught_within_limit']:.1%})"
                          for v, r in cv["variants"].items()))
    print(f"written {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
