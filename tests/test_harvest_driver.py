"""Issue 31: the harvest's Dask driver finishes or fails, never hangs: stages that scatter the same object,
lost workers, bad partitions."""

from __future__ import annotations

import pytest

from figbench.harvest import driver, dump, synthetic, wimcor


@pytest.fixture(scope="module")
def small_dump(tmp_path_factory):
    d = tmp_path_factory.mktemp("drv")
    path, _ = synthetic.write_dump(d / "enwiki-20240601-pages-articles-multistream.xml.bz2",
                                   synthetic.synthetic_pages(n_events=2, backlinks=3, n_towns=1, filler=5),
                                   pages_per_stream=5)
    return path


def test_stages_scattering_an_unchanged_object_finish(small_dump, tmp_path):
    """Two stages scattering an equal object (a WiMCor run without metonymic pairs: the aliases stay empty) got
    the same content-hashed key while the first stage's copy was released: 'lost dependencies' or a hang in
    most runs. Repeated on one cluster, every pair of stages must finish with every partition done."""
    parts = dump.partitions(small_dump, partition_bytes=1000)
    shared = wimcor.Shared(wimcor.WimcorOptions(categories="unused"))
    with driver.cluster(workers=2) as client:
        for i in range(6):
            run = driver.Run(tmp_path / f"o{i}", parts, {"i": i})
            for stage in ("scan", "again"):
                stats = run.stage(stage, wimcor.scan, client, shared)
                assert len(stats) == len(parts)
