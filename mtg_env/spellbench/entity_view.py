"""The v1 entity observation of a `spellbench/v2` seat decision: the tables a policy
trained in our env reads (`mtg_env.env.entity`), built from the neutral seat decision
alone, with no engine state, so that the policy plays on any Spellbench engine.

`NeutralEntityObserver(layout).observe(seat_decision)` gives the observation (the same
arrays as `EntityLayout.observe`, `action_mask` included) and, for each candidate row,
the `candidate_id` it answers.

What comes from where:

- each visible object of the observation is a row, in the env's row order (own hand, the
  stack from the top, own then the other battlefield, graveyards own first, exile);
  zones, controller and owner, characteristics (types, colors, supertypes, power,
  toughness, keywords), tapped, summoning sickness, combat, damage, counters,
  attachments, token, copy and stack kind are read from the observation's records;
- a card of our pool (by its Oracle name) adds what the protocol does not send: its
  printed mana value and its kinds of abilities, and its identity for the card
  embedding; a card we do not know reads as its characteristics, with the card index
  one past the pool's last (the embedding's unknown-card row);
- the mana each side can make now is counted from its untapped permanents' printed mana
  abilities, as the engine counts it (a creature that is summoning sick and has no haste
  makes none);
- who played first is read from the turn number (the first player's turns are the odd
  ones: no card of our pools takes an extra turn);
- the candidates become the env's candidate rows: the engine action each one stands for
  (`pass`, `play_land` and `cast_spell`, `activate_ability`, `choose_target`, a mode, X,
  a yes/no or an option, `mulligan`, the mulligan's bottom cards, `select_object`,
  triggers' order) described as `EntityLayout` describes it. An attack or a block is
  posed one creature at a time by the protocol and one pick at a time by the engine:
  `declare_attack` "this opponent" reads as the engine's attack with that creature, and
  its `null` as "done"; `declare_block` as the block of that attacker, its `null` as
  "done". A scry or surveil arrangement reads as the engine's choice for that card.

Where the engine and a pool card differ from what the neutral view can say (an effect
that grants or removes abilities, a copy's abilities, a rule that lets mana of one color
be spent as another), the row holds the printed card's values: the test
(`tests/spellbench/test_entity_view.py`) compares these tables with the engine's own, on
every decision of random games through the engine role, and counts where they differ.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..engine.cards import CardDef, ManaAbility
from ..engine.chars import INTRINSIC
from ..engine.constants import (
    ACTIVATE,
    ATTACK,
    BASIC_LAND_TYPES,
    BLOCK,
    BLOCKER,
    CARD,
    CHOOSE,
    COLOR_WORDS,
    D_ATTACKERS,
    D_BLOCK_TARGET,
    D_BLOCKERS,
    D_BOTTOM,
    D_CHOICE,
    D_DISCARD,
    D_MULLIGAN,
    D_PRIORITY,
    D_SELECT,
    D_TARGET,
    D_TRIGGER_ORDER,
    FACE_DOWN,
    KEEP,
    LAND,
    LEGENDARY,
    MULLIGAN,
    PASS,
    PLAY,
    PREGAME,
    SUPERTYPE_BITS,
    TARGET,
    TYPE_BITS,
)
from ..env.entity import (
    ABILITY_BITS,
    CANDIDATE_FIELDS,
    GLOBAL_FIELDS,
    GLOBAL_INDEX,
    KEYWORD_BITS,
    OBJECT_FIELDS,
    OBJECT_INDEX,
    Z_BATTLEFIELD,
    Z_EXILE,
    Z_GRAVEYARD,
    Z_HAND,
    Z_STACK,
    EntityLayout,
)
from ..env.spaces import SOURCE_COUNTS
from .candidates import activated_indices
from .observation import PHASE_STEPS, SEATS, normalize

REF = ("object_id", "card_name", "owner_seat", "controller_seat", "zone")

_INTRINSIC = frozenset(INTRINSIC.values())
_O = OBJECT_INDEX
_G = GLOBAL_INDEX
_KEYWORD_BIT = {normalize(k): bit for k, bit in KEYWORD_BITS.items()}
_STACK_KIND = {"spell": 1, "activated_ability": 2, "triggered_ability": 3}
_STEP = {name: i for i, name in enumerate(PHASE_STEPS)}
# The engine decision each candidate kind answers (its `decision` global, kind + 1).
_DECISION = {
    "pass": D_PRIORITY,
    "play_land": D_PRIORITY,
    "cast_spell": D_PRIORITY,
    "activate_ability": D_PRIORITY,
    "choose_target": D_TARGET,
    "choose_spell_mode": D_CHOICE,
    "choose_number": D_CHOICE,
    "choose_boolean": D_CHOICE,
    "optional_cost": D_CHOICE,
    "choose_name": D_CHOICE,
    "choose_option": D_CHOICE,
    "arrange_card": D_CHOICE,
    "mulligan": D_MULLIGAN,
    "declare_attack": D_ATTACKERS,
    "declare_block": D_BLOCKERS,
}
_SELECT = {"discard": D_DISCARD}
_ORDER = {"mulligan_bottom": D_BOTTOM, "triggers": D_TRIGGER_ORDER, "arrangement": D_CHOICE}


def decision_kind(candidates: list[dict[str, Any]]) -> int:
    """The engine decision (a `D_` constant) a seat decision's candidates answer."""
    sem = candidates[0]["semantic"]
    kind = sem["kind"]
    if kind == "select_object":
        return _SELECT.get(sem.get("purpose"), D_SELECT)
    if kind == "order_pick":
        return _ORDER.get(sem.get("purpose"), D_CHOICE)
    return _DECISION.get(kind, D_CHOICE)


