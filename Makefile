# duocthu — the two commands: `make run` and `make test`.
# Needs only Python 3.11+ and make; everything else is installed here, exactly as uv.lock pins it
# (uv itself comes from PyPI into the venv with pip, pinned below).

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip
UV_VERSION := 0.13.9
UV     := $(BIN)/uv
STAMP  := $(VENV)/.installed
TESTSTAMP := $(VENV)/.installed-test

# every workspace member (pyproject.toml [tool.uv.workspace]), editable, at the locked versions;
# --inexact keeps uv and pip, which the lock does not list, in the venv
SYNC := $(UV) sync --locked --all-packages --inexact --quiet
PYPROJECTS := pyproject.toml $(wildcard contracts/pyproject.toml libs/*/pyproject.toml corpus/pyproject.toml services/*/pyproject.toml cli/pyproject.toml)

.PHONY: run test venv test-env lint typecheck pytest lock lock-check clean

# RUN_ARGS: options for `duocthu up`, e.g. make run RUN_ARGS="--port 8081"
RUN_ARGS ?=

# `duocthu up` builds the sample PDF when its sources changed, then indexes it unless it is already live
run: $(STAMP)
	$(BIN)/duocthu up $(RUN_ARGS)

test: $(TESTSTAMP)
	$(MAKE) lock-check lint typecheck pytest

venv: $(STAMP)

$(UV):
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "duocthu needs Python 3.11 or newer")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --disable-pip-version-check 'uv==$(UV_VERSION)'

$(STAMP): $(UV) $(PYPROJECTS) uv.lock
	$(SYNC)
	@touch $@

test-env: $(TESTSTAMP)

$(TESTSTAMP): $(STAMP) scripts/install-system-deps.sh
	$(SYNC) --extra test
	sh scripts/install-system-deps.sh
	@touch $@

# after changing any pyproject.toml: re-resolve and commit uv.lock
lock: $(UV)
	$(UV) lock

# the lock matches every pyproject.toml (CI: `make test` runs this first)
lock-check: $(UV)
	$(UV) lock --check

lint: $(TESTSTAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports

typecheck: $(TESTSTAMP)
	$(BIN)/mypy contracts libs services corpus cli tests

pytest: $(TESTSTAMP)
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache
