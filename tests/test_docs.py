"""Generated blocks (figbench/commands/docs.py): fresh in the checkout, created when missing, and no hand-typed
result outside them in README.md, baselines/README.md, leaderboard/README.md and the dataset and
metric cards."""

from __future__ import annotations

import shutil

import pytest

from figbench.commands.docs import (
    ROOT,
    Block,
    check_or_write,
    checked_files,
    regenerate,
    result_numbers_outside_blocks,
    wrap,
)

#: the files whose prose may quote no result
CHECKED = [str(p.relative_to(ROOT)) for p in checked_files()]


def test_every_generated_block_is_up_to_date():
    """Fails when a record, spec or task changed and `figbench docs --write` was not run."""
    assert check_or_write(write=False) == [], "stale generated blocks: run `figbench docs --write`"


def test_every_documented_file_is_checked():
    assert {"README.md", "baselines/README.md", "leaderboard/README.md", "datasets/ecbmeta/README.md",
            "metrics/conll_coref/README.md"} <= set(CHECKED)


@pytest.mark.parametrize("file", CHECKED)
def test_no_result_number_outside_a_generated_block(file):
    found = result_numbers_outside_blocks((ROOT / file).read_text("utf-8"))
    assert not found, f"{file}: results typed by hand (move them into a generated block): " + "; ".join(
        f"line {n}: {num} in {line[:80]!r}" for n, num, line in found)


def test_the_detector_finds_results_and_leaves_settings_versions_and_blocks():
    text = "\n".join([
        "LH reaches CoNLL 74.1 on ECB+ test.",               # a result
        "| LH | 53.9 [49.7, 56.9] |",                        # results in a hand table
        "builder 1.0.0, scikit-learn 1.9.1, ECB+ 1.0, spaCy 3.7.4",  # versions
        "threshold 0.1, lr 1e-5, margin 10, §4.2, CC BY-SA 3.0",    # settings, sections, licences
        "took 9.4 s and 3.4 GB, 36x faster, 8.5% of pairs, 4.4e-16",  # measurements of the software, shares
        "run `--lh-threshold 0.05` (inline code)",
        "```", "figbench baseline cdec --lh-threshold 0.15", "```",
        wrap("table", "| LH | 74.1 |").rstrip("\n"),
        "## Speed", "IVF recall 0.977 at nprobe 8",        # a not-result section
        "## Next", "back to prose: 62.3",
    ])
    found = [(n, num) for n, num, _ in result_numbers_outside_blocks(text)]
    assert found == [(1, "74.1"), (2, "53.9"), (2, "49.7"), (2, "56.9"), (16, "62.3")]


def _block(name="tbl", anchor="## Results", body="| a | 1.5 |\n"):
    return Block("x.md", name, lambda results: body, anchor=anchor)


def test_a_missing_block_is_created_after_its_anchor_and_then_refreshed(tmp_path):
    text = "# Title\n\n## Results\n\nprose\n"
    new = regenerate(text, [_block()], tmp_path, file="x.md")
    assert new == "# Title\n\n## Results\n\n<!-- generated:tbl -->\n| a | 1.5 |\n<!-- /generated:tbl -->\n\nprose\n"
    assert regenerate(new, [_block()], tmp_path, file="x.md") == new  # idempotent
    refreshed = regenerate(new, [_block(body="| a | 2.5 |\n")], tmp_path, file="x.md")
    assert "| a | 2.5 |" in refreshed and "1.5" not in refreshed and refreshed.endswith("prose\n")
    # no anchor: appended at the end
    assert regenerate("prose\n", [_block(anchor="")], tmp_path).endswith("<!-- /generated:tbl -->\n")


@pytest.mark.parametrize(("text", "message"), [
    ("<!-- generated:tbl -->\nno end\n", "unbalanced"),
    ("<!-- generated:other -->\nx\n<!-- /generated:other -->\n## Results\n", "declared by no provider"),
    ("# no anchor here\n", "anchor line '## Results' is not in the file"),
])
def test_bad_markers_are_errors_naming_the_file(tmp_path, text, message):
    with pytest.raises(ValueError, match="x.md") as e:
        regenerate(text, [_block()], tmp_path, file="x.md")
    assert message in str(e.value)


