"""Continuation frame ids. The game runs as a stack of small tuples `(frame id, *args)`
(`Game.k`); a frame id selects the function that continues the game. The shared ids are
here; a format may replace what a shared id does (`Format.frames`) and may add frames of
its own from `FIRST_FORMAT_FRAME` on (a game has one format, so formats' own ids may
overlap). The numbers are part of `Game.state_hash()`: never renumber them.
"""

from __future__ import annotations

(
    F_BEGIN_STEP,
    F_PRIO,
    F_END_STEP,
    F_RESOLVE,
    F_OPS,
    F_CAST_DONE,
    F_ACT_DONE,
    F_TRIG_DONE,
    F_PUT_TRIGGERS,
    F_MULLIGAN,
    F_CLEANUP,
    F_DAMAGE,
    F_BOTTOM,
    F_SETTLE,
    F_BATTLE,
    F_AFTER_BATTLE,
) = range(16)

FIRST_FORMAT_FRAME = 16
