# Two commands for a fresh machine with Python and make:
#   make play   set everything up and play (a local game against three bots;
#               its options in ARGS: make play ARGS="--bots hard")
#   make test   set everything up and run the whole test suite
PYTHON ?= python3
VENV ?= .venv
BIN = $(VENV)/bin

.PHONY: setup play sim test test-long lint bench
setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $@

play: setup
	$(BIN)/rummy-client $(ARGS)

sim: setup
	$(BIN)/rummy-sim --games 200 --bots heuristic,random

test: setup
	$(BIN)/python -m pytest -q

test-long: setup
	RUMMY_LONG=1 HYPOTHESIS_PROFILE=long $(BIN)/python -m pytest -q --timeout=0  # long runs outlast the suite's 300 s cap

lint: setup
	$(BIN)/ruff check rummy tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports

bench: setup
	$(BIN)/python -m pip install -q -e '.[bench]' || echo "open_spiel not installable here: comparison skipped"
	$(BIN)/python bench/engine_playouts.py
	$(BIN)/python bench/expert_decisions.py --games 3
