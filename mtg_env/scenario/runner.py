"""A checked scenario run: the position built (`build`), the script played step by step
(`Runner`, `run_steps`), the expectations compared (`run_scenario`), a puzzle's goal and
its winning line (`goal_status`, `check_solution`). Every loop that passes is bounded, so
no scenario runs forever."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..engine import (
    ATTACK,
    BLOCK,
    BLOCKER,
    CARD,
    CHOOSE,
    KEEP,
    MULLIGAN,
    PASS,
    PLAY,
    Action,
    Game,
    IllegalActionError,
)
from ..engine.constants import (
    ACTIVATE,
    BATTLEFIELD,
    COLOR_LETTERS,
    D_ATTACKERS,
    D_BLOCKERS,
    D_BOTTOM,
    D_CHOICE,
    D_DISCARD,
    D_MULLIGAN,
    D_PRIORITY,
    D_SELECT,
    D_TARGET,
    D_TRIGGER_ORDER,
    DECISION_NAMES,
    DECLARE_ATTACKERS,
    DECLARE_BLOCKERS,
    MAIN1,
    SUPERTYPE_NAMES,
    TYPE_NAMES,
    ZONE_BY_NAME,
    ZONE_NAMES,
    player_ref,
)
from ..engine.decisions import Announce
from ..engine.formats import rules_for
from ..engine.formats.adventure import AdventureState
from ..engine.mana import mana_symbols
from .schema import (
    HALVES,
    MAX_AUTO_DECISIONS,
    GoalModel,
    Result,
    Scenario,
    ScenarioError,
    ScenarioFailure,
    StackEntryModel,
)


def build(sc: Scenario, auto_pass: bool = False) -> tuple[Game, dict[str, int]]:
    m = sc.model
    players = []
    rules = rules_for(m.format)
    for pm in m.setup.players:
        d: dict[str, Any] = {"life": rules.starting_life if pm.life is None else pm.life}
        if pm.mana is not None:
            d["mana"] = pm.mana
        if pm.mana_max is not None:
            d["mana_max"] = pm.mana_max
        for z in ("hand", "library", "graveyard", "exile", "battlefield"):
            d[z] = [
                e if isinstance(e, str) else e.model_dump(exclude_none=True) for e in getattr(pm, z)
            ]
        players.append(d)
    try:
        g, labels = Game.setup(
            players,
            format=m.format,
            seed=m.setup.seed,
            turn=m.setup.turn,
            active=m.setup.active,
            step=rules.step_by_name(m.setup.step or rules.step_name(MAIN1)),
            stack=[_stack_entry(e) for e in m.setup.stack],
        )
    except ValueError as e:
        raise ScenarioError(f"{sc.path}: setup: {e}") from None
    for p, pm in enumerate(m.setup.players):
        if pm.poison:
            if g.poison is None:
                raise ScenarioError(
                    f"{sc.path}: setup: players[{p}]: field poison: the {m.format} card set "
                    "has no card with infect or toxic, so its games keep no poison counters"
                )
            g.poison[p] = pm.poison
    return g, labels


def _stack_entry(e: StackEntryModel) -> dict[str, Any]:
    """A stack entry of the setup as `Game.setup` takes it (a player target is its seat)."""
    d = e.model_dump(exclude_none=True)
    d["targets"] = [{"player0": 0, "player1": 1}.get(t, t) for t in e.targets]
    return d


class Runner:
    """Runs one scenario's script against a game."""

    def __init__(self, game: Game, labels: dict[str, int]) -> None:
        self.g = game
        self.labels = labels

    # ----------------------------------------------------------------- lookups

    def obj(self, x: Any, zone: int | None = None, seat: int | None = None) -> int:
        g = self.g
        if isinstance(x, str) and x in self.labels:
            return self.labels[x]
        if isinstance(x, str) and x.startswith("player") and x[6:] in ("0", "1"):
            return player_ref(int(x[6:]))
        found = [
            c
            for c in range(len(g.cdef))
            if g.cdef[c].name == x
            and g.zone[c] != 6
            and (zone is None or g.zone[c] == zone)
            and (seat is None or g.owner[c] == seat)
        ]
        if not found:
            where = f" in {ZONE_NAMES[zone]}" if zone is not None else ""
            raise ScenarioFailure(f"no object {x!r}{where}")
        if len(found) > 1 and zone is None:
            on_bf = [c for c in found if g.zone[c] == BATTLEFIELD]
            if len(on_bf) == 1:
                return on_bf[0]
            raise ScenarioFailure(f"{x!r} is ambiguous ({len(found)} objects): give it an id")
        return found[0]

    def name_of(self, c: int) -> str:
        """An object's name: on the battlefield as its characteristics say (a Clone copying
        Hill Giant is named Hill Giant), elsewhere the card's name."""
        g = self.g
        return g.chars(c).name if g.zone[c] == BATTLEFIELD else g.cdef[c].name

    def pick(self, x: Any, legal: list[Action], what: str) -> Action:
        """The legal action whose object is `x`: a label or player ref; a card name picks
        the first legal object of that name (so unlabelled tokens can be named)."""
        if isinstance(x, str) and (x in self.labels or x in ("player0", "player1")):
            ref = self.obj(x)
            for a in legal:
                if a.obj == ref:
                    return a
            raise IllegalActionError(f"{x!r} is not {what}")
        for a in legal:
            if a.obj >= 0 and self.name_of(a.obj) == x:
                return a
        self.obj(x)  # raises "no object" if it doesn't exist at all
        raise IllegalActionError(f"{x!r} is not {what}")

    def choice_action(self, c: Any) -> Action:
        """The action answering the pending decision with script value `c`."""
        g = self.g
        d = g.decision
        if d is None:
            raise ScenarioFailure(f"choose {c!r}: no decision is pending")
        legal = g.legal_actions()
        if d.kind == D_TARGET:
            return self.pick(c, legal, "a legal target")
        if d.kind in (D_CHOICE, D_TRIGGER_ORDER):
            if isinstance(c, bool):
                c = "yes" if c else "no"
            if isinstance(c, int):
                return Action(CHOOSE, 0, c)
            for i, opt in enumerate(d.options):
                if (
                    opt == str(c)
                    or opt.lower() == str(c).lower()
                    or opt.startswith(f"{c}:")
                    or (
                        str(c).lower() in ("yes", "pay")
                        and i == 0
                        and len(d.options) == 2
                        and opt.lower().startswith("pay")
                    )
                    or (
                        str(c).lower() in ("no",)
                        and i == 1
                        and len(d.options) == 2
                        and d.options[0].lower().startswith("pay")
                    )
                ):
                    return Action(CHOOSE, 0, i)
            raise ScenarioFailure(f"{c!r} is not an option (options: {list(d.options)})")
        if d.kind in (D_SELECT, D_DISCARD, D_BOTTOM):
            if isinstance(c, str) and c in self.labels:
                return Action(CARD, self.labels[c])
            for a in legal:
                if g.cdef[a.obj].name == c:
                    return a
            raise IllegalActionError(f"{c!r} is not among the choices")
        if d.kind == D_MULLIGAN:
            return Action(KEEP) if str(c).lower() == "keep" else Action(MULLIGAN)
        raise ScenarioFailure(f"choose {c!r}: pending decision is {DECISION_NAMES[d.kind]}")

    def _apply(self, g: Game, a: Action, player: int | None) -> None:
        if player is not None and g.current_player != player:
            raise IllegalActionError(
                f"player {player} has no decision now (player {g.current_player} decides)"
            )
        g.apply(a)

    # ----------------------------------------------------------------- steps

    def action_step(self, step: dict[str, Any]) -> None:
        """Apply an action step atomically: on a clone, then commit (so that a rejected
        action, expected or not, leaves the game unchanged)."""
        saved = self.g
        self.g = saved.clone()
        try:
            self._action_step(step)
        except BaseException:
            self.g = saved
            raise

    def _action_step(self, step: dict[str, Any]) -> None:
        p = step.get("player")
        g = self.g
        if "play" in step:
            cid = self.obj(step["play"], zone=1, seat=p)
            half = HALVES[step.get("half", "top")]
            self._apply(g, Action(PLAY, cid, half), p)
            # Announcements as the spell is cast (CR 601.2b): its mode, its kicker, then X.
            for key, value in (
                ("mode", step.get("mode")),
                ("kicker", step.get("kicker")),
                ("x", step.get("x")),
            ):
                if value is None:
                    continue
                d = g.decision
                ctx = g.ctx
                if key == "kicker":
                    # 702.33a: the kicker is asked only when it can be paid with the rest.
                    asked = d is not None and isinstance(ctx, Announce) and ctx.what == key
                    if not asked and value:
                        raise IllegalActionError(
                            f"the kicker cost of {g.name(cid)} can't be paid (or it has none)"
                        )
                    if asked:
                        assert isinstance(ctx, Announce)
                        self._apply(g, Action(CHOOSE, 0, ctx.choices.index(int(value))), p)
                    continue
                if d is None or not isinstance(ctx, Announce) or ctx.what != key:
                    raise ScenarioFailure(f"{key} {value!r} given but no {key} is announced")
                # X by its value; a mode by its text, or the start of it ("Destroy target
                # artifact"). One not offered is an illegal announcement (expect_error).
                want = f"x = {value}" if key == "x" else value.lower()
                hits = [i for i, o in enumerate(d.options) if o.lower().startswith(want)]
                if key == "x":
                    hits = [i for i in hits if d.options[i].lower() == want]
                if len(hits) > 1:
                    raise ScenarioFailure(
                        f"mode {value!r}: more than one mode offered starts so: "
                        + "; ".join(d.options)
                    )
                if not hits:
                    raise IllegalActionError(
                        f"{key} {value!r} can't be announced for {g.name(d.source)} (offered: "
                        + "; ".join(d.options)
                        + ")"
                    )
                self._apply(g, Action(CHOOSE, 0, hits[0]), p)
            self._answer_rest(step, p)
        elif "activate" in step:
            cid = self.obj(step["activate"])
            self._apply(g, Action(ACTIVATE, cid, step.get("ability", 0)), p)
            self._answer_rest(step, p)
        elif "attack" in step:
            todo = list(step["attack"])
            if not todo and self._declaration_skipped(DECLARE_ATTACKERS):
                return  # "no attack" where none was possible: nothing to declare
            d = g.decision
            legal = [a for a in g.legal_actions() if a.kind == ATTACK] if d is not None else []
            if d is not None and d.kind == D_PRIORITY and todo and legal:
                # A format where an attack starts from priority with its first attacker.
                x = todo.pop(0)
                try:
                    act = self.pick(x, legal, "able to attack")
                except IllegalActionError:
                    act = Action(ATTACK, self.obj(x), 1 - p)
                self._apply(g, act, p)
            self._expect_decision(D_ATTACKERS, p, "attack")
            for x in todo:
                legal = [a for a in g.legal_actions() if a.kind == ATTACK]
                try:
                    act = self.pick(x, legal, "able to attack")
                except IllegalActionError:
                    act = Action(ATTACK, self.obj(x), 1 - p)  # let the engine say why
                self._apply(g, act, p)
            self._apply(g, Action(PASS), p)
        elif "block" in step:
            if not step["block"] and self._declaration_skipped(DECLARE_BLOCKERS):
                return  # "no blocks" where none was possible: nothing to declare
            self._expect_decision(D_BLOCKERS, p, "block")
            for b, a in step["block"].items():
                for x, kind in ((b, BLOCKER), (a, BLOCK)):
                    legal = [y for y in g.legal_actions() if y.kind == kind]
                    try:
                        act = self.pick(x, legal, "a legal choice")
                    except IllegalActionError:
                        act = Action(kind, self.obj(x))  # let the engine say why
                    self._apply(g, act, p)
            self._apply(g, Action(PASS), p)
        elif "choose" in step:
            vals = step["choose"] if isinstance(step["choose"], list) else [step["choose"]]
            for c in vals:
                self._answer(c, p)

    def _answer(self, c: Any, p: int | None) -> None:
        """Answer the pending decision with `c`. A label or card name given at a yes/no
        "you may" (Clone: "you may have it enter as a copy") answers yes, then picks that
        object; `no` still declines."""
        g = self.g
        d = g.decision
        if (
            d is not None
            and d.kind == D_CHOICE
            and [o.lower() for o in d.options] == ["yes", "no"]
            and isinstance(c, str)
            and c.lower() not in ("yes", "no")
        ):
            self._apply(g, Action(CHOOSE, 0, 0), p)
        self._apply(g, self.choice_action(c), p)

    def _declaration_skipped(self, step: int) -> bool:
        """The engine skipped a declaration nobody could make: priority in that step."""
        d = self.g.decision
        return d is not None and d.kind == D_PRIORITY and self.g.step == step

    def _expect_decision(self, kind: int, p: int, what: str) -> None:
        d = self.g.decision
        step = DECLARE_ATTACKERS if kind == D_ATTACKERS else DECLARE_BLOCKERS
        if d is not None and d.kind == D_PRIORITY and self.g.step == step:
            # The engine skips a declaration with no legal choice: the action is illegal.
            raise IllegalActionError(f"{what}: no creature of player {p} can {what} now")
        if d is None or d.kind != kind or d.player != p:
            now = "none" if d is None else f"{DECISION_NAMES[d.kind]} of player {d.player}"
            raise ScenarioFailure(
                f"{what}: expected a {DECISION_NAMES[kind]} decision of player {p}, "
                f"pending: {now} (step {self.g.rules.step_name(self.g.step)})"
            )

    def _answer_rest(self, step: dict[str, Any], p: int) -> None:
        g = self.g
        for t in step.get("targets", []) or []:
            d = g.decision
            if d is None or d.kind != D_TARGET:
                raise ScenarioFailure(f"target {t!r} given but no target is being chosen")
            self._apply(g, self.choice_action(t), p)
        ch = step.get("choose")
        if ch is not None:
            for c in ch if isinstance(ch, list) else [ch]:
                self._answer(c, None)
        d = g.decision
        if d is not None and d.kind == D_TARGET and d.player == p:
            # "Up to N" targets (601.2c) may be fewer: the steps after this one go on.
            if not any(a.kind == PASS for a in g.legal_actions()):
                raise ScenarioFailure("not every target was given")

    def passes(self, n: int) -> None:
        for _ in range(n):
            d = self.g.decision
            if d is None:
                return
            # A pass at priority, or where "up to N" targets may stop (601.2c).
            stop = d.kind == D_TARGET and Action(PASS) in self.g.legal_actions()
            if d.kind != D_PRIORITY and not stop:
                raise ScenarioFailure(
                    f"pass: pending decision is {DECISION_NAMES[d.kind]}, not priority"
                )
            self.g.apply(Action(PASS))

    def _auto(self, stop_declarations: tuple[int, ...] = ()) -> bool:
        """Answer a declaration on the way with nothing; False at any other decision."""
        d = self.g.decision
        assert d is not None
        if d.kind == D_PRIORITY:
            self.g.apply(Action(PASS))
            return True
        if d.kind in (D_ATTACKERS, D_BLOCKERS) and d.kind not in stop_declarations:
            if Action(PASS) not in self.g.legal_actions():
                return False  # a creature must attack (CR 508.1d): the script declares
            self.g.apply(Action(PASS))
            return True
        return False

    def resolve(self) -> None:
        start = self.g.turn
        for _ in range(MAX_AUTO_DECISIONS):
            if self.g.is_over or not self.g.stack:
                return
            if self.g.turn > start + 2:
                raise ScenarioFailure("resolve: the stack did not empty within two turns")
            if not self._auto():
                return
        raise ScenarioFailure(f"resolve: the stack did not empty in {MAX_AUTO_DECISIONS} passes")

    def advance(self, step_name: str) -> None:
        """Pass until the next time a player would receive priority in a new instance of
        STEP (for declare_attackers / declare_blockers: until its declaration decision).
        From inside STEP this goes to the next instance (e.g. the second combat damage
        step with first strike, or the same step next turn)."""
        g = self.g
        target = g.rules.step_by_name(step_name)
        assert target is not None  # validated against the format when parsed
        start = g.turn
        mark = len(g.events)
        decl = {DECLARE_ATTACKERS: D_ATTACKERS, DECLARE_BLOCKERS: D_BLOCKERS}.get(target)

        def begun() -> bool:
            return any(e[0] == "step" and e[1] == target for e in g.events[mark:])

        for _ in range(MAX_AUTO_DECISIONS):
            if g.is_over:
                return
            d = g.decision
            assert d is not None
            if (
                g.step == target
                and begun()
                and (d.kind == D_PRIORITY or (decl is not None and d.kind == decl))
            ):
                return
            if g.turn > start + 2:
                raise ScenarioFailure(f"advance: step {step_name} not reached within two turns")
            if not self._auto(stop_declarations=(decl,) if decl is not None else ()):
                return
        raise ScenarioFailure(
            f"advance: step {step_name} not reached in {MAX_AUTO_DECISIONS} passes"
        )

    # ----------------------------------------------------------------- expectations

    def check(self, exps: list[dict[str, Any]]) -> None:
        for e in exps:
            self._check_one(e)

    def _check_one(self, e: dict[str, Any]) -> None:
        g = self.g
        if "object" in e:
            cid = self.obj(e["object"])
            if cid < 0:
                raise ScenarioFailure(f"{e['object']!r} is a player, not an object")
            for k, want in e.items():
                if k == "object":
                    continue
                got = self.obj_field(cid, k, want)
                if not _eq(k, want, got):
                    raise ScenarioFailure(f"{e['object']}: {k}: expected {want!r}, actual {got!r}")
            return
        if "objects" in e:
            spec = e["objects"]
            if isinstance(spec, str):
                spec = {"name": spec}
            zone = ZONE_BY_NAME[spec.get("zone", "battlefield")]
            n = 0
            for c in range(len(g.cdef)):
                if g.zone[c] != zone:
                    continue
                if "name" in spec and self.name_of(c) != spec["name"]:
                    continue
                if "controller" in spec and g.controller(c) != spec["controller"]:
                    continue
                n += 1
            if n != e["count"]:
                raise ScenarioFailure(f"objects {spec}: expected count {e['count']}, actual {n}")
            return
        if "legal" in e or "illegal" in e:
            want = "legal" in e
            step = e.get("legal", e.get("illegal"))
            probe = Runner(g.clone(), self.labels)
            try:
                probe.action_step(step)
                ok, why = True, ""
            except IllegalActionError as err:
                ok, why = False, str(err)
            if ok != want:
                raise ScenarioFailure(
                    f"{'legal' if want else 'illegal'}: expected {step} to be "
                    f"{'legal' if want else 'illegal'}" + (f" ({why})" if why else "")
                )
            return
        if "player" in e:
            p = e["player"]
            # The mana pool is adventure's own state; other formats have none (0).
            st = g.format_state
            pool = st.pool if isinstance(st, AdventureState) else [0, 0]
            pool_max = st.pool_max if isinstance(st, AdventureState) else [0, 0]
            ini, rooms = g.initiative, g.cardset.undercity
            for k, want in e.items():
                if k == "player":
                    continue
                got = {
                    "life": g.life[p],
                    "hand_size": len(g.hand[p]),
                    "library_size": len(g.library[p]),
                    "graveyard_size": len(g.graveyard[p]),
                    "lost": g.lost[p],
                    "mana": pool[p],
                    "mana_max": pool_max[p],
                    # The mana a spell or an ability added (CR 106.4), as symbols.
                    "mana_pool": "" if g.mana_pool is None else mana_symbols(g.mana_pool[p]),
                    # The initiative (CR 725): whether they have it, and their room of
                    # Undercity (null: not in it).
                    "initiative": ini is not None and ini[0] == p,
                    "poison": 0 if g.poison is None else g.poison[p],  # CR 122.1f
                    "room": (None if ini is None or ini[3 + p] < 0 else rooms[ini[3 + p]].name),
                }[k]
                if got != want:
                    raise ScenarioFailure(f"player {p}: {k}: expected {want!r}, actual {got!r}")
            return
        ((k, want),) = e.items()
        if k == "winner":
            got: Any = "draw" if g.is_over and g.winner is None and not g.truncated else g.winner
            if not g.is_over:
                got = "game not over"
        elif k == "game_over":
            got = g.is_over
        elif k == "step":
            got = g.rules.step_name(g.step)
        elif k == "active":
            got = g.active
        elif k == "turn":
            got = g.turn
        elif k == "priority":
            d = g.decision
            got = d.player if d is not None and d.kind == D_PRIORITY else None
        elif k == "stack_size":
            got = len(g.stack)
        elif k == "decision":
            d = g.decision
            got = None if d is None else DECISION_NAMES[d.kind]
        else:  # pragma: no cover - validated
            raise ScenarioFailure(f"unknown expectation {k}")
        if got != want:
            raise ScenarioFailure(f"{k}: expected {want!r}, actual {got!r}")

    def obj_field(self, cid: int, k: str, want: Any) -> Any:
        g = self.g
        ch = g.chars(cid)
        on_bf = g.zone[cid] == BATTLEFIELD
        if k == "power":
            return ch.power
        if k == "toughness":
            return ch.toughness
        if k == "zone":
            return ZONE_NAMES[g.zone[cid]]
        if k == "tapped":
            return on_bf and g.perm[cid].tapped
        if k == "controller":
            return g.controller(cid)
        if k == "owner":
            return g.owner[cid]
        if k == "types":
            return sorted(n for b, n in TYPE_NAMES.items() if ch.types & b)
        if k == "subtypes":
            return sorted(ch.subtypes)
        if k == "supertypes":
            return sorted(n for b, n in SUPERTYPE_NAMES.items() if ch.supertypes & b)
        if k == "colors":
            return [COLOR_LETTERS[i] for i in range(5) if ch.colors & (1 << i)]
        if k == "keywords":
            return sorted(ch.keywords)
        if k == "has_keywords":
            return sorted(n for n in want if n.casefold() in _fold(ch.keywords))
        if k == "lacks_keywords":
            return sorted(n for n in want if n.casefold() not in _fold(ch.keywords))
        if k == "counters":
            return dict(g.perm[cid].counters or {}) if on_bf else {}
        if k == "damage":
            return g.perm[cid].damage if on_bf else 0
        if k == "attacking":
            return cid in g.attackers
        if k == "blocking":
            return cid in g.blockers
        if k == "sick":
            return on_bf and g.sick(cid)
        if k == "name":
            return ch.name
        if k == "attached_to":
            if not on_bf or g.perm[cid].attached < 0:
                return None
            t = g.perm[cid].attached
            for lab, c in self.labels.items():
                if c == t:
                    return lab
            return g.cdef[t].name
        raise ScenarioFailure(f"unknown object field {k}")  # pragma: no cover