def test_a_marker_quoted_in_prose_is_not_a_block(tmp_path):
    text = "Blocks sit between `<!-- generated:NAME -->` markers.\n## Results\n"
    assert "<!-- generated:tbl -->" in regenerate(text, [_block()], tmp_path, file="x.md")


def test_blocks_are_created_in_a_checkout_that_lacks_them(tmp_path):
    """README.md and the leaderboard README without their blocks: `write` creates them (no marker seeded
    by hand), a second pass finds them fresh, and `python -m figbench_leaderboard.ui.about_text --write` alone
    creates its own."""
    import re

    from figbench_leaderboard.ui.about_text import main

    files = ("leaderboard/README.md", "README.md")
    for file in files:
        text = (ROOT / file).read_text("utf-8")
        bare = re.sub(r"^<!-- generated:([\w.-]+) -->\n.*?^<!-- /generated:\1 -->\n", "", text, flags=re.S | re.M)
        assert "<!-- generated:" not in bare
        (tmp_path / file).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / file).write_text(bare, "utf-8")
    shutil.copytree(ROOT / "results", tmp_path / "results")
    assert set(check_or_write(tmp_path, tmp_path / "results", write=True, files=files)) == set(files)
    assert check_or_write(tmp_path, tmp_path / "results", write=False, files=files) == []
    lb = (tmp_path / "leaderboard/README.md").read_text("utf-8")
    assert lb.count("<!-- generated:benchmarks -->") == 1 and "### Predictions by task" in lb
    assert "| CE_KNN | gold topics (the paper's protocol) |" in (tmp_path / "README.md").read_text("utf-8")
    # the About module's --check reads the checkout's README: up to date
    assert main(["--check"]) == 0


def test_every_block_anchor_is_a_line_of_its_file():
    """A block deleted from a committed file is recreated: its anchor (a heading, or the closing marker
    of the block before it) must be a line of the file."""
    from figbench.commands.docs import all_blocks

    for b in all_blocks():
        if b.anchor:
            assert b.anchor in (ROOT / b.file).read_text("utf-8").split("\n"), (b.file, b.name, b.anchor)


# ------------------------------------------------------------------ blocks from benchmark outputs

def _bench_copy(tmp_path):
    """A temp copy of the committed benchmark outputs the README blocks are rendered from."""
    for name in ("bench_retag.json", "retag_ceiling.json", "bench_harvest.json", "measured.json", "bench_flood.json",
                 "bench_coref.json"):
        shutil.copy(ROOT / "benchmarks" / name, tmp_path / name)
    return tmp_path


def _edit(path, change):
    import json

    data = json.loads(path.read_text("utf-8"))
    change(data)
    path.write_text(json.dumps(data), "utf-8")


