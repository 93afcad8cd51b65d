"""Issue 32, derivability: ``hidden add`` sanitises the inputs and audits them against public text before it
writes anything. A ``--fresh-ids`` split of ECB+ test (the README's old suggestion) is derivable; a private
corpus is not; the inputs hold no column that names the source."""

from __future__ import annotations

import json

import numpy as np
import pytest
from figbench_leaderboard.domain.release import gold_marker
from figbench_leaderboard.scoring.gold import PrivateGoldStore
from figbench_leaderboard.scoring.hidden_benchmark import make_hidden
from figbench_leaderboard.scoring.linkage_audit import PublicIndex

import datasets
from figbench.tasks import HIDDEN, Benchmark, get_task, unregister_benchmark

CDEC = get_task("cdec")


def _ecb_test(root):
    import figbench

    return figbench.load_dataset("ecbplus", split="test", data_dir=str(root / "ecbplus"))


def _index(source: str, ds) -> PublicIndex:
    index = PublicIndex()
    index.add_split(source, ds, "cluster_id")
    return index


def test_fresh_ids_ecb_plus_test_is_derivable_and_its_inputs_name_nothing(data_root, tmp_path):
    public = _ecb_test(data_root)
    bench = Benchmark("cdec", "ecb_fresh_audit", "events", "test", "ECB+ fresh ids (hidden)", gold=HIDDEN)
    lines: list[str] = []
    private = tmp_path / "private"
    try:
        out = make_hidden(PrivateGoldStore(private), bench, public, tmp_path / "out", fresh_ids=True,
                          public=_index("ecbplus/events/test", public), report=lines.append)
        assert out["audit"]["share"] >= 0.99, out["audit"]
        assert lines and "linkage audit" in lines[0] and "%" in lines[0]
        decl = json.loads(next(private.glob("*/benchmark.json")).read_text())
        assert decl["derivable"] >= 0.99
        stored = PrivateGoldStore(private).benchmarks()[0]
        assert gold_marker(stored).startswith("hidden, derivable from public text (")
        inputs = datasets.Dataset.from_parquet(str(tmp_path / "out" / "inputs.parquet"))
        assert "original_text" not in inputs.column_names and "cluster_id" not in inputs.column_names
        doc_ids, topics = set(public["doc_id"]), set(public["topic"]) | set(public["subtopic"])
        for col in ("doc_id", "topic", "subtopic"):   # opaque, the grouping kept
            assert not set(inputs[col]) & (doc_ids | topics), col
            assert len(set(inputs[col])) == len(set(public[col]))
        assert not set(inputs["mention_id"]) & set(public["mention_id"])
    finally:
        unregister_benchmark(bench.key)


def test_a_private_corpus_is_not_derivable(tmp_path):
    rng = np.random.default_rng(5)
    vocab = [f"w{i}" for i in range(3000)]
    rows = []
    for k in range(300):
        sentence = [vocab[int(i)] for i in rng.integers(3000, size=12)]
        rows.append({"mention_id": f"p{k}", "doc_id": f"secret_doc_{k // 10}", "topic": f"topic_{k // 50}",
                     "sentence": sentence, "token_start": 3, "token_end": 3, "original_text": " ".join(sentence),
                     "cluster_id": f"c{k // 3}"})
    ds = datasets.Dataset.from_list(rows)
    public_rows = [{"sentence": [vocab[int(i)] for i in rng.integers(3000, size=12)], "token_start": 3,
                    "token_end": 3, "cluster_id": f"q{k}"} for k in range(300)]
    bench = Benchmark("cdec", "private_audit", "events", "test", "Private events (hidden)", gold=HIDDEN)
    try:
        out = make_hidden(PrivateGoldStore(tmp_path / "private"), bench, ds, tmp_path / "out",
                          public=_index("public", public_rows))
        assert out["audit"]["share"] == 0.0 and out["audit"]["linked"] == 0
        assert gold_marker(PrivateGoldStore(tmp_path / "private").benchmarks()[0]) == "hidden, private gold"
        inputs = datasets.Dataset.from_parquet(str(tmp_path / "out" / "inputs.parquet"))
        assert "original_text" not in inputs.column_names
        assert not {"secret_doc_0", "topic_0"} & (set(inputs["doc_id"]) | set(inputs["topic"]))
        # the same sentences, lightly edited, in a public corpus: the fuzzy match links them
        edited = [dict(r, sentence=r["sentence"][:11] + ["changed"]) for r in rows]
        out2 = make_hidden(PrivateGoldStore(tmp_path / "private2"), bench, ds, tmp_path / "out2",
                           public=_index("public", edited))
        assert out2["audit"]["share"] == 1.0
    finally:
        unregister_benchmark(bench.key)


@pytest.mark.parametrize("share,marker", [(0.0, "hidden, private gold"),
                                          (0.5, "hidden, derivable from public text (50%)"),
                                          (None, "hidden (server only)")])
def test_gold_marker(share, marker):
    assert gold_marker(Benchmark("cdec", "x", "y", "test", "X", gold=HIDDEN, derivable=share)) == marker


