# Set-up and entry points for running xlcons without conda (laptops, CI, these machines).
# On a cluster, use `snakemake --sdm conda` instead: every rule has its own env in envs/.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
SHARED_DATA ?= ../shared/data

.PHONY: env test run offline-models offline

# One pinned environment with everything the tests and a CPU run need (torch 2.13.0 CPU).
$(BIN)/.xlcons-installed: requirements/test.txt requirements/test-nodeps.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements/test.txt
	$(BIN)/python -m pip install --quiet --no-deps -r requirements/test-nodeps.txt
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $@

env: $(BIN)/.xlcons-installed

test: env
	$(BIN)/python -m pytest $(PYTEST_ARGS)

run: env
	$(BIN)/snakemake --cores all

offline-models: env
	$(BIN)/python -m xlcons.offline_models --out resources/offline-models --data $(SHARED_DATA)

offline: offline-models
	$(BIN)/snakemake --cores all --configfile config/offline.yaml
