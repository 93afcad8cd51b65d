"""The reproduction tables of ``baselines/README.md``, generated from the baseline specs.

Each table is a generated block (``<!-- generated:NAME -->`` ... ``<!-- /generated:NAME -->``,
:mod:`figbench.commands.docs`); everything else in the README is prose and is kept. :func:`blocks` declares
them (with the README's headline table and the headline paragraph of the project README); a table
the README lacks is created after its family's heading or previous table. A row's measured value
comes from the committed result record ``results/<spec name>.json`` when there is one, else from the
value an earlier version printed for the same command (marked *historical*, with the commit), else it
says why the run was not made; the published value carries its paper, table, cell and verdict.
``figbench docs --write`` (or ``figbench baseline tables --write``) regenerates every block;
``tests/test_docs.py`` fails when one is stale.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from figbench_baselines.specs import BaselineSpec, all_specs

from figbench.results import TEST_INFORMED, is_test_informed

PACKAGE = Path(__file__).resolve().parent
README = PACKAGE / "README.md"
#: committed result records, one per spec: results/<spec name>.json at the project root
RESULTS = PACKAGE.parent / "results"


# ------------------------------------------------------------------ records

@lru_cache(maxsize=1024)
def _read(path: Path, mtime_ns: int, size: int) -> dict[str, Any]:
    """A validated record, read once per version of the file (the tables only read it)."""
    from figbench.results import read_result

    return read_result(path)


def read_record(spec: BaselineSpec, results: Path = RESULTS) -> dict[str, Any] | None:
    """The committed record of ``spec`` (validated; it must be the spec's run; a trained record must carry
    ``provenance.selection``), or None."""
    path = results / f"{spec.name}.json"
    if not path.is_file():
        return None
    stat = path.stat()
    record = _read(path, stat.st_mtime_ns, stat.st_size)
    got = (record["task"], record["dataset"], record["config"], record["split"], record.get("method"))
    want = (spec.task, spec.dataset, spec.config, spec.split, spec.method)
    if got != want:
        raise ValueError(f"{path}: the record is {got}, but spec {spec.name} is {want}")
    from figbench.results import record_selection

    record_selection(record, source=str(path))
    return record


#: the legend that follows every generated block showing :data:`~figbench.results.TEST_INFORMED` (the mark after
#: every number printed from a test-informed record, ``provenance.selection``)
LEGEND = (f"{TEST_INFORMED} test-informed: a choice behind this number (recipe, epoch, interpolation weight or a "
          "redesign) was made after seeing test results; the record's `provenance.selection` says which.")


def marked(*records: Mapping[str, Any] | None) -> str:
    """:data:`TEST_INFORMED` when any of ``records`` is test-informed, else ""."""
    return TEST_INFORMED if any(is_test_informed((r or {}).get("provenance", {}).get("selection"))
                                for r in records) else ""


def with_legend(render: Callable[[Path], str]) -> Callable[[Path], str]:
    """``render`` followed by :data:`LEGEND` when its body shows a test-informed number."""
    def wrapped(results: Path) -> str:
        body = render(results)
        return body + ("\n" + LEGEND + "\n" if TEST_INFORMED in body else "")
    return wrapped


# ------------------------------------------------------------------ cells

def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def _title(task: str, metric: str) -> str:
    from figbench.tasks import get_task

    return get_task(task).metric(metric).title


def measured_cell(spec: BaselineSpec, record: Mapping[str, Any] | None) -> str:
    if record is not None:
        parts = []
        for m in spec.shown_metrics:
            if m not in record["scores"]:
                parts.append(f"{_title(spec.task, m)} -")
                continue
            ci = record["confidence_intervals"].get(m)
            ci_txt = f" [{_pct(ci['low'])}, {_pct(ci['high'])}]" if ci else ""
            parts.append(f"{_title(spec.task, m)} {_pct(record['scores'][m])}{ci_txt}{marked(record)}")
        prov = record["provenance"]
        sel = prov.get("selection")
        chosen = f"; selection: {sel['kind']}, {sel['note']}" if sel else ""
        return " / ".join(parts) + f" ({prov.get('start_time', '')[:10]}, {prov['wall_time_s']:.0f} s{chosen})"
    if spec.historical is not None:
        return f"{spec.historical.value} *(historical, measured with this command at {spec.historical.commit})*"
    return f"not run: {spec.not_run}" if spec.not_run else "not measured"


def published_cell(spec: BaselineSpec) -> str:
    """The paper's value with paper, table, quoted cell, the paper's protocol and the verdict."""
    p = spec.published
    note = f" Note: {spec.comparability}." if spec.comparability else ""
    if p is None:
        return f"none for this split and protocol: {spec.comparability}"
    table = p.table or "table to be checked"
    model = f", {p.model}" if p.model else ""
    cell = f" ({p.cell})" if p.cell else ""
    check = f"; checked: {p.verified}" if p.verified else ""
    check += f" (value quoted from {p.quoted_from})" if p.quoted_from else ""
    if p.evidence:
        check += f"; consistency check: {p.evidence}"
    verdict = f" **{p.verdict}**." if p.verdict else ""
    return f"{p.value} ({p.metrics}{model}; {p.source}, {table}{cell}; {p.split}; {p.protocol}{check}).{verdict}{note}"


def _paper_ref(p) -> str:
    """``value (paper short, table)`` for the headline table."""
    short = p.source.split(",")[0]
    return f"{p.value} ({short}, {p.table or 'table to be checked'})"


def headline_table(specs: Iterable[BaselineSpec], results: Path = RESULTS) -> str:
    """One line per spec with a published value: system x benchmark, figbench's value [95% CI] in the
    paper's metric, the paper's value (table) and the verdict; the detail is in the tables below."""
    rows = []
    for s in specs:
        p = s.published
        if p is None:
            continue
        record = read_record(s, results)
        if record is not None:
            m = s.shown_metrics[-1] if s.task == "cdec" and "conll_f1" in s.shown_metrics else s.shown_metrics[0]
            ci = record["confidence_intervals"].get(m)
            value = f"{_title(s.task, m)} {_pct(record['scores'][m])}" + (
                f" [{_pct(ci['low'])}, {_pct(ci['high'])}]" if ci else "") + marked(record)
        elif s.historical is not None:
            value = f"{s.historical.value} *(historical, {s.historical.commit})*"
        else:
            value = f"not run: {s.not_run}" if s.not_run else "not measured"
        rows.append((f"`{s.name}`", s.benchmark.replace("/", " / "), value, _paper_ref(p), p.metrics,
                     p.verdict or "no verdict"))
    return _rows(("run", "benchmark", "figbench [95% CI]", "paper (table)", "paper's metric", "verdict"), rows)


def protocol_cell(spec: BaselineSpec) -> str:
    return "; ".join(f"{k}: {v}" for k, v in spec.protocol.items())


def command_cell(spec: BaselineSpec) -> str:
    cmd = f"`{spec.command(spec.name + '.json')}`"
    return cmd + (f"<br>paper scale: `{spec.gpu_command}`" if spec.gpu_command else "")


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


# ------------------------------------------------------------------ tables

def _rows(header: Iterable[str], rows: Iterable[Iterable[str]]) -> str:
    header = list(header)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_escape(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def spec_table(name: str, specs: Iterable[BaselineSpec], results: Path = RESULTS) -> str:
    """The rows of the specs of table ``name``."""
    specs = tuple(specs)
    chosen = [s for s in specs if s.table == name]
    if not chosen:
        raise ValueError(f"no baseline spec belongs to table {name!r}")
    chosen += reference_rows(chosen, specs)
    header = ("run", "data (version)", "split", "protocol", "method / model", "measured", "published (same split "
              "and protocol)", "command")
    rows = []
    for s in chosen:
        quick = " **quick CPU configuration, no quality claim**" if s.quick else ""
        rows.append((f"`{s.name}`: {s.title}", f"{s.dataset}/{s.config}: {s.data_version}", s.split,
                     protocol_cell(s), f"{s.method}: {s.model}{quick}", measured_cell(s, read_record(s, results)),
                     published_cell(s), command_cell(s)))
    return _rows(header, rows)


#: the table of the trivial reference specs; every other table of the same task shows the references of its
#: splits after its own rows
REFERENCE_TABLES = {"cdec": "cdec_reference"}


def reference_rows(chosen: list[BaselineSpec], specs: Iterable[BaselineSpec]) -> list[BaselineSpec]:
    """The reference specs (:data:`REFERENCE_TABLES`) of the splits of ``chosen``, unless ``chosen`` is
    that table."""
    tables = {REFERENCE_TABLES.get(s.task) for s in chosen} - {None}
    if not tables or {s.table for s in chosen} & tables:
        return []
    benchmarks = {s.benchmark for s in chosen}
    return [s for s in specs if s.table in tables and s.benchmark in benchmarks]


#: runs without training or inference rates that took less than this are left out of the throughput table
#: (their wall time is in the reproduction tables)
QUICK_RUN_S = 60.0


def record_rates(record: Mapping[str, Any]) -> tuple[float | None, float | None]:
    """(training, inference) examples/s of a record: ``train*_per_s`` / ``inference*_per_s`` throughput
    keys; else (cdec) ``*_train_*_per_s`` or the saved model's rate in ``provenance.training``, and the
    scorer's ``*pairs_per_s``."""
    prov = record["provenance"]
    thr = prov.get("throughput", {})
    train = next((v for k, v in thr.items() if k.startswith("train") and k.endswith("_per_s")), None)
    infer = next((v for k, v in thr.items() if k.startswith("inference") and k.endswith("_per_s")), None)
    if train is None:
        train = next((v for k, v in thr.items() if "_train_" in k and k.endswith("_per_s")), None)
    if train is None:  # a loaded model: its training rate travels with it
        training = prov.get("training") or {}
        for component in ("crossencoder", "wec_pairwise", "biencoder"):
            rate = ((training.get(component) or {}).get("train_stats") or {}).get("train_examples_per_s")
            if rate:
                train = rate
                break
    if infer is None:
        infer = next((v for k, v in thr.items() if k.endswith("pairs_per_s") and "train" not in k), None)
    return train, infer


