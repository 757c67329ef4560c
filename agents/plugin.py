"""Plug-in agents: a user's own agent named by an agent spec, and `TextAgent`, which turns a
function that answers a text prompt into an agent.

Specs (any command that takes an agent spec; `make_agent` routes them here):

- `module.path:attr` imports `module.path` (the current directory is searched too) and
  takes its attribute `attr`;
- `path/to/file.py:attr` runs that file as a module and takes `attr` from it;
- `text:module.path:attr` or `text:path/to/file.py:attr` takes a function that answers
  a text prompt and wraps it in `TextAgent`.

The built-in names keep their meaning (`random`, `heuristic`, `ismcts[:BUDGET]`,
`policy:...`); every other spec with a colon is a plug-in. The spec's last colon separates
the module or file from the attribute.

What the attribute may be (one rule for each kind of object):

- a class: instantiated once per game, with `seed=` and `fmt=` when its constructor has a
  parameter of that name (or `**kwargs`), with no arguments otherwise;
- a function (any callable that is not a class and has no `choose`): a factory, called
  like a class is and returning an agent. A function that answers a text prompt is not
  a factory: name it with `text:`;
- any other object with a `choose` method: an agent instance, used as it is (the same
  object in every game; `reset()` is called before each game when it has one).

An agent implements `choose(game) -> Action`: given the engine `Game` (the acting seat is
`game.current_player`) it returns one of `game.legal_actions()`. It may define `reset()`
(called before each game). Agents play at the engine level: they see the whole `Game`,
hidden cards included, and are trusted to look only at what their seat may see (search
agents call `game.resample_hidden`; `TextAgent` shows only the seat's text view).

A plug-in spec runs the named Python code, with the rights of the user who runs the
command: it is code by design, given on the command line. A file that names agents (an
anchors file, a distillation config) may name built-in agents only: a plug-in spec in it is
refused in one line naming the file, the entry and the field, before anything runs
(`check_spec_from_file`). A results file (a resumed evaluation, a tournament's
`config.json`) is read as JSON only: the spec stored there is compared as text with the one
on the command line, never loaded.

A plug-in that breaks the agent protocol during a game (its `choose` raises, exits the
process or returns something that is not one of `game.legal_actions()`; its `reset`
raises) stops the command with one `PluginFault` line naming the spec, the decision and
what it returned or raised (`guard`, used by `match`, `tournament` and `evaluate`).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import numbers
import os
import random
import re
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from mtg_env.engine import Action, Game
from mtg_env.env.text import text_view

from .common import EngineAgent
from .registry import Budget, find

TEXT_PREFIX = "text:"
_FILE_MODULES: dict[str, ModuleType] = {}  # a file's module is run once per process


class PluginError(ValueError):
    """A plug-in spec that can't be loaded (one line naming the spec and what is wrong)."""


class PluginFault(PluginError):
    """A plug-in agent broke the agent protocol during a game (one line naming the spec,
    the decision and what its code returned or raised)."""


def is_plugin_spec(spec: str) -> bool:
    """A spec with a colon whose first part names no registered kind (agents.registry)."""
    return ":" in spec and find(spec.split(":", 1)[0]) is None


def check_spec_from_file(spec: Any, where: str) -> None:
    """Refuse a plug-in spec read from a file (`where` names the file, entry and field):
    plug-in specs run Python code and are taken from the command line only."""
    if isinstance(spec, str) and is_plugin_spec(spec):
        raise PluginError(
            f"{where}: {shown(spec)} is a plug-in spec, which runs Python code: a file may "
            "name built-in agents only (random, heuristic, ismcts[:N], policy:PATH); give a "
            "plug-in agent on the command line"
        )


def split_spec(spec: str) -> tuple[bool, str, str]:
    """(is a text agent, module or file, attribute) of a plug-in spec."""
    text = spec.startswith(TEXT_PREFIX)
    body = spec[len(TEXT_PREFIX) :] if text else spec
    where, sep, attr = body.rpartition(":")
    if not sep or not where.strip() or not attr.strip():
        form = "text:MODULE:ATTR" if text else "MODULE:ATTR or FILE.py:ATTR"
        raise PluginError(f"agent spec {spec!r}: a plug-in spec is {form}")
    return text, where.strip(), attr.strip()


def is_file_spec(where: str) -> bool:
    return where.endswith(".py")


def plugin_file(spec: str) -> Path | None:
    """The Python file behind a `FILE.py:ATTR` plug-in spec (for a results file's digest)."""
    try:
        _, where, _ = split_spec(spec)
    except PluginError:
        return None
    return Path(where) if is_file_spec(where) else None


