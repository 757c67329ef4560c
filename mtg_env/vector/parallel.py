"""`ParallelDuelBatch`: a `DuelBatch` whose games are shared among worker processes, each
stepping its slice of the games into shared-memory batch arrays. One `step` call sends
the actions to every worker at once and waits for all; the caller reads the same arrays
as from a `DuelBatch`, and the games are the same (game i is seeded the same way whatever
the number of workers). See `mtg_env.vector`.

Once closed, the batch refuses every method and array (`RuntimeError: ParallelDuelBatch is
closed`); arrays taken before `close()` stay readable (the memory is released with the last
of them) but are no longer written."""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import weakref
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from multiprocessing.shared_memory import SharedMemory
from typing import Any

import numpy as np

from ..engine import IllegalActionError
from .batch import (
    DISABLED,
    DuelBatch,
    check_actions,
    check_learner_seat,
    check_reset_mask,
    ended_message,
    game_seeds,
    illegal_message,
)

# The batch arrays, as `DuelBatch` names them.
ARRAYS = (
    "obs",
    "masks",
    "seats",
    "rewards",
    "learner_rewards",
    "terminated",
    "truncated",
    "needs_reset",
)


class _Block(SharedMemory):
    """A shared-memory block whose mapping outlives `close()` while an array taken from it
    is alive (unmapping it would leave the array pointing at unmapped memory): the mapping
    goes with the last such array."""

    def close(self) -> None:
        try:
            super().close()
        except BufferError:
            # An array still holds the mapping; only the file descriptor can go now.
            fd: int = getattr(self, "_fd", -1)
            if fd >= 0:
                os.close(fd)
                self._fd = -1

    def __del__(self) -> None:
        with contextlib.suppress(OSError):
            self.close()


