# The README's two commands: `make demo` and `make test`. Each sets itself up.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install test test-browser screenshot lint demo bench clean

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

# -rs prints why a test was skipped: without /usr/bin/chromium the browser test says it
# did not run (.ci/run installs chromium, so CI always runs it).
test: install lint
	$(BIN)/python -m pytest -n 2 -rs

# The replay viewer in headless Chromium alone; a missing browser is a failure here.
test-browser: install
	MTG_ENV_REQUIRE_BROWSER=1 $(BIN)/python -m pytest -m browser -rs tests/test_browser.py

# Regenerate the README's screenshot of the replay viewer.
screenshot: install
	$(BIN)/python scripts/viewer_screenshot.py --out docs/viewer.png

# The main job: a short self-play training, then a tournament with ratings and a heatmap.
demo: install
	$(BIN)/python scripts/demo.py --out runs/demo

# Throughput figures (README "Performance"), with PettingZoo chess as the reference.
bench: install
	$(BIN)/mtg-env bench --seconds 10 --chess

clean:
	rm -rf $(VENV) build *.egg-info
