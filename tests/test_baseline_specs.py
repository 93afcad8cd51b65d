"""Baselines as data: the specs are consistent with the CLI and the task declarations, and the
reproduction tables of baselines/README.md are generated from them (this test fails when stale)."""

from __future__ import annotations

import json
import re

import pytest
from figbench_baselines.specs import BaselineSpec, all_specs, board_specs, fast_specs, get_spec

from figbench.cli import build_parser, main
from figbench.tasks import TASKS, benchmarks, family_tasks


def test_specs_name_declared_tasks_metrics_and_a_reason_for_every_gap():
    specs = all_specs()
    assert len({s.name for s in specs}) == len(specs)
    for s in specs:
        assert s.task in TASKS, s.name
        assert set(s.shown_metrics) <= set(TASKS[s.task].metric_names), s.name
        assert s.data_version and s.protocol, s.name
        assert s.published is not None or s.comparability, s.name
        if s.published is not None:
            assert s.published.source and s.published.split == s.split, s.name


def test_fast_and_board_specs_are_leaderboard_benchmarks():
    """quickstart submits the fast runs and loads the board specs' committed records: the leaderboard must score
    every one (epic_similar_biencoder was a board spec of an unscored task, so every `make run` exited 1)."""
    declared = {b.key for b in benchmarks()}
    fast, board = fast_specs(), board_specs()
    assert fast and board
    assert [s.name for s in (*fast, *board) if s.benchmark not in declared] == []
    assert not any(s.quick or s.not_run for s in fast)


@pytest.mark.parametrize("spec", all_specs(), ids=lambda s: s.name)
def test_every_spec_command_parses(spec: BaselineSpec):
    args = build_parser().parse_args(["baseline", *spec.argv, "--out", "x.json"])
    assert args.family == spec.family
    if hasattr(args, "task"):
        assert args.task == spec.task
    if spec.family in ("cdec", "wimcor"):
        assert (args.config, args.split) == (spec.config, spec.split)
    assert getattr(args, "split", "test") == spec.split


def test_task_choices_come_from_the_task_declarations(capsys):
    parser = build_parser()
    for family, task_family in (("meta4xnli", "meta4xnli"), ("epic", "epic")):
        names = [t.name for t in family_tasks(task_family)]
        for name in names:
            assert parser.parse_args(["baseline", family, "--task", name, "--out", "x"]).task == name
        with pytest.raises(SystemExit):
            parser.parse_args(["baseline", family, "--task", "cdec", "--out", "x"])
    # the short names of earlier versions still work
    assert parser.parse_args(["baseline", "epic", "--task", "similar", "--out", "x"]).task == "similar_narratives"


def test_tables_read_committed_records(tmp_path):
    from figbench_baselines.tables import render

    spec = get_spec("wimcor_majority_sample_test")
    record = {"schema_version": "1.0", "task": "metonymy", "dataset": "wimcor", "config": "sample", "split": "test",
              "method": "majority", "model": {"name": "figbench-majority", "revision": None, "type": "heuristic",
                                              "parameters": 0},
              "scores": {"micro_f1": 0.229, "macro_f1": 0.075},
              "confidence_intervals": {"micro_f1": {"low": 0.212, "high": 0.249, "level": 0.95, "n_resamples": 1000,
                                                    "unit": "examples"}},
              "predictions": {"path": "predictions/x.json"},
              "provenance": {"figbench_version": "0", "command": "c", "seed": 0, "packages": {}, "hardware": {},
                             "start_time": "2030-01-02T00:00:00+00:00", "wall_time_s": 3.0}}
    (tmp_path / f"{spec.name}.json").write_text(json.dumps(record))
    table = render("wimcor", results=tmp_path)
    assert "Micro F1 22.9 [21.2, 24.9] / Macro F1 7.5 (2030-01-02, 3 s)" in table
    assert "historical" in render("wimcor")  # without the record: the historical value
    record["method"] = "random"
    (tmp_path / f"{spec.name}.json").write_text(json.dumps(record))
    with pytest.raises(ValueError, match="but spec"):
        render("wimcor", results=tmp_path)


def _record(spec: BaselineSpec, scores: dict[str, float], hardware: dict | None = None) -> str:
    return json.dumps({"schema_version": "1.0", "task": spec.task, "dataset": spec.dataset, "config": spec.config,
                       "split": spec.split, "method": spec.method,
                       "model": {"name": "m", "revision": None, "type": "fine-tuned encoder", "parameters": 1},
                       "scores": scores, "confidence_intervals": {}, "predictions": {"path": "predictions/x.json"},
                       "provenance": {"figbench_version": "0", "command": "c", "seed": 0, "packages": {},
                                      "hardware": hardware or {}, "start_time": "2030-01-02T00:00:00+00:00",
                                      "wall_time_s": 3.0,  # stamped as `figbench baseline run` does
                                      **({"selection": spec.selection.as_dict()} if spec.selection else {})}})


