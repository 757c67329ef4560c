"""The board as a picture: the envs' `render_mode="rgb_array"` (a uint8 array of shape
`SHAPE`, for video recorders and notebooks).

The picture shows what the text board (`mtg_env.render.render`) lists, laid out as the
replay viewer lays it out: the turn line and the pending decision on top, each player's
counts (life, library, graveyard, hand, pool mana), hand and permanents (power/toughness,
damage, counters, tapped, summoning sick, attacking, blocking, attachments), and the stack
on the right. With `seat`, the other player's hand is a count of card backs, as in the
text. The size is fixed; a crowded battlefield draws smaller boxes.

Pillow's built-in bitmap font (fixed width, 6 by 11 pixels) draws the text: a frame takes
a few milliseconds.
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ..engine import Game
from ..engine.log import obj_name
from ..render import header_line, permanent_state, player_line, stack_items, status_line

HEIGHT, WIDTH = 640, 960
SHAPE = (HEIGHT, WIDTH, 3)  # every picture's shape (rows, columns, RGB)
CHAR_W, LINE_H = 6, 11  # the bitmap font's cell
HEADER_H = 24
STACK_W = 240  # the stack panel on the right
BOARD_W = WIDTH - STACK_W
INFO_H = 16
HAND_H = 34

BACKGROUND = (24, 40, 36)
PANEL = (36, 56, 50)
TEXT = (0, 0, 0)
LIGHT = (235, 235, 225)
DIM = (150, 165, 160)
CARD_BACK = (60, 70, 130)
ATTACK = (220, 40, 30)
BLOCK = (40, 110, 230)
SEAT = ((230, 200, 90), (120, 200, 230))  # each player's marker color
# Card fills by color: white, blue, black, red, green, several, none (and lands without one).
FILL = {
    "W": (240, 234, 205),
    "U": (165, 198, 235),
    "B": (165, 155, 170),
    "R": (236, 168, 146),
    "G": (165, 212, 160),
}
MULTI = (228, 208, 130)
COLORLESS = (205, 205, 205)
LAND = (196, 180, 150)


@cache
def _font() -> Any:
    # Pillow 10.1+ names the bitmap font; before, load_default is that font.
    load = getattr(ImageFont, "load_default_imagefont", ImageFont.load_default)
    return load()


@lru_cache(maxsize=8192)
def _fit(text: str, width: int) -> str:
    """`text` cut to `width` pixels of the fixed-width font (names repeat across frames;
    lines with ids and life totals do not, hence a bounded cache)."""
    text = text.encode("latin-1", "replace").decode("latin-1")  # the font's characters
    n = max(width // CHAR_W, 0)
    if len(text) <= n:
        return text
    return text[: max(n - 1, 0)] + "~" if n > 1 else text[:n]


def _wrap(text: str, width: int, lines: int) -> list[str]:
    n = max(width // CHAR_W, 1)
    out = [text[i : i + n] for i in range(0, len(text), n)] or [""]
    if len(out) > lines:
        out = out[:lines]
        out[-1] = _fit(out[-1] + "~~", width)
    return out


def _fill(d: dict[str, Any]) -> tuple[int, int, int]:
    colors = d.get("colors", "")
    if len(colors) > 1:
        base = MULTI
    elif colors:
        base = FILL[colors]
    else:
        base = LAND if "land" in d["types"] else COLORLESS
    if d.get("tapped"):
        # A tapped permanent is dimmed (the text marks it {tapped}).
        return (base[0] * 3 // 5, base[1] * 3 // 5, base[2] * 3 // 5)
    return base


def _card_lines(d: dict[str, Any], name: str) -> list[str]:
    """The lines of a permanent's box: what `render.permanent_line` says, one fact a line."""
    lines = [name]
    pt = d.get("pt")
    if pt is not None:
        lines.append(pt + (f" dmg {d['damage']}" if "damage" in d else ""))
    elif "damage" in d:
        lines.append(f"dmg {d['damage']}")
    if "kw" in d:
        lines.append(", ".join(d["kw"]))
    flags: list[str] = [k for k in ("tapped", "sick") if k in d]
    flags.extend(f"{n}x{k}" for k, n in d.get("counters", {}).items())
    if flags:
        lines.append(" ".join(flags))
    if "on" in d:
        lines.append(f"on {d['on']}")
    if "attacking" in d:
        lines.append("attacking")
    if "blocking" in d:
        lines.append(f"blocks {d['blocking']}")
    if "owner" in d:
        lines.append(f"owner {d['owner']}")
    return lines


