# mcastlab: sudo make testbed | sudo make test | sudo make lab N=1 | make clean   (README.md)
VENV    := .venv
BIN     := $(VENV)/bin
PYTEST  := $(BIN)/pytest
# Extra pytest arguments, e.g.  sudo make test T="-k mesh -x"
T       ?=
# Python keeps its bytecode in every process a target starts (the CLI, the controller,
# pytest's workers): with PYTHONDONTWRITEBYTECODE set, as on this machine, each of them
# compiled every module it imported at every start (`mcastlab reproduce --list` 0.85 s
# against 0.43 s, 2026-12-06)
unexport PYTHONDONTWRITEBYTECODE

.PHONY: install testbed test unit unit-only integration lint lint-only lab bench reproduce docs clean clean-results distclean

install:
	@scripts/install.sh

testbed: install
	$(BIN)/mcastlab testbed

# ruff and mypy beside the unit tests (pytest-xdist on every core: mypy's one core of work
# fits in the gaps), then the integration tests one at a time (one emulated network runs at
# a time, and their timings need the cores); a T that selects no test of one half is not a
# failure (pytest's 5).
test: install
	@$(MAKE) --no-print-directory -j2 --output-sync=target lint-only unit-only
	$(PYTEST) -q tests/integration $(T) || [ $$? -eq 5 ]

unit-only:
	$(PYTEST) -q -n auto tests/unit $(T) || [ $$? -eq 5 ]

unit: install
	$(PYTEST) -q -n auto tests/unit $(T)

integration: install
	$(PYTEST) -q tests/integration $(T)

# ruff, then mypy on the files listed under [tool.mypy] in pyproject.toml
lint: install lint-only

lint-only:
	$(BIN)/ruff check testbed controller collectives topologies tests
	$(BIN)/mypy

# The teaching labs (labs/): `make lab` lists them, `sudo make lab N=1` opens lab 1.
lab: install
	$(BIN)/mcastlab lab $(N)

# The benchmark suites into a dated folder under results/; PUBLISH=1 updates the curated bench/
bench: install
	$(BIN)/mcastlab bench $(if $(PUBLISH),--publish)

# The papers' headline claims, paper beside testbed (docs/reproduce.md); Q=1 for --quick;
# SCALE=1 for the scale tier (--scale: the growth claims on 32 and 64 hosts, about 31 min);
# PUBLISH=1 writes the curated report in bench/reproduce (bench/reproduce-scale) instead of
# a dated results folder
reproduce: install
	$(BIN)/mcastlab reproduce $(if $(Q),--quick) $(if $(SCALE),--scale) $(if $(PUBLISH),--publish)

# The API reference (docs/api.md), made by pdoc from the docstrings into build/api/
# (not kept in git: tests/unit/test_api_reference.py builds and checks it on every test run)
docs: install
	$(BIN)/python scripts/api_reference.py build/api

# Every trace of a run: namespaces, bridges, veths, processes (mcastlab cleanup), and caches.
# Measured results are never removed here: results/ stays (make clean-results removes it).
clean:
	@if [ -x $(BIN)/mcastlab ] && [ "$$(id -u)" = 0 ]; then $(BIN)/mcastlab cleanup; \
	 elif [ -x $(BIN)/mcastlab ]; then echo "make clean: run as root to remove network state"; fi
	rm -rf .pytest_cache .ruff_cache .mypy_cache
	find . -name __pycache__ -prune -exec rm -rf {} +
	@if [ -d results ]; then echo "make clean: results/ kept (make clean-results removes it)"; fi

# Every measured result under results/ (experiments, bench and reproduce runs), on purpose.
clean-results:
	rm -rf results

distclean: clean
	rm -rf $(VENV) *.egg-info
	@if grep -qs "^# mcastlab: installed by $$(pwd -P)/scripts/" /usr/local/sbin/mcastlab; then \
	 rm -f /usr/local/sbin/mcastlab; echo "distclean: removed /usr/local/sbin/mcastlab"; fi