def test_seeded_specs_rerun_the_headline_command_with_their_own_model_folders():
    from figbench_baselines.cdec.reproduce import steps
    from figbench_baselines.specs import seeded

    head, s1 = get_spec("cdec_ce_knn_paper_meta_m_test"), get_spec("cdec_ce_knn_paper_meta_m_test_s1")
    assert s1.argv == (*(a.replace("ce_knn_s4000", "ce_knn_s4000_seed1").replace("/biencoder", "/biencoder_seed1")
                         for a in head.argv), "--seed", "1")
    assert "models/cdec/biencoder" in head.argv and not s1.board and head.board is False
    assert (s1.task, s1.dataset, s1.config, s1.split, s1.method) == (head.task, head.dataset, head.config,
                                                                      head.split, head.method)
    # the reproduce step that trains the seeded model passes the same seed; seed 0 is the headline model
    train = {s.model: s for s in steps()}
    assert train["models/cdec/ce_knn_s4000_seed1"].args[-2:] == ["--seed", "1"]
    assert train["models/cdec/biencoder_seed1"].args[-2:] == ["--seed", "1"]
    assert train["models/cdec/ce_knn_s4000_seed1"].needs == ["models/cdec/biencoder_seed1"]
    assert "--seed" not in train["models/cdec/ce_knn_s4000"].args
    m4x = get_spec("meta4xnli_token_clf_en_earlystop_s2")
    assert {"runs/fig/ckpt/meta4xnli_token_clf_en_earlystop_s2", "models/fig/meta4xnli_token_clf_en_earlystop_s2",
            "--seed"} <= set(m4x.argv) and get_spec("meta4xnli_token_clf_en_earlystop").board
    with pytest.raises(ValueError, match="already seeded"):
        seeded(m4x, 3)


def test_seeds_table_mean_and_spread_over_three_seeds(tmp_path):
    from figbench_baselines.tables import seeds_table

    names = ("cdec_ce_lh_ecbplus_test", "cdec_ce_lh_ecbplus_test_s1", "cdec_ce_lh_ecbplus_test_s2")
    specs = [get_spec(n) for n in names]
    (tmp_path / f"{names[0]}.json").write_text(_record(specs[0], {"conll_f1": 0.70}))
    one = seeds_table(specs, tmp_path)
    assert "| `cdec_ce_lh_ecbplus_test` | CoNLL F1 | CPU | 70.0 | - (one seed run) | - | 70.0 |" in one
    for spec, value in zip(specs[1:], (0.72, 0.74)):
        (tmp_path / f"{spec.name}.json").write_text(_record(spec, {"conll_f1": value}))
    table = seeds_table(specs, tmp_path)
    assert "| CPU | 70.0 / 72.0 / 74.0 | **72.0 ± 2.0** (n=3) | 70.0 - 74.0 | 70.0 |" in table
    # GPU reruns: all three seeds are reruns; the CPU headline record stands beside them
    wim = [get_spec("wimcor_finetune_marked10_earlystop"),
           *(get_spec(f"wimcor_finetune_marked10_earlystop_gpu_s{i}") for i in range(3))]
    for spec, value in zip(wim, (0.5, 0.6, 0.7, 0.8)):
        gpu = {"gpus": ["NVIDIA H200"]} if "_gpu_s" in spec.name else {}
        (tmp_path / f"{spec.name}.json").write_text(_record(spec, {"micro_f1": value, "macro_f1": value}, gpu))
    assert "| Micro F1 | GPU | 60.0 / 70.0 / 80.0 | **70.0 ± 10.0** (n=3) | 60.0 - 80.0 | 50.0 |" in \
        seeds_table(wim, tmp_path)
    # a headline whose model was trained on a GPU, its seeds on this CPU: each seed's device is shown
    knn = [get_spec("cdec_knn_oracle_trained_k5_meta_m_test" + suffix) for suffix in ("", "_s1", "_s2")]
    for spec, value in zip(knn, (0.81, 0.83, 0.85)):
        (tmp_path / f"{spec.name}.json").write_text(_record(spec, {"bcub_recall": value}))
    record = json.loads((tmp_path / f"{knn[0].name}.json").read_text())
    record["provenance"]["training"] = {"biencoder": {"hardware": {"cpu_count": 16, "gpus": ["NVIDIA H200"]}}}
    (tmp_path / f"{knn[0].name}.json").write_text(json.dumps(record))
    # the selected bi-encoder's selection saw test: every number of its row is marked
    assert "| B-cubed R | GPU / CPU / CPU | 81.0 / 83.0 / 85.0‡ | **83.0 ± 2.0**‡ (n=3) | 81.0 - 85.0‡ | 81.0‡ |" in \
        seeds_table(knn, tmp_path)


