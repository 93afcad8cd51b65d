"""Text generated from the task declarations: the About tab and the README's per-task sections.

``python -m figbench_leaderboard.ui.about_text`` prints the README sections (the generated block ``benchmarks``
of ``leaderboard/README.md``, :mod:`figbench.commands.docs`); ``--write`` rewrites that block (creating it after
the "## Running it" heading when the README lacks it), ``--check`` exits 1 when it
is stale; ``figbench docs`` does the same for every generated block.
"""

from __future__ import annotations

from figbench_leaderboard.access.hidden_policy import HiddenSplitPolicy
from figbench_leaderboard.domain.benchmarks import BenchmarkRegistry, hidden_split
from figbench_leaderboard.domain.release import gold_marker
from figbench_leaderboard.domain.selection import LEGEND as SELECTION_LEGEND

#: the README and the name of its generated block
README_FILE = "leaderboard/README.md"
BLOCK = "benchmarks"
#: the README line after which the block is created when it is missing
ANCHOR = "## Running it"


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


GOLD_TEXT = {
    "public": "**public**: gold released with the corpus; scores are computed by the server from submitted "
              "predictions on a public test set, released in full",
    "hidden": "**hidden**: gold held only by the server; registered submitters only, the headline released by "
              "the Ladder, under a quota, a budget and a probe guard",
}


def benchmarks_table(registry: BenchmarkRegistry) -> str:
    lines = ["| benchmark | gold | group (averaged and ranked together) | task | dataset / config / split | headline |",
             "|---|---|---|---|---|---|"]
    for b in registry:
        t = registry.task(b)
        lines.append(f"| {_md(b.label)} | {'hidden' if hidden_split(b) else 'public'} | {_md(registry.group_of(b))} | "
                     f"`{t.name}` | `{b.dataset}` / `{b.config}` / {b.split} | {_md(t.metric(t.headline).title)} "
                     f"(`{t.headline}`, {'higher' if t.higher_is_better else 'lower'} is better) |")
    return "\n".join(lines)


def header_text(registry: BenchmarkRegistry) -> str:
    """The board's one-line claim about its scores, true for the benchmarks it has."""
    kinds = {("hidden" if hidden_split(b) else "public") for b in registry}
    if kinds == {"hidden"}:
        return "Figurative language and cross-document event coreference, scored by the server against hidden gold."
    if kinds == {"public"}:
        return ("Figurative language and cross-document event coreference: scores computed by the server from "
                "submitted predictions on public test sets (their gold is released with each corpus).")
    return ("Figurative language and cross-document event coreference: scores computed by the server from submitted "
            "predictions, on public test sets (gold released with the corpus) and on hidden benchmarks (gold held "
            "only by the server); each benchmark is marked.")


def gold_legend(registry: BenchmarkRegistry) -> str:
    """Markdown: each benchmark with its gold marker (public test set or hidden) and its note."""
    lines = ["**Gold per benchmark** — *public test set*: the gold is released with the corpus, so these scores are "
             "computed by the server from submitted predictions but anyone can score (or look up) the test split; "
             "*hidden*: the gold is held only by the server."]
    for b in registry:
        mark = gold_marker(b)
        note = f" {_md(b.note)}" if b.note else ""
        lines.append(f"- {_md(b.label)}: *{mark}*.{note}")
    return "\n".join(lines)


def predictions_table(registry: BenchmarkRegistry) -> str:
    lines = ["| task | `predictions` holds | metrics (declared; the board accepts only these) |", "|---|---|---|"]
    for t in registry.tasks.values():
        lines.append(f"| `{t.name}` ({_md(t.title)}) | {_md(t.predictions_doc)} | "
                     f"{', '.join(f'`{m}`' for m in t.metric_names)} |")
    return "\n".join(lines)


def readme_body(registry: BenchmarkRegistry | None = None) -> str:
    """The body of the README's generated block."""
    registry = registry or BenchmarkRegistry()
    return "\n".join(["", "### Benchmarks", "", benchmarks_table(registry), "",
                      "### Predictions by task", "", predictions_table(registry), ""]) + "\n"


def readme_sections(registry: BenchmarkRegistry | None = None) -> str:
    """The README's generated block (markers included)."""
    from figbench.commands.docs import wrap

    return wrap(BLOCK, readme_body(registry))


def blocks() -> list:
    """The generated blocks of ``leaderboard/README.md`` (:data:`figbench.commands.docs.PROVIDERS`)."""
    from figbench.commands.docs import Block

    return [Block(README_FILE, BLOCK, lambda results: readme_body(), anchor=ANCHOR),
            Block(README_FILE, BOUND_BLOCK, lambda results: bound_text(HiddenSplitPolicy()) + "\n",
                  anchor=BOUND_ANCHOR)]


BOUND_BLOCK = "hidden-bound"
BOUND_ANCHOR = "**The bound, with this board's defaults**:"


