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
if "FIGBENCH_CACHE" not in os.environ:  # embedding caches of test runs stay out of the user's cache
    import tempfile

    os.environ["FIGBENCH_CACHE"] = tempfile.mkdtemp(prefix="figbench-test-cache-")

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


@pytest.fixture()
def rows(fixtures_dir):
    """The cdec test mentions fixture (tests/fixtures/cdec/mentions_test.json)."""
    return json.loads((fixtures_dir / "cdec" / "mentions_test.json").read_text())


@pytest.fixture()
def train_rows(fixtures_dir):
    """The cdec training mentions fixture (tests/fixtures/cdec/mentions_train.json)."""
    return json.loads((fixtures_dir / "cdec" / "mentions_train.json").read_text())
