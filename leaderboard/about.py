"""Text generated from the task declarations: the About tab and the README's per-task sections.

``python -m figbench_leaderboard.about`` prints the README sections (the generated block ``benchmarks``
of ``leaderboard/README.md``, :mod:`figbench.docs`); ``--write`` rewrites that block (creating it after
the "## Running it" heading when the README lacks it), ``--check`` exits 1 when it
is stale; ``figbench docs`` does the same for every generated block.
"""

from __future__ import annotations

from figbench_leaderboard.benchmarks import BenchmarkRegistry, hidden_split
from figbench_leaderboard.policy import HiddenSplitPolicy

#: the README and the name of its generated block
README_FILE = "leaderboard/README.md"
BLOCK = "benchmarks"
#: the README line after which the block is created when it is missing
ANCHOR = "## Running it"


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def benchmarks_table(registry: BenchmarkRegistry) -> str:
    lines = ["| benchmark | group (averaged and ranked together) | task | dataset / config / split | headline |",
             "|---|---|---|---|---|"]
    for b in registry:
        t = registry.task(b)
        split = f"{b.split} (hidden)" if hidden_split(b) else f"{b.split} (dev, scores in full)"
        lines.append(f"| {_md(b.label)} | {_md(registry.group_of(b))} | `{t.name}` | `{b.dataset}` / `{b.config}` / "
                     f"{split} | {_md(t.metric(t.headline).title)} (`{t.headline}`, "
                     f"{'higher' if t.higher_is_better else 'lower'} is better) |")
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
    from figbench.docs import wrap

    return wrap(BLOCK, readme_body(registry))


def blocks() -> list:
    """The generated blocks of ``leaderboard/README.md`` (:data:`figbench.docs.PROVIDERS`)."""
    from figbench.docs import Block

    return [Block(README_FILE, BLOCK, lambda results: readme_body(), anchor=ANCHOR)]


def policy_text(policy: HiddenSplitPolicy | None) -> str:
    if policy is None:
        return ("This board runs without the hidden-split policy (a local store): scores are shown as computed.")
    return (f"**Hidden test splits.** Scores on test splits are released with one decimal (percent) and a 95% "
            f"interval; exact values never leave the server. Each submitter (Hugging Face account when signed in, "
            f"else the client address) may send {policy.daily_quota} submissions per hidden benchmark per 24 hours, "
            f"and a submission that changes fewer than {policy.min_changed} predictions (or "
            f"{policy.min_changed_fraction:.0%} of the split) relative to one of the submitter's earlier ones is "
            "refused, so scores cannot be used to probe gold labels. Dev splits are scored in full.")


def about_markdown(registry: BenchmarkRegistry, policy: HiddenSplitPolicy | None = None) -> str:
    """The About tab: families, tasks, benchmarks, metrics, ranking rules, policy, how to submit."""
    parts = ["## About this leaderboard", "",
             "Submissions are *predictions*, scored here against gold labels that never leave the server, with "
             "figbench's own metrics and 95% percentile-bootstrap intervals. Self-reported scores without "
             "predictions are *unverified*: hidden by default, marked when shown, never ranked.", ""]
    for fam, title in registry.families().items():
        parts.append(f"### {_md(title)}")
        for t in registry.family_tasks(fam):
            benches = ", ".join(b.label for b in registry.task_benchmarks(t.name))
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

    from figbench.docs import check_or_write, report

    parser = argparse.ArgumentParser(prog="python -m figbench_leaderboard.about",
                                     description="Print, check or write the generated block of leaderboard/README.md.")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="rewrite the README's block (created if missing)")
    mode.add_argument("--check", action="store_true", help="exit 1 when the README's block is stale")
    args = parser.parse_args(argv)
    if not (args.write or args.check):
        print(readme_sections(), end="")
        return 0
    stale = check_or_write(write=args.write, files=[README_FILE])
    return report(stale, write=args.write, command="python -m figbench_leaderboard.about --write")


if __name__ == "__main__":
    raise SystemExit(main())
