# Two commands for a newcomer: `make run` and `make test`. Nothing but Python 3.12+ and make.
PYTHON ?= $(shell for p in python3.14 python3.13 python3.12 python3 python; do \
	$$p -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null && { echo $$p; break; }; done)
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000

.PHONY: run test lint clean

# pip byte-compiles one file after another (half its 22 s here); compileall does it on
# every core (8 s), leaving out what no process imports whole (pip itself, GitHub's 31 MB
# of generated schemas: those compile on first use). Left to the first process that
# imports them, the suite's workers and first servers compiled the same modules at once,
# each for itself (a fresh clone's suite took 18 s longer than a warm one). No recipe
# gets PYTHONDONTWRITEBYTECODE (CI machines set it): the suite starts some 150 Python
# processes, and each would compile all it imports.
unexport PYTHONDONTWRITEBYTECODE
NOT_COMPILED := '(/pip/|/setuptools/|githubkit_schemas|playwright/driver)'

$(BIN)/.installed: pyproject.toml
	@test -n "$(PYTHON)" || { echo "Crosstalk needs Python 3.12 or newer on PATH."; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q --no-compile -e ".[dev]"
	$(BIN)/python -m compileall -q -j0 -x $(NOT_COMPILED) $(VENV)/lib >/dev/null \
		|| echo "(some installed files did not byte-compile: they load from source)"
	touch $@

run: $(BIN)/.installed
	$(BIN)/python manage.py migrate --noinput -v0
	$(BIN)/python manage.py seed_demo
	PORT=$(PORT) bin/run-all

# One pytest worker per core and one more (TEST_WORKERS=1 runs them in one process): the
# real programs the suites drive (Chromium, agent CLIs, servers) leave the cores idle a
# third of the time, and the extra worker fills it (2 cores: 350 s -> 309 s). Each test
# module stays on one worker, so its live servers start once, the slowest suites go first and
# the longest module spreads by CLI (tests/scheduling.py). Prints the 30 slowest tests
# and every skipped test with its reason. The project is byte-compiled first, on every
# core; pytest keeps the test modules it rewrote for assert (half of collection's 9 s)
# for the next run, CI's second stage included.
TEST_WORKERS ?= $(shell $(PYTHON) -c 'import os; print(os.cpu_count() + 1)' 2>/dev/null || echo auto)

# The pinned agent CLIs are installed (npm, into ~/.cache/crosstalk/agent-clis) once,
# before the workers start; where npm cannot, their tests skip saying why.
test: $(BIN)/.installed
	$(BIN)/python -m compileall -q -j0 -x '/(\.venv|var|node_modules)/' . >/dev/null
	$(BIN)/python -m tests.agentcli.clis || echo "(the agent CLIs could not be checked: their tests will skip)"
	$(BIN)/lint-imports --no-cache
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile

lint: $(BIN)/.installed
	$(BIN)/ruff check . && $(BIN)/ruff format --check .

clean:
	rm -rf $(VENV) var
