# The README's two commands: `make demo` and `make test`. Each sets itself up.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The tests start hundreds of Python processes (xdist workers, the console scripts run as
# users run them): with bytecode caching off (PYTHONDONTWRITEBYTECODE, which some container
# images set) each one compiles the project's modules again and pytest rewrites every test
# file again in each worker. The caches go to the tree's __pycache__ folders (git-ignored).
unexport PYTHONDONTWRITEBYTECODE

.PHONY: install test test-lint test-docs test-compiled test-pure test-all test-lowest test-browser screenshot lint docs demo bench regen clean

install: $(STAMP)

# torch is installed first, pinned to the local CPU build, so that no later
# requirement pulls a CUDA build of torch from the registry. The install compiles the engine
# (setup.py, docs/compiling.md): an edited engine source makes `make install` rebuild it.
ENGINE_SOURCES := $(wildcard mtg_env/engine/*.py mtg_env/engine/formats/*.py) mtg_env/env/spaces.py mtg_env/env/entity.py
$(STAMP): pyproject.toml setup.py $(ENGINE_SOURCES)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e ".[train,rllib,bench,dev,openspiel]"
	touch $(STAMP)

lint: install
	$(BIN)/ruff check .
	$(BIN)/mypy

# The browser test (tests/cli/test_browser.py) needs Debian's chromium; where it is missing
# it is left out here, and said so before and after the run (.ci/run installs chromium,
# so CI always runs it). Without chromium the test itself fails rather than skips.
CHROMIUM ?= $(or $(MTG_ENV_CHROMIUM),/usr/bin/chromium)
NO_BROWSER_NOTE := NOTE: the replay viewer's browser test did not run: $(CHROMIUM) not found (apt-get install chromium, then make test-browser)

# The documentation site (docs/, mkdocs.yml) into site/; warnings are errors.
docs: install
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

# The whole suite runs on the engine `make install` built (compiled where a C compiler
# exists), and beside it the engine suite again on the pure-Python engine (docs/compiling.md); the
# layout checks read the source, whatever engine runs, so only the one that imports the
# engine's classes runs again; the observation encoders are checked on the pure engine by the
# identity digests (every observation and mask of the recorded games). Of test_compiled.py only
# what reads the running engine: the rest starts its own processes whatever engine runs here
# (the compiled-vs-pure hash traces run both), so the first pass has run it.
PURE_SUITE := tests/scenarios tests/tools/test_golden_perft.py \
	tests/env/test_identity.py tests/engine/test_engine_api.py tests/engine/test_state_fields.py \
	"tests/engine/test_compiled.py::test_the_engine_runs_compiled_unless_asked_for_pure_python" \
	"tests/engine/test_compiled.py::test_an_effect_made_from_interpreted_code_has_its_fields" \
	"tests/test_layout.py::test_game_implements_every_member_of_gamelike" tests/engine/test_format_hooks.py tests/engine/test_formats.py tests/engine/test_layers_api.py \
	tests/engine/test_combat_legality.py tests/engine/test_rng.py

# make test's four parts run at once and share the two cores: the lint (ruff, mypy), the
# docs build, the whole suite on the compiled engine, and the engine suite on the pure
# engine (one worker). Run one after another they left a core idle: while mypy ran alone,
# and at the end of each suite while its last slow test ran. The compiled suite prints as
# it goes; the other three print what they said when all have ended (TEST_LOGS, removed
# after), so that no two outputs mix.
TEST_LOGS := .make-test
test: install
	@rm -rf $(TEST_LOGS) && mkdir $(TEST_LOGS)
	@$(MAKE) --no-print-directory -k -j4 test-compiled test-lint test-docs test-pure; rc=$$?; \
	for part in lint docs pure; do \
		echo "make test: $$part:"; cat $(TEST_LOGS)/$$part.log; \
	done; rm -rf $(TEST_LOGS); exit $$rc

test-lint: install
	@$(MAKE) --no-print-directory lint > $(TEST_LOGS)/lint.log 2>&1

test-docs: install
	@$(MAKE) --no-print-directory docs > $(TEST_LOGS)/docs.log 2>&1

test-compiled: install
	@if [ -x "$(CHROMIUM)" ]; then \
		$(BIN)/python -m pytest -n 2 --dist worksteal -rs; \
	else \
		echo "$(NO_BROWSER_NOTE)"; \
		$(BIN)/python -m pytest -n 2 --dist worksteal -rs -m "not browser"; rc=$$?; \
		echo "$(NO_BROWSER_NOTE)"; exit $$rc; \
	fi

# The engine suite again on the pure-Python engine (MTG_ENV_PURE=1).
test-pure: install
	@echo "MTG_ENV_PURE=1 pytest $(PURE_SUITE)" > $(TEST_LOGS)/pure.log
	@MTG_ENV_PURE=1 $(BIN)/python -m pytest -n 0 -rs $(PURE_SUITE) >> $(TEST_LOGS)/pure.log 2>&1

# Everything `make test` runs, then what it leaves out for time: the tests marked long (the
# rest of the identity sweep, the million-decision fuzz), the fuzz chunk on the pure engine
# and the env on the lowest PettingZoo and Gymnasium. CI (.ci/run) runs this.
test-all: test
	$(BIN)/python -m pytest -n 2 --dist worksteal -rs --long -m long
	MTG_ENV_PURE=1 $(BIN)/python -m pytest -rs "tests/tools/test_fuzz.py::test_invariant_fuzz[0]"
	$(MAKE) test-lowest

# The env tests on the lowest PettingZoo and Gymnasium that pyproject.toml allows, in their
# own venv (no train extra: the tests that use SB3 need it and are left out). It compiles
# nothing (MTG_ENV_PURE=1): the engine is the one `make install` built in this tree, if any.
LOWEST := .venv-lowest
test-lowest:
	test -x $(LOWEST)/bin/python || $(PYTHON) -m venv $(LOWEST)
	$(LOWEST)/bin/python -m pip install --quiet --upgrade pip
	MTG_ENV_PURE=1 $(LOWEST)/bin/python -m pip install --quiet "pettingzoo==1.24.0" \
		"gymnasium==0.29.1" pytest pytest-xdist filelock hypothesis -e .
	$(LOWEST)/bin/python -c "import pettingzoo, gymnasium; print('test-lowest: pettingzoo', pettingzoo.__version__, 'gymnasium', gymnasium.__version__)"
	$(LOWEST)/bin/python -m pytest -n 2 -p no:cacheprovider tests/env -k "not maskable_ppo and not sb3"

# The replay viewer in headless Chromium alone.
test-browser: install
	$(BIN)/python -m pytest -m browser -rs tests/cli/test_browser.py

# Regenerate the replay viewer's screenshot (docs/replays.md).
screenshot: install
	$(BIN)/python scripts/viewer_screenshot.py --out docs/viewer.png

# The main job: a short self-play training, then a tournament with ratings and a heatmap.
demo: install
	$(BIN)/python scripts/demo.py

# Throughput figures (docs/performance.md), with PettingZoo chess as the reference.
bench: install
	$(BIN)/mtg-env bench --seconds 10 --chess

# Rebuild every generated or recorded file from the code as it is, then say what changed:
# the engine's state code (from engine/fields.py; the compiled engine is rebuilt after it),
# the perft counts, the golden playthroughs, the identity traces and the heuristic's trace.
# Only for a change of behaviour made on purpose: the tests compare against these files, and
# a commit that changes them says why. (tests/data/default_policy_trace.json is not rebuilt:
# it was recorded with the default policy's earlier file format, which it holds the new
# one to.)
REGENERATED := mtg_env/engine/state.py tests/data/perft.json tests/data/golden \
	tests/data/identity tests/data/heuristic_trace.json tests/data/spellbench
regen:
	$(MAKE) install
	MTG_ENV_PURE=1 $(BIN)/python -m mtg_env.engine.fields > mtg_env/engine/state.py.new
	cmp -s mtg_env/engine/state.py.new mtg_env/engine/state.py \
		&& rm mtg_env/engine/state.py.new || mv mtg_env/engine/state.py.new mtg_env/engine/state.py
	$(MAKE) install
	$(BIN)/python scripts/perft.py --regen > /dev/null
	$(BIN)/python -m pytest -q -p no:cacheprovider tests/tools/test_golden_perft.py --regen-golden
	$(BIN)/python -m pytest -q -p no:cacheprovider tests/spellbench/test_golden_transcripts.py --regen-golden
	$(BIN)/python -m pytest -q -p no:cacheprovider -n 2 tests/env/test_identity.py --regen-identity
	$(BIN)/python -P tests/heuristic_trace.py
	@changed="$$(git status --short -- $(REGENERATED))"; \
	if [ -n "$$changed" ]; then echo "make regen: changed:"; echo "$$changed"; \
	git diff --stat -- $(REGENERATED); else echo "make regen: nothing changed"; fi

clean:
	rm -rf $(VENV) $(LOWEST) build site *.egg-info mtg_env/engine/_compiled.json
	find mtg_env -name '*.so' -delete
