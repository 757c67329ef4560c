"""A tiny deterministic PRNG (SplitMix64) whose whole state is one 64-bit word.

Why not `random.Random`: its state is 625 words (slow to clone for search) and its
algorithms are not promised to stay identical across Python releases. SplitMix64 is
fast, well tested, and makes `Game.clone()` copy one word.

The word is kept as two 32-bit halves, and the compiled engine computes with them in
16-bit pieces so that every value stays below 2**50, a machine integer. Why: a product of
two 64-bit ints is a Python big int, and CPython's big-int multiply checks for signals; a
Ctrl-C that lands there raises KeyboardInterrupt inside an arithmetic operation that
compiled code treats as infallible, and the process aborts ("fatal: out of memory")
instead of stopping cleanly. The pieces are also about ten times faster compiled, but
eight times slower interpreted, so the pure engine keeps the textbook big-int form
(where a KeyboardInterrupt is an ordinary exception). Both forms give exactly
SplitMix64's outputs: tests/engine/test_rng.py checks both, on either build, against the
textbook algorithm and the published reference values.
"""

from __future__ import annotations

from typing import Final

_M16: Final = 0xFFFF
_M32: Final = 0xFFFFFFFF
_MASK: Final = (1 << 64) - 1
# The constants as 32-bit halves (the golden-ratio increment and
# the two multipliers of SplitMix64's finaliser).
_INC_HI: Final = 0x9E3779B9
_INC_LO: Final = 0x7F4A7C15
_M1_HI: Final = 0xBF58476D
_M1_LO: Final = 0x1CE4E5B9
_M2_HI: Final = 0x94D049BB
_M2_LO: Final = 0x133111EB
_SEED_ADD: Final = 0x632BE59BD9B4E019
_INC: Final = (_INC_HI << 32) | _INC_LO
_M1: Final = (_M1_HI << 32) | _M1_LO
_M2: Final = (_M2_HI << 32) | _M2_LO


def _probe() -> None:
    pass


# Whether this module runs compiled: a compiled function has no bytecode.
_COMPILED: Final = not hasattr(_probe, "__code__")


def _mul(h: int, lo: int, kh: int, kl: int) -> tuple[int, int]:
    """(h:lo) * (kh:kl) mod 2**64 as 32-bit halves, with no intermediate above 2**50."""
    l0 = lo & _M16
    l1 = lo >> 16
    k0 = kl & _M16
    k1 = kl >> 16
    # lo * kl in full (64 bits): its low half, and the carry into the high half.
    mid = l0 * k1 + l1 * k0
    t = l0 * k0 + ((mid & _M16) << 16)
    carry = l1 * k1 + (mid >> 16) + (t >> 32)
    # The cross terms only matter mod 2**32.
    h0 = h & _M16
    h1 = h >> 16
    cross = h0 * k0 + ((h0 * k1 + h1 * k0) << 16)
    cross += l0 * (kh & _M16) + ((l0 * (kh >> 16) + l1 * (kh & _M16)) << 16)
    return (carry + cross) & _M32, t & _M32


def _mod(hi: int, lo: int, n: int) -> int:
    """(hi:lo) mod n for 0 < n < 2**32, by long division in 16-bit digits (nothing above
    2**48)."""
    r = ((hi % n) << 16 | (lo >> 16)) % n
    return ((r << 16) | (lo & _M16)) % n


# What a seat's own stream is for (`Rng.for_seat`): shuffling its library, and picking at
# random from its hand.
SHUFFLE: Final = 0
HAND_PICK: Final = 1
PURPOSES: Final = ("library_shuffle", "hand_random")


