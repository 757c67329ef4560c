# The README's two commands: `make demo` and `make test`. Each sets itself up.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install test test-lowest test-browser screenshot lint docs demo bench clean

install: $(STAMP)

# torch is installed first, pinned to the local CPU build, so that no later
# requirement pulls a CUDA build of torch from the registry.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e ".[train,rllib,bench,dev,openspiel]"
	touch $(STAMP)

lint: install
	$(BIN)/ruff check .
	$(BIN)/mypy

# The browser test (tests/test_browser.py) needs Debian's chromium; where it is missing
# it is left out here, and said so before and after the run (.ci/run installs chromium,
# so CI always runs it). Without chromium the test itself fails rather than skips.
CHROMIUM ?= $(or $(MTG_ENV_CHROMIUM),/usr/bin/chromium)
NO_BROWSER_NOTE := NOTE: the replay viewer's browser test did not run: $(CHROMIUM) not found (apt-get install chromium, then make test-browser)

# The documentation site (docs/, mkdocs.yml) into site/; warnings are errors.
docs: install
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

test: install lint docs
	@if [ -x "$(CHROMIUM)" ]; then \
		$(BIN)/python -m pytest -n 2 -rs; \
	else \
		echo "$(NO_BROWSER_NOTE)"; \
		$(BIN)/python -m pytest -n 2 -rs -m "not browser"; rc=$$?; \
		echo "$(NO_BROWSER_NOTE)"; exit $$rc; \
	fi

# The env tests on the lowest PettingZoo and Gymnasium that pyproject.toml allows, in their
# own venv (no train extra: the tests that use SB3 need it and are left out).
LOWEST := .venv-lowest
test-lowest:
	test -x $(LOWEST)/bin/python || $(PYTHON) -m venv $(LOWEST)
	$(LOWEST)/bin/python -m pip install --quiet --upgrade pip
	$(LOWEST)/bin/python -m pip install --quiet "pettingzoo==1.24.0" "gymnasium==0.29.1" \
		pytest pytest-xdist hypothesis -e .
	$(LOWEST)/bin/python -c "import pettingzoo, gymnasium; print('test-lowest: pettingzoo', pettingzoo.__version__, 'gymnasium', gymnasium.__version__)"
	$(LOWEST)/bin/python -m pytest -n 2 -p no:cacheprovider tests/env -k "not maskable_ppo and not sb3"

# The replay viewer in headless Chromium alone.
test-browser: install
	$(BIN)/python -m pytest -m browser -rs tests/test_browser.py

# Regenerate the replay viewer's screenshot (docs/replays.md).
screenshot: install
	$(BIN)/python scripts/viewer_screenshot.py --out docs/viewer.png

# The main job: a short self-play training, then a tournament with ratings and a heatmap.
demo: install
	$(BIN)/python scripts/demo.py

# Throughput figures (docs/performance.md), with PettingZoo chess as the reference.
bench: install
	$(BIN)/mtg-env bench --seconds 10 --chess

clean:
	rm -rf $(VENV) $(LOWEST) build site *.egg-info