def test_headline_seeds_cell_pairs_each_seed_across_the_two_splits(tmp_path):
    from figbench_baselines.cdec.specs.tables import _seeds_cell

    a, b = "cdec_ce_knn_paper_ecbplus_test", "cdec_ce_knn_paper_meta_m_test"
    values = {a: (0.70, 0.72, 0.74), b: (0.50, 0.56, 0.50)}
    for name, vals in values.items():
        for seed, value in enumerate(vals):
            spec = get_spec(name + (f"_s{seed}" if seed else ""))
            (tmp_path / f"{spec.name}.json").write_text(_record(spec, {"conll_f1": value}))
    # drops 20, 16, 24 (each seed's model on both splits)
    assert _seeds_cell(a, b, tmp_path) == "72.0 ± 2.0 / 52.0 ± 3.5 / 20.0 ± 4.0 (seeds 0, 1, 2)"
    (tmp_path / f"{b}_s2.json").unlink()  # a seed missing on one split is left out of both
    assert _seeds_cell(a, b, tmp_path) == "71.0 ± 1.4 / 53.0 ± 4.2 / 18.0 ± 2.8 (seeds 0, 1)"
    (tmp_path / f"{b}_s1.json").unlink()
    assert _seeds_cell(a, b, tmp_path) == "-"


def test_list_and_tables_commands(capsys):
    assert main(["baseline", "--list"]) == 0
    out = capsys.readouterr().out
    assert all(s.name in out for s in all_specs())
    assert main(["baseline", "tables"]) == 0


def _cdec_specs():
    return [s for s in all_specs() if s.family == "cdec"]


def test_cdec_protocol_column_is_the_command():
    """The topics a row claims are the ones its command pairs within (parsed like the CLI does)."""
    from figbench_baselines.cdec.cli import normalise
    from figbench_baselines.cdec.specs.protocol import TOPICS

    for s in _cdec_specs():
        args = normalise(build_parser().parse_args(["baseline", *s.argv, "--out", "x.json"]))
        assert s.protocol["topics"].startswith(TOPICS[args.within]), s.name
        assert {"topics", "singletons", "clustering"} <= set(s.protocol), s.name
        if s.method in ("lh", "lh_oracle"):
            assert f"> {args.lh_threshold}" in s.protocol["threshold"], s.name
        if args.clustering == "greedy":
            assert s.protocol["clustering"].startswith("greedy"), s.name


def test_cdec_published_values_compare_like_with_like():
    """A published value sits on the row of its split and topics protocol, says whether it was verified,
    and every row pointing to another row for the published value points to one that has it."""
    from figbench_baselines.cdec.specs.protocol import TOPICS

    names = {s.name: s for s in _cdec_specs()}
    for s in _cdec_specs():
        p = s.published
        if p is not None:
            assert p.split == s.split and p.verified is not None, s.name
            topics = s.protocol["topics"].split(" (")[0].split(":")[0]
            if topics == TOPICS[None].split(":")[0]:
                assert p.protocol.startswith("whole test split"), s.name
            else:
                assert p.protocol.startswith(topics), (s.name, topics, p.protocol)
        for ref in re.findall(r"see `(cdec_\w+)`", s.comparability):
            assert ref in names and names[ref].published is not None, (s.name, ref)
    # the three pairing protocols are run for the heuristics on ECB+ test
    for method in ("lemma", "lh"):
        assert {f"cdec_{method}{p}_ecbplus_test" for p in ("", "_topic", "_predtopic")} <= set(names)


def test_run_accepts_spec_patterns():
    from figbench_baselines.cli import expand_specs

    chosen = [s.name for s in expand_specs(["cdec_*meta_m*"])]
    assert "cdec_lh_meta_m_test" in chosen and "cdec_lh_paper_meta_m_dev_small" in chosen
    assert not any(get_spec(n).quick or get_spec(n).not_run for n in chosen)
    assert [s.name for s in expand_specs(["cdec_lh_meta_m_test", "cdec_lh_meta_m_t*"])] == ["cdec_lh_meta_m_test"]
    with pytest.raises(ValueError, match="matches"):
        expand_specs(["nothing_*"])


def test_every_published_value_names_table_cell_and_verdict():
    """Every quote was read in ../shared/papers: it names the table (or section) and the cell, and says
    whether the row's setting is the paper's ("same setting") or what differs ("differs: ...")."""
    from figbench_baselines.specs import Published

    for s in all_specs():
        p = s.published
        if p is None:
            continue
        assert p.table and p.cell and p.verified, s.name
        assert p.verdict == "same setting" or p.verdict.startswith("differs: "), (s.name, p.verdict)
        assert "not verified" not in (p.protocol + p.verdict + s.comparability), s.name
    with pytest.raises(ValueError, match="verdict"):
        Published("1.0", "F1", "a paper", "Table 1", "test", "p", verdict="roughly the same")
