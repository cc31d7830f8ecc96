# The two commands: `make run` serves the shop, `make test` runs every test.
SHELL := /bin/bash
PYTHON ?= python3.11
VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 8000
DYNAMODB_LOCAL_PORT ?= 8001
# localstripe, the fake Stripe `make run` takes card payments with (unless STRIPE_SECRET_KEY or SHOP_PAYMENTS=off)
STRIPE_LOCAL_PORT ?= 8420
PYTEST_ARGS ?=
# pytest-xdist workers for `make test` (0: none). Each starts its own DynamoDB Local, Redis and PostgreSQL when a
# test needs one. Two, one a core: with three on a busy two-core machine, tests with a page time budget saw 503s.
PYTEST_WORKERS ?= 2
# The tests where the accounts database matters (marker `database`), run a second time on a throwaway PostgreSQL.
PYTEST_PG_ARGS ?= -m "database and not browser and not servers"

.PHONY: run test bench bench-compare capacity bench-deps setup dynamodb-local axe system-deps lint clean

$(VENV)/.installed: requirements.txt requirements-dev.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	@touch $@

setup: $(VENV)/.installed

# Java 17, npm, PostgreSQL, Redis and Debian's Chromium, where missing (apt, as root).
system-deps:
	@scripts/install-system-deps.sh

dynamodb-local: setup
	@$(PY) tools/dynamodb_local.py install

# axe-core (the browser tests' accessibility checker): the pinned npm package, sha256-checked, into var/.
axe: setup
	@$(PY) tools/axe.py install

run: setup
	@PORT=$(PORT) DYNAMODB_LOCAL_PORT=$(DYNAMODB_LOCAL_PORT) STRIPE_LOCAL_PORT=$(STRIPE_LOCAL_PORT) scripts/run.sh

# Everything on SQLite (the default DATABASE_URL), then the tests where the database matters on PostgreSQL.
test: system-deps setup dynamodb-local axe
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy
	$(VENV)/bin/ruff check .
	DATABASE_URL= CACHE_URL= $(PY) -m pytest -n $(PYTEST_WORKERS) $(PYTEST_ARGS)
	CACHE_URL= $(PY) tools/postgres_local.py run -- $(PY) -m pytest -n $(PYTEST_WORKERS) $(PYTEST_PG_ARGS)

$(VENV)/.bench-installed: requirements-bench.txt $(VENV)/.installed
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-bench.txt
	@touch $@

# Benchmarks (not part of `make test` or CI): `make bench QUICK=1` for the short run. wrk loads the pages
# over HTTP, pyperf times them in-process. Results in var/bench/ (results.json, results.md, pyperf's inproc-*.json).
bench-deps:
	@scripts/install-system-deps.sh bench

bench: bench-deps setup dynamodb-local $(VENV)/.bench-installed
	$(PY) -m bench.run $(if $(QUICK),--quick,)

# Capacity model: consumed capacity of every operation on its own DynamoDB Local, fed into traffic mixes.
# Report in var/capacity/ (capacity.json, capacity.md); `python -m bench.capacity --help`.
capacity: setup dynamodb-local $(VENV)/.bench-installed
	$(PY) -m bench.capacity

# A/B: the pages of REF and of the working tree in alternating rounds (pyperf compare_to, wrk); var/bench/compare.md.
bench-compare: bench-deps setup dynamodb-local $(VENV)/.bench-installed
	@test -n "$(REF)" || { echo "usage: make bench-compare REF=<commit>"; exit 2; }
	$(PY) -m bench.compare --ref $(REF) $(COMPARE_ARGS)

lint: setup
	$(VENV)/bin/ruff check .

clean:
	rm -rf $(VENV) var/staticfiles .pytest_cache
