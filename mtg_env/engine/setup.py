"""Building a game: a new game from two decks (CR 103), or a scripted position
(docs/scenarios.md).

One job of `Game` (engine.game), the one state class, as a link of its chain of base
classes (engine.protocol); the state fields are declared once in engine.fields.
"""

from __future__ import annotations

from typing import Any, Self

from .carddb import load_cards
from .constants import BATTLEFIELD, LAND, STACK
from .formats import rules_for
from .objects import ABILITY, SPELL, StackItem, activated_at
from .state import init_state
from .turn import Turn


class Setup(Turn):
    __slots__ = ()

    def _choose_first(self, first_player: int | None) -> int:
        """The first player: by the seed unless `first_player` fixes it."""
        fp = self.rng.below(2) if first_player is None else first_player
        if fp not in (0, 1):
            raise ValueError("first_player must be 0 or 1")
        self.first_player = fp
        self.active = fp
        return fp

    @classmethod
    def _empty(cls, fmt: str, seed: int, auto_pass: bool, max_decisions: int | None) -> Self:
        g = cls()
        rules = rules_for(fmt)
        init_state(g, fmt, rules, load_cards(rules.card_set), seed, auto_pass, max_decisions)
        return g

    def _setup_stack_entry(self, e: dict[str, Any], labels: dict[str, int], where: str) -> None:
        """Put a spell or an activated ability of a scripted position on the stack, on top
        of those already there, as if it had been cast or activated (costs paid, targets
        chosen): see `Game.setup`."""
        if ("card" in e) == ("source" in e):
            raise ValueError(f"{where}: a spell names its 'card', an ability its 'source'")
        if "card" in e:
            cdef = self.cardset.cards.get(e["card"])
            if cdef is None or cdef.types & LAND:
                raise ValueError(f"{where}: {e['card']!r} is no card that is cast")
            owner = int(e.get("owner", 0))
            controller = int(e.get("controller", owner))
            cid = self._new_card(cdef, owner)
            self.zone[cid] = STACK
            label = e.get("id")
            if label:
                if label in labels:
                    raise ValueError(f"{where}: duplicate label {label!r}")
                labels[label] = cid
            item = StackItem.new(
                self.oid[cid], SPELL, cid, self.oid[cid], controller, cdef.spell, -1
            )
            modes = cdef.spell.modes if cdef.spell is not None else ()
            mode = e.get("mode")
            if mode is not None:
                if not 0 <= int(mode) < len(modes):
                    raise ValueError(f"{where}: {cdef.name} has no mode {mode}")
                item.info["mode"] = int(mode)
                item.ability = modes[int(mode)]
            elif modes:
                raise ValueError(f"{where}: {cdef.name} is modal: give its 'mode'")
        else:
            src = labels.get(e["source"], -1)
            if src < 0 or self.zone[src] != BATTLEFIELD:
                raise ValueError(f"{where}: source {e['source']!r} is no labelled permanent")
            ch = self.chars(src)
            idx = int(e.get("ability", 0))
            try:
                ab = activated_at(ch, idx)
            except ValueError as err:  # no such ability, or a mana ability
                raise ValueError(f"{where}: {err}") from None
            controller = int(e.get("controller", ch.controller))
            item = StackItem.new(self._new_oid(), ABILITY, src, self.oid[src], controller, ab, idx)
        if e.get("x") is not None:
            item.info["x"] = int(e["x"])
        for t in e.get("targets", ()):
            if isinstance(t, str):
                if t not in labels:
                    raise ValueError(f"{where}: unknown target label {t!r}")
                item.targets.append((labels[t], self.oid[labels[t]]))
            elif t in (0, 1):
                item.targets.append((-1 - t, 0))
            else:
                raise ValueError(f"{where}: a target is a label or a seat (0 or 1), not {t!r}")
        self.stack.append(item)
