"""The engine's PRNG (mtg_env/engine/rng.py): exactly SplitMix64, in both of its forms (the
machine-sized pieces the compiled engine runs, the big-int form the pure engine runs), and
a Ctrl-C in the middle of it stops the process cleanly on either build."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mtg_env.engine import rng as rng_module
from mtg_env.engine.rng import Rng

MASK = (1 << 64) - 1


def splitmix64_state(state: int, n: int) -> int:
    """The state after `n` outputs."""
    return (state + n * 0x9E3779B97F4A7C15) & MASK


def splitmix64(state: int, n: int) -> list[int]:
    """The reference algorithm (Steele, Lea and Flood 2014; Vigna's splitmix64.c)."""
    out = []
    for _ in range(n):
        state = (state + 0x9E3779B97F4A7C15) & MASK
        z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        out.append(z ^ (z >> 31))
    return out


def at_state(state: int) -> Rng:
    r = Rng()
    r.hi, r.lo = state >> 32, state & 0xFFFFFFFF
    return r


def pieces(r: Rng) -> int:
    """The next output by the form the compiled engine runs (32-bit halves, 16-bit pieces)."""
    hi, lo = r._next()
    return (hi << 32) | lo


def wide(r: Rng) -> int:
    """The next output by the form the pure engine runs (64-bit big ints)."""
    return r._next64_wide()


# Both forms are methods of every build's Rng, so each is tested on both builds; the public
# methods (next64, below, shuffle) run the build's own form.
FORMS = {"pieces": pieces, "big ints": wide, "next64": Rng.next64}

# Published SplitMix64 outputs: the first five from state 0 and from state 1234567.
REFERENCE = {
    0: [
        0xE220A8397B1DCDAF,
        0x6E789E6AA1B965F4,
        0x06C45D188009454F,
        0xF88BB8A8724C81EC,
        0x1B39896A51A8749B,
    ],
    1234567: [
        6457827717110365317,
        3203168211198807973,
        9817491932198370423,
        4593380528125082431,
        16408922859458223821,
    ],
}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_published_reference_values(form: str) -> None:
    step = FORMS[form]
    for state, want in REFERENCE.items():
        r = at_state(state)
        assert [step(r) for _ in range(5)] == want


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(min_value=-(2**80), max_value=2**80), n=st.integers(1, 2**32 - 1))
def test_every_seed_gives_splitmix64(seed: int, n: int) -> None:
    r = Rng(seed)
    state = (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & MASK
    assert r.state == state
    want = splitmix64(state, 4)
    for step in FORMS.values():
        c = r.copy()
        assert [step(c) for _ in range(4)] == want
        assert c.state == splitmix64_state(state, 4)
    # The remainder by long division in 16-bit digits (compiled `below`), and `below` itself.
    c = r.copy()
    hi_lo = [c._next() for _ in range(4)]
    assert [rng_module._mod(hi, lo, n) for hi, lo in hi_lo] == [w % n for w in want]
    c = r.copy()
    assert [c.below(n) for _ in range(4)] == [w % n for w in want]
    items = list(range(40))
    c = r.copy()
    c.shuffle(items)
    expect = list(range(40))
    for i, w in zip(range(39, 0, -1), splitmix64(state, 39), strict=True):
        j = w % (i + 1)
        expect[i], expect[j] = expect[j], expect[i]
    assert items == expect
    assert c.state == splitmix64_state(state, 39)


CHILD = r"""
import sys
from mtg_env.engine.rng import Rng
r = Rng(12345)
items = list(range(60))
print("ready", flush=True)
try:
    while True:
        r.shuffle(items)
        r.below(7)
except KeyboardInterrupt:
    sys.exit(130)
"""


def test_ctrl_c_inside_the_rng_stops_the_process_cleanly() -> None:
    """A SIGINT that arrives while the PRNG runs is a KeyboardInterrupt, never an abort.
    (The compiled engine's 64-bit products were Python big ints, whose multiply checks for
    signals where compiled code does not expect an exception: the process died with
    "fatal: out of memory" every time here.)"""
    for _ in range(3):
        p = subprocess.Popen(
            [sys.executable, "-c", CHILD], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        assert p.stdout is not None
        assert p.stdout.readline().strip() == "ready"
        time.sleep(0.2)  # well inside the shuffling loop
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=30)
        assert p.returncode == 130, err
        assert "fatal" not in err, err


def test_per_seat_streams_are_separate_copied_and_hashed() -> None:
    """`split` gives each seat its own streams by purpose; `for_seat` answers the game's one
    stream where there are none. A copy carries them, and `key` (the state hash's part)
    is the bare state word without them, so games without them hash as before."""
    from mtg_env.engine.rng import HAND_PICK, PURPOSES, SHUFFLE

    r = Rng(5)
    assert r.for_seat(0, SHUFFLE) is r and r.key() == r.state
    r.split([[1, 2], [3, 4]])
    assert len(PURPOSES) == 2
    s0, s1 = r.for_seat(0, SHUFFLE), r.for_seat(1, HAND_PICK)
    assert s0.state == Rng(1).state and s1.state == Rng(4).state
    c = r.copy()
    assert c.key() == r.key() and c.for_seat(0, SHUFFLE) is not s0
    s0.next64()  # a draw from seat 0's stream moves its word, not the others
    assert r.key() != c.key() and r.state == c.state
    assert r.for_seat(1, SHUFFLE).state == c.for_seat(1, SHUFFLE).state
    with pytest.raises(ValueError, match="one per seat and purpose"):
        Rng(0).split([[1, 2]])


def test_a_seat_with_streams_of_its_own_is_shuffled_by_them_alone() -> None:
    """With per-seat streams (`Game.new(seat_seeds=...)`), a seat's library order (hand
    included) follows from its own stream: the other seat's deck and the game's own seed
    change nothing in it. With the one stream, they do (so the check can fail)."""
    from mtg_env.engine import Game, load_decks

    decks = list(load_decks("classic").values())
    a, b = decks[0].cards, decks[1].cards
    seeds = [[11, 12], [21, 22]]

    def p1_order(p0_deck: tuple[str, ...], seed: int, split: bool) -> list[str]:
        g = Game.new(
            (p0_deck, b), seed=seed, first_player=0, mulligans=False,
            seat_seeds=seeds if split else None,
        )  # fmt: skip
        return [g.cdef[c].name for c in g.hand[1] + g.library[1]]

    assert p1_order(a, 1, True) == p1_order(a[:-7], 2, True)
    assert p1_order(a, 1, False) != p1_order(a[:-7], 1, False)