def throughput_table(specs: Iterable[BaselineSpec], results: Path = RESULTS) -> str:
    """Training / inference rates and wall time of every run that has them (record, else historical);
    runs of less than :data:`QUICK_RUN_S` without rates are left out."""
    rows = []
    for s in specs:
        record = read_record(s, results)
        if record is not None:
            train, infer = record_rates(record)
            if train is None and infer is None and record["provenance"]["wall_time_s"] < QUICK_RUN_S:
                continue
            rows.append((f"`{s.name}`", f"{train:,.1f}" if train else "-", f"{infer:,.1f}" if infer else "-",
                         f"{record['provenance']['wall_time_s']:.0f}", "result record"))
        elif s.historical is not None and s.historical.throughput:
            rows.append((f"`{s.name}`", *s.historical.throughput, f"historical ({s.historical.commit})"))
    return _rows(("run", "training examples/s", "inference examples/s", "wall time (s)", "source"), rows)


#: tables that are not one row per spec of the same name
SPECIAL: dict[str, Callable[..., str]] = {"throughput": throughput_table}


#: seeded reruns of a headline spec: ``<headline>_s<seed>`` on this CPU (the headline record is seed 0) and
#: ``<headline>_gpu_s<seed>`` on a lent GPU (seeds 0, 1, 2 all rerun there)
SEED_SUFFIXES = {"_s": "CPU", "_gpu_s": "GPU"}
#: the metrics of the seeds table per method or task (default: the spec's shown metrics)
SEED_METRICS = {"cdec": ("conll_f1",), "knn_oracle": ("bcub_recall",),
                "metaphor_detection": ("f1", "in_vocab_f1", "out_vocab_f1")}


