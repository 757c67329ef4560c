"""A tiny deterministic PRNG (SplitMix64) whose whole state is one int.

Why not `random.Random`: its state is 625 words (slow to clone for search) and its
algorithms are not promised to stay identical across Python releases. SplitMix64 is
fast, well tested, and makes `Game.clone()` copy one integer.
"""

from __future__ import annotations

_MASK = (1 << 64) - 1


class Rng:
    __slots__ = ("state",)

    def __init__(self, seed: int = 0) -> None:
        self.state = (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & _MASK

    def next64(self) -> int:
        self.state = z = (self.state + 0x9E3779B97F4A7C15) & _MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """Uniform int in [0, n) (n < 2**32; the modulo bias is below 2**-32)."""
        return self.next64() % n

    def shuffle(self, items: list) -> None:
        """Fisher-Yates in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.next64() % (i + 1)
            items[i], items[j] = items[j], items[i]

    def copy(self) -> Rng:
        r = Rng()
        r.state = self.state
        return r
