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


@pytest.fixture(params=["pieces", "big ints"])
def form(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both forms where the module is interpreted (a compiled module's globals are fixed:
    there only the form it runs, the pieces, is tested)."""
    want = request.param == "pieces"
    if rng_module._COMPILED:
        if not want:
            pytest.skip("the compiled engine runs only the machine-sized form")
    else:
        monkeypatch.setattr(rng_module, "_COMPILED", want)
    return request.param


def test_published_reference_values(form: str) -> None:
    r = at_state(0)
    assert [r.next64() for _ in range(5)] == [
        0xE220A8397B1DCDAF,
        0x6E789E6AA1B965F4,
        0x06C45D188009454F,
        0xF88BB8A8724C81EC,
        0x1B39896A51A8749B,
    ]
    r = at_state(1234567)
    assert [r.next64() for _ in range(5)] == [
        6457827717110365317,
        3203168211198807973,
        9817491932198370423,
        4593380528125082431,
        16408922859458223821,
    ]


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(min_value=-(2**80), max_value=2**80), n=st.integers(1, 2**32 - 1))
def test_every_seed_gives_splitmix64(seed: int, n: int) -> None:
    built = rng_module._COMPILED
    for compiled in [True] if built else [True, False]:
        rng_module._COMPILED = compiled
        try:
            r = Rng(seed)
            state = (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & MASK
            assert r.state == state
            want = splitmix64(state, 8)
            c = r.copy()
            assert [r.next64() for _ in range(4)] == want[:4]
            assert [c.below(n) for _ in range(4)] == [w % n for w in want[:4]]
            assert c.state == r.state
            items = list(range(40))
            r.shuffle(items)
            expect = list(range(40))
            for i, w in zip(range(39, 0, -1), splitmix64(c.state, 39), strict=True):
                j = w % (i + 1)
                expect[i], expect[j] = expect[j], expect[i]
            assert items == expect
        finally:
            rng_module._COMPILED = built


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