_SET_FIELDS = ("types", "subtypes", "supertypes", "colors", "keywords")


def _fold(names: Any) -> set[str]:
    """Names compared as a set, without regard to case (as printed: [Enchantment, Creature])."""
    return {str(n).casefold() for n in names}


def _eq(k: str, want: Any, got: Any) -> bool:
    if k in _SET_FIELDS:
        return _fold(want) == _fold(got)
    if k in ("has_keywords", "lacks_keywords"):
        return _fold(want) == _fold(got)
    if k == "counters":
        return {x: v for x, v in want.items() if v} == got
    return bool(want == got)


def run_steps(runner: Runner, script: list[Any]) -> None:
    for i, step in enumerate(script):
        try:
            _run_step(runner, step)
        except ScenarioFailure as e:
            raise ScenarioFailure(f"script[{i}] {_short(step)}: {e}") from None
        except IllegalActionError as e:
            raise ScenarioFailure(f"script[{i}] {_short(step)}: rejected: {e}") from None
        except (KeyboardInterrupt, ScenarioError):
            raise
        except Exception as e:  # noqa: BLE001 - a crash is this scenario's failure, said once
            raise ScenarioFailure(
                f"script[{i}] {_short(step)}: the runner failed ({type(e).__name__}: {e})"
            ) from None


