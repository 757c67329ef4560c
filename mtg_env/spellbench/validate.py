"""The host's live validation (the spec's Section 11.3) of an observation: every rule it can
check from the observation alone, each violation one line naming its rule and where.

`check_observation(obs, acting_seat, flags)` returns the violations (an empty list: valid):

- V1 schema: exactly the fields of Sections 6.2 to 6.5, each of its type and range (u32,
  i32), vocabulary values (phase steps, zones, types, colors in order, stack kinds), both
  players in seat order, the mana pool's six symbols;
- V2 seat: `viewer` is the acting seat;
- V4 references: object ids are unique, and every reference to another object of the
  observation (attachments, blocked attackers, stack sources and targets) equals, field
  for field, the record with that id;
- V5 hidden zones: the other seat's hand is `null`, the viewer's has `hand_count`
  records, no zone array holds a library object, `known` entries have their shape and
  order;
- V6 face-down: a face-down object on the battlefield or the stack that the viewer does
  not control shows no name;
- V8 declarations: an optional field (Section 6.9) is non-null only if its flag is on.

The decision's candidates, context, counters and id freshness across a stream (V1 for
candidates, V3, V7, V9) come with the engine role.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

SEATS = ("p0", "p1")
U32 = (0, 2**32 - 1)
I32 = (-(2**31), 2**31 - 1)
PHASE_STEPS = {
    "pregame", "untap", "upkeep", "draw", "precombat_main", "beginning_of_combat",
    "declare_attackers", "declare_blockers", "combat_damage", "end_of_combat",
    "postcombat_main", "end_step", "cleanup",
}  # fmt: skip
ZONES = {"library", "hand", "battlefield", "graveyard", "stack", "exile", "command"}
SUPERTYPES = {"basic", "legendary", "ongoing", "snow", "world"}
TYPES = {
    "artifact", "battle", "conspiracy", "creature", "dungeon", "enchantment", "instant",
    "kindred", "land", "phenomenon", "plane", "planeswalker", "scheme", "sorcery", "vanguard",
}  # fmt: skip
COLORS = ("white", "blue", "black", "red", "green")
REF = ("object_id", "card_name", "owner_seat", "controller_seat", "zone")
GAME_FIELDS = {
    "viewer", "turn", "phase_step", "active_seat", "priority_seat", "passed_seats",
    "day_night", "players", "stack", "pending_triggers", "known",
}  # fmt: skip
PLAYER_FIELDS = {
    "seat", "life", "poison", "counters", "mana_pool", "lands_played_this_turn",
    "mulligans_taken", "designations", "progress", "hand_count", "library_count", "hand",
    "battlefield", "graveyard", "exile", "command",
}  # fmt: skip
RECORD_FIELDS = {*REF, "full_name", "face_down", "token", "copy", "characteristics"}
RECORD_FIELDS |= {"permanent", "exiled_by"}
CHAR_FIELDS = {
    "supertypes", "types", "subtypes", "colors", "mana_value", "power", "toughness", "keywords",
}  # fmt: skip
PERMANENT_FIELDS = {
    "tapped", "summoning_sick", "damage", "counters", "attached_to", "attacking",
    "attack_target", "blocking", "blocked_attackers", "phased_out", "statuses",
    "class_level", "chosen",
}  # fmt: skip
STACK_FIELDS = {*REF, "stack_kind", "source", "face_down", "copy", "characteristics"}
STACK_FIELDS |= {"targets", "divided", "modes", "x_value", "text"}
STACK_KINDS = {"spell", "activated_ability", "triggered_ability"}
KNOWN_FIELDS = {
    "owner_seat", "zone", "card_name", "object_id", "position_from_top",
    "position_from_bottom", "how",
}  # fmt: skip
HOW = {"revealed", "looked_at", "from_public_zone", "own_placement", "searching", "tracked"}
# Optional fields (Section 6.9): the flag, and where the field is (a path reader).
FLAGGED_PLAYER = {"poison": "poison", "counters": "player_counters"}
FLAGGED_PLAYER |= {"designations": "designations", "progress": "player_progress"}
FLAGGED_PERMANENT = {"statuses": "permanent_details", "class_level": "permanent_details"}
FLAGGED_PERMANENT |= {"chosen": "permanent_details"}


class _Check:
    def __init__(self, obs: dict[str, Any], acting_seat: str, flags: dict[str, bool]) -> None:
        self.obs, self.seat, self.flags = obs, acting_seat, flags
        self.out: list[str] = []

    def bad(self, rule: str, where: str, what: str) -> None:
        self.out.append(f"{rule} {where}: {what}")

    # -------------------------------------------------------------- V1 helpers

    def fields(self, value: Any, want: set[str], where: str) -> bool:
        if not isinstance(value, dict):
            self.bad("V1", where, "not an object")
            return False
        if missing := sorted(want - set(value)):
            self.bad("V1", where, f"missing {', '.join(missing)}")
        if extra := sorted(set(value) - want):
            self.bad("V1", where, f"unknown {', '.join(extra)}")
        return not (want - set(value))

    def int_in(self, value: Any, bounds: tuple[int, int], where: str, null: bool = False) -> None:
        if value is None and null:
            return
        if not isinstance(value, int) or isinstance(value, bool):
            self.bad("V1", where, f"{value!r} is not an integer")
        elif not bounds[0] <= value <= bounds[1]:
            self.bad("V1", where, f"{value} is out of range")

    def one_of(self, value: Any, allowed: Any, where: str, null: bool = False) -> None:
        if value is None and null:
            return
        if value not in allowed:
            self.bad("V1", where, f"{value!r} is not one of the allowed values")

    def boolean(self, value: Any, where: str) -> None:
        if not isinstance(value, bool):
            self.bad("V1", where, f"{value!r} is not a boolean")

    def flagged(self, value: Any, flag: str, where: str) -> None:
        if value is not None and not self.flags.get(flag, False):
            self.bad("V8", where, f"non-null with the {flag} flag off")

    # -------------------------------------------------------------- records

    def ref(self, value: Any, where: str) -> None:
        if not self.fields(value, set(REF), where):
            return
        if not isinstance(value["object_id"], str) or not value["object_id"]:
            self.bad("V1", where + ".object_id", "not a nonempty string")
        if value["card_name"] is not None and not isinstance(value["card_name"], str):
            self.bad("V1", where + ".card_name", "not a string or null")
        self.one_of(value["owner_seat"], SEATS, where + ".owner_seat")
        self.one_of(value["controller_seat"], SEATS, where + ".controller_seat")
        self.one_of(value["zone"], ZONES, where + ".zone")

    def target(self, value: Any, where: str, null: bool) -> None:
        if value is None and null:
            return
        if isinstance(value, dict) and set(value) == {"player"}:
            self.one_of(value["player"], SEATS, where + ".player")
        elif isinstance(value, dict) and set(value) == {"object"}:
            self.ref(value["object"], where + ".object")
        else:
            self.bad("V1", where, "not a target reference")

    def characteristics(self, ch: Any, where: str) -> None:
        if not self.fields(ch, CHAR_FIELDS, where):
            return
        for key, vocab in (("supertypes", SUPERTYPES), ("types", TYPES)):
            if not isinstance(ch[key], list) or not set(ch[key]) <= vocab:
                self.bad("V1", f"{where}.{key}", f"{ch[key]!r} outside the vocabulary")
        if not isinstance(ch["subtypes"], list):
            self.bad("V1", where + ".subtypes", "not an array")
        if (
            not isinstance(ch["colors"], list)
            or ch["colors"] != [c for c in COLORS if c in ch["colors"]]
            or len(set(ch["colors"])) != len(ch["colors"])
        ):
            self.bad("V1", where + ".colors", f"{ch['colors']!r}: not colors in order")
        self.int_in(ch["mana_value"], U32, where + ".mana_value")
        creature = isinstance(ch["types"], list) and "creature" in ch["types"]
        for k in ("power", "toughness"):
            self.int_in(ch[k], I32, f"{where}.{k}", null=True)
            if not creature and ch[k] is not None:
                self.bad("V1", f"{where}.{k}", "set on a non-creature")
        self.flagged(ch["keywords"], "keywords", where + ".keywords")

    def record(self, r: Any, where: str) -> None:
        if not self.fields(r, RECORD_FIELDS, where):
            return
        self.ref({k: r[k] for k in REF}, where)
        for k in ("face_down", "token", "copy"):
            self.boolean(r[k], f"{where}.{k}")
        self.flagged(r["full_name"], "full_name", where + ".full_name")
        self.flagged(r["exiled_by"], "exiled_by", where + ".exiled_by")
        if r["characteristics"] is not None:
            self.characteristics(r["characteristics"], where + ".characteristics")
        on_battlefield = r["zone"] == "battlefield"
        if (r["permanent"] is not None) != on_battlefield:
            self.bad("V1", where + ".permanent", "non-null exactly on the battlefield")
        if r["permanent"] is not None:
            self.permanent(r["permanent"], where + ".permanent")
        self.face_down(r, where)

    def permanent(self, p: Any, where: str) -> None:
        if not self.fields(p, PERMANENT_FIELDS, where):
            return
        for k in ("tapped", "summoning_sick", "attacking", "blocking", "phased_out"):
            self.boolean(p[k], f"{where}.{k}")
        self.int_in(p["damage"], U32, where + ".damage")
        if not isinstance(p["counters"], dict):
            self.bad("V1", where + ".counters", "not an object")
        else:
            for k, n in p["counters"].items():
                self.int_in(n, U32, f"{where}.counters.{k}")
        self.target(p["attached_to"], where + ".attached_to", null=True)
        self.target(p["attack_target"], where + ".attack_target", null=True)
        if p["attack_target"] is not None and not p["attacking"]:
            self.bad("V1", where + ".attack_target", "set on a creature that is not attacking")
        if not isinstance(p["blocked_attackers"], list):
            self.bad("V1", where + ".blocked_attackers", "not an array")
        else:
            for i, a in enumerate(p["blocked_attackers"]):
                self.ref(a, f"{where}.blocked_attackers[{i}]")
        for k, flag in FLAGGED_PERMANENT.items():
            self.flagged(p[k], flag, f"{where}.{k}")

    def stack_entry(self, s: Any, where: str) -> None:
        if not self.fields(s, STACK_FIELDS, where):
            return
        self.ref({k: s[k] for k in REF}, where)
        if s["zone"] != "stack":
            self.bad("V1", where + ".zone", "a stack entry not in the stack zone")
        self.one_of(s["stack_kind"], STACK_KINDS, where + ".stack_kind")
        if s["source"] is not None:
            self.ref(s["source"], where + ".source")
        for k in ("face_down", "copy"):
            self.boolean(s[k], f"{where}.{k}")
        if s["characteristics"] is not None:
            if s["stack_kind"] != "spell":
                self.bad("V1", where + ".characteristics", "set on an ability")
            self.characteristics(s["characteristics"], where + ".characteristics")
        if not isinstance(s["targets"], list):
            self.bad("V1", where + ".targets", "not an array")
        else:
            for i, t in enumerate(s["targets"]):
                self.target(t, f"{where}.targets[{i}]", null=True)
        self.int_in(s["x_value"], U32, where + ".x_value", null=True)
        self.flagged(s["text"], "stack_text", where + ".text")
        self.face_down(s, where)

    def face_down(self, r: dict[str, Any], where: str) -> None:
        if (
            r.get("face_down") is True
            and r["zone"] in ("battlefield", "stack")
            and r["controller_seat"] != self.seat
            and (r["card_name"] is not None or r.get("full_name") is not None)
        ):
            self.bad("V6", where, "a face-down object the viewer does not control is named")

    # -------------------------------------------------------------- the observation

    def run(self) -> list[str]:
        o = self.obs
        if not self.fields(o, GAME_FIELDS, "observation"):
            return self.out
        if o["viewer"] != self.seat:
            self.bad("V2", "observation.viewer", f"{o['viewer']!r} is not the acting seat")
        self.int_in(o["turn"], (0, 2**53 - 1), "observation.turn")
        self.one_of(o["phase_step"], PHASE_STEPS, "observation.phase_step")
        self.one_of(o["active_seat"], SEATS, "observation.active_seat", null=True)
        self.one_of(o["priority_seat"], SEATS, "observation.priority_seat", null=True)
        for k, flag in (("passed_seats", "passed_seats"), ("day_night", "day_night")):
            self.flagged(o[k], flag, f"observation.{k}")
        self.flagged(o["pending_triggers"], "pending_triggers", "observation.pending_triggers")
        players = o["players"]
        if not isinstance(players, list) or len(players) != 2:
            self.bad("V1", "observation.players", "not two players")
            return self.out
        for i, p in enumerate(players):
            self.player(p, i, f"players[{i}]")
        if not isinstance(o["stack"], list):
            self.bad("V1", "observation.stack", "not an array")
        else:
            for i, s in enumerate(o["stack"]):
                self.stack_entry(s, f"stack[{i}]")
        self.known(o["known"])
        if not self.out:  # references are compared once every record is well formed
            self.references()
        return self.out

    def player(self, p: Any, i: int, where: str) -> None:
        if not self.fields(p, PLAYER_FIELDS, where):
            return
        if p["seat"] != SEATS[i]:
            self.bad("V1", where + ".seat", f"{p['seat']!r}: players are p0 then p1")
        self.int_in(p["life"], I32, where + ".life")
        for k in ("lands_played_this_turn", "mulligans_taken", "hand_count", "library_count"):
            self.int_in(p[k], U32, f"{where}.{k}")
        pool = p["mana_pool"]
        if not isinstance(pool, dict) or set(pool) != set("WUBRGC"):
            self.bad("V1", where + ".mana_pool", "not exactly W, U, B, R, G, C")
        else:
            for k, n in pool.items():
                self.int_in(n, U32, f"{where}.mana_pool.{k}")
        for k, flag in FLAGGED_PLAYER.items():
            self.flagged(p[k], flag, f"{where}.{k}")
        if p["seat"] != self.seat:
            if p["hand"] is not None:
                self.bad("V5", where + ".hand", "the other seat's hand is shown")
        elif not isinstance(p["hand"], list) or len(p["hand"]) != p["hand_count"]:
            self.bad("V5", where + ".hand", "the viewer's hand is not hand_count records")
        for zone in ("hand", "battlefield", "graveyard", "exile", "command"):
            records = p[zone]
            if records is None and zone == "hand":
                continue
            if not isinstance(records, list):
                self.bad("V1", f"{where}.{zone}", "not an array")
                continue
            for j, r in enumerate(records):
                self.record(r, f"{where}.{zone}[{j}]")
                if isinstance(r, dict) and r.get("zone") == "library":
                    self.bad("V5", f"{where}.{zone}[{j}]", "a library object in a zone array")

    def known(self, known: Any) -> None:
        if not isinstance(known, list):
            self.bad("V1", "observation.known", "not an array")
            return
        keys = []
        for i, k in enumerate(known):
            where = f"known[{i}]"
            if not self.fields(k, KNOWN_FIELDS, where):
                continue
            self.one_of(k["owner_seat"], SEATS, where + ".owner_seat")
            self.one_of(k["zone"], ("hand", "library"), where + ".zone")
            self.one_of(k["how"], HOW, where + ".how")
            if k["zone"] == "hand" and k["owner_seat"] == self.seat:
                self.bad("V5", where, "the viewer's own hand is listed")
            keys.append(
                tuple(
                    (v is not None, v)
                    for v in (
                        k["owner_seat"],
                        k["zone"],
                        k["card_name"],
                        k["position_from_top"],
                        k["position_from_bottom"],
                        k["how"],
                        k["object_id"],
                    )  # fmt: skip
                )
            )
        if keys != sorted(keys):
            self.bad("V5", "observation.known", "entries out of the spec's order")

    def references(self) -> None:
        records: dict[str, dict[str, Any]] = {}
        for where, r in self._records():
            oid = r["object_id"]
            if oid in records:
                self.bad("V4", where, f"object id {oid} appears twice")
            records[oid] = r
        for where, ref in self._refs():
            have = records.get(ref["object_id"])
            if have is None:
                self.bad("V4", where, f"{ref['object_id']} names no object of the observation")
            elif {k: have[k] for k in REF} != ref:
                self.bad("V4", where, "differs from the record it names")

    def _records(self) -> Iterator[tuple[str, dict[str, Any]]]:
        for i, p in enumerate(self.obs["players"]):
            for zone in ("hand", "battlefield", "graveyard", "exile", "command"):
                for j, r in enumerate(p[zone] or []):
                    yield f"players[{i}].{zone}[{j}]", r
        for i, s in enumerate(self.obs["stack"]):
            yield f"stack[{i}]", s

    def _refs(self) -> Iterator[tuple[str, dict[str, Any]]]:
        for i, p in enumerate(self.obs["players"]):
            for j, r in enumerate(p["battlefield"]):
                where = f"players[{i}].battlefield[{j}].permanent"
                perm = r["permanent"]
                for key in ("attached_to", "attack_target"):
                    t = perm[key]
                    if t is not None and "object" in t:
                        yield f"{where}.{key}", t["object"]
                for k, a in enumerate(perm["blocked_attackers"]):
                    yield f"{where}.blocked_attackers[{k}]", a
        for i, s in enumerate(self.obs["stack"]):
            if s["source"] is not None:
                yield f"stack[{i}].source", s["source"]
            for k, t in enumerate(s["targets"]):
                if t is not None and "object" in t:
                    yield f"stack[{i}].targets[{k}]", t["object"]


def check_observation(obs: Any, acting_seat: str, flags: dict[str, bool]) -> list[str]:
    """The violations of Section 11.3's rules in one observation (none: valid)."""
    return _Check(obs, acting_seat, flags).run()
