"""
# MTG Duel

| Import             | `import mtg_env; env = mtg_env.env(format="classic")`              |
|--------------------|--------------------------------------------------------------------|
| Registered id      | `pettingzoo.make("aec", "mtg/duel-v0")` (after `import mtg_env`; PettingZoo 1.27+); entity observation: `mtg/duel_entity-v1` |
| Actions            | Discrete                                                           |
| Parallel API       | Through `pettingzoo.utils.conversions.turn_based_aec_to_parallel(mtg_env.raw_env())` |
| Manual control     | `mtg-env play --opponent SPEC` (terminal); `mtg-env replay html` shows games |
| Agents             | `agents = ['player_0', 'player_1']`                                |
| Action shape       | (1,)                                                               |
| Action values      | Discrete(N), N = `env.unwrapped.layout.n_actions` (825 for classic) |
| Observation shape  | dict: `observation` (F,) float32 in [0, 1] (F = 12786 for classic), `action_mask` (N,) int8 |
| State shape        | `env.state()`: (S,) float32 in [0, 1] (S = 25892 for classic); entity observation: a Dict of tables (see "State") |

A two-player game of a Magic: The Gathering-style card game on the full rules engine
(`mtg_env.engine`): turn steps, priority and the stack, instant/sorcery timing and flash,
combat with first and double strike, deathtouch, state-based actions and the layer system.
The acting agent is whoever the engine says must decide: priority passes, declarations of
attackers and blockers, target choices and other choices make the order irregular, so
always read `env.agent_selection`.

## Arguments

```python
import mtg_env

env = mtg_env.env(format="classic", decks=None, render_mode=None, max_decisions=3000,
                  auto_pass=True, reward_shaping=False, mulligans=True, replay_hashes=True,
                  obs_type="flat")  # the defaults
```

- `obs_type`: `"flat"` (`mtg/duel-v0`, `mtg_env/SelfPlay-v0`: the flat vector and the fixed
  action layout below) or `"entity"` (`mtg/duel_entity-v1`, `mtg_env/SelfPlayEntity-v1`:
  entity tables and candidate actions, see "Entity observation" below). The two are two
  envs, each with its own versions, not two versions of one env (see the version history);
  `gym.make("mtg_env/SelfPlay-v0", obs_type="entity")` is `SelfPlayEntity-v1`.

- `format`: rules format: `"classic"` (Magic), `"adventure"` (source 004: six phases, no
  lands, an automatic mana pool) or `"pocket"` (source 003: a shared 18-card pile, two-part
  cards, face-down mana sources; see `mtg_env.engine.formats` and `docs/pocket.md`). Each
  format has its own card set, so its own layout sizes (`N`, `F`); the layout rules below
  are the same. In pocket, `play[half]` casts a half of a card and `hand_card[card]` at
  priority plays that card face down as a mana source.
- `decks`: a pair of decks (bundled names, YAML paths or `Deck`s), or a list/tuple of
  three or more forming a pool from which each game samples two (seeded by `reset(seed=)`).
  Default: the pool of all bundled decks of the format.
- `render_mode`: `"ansi"` (render returns the board as text), `"human"` (prints it) or
  `"rgb_array"` (render returns the board as a picture: a (640, 960, 3) uint8 array,
  `mtg_env.env.image.SHAPE`, in every format; see "Rendering").
- `max_decisions`: decisions after which the game is truncated (both agents truncated): a
  positive int, or None for no cap.
- `auto_pass`: skip priority windows where passing is the only legal action (default on).
- `reward_shaping`: off by default. If on, each step also gives a zero-sum shaping reward of
  `0.01 * (change in own life - change in opponent life)` to each player.
- `mulligans`: London mulligans as decisions (default on).
- `replay_hashes`: the recorded replay (`env.unwrapped.replay()`) carries a state hash every
  10 decisions (default). Off, only the final state is hashed: training envs use this, since
  hashing costs about 6% of an env step.

## Observation space

`observation` is a flat float32 vector from the acting agent's point of view, every value
in [0, 1]; `env.unwrapped.layout.obs_slices` maps names to slices. It holds only what that
player may see: its own hand (counts per card identity), both battlefields, the stack,
graveyards, and sizes; never the opponent's hand identities or any library order.

| slice | meaning |
|---|---|
| `turn` | turn number / 50 |
| `step` | one-hot step (12 steps + pregame) |
| `active_is_me`, `first_is_me`, `i_decide` | flags |
| `decision` | one-hot decision kind (priority, target, declare_attackers, ...) |
| `life`, `hand_size`, `library_size`, `graveyard_size`, `mulligans` | (me, opponent), scaled |
| `land_played` | a land was played this turn (my turn) |
| `mana` | untapped mana sources able to pay W U B R G C, me then opponent, / 20 (pool formats: the mana left in the pool, in all six entries) |
| `stack_size`, `n_attackers` | scaled counts |
| `decision_source` | one-hot identity of the card the decision is about (spell being cast, ...) |
| `target_index`, `target_kind` | which target is being chosen and of what kind |
| `chosen_blocker` | one-hot own slot of the blocker being assigned |
| `n_options` | number of options of a choice / 40 |
| `hand` | own hand: count per card identity / 4 |
| `graveyard_own`, `graveyard_opp` | count per card identity / 4 |
| `permanents_own`, `permanents_opp` | 40 slots each (battlefield order), per slot: present, identity one-hot, types, colors, power/20, toughness/20, keywords, tapped, summoning sick, attacking, blocking, blocked, blocked attacker's slot, number of blockers, damage, +1/+1 and -1/-1 counters, token, controlled by non-owner, attached (to an opponent's permanent; the slot it is attached to), is a copy, has abilities |
| `stack` | 20 slots from the top: present, identity one-hot, spell/ability/trigger, mine, has targets |

Characteristics are as the layer system computes them (a copy shows the card it copies).

## Action space

`Discrete(N)` over a fixed layout; `env.unwrapped.layout.action_slices` names the slices
and `env.describe_action(i)` returns a readable string for the current state:

| slice | size | meaning |
|---|---|---|
| `pass` | 1 | pass priority; "done" when declaring attackers or blockers |
| `keep`, `mulligan` | 1, 1 | mulligan decision |
| `play` | cards | play a land or cast a spell with this card identity from hand |
| `hand_card` | cards | choose a card of this identity in hand (bottom, discard) |
| `activate` | 40 * 6 | own permanent slot k, ability j (card text order, mana abilities counted): k * 6 + j |
| `attack` | 40 | declare own permanent slot k as an attacker |
| `blocker` | 40 | choose own permanent slot k as a blocker |
| `block` | 40 | the chosen blocker blocks the opponent's permanent slot a |
| `target_player` | 2 | target yourself (0) or the opponent (1) |
| `object_own`, `object_opp` | 40, 40 | target or select a permanent (own or the opponent's slot) |
| `target_stack` | 20 | target the spell at this stack position (0 = top) |
| `target_graveyard_own`, `target_graveyard_opp` | cards | target a card of this identity in a graveyard; at a priority decision, `target_graveyard_own` casts it with flashback |
| `choose` | 40 | option c of a choice (mode, land type, yes/no, trigger order, ...) |

Cards in hand and graveyard are identified by name: two copies of a card are equivalent
there, so the index of "cast this card" is the same in every state. Every legal engine
action has an index; a state that would exceed the slot counts (more than 40 permanents on
one side, a stack deeper than 20) is truncated instead (`infos[agent]["truncated_reason"]`).

## Legal action mask

`action_mask` (int8, N) is exactly the engine's legal actions for the acting agent, and all
zeros for the other agent. `step` takes an integer index (a Python or numpy integer, or a
0-d integer array); a bool, a float or a string is a `TypeError`, never a rounded move.
`reset(seed=)` takes a non-negative int or None. In the AEC env a finished agent's mask is
all zeros, like the waiting agent's: PettingZoo's convention is that its action is None (for
both observation types). The self-play envs (single agent, below) carry the learner's mask
in `info["action_mask"]` on every reset and step, in `action_masks()` and, with the entity
observation, in the observation's `action_mask`: the same mask in all three. Once the
episode is over (the game ended, or an illegal action ended it) that mask allows index 0
alone (`pass`), never nothing, so code that masks logits with -inf stays finite, also on
the final observation that an autoreset passes on. `raw_env.step` with a masked-out action
raises the engine's `IllegalActionError` with the reason; the wrapped `env()` follows
PettingZoo's convention (`TerminateIllegalWrapper`: the game ends and the offender gets -1).

## Entity observation and candidate actions (`obs_type="entity"`)

Sizes do not depend on the card set, so a policy can read cards it has not seen and a
bigger card pool changes no index. The observation is a Dict of fixed-size tables, about
6.5 KB per step (flat: 51 KB):

| key | shape, dtype | meaning |
|---|---|---|
| `global` | (35,) int16 | turn, step, decision kind, life, hand, library and graveyard sizes, mana available, ... |
| `objects` | (192, 25) uint8 | one row per visible object: own hand, the stack (top first), own then the opponent's battlefield, graveyards, exile; characteristics as the layer system computes them and status |
| `object_card` | (192,) int16 | the object's card (index into `env.unwrapped.layout.card_names`): for embedding lookups |
| `object_mask` | (192,) int8 | 1 for a row that holds an object |
| `candidates` | (128, 5) int16 | one row per legal move of the current decision: kind, source row, target row, target player, option |
| `action_mask` | (128,) int8 | 1 for a candidate row (the first `n` rows, `n` legal moves) |

Every field of every table, with its meaning, is listed on the env card (generated from
`mtg_env.env.entity`). A row reference is row + 1 (0: none). The action is `Discrete(128)`:
index i plays candidate row i. Candidates are the distinct legal moves (two copies of a card
in hand are one move), in the order of the flat layout's indices, so replays record the same
integers for both observations. Hidden information is as in the flat observation: the
opponent's hand is a count, a face-down card shows as a face-down source. A state with more
objects or more moves than the tables hold is truncated with a reason (never seen in the
fuzz runs). PettingZoo's `api_test` checks the entity env from PettingZoo 1.27 on (before,
it expects a Dict observation to hold one array under `observation`).

## Single-agent self-play (`mtg_env/SelfPlay-v0`, `mtg_env/SelfPlayEntity-v1`)

`SelfPlayEnv` (`mtg_env.env.selfplay`) is the duel for one learner: the opponent (an agent
spec such as `"random"`, an agent, or a callable `(observation, mask, info) -> int`) moves
inside `step`. `reset(seed=s)` seeds the game, the opponent and the learner's seat: the
first episode's seat comes from the seed (`mtg_env.env.selfplay.learner_seat(s)`, 0 or 1),
so an evaluation over many seeds plays both seats and one seed always the same seat and the
same game; later resets without a seed alternate the seat. `info["learner_seat"]` says which
seat it is; `reset(options={"learner_seat": k})`, k 0 or 1, sets it for one episode.

## Observations with the mask, for RL libraries

Tianshou (`PettingZooEnv`), PettingZoo's Stable-Baselines3 action-masking tutorial and
RLlib's action-masking RL module read the mask from the observation, `{"observation": X,
"action_mask": M}` (RLlib's module: `"observations"`). `mtg_env.env.wrappers` gives every
env that shape: `MaskedObservationAEC(env)` for the AEC env, `MaskedObservation(env)` for
the self-play env. `view="flat"` (default) makes `X` one float32 vector (the flat
observation, or the entity tables other than the mask, flattened in a fixed order),
`view="tables"` keeps the entity tables, `key="observations"` is RLlib's name. The mask is
the env's own, unchanged. AgileRL reads the mask from `info["action_mask"]` and refuses an
observation that holds one: the self-play env gives it that as it is (entity tables
flattened: `MaskedObservation(env, mask_in_observation=False)`).

```python
import mtg_env
from mtg_env.env.selfplay import SelfPlayEnv
from mtg_env.env.wrappers import MaskedObservation, MaskedObservationAEC

aec = MaskedObservationAEC(mtg_env.env(obs_type="entity"))  # Tianshou: PettingZooEnv(aec)
sp = MaskedObservation(SelfPlayEnv(obs_type="entity"), key="observations")  # RLlib
```

## Text view

`env.unwrapped.text(agent=None)` returns what `agent` (default: the acting one) may see and
its legal actions as a numbered list, the numbers being the indices `step` takes (candidate
rows in the entity env, flat indices in the flat one): plain text for an LLM agent's prompt
(`mtg_env.env.text`).

## Observers

What a seat sees and how its moves are numbered is the env's observer,
`env.unwrapped.observer` (`mtg_env.env.observers`, OpenSpiel's observer pattern):
`FlatObserver` for `obs_type="flat"`, `EntityObserver` for `"entity"`, and `TextObserver`
behind the text view. Each declares its named, shaped `pieces` (the slices of the flat vector
with their meanings; the entity tables with their columns; the env card lists them), its
spaces (`space`: a single-agent learner's observation, `aec_space`: PettingZoo's, with the
mask), and builds a seat's observation (`observe(game, seat, legal, out)`, into
preallocated arrays when given) and its legal moves (`legal(game, seat)`: the mask and index
-> engine action; `env.unwrapped.legal_moves()` for the acting seat now). `raw_env`,
`SelfPlayEnv`, `DuelBatch` and the RLlib env share one step (`mtg_env.env.step.advance`).

## State (privileged)

`env.state()` and `env.state_space` (PettingZoo's state API) give the whole game, for
centralized critics (MAPPO-style value functions) and analysis: both hands, the libraries in
order and what each face-down card is. This is privileged information: no observation,
mask, candidate list or text view contains it or is built from it, and a policy that acts
from it sees what its player cannot. Use it for critics, never for actors. Its size is
fixed per format, every state lies in `state_space`, and PettingZoo's `state_test` passes
(parallel API: `turn_based_aec_to_parallel`, whose `state()` is this one). A call takes
about 0.2 ms (flat) or 0.7 ms (entity) for classic.

Flat observation: a float32 vector in [0, 1], `Box(0, 1, (S,))`;
`env.unwrapped.state_layout.slices` maps names to slices:

| slice | size | meaning |
|---|---|---|
| `player_0`, `player_1` | F, F | each player's observation (above): between them, both hands and everything public |
| `library_0`, `library_1` | cards | each library's cards: count per card identity / deck size |
| `library_order_0`, `library_order_1` | deck size | each library from the top: (card index + 1) / number of card identities, 0 past its end; `round(v * n) - 1` is the index into `layout.card_names` |
| `face_down_0`, `face_down_1` | 40 | per permanent slot of that player (its observation's `permanents_own` slots): the card a face-down source is, coded as in `library_order`, 0 for a card face up |

In pocket, the one shared pile is `library_0` and `library_1` stays empty. A library longer
than the deck size (only from a scripted position) shows its top cards. S = 2 F + 2 (cards
+ deck size + 40): 25892 for classic.

Entity observation: a Dict of tables with the entity observation's conventions, from
player_0's side:

| key | shape, dtype | meaning |
|---|---|---|
| `global` | (2, 35) int16 | row s: the `global` features of player_s's observation (its `candidates`: the number of legal moves when it acts, else 0) |
| `objects` | (192 + 2 D, 25) uint8 | player_0's observation rows as they are (row references unchanged), then the hidden zones: player_1's hand (zone 6), then each library from the top (zone 7, player_0's first), each card encoded as a card in hand; `mine` and `owned` mean player_0's |
| `object_card` | (192 + 2 D,) int16 | the card of each row |
| `object_mask` | (192 + 2 D,) int8 | 1 for a row that holds an object (the first rows) |
| `face_down_card` | (192 + 2 D,) int16 | card index + 1 of the card a face-down row is (0: not face down) |

D is the format's deck size (40 in classic and core, 30 in adventure, 18 in pocket): 272
rows in classic. PettingZoo's `state_test` warns that this state is not one array, and
checks that every state lies in the state space.

## Rendering

`render()` draws what the text board (`mtg_env.render`) lists: the turn, step and pending
decision; each player's life, library, graveyard and hand sizes (and pool mana); the hand;
each permanent with power/toughness, damage, counters, keywords, tapped (dimmed), summoning
sick, attacking (red border), blocking (blue border) and what it is attached to; the stack
(top first, bordered in its controller's colour). `"rgb_array"` returns it as a picture of
one fixed size (`mtg_env.env.image`, Pillow's built-in font): for Gymnasium's `RecordVideo`
(which writes videos with moviepy) and `RenderCollection`, PettingZoo's `render_test`, and Stable-Baselines3's `make_vec_env`,
which makes its envs with `render_mode="rgb_array"`. The visibility rules are the text's:
`raw_env` and `env()` show both hands (a spectator's board); the self-play envs show the
learner's view, the opponent's hand as card backs, with the learner in the lower half. A
frame takes about 3 to 7 ms (classic and core random games on one CPU core; 18 ms at most),
so video recording costs little beside the game; `metadata["render_fps"]` is 1.

## Rewards

+1 for a win, -1 for a loss, 0 for a draw or a truncation, given when the game ends (also to
the player who did not make the last move). Optional shaping: see `reward_shaping`.

## Copies

`copy.deepcopy(env)` and `pickle` copy the live game (the same observation, mask and state
hash afterwards; the copy is independent), for `raw_env`, `env()` and the self-play envs.
The package pickles as its import, so an env factory that names it (`lambda:
mtg_env.env()`) travels to subprocesses (Stable-Baselines3's `SubprocVecEnv`, Gymnasium's
`AsyncVectorEnv` with `spawn`) and to Ray workers (`ray.tune.register_env`).

## Version history

The flat and the entity observation are two envs, each with its own version number:
`mtg/duel-v0` and `mtg_env/SelfPlay-v0` (flat), `mtg/duel_entity-v1` and
`mtg_env/SelfPlayEntity-v1` (entity). A version counts changes of one env, as in
Gymnasium's and PettingZoo's ids.

* Entity envs, v0 -> v1 (`mtg/duel_entity-v1`, `mtg_env/SelfPlayEntity-v1`,
  `metadata["name"]` `mtg_duel_entity_v1`; the v0 ids are no longer registered: their
  observations cannot be made any more). Two fixes of the observation:
  * The object table has a 25th column, `keywords3` (keyword bits 24-31). The 25th keyword,
    `ward`, had no bit: 24 bits for 25 keywords, so a v1 agent could not see ward on the
    core set's cards that have it.
  * The candidate rows of "pass", "keep", "mulligan" and a choice by its index have no
    `source_row`. They had one by mistake: the engine's action names no object there (its
    object field is 0), and the row took card 0's row whenever that card was on the
    battlefield.

  A policy trained on v0 does not load (the loader names the table width it expected);
  retrain it on v1. Migrate by replacing `-v0` with `-v1` in the entity ids.
* All envs (no version change: additions only; observations, actions and rewards
  unchanged): `state()` and `state_space` (see "State"), `render_mode="rgb_array"` (see
  "Rendering"; Stable-Baselines3's `make_vec_env` works with the self-play envs);
  `env.unwrapped.observer` and `legal_moves()` (see "Observers").
* Ids: the entity envs were registered as `mtg/duel-v1` and `mtg_env/SelfPlay-v1`, as if
  they were a newer version of the flat envs, so Gymnasium told every `SelfPlay-v0` user it
  was out of date and an unversioned `mtg/duel` made the entity env. They are now
  `mtg/duel_entity-v0` and `mtg_env/SelfPlayEntity-v0`, the same envs (arguments,
  observations, actions and rewards unchanged; `metadata["name"]` is `mtg_duel_entity_v0`).
  The old ids are not registered (registered, `SelfPlay-v1` would make Gymnasium warn every
  `SelfPlay-v0` user again): Gymnasium and PettingZoo answer them with their "version not
  found" errors. To migrate, replace `mtg_env/SelfPlay-v1` with `mtg_env/SelfPlayEntity-v0`
  and `mtg/duel-v1` with `mtg/duel_entity-v0`; `obs_type="entity"` works as before.
* Self-play envs (both ids stay at v0): the learner's first seat after `reset(seed=s)` comes
  from the seed (it was always seat 0), so a seeded episode is not the one it was; the
  entity observation's `action_mask` once the episode is over allows index 0 alone, as
  `info["action_mask"]` does (it was all zeros). The wrappers of `mtg_env.env.wrappers`.
  The `mtg_env` package pickles (it could not), so env factories that name it reach
  subprocesses and Ray workers.
* Entity v0 (first registered as `mtg/duel-v1`): the entity observation and candidate
  actions (`obs_type="entity"`) and the text view; the flat env unchanged.
* v0: first release; the `adventure` and `pocket` formats added (classic observations and
  actions unchanged). Arguments are checked where they enter (actions, seeds, constructor
  arguments), copies keep the game, and `SelfPlay-v0` reseeds its opponent from
  `reset(seed=)` and puts `action_mask` in `info` (observations, actions and rewards
  unchanged).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..engine import Action, Deck, Game, IllegalActionError, load_cards, load_decks, resolve_deck
from ..engine.formats import FORMATS, rules_for
from ..render import render as render_board
from .observers import OBSERVERS, Legal, Observer, TextObserver, make_observer
from .replay import HASH_EVERY, NO_INTERMEDIATE_HASHES, Recorder
from .spaces import Layout
from .step import TERMINATED, TRUNCATED, advance, engine_move

AGENTS = ("player_0", "player_1")
# Observation types: the flat vector and the entity tables with candidate actions are two
# envs, each at version 0, each the env of its observer (`mtg_env.env.observers`).
OBS_TYPES = tuple(OBSERVERS)


def as_action(action: Any, where: str = "step") -> int:
    """An action index: a Python or numpy integer (or a 0-d integer array, as some
    libraries pass). A bool, a float such as 1.7 or a string such as "1" is a TypeError:
    silently turning them into an index would play a move nobody chose."""
    if type(action) is int:  # the hot path: one type check
        return action
    if isinstance(action, np.ndarray) and action.shape == () or isinstance(action, np.generic):
        if np.issubdtype(action.dtype, np.integer):
            return int(action)
    elif isinstance(action, int) and not isinstance(action, bool):
        return int(action)
    raise TypeError(
        f"{where}: an action is an integer index, not {type(action).__name__} {action!r}"
    )


def check_seed(seed: Any, where: str = "reset") -> int | None:
    """A seed: a non-negative integer (numpy integers too) or None."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise TypeError(f"{where}: seed must be an int or None, not {type(seed).__name__} {seed!r}")
    if seed < 0:
        raise ValueError(f"{where}: seed must be non-negative, not {seed}")
    return int(seed)