def seed_groups(specs: Iterable[BaselineSpec]) -> dict[tuple[str, str], list[BaselineSpec]]:
    """``(headline spec, device) -> its seeded specs`` for every ``<headline>_s<n>`` / ``<headline>_gpu_s<n>``."""
    specs = list(specs)
    by_name = {s.name: s for s in specs}
    groups: dict[tuple[str, str], list[BaselineSpec]] = {}
    for s in specs:
        for suffix, device in SEED_SUFFIXES.items():
            base, sep, seed = s.name.rpartition(suffix)
            if sep and seed.isdigit() and base in by_name:
                groups.setdefault((base, device), []).append(s)
    return groups


def seed_records(name: str, results: Path = RESULTS) -> dict[int, dict[str, Any]]:
    """``seed -> record`` of the CPU seeds of the headline spec ``name``: its own record is seed 0,
    ``<name>_s<seed>`` the others; only those committed."""
    from figbench_baselines.specs import SEEDS, all_specs

    known = {s.name: s for s in all_specs()}
    names = {0: name, **{seed: f"{name}_s{seed}" for seed in SEEDS}}
    records = {seed: read_record(known[n], results) for seed, n in names.items() if n in known}
    return {seed: r for seed, r in records.items() if r is not None}


def mean_sd(values: Sequence[float], signed: bool = False) -> str:
    """``mean ± sample sd`` of two or more percentages (the mean with its sign when ``signed``: a difference)."""
    import statistics

    fmt = "+.1f" if signed else ".1f"
    return f"{statistics.mean(values):{fmt}} ± {statistics.stdev(values):.1f}"