def test_the_retag_blocks_render_from_bench_retag_json(tmp_path):
    from figbench.commands.docs_benchmarks import render_generation_cost, render_retag

    bench = _bench_copy(tmp_path)
    readme = (ROOT / "README.md").read_text("utf-8")
    table, cost = render_retag(bench, ROOT / "results"), render_generation_cost(bench)
    assert wrap("retag", table) in readme and wrap("generation-cost", cost) in readme
    assert "| the model's own lists (" in table
    assert "| released span | META_m validation | 1,241 | 96.1% |" in table and "$13.43" in cost
    assert "| released span | META_m test (held out‡) | 1,777 |" in table and "‡ Selection (test-informed)" in table
    assert "| first content word | META_m validation | 1,241 |" in table and "| no word list |" in table
    # the flags target's need: 1 - (25% / 80%) x the share of flagged spans that disagree (no word list: 63.6%)
    assert "at least 68.75% even if every flag fell" in table and "no word list 63.6%) at least 80.1%-82.0%" in table
    # the in-sample flags bound rules out the coarse rule; held out, no learned edge rule meets either target
    assert "no word list 29.6% of all mentions flagged, over the 25% allowed: so no rule deciding edges" in table
    assert "no word list 61.2% / 61.4% exact with 63.5% / 67.0% flagged" in table
    assert "So no learned edge rule of this kind meets either target" in table

    def change(d):
        r = d["results"]["META_m validation, first content word"]
        r.update(exact=0.5, flagged=0.2, disagreements_flagged=0.85, disagreements=621, verdict="flags")
        d["cost_estimate_meta_m_validation_test"]["cost_usd"] = 7.25
        d["selection"] = {"kind": "test-informed", "note": "the fragment rule was changed after seeing test"}

    _edit(bench / "bench_retag.json", change)
    table, cost = render_retag(bench), render_generation_cost(bench)
    assert "| first content word | META_m validation | 1,241 | 50.0% |" in table
    assert "| 20.0% | 85.0% (621) | flags |" in table
    assert "| released span | META_m test (held out‡) |" in table
    assert "‡ Selection (test-informed): the fragment rule was changed after seeing test." in table
    assert "$7.25" in cost and "13.43" not in cost
    assert "exact agreement is at most 79.8%" in table and "no word list 62.4% exact, 467 disagreements" in table

    def lower(d):
        d["ceiling"]["bound_coarse"] = 0.5
        d["variants"]["no word list"]["families"]["other"] = 400
    _edit(bench / "retag_ceiling.json", lower)
    table = render_retag(bench)
    assert "exact agreement is at most 50.0%" in table and "(most: other 400," in table

    def better(d):
        for bound in d["flags_bound"].values():
            bound["coarse"]["flagged_needed"] = 0.2
        d["cross_validated"]["table"]["variants"]["no word list"].update(exact=0.93, flagged_needed=0.3)
    _edit(bench / "retag_ceiling.json", better)
    table = render_retag(bench)
    assert "no word list 20.0% of all mentions flagged, within the 25% allowed;" in table
    assert "A learned edge rule meets a target held out (at best 93.0% exact" in table
    assert "So no learned edge rule" not in table
    (bench / "retag_ceiling.json").unlink()   # without the ceiling run, the table alone
    assert "How far a re-tagger" not in render_retag(bench)


@pytest.mark.parametrize(("name", "render"), [
    ("bench_retag.json", "render_retag"), ("bench_retag.json", "render_generation_cost"),
    ("bench_harvest.json", "render_harvest_scale"), ("bench_harvest.json", "render_harvest_estimate"),
    ("measured.json", "render_measured"),
])
def test_a_missing_or_broken_benchmark_json_is_an_error_naming_the_file(tmp_path, name, render):
    import figbench.commands.docs_benchmarks as db

    bench = _bench_copy(tmp_path)
    (bench / name).unlink()
    with pytest.raises(FileNotFoundError, match=rf"{name}: not found; it is written by `"):
        getattr(db, render)(bench)
    (bench / name).write_text("{not json", "utf-8")
    with pytest.raises(ValueError, match=rf"{name}: not valid JSON"):
        getattr(db, render)(bench)
    (bench / name).write_text("{}", "utf-8")
    with pytest.raises(ValueError, match=rf"{name}: missing field '(results|targets|cost_estimate_\w+|rows)'"):
        getattr(db, render)(bench)


def test_a_harvest_row_without_a_field_is_an_error_naming_the_row(tmp_path):
    from figbench.commands.docs_benchmarks import render_harvest_scale

    bench = _bench_copy(tmp_path)
    _edit(bench / "bench_harvest.json", lambda d: d["rows"][2].pop("wall_s"))
    with pytest.raises(ValueError, match=r"bench_harvest.json: rows\[2\] has no field 'wall_s'"):
        render_harvest_scale(bench)


def test_a_sampling_temperature_is_a_setting_not_a_result():
    assert result_numbers_outside_blocks("the paper's prompt at temperature 0.7, JSON answer; F1 61.2") == [
        (1, "61.2", "the paper's prompt at temperature 0.7, JSON answer; F1 61.2")]


# ------------------------------------------------------------------ test-informed numbers are marked

