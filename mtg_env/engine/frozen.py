"""`Frozen`: the base of the engine's immutable value types (card data, decision contexts).

A frozen dataclass refuses attribute assignment, which is how a compiled (mypyc) class
restores its state when it is copied or unpickled; `__reduce__` rebuilds a value by
calling its class with its fields instead, in both builds, so that `pickle` and
`copy.deepcopy` of games and envs work the same compiled and pure (docs/compiling.md).
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any


class Frozen:
    __slots__ = ()

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return type(self), tuple(getattr(self, f.name) for f in fields(self))  # type: ignore[arg-type]