class NeutralEntityObserver:
    """The v1 tables of a seat decision, for the card pool of `layout` (the format a policy
    was trained on)."""

    def __init__(self, layout: EntityLayout) -> None:
        self.layout = layout
        cardset = layout.flat.cardset
        self.cards: dict[str, CardDef] = {**cardset.tokens, **cardset.cards}
        self.ident = layout.flat.ident
        self.unknown = len(layout.card_names)  # the card embedding's unknown-card row
        # Where each action group of the flat layout starts (read once per candidate).
        self._a0 = {k: s.start for k, s in layout.flat.action_slices.items()}
        self._printed: dict[str, tuple[Any, ...]] = {}

    # ------------------------------------------------------------------ objects

    def _card(self, name: str) -> CardDef | None:
        return self.cards.get(name)

    def _abilities(self, name: str) -> tuple[Any, ...]:
        """A pool card's printed abilities, as the engine gives them (a basic land type's
        mana ability included, CR 305.6); none for a card we do not know."""
        hit = self._printed.get(name)
        if hit is None:
            cd = self._card(name)
            if cd is None:
                hit = ()
            else:
                land_types = [t for t in BASIC_LAND_TYPES if cd.types & LAND and t in cd.subtypes]
                hit = (*(INTRINSIC[t] for t in land_types), *cd.abilities)
            self._printed[name] = hit
        return hit

    def _row(self, rec: dict[str, Any], zone: int, viewer: str) -> tuple[list[int], int]:
        """An object record's row and its card index."""
        f = [0] * len(OBJECT_FIELDS)
        f[_O["zone"]] = zone
        name = rec["card_name"]
        cd = self._card(name)
        ch = rec.get("characteristics") or {}
        f[_O["types"]] = sum(TYPE_BITS.get(t, 0) for t in ch.get("types", ())) & 255
        f[_O["colors"]] = sum(COLOR_WORDS.get(c, 0) for c in ch.get("colors", ()))
        st = sum(SUPERTYPE_BITS.get(s, 0) for s in ch.get("supertypes", ()))
        f[_O["supertypes"]] = (1 if st & 1 else 0) | (2 if st & LEGENDARY else 0)
        mv = cd.mv if cd is not None else int(ch.get("mana_value") or 0)
        f[_O["mana_value"]] = min(255, max(0, mv))
        if ch.get("power") is not None:
            f[_O["has_pt"]] = 1
            f[_O["power"]] = min(255, max(0, int(ch["power"])))
            f[_O["toughness"]] = min(255, max(0, int(ch.get("toughness") or 0)))
        kw = 0
        for k in ch.get("keywords") or ():
            kw |= _KEYWORD_BIT.get(k, 0)
        f[_O["keywords0"]] = kw & 255
        f[_O["keywords1"]] = (kw >> 8) & 255
        f[_O["keywords2"]] = (kw >> 16) & 255
        f[_O["keywords3"]] = (kw >> 24) & 255
        ab = 0
        for a in self._abilities(name):
            ab |= ABILITY_BITS.get(type(a), 0)
        f[_O["abilities"]] = ab
        controller = rec["controller_seat"] if zone in (Z_BATTLEFIELD, Z_STACK) else None
        owner = rec["owner_seat"]
        f[_O["mine"]] = int((controller or owner) == viewer)
        f[_O["owned"]] = int(owner == viewer)
        flags = 1 if rec.get("token") else 0
        if zone == Z_BATTLEFIELD:
            if rec.get("copy"):
                flags |= 2
            if name == FACE_DOWN:
                flags |= 4
            if controller != owner:
                flags |= 8
        f[_O["flags"]] = flags
        if zone == Z_STACK:
            f[_O["stack_kind"]] = 1
        return f, self.ident.get(name, self.unknown)

    def _permanent(self, f: list[int], p: dict[str, Any], index: dict[str, int]) -> None:
        f[_O["tapped"]] = int(bool(p.get("tapped")))
        f[_O["sick"]] = int(bool(p.get("summoning_sick")))
        f[_O["attacking"]] = int(bool(p.get("attacking")))
        blocked = p.get("blocked_attackers") or ()
        if p.get("blocking") and blocked:
            f[_O["blocking"]] = _row_of(index, blocked[0]["object_id"])
        f[_O["damage"]] = min(255, int(p.get("damage") or 0))
        counters = p.get("counters") or {}
        f[_O["plus_counters"]] = min(255, int(counters.get("p1p1", 0)))
        f[_O["minus_counters"]] = min(255, int(counters.get("m1m1", 0)))
        attached = p.get("attached_to")
        if attached and "object" in attached:
            f[_O["attached_to"]] = _row_of(index, attached["object"]["object_id"])

    def _mana_abilities(self, rec: dict[str, Any]) -> tuple[Any, ...]:
        """A permanent's abilities for its mana: a land has the mana abilities of the basic
        land types it has now (CR 305.6, 305.7: an effect may change them), and its printed
        others."""
        printed = self._abilities(rec["card_name"])
        ch = rec.get("characteristics") or {}
        if "land" not in ch.get("types", ()):
            return printed
        now = set(ch.get("subtypes") or ())
        intrinsic = tuple(INTRINSIC[t] for t in BASIC_LAND_TYPES if normalize(t) in now)
        return (*intrinsic, *(a for a in printed if a not in _INTRINSIC))

    def _mana(self, player: dict[str, Any]) -> list[int]:
        """The player's mana sources usable now, per color they pay and colorless makers,
        as `mtg_env.env.spaces.mana_counts` counts the engine's."""
        counts = [0] * 6
        for rec in player.get("battlefield") or ():
            p = rec.get("permanent") or {}
            if p.get("tapped"):
                continue
            colors = free = 0
            for ab in self._mana_abilities(rec):
                if type(ab) is ManaAbility:
                    colors |= ab.produce & 31
                    if not ab.pain:
                        free |= ab.produce
            if not colors and not free:
                continue
            ch = rec.get("characteristics") or {}
            if (
                "creature" in ch.get("types", ())
                and "haste" not in (ch.get("keywords") or ())
                and p.get("summoning_sick")
            ):
                continue
            for b in SOURCE_COUNTS[(colors & 31) | (32 if free & 32 else 0)]:
                counts[b] += 1
        return counts

    # ------------------------------------------------------------------ the observation

    def observe(
        self,
        decision: dict[str, Any],
        declared: tuple[str, ...] = (),
        blocks: dict[str, str] | None = None,
        blocker: str | None = None,
    ) -> tuple[dict[str, np.ndarray], list[int]]:
        """The v1 observation of a seat decision (its `action_mask` marking the candidate
        rows) and the `candidate_id` of each row (-1: a move this decision does not pose).

        A `declare_attack` decision reads as the engine's declaration of attackers: "done"
        and an attack by each creature that can still attack (`attack_pool`), `declared`
        (object ids) counted as attacking already; the rows of the decision's own creature
        answer it, "done" its `null`. A `declare_block` decision reads as the engine's
        declaration of blockers: "done" and each creature that can still block
        (`block_pool`), `blocks` (blocker id -> attacker id) counted as declared already;
        with `blocker`, as the engine's next question, the attacker that creature blocks
        (`block_targets`). The decision's own creature's rows answer it."""
        obs, posed = self.rows(decision, declared, blocks, blocker)
        return obs, [cid for cid, _ in posed]

    def rows(
        self,
        decision: dict[str, Any],
        declared: tuple[str, ...] = (),
        blocks: dict[str, str] | None = None,
        blocker: str | None = None,
    ) -> tuple[dict[str, np.ndarray], list[tuple[int, dict[str, Any]]]]:
        """`observe`, with each row's (candidate id, semantic): the semantic says which
        move a row with no candidate (-1) stands for."""
        lim = self.layout.limits
        obs = decision["observation"]
        cands = decision["candidates"]
        viewer = decision["acting_seat"]
        me = SEATS.index(viewer)
        players = obs["players"]
        mine, theirs = players[me], players[1 - me]
        kind = decision_kind(cands)
        blocks = dict(blocks or {})
        if kind == D_BLOCKERS and blocker is not None:
            kind = D_BLOCK_TARGET
        stack = list(obs.get("stack") or ())
        source = cands[0]["semantic"].get("source")
        if (
            kind == D_TARGET
            and stack
            and source is not None
            and stack[-1]["object_id"] == source["object_id"]
            and stack[-1].get("stack_kind") != "spell"
        ):
            # An ability whose targets are being chosen: the protocol shows it on the stack
            # (it names it), the engine puts it there once its targets are chosen.
            stack.pop()
        keyed: list[tuple[int, dict[str, Any]]] = [(Z_HAND, r) for r in mine.get("hand") or ()]
        keyed += [(Z_STACK, r) for r in reversed(stack)]
        for zone, key in (
            (Z_BATTLEFIELD, "battlefield"),
            (Z_GRAVEYARD, "graveyard"),
            (Z_EXILE, "exile"),
        ):
            keyed += [(zone, r) for p in (mine, theirs) for r in p.get(key) or ()]
        keyed = keyed[: lim.objects]
        index: dict[str, int] = {}
        for i, (_, rec) in enumerate(keyed):
            index.setdefault(rec["object_id"], i)
        objs = np.zeros((lim.objects, len(OBJECT_FIELDS)), np.uint8)
        card = np.zeros(lim.objects, np.int16)
        omask = np.zeros(lim.objects, np.int8)
        for i, (zone, rec) in enumerate(keyed):
            stack_kind = _STACK_KIND.get(rec.get("stack_kind") or "spell", 1)
            if zone == Z_STACK and stack_kind != 1:
                f = [0] * len(OBJECT_FIELDS)
                f[_O["zone"]] = Z_STACK
                f[_O["stack_kind"]] = stack_kind
                f[_O["mine"]] = f[_O["owned"]] = int(rec["controller_seat"] == viewer)
                c = self.ident.get(rec["card_name"], self.unknown)
            else:
                f, c = self._row(rec, zone, viewer)
                if zone == Z_BATTLEFIELD and rec.get("permanent"):
                    self._permanent(f, rec["permanent"], index)
            if rec["object_id"] in declared:
                f[_O["attacking"]] = 1
            if rec["object_id"] in blocks:
                f[_O["blocking"]] = _row_of(index, blocks[rec["object_id"]])
            objs[i] = f
            card[i] = c
            omask[i] = 1

        gl = [0] * len(GLOBAL_FIELDS)
        pregame = obs["phase_step"] == "pregame"
        turn = int(obs["turn"])
        active = SEATS.index(obs["active_seat"])
        gl[_G["turn"]] = min(turn, 32767)
        gl[_G["step"]] = PREGAME + 1 if pregame else _STEP[obs["phase_step"]] + 1
        gl[_G["active_is_me"]] = int(active == me)
        starter = active if pregame or turn % 2 == 1 else 1 - active
        gl[_G["first_is_me"]] = int(starter == me)
        gl[_G["decision"]] = kind + 1
        for side, p in (("me", mine), ("opp", theirs)):
            gl[_G[f"life_{side}"]] = max(-32768, min(32767, int(p["life"])))
            gl[_G[f"hand_{side}"]] = int(p["hand_count"])
            gl[_G[f"library_{side}"]] = int(p["library_count"])
            gl[_G[f"graveyard_{side}"]] = len(p.get("graveyard") or ())
            gl[_G[f"mulligans_{side}"]] = int(p.get("mulligans_taken") or 0)
            for color, n in zip("WUBRGC", self._mana(p), strict=True):
                gl[_G[f"mana_{side}_{color}"]] = n
        gl[_G["land_played"]] = int(mine.get("lands_played_this_turn") or 0)
        gl[_G["stack_size"]] = len(stack)
        gl[_G["attackers"]] = len(declared) + sum(
            1
            for p in players
            for r in p.get("battlefield") or ()
            if (r.get("permanent") or {}).get("attacking") and r["object_id"] not in declared
        )
        if kind in (D_CHOICE, D_TRIGGER_ORDER):
            gl[_G["options"]] = len(cands)
        sem0 = cands[0]["semantic"]
        if kind == D_TARGET:
            gl[_G["source_row"]] = _ref_row(index, sem0.get("source"))
            gl[_G["target_index"]] = int(sem0.get("slot") or 0)
        elif (
            sem0["kind"] in ("choose_spell_mode", "choose_number")
            and sem0.get("purpose") in (None, "x_value")
        ) or (sem0["kind"] == "optional_cost" and sem0.get("cost") == "kicker"):
            # The spell being cast whose mode, X or kicker is announced (CR 601.2b).
            gl[_G["source_row"]] = _ref_row(index, sem0.get("source"))
        elif kind == D_BLOCK_TARGET:
            gl[_G["chosen_blocker_row"]] = _row_of(index, blocker or "")

        # One row per distinct engine move, in the order of the flat layout's action indices,
        # as `EntityLayout.candidates` gives them: two copies of a card in hand are one move
        # (the first copy), a move the flat layout has no index for is not offered.
        slots = self._slots(players, me, stack)
        if kind == D_ATTACKERS:
            cands = self._declaration(cands, attack_pool(decision, declared))
        elif kind == D_BLOCKERS:
            pool = block_pool(decision, blocks)
            done = [c for c in cands if c["semantic"].get("attacker") is None][:1] or [
                {"candidate_id": -1}
            ]
            # "Done" where the blocks so far are a legal declaration (menace, CR 702.111b).
            cands = (
                [{**done[0], "semantic": {"kind": "pass"}}]
                if blocks_legal(decision, blocks)
                else []
            )
            cands += [
                {"candidate_id": -1, "semantic": {"kind": "declare_blocker", "blocker": b}}
                for b in pool
            ]
        elif kind == D_BLOCK_TARGET:
            assert blocker is not None
            cands = self._block_targets(decision, cands, blocker, blocks)
        first: dict[int, tuple[int, dict[str, Any], int]] = {}
        for i, c in enumerate(cands):
            at = self._flat_index(c["semantic"], i, kind, slots, viewer)
            if at is None:
                continue
            if at < 0:
                at = self.layout.flat.n_actions + i  # a card we do not know: after the others
            first.setdefault(at, (i, c["semantic"], int(c["candidate_id"])))
        if not first:  # nothing the flat layout indexes: every candidate, as posed
            first = {i: (i, c["semantic"], int(c["candidate_id"])) for i, c in enumerate(cands)}
        rows: list[list[int]] = []
        posed: list[tuple[int, dict[str, Any]]] = []
        for at in sorted(first)[: lim.candidates]:
            i, sem, cid = first[at]
            rows.append(self._candidate(sem, i, index, viewer))
            posed.append((cid, sem))
        gl[_G["candidates"]] = len(rows)
        table = np.zeros((lim.candidates, len(CANDIDATE_FIELDS)), np.int16)
        amask = np.zeros(lim.candidates, np.int8)
        if rows:
            table[: len(rows)] = rows
            amask[: len(rows)] = 1
        return (
            {
                "global": np.array(gl, np.int16),
                "objects": objs,
                "object_card": card,
                "object_mask": omask,
                "candidates": table,
                "action_mask": amask,
            },
            posed,
        )

    # ------------------------------------------------------------------ candidates

    def _candidate(
        self, sem: dict[str, Any], position: int, index: dict[str, int], viewer: str
    ) -> list[int]:
        """The env's candidate row (kind + 1, source row, target row, player, option) of
        the engine action a candidate stands for."""
        kind = sem["kind"]
        row = [0] * len(CANDIDATE_FIELDS)
        if kind == "pass":
            row[0] = PASS + 1
        elif kind in ("play_land", "cast_spell"):
            row[0] = PLAY + 1
            row[1] = _ref_row(index, sem["source"])
            row[4] = int(sem.get("face") or 0)
        elif kind == "activate_ability":
            row[0] = ACTIVATE + 1
            src = sem["source"]
            if src["zone"] in ("battlefield", "hand"):
                row[1] = _ref_row(index, src)
            row[4] = self._ability_index(src["card_name"], int(sem["ability_index"]))
        elif kind == "choose_target":
            row[0] = TARGET + 1
            row[1] = _ref_row(index, sem.get("source"))
            _target(row, sem["target"], index, viewer)
        elif kind == "mulligan":
            row[0] = (KEEP if sem["keep"] else MULLIGAN) + 1
        elif kind == "order_pick" and sem.get("purpose") == "mulligan_bottom":
            row[0] = CARD + 1
            _target(row, sem["item"], index, viewer)
        elif kind == "select_object":
            row[0] = CARD + 1
            _target(row, sem["choice"], index, viewer)
        elif kind == "declare_attack":
            if sem.get("defender") is None:
                row[0] = PASS + 1
            else:
                row[0] = ATTACK + 1
                row[1] = _ref_row(index, sem["attacker"])
                row[3] = 2  # the opponent: the only player a creature attacks in a duel
        elif kind == "declare_blocker":
            row[0] = BLOCKER + 1
            row[1] = _ref_row(index, sem["blocker"])
        elif kind == "declare_block":
            if sem.get("attacker") is None:
                row[0] = PASS + 1
            else:
                row[0] = BLOCK + 1
                row[1] = _ref_row(index, sem["blocker"])
                row[2] = _ref_row(index, sem["attacker"])
        else:
            row[0] = CHOOSE + 1
            row[4] = self._option(sem, position)
        return row

    @staticmethod
    def _option(sem: dict[str, Any], position: int) -> int:
        """The engine's option index of a choice: a mode, X, yes/no, a payment, a name, an
        option or the trigger to put on the stack next by its position (the candidates come
        in the engine's order); a scry or surveil card by the card and where it goes."""
        if sem["kind"] == "arrange_card":
            return 2 * int(sem.get("card_index") or 0) + int(sem["destination"] != "top")
        return position

    @staticmethod
    def _declaration(
        cands: list[dict[str, Any]], pool: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        """The candidates of the engine's declaration of attackers: "done" (the decision's
        `null`, where it has one) and an attack by each creature of `pool`, the decision's
        own creature by its candidate, the others with no candidate (-1)."""
        sem0 = cands[0]["semantic"]
        own = sem0["attacker"]["object_id"]
        out = [c for c in cands if c["semantic"].get("defender") is None]
        attacks = {c["semantic"]["attacker"]["object_id"]: c for c in cands if c not in out}
        for ref in pool:
            c = attacks.get(ref["object_id"])
            if c is None and ref["object_id"] != own:
                sem = {"kind": "declare_attack", "attacker": ref, "defender": {"player": "?"}}
                c = {"candidate_id": -1, "semantic": sem}
            if c is not None:
                out.append(c)
        return out

    @staticmethod
    def _block_targets(
        decision: dict[str, Any],
        cands: list[dict[str, Any]],
        blocker: str,
        blocks: dict[str, str],
    ) -> list[dict[str, Any]]:
        """The attackers `blocker` may block: the decision's own candidates where it is
        the decision's creature, else as `block_targets` reads them."""
        if cands[0]["semantic"]["blocker"]["object_id"] == blocker:
            return [c for c in cands if c["semantic"].get("attacker") is not None]
        ref = next(r for r in block_pool(decision, blocks) if r["object_id"] == blocker)
        return [
            {
                "candidate_id": -1,
                "semantic": {"kind": "declare_block", "blocker": ref, "attacker": a},
            }
            for a in block_targets(decision, blocker)
        ]

    @staticmethod
    def _slots(
        players: list[dict[str, Any]], me: int, stack: list[dict[str, Any]]
    ) -> tuple[dict[str, int], dict[str, int], dict[str, int]]:
        """The flat layout's permanent slots (each side's battlefield order) and the stack
        positions of spells (0: the top), by object id."""
        own = {r["object_id"]: i for i, r in enumerate(players[me].get("battlefield") or ())}
        opp = {r["object_id"]: i for i, r in enumerate(players[1 - me].get("battlefield") or ())}
        on_stack = {
            r["object_id"]: i
            for i, r in enumerate(reversed(stack))
            if (r.get("stack_kind") or "spell") == "spell"
        }
        return own, opp, on_stack

    def _flat_index(
        self,
        sem: dict[str, Any],
        position: int,
        kind: int,
        slots: tuple[dict[str, int], dict[str, int], dict[str, int]],
        viewer: str,
    ) -> int | None:
        """The flat layout's action index of the engine move a candidate stands for
        (`Layout.action_index`): -1 for a card we do not know, None for a move the layout
        has no index for."""
        a0 = self._a0
        lim = self.layout.flat.limits
        own, opp, on_stack = slots
        ident = self.ident
        k = sem["kind"]

        def card(base: str, name: str) -> int:
            i = ident.get(name)
            return -1 if i is None else a0[base] + i

        def slot(base: str, table: dict[str, int], ref: dict[str, Any]) -> int | None:
            s = table.get(ref["object_id"])
            return None if s is None else a0[base] + s

        def target(t: dict[str, Any]) -> int | None:
            if "player" in t:
                return a0["target_player"] + (0 if t["player"] == viewer else 1)
            ref = t["object"]
            zone = ref["zone"]
            if zone == "battlefield":
                if ref["object_id"] in own:
                    return slot("object_own", own, ref)
                return slot("object_opp", opp, ref)
            if zone == "stack":
                return slot("target_stack", on_stack, ref)
            if zone == "graveyard":
                side = "own" if ref["owner_seat"] == viewer else "opp"
                return card(f"target_graveyard_{side}", ref["card_name"])
            if zone == "hand" and kind != D_SELECT:
                return card("hand_card", ref["card_name"])
            return None

        if k == "pass":
            return a0["pass"]
        if k == "mulligan":
            return a0["keep"] if sem["keep"] else a0["mulligan"]
        if k in ("play_land", "cast_spell"):
            return card("play", sem["source"]["card_name"])
        if k == "activate_ability":
            src = sem["source"]
            if src["zone"] == "hand":
                return card("hand_card", src["card_name"])
            j = self._ability_index(src["card_name"], int(sem["ability_index"]))
            s = own.get(src["object_id"])
            if s is None or j >= lim.abilities:
                return None
            return a0["activate"] + s * lim.abilities + j
        if k == "choose_target":
            return target(sem["target"])
        if k == "order_pick" and sem.get("purpose") == "mulligan_bottom":
            return target(sem["item"])
        if k == "select_object":
            return target(sem["choice"])
        if k == "declare_attack":
            if sem.get("defender") is None:
                return a0["pass"]
            return slot("attack", own, sem["attacker"])
        if k == "declare_block":
            if sem.get("attacker") is None:
                return a0["pass"]
            return slot("block", opp, sem["attacker"])
        if k == "declare_blocker":
            return slot("blocker", own, sem["blocker"])
        # A choice by its index (the candidates in the engine's order).
        option = self._option(sem, position)
        return a0["choose"] + option if option < lim.options else None

    def _ability_index(self, name: str, theirs: int) -> int:
        """Our `ACTIVATE` index of the spec's `ability_index`, from the printed card."""
        ours = activated_indices(self._abilities(name))
        return ours[theirs] if 0 <= theirs < len(ours) else theirs


def attack_pool(decision: dict[str, Any], declared: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """The creatures of the acting seat that can still attack, as the engine lists them
    (battlefield order; CR 508.1a): untapped, not attacking, not declared, without
    defender, and not summoning sick unless they have haste. An effect that forbids one to
    attack is not in the neutral view: such a creature is listed."""
    viewer = decision["acting_seat"]
    me = SEATS.index(viewer)
    out = []
    for rec in decision["observation"]["players"][me].get("battlefield") or ():
        ch = rec.get("characteristics") or {}
        p = rec.get("permanent") or {}
        keywords = ch.get("keywords") or ()
        if (
            "creature" in ch.get("types", ())
            and rec["controller_seat"] == viewer
            and not p.get("tapped")
            and not p.get("attacking")
            and rec["object_id"] not in declared
            and "defender" not in keywords
            and not (p.get("summoning_sick") and "haste" not in keywords)
        ):
            out.append(_ref(rec))
    return out


def _records(decision: dict[str, Any], seat: int) -> list[dict[str, Any]]:
    return list(decision["observation"]["players"][seat].get("battlefield") or ())


def _ref(rec: dict[str, Any]) -> dict[str, Any]:
    return {k: rec[k] for k in REF}


def block_targets(decision: dict[str, Any], blocker: str) -> list[dict[str, Any]]:
    """The attackers creature `blocker` may block, as far as the neutral view tells
    (CR 509.1b): flying and reach, landwalk, protection from a color. An effect that
    forbids a block is not in it, nor is menace's need of a second blocker."""
    me = SEATS.index(decision["acting_seat"])
    mine = _records(decision, me)
    rec = next(r for r in mine if r["object_id"] == blocker)
    bch = rec.get("characteristics") or {}
    bkw = set(bch.get("keywords") or ())
    colors = set(bch.get("colors") or ())
    land_types = {
        t
        for r in mine
        if "land" in (r.get("characteristics") or {}).get("types", ())
        for t in (r.get("characteristics") or {}).get("subtypes", ())
    }
    out = []
    for a in _records(decision, 1 - me):
        if not (a.get("permanent") or {}).get("attacking"):
            continue
        akw = set((a.get("characteristics") or {}).get("keywords") or ())
        if "flying" in akw and not bkw & {"flying", "reach"}:
            continue
        if any(k.endswith("walk") and k[: -len("walk")] in land_types for k in akw):
            continue
        if any(f"protection_from_{c}" in akw for c in colors):
            continue
        out.append(_ref(a))
    return out


def blocks_legal(decision: dict[str, Any], blocks: dict[str, str]) -> bool:
    """Whether the blocks declared so far (those of the observation and `blocks`) may be
    the whole declaration: no attacker with menace has exactly one blocker."""
    me = SEATS.index(decision["acting_seat"])
    count: dict[str, int] = {}
    for rec in _records(decision, me):
        p = rec.get("permanent") or {}
        for a in p.get("blocked_attackers") or ():
            if rec["object_id"] not in blocks:
                count[a["object_id"]] = count.get(a["object_id"], 0) + 1
    for a in blocks.values():
        count[a] = count.get(a, 0) + 1
    return not any(
        count.get(a["object_id"]) == 1
        and "menace" in ((a.get("characteristics") or {}).get("keywords") or ())
        for a in _records(decision, 1 - me)
    )


def block_pool(
    decision: dict[str, Any], blocks: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    """The acting seat's creatures that can still block, as the engine lists them
    (battlefield order; CR 509.1a): untapped, not blocking, not in `blocks`, and able to
    block an attacker (`block_targets`)."""
    blocks = blocks or {}
    me = SEATS.index(decision["acting_seat"])
    out = []
    for rec in _records(decision, me):
        ch = rec.get("characteristics") or {}
        p = rec.get("permanent") or {}
        if (
            "creature" in ch.get("types", ())
            and not p.get("tapped")
            and not p.get("blocking")
            and rec["object_id"] not in blocks
            and block_targets(decision, rec["object_id"])
        ):
            out.append(_ref(rec))
    return out


def _row_of(index: dict[str, int], object_id: str) -> int:
    r = index.get(object_id)
    return 0 if r is None else r + 1


def _ref_row(index: dict[str, int], ref: dict[str, Any] | None) -> int:
    return 0 if ref is None else _row_of(index, ref["object_id"])


def _target(row: list[int], target: dict[str, Any], index: dict[str, int], viewer: str) -> None:
    if "player" in target:
        row[3] = 1 if target["player"] == viewer else 2
    else:
        row[2] = _ref_row(index, target["object"])