def test_every_number_of_a_test_informed_record_is_marked_where_printed(tmp_path):
    """A record whose selection saw test (provenance.selection.kind) carries the mark in the headline, its
    table row, the grid and the seeds table, with the legend; the same number marked validation-only does not;
    a trained record without the field fails the docs."""
    import json

    from figbench_baselines.specs import all_specs
    from figbench_baselines.tables import LEGEND, TEST_INFORMED, blocks

    name = "cdec_knn_oracle_wise_topic_meta_m_test"
    shutil.copytree(ROOT / "results", tmp_path / "results")
    path = tmp_path / "results" / f"{name}.json"
    record = json.loads(path.read_text("utf-8"))
    assert record["provenance"]["selection"]["kind"] == "test-informed"
    value = f"{100 * record['scores']['bcub_recall']:.1f}"
    rendered = {b.name: b.render(tmp_path / "results") for b in blocks(all_specs())
                if b.file == "baselines/README.md" and b.name in ("headline", "cdec_oracle_grid")}
    for body in rendered.values():
        row = next(line for line in body.splitlines() if f"`{name}`" in line)
        assert f"{value} [" in row and TEST_INFORMED in row and LEGEND in body
    record["provenance"]["selection"] = {"kind": "validation-only", "note": "as if chosen on validation"}
    path.write_text(json.dumps(record), "utf-8")
    headline = next(b for b in blocks(all_specs()) if b.file == "baselines/README.md" and b.name == "headline")
    row = next(line for line in headline.render(tmp_path / "results").splitlines() if f"`{name}`" in line)
    assert TEST_INFORMED not in row
    del record["provenance"]["selection"]
    path.write_text(json.dumps(record), "utf-8")
    with pytest.raises(ValueError, match=f"{name}.json: .*provenance.selection"):
        headline.render(tmp_path / "results")


# ------------------------------------------------------------------ CONTRIBUTING's commands are real

def test_contributing_names_only_real_commands_and_the_makefile_parallelism():
    """Every `figbench ...` command of CONTRIBUTING.md is a command of the CLI (each `a|b` alternative, up to
    its first placeholder or option), every `make X` a Makefile target, and `make test` runs as the Makefile
    says (one worker more than the cores); the worked example seeds no table marker by hand."""
    import itertools
    import re

    from figbench.cli import build_parser

    text = (ROOT / "CONTRIBUTING.md").read_text("utf-8")
    makefile = (ROOT / "Makefile").read_text("utf-8")

    def parses(words: list[str]) -> bool:
        parser = build_parser()
        for w in words:
            subs = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"]
            if not subs or w not in subs[0].choices:
                return False
            parser = subs[0].choices[w]
        return True

    commands = re.findall(r"`figbench ([^`]*)`", text)
    assert len(commands) >= 8
    for command in commands:
        words = list(itertools.takewhile(lambda w: not w.startswith(("<", "-")), command.split()))
        for alternative in itertools.product(*(w.split("|") for w in words)):
            assert parses(list(alternative)), f"CONTRIBUTING.md: `figbench {command}` is not a figbench command"
    for target in set(re.findall(r"`make ([\w-]+)`", text)):
        assert re.search(rf"^{re.escape(target)}:", makefile, re.M), f"CONTRIBUTING.md: no Makefile target {target}"
    assert "-n $(JOBS)" in makefile and "n + 1" in makefile and "-n auto" not in text
    assert "`JOBS` = `nproc` + 1" in text and "figbench:table" not in text


def test_the_flood_numbers_render_from_bench_flood_json(tmp_path):
    """Issue 33: the flood benchmark's numbers (README "Measured", leaderboard/README "Speed") are generated from
    the JSON bench_flood.py writes, each run with its commit, date and load."""
    from figbench.commands.docs_benchmarks import render_measured
    from figbench.commands.docs_flood import render_flood

    bench = _bench_copy(tmp_path)
    table = render_flood(bench)
    assert wrap("flood", table) in (ROOT / "leaderboard" / "README.md").read_text("utf-8")
    _edit(bench / "bench_flood.json", lambda d: d["runs"][-1].update(commit="abc1234", date="2031-01-02"))
    _edit(bench / "bench_flood.json", lambda d: d["runs"][-1]["results"][0].update(flood_p95=0.25, flood_n=41))
    assert "| `abc1234`, 2031-01-02, load average " in render_flood(bench)
    row = next(ln for ln in render_measured(bench).splitlines() if "`abc1234`" in ln and "41 loads" in ln)
    assert "p95 0.250 s (target under 0.5 s: met)" in row
    _edit(bench / "bench_flood.json", lambda d: d.pop("runs"))
    with pytest.raises(ValueError, match=r"bench_flood.json: missing field 'runs'"):
        render_flood(bench)


