# The two commands: `make run` serves the shop, `make test` runs every test.
SHELL := /bin/bash
PYTHON ?= python3.11
VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 8000
DYNAMODB_LOCAL_PORT ?= 8001
PYTEST_ARGS ?=

.PHONY: run test bench bench-compare bench-deps setup dynamodb-local system-deps lint clean

$(VENV)/.installed: requirements.txt requirements-dev.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	@touch $@

setup: $(VENV)/.installed

# Java 17, npm and Debian's Chromium, where missing (apt, as root).
system-deps:
	@scripts/install-system-deps.sh

dynamodb-local: setup
	@$(PY) tools/dynamodb_local.py install

run: setup
	@PORT=$(PORT) DYNAMODB_LOCAL_PORT=$(DYNAMODB_LOCAL_PORT) scripts/run.sh

test: system-deps setup dynamodb-local
	$(PY) -m pytest $(PYTEST_ARGS)

$(VENV)/.bench-installed: requirements-bench.txt $(VENV)/.installed
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-bench.txt
	@touch $@

# Benchmarks (not part of `make test` or CI): `make bench QUICK=1` for the short run.
# Results in var/bench/ (results.md, results.json, results.png).
bench-deps:
	@scripts/install-system-deps.sh bench

bench: bench-deps setup dynamodb-local $(VENV)/.bench-installed
	$(PY) bench/run.py $(if $(QUICK),--quick,)

# A/B: the pages of REF and of the working tree, side by side, in alternating rounds.
bench-compare: bench-deps setup dynamodb-local $(VENV)/.bench-installed
	@test -n "$(REF)" || { echo "usage: make bench-compare REF=<commit>"; exit 2; }
	$(PY) bench/compare.py --ref $(REF) $(COMPARE_ARGS)

lint: setup
	$(VENV)/bin/ruff check .

clean:
	rm -rf $(VENV) var/staticfiles .pytest_cache