def _short(step: Any) -> str:
    s = str(step)
    return s if len(s) < 80 else s[:77] + "..."


def _run_step(r: Runner, step: Any) -> None:
    if step == "pass":
        r.passes(1)
        return
    if step == "resolve":
        r.resolve()
        return
    if "expect" in step:
        r.check(step["expect"])
        return
    if "pass" in step:
        r.passes(step["pass"] or 1)
        return
    if "advance" in step:
        r.advance(step["advance"])
        return
    if step.get("expect_error"):
        try:
            r.action_step(step)
        except IllegalActionError:
            return
        raise ScenarioFailure("expected the action to be rejected, but it was legal")
    r.action_step(step)


def run_scenario(sc: Scenario) -> Result:
    """Run a scripted scenario (puzzles with a `goal` are run by `agents`)."""
    m = sc.model
    g, labels = build(sc)
    r = Runner(g, labels)
    try:
        run_steps(r, m.script)
        try:
            r.check(m.expect)
        except (ScenarioFailure, KeyboardInterrupt):
            raise
        except Exception as e:  # noqa: BLE001 - a crash is this scenario's failure
            raise ScenarioFailure(f"expect: the runner failed ({type(e).__name__}: {e})") from None
    except ScenarioFailure as e:
        return Result(m.name, False, str(e), sc.path, r.g.log_text(), m.rules)
    return Result(m.name, True, "", sc.path, r.g.log_text(), m.rules)


def goal_status(g: Game, goal: GoalModel, start_turn: int) -> bool | None:
    """True if the puzzle's goal is met, False if it can no longer be, None if open."""
    if g.is_over:
        return g.winner == goal.winner
    if g.turn > start_turn + goal.within_turns - 1:
        return False
    return None


def check_solution(sc: Scenario) -> Result:
    """Play a puzzle's stored winning line and check that it meets the goal."""
    m = sc.model
    assert m.goal is not None
    g, labels = build(sc)
    r = Runner(g, labels)
    try:
        run_steps(r, m.solution)
    except ScenarioFailure as e:
        return Result(m.name, False, str(e), sc.path, r.g.log_text())
    ok = goal_status(r.g, m.goal, m.setup.turn)
    return Result(
        m.name,
        bool(ok),
        "" if ok else "the solution does not reach the goal",
        sc.path,
        r.g.log_text(),
    )


def scenario_paths(paths: list[str]) -> list[Path]:
    out: list[Path] = []
    for p in paths:
        pp = Path(p)
        if pp.is_dir():
            out.extend(sorted(pp.rglob("*.yaml")))
        else:
            out.append(pp)
    return out
