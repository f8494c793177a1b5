# litaudit: make (this list) | make run | make test | make bench | make lint
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
DB     ?= litaudit.duckdb

.DEFAULT_GOAL := help
.PHONY: help venv run test test-fast bench figures lint clean browser

help:  ## list the targets
	@echo "litaudit targets:"
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-9s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "error: $(PYTHON) not found (set PYTHON=...)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	@touch $(STAMP)

venv: $(STAMP)  ## create .venv and install litaudit with its dev tools

run: $(STAMP)  ## build the database from seeds/ and run the main audit
	$(BIN)/litaudit --db $(DB) init
	$(BIN)/litaudit --db $(DB) audit summary

browser:  ## install headless chromium for the HTML report test (Debian package)
	@command -v chromium >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
	  || echo "warning: could not install chromium; the browser test will be skipped"

# -n auto: one worker per core (pytest-xdist); --dist loadfile: a test file's tests run
# in one worker, so its module fixtures (databases, imported archives) are built once;
# --no-loadscope-reorder: files in the order tests/conftest.py sorts them (the files with
# the most slow tests first), not by their number of tests (a one-test file of 6 s of CPU
# handed out last kept one worker busy 8 s after the other had finished).
XDIST := -n auto --dist loadfile --no-loadscope-reorder

# Python caches compiled modules (tests' assertion-rewritten ones too) in __pycache__ unless
# PYTHONDONTWRITEBYTECODE is set, as some shells and images do: a second run then compiles
# nothing (each xdist worker, and each CLI subprocess, imports the package and the tests).
test test-fast: export PYTHONDONTWRITEBYTECODE :=

test: $(STAMP) browser  ## run the test suite
	$(BIN)/python -m pytest $(XDIST)

test-fast: $(STAMP)  ## the tests not marked slow, and the repository's contracts (the loop while editing)
	$(BIN)/python -m pytest $(XDIST) -m "not slow or contract" --hypothesis-profile=fast

BENCH_STAMP := $(VENV)/.bench-installed

$(BENCH_STAMP): $(STAMP)
	$(BIN)/pip install -q -e '.[dev,bench]'
	@touch $(BENCH_STAMP)

bench: $(BENCH_STAMP)  ## run the benchmarks in bench/ (figures and ratios against peers)
	@for b in bench/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done
	$(BIN)/python bench/figures.py

figures: $(BENCH_STAMP)  ## measure the figures the docs quote (docs/figures.json) and rewrite them
	$(BIN)/python bench/figures.py

lint: $(STAMP)  ## ruff check (with complexity and argument-count rules), ruff format --check, mypy
	$(BIN)/ruff check litaudit tests bench seeds setup.py
	$(BIN)/ruff format --check litaudit tests bench seeds setup.py
	$(BIN)/mypy

clean:  ## remove the environment and the default database
	rm -rf $(VENV) $(DB) $(DB).wal