class Rng:
    """A game's random stream. A game may also have separate streams per seat and purpose
    for what lands in a seat's hidden zones (`split`), so that no one stream feeds both
    seats' hidden zones (the Spellbench protocol asks this of its engines, Section 11.6);
    a game without them draws everything from this one, as it always has."""

    __slots__ = ("hi", "lo", "seats")

    def __init__(self, seed: int = 0) -> None:
        self.seats: list[list[Rng]] | None = None
        # state = (seed * increment + _SEED_ADD) mod 2**64; any int seed (negative or wide)
        # is reduced to 64 bits first with a mask and shifts, which never check signals.
        s = seed & _MASK
        hi, lo = _mul(s >> 32, s & _M32, _INC_HI, _INC_LO)
        lo += _SEED_ADD & _M32
        self.lo = lo & _M32
        self.hi = (hi + (_SEED_ADD >> 32) + (lo >> 32)) & _M32

    @property
    def state(self) -> int:
        """The 64-bit state word (part of the game's state hash)."""
        return (self.hi << 32) | self.lo

    def _next(self) -> tuple[int, int]:
        """The next output as 32-bit halves, computed in machine-sized pieces."""
        lo = self.lo + _INC_LO
        hi = (self.hi + _INC_HI + (lo >> 32)) & _M32
        lo &= _M32
        self.hi = hi
        self.lo = lo
        # z ^= z >> 30; z *= M1
        lo ^= ((hi << 2) | (lo >> 30)) & _M32
        hi ^= hi >> 30
        hi, lo = _mul(hi, lo, _M1_HI, _M1_LO)
        # z ^= z >> 27; z *= M2
        lo ^= ((hi << 5) | (lo >> 27)) & _M32
        hi ^= hi >> 27
        hi, lo = _mul(hi, lo, _M2_HI, _M2_LO)
        # z ^= z >> 31
        lo ^= ((hi << 1) | (lo >> 31)) & _M32
        hi ^= hi >> 31
        return hi, lo

    def _next64_wide(self) -> int:
        """The next output, computed with 64-bit (big) ints: the textbook form."""
        s = (((self.hi << 32) | self.lo) + _INC) & _MASK
        self.hi = s >> 32
        self.lo = s & _M32
        z = ((s ^ (s >> 30)) * _M1) & _MASK
        z = ((z ^ (z >> 27)) * _M2) & _MASK
        return z ^ (z >> 31)

    def next64(self) -> int:
        if not _COMPILED:
            return self._next64_wide()
        hi, lo = self._next()
        return (hi << 32) | lo

    def below(self, n: int) -> int:
        """Uniform int in [0, n) (n < 2**32; the modulo bias is below 2**-32): the next
        output mod n (compiled: by long division in 16-bit digits, nothing above 2**48)."""
        if not _COMPILED:
            return self._next64_wide() % n
        hi, lo = self._next()
        return _mod(hi, lo, n)

    def shuffle(self, items: list) -> None:
        """Fisher-Yates in place."""
        if not _COMPILED:
            # The textbook form inline, the state held in a local: the pure engine's
            # hot path (every library shuffle of a search's resampled worlds).
            s = (self.hi << 32) | self.lo
            for i in range(len(items) - 1, 0, -1):
                s = (s + _INC) & _MASK
                z = ((s ^ (s >> 30)) * _M1) & _MASK
                z = ((z ^ (z >> 27)) * _M2) & _MASK
                j = (z ^ (z >> 31)) % (i + 1)
                items[i], items[j] = items[j], items[i]
            self.hi = s >> 32
            self.lo = s & _M32
            return
        for i in range(len(items) - 1, 0, -1):
            hi, lo = self._next()
            j = _mod(hi, lo, i + 1)
            items[i], items[j] = items[j], items[i]

    def copy(self) -> Rng:
        r = Rng()
        r.hi = self.hi
        r.lo = self.lo
        if self.seats is not None:
            r.seats = [[x.copy() for x in streams] for streams in self.seats]
        return r

    def split(self, seeds: list[list[int]]) -> None:
        """Give each seat its own streams: `seeds[seat][purpose]` (purposes: `PURPOSES`)."""
        if len(seeds) != 2 or any(len(row) != len(PURPOSES) for row in seeds):
            raise ValueError(f"seeds: one per seat and purpose {PURPOSES}")
        self.seats = [[Rng(x) for x in row] for row in seeds]

    def for_seat(self, seat: int, purpose: int) -> Rng:
        """The stream that feeds `seat`'s hidden zone for `purpose` (SHUFFLE, HAND_PICK):
        the seat's own where the game has them, else this one."""
        return self if self.seats is None else self.seats[seat][purpose]

    def key(self) -> int | tuple[int, ...]:
        """The state words (the game's state hash): this stream's alone when the game has
        no per-seat streams, so that such a game hashes as it always did."""
        if self.seats is None:
            return self.state
        return (self.state, *(x.state for streams in self.seats for x in streams))