def file_digest(path: Path) -> str | None:
    """sha256 (16 hex digits) of a file, or None when it can't be read."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    except OSError:
        return None


def _load_file(spec: str, where: str) -> ModuleType:
    path = Path(where).expanduser()
    if not path.is_file():
        what = "is not a file" if path.exists() else "no such file"
        raise PluginError(f"agent spec {spec!r}: {where}: {what}")
    key = str(path.resolve())
    if key in _FILE_MODULES:
        return _FILE_MODULES[key]
    # A name of its own per file, so that two plug-in files named agent.py don't collide.
    name = "mtg_env_plugin_" + hashlib.sha256(key.encode()).hexdigest()[:12]
    mspec = importlib.util.spec_from_file_location(name, path)
    if mspec is None or mspec.loader is None:
        raise PluginError(f"agent spec {spec!r}: {where}: can't be loaded as a Python file")
    module = importlib.util.module_from_spec(mspec)
    sys.modules[name] = module  # dataclasses and pickling look the module up by name
    try:
        mspec.loader.exec_module(module)
    except (Exception, SystemExit) as e:  # noqa: BLE001 - the user's code failed: one line
        sys.modules.pop(name, None)
        raise PluginError(
            f"agent spec {spec!r}: running {where} failed: {type(e).__name__}: {_first(e)}"
        ) from None
    _FILE_MODULES[key] = module
    return module


def _load_module(spec: str, where: str) -> ModuleType:
    # The console script's sys.path does not hold the current directory (python -m does):
    # search it too, so that `mymod:MyAgent` finds ./mymod.py as a user expects.
    cwd = os.getcwd()
    added = cwd not in sys.path
    if added:
        sys.path.insert(0, cwd)
    try:
        return importlib.import_module(where)
    except ModuleNotFoundError as e:
        raise PluginError(
            f"agent spec {spec!r}: module {where!r} can't be imported ({_first(e)})"
        ) from None
    except (Exception, SystemExit) as e:  # noqa: BLE001 - the user's module failed on import
        raise PluginError(
            f"agent spec {spec!r}: importing {where!r} failed: {type(e).__name__}: {_first(e)}"
        ) from None
    finally:
        if added:
            sys.path.remove(cwd)


def _first(e: BaseException) -> str:
    """An exception's message as one bounded line (its `str` is the plug-in's code too and
    may itself raise)."""
    try:
        text = str(e).strip()
    except Exception:  # noqa: BLE001 - a broken __str__: name the type instead
        text = ""
    line = text.splitlines()[0] if text else type(e).__name__
    return line if len(line) <= SHOWN else line[: SHOWN - 3] + "..."


def _call_with(fn: Callable[..., Any], seed: int, fmt: str | None) -> Any:
    """Call a class or factory with `seed=` and `fmt=` where its signature takes them."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):  # a builtin without a signature: no arguments
        return fn()
    var_kw = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    kw: dict[str, Any] = {}
    if var_kw or "seed" in params:
        kw["seed"] = seed
    if (var_kw or "fmt" in params) and fmt is not None:
        kw["fmt"] = fmt
    return fn(**kw)


