# duocthu — the two commands: `make run` and `make test`.
# Needs only Python 3.11+ and make; everything else is installed here.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip
STAMP  := $(VENV)/.installed
TESTSTAMP := $(VENV)/.installed-test

PACKAGES := -e contracts -e libs/text -e libs/runtime -e libs/providers -e corpus \
	-e services/gateway -e services/understanding -e services/retrieval \
	-e services/generation -e services/verifier -e services/ingest-worker \
	-e cli
PYPROJECTS := $(wildcard contracts/pyproject.toml libs/*/pyproject.toml corpus/pyproject.toml services/*/pyproject.toml cli/pyproject.toml)

.PHONY: run test venv test-env lint typecheck pytest clean

run: $(STAMP)
	$(BIN)/duocthu sample-corpus
	$(BIN)/duocthu up

test: $(TESTSTAMP)
	$(MAKE) lint typecheck pytest

venv: $(STAMP)

$(STAMP): $(PYPROJECTS)
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "duocthu needs Python 3.11 or newer")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet $(PACKAGES)
	@touch $@

test-env: $(TESTSTAMP)

$(TESTSTAMP): $(STAMP) scripts/install-system-deps.sh
	$(PIP) install --quiet -e 'cli[test]'
	sh scripts/install-system-deps.sh
	@touch $@

lint: $(TESTSTAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports

typecheck: $(TESTSTAMP)
	$(BIN)/mypy contracts libs services corpus cli tests

pytest: $(TESTSTAMP)
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache
