"""Env traces: per format and observation type, one digest over everything the three envs
show along seeded random play: the AEC env (`raw_env`: both seats' observations and masks,
rewards, flags and infos, `state()`, the text view, `describe_action`, `index_of`, the
replay), the self-play env (against a random and a heuristic opponent: observations,
rewards, flags, infos with masks) and `DuelBatch` (self-play and learner modes, same-step
and next-step autoreset: every batch array and every ended game's info). Recorded in
tests/data/identity/envs.json and compared by tests/env/test_identity.py: a refactor of the envs
or the observers must leave every digest as it is. Regenerate on purpose with
`pytest tests/env/test_identity.py --regen-identity`."""

from __future__ import annotations

import hashlib
import random
from typing import Any

OBS_TYPES = ("flat", "entity")


def _feed(h: Any, x: Any) -> None:
    import numpy as np

    if isinstance(x, dict):
        for k in sorted(x):
            h.update(str(k).encode())
            _feed(h, x[k])
    elif isinstance(x, np.ndarray):
        h.update(f"{x.dtype}{x.shape}".encode())
        h.update(np.ascontiguousarray(x).tobytes())
    elif isinstance(x, list | tuple):
        for y in x:
            _feed(h, y)
    else:
        h.update(repr(x).encode())


def aec_digest(fmt: str, obs_type: str) -> str:
    import numpy as np

    from mtg_env.env import raw_env

    h = hashlib.sha256()
    for seed in range(3):
        env = raw_env(format=fmt, obs_type=obs_type, reward_shaping=seed == 1)
        env.reset(seed=seed)
        rng = random.Random(seed)
        for agent in env.agent_iter(max_iter=400):
            for a in env.agents:
                _feed(h, env.observe(a))
            obs, r, term, trunc, info = env.last()
            _feed(h, [agent, r, term, trunc, info, env.rewards])
            if term or trunc:
                env.step(None)
                continue
            _feed(h, env.state())
            legal = np.flatnonzero(obs["action_mask"])
            if rng.random() < 0.1:
                _feed(h, env.text())
                _feed(h, [env.describe_action(int(i)) for i in legal[:5]])
            a = int(legal[rng.randrange(len(legal))])
            found = env.action_for(a)
            assert found is not None
            _feed(h, env.index_of(found))
            env.step(a)
        _feed(h, env.replay())
    return h.hexdigest()


def selfplay_digest(fmt: str, obs_type: str, opponent: str) -> str:
    import numpy as np

    from mtg_env.env.selfplay import SelfPlayEnv

    h = hashlib.sha256()
    e = SelfPlayEnv(format=fmt, obs_type=obs_type, opponent=opponent)
    for seed in range(2):
        _feed(h, e.reset(seed=seed))
        rng = random.Random(seed)
        for _ in range(150):
            legal = np.flatnonzero(e.action_masks())
            step = e.step(int(legal[rng.randrange(len(legal))]))
            _feed(h, step)
            if step[2] or step[3]:
                _feed(h, e.reset())
        _feed(h, e.text())
    return h.hexdigest()


def batch_digest(fmt: str, obs_type: str, opponent: str | None, mode: str) -> str:
    import numpy as np

    from mtg_env.vector.batch import DuelBatch

    h = hashlib.sha256()
    b = DuelBatch(4, format=fmt, obs_type=obs_type, opponent=opponent, autoreset_mode=mode)
    b.reset(seed=7)
    rng = random.Random(7)
    for _ in range(120):
        b.step(np.array([rng.choice(np.flatnonzero(row).tolist()) for row in b.action_masks()]))
        _feed(h, b.arrays())
        _feed(h, b.finals)
    return h.hexdigest()


def trace(fmt: str) -> dict[str, str]:
    """Every digest of one format, by name."""
    out = {}
    for ot in OBS_TYPES:
        out[f"aec/{ot}"] = aec_digest(fmt, ot)
        for opp in ("random", "heuristic"):
            out[f"selfplay/{ot}/{opp}"] = selfplay_digest(fmt, ot, opp)
        for opp_or_none in (None, "random", "heuristic"):
            for mode in ("SameStep", "NextStep"):
                out[f"batch/{ot}/{opp_or_none}/{mode}"] = batch_digest(fmt, ot, opp_or_none, mode)
    return out