def bound_text(policy: HiddenSplitPolicy, n_items: int = 400, alpha: float = 0.01) -> str:
    """The leakage bound of ``policy`` in words (README block and About tab)."""
    from figbench_leaderboard.domain.release import accuracy_bound

    bits = policy.bits_per_window()
    return (f"eta = {policy.ladder_eta:g} and a budget of B = {policy.daily_budget} submissions per hidden benchmark "
            f"per {policy.window_s / 3600:g} h give at most {bits:.0f} bits per benchmark per day; on a split of "
            f"n = {n_items} items the recovered-label accuracy exceeds the best fixed guess's by at most "
            f"{accuracy_bound(bits, n_items, alpha):.2f} (alpha = {alpha:g}) after one day.")


def policy_text(policy: HiddenSplitPolicy | None) -> str:
    if policy is None:
        return ("This board runs without the hidden-benchmark policy (a local store): scores are shown as computed.")
    return (f"**Hidden benchmarks.** Only registered identities submit to a hidden benchmark (a Hugging Face account, "
            f"or a submitter token the maintainer issued). Its scores are released by the Ladder (Blum & Hardt "
            f"2015): the headline only, and only when it beats the submitter's best released one by "
            f"{policy.ladder_eta:g} (rounded to that step), else that best again; never an interval, a count, another "
            f"metric or a self-reported-score mismatch flag; exact values never leave the server until the "
            f"maintainer reveals the benchmark, once (then its scores are released in full and it takes no more "
            f"submissions; its Gold column says so). Each submitter "
            f"may send {policy.daily_quota} submissions per hidden benchmark per 24 hours, and all submitters "
            f"together {policy.daily_budget} (refused probes count); a submission whose scored outcome differs in "
            f"fewer than {policy.min_changed} items (or {policy.min_changed_fraction:.0%} of the split) from one of "
            f"the submitter's earlier ones is refused. The bound: {bound_text(policy)} "
            "**Public benchmarks** (gold released with the corpus) have "
            "no such policy: their scores are released in full, and a high score there shows only that the "
            "predictions match a test set anyone can read.")


def about_markdown(registry: BenchmarkRegistry, policy: HiddenSplitPolicy | None = None) -> str:
    """The About tab: families, tasks, benchmarks, metrics, ranking rules, policy, how to submit."""
    parts = ["## About this leaderboard", "",
             "Submissions are *predictions*, scored here by the server with figbench's own metrics and 95% "
             "percentile-bootstrap intervals. Each benchmark's gold is either **public** (released with the corpus: "
             "the score is computed by the server from the submitted predictions, on a public test set) or "
             "**hidden** (held only in the server's private store). Self-reported scores without predictions are "
             "*unverified*: hidden by default, marked when shown, never ranked.", "",
             gold_legend(registry), "", SELECTION_LEGEND, ""]
    for fam, title in registry.families().items():
        parts.append(f"### {_md(title)}")
        for t in registry.family_tasks(fam):
            benches = ", ".join(f"{b.label} ({'hidden' if hidden_split(b) else 'public'})"
                                for b in registry.task_benchmarks(t.name))
            parts.append(f"- **{_md(t.title)}** (`{t.name}`): {_md(t.description)} Benchmarks: {_md(benches)}. "
                         f"Headline: {_md(t.metric(t.headline).title)}. Predictions: {_md(t.predictions_doc)}.")
        parts.append("")
    parts += ["### Ranking", "",
              "Each benchmark group (the selector above the table) has an average over the models that have "
              "*every* benchmark of the group; only those are ranked. Models whose intervals overlap share a "
              "rank (`=2`): a rank is one more than the number of models whose interval lies entirely above. "
              "The interval of an average of several benchmarks assumes they are independent.", "",
              policy_text(policy), "",
              "### How to submit", "",
              "Upload a predictions file or a figbench result record with inline predictions in the *Submit* "
              "tab, or run `figbench submit FILE --to <this Space's URL>`. Submissions move PENDING → RUNNING → "
              "FINISHED (or FAILED with the reason) in the *Queue* tab; one live submission per model, revision "
              "and benchmark. The formats are in the Space's README.", "",
              "Corpora and their citations: see each dataset's card in figbench (`datasets/<name>/README.md`)."]
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    import argparse

    from figbench.commands.docs import check_or_write, report

    parser = argparse.ArgumentParser(prog="python -m figbench_leaderboard.ui.about_text",
                                     description="Print, check or write the generated block of leaderboard/README.md.")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="rewrite the README's block (created if missing)")
    mode.add_argument("--check", action="store_true", help="exit 1 when the README's block is stale")
    args = parser.parse_args(argv)
    if not (args.write or args.check):
        print(readme_sections(), end="")
        return 0
    stale = check_or_write(write=args.write, files=[README_FILE])
    return report(stale, write=args.write, command="python -m figbench_leaderboard.ui.about_text --write")


if __name__ == "__main__":
    raise SystemExit(main())
