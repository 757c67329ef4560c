"""The Spellbench protocol v2 (`spellbench/v2`): NDJSON messages between a tournament host,
a rules engine (the environment role) and bots (the agent role). See docs/spellbench.md.

- `wire`: strict reading of a message line (the error codes of the spec's Section 9.8),
  canonical JSON (RFC 8785, Section 4.3) and the error response.
- `ids`: the identifiers and secrets the host and the engine derive (Sections 4.3, 5.3,
  11.6) and the per-game digest chain (Section 11.8).
"""