def trained_on(record: Mapping[str, Any]) -> str:
    """"GPU" when the record's run or any model it loads was trained with a GPU (``hardware.gpus``; for an
    interpolated bi-encoder, that of the trained weights it mixes in), else "CPU"."""
    prov = record.get("provenance") or {}
    trained = (prov.get("training") or {}).values()
    hardware = [prov.get("hardware") or {}, *((t or {}).get("hardware") or {} for t in trained),
                *(((t or {}).get("wise_ft") or {}).get("trained_hardware") or {} for t in trained)]
    return "GPU" if any(h.get("gpus") for h in hardware) else "CPU"


def seeds_table(specs: Iterable[BaselineSpec], results: Path = RESULTS) -> str:
    """Mean and sample standard deviation over three seeds of each headline trained run, one row per (run,
    metric): on this CPU the headline record is seed 0 and ``_s1``/``_s2`` the others; on a GPU all three are
    ``_gpu_s<n>`` reruns, beside the CPU headline record. "seeds on" says where each seed's model was trained.
    Rows with fewer than three records say so."""
    specs = list(specs)
    by_name = {s.name: s for s in specs}
    rows = []
    for (base, kind), seeded in seed_groups(specs).items():
        head = by_name[base]
        head_rec = read_record(head, results)
        runs = ([head] if kind == "CPU" else []) + sorted(seeded, key=lambda s: s.name)
        recs = [r for r in (read_record(s, results) for s in runs) if r is not None]
        if not recs:
            continue
        devices = [trained_on(r) for r in recs]
        device = devices[0] if len(set(devices)) == 1 else " / ".join(devices)
        for metric in SEED_METRICS.get(head.method) or SEED_METRICS.get(head.task, head.shown_metrics):
            values = [100 * r["scores"][metric] for r in recs if metric in r["scores"]]
            if not values:
                continue
            mark = marked(*recs)
            spread = (f"**{mean_sd(values)}**{mark} (n={len(values)})",
                      f"{min(values):.1f} - {max(values):.1f}{mark}") if len(values) > 1 else ("- (one seed run)", "-")
            rows.append((f"`{base}`", _title(head.task, metric), device,
                         " / ".join(f"{v:.1f}" for v in values) + mark, *spread,
                         "-" if head_rec is None else _pct(head_rec["scores"][metric]) + marked(head_rec)))
    return _rows(("run", "metric", "seeds on", "seed 0 / 1 / 2", "mean ± sd", "range", "headline record"), rows)


def special_tables() -> dict[str, Callable[..., str]]:
    """:data:`SPECIAL` and every family's ``TABLES`` (in its specs module): tables computed from several
    records (e.g. cdec's paired robustness drop), rendered as ``f(specs, results)``."""
    import importlib

    from figbench_baselines.specs import _families

    out = dict(SPECIAL)
    for family in _families():
        out.update(getattr(importlib.import_module(f"figbench_baselines.{family}.specs"), "TABLES", {}))
    return out