def check_args(format: Any, max_decisions: Any, flags: dict[str, Any]) -> None:
    """The constructor's arguments, checked before any work (one error naming the argument)."""
    if not isinstance(format, str) or format not in FORMATS:
        raise ValueError(f"format must be one of {sorted(FORMATS)}, not {format!r}")
    if max_decisions is not None and (
        isinstance(max_decisions, bool)
        or not isinstance(max_decisions, int | np.integer)
        or max_decisions < 1
    ):
        raise ValueError(f"max_decisions must be a positive int or None, not {max_decisions!r}")
    for name, value in flags.items():
        if not isinstance(value, bool | np.bool_):
            raise TypeError(f"{name} must be True or False, not {value!r}")


def env(**kwargs: Any) -> AECEnv:
    """The wrapped environment (PettingZoo's standard wrappers)."""
    e: AECEnv = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


def env_entity(**kwargs: Any) -> AECEnv:
    """`mtg/duel_entity-v1`: the wrapped environment with the entity observation."""
    return env(**{"obs_type": "entity", **kwargs})


class raw_env(AECEnv, EzPickle):  # noqa: N801 - PettingZoo's naming convention
    metadata: dict[str, Any] = {
        "render_modes": ["ansi", "human", "rgb_array"],
        "name": "mtg_duel_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        format: str = "classic",
        decks: Any = None,
        render_mode: str | None = None,
        max_decisions: int = 3000,
        auto_pass: bool = True,
        reward_shaping: bool = False,
        mulligans: bool = True,
        replay_hashes: bool = True,
        obs_type: str = "flat",
    ) -> None:
        EzPickle.__init__(
            self,
            format,
            decks,
            render_mode,
            max_decisions,
            auto_pass,
            reward_shaping,
            mulligans,
            replay_hashes,
            obs_type,
        )
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        check_args(
            format,
            max_decisions,
            {
                "auto_pass": auto_pass,
                "reward_shaping": reward_shaping,
                "mulligans": mulligans,
                "replay_hashes": replay_hashes,
            },
        )
        self.format = format
        self.render_mode = render_mode
        self.max_decisions = max_decisions
        self.auto_pass = auto_pass
        self.reward_shaping = reward_shaping
        self.mulligans = mulligans
        self.replay_hashes = replay_hashes
        self.deck_pool, self.fixed_pair = _deck_spec(decks, format)
        self.obs_type = obs_type
        self.layout = Layout(load_cards(format))
        # What a seat sees and how its moves are numbered: the flat vector (v0) or the
        # entity tables with candidate actions (v1).
        self.observer: Observer = make_observer(obs_type, self.layout)
        self.metadata = {**self.metadata, "name": self.observer.env_name}
        self.n_actions = n = self.observer.n_actions
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        self.action_spaces = {a: spaces.Discrete(n) for a in AGENTS}
        self.observation_spaces = {a: self.observer.aec_space for a in AGENTS}
        # The global state (`state()`): privileged information for critics, never observed.
        self.state_layout = self.observer.state_layout(rules_for(format).deck_size)
        self.state_space = self.state_layout.space
        self.game: Game | None = None
        self._seed: int | None = None
        self._rng = random.Random()
        # The acting seat's legal moves, built once per state (None: not built yet).
        self._legal: Legal | None = None
        self._rewarded = False  # some entry of self.rewards is not 0
        # A seat whose agent moves with `step_engine` (SelfPlay-v0's engine opponent): its
        # legal actions need no index, so its mask is built only if asked for.
        self.engine_seat: int | None = None
        self.decks: tuple[Deck, Deck] | None = None
        self.recorder: Any = None
        self.agent_names: list[str] = ["unknown", "unknown"]  # specs recorded in replays

    # ------------------------------------------------------------------ spaces

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    @property
    def action_layout(self) -> dict[str, slice]:
        return self.layout.action_slices

    @property
    def observation_layout(self) -> dict[str, slice]:
        return self.layout.obs_slices

    # ------------------------------------------------------------------ core API

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        seed = check_seed(seed)
        if seed is not None:
            self._rng.seed(seed)
        elif self._seed is None:
            self._rng.seed(random.SystemRandom().getrandbits(63))
        self._seed = self._rng.getrandbits(63) if seed is None else seed
        pair = pick_pair(self._rng, self.deck_pool, self.fixed_pair, self.format)
        self.decks = pair
        game_seed = self._rng.getrandbits(63)
        self.game = Game.new(
            pair,
            seed=game_seed,
            format=self.format,
            auto_pass=self.auto_pass,
            mulligans=self.mulligans,
            max_decisions=self.max_decisions,
        )
        self.recorder = Recorder(
            self.game,
            pair,
            game_seed,
            agents=list(self.agent_names),
            options={
                "mulligans": self.mulligans,
                "auto_pass": self.auto_pass,
                "max_decisions": self.max_decisions,
            },
            hash_every=HASH_EVERY if self.replay_hashes else NO_INTERMEDIATE_HASHES,
        )
        self._start_episode()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        g = self._g()
        seat = AGENTS.index(agent)
        legal = self.legal_moves() if g.current_player == seat else None
        return self.observer.aec_observation(g, seat, legal)

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        i = as_action(action)
        g = self._g()
        legal = self.legal_moves()
        a = legal.actions.get(i)
        if a is None:
            raise IllegalActionError(self._illegal_reason(i))
        # Replays record the flat layout's index (v1 candidate rows map onto it).
        self._step_to(agent, g, self.observer.flat_index(legal, i), a)

    def step_engine(self, action: Action) -> None:
        """`step(index_of(action))` for an agent that decides from the engine state (the
        `SelfPlay-v0` opponent): the same move and the same replay, without building the
        mask of the acting seat. The action is replaced, like an index, by the first legal
        action with its index (e.g. the first of two Forests in hand)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            raise RuntimeError("step_engine() called after the game ended; call reset()")
        g = self._g()
        i, canon = engine_move(self.layout, g, action)
        self._step_to(agent, g, i, canon)

    def _step_to(self, agent: str, g: Game, index: int, a: Action) -> None:
        """The shared step (`mtg_env.env.step.advance`), then PettingZoo's bookkeeping."""
        self._cumulative_rewards[agent] = 0.0
        self._legal = None
        rewards, status, reason = advance(
            g,
            a,
            self.observer,
            self._unindexed,
            self.reward_shaping,
            self.engine_seat,
            lambda: self.recorder.record(index),
        )
        # Most steps carry no reward: the reward dicts are touched only when one does.
        if self._rewarded:
            self._clear_rewards()
            self._rewarded = False
        if rewards is not None:
            self.rewards[AGENTS[0]], self.rewards[AGENTS[1]] = rewards
            self._rewarded = True
        if not g.is_over:
            self._sync()
        if status == TERMINATED:
            self.terminations = dict.fromkeys(self.agents, True)
            for ag in self.agents:
                self.infos[ag] = {"winner": g.winner}
        elif status == TRUNCATED:
            assert reason is not None
            self._truncate(reason)
        if self._rewarded:
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _unindexed(self) -> int:
        return self.legal_moves().missing

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            return None
        if self.render_mode == "rgb_array":
            # Loaded on first use: an env that never draws does not load Pillow.
            from .image import draw_board

            return draw_board(self._g())
        text = render_board(self._g())
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def state(self) -> np.ndarray | dict[str, np.ndarray]:
        """The global state (see "State" above): privileged information, everything both
        players hold and the library order, for centralized critics and analysis. No
        observation is built from it; it lies in `state_space`."""
        g = self._g()
        legal = self.legal_moves() if g.current_player is not None else None
        return self.state_layout.state(g, None if legal is None else legal.detail)

    def close(self) -> None:
        pass

    # EzPickle would rebuild a copy from the constructor's arguments, losing the game: a
    # copy (pickle, copy.deepcopy) holds the whole live state instead.
    def __getstate__(self) -> dict[str, Any]:
        return self.__dict__.copy()

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    # ------------------------------------------------------------------ helpers

    def _start_episode(self) -> None:
        """PettingZoo bookkeeping for a fresh game (after `reset` or `set_game`)."""
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._rewarded = False  # some entry of self.rewards is not 0
        self._legal = None
        self._sync()

    def set_game(self, game: Game) -> None:
        """Continue from an engine position (e.g. a scenario's `Game.setup`) instead of a
        new game: evaluation on puzzles, debugging a position. Recording starts here."""
        self.game = game
        self.decks = None
        self.recorder = Recorder(game, [], 0, agents=list(self.agent_names))
        self._start_episode()

    def replay(self) -> dict[str, Any]:
        """The game played since the last reset, as a replay (see `mtg_env.replay`)."""
        if self.recorder is None:
            raise RuntimeError("call reset() before asking for a replay")
        return self.recorder.to_dict()

    def save_replay(self, path: str) -> None:
        """Write the game played since the last reset as a replay file (atomically)."""
        self.recorder.save(path)

    def describe_action(self, i: int) -> str:
        """A readable string for action index `i` in the current state."""
        a = self.legal_moves().actions.get(int(i))
        slot = self.observer.describe_index(int(i))
        if a is None:
            return f"{slot} (not legal now)"
        return f"{slot}: {self._g().describe(a)}"

    def action_for(self, i: int) -> Action | None:
        """The engine action behind index `i` now, or None if it is masked out."""
        return self.legal_moves().actions.get(int(i))

    def index_of(self, action: Action) -> int:
        """The index of a legal engine action for the acting agent."""
        g = self._g()
        seat = g.current_player
        assert seat is not None
        own, opp, stack = self.layout.slots(g, seat)
        i = self.layout.action_index(g, action, seat, own, opp, stack)
        return self.observer.index_of_flat(self.legal_moves(), i)

    def text(self, agent: str | None = None) -> str:
        """The game as `agent` (default: the acting agent) may see it, and a numbered list
        of its legal actions, the numbers being the indices `step` takes: plain text for a
        prompt (see `mtg_env.env.text`)."""
        g = self._g()
        agent = self.agent_selection if agent is None else agent
        seat = AGENTS.index(agent)
        legal = self.legal_moves() if g.current_player == seat else None
        return TextObserver(self.observer).observe(g, seat, legal)

    def _g(self) -> Game:
        if self.game is None:
            raise RuntimeError("call reset() before using the environment")
        return self.game

    def legal_moves(self) -> Legal:
        """The acting seat's legal moves as the observer indexes them (mask, index -> engine
        action), built once per state."""
        if self._legal is None:
            g = self._g()
            seat = g.current_player
            self._legal = self.observer.no_moves() if seat is None else self.observer.legal(g, seat)
        return self._legal

    def _sync(self) -> None:
        g = self._g()
        if g.current_player is not None:
            self.agent_selection = AGENTS[g.current_player]

    def _truncate(self, reason: str) -> None:
        self.truncations = dict.fromkeys(self.agents, True)
        for ag in self.agents:
            self.infos[ag] = {"truncated_reason": reason}

    def _illegal_reason(self, i: int) -> str:
        g = self._g()
        if not 0 <= i < self.n_actions:
            return f"action {i} is outside Discrete({self.n_actions})"
        slot = self.observer.describe_index(i)
        legal = ", ".join(self.describe_action(j) for j in sorted(self.legal_moves().actions)[:8])
        return (
            f"action {i} ({slot}) is not legal for {self.agent_selection} at this "
            f"{g.decision.name if g.decision else ''} decision; legal: {legal}"
        )


def pick_pair(
    rng: random.Random, pool: list[Deck], fixed: tuple[Deck, Deck] | None, fmt: str
) -> tuple[Deck, Deck]:
    """The decks of a new game: the fixed pair, or two distinct decks of the pool drawn
    with `rng` (one deck for both seats where the format has one shared pile)."""
    if fixed is not None:
        return fixed
    if len(pool) == 1 or rules_for(fmt).piles == 1:
        # One shared pile (pocket), or one deck: both seats play it.
        d = pool[rng.randrange(len(pool))]
        return (d, d)
    a, b = rng.sample(range(len(pool)), 2)
    return (pool[a], pool[b])


def _deck_spec(decks: Any, fmt: str) -> tuple[list[Deck], tuple[Deck, Deck] | None]:
    if decks is None:
        pool = list(load_decks(fmt).values())
        return pool, None
    if isinstance(decks, str | Deck):
        raise ValueError("decks: give a pair of decks or a pool of three or more")
    items = [resolve_deck(d, fmt) for d in decks]
    if len(items) == 2:
        return items, (items[0], items[1])
    if len(items) < 2:
        raise ValueError("decks: give a pair of decks or a pool of three or more")
    return items, None