def test_the_coref_speed_block_renders_from_bench_coref_json(tmp_path):
    """Issue 31: the coreference scorer's time per shape family and size (README "Measured") is generated from the
    JSON bench_coref.py --json writes, with each run's commit, date, load and machine, the target's verdict, and an
    earlier verdict that a rerun changed kept beside it."""
    import copy
    import json

    from figbench.commands.docs_coref import render_coref

    bench = _bench_copy(tmp_path)
    table = render_coref(bench)
    assert wrap("coref-speed", table) in (ROOT / "README.md").read_text("utf-8")
    path = bench / "bench_coref.json"

    def over(d):   # the last run's first row with a target misses it, and a rerun of it alone meets it
        run = d["runs"][-1]
        run.update(commit="abc1234", date="2031-01-02 03:04 UTC", load_avg_start=7.3, load_avg_end=9.5)
        row = next(r for r in run["results"] if r["target_s"] is not None)
        row.update(core_cpu=row["target_s"] + 0.5, wrapper_cpu=row["target_s"] + 0.75, repeats=3)
        rerun = copy.deepcopy(run)
        rerun.update(commit="def5678", load_avg_start=1.0, load_avg_end=1.5, note="rerun alone",
                     results=[dict(row, core_cpu=row["target_s"] - 0.5, wrapper_cpu=row["target_s"] - 0.25,
                                   repeats=1)])
        d["runs"].append(rerun)
        return row["shape"]

    data = json.loads(path.read_text("utf-8"))
    shape = over(data)
    path.write_text(json.dumps(data), "utf-8")
    out = render_coref(bench)
    a, b = chr(ord("a") + len(data["runs"]) - 2), chr(ord("a") + len(data["runs"]) - 1)
    row = next(ln for ln in out.splitlines() if ln.startswith(f"| `{shape}` |"))
    t = next(r["target_s"] for r in data["runs"][-1]["results"])
    assert (f"{t - 0.5:.3f} / {t - 0.25:.3f} s (1x, met; {b}); earlier {t + 0.5:.3f} / {t + 0.75:.3f} s (3x, "
            f"**not met**; {a})") in row
    assert f"- {a}: `abc1234`, 2031-01-02 03:04 UTC, load average 7.3 at the start and 9.5 at the end, " in out
    assert f"- {b}: `def5678`, 2031-01-02 03:04 UTC, load average 1.0 at the start and 1.5 at the end, " in out
    assert out.rstrip().endswith("the timings exclude all of it.")
    _edit(path, lambda d: d["runs"][-1].pop("machine"))
    with pytest.raises(ValueError, match=r"bench_coref.json \(runs\[\d+\]\): missing field 'machine'"):
        render_coref(bench)
    _edit(path, lambda d: d.pop("runs"))
    with pytest.raises(ValueError, match=r"bench_coref.json: missing field 'runs'"):
        render_coref(bench)


def test_the_measured_rows_render_from_measured_json_with_commit_date_load_and_go_stale(tmp_path):
    from figbench_baselines.specs import fast_specs

    from figbench.commands.docs_benchmarks import render_measured

    bench = _bench_copy(tmp_path)
    table = render_measured(bench)
    assert wrap("measured", table) in (ROOT / "README.md").read_text("utf-8")
    assert "| `f5fd751`, 2026-11-26, " in table  # make test: the commit it measured
    n = len(fast_specs())
    _edit(bench / "measured.json", lambda d: d["rows"][2].update(counts={"fast_runs": n}))
    assert "**Stale** (fast_runs" not in render_measured(bench)
    _edit(bench / "measured.json", lambda d: d["rows"][2].update(counts={"fast_runs": n - 1}))
    assert f"**Stale** (fast_runs {n - 1} then, {n} now): rerun it." in render_measured(bench)
    _edit(bench / "measured.json", lambda d: d["rows"][2].pop("commit"))
    with pytest.raises(ValueError, match=r"measured.json: rows\[2\] has no field 'commit'"):
        render_measured(bench)
