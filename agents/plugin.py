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
command: it is code by design, given on the command line. Specs are never loaded from a
data file or a results file: a resumed evaluation reads only JSON and compares the spec
stored there as text.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
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

TEXT_PREFIX = "text:"
BUILTIN_NAMES = ("random", "heuristic", "ismcts", "policy")  # specs that are never plug-ins
_FILE_MODULES: dict[str, ModuleType] = {}  # a file's module is run once per process


class PluginError(ValueError):
    """A plug-in spec that can't be loaded (one line naming the spec and what is wrong)."""


def is_plugin_spec(spec: str) -> bool:
    """A spec with a colon whose first part is not a built-in agent's name."""
    return ":" in spec and spec.split(":", 1)[0].strip().lower() not in BUILTIN_NAMES


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
    except Exception as e:  # noqa: BLE001 - the user's code failed: one line naming it
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
    except Exception as e:  # noqa: BLE001 - the user's module failed on import
        raise PluginError(
            f"agent spec {spec!r}: importing {where!r} failed: {type(e).__name__}: {_first(e)}"
        ) from None
    finally:
        if added:
            sys.path.remove(cwd)


def _first(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


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
        except Exception as e:  # noqa: BLE001 - the user's constructor failed
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


def _stderr_line(line: str) -> None:
    print(line, file=sys.stderr)


_NUMBER = re.compile(r"-?\d+")


class TextAgent:
    """An agent that asks a function for each decision: the function gets the seat's text
    view (`mtg_env.env.text.text_view`: what the seat may see and its legal actions numbered
    0, 1, ... in the order of `game.legal_actions()`) and returns the number of its
    choice, as an int or as a string holding it (the first whole number in the string is
    read, so "I play 3" is 3).

    Fallback rule: a reply that is not one of the listed numbers (no number, out of range,
    a bool, another type) is answered with a random legal action drawn from the agent's
    seeded generator, so a game goes on and stays reproducible; each such reply is counted
    in `fallbacks` (evaluate records the count) and reported by one warning line on stderr
    naming the reply (`warn=None` silences it). A decision with a single legal action is
    played without asking (`asked` counts the questions)."""

    def __init__(
        self,
        fn: Callable[[str], Any],
        seed: int = 0,
        name: str = "text",
        warn: Callable[[str], None] | None = _stderr_line,
    ) -> None:
        self.fn = fn
        self.name = name
        self.rng = random.Random(seed)
        self.fallbacks = 0
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
        shown = repr(reply)
        shown = shown if len(shown) <= 80 else shown[:77] + "..."
        if self.warn is not None:
            self.warn(
                f"warning: {self.name}: reply {shown} is not a legal action number "
                f"(0-{len(legal) - 1}); playing a random legal action instead"
            )
        return self.rng.choice(legal)


def parse_reply(reply: Any) -> int | None:
    """The action number in a reply: an int (not a bool), or the first whole number in a
    string; None otherwise."""
    if isinstance(reply, bool):
        return None
    if isinstance(reply, int):
        return reply
    if isinstance(reply, str):
        m = _NUMBER.search(reply)
        return int(m.group()) if m else None
    return None
