"""Generated blocks (figbench/docs.py): fresh in the checkout, created when missing, and no hand-typed
result outside them in README.md, baselines/README.md, leaderboard/README.md and the dataset and
metric cards."""

from __future__ import annotations

import shutil

import pytest

from figbench.docs import (
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
    by hand), a second pass finds them fresh, and `python -m figbench_leaderboard.about --write` alone
    creates its own."""
    import re

    from figbench_leaderboard.about import main

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
    from figbench.docs import all_blocks

    for b in all_blocks():
        if b.anchor:
            assert b.anchor in (ROOT / b.file).read_text("utf-8").split("\n"), (b.file, b.name, b.anchor)


# ------------------------------------------------------------------ blocks from benchmark outputs

def _bench_copy(tmp_path):
    """A temp copy of the committed benchmark outputs the README blocks are rendered from."""
    for name in ("bench_retag.json", "bench_harvest.json"):
        shutil.copy(ROOT / "benchmarks" / name, tmp_path / name)
    return tmp_path


def _edit(path, change):
    import json

    data = json.loads(path.read_text("utf-8"))
    change(data)
    path.write_text(json.dumps(data), "utf-8")


def test_the_retag_blocks_render_from_bench_retag_json(tmp_path):
    from figbench.docs_benchmarks import render_generation_cost, render_retag

    bench = _bench_copy(tmp_path)
    readme = (ROOT / "README.md").read_text("utf-8")
    table, cost = render_retag(bench, ROOT / "results"), render_generation_cost(bench)
    assert wrap("retag", table) in readme and wrap("generation-cost", cost) in readme
    assert "| the model's own lists (" in table
    assert "| released span | META_m validation | 1,241 | 98.7% |" in table and "$13.43" in cost
    assert "| first content word | META_m validation | 1,241 |" in table and "| no word list |" in table

    def change(d):
        r = d["results"]["META_m validation, first content word"]
        r.update(exact=0.5, flagged=0.2, disagreements_flagged=0.85, disagreements=621, verdict="flags")
        d["cost_estimate_meta_m_validation_test"]["cost_usd"] = 7.25

    _edit(bench / "bench_retag.json", change)
    table, cost = render_retag(bench), render_generation_cost(bench)
    assert "| first content word | META_m validation | 1,241 | 50.0% |" in table
    assert "| 20.0% | 85.0% (621) | flags |" in table
    assert "$7.25" in cost and "13.43" not in cost


@pytest.mark.parametrize(("name", "render"), [
    ("bench_retag.json", "render_retag"), ("bench_retag.json", "render_generation_cost"),
    ("bench_harvest.json", "render_harvest_scale"), ("bench_harvest.json", "render_harvest_estimate"),
])
def test_a_missing_or_broken_benchmark_json_is_an_error_naming_the_file(tmp_path, name, render):
    import figbench.docs_benchmarks as db

    bench = _bench_copy(tmp_path)
    (bench / name).unlink()
    with pytest.raises(FileNotFoundError, match=rf"{name}: not found; it is written by `python benchmarks/"):
        getattr(db, render)(bench)
    (bench / name).write_text("{not json", "utf-8")
    with pytest.raises(ValueError, match=rf"{name}: not valid JSON"):
        getattr(db, render)(bench)
    (bench / name).write_text("{}", "utf-8")
    with pytest.raises(ValueError, match=rf"{name}: missing field '(results|targets|cost_estimate_\w+|rows)'"):
        getattr(db, render)(bench)


def test_a_harvest_row_without_a_field_is_an_error_naming_the_row(tmp_path):
    from figbench.docs_benchmarks import render_harvest_scale

    bench = _bench_copy(tmp_path)
    _edit(bench / "bench_harvest.json", lambda d: d["rows"][2].pop("wall_s"))
    with pytest.raises(ValueError, match=r"bench_harvest.json: rows\[2\] has no field 'wall_s'"):
        render_harvest_scale(bench)


def test_a_sampling_temperature_is_a_setting_not_a_result():
    assert result_numbers_outside_blocks("the paper's prompt at temperature 0.7, JSON answer; F1 61.2") == [
        (1, "61.2", "the paper's prompt at temperature 0.7, JSON answer; F1 61.2")]