def _required_params(fn: Callable[..., Any]) -> list[str]:
    """The parameters a call with only seed= and fmt= would leave without a value."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return []
    return [
        p.name
        for p in params
        if p.default is inspect.Parameter.empty
        and p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
        and p.name not in ("seed", "fmt")
    ]


def _is_agent(obj: Any) -> bool:
    return not inspect.isclass(obj) and callable(getattr(obj, "choose", None))


def load_plugin(spec: str, seed: int = 0, fmt: str | None = None) -> Any:
    """The agent a plug-in spec names (see the module docstring for the rules)."""
    text, where, attr = split_spec(spec)
    module = _load_file(spec, where) if is_file_spec(where) else _load_module(spec, where)
    if not hasattr(module, attr):
        raise PluginError(f"agent spec {spec!r}: {where} has no attribute {attr!r}")
    obj = getattr(module, attr)
    if text:
        if not callable(obj) or inspect.isclass(obj):
            raise PluginError(
                f"agent spec {spec!r}: {attr} is {_kind(obj)}, not a function taking the "
                "text view and returning an action number"
            )
        return TextAgent(obj, seed=seed, name=spec)
    if inspect.isclass(obj) or (callable(obj) and not _is_agent(obj)):
        what = "class" if inspect.isclass(obj) else "factory"
        needs = _required_params(obj)
        if needs:
            hint = "" if what == "class" else "; a function answering a text prompt is named "
            hint += "text:MODULE:ATTR" if hint else ""
            raise PluginError(
                f"agent spec {spec!r}: the {what} {attr} needs the argument {needs[0]!r}, but "
                f"a plug-in {what} is called with seed= and fmt= only{hint}"
            )
        try:
            agent = _call_with(obj, seed, fmt)
        except (Exception, SystemExit) as e:  # noqa: BLE001 - the user's constructor failed
            raise PluginError(
                f"agent spec {spec!r}: calling the {what} {attr} failed: "
                f"{type(e).__name__}: {_first(e)}"
            ) from None
        if not _is_agent(agent):
            raise PluginError(
                f"agent spec {spec!r}: the {what} {attr} returned {_kind(agent)}, not an agent "
                "(an agent has a choose(game) method returning an engine Action; a function "
                "answering a text prompt is named text:MODULE:ATTR)"
            )
        return agent
    if not _is_agent(obj):
        raise PluginError(
            f"agent spec {spec!r}: {attr} is {_kind(obj)}, not an agent (an agent has a "
            "choose(game) method returning an engine Action)"
        )
    return obj


def _kind(obj: Any) -> str:
    if inspect.isclass(obj):
        return f"the class {obj.__name__}"
    return f"a {type(obj).__name__}"


def stderr_line(line: str) -> None:
    """One diagnostic line on stderr, at once (a bot's stdout is its protocol stream)."""
    print(line, file=sys.stderr, flush=True)


SHOWN = 80  # characters of a reply or returned value shown in a message
MAX_REPLY_CHARS = 10_000  # characters of a text reply that are read
MAX_NUMBER_DIGITS = 9  # a longer number is no action number (and int() stays cheap)
_NUMBER = re.compile(r"-?\d+")


def shown(value: Any) -> str:
    """`repr` of a value made by plug-in code, bounded: a string is cut before its repr is
    taken (a huge reply costs nothing), and a repr that raises names the type instead."""
    try:
        if isinstance(value, str) and len(value) > SHOWN:
            value = str.__getitem__(value, slice(0, SHOWN))
        text = repr(value)
        if not isinstance(text, str):
            raise TypeError("repr is not a string")
    except Exception:  # noqa: BLE001 - the plug-in's __repr__ failed: say what it is
        return f"<a {type(value).__name__} whose repr fails>"
    return text if len(text) <= SHOWN else text[: SHOWN - 3] + "..."


def _decision(game: Game) -> str:
    return f"decision {game.n_decisions + 1} (turn {game.turn}, seat {game.current_player})"


class Guarded:
    """A plug-in agent whose every call is checked: `choose` must return one of
    `game.legal_actions()` and neither it nor `reset` may raise or exit. A breach is a
    `PluginFault` naming the spec, the decision and the value (or exception); the legal
    action found is the engine's own object. Other attributes are the agent's."""

    def __init__(self, agent: Any, spec: str) -> None:
        self.agent = agent
        self.spec = spec

    def __getattr__(self, name: str) -> Any:
        return getattr(self.agent, name)

    # What the plug-in declares of `agents.base.Agent`'s capabilities, with the defaults
    # of an agent that declares nothing: it reads the observation through `act`, has no
    # search budget and never falls back.
    @property
    def needs_observation(self) -> bool:
        return bool(getattr(self.agent, "needs_observation", True))

    @property
    def decides_from_engine(self) -> bool:
        return bool(getattr(self.agent, "decides_from_engine", False))

    @property
    def budget(self) -> Budget | None:
        budget = getattr(self.agent, "budget", None)
        return budget if isinstance(budget, Budget) else None

    @property
    def fallbacks(self) -> int:
        n = getattr(self.agent, "fallbacks", 0)
        return n if isinstance(n, int) and not isinstance(n, bool) else 0

    def reset(self) -> None:
        reset = getattr(self.agent, "reset", None)
        if reset is None:
            return
        try:
            reset()
        except (Exception, SystemExit) as e:  # noqa: BLE001 - the plug-in's fault: one line
            raise PluginFault(
                f"agent spec {shown(self.spec)}: reset() raised {type(e).__name__}: {_first(e)}"
            ) from None

    def choose(self, game: Game) -> Action:
        legal = game.legal_actions()
        try:
            action = self.agent.choose(game)
        except (Exception, SystemExit) as e:  # noqa: BLE001 - SystemExit too: exiting the
            # process from choose() would end an unfinished run with status 0.
            raise PluginFault(
                f"agent spec {shown(self.spec)}: choose() raised {type(e).__name__}: "
                f"{_first(e)} at {_decision(game)}"
            ) from None
        found = legal_match(action, legal)
        if found is None:
            raise PluginFault(
                f"agent spec {shown(self.spec)}: choose() returned {shown(action)} at "
                f"{_decision(game)}, which is not one of its {len(legal)} legal actions"
            )
        return found


def legal_match(action: Any, legal: list[Action]) -> Action | None:
    """The legal action equal to `action`, or None (an `__eq__` that raises is no match)."""
    for a in legal:
        if a is action:
            return a
    if not isinstance(action, tuple):  # an Action is a tuple: anything else is no action
        return None
    for a in legal:
        try:
            if a == action:
                return a
        except Exception:  # noqa: BLE001 - a tuple subclass with a broken __eq__
            return None
    return None


def guard(agent: Any, spec: str) -> Any:
    """The agent of `spec`, checked (`Guarded`) when it is a plug-in; built-in agents are
    the project's own code and are returned as they are. `make_agent` guards every plug-in it
    builds, so each command that plays one (match, tournament, evaluate, heldout, puzzle,
    a SelfPlay opponent) checks it; guarding twice is guarding once."""
    if isinstance(agent, Guarded) or not is_plugin_spec(spec):
        return agent
    return Guarded(agent, spec)


class TextAgent(EngineAgent):
    """An agent that asks a function for each decision: the function gets the seat's text
    view (`mtg_env.env.text.text_view`: what the seat may see and its legal actions numbered
    0, 1, ... in the order of `game.legal_actions()`) and returns the number of its
    choice, as an int (numpy integers included) or as a string holding it (the first whole
    number in the string's first 10,000 characters is read, so "I play 3" is 3).

    Fallback rule: a reply that is not one of the listed numbers (no number, out of range,
    a number of more than 9 digits, a bool, another type) is answered with a random legal
    action drawn from the agent's seeded generator, so a game goes on and stays
    reproducible; each such reply is counted in `fallbacks` (evaluate records the count)
    and reported by one warning line on stderr naming the reply (its repr cut to 80
    characters; `warn=None` silences it). A decision with a single legal action is played
    without asking (`asked` counts the questions)."""

    def __init__(
        self,
        fn: Callable[[str], Any],
        seed: int = 0,
        name: str = "text",
        warn: Callable[[str], None] | None = stderr_line,
    ) -> None:
        self.fn = fn
        self.name = name
        self.rng = random.Random(seed)
        self.fallbacks = 0  # replies that were not a listed number (a random move instead)
        self.asked = 0
        self.warn = warn

    def reset(self) -> None:
        pass

    def choose(self, game: Game) -> Action:
        legal = game.legal_actions()
        if len(legal) == 1:
            return legal[0]
        seat = game.current_player
        assert seat is not None
        view = text_view(game, seat, [(i, game.describe(a)) for i, a in enumerate(legal)])
        self.asked += 1
        reply = self.fn(view)
        n = parse_reply(reply)
        if n is not None and 0 <= n < len(legal):
            return legal[n]
        self.fallbacks += 1
        if self.warn is not None:
            self.warn(
                f"warning: {self.name}: reply {shown(reply)} is not a legal action number "
                f"(0-{len(legal) - 1}); playing a random legal action instead"
            )
        return self.rng.choice(legal)


def parse_reply(reply: Any) -> int | None:
    """The action number in a reply: an integer (not a bool; numpy integers too), or the
    first whole number in a string's first `MAX_REPLY_CHARS` characters; None otherwise,
    and for a number of more than `MAX_NUMBER_DIGITS` digits (no decision has that many
    actions). The reply is the plug-in's object: whatever its methods raise is no number."""
    try:
        if isinstance(reply, bool):
            return None
        if isinstance(reply, numbers.Integral):
            n = int(reply)
            return n if abs(n) < 10**MAX_NUMBER_DIGITS else None
        if isinstance(reply, str):
            head = str.__getitem__(reply, slice(0, MAX_REPLY_CHARS))
            m = _NUMBER.search(head)
            if m is None:
                return None
            if (
                m.end() == len(head) < str.__len__(reply)
                and str.__getitem__(reply, len(head)).isdigit()
            ):
                return None  # the number runs on past the part that is read
            return _bounded_int(m.group())
    except Exception:  # noqa: BLE001 - a reply whose __int__ or __index__ raises
        return None
    return None


def _bounded_int(text: str) -> int | None:
    # Leading zeros are dropped before int(): Python refuses to convert a string of more
    # than 4,300 digits, zeros included.
    digits = text.lstrip("-").lstrip("0") or "0"
    if len(digits) > MAX_NUMBER_DIGITS:
        return None
    return -int(digits) if text.startswith("-") else int(digits)
