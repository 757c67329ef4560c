"""Developer tools: throughput figures (`bench`, behind `mtg-env bench`), invariant fuzzing
(`fuzz`, behind `scripts/fuzz.py` and `tests/tools/test_fuzz.py`), move-tree counts (`perft`)
and recorded playthroughs (`golden`), the engine's regression gates
(`tests/tools/test_golden_perft.py`). Nothing in the library imports them; each imports the
layers it measures (perft and golden the engine alone, fuzz the engine and the env, bench
everything up to the networks)."""