class _SharedArray:
    """A batch array of a `ParallelDuelBatch`, refused once the batch is closed."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, objtype: type | None = None) -> Any:
        if obj is None:
            return self
        obj._check_open()
        return obj._views[self.name]


def _split(n: int, k: int) -> list[tuple[int, int]]:
    """`k` contiguous slices of range(n), sizes differing by at most one."""
    bounds = [round(i * n / k) for i in range(k + 1)]
    return [(bounds[i], bounds[i + 1]) for i in range(k)]


def _worker(
    conn: Connection,
    layout: dict[str, tuple[str, tuple[int, ...], str]],
    lo: int,
    hi: int,
    kwargs: dict[str, Any],
    factory: Callable[[int], Any] | None,
) -> None:
    shms = {k: SharedMemory(name=name) for k, (name, _, _) in layout.items()}
    try:
        views = {
            k: np.ndarray(shape, np.dtype(dt), buffer=shms[k].buf)[lo:hi]
            for k, (_, shape, dt) in layout.items()
            if k != "actions"
        }
        actions = np.ndarray(layout["actions"][1], np.int64, buffer=shms["actions"].buf)[lo:hi]
        if factory is not None:
            kwargs = {**kwargs, "opponent_factory": lambda j: factory(lo + j)}
        batch = DuelBatch(hi - lo, **kwargs)
        batch.use_arrays(views)
        batch.first_index = lo
        while True:
            cmd, arg = conn.recv()
            if cmd == "close":
                return
            try:
                if cmd == "reset":
                    batch.reset(*arg)
                else:
                    batch.step(actions)
                conn.send(("ok", [(lo + i, info) for i, info in batch.finals]))
            except Exception as e:  # reported to the caller, which raises it there
                conn.send(("error", (type(e).__name__, str(e))))
    finally:
        del views, actions  # release the buffers before closing the shared memory
        for s in shms.values():
            s.close()


def _shutdown(procs: list[Any], conns: list[Connection], shms: list[SharedMemory]) -> None:
    for c in conns:
        with contextlib.suppress(BrokenPipeError, OSError):
            c.send(("close", None))
    for p in procs:
        p.join(timeout=5)
        if p.is_alive():
            p.terminate()
    for s in shms:
        s.unlink()
        s.close()


class ParallelDuelBatch:
    """`DuelBatch(num_games, ...)` stepped by `workers` processes. Same arguments, same
    arrays; `opponent_factory` must be callable in the workers (started with `fork` where
    the platform has it, else `spawn`, which needs it importable)."""

    obs: Any = _SharedArray()
    masks: Any = _SharedArray()
    seats: Any = _SharedArray()
    rewards: Any = _SharedArray()
    learner_rewards: Any = _SharedArray()
    terminated: Any = _SharedArray()
    truncated: Any = _SharedArray()
    needs_reset: Any = _SharedArray()

    def __init__(
        self,
        num_games: int,
        format: str = "classic",
        decks: Any = None,
        *,
        workers: int = 2,
        opponent_factory: Callable[[int], Any] | None = None,
        mp_context: str | None = None,
        **kwargs: Any,
    ) -> None:
        self._views: dict[str, Any] = {}
        if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
            raise ValueError(f"workers must be a positive integer, not {workers!r}")
        if isinstance(num_games, int) and workers > num_games:
            raise ValueError(f"workers ({workers}) must not exceed num_games ({num_games})")
        # A batch in this process checks the arguments and gives the arrays' shapes.
        proto = DuelBatch(
            num_games,
            format,
            decks,
            opponent_factory=(lambda i: None) if opponent_factory is not None else None,
            **kwargs,
        )
        self.num_games = num_games
        self.n_actions = proto.n_actions
        self.single_observation_space = proto.single_observation_space
        self.learner_mode = proto.learner_mode
        self.obs_type = proto.obs_type
        self.autoreset_mode = proto.autoreset_mode
        self.finals: list[tuple[int, dict[str, Any]]] = []
        shapes = {k: (a.shape, a.dtype.str) for k, a in proto.arrays().items()}
        shapes["actions"] = ((num_games,), np.dtype(np.int64).str)
        self._shms: list[SharedMemory] = []
        layout: dict[str, tuple[str, tuple[int, ...], str]] = {}
        arrays: dict[str, np.ndarray] = {}
        for k, (shape, dt) in shapes.items():
            count = int(np.prod(shape))
            shm = _Block(create=True, size=max(1, count * np.dtype(dt).itemsize))
            self._shms.append(shm)
            layout[k] = (shm.name, shape, dt)
            # frombuffer holds the block's buffer, so that `close()` cannot unmap memory an
            # array the caller kept still points at.
            assert shm.buf is not None
            arrays[k] = np.frombuffer(shm.buf, np.dtype(dt), count).reshape(shape)
            arrays[k].fill(0)
        self._actions = arrays.pop("actions")
        views: dict[str, Any] = {k: arrays[k] for k in ARRAYS if k in arrays}
        if "obs" not in arrays:
            views["obs"] = {k[4:]: a for k, a in arrays.items() if k.startswith("obs.")}
            views["masks"] = views["obs"]["action_mask"]
        self.episodes_done = 0
        ctx: Any = mp.get_context(
            mp_context or ("fork" if "fork" in mp.get_all_start_methods() else "spawn")
        )
        kw = {"format": format, "decks": decks, **kwargs}
        self._slices = _split(num_games, workers)
        self._conns: list[Connection] = []
        self._procs: list[Any] = []
        for lo, hi in self._slices:
            parent, child = ctx.Pipe()
            p = ctx.Process(
                target=_worker, args=(child, layout, lo, hi, kw, opponent_factory), daemon=True
            )
            p.start()
            child.close()
            self._conns.append(parent)
            self._procs.append(p)
        self._finalizer = weakref.finalize(self, _shutdown, self._procs, self._conns, self._shms)
        self._views = views

    def _check_open(self) -> None:
        finalizer = getattr(self, "_finalizer", None)
        if finalizer is None or not finalizer.alive:
            raise RuntimeError("ParallelDuelBatch is closed")

    def _call(self, cmd: str, args: Sequence[Any]) -> None:
        try:
            for c, a in zip(self._conns, args, strict=True):
                c.send((cmd, a))
            replies = [c.recv() for c in self._conns]
        except (EOFError, OSError) as e:
            codes = [p.exitcode for p in self._procs]
            raise RuntimeError(
                f"a worker process ended unexpectedly (exit codes {codes}): {e}"
            ) from None
        finals: list[tuple[int, dict[str, Any]]] = []
        errors = []
        for status, payload in replies:
            if status == "ok":
                finals += payload
            else:
                errors.append(payload)
        if errors:
            kind, message = errors[0]
            if kind == "IllegalActionError":
                raise IllegalActionError(message)
            raise RuntimeError(f"a worker failed: {kind}: {message}")
        self.finals = finals
        self.episodes_done += len(finals)

    def reset(
        self,
        seed: int | Sequence[int | None] | None = None,
        mask: Any = None,
        learner_seat: int | None = None,
    ) -> None:
        """As `DuelBatch.reset`."""
        self._check_open()
        seeds = game_seeds(seed, self.num_games)
        only = check_reset_mask(mask, self.num_games)
        check_learner_seat(learner_seat, self.learner_mode)
        args = []
        for lo, hi in self._slices:
            part = None if only is None else only[lo:hi]
            args.append((seeds[lo:hi], part, learner_seat))
        self._call("reset", args)

    def step(self, actions: Any) -> None:
        """As `DuelBatch.step`; every game's index is checked here, before any worker
        moves, so that a refused step leaves every game as it was."""
        self._check_open()
        acts = check_actions(actions, self.num_games)
        v = self._views
        ended = v["needs_reset"]
        if self.autoreset_mode == DISABLED and ended.any():
            raise RuntimeError(ended_message(int(np.flatnonzero(ended)[0])))
        if not self.learner_mode:
            # The workers write each acting seat's mask: 1 exactly at its legal indices.
            masks = v["masks"]
            inside = (acts >= 0) & (acts < self.n_actions)
            legal = inside & (masks[np.arange(self.num_games), np.where(inside, acts, 0)] == 1)
            bad = np.flatnonzero(~legal & ~ended)
            if bad.size:
                i = int(bad[0])
                raise IllegalActionError(illegal_message(i, int(acts[i]), int(v["seats"][i])))
        self._actions[:] = acts
        self._call("step", [None] * len(self._conns))

    def action_masks(self) -> np.ndarray:
        self._check_open()
        return self._views["masks"].astype(bool)

    def close(self) -> None:
        """End the workers and release the shared memory; a second call does nothing."""
        finalizer = getattr(self, "_finalizer", None)
        self._views = {}
        self._actions = np.zeros(0, np.int64)
        if finalizer is not None:
            finalizer()


def make_batch(
    num_games: int, format: str = "classic", decks: Any = None, *, workers: int = 1, **kw: Any
) -> DuelBatch | ParallelDuelBatch:
    """A `DuelBatch` (`workers=1`, every game in this process) or a `ParallelDuelBatch`."""
    if workers == 1:
        return DuelBatch(num_games, format, decks, **kw)
    return ParallelDuelBatch(num_games, format, decks, workers=workers, **kw)


def learner_batch(
    cls_name: str,
    num_envs: int,
    format: str,
    decks: Any,
    opponent: Any,
    obs_type: str,
    kwargs: dict[str, Any],
) -> DuelBatch | ParallelDuelBatch:
    """The batch of a single-learner vector env: an opponent (or a factory) is required."""
    if "opponent_factory" in kwargs:
        opponent = None
    elif opponent is None:
        raise ValueError(f"{cls_name} needs an opponent; for both seats use DuelBatch")
    return make_batch(num_envs, format, decks, obs_type=obs_type, opponent=opponent, **kwargs)
