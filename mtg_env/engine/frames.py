"""Continuation frame ids. The game runs as a stack of small tuples `(frame id, *args)`
(`Game.k`); a frame id selects the function that continues the game. The shared ids are
here; a format may replace what a shared id does (`Format.frames`) and may add frames of
its own from `FIRST_FORMAT_FRAME` on (a game has one format, so formats' own ids may
overlap). The numbers are part of `Game.state_hash()`: never renumber them.
"""

from __future__ import annotations

from typing import Final

F_BEGIN_STEP: Final = 0
F_PRIO: Final = 1
F_END_STEP: Final = 2
F_RESOLVE: Final = 3
F_OPS: Final = 4
F_CAST_DONE: Final = 5
F_ACT_DONE: Final = 6
F_TRIG_DONE: Final = 7
F_PUT_TRIGGERS: Final = 8
F_MULLIGAN: Final = 9
F_CLEANUP: Final = 10
F_DAMAGE: Final = 11
F_BOTTOM: Final = 12
F_SETTLE: Final = 13
F_BATTLE: Final = 14
F_AFTER_BATTLE: Final = 15

FIRST_FORMAT_FRAME: Final = 16