@pytest.mark.slow
def test_a_split_harvested_from_a_dump_is_derivable_from_its_page_text(tmp_path, capsys):
    """A hidden split made by `figbench harvest wimcor` from a (synthetic) dump: the dump's page text is public, so
    the audit given the dump reports every item derivable; without the dump `hidden add` refuses the harvest
    folder; a private corpus audited against the same dump stays private."""
    import subprocess
    import sys

    import figbench
    from figbench.harvest import synthetic

    dump, _ = synthetic.write_dump(tmp_path / "enwiki-20240601-pages-articles-multistream.xml.bz2",
                                   synthetic.synthetic_pages(n_events=4, backlinks=8, n_towns=4, filler=10),
                                   pages_per_stream=10)
    cats = tmp_path / "cats.tsv"
    cats.write_text(synthetic.categories_tsv(4))
    out = tmp_path / "harvest"
    p = subprocess.run([sys.executable, "-m", "figbench.cli", "harvest", "wimcor", "--dump", str(dump), "--out",
                        str(out), "--categories", str(cats), "--workers", "1", "--quiet"],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    split = figbench.load_dataset("wimcor", "sample", data_dir=out, cache_dir=str(tmp_path / "cache"))["test"]
    bench = Benchmark("metonymy", "harvest_audit", "fresh", "test", "Harvested metonymy (hidden)", gold=HIDDEN)
    try:
        found = make_hidden(PrivateGoldStore(tmp_path / "private"), bench, split, tmp_path / "inputs",
                            fresh_ids=True, public=PublicIndex(), audit_dump=str(dump))
        assert found["audit"]["items"] == len(split) and found["audit"]["share"] == 1.0, found["audit"]
        assert gold_marker(PrivateGoldStore(tmp_path / "private").benchmarks()[0]) == \
            "hidden, derivable from public text (100%)"
        private = datasets.Dataset.from_list([{"id": f"s{k}", "text": f"Zorvath {k} quelled the brimming qux of "
                                               f"Plimb near the ninth marrow, said {k}.", "pmw": "Plimb",
                                               "pmw_start": 0, "pmw_end": 5, "medium": "LOCATION"} for k in range(20)])
        kept = make_hidden(PrivateGoldStore(tmp_path / "private2"), bench, private, tmp_path / "inputs2",
                           public=PublicIndex(), audit_dump=str(dump))
        assert kept["audit"]["share"] == 0.0
    finally:
        unregister_benchmark(bench.key)
    from figbench.cli import main as figbench_main

    rc = figbench_main(["leaderboard", "hidden", "add", "--private", str(tmp_path / "p3"), "--task", "metonymy",
                        "--dataset", "wimcor", "--config", "sample", "--split", "test", "--label", "H3",
                        "--from-builder", "--data-dir", str(out), "--inputs-out", str(tmp_path / "i3")])
    err = capsys.readouterr().err
    assert rc == 1 and "pass --audit-dump" in err and "enwiki-20240601" in err and not (tmp_path / "p3").exists()


def test_the_arrow_batches_index_what_row_iteration_indexes():
    """``_rows`` (Arrow batches, only the indexed columns) against ``datasets``' own row iteration: the same
    index, token lists, offsets, missing values and gold included."""
    from figbench_leaderboard.scoring.linkage_audit import _rows

    rows = [{"mention_id": f"m{k}", "sentence": [f"w{k}", "the", "fall", "of", "Rome"][: 2 + k % 4] if k % 7 else [],
             "token_start": k % 2, "token_end": 1, "text": None if k % 3 else f"t{k}", "cluster_id": f"c{k % 4}",
             "unused": "x" * k} for k in range(5000)]   # more than one batch
    ds = datasets.Dataset.from_list(rows)
    by_rows, by_batches = PublicIndex(), PublicIndex()
    expected = sum(1 for r in rows if r["sentence"] or r["text"])   # rows with no sentence text are passed over
    assert by_rows.add_split("s", ds, "cluster_id") == by_batches.add_split("s", _rows(ds, "cluster_id"),
                                                                            "cluster_id") == expected < 5000
    assert by_batches.items == by_rows.items and by_batches.by_shingle == by_rows.by_shingle
    assert "unused" not in next(iter(_rows(ds, "cluster_id")))
    full = datasets.Dataset.from_list([dict(r, sentence=r["sentence"] or ["x"]) for r in rows[:50]])
    assert "text" not in next(iter(_rows(full, "cluster_id")))   # never consulted after a sentence in every row


def test_the_default_audits_every_local_corpus(data_root, monkeypatch):
    """No ``corpora``: every corpus figbench knows is indexed (here narrowed to WEC-Eng, the quickest to
    index; a name that is no corpus is passed over)."""
    from figbench_leaderboard.scoring.linkage_audit import local_public_index

    import figbench

    monkeypatch.setattr(figbench, "CORPORA", ("wec_eng", "no_such_corpus"))
    every = local_public_index(CDEC, data_dir=str(data_root))
    assert every.items and {s.split("/")[0] for *_, s in every.items} == {"wec_eng"}
