"""The ratings of `mtg-env evaluate` (agents.evaluate): Bradley-Terry on the Elo scale with
the anchors pinned, fitted by Newton steps, intervals by bootstrap over seat-swapped pairs."""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

import numpy as np

from .match import wilson

PINNED = ("random", 1000.0)  # the scale's zero point: random is 1000 by definition


BOOTSTRAP = 2000  # resamples


BOOTSTRAP_SEED = 20260101  # fixed: the same games give the same interval


SPAN = 1200.0  # the fit's bounds: this far beyond the lowest and highest anchor


MIN_WIDTH = 0.001  # compare --width: narrower would need more games than can be played


def _expected(diff: np.ndarray) -> np.ndarray:
    """P(score) for a rating difference on the Elo scale."""
    return 1.0 / (1.0 + np.power(10.0, -diff / 400.0))


def fit_ratings(
    n: np.ndarray,
    w: np.ndarray,
    pinned: dict[int, float],
    bounds: tuple[float, float],
    sweeps: int = 200,
) -> np.ndarray:
    """Maximum-likelihood Bradley-Terry ratings (Elo scale) of a batch of tables.

    `n[b, i, j]` games between players i and j in batch b, `w[b, i, j]` i's score in them;
    the `pinned` players keep their ratings, each free one is solved for by bisection on its
    score equation within `bounds`, sweeping until no rating moves (coordinate ascent of a
    concave log-likelihood). A free player without games gets NaN."""
    n = np.asarray(n, dtype=float)
    w = np.asarray(w, dtype=float)
    batch, players = n.shape[0], n.shape[1]
    lo, hi = bounds
    r = np.full((batch, players), (lo + hi) / 2)
    for i, v in pinned.items():
        r[:, i] = v
    free = [i for i in range(players) if i not in pinned]
    for _ in range(sweeps if len(free) > 1 else 1):
        before = r.copy()
        for i in free:
            a = np.full(batch, lo)
            b = np.full(batch, hi)
            for _ in range(60):  # 2400 points wide: 60 halvings reach float precision
                mid = (a + b) / 2
                # i's score minus its expectation at rating `mid`: decreasing in mid.
                g = (w[:, i, :] - n[:, i, :] * _expected(mid[:, None] - r)).sum(axis=1)
                up = g > 0
                a = np.where(up, mid, a)
                b = np.where(up, b, mid)
            r[:, i] = (a + b) / 2
        if np.nanmax(np.abs(r - before)) < 1e-6:
            break
    for i in free:
        r[n[:, i, :].sum(axis=1) == 0, i] = np.nan
    return r


def _units(rows: list[dict[str, Any]]) -> dict[tuple[str, str], list[tuple[int, float, int]]]:
    """Seat-swapped pairs by matchup (agent, opponent): (pair, score sum, games)."""
    acc: dict[tuple[str, str, int], list[float]] = defaultdict(list)
    for r in rows:
        acc[(r["agent"], r["opponent"], r["pair"])].append(float(r["score"]))
    out: dict[tuple[str, str], list[tuple[int, float, int]]] = defaultdict(list)
    for (a, o, k), scores in sorted(acc.items(), key=lambda x: (x[0][0], x[0][1], x[0][2])):
        out[(a, o)].append((k, sum(scores), len(scores)))
    return out


def _tables(
    units: dict[tuple[str, str], list[tuple[int, float, int]]],
    players: list[str],
    resamples: int,
    rng: np.random.Generator | None,
) -> tuple[np.ndarray, np.ndarray]:
    """Game and score tables [B, P, P]: the observed ones (rng None, B = 1), or `resamples`
    bootstrap tables resampling each matchup's pairs with replacement."""
    idx = {p: i for i, p in enumerate(players)}
    b = 1 if rng is None else resamples
    n = np.zeros((b, len(players), len(players)))
    w = np.zeros_like(n)
    for (a, o), us in units.items():
        scores = np.array([u[1] for u in us])
        counts = np.array([u[2] for u in us], dtype=float)
        if rng is None:
            ws, ns = scores.sum()[None], counts.sum()[None]
        else:
            pick = rng.integers(0, len(us), size=(b, len(us)))
            ws, ns = scores[pick].sum(axis=1), counts[pick].sum(axis=1)
        i, j = idx[a], idx[o]
        n[:, i, j] += ns
        n[:, j, i] += ns
        w[:, i, j] += ws
        w[:, j, i] += ns - ws
    return n, w


def rate(
    rows: list[dict[str, Any]],
    players: list[str],
    pinned: dict[str, float],
    resamples: int = BOOTSTRAP,
    seed: int = BOOTSTRAP_SEED,
) -> dict[str, dict[str, Any]]:
    """Each free player's rating with its bootstrap 95% interval (pinned ones as given)."""
    bounds = (min(pinned.values()) - SPAN, max(pinned.values()) + SPAN)
    pin = {players.index(p): v for p, v in pinned.items()}
    units = _units(rows)
    n, w = _tables(units, players, 1, None)
    point = fit_ratings(n, w, pin, bounds)[0]
    nb, wb = _tables(units, players, resamples, np.random.default_rng(seed))
    boot = fit_ratings(nb, wb, pin, bounds)
    out: dict[str, dict[str, Any]] = {}
    for i, p in enumerate(players):
        if p in pinned:
            out[p] = {"rating": pinned[p], "pinned": True}
            continue
        if math.isnan(point[i]):
            out[p] = {"rating": None, "ci95": None, "pinned": False, "at_bound": False}
            continue
        lo, hi = np.nanpercentile(boot[:, i], [2.5, 97.5])
        out[p] = {
            "rating": round(float(point[i]), 1),
            "ci95": [round(float(lo), 1), round(float(hi), 1)],
            "pinned": False,
            "at_bound": bool(min(abs(point[i] - bounds[0]), abs(point[i] - bounds[1])) < 0.01),
        }
    return out


def win_rates(rows: list[dict[str, Any]], field: str) -> list[dict[str, Any]]:
    by: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        by[r[field]].append(float(r["score"]))
    out = []
    for name, scores in by.items():
        n = len(scores)
        lo, hi = wilson(sum(scores), n)
        out.append(
            {
                field: name,
                "games": n,
                "wins": sum(1 for s in scores if s == 1),
                "draws": sum(1 for s in scores if s == 0.5),
                "losses": sum(1 for s in scores if s == 0),
                "win_rate": round(sum(scores) / n, 4),
                "ci95": [round(lo, 4), round(hi, 4)],
            }
        )
    return out


def rounded(x: Any, digits: int) -> float | None:
    """A figure for a JSON result: rounded, or None when it is not a finite number."""
    x = float(x)
    return round(x, digits) if math.isfinite(x) else None


def fit_one(
    score: np.ndarray, n: np.ndarray, anchors: np.ndarray, bounds: tuple[float, float]
) -> np.ndarray:
    """One free player against pinned anchors, for every row of [B, anchors] tables."""
    b, k = score.shape
    nn = np.zeros((b, k + 1, k + 1))
    ww = np.zeros_like(nn)
    nn[:, 0, 1:], ww[:, 0, 1:] = n, score
    pinned = {i + 1: float(r) for i, r in enumerate(anchors)}
    return fit_ratings(nn, ww, pinned, bounds)[:, 0]
