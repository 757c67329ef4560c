# The README's two commands: `make demo` and `make test`. Each sets itself up.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install test lint demo bench clean

install: $(STAMP)

# torch is installed first, pinned to the local CPU build, so that no later
# requirement pulls a CUDA build of torch from the registry.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e ".[train,rllib,bench,dev]"
	touch $(STAMP)

lint: install
	$(BIN)/ruff check .

test: install lint
	$(BIN)/python -m pytest -n 2

# The main job: a short self-play training, then a tournament with ratings and a heatmap.
demo: install
	$(BIN)/python scripts/demo.py --out runs/demo

# Throughput figures (README "Performance"), with PettingZoo chess as the reference.
bench: install
	$(BIN)/mtg-env bench --seconds 10 --chess

clean:
	rm -rf $(VENV) build *.egg-info