def _grid(n: int, x: int, y: int, w: int, h: int, bw: int, bh: int) -> list[tuple[int, ...]]:
    """Boxes for `n` items in the rectangle, at most `bw` by `bh` each, as large as the
    rectangle allows (the number of rows that shrinks them least)."""
    if n == 0 or w <= 0 or h <= 0:
        return []
    scale, cols = 0.0, n
    for rows in range(1, n + 1):
        c = -(-n // rows)
        k = min(w / (c * bw), h / (rows * bh), 1.0)
        if k > scale:
            scale, cols = k, c
    cw, ch = max(int(bw * scale), 4), max(int(bh * scale), 4)
    return [
        (
            x + (i % cols) * cw,
            y + (i // cols) * ch,
            x + (i % cols + 1) * cw - 3,
            y + (i // cols + 1) * ch - 3,
        )
        for i in range(n)
    ]


class _Painter:
    def __init__(self) -> None:
        self.im = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
        self.d = ImageDraw.Draw(self.im)
        self.font = _font()

    def text(self, x: int, y: int, s: str, width: int, fill: tuple[int, int, int]) -> None:
        self.d.text((x, y), _fit(s, width), fill=fill, font=self.font)

    def box(self, r: tuple[int, ...], fill: Any, outline: Any, width: int = 1) -> None:
        self.d.rectangle(r, fill=fill, outline=outline, width=width)

    def card(self, r: tuple[int, ...], d: dict[str, Any], name: str) -> None:
        border, bw = (20, 20, 20), 1
        if "attacking" in d:
            border, bw = ATTACK, 3
        elif "blocking" in d:
            border, bw = BLOCK, 3
        self.box(r, _fill(d), border, bw)
        x0, y0, x1, y1 = r
        inner = x1 - x0 - 2 * bw - 2
        y = y0 + bw + 1
        for line in _card_lines(d, name):
            if y + LINE_H > y1 - bw + 2:
                break
            self.text(x0 + bw + 2, y, line, inner, TEXT)
            y += LINE_H - 1


def draw_board(g: Game, seat: int | None = None, bottom: int = 0) -> np.ndarray:
    """The board as a (HEIGHT, WIDTH, 3) uint8 picture. `seat`: the player whose view it is
    (the other hand is a count), None for both hands (as `render`); `bottom`: the player
    drawn in the lower half."""
    p = _Painter()
    p.box((0, 0, WIDTH - 1, HEADER_H - 1), PANEL, None)
    p.text(6, 6, header_line(g), BOARD_W - 12, LIGHT)
    status = status_line(g)
    if status is not None:
        p.text(
            BOARD_W,
            6,
            status,
            WIDTH - BOARD_W - 6,
            SEAT[g.decision.player] if g.decision else LIGHT,
        )
    half = (HEIGHT - HEADER_H) // 2
    sides: list[list[int]] = [[], []]
    for cid in g.battlefield:
        sides[g.chars(cid).controller].append(cid)
    for s in (0, 1):
        top = s != bottom
        y0 = HEADER_H + (0 if top else half)
        _draw_side(p, g, s, y0, half, top, seat is None or seat == s, sides[s])
    p.d.line((0, HEADER_H + half, BOARD_W, HEADER_H + half), fill=PANEL, width=2)
    _draw_stack(p, g)
    return np.asarray(p.im)


def _draw_side(
    p: _Painter, g: Game, s: int, y0: int, h: int, top: bool, show_hand: bool, cids: list[int]
) -> None:
    # The opponent's half reads from the top edge down, the near player's from the middle
    # down to the bottom edge: info and hand on the outer edge, permanents near the middle.
    info_y = y0 + 2 if top else y0 + h - INFO_H
    hand_y = info_y + INFO_H if top else info_y - HAND_H
    p.box((0, info_y, BOARD_W - 1, info_y + INFO_H - 2), PANEL, None)
    active = "  (active)" if g.active == s else ""
    p.box((4, info_y + 3, 12, info_y + 11), SEAT[s], None)
    p.text(18, info_y + 2, player_line(g, s) + active, BOARD_W - 24, LIGHT)
    hand = g.hand[s]
    if show_hand:
        names = [obj_name(g, c) for c in hand]
        for r, name in zip(
            _grid(len(names), 4, hand_y + 2, BOARD_W - 8, HAND_H - 4, 110, 30), names
        ):
            p.box(r, (225, 220, 200), (20, 20, 20))
            p.text(r[0] + 3, r[1] + 3, name, r[2] - r[0] - 5, TEXT)
    else:
        backs = _grid(len(hand), 4, hand_y + 2, BOARD_W - 8, HAND_H - 4, 24, 30)
        for r in backs:
            p.box(r, CARD_BACK, (200, 200, 220))
        if hand:
            x = backs[-1][2] + 8
            p.text(x, hand_y + 10, f"hand: {len(hand)}", BOARD_W - x - 4, DIM)
    # Permanents: lands in one band, everything else in the other (nearer the middle).
    area_top = hand_y + HAND_H if top else y0 + 4
    area_bot = y0 + h - 4 if top else hand_y - 2
    states = [permanent_state(g, c) for c in cids]
    names = [obj_name(g, c) for c in cids]
    lands = [
        i for i, d in enumerate(states) if "land" in d["types"] and "creature" not in d["types"]
    ]
    others = [i for i, d in enumerate(states) if i not in set(lands)]
    land_h = (area_bot - area_top) * 2 // 5 if lands else 0
    if top:
        land_box = (area_top, area_top + land_h)
        other_box = (area_top + land_h, area_bot)
    else:
        other_box = (area_top, area_bot - land_h)
        land_box = (area_bot - land_h, area_bot)
    for group, (ya, yb), bw, bh in (
        (lands, land_box, 90, 36),
        (others, other_box, 120, 76),
    ):
        for r, i in zip(_grid(len(group), 4, ya + 2, BOARD_W - 8, yb - ya - 2, bw, bh), group):
            p.card(r, states[i], names[i])


def _draw_stack(p: _Painter, g: Game) -> None:
    x0 = BOARD_W + 4
    w = WIDTH - x0 - 4
    p.box((BOARD_W, HEADER_H, WIDTH - 1, HEIGHT - 1), PANEL, None)
    p.text(x0, HEADER_H + 4, "Stack (top first)" if g.stack else "Stack: empty", w, LIGHT)
    y = HEADER_H + 20
    for it in stack_items(g):
        tg = ", ".join(it["targets"])
        lines = _wrap(it["what"] + (f" -> {tg}" if tg else ""), w - 12, 4)
        hgt = len(lines) * (LINE_H - 1) + 6
        if y + hgt > HEIGHT - 4:
            p.text(x0, y, "...", w, LIGHT)
            break
        p.box((x0, y, x0 + w - 1, y + hgt), (225, 220, 200), SEAT[it["controller"]], 2)
        for k, line in enumerate(lines):
            p.text(x0 + 5, y + 3 + k * (LINE_H - 1), line, w - 10, TEXT)
        y += hgt + 4
