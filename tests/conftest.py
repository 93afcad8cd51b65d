"""Shared test setup: offline Hub, the real corpora folder, fixtures folder."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# One session-wide cache of prepared datasets and of frozen embeddings, made by the first process (the xdist
# controller, whose environment the workers inherit) and removed when it ends: every real-corpus test reads the
# same prepared data (each corpus config is built once per session, by whichever worker needs it first; the
# other waits on the datasets lock), and test runs never write into the user's caches (datasets, modules).
_OWN_CACHES: list[str] = []
for _var, _prefix in (("FIGBENCH_CACHE", "figbench-test-cache-"),
                      ("FIGBENCH_TEST_DATASETS_CACHE", "figbench-test-datasets-"),
                      ("FIGBENCH_TEST_MODULES_CACHE", "figbench-test-modules-")):
    if _var not in os.environ:
        import tempfile

        os.environ[_var] = tempfile.mkdtemp(prefix=_prefix)
        _OWN_CACHES.append(os.environ[_var])
# figbench submit makes its token file here, not under ~/.config
os.environ.setdefault("FIGBENCH_TOKEN_FILE", os.path.join(os.environ["FIGBENCH_CACHE"], "submit-token"))
os.environ["HF_DATASETS_CACHE"] = os.environ["FIGBENCH_TEST_DATASETS_CACHE"]
os.environ["HF_MODULES_CACHE"] = os.environ["FIGBENCH_TEST_MODULES_CACHE"]   # evaluate.load copies modules there

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def shared_data_dir() -> Path | None:
    """The folder of original corpora: $FIGBENCH_DATA_DIR, else ../shared/data beside the project."""
    env = os.environ.get("FIGBENCH_DATA_DIR")
    candidates = [Path(env)] if env else []
    candidates.append(ROOT.parent / "shared" / "data")
    for c in candidates:
        if c.is_dir():
            return c.resolve()
    return None


@pytest.fixture(scope="session")
def data_root() -> Path:
    root = shared_data_dir()
    if root is None:
        pytest.skip("real corpora not found: set FIGBENCH_DATA_DIR or place them in ../shared/data")
    return root


def corpus_path(name: str, *relative: str) -> Path:
    """Path of a corpus folder (or a file in it); skips the test, naming what is missing."""
    root = shared_data_dir()
    if root is None:
        pytest.skip("real corpora not found: set FIGBENCH_DATA_DIR or place them in ../shared/data")
    path = root.joinpath(name, *relative)
    if not path.exists():
        pytest.skip(f"{path} is not available")
    return path


def pytest_configure(config):
    """Under xdist every worker gets one intra-op thread (OpenMP/MKL, so torch too): N workers on N cores would
    otherwise oversubscribe them, each op spreading over every core while the other worker needs it. Set
    before the workers start, so they inherit it; a value the caller set is kept."""
    if getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput"):
        for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ.setdefault(var, "1")


def pytest_collection_modifyitems(config, items):
    """Modules that hold a ``slow`` or ``browser`` test run first, each module's tests in their order: `make test`
    hands whole files to its xdist workers in this order (``--dist loadfile --no-loadscope-reorder``), so the
    longest files start early and the many short ones fill in around them, instead of a long file starting last
    and ending the run alone."""
    heavy = {item.nodeid.split("::")[0] for item in items
             if item.get_closest_marker("slow") or item.get_closest_marker("browser")}
    items.sort(key=lambda item: item.nodeid.split("::")[0] not in heavy)   # stable: each module keeps its order


def pytest_sessionfinish(session, exitstatus):
    if not hasattr(session.config, "workerinput"):   # the process that made the caches removes them
        import shutil

        for path in _OWN_CACHES:
            shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
def datasets_cache() -> str:
    """The session's shared cache of prepared datasets (also ``HF_DATASETS_CACHE``): real-corpus tests that
    only read data pass it as ``cache_dir``; tests of building or caching itself use their own folders."""
    return os.environ["FIGBENCH_TEST_DATASETS_CACHE"]


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    return FIXTURES


def tiny_models():
    """The module ``tests/fixtures/fig/tiny_models.py`` (tiny BERT/T5 built from a config, for code-path tests)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("fig_tiny_models", FIXTURES / "fig" / "tiny_models.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fixture_json(*relative: str):
    """A JSON file under ``tests/fixtures``, parsed."""
    return json.loads(FIXTURES.joinpath(*relative).read_text())


@pytest.fixture()
def rows():
    """The cdec test mentions fixture (tests/fixtures/cdec/mentions_test.json)."""
    return fixture_json("cdec", "mentions_test.json")


@pytest.fixture()
def train_rows():
    """The cdec training mentions fixture (tests/fixtures/cdec/mentions_train.json)."""
    return fixture_json("cdec", "mentions_train.json")


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory):
    """A 1-layer BERT (hidden 32) with the offline MiniLM tokenizer, saved to a folder."""
    import torch
    from figbench_baselines.common.encoder import default_model_path
    from transformers import AutoTokenizer, BertConfig, BertModel

    path = tmp_path_factory.mktemp("tiny_bert")
    tok = AutoTokenizer.from_pretrained(default_model_path())
    torch.manual_seed(0)  # random weights, but the same ones every run: the KNN candidates depend on them
    cfg = BertConfig(vocab_size=len(tok), hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                     intermediate_size=64, max_position_embeddings=512)
    BertModel(cfg).save_pretrained(path)
    tok.save_pretrained(path)
    return str(path)


@pytest.fixture(scope="session")
def dask_scheduler():
    """The address of one local Dask cluster (2 worker processes) for the session's harvests that are not about
    starting one: they run as ``--scheduler ADDRESS`` does. A harvest's own cluster costs about 6 s (worker processes
    spawned, figbench imported in each, then shut down); the tests of the driver's own cluster (worker counts,
    killed workers, resume, the command's output) start theirs."""
    pytest.importorskip("dask.distributed")
    from figbench.harvest import driver

    with driver.cluster(workers=2) as client:
        yield client.scheduler.address
