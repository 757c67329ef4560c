"""Our text agents as Spellbench bots: `mtg-env spellbench agent text:MODULE:ATTR`.

A `text:` plug-in is a function that reads a text view and answers the number of its
choice (`agents.plugin.TextAgent`). As a bot in the agent role (`mtg_env.spellbench.agent`)
it reads the text view of the neutral seat decision (`mtg_env.spellbench.textview`), built
from the protocol's observation and candidates alone, so it plays on any Spellbench engine
for any cards, and sees exactly what the protocol lets its seat see. Its answer is a
`candidate_id`, read as `TextAgent` reads one (`parse_reply`), with the same fallback: a
reply that is not one of the listed numbers is answered by a random candidate from a
generator seeded with the game's `agent_seed` (a rerun is the same game), counted in
`fallbacks` and reported on stderr. A decision with one candidate is answered without
asking.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from mtg_env.spellbench.agent import VERSION
from mtg_env.spellbench.textview import seat_text

from .plugin import TextAgent, load_plugin, parse_reply, shown, stderr_line


class TextBot:
    """A function answering a text prompt, as a bot of the agent role."""

    version = VERSION

    def __init__(
        self,
        fn: Callable[[str], Any],
        name: str = "mtg_env-text",
        warn: Callable[[str], None] | None = stderr_line,
    ) -> None:
        self.fn = fn
        self.name = name
        self.warn = warn
        self.rng = random.Random(0)
        self.fallbacks = 0
        self.asked = 0

    def start(self, game_start: dict[str, Any]) -> None:
        self.rng = random.Random(int(game_start.get("agent_seed", 0)))

    def choose(self, decision: dict[str, Any]) -> int:
        ids = [int(c["candidate_id"]) for c in decision["candidates"]]
        if len(ids) == 1:
            return ids[0]
        self.asked += 1
        reply = self.fn(seat_text(decision))
        n = parse_reply(reply)
        if n is not None and n in ids:
            return n
        self.fallbacks += 1
        if self.warn is not None:
            self.warn(
                f"warning: {self.name}: reply {shown(reply)} is not a listed candidate number; "
                "playing a random candidate instead"
            )
        return self.rng.choice(ids)


def text_bot(spec: str) -> TextBot:
    """The bot of a `text:MODULE:ATTR` or `text:FILE.py:ATTR` spec (its function loaded as
    `mtg-env evaluate` loads one); a bad spec is one `PluginError` line."""
    agent = load_plugin(spec)
    assert isinstance(agent, TextAgent)  # a text: spec loads as a TextAgent or fails
    # The bot's name in `hello`: the attribute the spec names, after our prefix.
    return TextBot(agent.fn, name=f"mtg_env-text-{spec.rsplit(':', 1)[-1]}")


class PolicyBot:
    """A trained policy on the v1 entity observation, as a bot of the agent role.

    It reads the v1 tables built from the neutral seat decision
    (`mtg_env.spellbench.entity_view`), never an engine state, so it plays on any Spellbench
    engine; cards outside the pool it was trained on read as their characteristics. It
    plays as `PolicyAgent` plays in our env (its network, greedy unless the agent samples),
    and an attack or a block as the engine asks for one: the protocol poses one creature
    per decision, the engine a pick at a time until "done". At the first decision of a
    declaration the bot plays the engine's picks through to "done" on the neutral view
    (`_plan`) and answers each creature's decision from that plan.
    """

    version = VERSION

    def __init__(self, agent: Any, name: str = "mtg_env-policy") -> None:
        from mtg_env.env.observers import entity_tables
        from mtg_env.spellbench.entity_view import NeutralEntityObserver

        from .policy import CheckpointError

        tables = entity_tables(getattr(agent, "observer", None))
        if tables is None:
            raise CheckpointError(
                f"{getattr(agent, 'name', name)}: a policy on the flat (v0) observation; the "
                "agent role serves policies on the v1 entity observation, which the neutral "
                "view can build"
            )
        self.agent = agent
        self.name = name
        self.view = NeutralEntityObserver(tables)
        self.plan: tuple[Any, dict[str, str]] | None = None  # (group key, creature -> answer)

    def start(self, game_start: dict[str, Any]) -> None:
        self.plan = None
        self.agent.reset()

    def _pick(self, obs: dict[str, Any]) -> int:
        return int(self.agent.act(obs, obs["action_mask"]))

    def choose(self, decision: dict[str, Any]) -> int:
        cands = decision["candidates"]
        kind = cands[0]["semantic"]["kind"]
        if kind in ("declare_attack", "declare_block"):
            return self._declaration(decision, kind)
        if len(cands) == 1:
            return int(cands[0]["candidate_id"])
        obs, ids = self.view.observe(decision)
        return ids[self._pick(obs)]

    def _declaration(self, decision: dict[str, Any], kind: str) -> int:
        cands = decision["candidates"]
        who = "attacker" if kind == "declare_attack" else "blocker"
        whom = "defender" if kind == "declare_attack" else "attacker"
        key = (decision["acting_seat"], decision["group"]["group_id"], kind)
        if self.plan is None or self.plan[0] != key:
            self.plan = (key, self._plan(decision, kind))
        me = cands[0]["semantic"][who]["object_id"]
        want = self.plan[1].get(me)
        for c in cands:
            target = c["semantic"].get(whom)  # a player (an attack) or an attacker (a block)
            answer = (
                None if target is None else "player" if "player" in target else target["object_id"]
            )
            if answer == want:
                return int(c["candidate_id"])
        # The plan's answer is not posed (a rule the neutral view does not show): the
        # first candidate, `null` where there is one.
        return int(cands[0]["candidate_id"])

    def _plan(self, decision: dict[str, Any], kind: str) -> dict[str, str]:
        """The declaration the policy makes on the engine's terms: attackers (creature ->
        "player"), or blockers (creature -> the attacker it blocks)."""
        view = self.view
        # Each pick declares one more creature: the loops end by then at the latest.
        bound = sum(len(p.get("battlefield") or ()) for p in decision["observation"]["players"]) + 2
        if kind == "declare_attack":
            declared: list[str] = []
            for _ in range(bound):
                obs, posed = view.rows(decision, declared=tuple(declared))
                sem = posed[self._pick(obs)][1]
                if sem["kind"] == "pass" or sem.get("defender") is None:
                    break
                declared.append(sem["attacker"]["object_id"])
            return dict.fromkeys(declared, "player")
        blocks: dict[str, str] = {}
        for _ in range(bound):
            obs, posed = view.rows(decision, blocks=blocks)
            if not posed:
                break
            sem = posed[self._pick(obs)][1]
            if sem["kind"] != "declare_blocker":
                break
            blocker = sem["blocker"]["object_id"]
            obs, posed = view.rows(decision, blocks=blocks, blocker=blocker)
            if not posed:
                break
            blocks[blocker] = posed[self._pick(obs)][1]["attacker"]["object_id"]
        return blocks


def policy_bot(spec: str, fmt: str | None = None) -> PolicyBot:
    """The bot of a `policy:PATH` or `policy:default` spec, for the format whose cards it
    knows (`fmt`, else the one its file names); a file that cannot serve is one
    `CheckpointError` line."""
    from .base import make_agent
    from .policy import DEFAULT, file_format

    path = spec.split(":", 1)[1] if ":" in spec else "default"
    if fmt is None:
        fmt = file_format(DEFAULT if path == "default" else path) or "core"
    return PolicyBot(make_agent(spec, 0, fmt), name=f"mtg_env-{spec.replace(':', '-')}")


class EngineBot:
    """An agent that decides from an engine state (the heuristic, the searches), as a bot
    of the agent role, on games rebuilt from the neutral seat decision
    (`mtg_env.spellbench.rebuild`): a priority (with the spells and activated abilities on
    the stack), and the declarations of
    attackers and blockers (played through on the rebuilt game at their first decision,
    as `PolicyBot` does). The targets, mode and X of a spell or ability it chose are asked
    of it on the same rebuilt game, carried on. Any other decision, or a position that
    cannot be rebuilt, is answered by the first candidate (`pass`, "does not block",
    "stays home", the first target), counted in `fallbacks` by reason and said on stderr
    once per reason and game.
    """

    version = VERSION

    def __init__(
        self,
        agent: Any,
        fmt: str,
        name: str = "mtg_env-engine",
        warn: Callable[[str], None] | None = stderr_line,
    ) -> None:
        self.agent = agent
        self.format = fmt
        self.name = name
        self.warn = warn
        self.decks: tuple[Any, Any] = (None, None)
        self.seed = 0
        self.plan: tuple[Any, dict[str, str]] | None = None
        self.shadow: Any = None  # the rebuilt game carried on after the agent's move
        self.fallbacks: dict[str, int] = {}
        self._said: set[str] = set()

    def start(self, game_start: dict[str, Any]) -> None:
        self.decks = (game_start.get("own_deck"), game_start.get("opponent_deck"))
        self.seed = int(game_start.get("agent_seed", 0))
        self.plan = self.shadow = None
        self._said = set()
        self.agent.reset()

    def choose(self, decision: dict[str, Any]) -> int:
        from mtg_env.spellbench.rebuild import CannotRebuild

        cands = decision["candidates"]
        kind = cands[0]["semantic"]["kind"]
        if len(cands) == 1:
            return int(cands[0]["candidate_id"])
        try:
            if kind in ("declare_attack", "declare_block"):
                return self._declaration(decision, kind)
            if decision["context"]["kind"] == "priority":
                return self._priority(decision)
            return self._carried_on(decision)
        except CannotRebuild as e:
            return self._fallback(decision, str(e))

    def _fallback(self, decision: dict[str, Any], why: str) -> int:
        self.shadow = None
        self.fallbacks[why] = self.fallbacks.get(why, 0) + 1
        if self.warn is not None and why not in self._said:
            self._said.add(why)
            self.warn(f"note: {self.name}: {why}: answered by the first candidate")
        return int(decision["candidates"][0]["candidate_id"])

    def _rebuild(self, decision: dict[str, Any], declaration: str | None = None) -> Any:
        from mtg_env.spellbench.rebuild import rebuild

        return rebuild(decision, self.decks, self.format, self.seed, declaration)

    def _priority(self, decision: dict[str, Any]) -> int:
        from mtg_env.engine.constants import ACTIVATE, PASS, PLAY
        from mtg_env.spellbench.candidates import activated_ability
        from mtg_env.spellbench.rebuild import CannotRebuild

        r = self._rebuild(decision)
        g = r.game
        a = self.agent.choose(g)
        for c in decision["candidates"]:
            sem = c["semantic"]
            src = (sem.get("source") or {}).get("object_id")
            if (
                (a.kind == PASS and sem["kind"] == "pass")
                or (
                    a.kind == PLAY
                    and sem["kind"] in ("play_land", "cast_spell")
                    and src == r.object_id.get(a.obj)
                )
                or (
                    a.kind == ACTIVATE
                    and sem["kind"] == "activate_ability"
                    and src == r.object_id.get(a.obj)
                    and sem["ability_index"] == activated_ability(g, a.obj, a.arg)[0]
                )
            ):
                g.apply(a)
                self.shadow = (r, decision["acting_seat"]) if a.kind != PASS else None
                return int(c["candidate_id"])
        raise CannotRebuild(f"the agent's move {a} is not one of the candidates")

    def _carried_on(self, decision: dict[str, Any]) -> int:
        """A target, mode or X of the move the agent just chose, asked on the rebuilt game
        it chose it on."""
        from mtg_env.engine.constants import D_CHOICE, D_TARGET
        from mtg_env.spellbench.rebuild import CannotRebuild

        cands = decision["candidates"]
        kind = cands[0]["semantic"]["kind"]
        if self.shadow is None or self.shadow[1] != decision["acting_seat"]:
            raise CannotRebuild(f"a {kind} decision")
        r = self.shadow[0]
        g = r.game
        d = g.decision
        want = {"choose_target": D_TARGET, "choose_spell_mode": D_CHOICE, "choose_number": D_CHOICE}
        if d is None or d.kind != want.get(kind) or len(g.legal_actions()) != len(cands):
            raise CannotRebuild(f"a {kind} decision")
        a = self.agent.choose(g)
        g.apply(a)
        if kind != "choose_target":
            return int(cands[a.arg]["candidate_id"])  # the engine's order, by its index
        for c in cands:
            t = c["semantic"]["target"]
            if (a.obj < 0 and t.get("player") == f"p{-1 - a.obj}") or (
                a.obj >= 0 and "object" in t and t["object"]["object_id"] == r.object_id.get(a.obj)
            ):
                return int(c["candidate_id"])
        raise CannotRebuild("the agent's target is not one of the candidates")

    def _declaration(self, decision: dict[str, Any], kind: str) -> int:
        from mtg_env.engine.constants import ATTACK, BLOCK, PASS

        self.shadow = None
        cands = decision["candidates"]
        attack = kind == "declare_attack"
        who, whom = ("attacker", "defender") if attack else ("blocker", "attacker")
        key = (decision["acting_seat"], decision["group"]["group_id"], kind)
        if self.plan is None or self.plan[0] != key:
            self.plan = None
            r = self._rebuild(decision, "attack" if attack else "block")
            g = r.game
            plan: dict[str, str] = {}
            for _ in range(len(g.battlefield) * 2 + 2):
                if g.decision is None or g.decision.player != g.current_player:
                    break
                a = self.agent.choose(g)
                if a.kind == PASS:
                    break
                if a.kind == ATTACK:
                    plan[r.object_id[a.obj]] = "player"
                elif a.kind == BLOCK:
                    plan[r.object_id[g.ctx.blocker]] = r.object_id[a.obj]
                g.apply(a)
            self.plan = (key, plan)
        want = self.plan[1].get(cands[0]["semantic"][who]["object_id"])
        for c in cands:
            target = c["semantic"].get(whom)
            answer = (
                None if target is None else "player" if "player" in target else target["object_id"]
            )
            if answer == want:
                return int(c["candidate_id"])
        return int(cands[0]["candidate_id"])


def engine_bot(spec: str, fmt: str) -> EngineBot:
    """The bot of an engine agent's spec (`heuristic`, `ismcts:N`, ...) for the `fmt` card
    pool; a spec that names no such agent is one `ValueError` line."""
    from .base import make_agent

    agent = make_agent(spec, 0, fmt)
    if not agent.decides_from_engine:
        raise ValueError(f"{spec!r} is not an agent that decides from an engine state")
    return EngineBot(agent, fmt, name=f"mtg_env-{spec.replace(':', '-')}")