def render(name: str, specs: Iterable[BaselineSpec] | None = None, results: Path = RESULTS) -> str:
    specs = tuple(all_specs() if specs is None else specs)
    special = special_tables()
    if name in special:
        return special[name](specs, results)
    return spec_table(name, specs, results)


#: the line of baselines/README.md after which a family's first table is created when the README lacks it
#: (a later table of the family goes after the one before it); a family not listed appends at the end
FAMILY_ANCHORS = {"cdec": "### Heuristics under the topic protocols (the default-protocol rows are asserted by "
                          "`tests/test_cdec_real.py`)",
                  "meta4xnli": "### Meta4XNLI (Sanchez-Bayona & Agerri)",
                  "wimcor": "### WiMCor (Mathews & Strube)", "epic": "### ePiC (Ghosh & Srivastava)"}
README_FILE = "baselines/README.md"


def blocks(specs: Iterable[BaselineSpec] | None = None) -> list:
    """The generated blocks of ``baselines/README.md`` (:mod:`figbench.commands.docs`): the headline table, one
    table per spec table name (in spec order, each created after its family's previous table), the
    family tables of ``TABLES`` and the throughput table; the headline paragraph of ``README.md``; the
    record-derived tables of the ECB+META and conll_coref cards."""
    from figbench.commands.docs import Block, markers

    specs = tuple(all_specs() if specs is None else specs)
    out = [Block(README_FILE, "headline", with_legend(lambda results: headline_table(specs, results)),
                 anchor="# figbench baselines: reproduction tables")]
    last: dict[str, str] = {}
    family_of = {s.table: s.family for s in specs}
    names = list(dict.fromkeys(s.table for s in specs))
    for name, family in _family_tables().items():
        if name not in names:
            names.append(name)
            family_of[name] = family
    for name in names:
        family = family_of[name]
        anchor = markers(last[family])[1] if family in last else FAMILY_ANCHORS.get(family, "")
        out.append(Block(README_FILE, name, with_legend(lambda results, n=name: render(n, specs, results)),
                         anchor=anchor))
        last[family] = name
    out.append(Block(README_FILE, "throughput", lambda results: throughput_table(specs, results),
                     anchor="### Measured throughput (shared CPU)"))
    out.append(Block(README_FILE, "seeds", with_legend(lambda results: seeds_table(specs, results)),
                     anchor="### Seeds: the headline trained runs, three times"))
    from figbench_baselines.cdec.specs.tables import readme_headline

    out.append(Block("README.md", "headline", with_legend(readme_headline), anchor="## Baselines"))
    from figbench_baselines.cdec.specs.tables import card_bootstrap_table, card_lh_table

    out.append(Block("datasets/ecbmeta/README.md", "lh_vs_paper", card_lh_table,
                     anchor="### The Lemma Heuristic on META_m against the paper"))
    out.append(Block("metrics/conll_coref/README.md", "real_data", card_bootstrap_table,
                     anchor="### Degenerate cases and real data"))
    return out


def _family_tables() -> dict[str, str]:
    """Table name -> family of every family's ``TABLES``."""
    import importlib

    from figbench_baselines.specs import _families

    out = {}
    for family in _families():
        for name in getattr(importlib.import_module(f"figbench_baselines.{family}.specs"), "TABLES", {}):
            out[name] = family
    return out


def regenerate(text: str, specs: Iterable[BaselineSpec] | None = None, results: Path = RESULTS) -> str:
    """``text`` (baselines/README.md) with every generated block regenerated (missing ones created)."""
    from figbench.commands.docs import regenerate as regen

    return regen(text, [b for b in blocks(specs) if b.file == README_FILE], results, file=README_FILE)


def check_or_write(readme: Path = README, results: Path = RESULTS, *, write: bool) -> bool:
    """Regenerate ``readme``'s blocks; write them (``write``) or report whether they are up to date."""
    text = readme.read_text("utf-8")
    new = regenerate(text, results=results)
    if write and new != text:
        readme.write_text(new, "utf-8")
    return new == text
