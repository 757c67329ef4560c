"""Ratings: `evaluate` (the anchored scale), `compare` (paired bootstrap of two results),
`tournament` (round robin) and `heldout` (training decks against held-out decks)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from .common import MAX_GAMES, check_output, clean, echo, fail, markup, spec_files


def heldout(
    agent: Annotated[str, typer.Argument(help="Agent spec (random, heuristic, ismcts, ...).")],
    opponent: Annotated[str, typer.Option(help="The fixed opponent's agent spec.")] = "heuristic",
    games: Annotated[
        int, typer.Option(min=2, max=MAX_GAMES, help="Games on each part (seat-swapped pairs).")
    ] = 100,
    seed: Annotated[int, typer.Option(min=0, help="Base seed.")] = 0,
    unseen_cards: Annotated[
        bool,
        typer.Option(
            "--unseen-cards",
            help="Also the held-out card part: decks of cards no training deck holds.",
        ),
    ] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """The held-out-deck benchmark: win rates on the training decks and on the held-out
    decks of the core format (Wilson 95% intervals) and the gap between them; with
    --unseen-cards, on decks of cards never in a training deck too."""
    from rich.progress import Progress

    from agents.heldout import run_heldout

    with Progress(transient=True, disable=json_out) as bar:
        parts = 3 if unseen_cards else 2
        total = parts * (games + games % 2)
        task = bar.add_task(f"{markup(agent)} vs {markup(opponent)}", total=total)
        res = run_heldout(
            agent,
            opponent,
            games,
            seed,
            progress=lambda n: bar.update(task, advance=n),
            unseen=unseen_cards,
        )
    if json_out:
        echo(json.dumps(res))
        return
    labels = [("train", "training decks"), ("heldout", "held-out decks")]
    if unseen_cards:
        labels.append(("unseen_cards", "decks of unseen cards"))
    for part, label in labels:
        r = res[part]
        echo(
            f"{agent} vs {opponent} on the {label}: win rate {r['win_rate']:.3f} "
            f"(95% CI {r['ci95'][0]:.3f}-{r['ci95'][1]:.3f}, {r['games']} games)"
        )
    echo(f"gap (training - held out): {res['gap']:+.3f}")
    if unseen_cards:
        echo(f"gap (training - unseen cards): {res['gap_unseen_cards']:+.3f}")


@clean
def tournament(
    agents: Annotated[str, typer.Option(help="Agent specs, comma separated.")],
    out: Annotated[str, typer.Option(help="Folder for games.csv, summary.json, heatmap.png.")],
    games: Annotated[
        int, typer.Option(min=1, max=MAX_GAMES, help="Games per pair of agents (seat-swapped).")
    ] = 20,
    jobs: Annotated[int, typer.Option(min=1, max=256, help="Parallel processes.")] = 1,
    seed: Annotated[int, typer.Option(min=0, help="Base seed (shared by every pairing).")] = 0,
    fmt: Annotated[str, typer.Option("--format", help="Rules format.")] = "classic",
) -> None:
    """Round robin; resumable (a rerun with the same --out skips finished games)."""

    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    from agents.base import make_agent
    from agents.tournament import run_tournament

    specs = [a.strip() for a in agents.split(",") if a.strip()]
    if len(specs) < 2 or len(set(specs)) != len(specs):
        fail("--agents needs two or more different specs")
    for s_ in specs:
        make_agent(s_, fmt=fmt)
    with Progress(transient=True) as bar:
        task = bar.add_task("tournament", total=None)

        def prog(n: int, total: int) -> None:
            bar.update(task, total=total, advance=n)

        try:
            summary = run_tournament(
                specs, games, Path(out), jobs=jobs, seed=seed, fmt=fmt, progress=prog
            )
        except KeyboardInterrupt:
            bar.stop()
            echo(
                f"interrupted: every finished game is in {Path(out) / 'games.csv'}; "
                "rerun the same command to resume",
                err=True,
            )
            raise typer.Exit(130) from None
    console = Console()
    t = Table(title=f"Ratings ({summary['games']} games)")
    for col in ("agent", "Elo (batch fit)", "openskill mu", "sigma", "ordinal"):
        t.add_column(col)
    for a in sorted(specs, key=lambda a: -summary["elo"][a]):
        o = summary["openskill"][a]
        t.add_row(
            markup(a),
            f"{summary['elo'][a]:.0f}",
            f"{o['mu']:.1f}",
            f"{o['sigma']:.1f}",
            f"{o['ordinal']:.1f}",
        )
    console.print(t)
    p = Table(title="Pairs")
    for col in ("A", "B", "games", "win rate A", "95% CI"):
        p.add_column(col)
    for r in summary["pairs"]:
        p.add_row(
            markup(r["agent_a"]),
            markup(r["agent_b"]),
            str(r["games"]),
            f"{r['win_rate_a']:.3f}",
            f"{r['ci95'][0]:.3f}-{r['ci95'][1]:.3f}",
        )
    console.print(p)
    echo(f"heatmap: {Path(out) / 'heatmap.png'}")
    echo(f"summary: {Path(out) / 'summary.json'}")


@clean
def evaluate(
    agent: Annotated[
        str,
        typer.Argument(
            help="Agent spec (random, heuristic, ismcts:N, policy:PATH, or a plug-in "
            "MODULE:ATTR / FILE.py:ATTR / text:MODULE:ATTR, which runs that Python code)."
        ),
    ],
    fmt: Annotated[
        str | None, typer.Option("--format", help="Rules format (picks the default deck set).")
    ] = None,
    decks: Annotated[str | None, typer.Option(help="Deck set: classic or core-heldout.")] = None,
    games: Annotated[
        int, typer.Option(min=1, max=MAX_GAMES, help="Games per anchor (seat-swapped pairs).")
    ] = 40,
    seed: Annotated[int, typer.Option(min=0, help="Schedule seed (0: the standard one).")] = 0,
    out: Annotated[
        str | None,
        typer.Option(help="Results JSON; resumable: a rerun with the same file skips done games."),
    ] = None,
    anchors: Annotated[
        str | None, typer.Option(help="Anchors file (default: the committed one).")
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Rate an agent on the fixed anchored scale: seat-swapped games against pinned anchor
    agents on a fixed seeded schedule, a Bradley-Terry rating with a bootstrap 95%
    interval, per-anchor and per-deck win rates (docs: Agents and results)."""
    import shlex

    from rich.progress import Progress

    from agents.evaluate import evaluate as run_evaluate
    from agents.results import ANCHORS_FILE, json_text, progress_path
    from agents.schedule import resolve_deck_set

    ds = resolve_deck_set(fmt, decks)
    out_path = Path(out) if out is not None else None
    if out_path is not None:  # before the games, not after; never the agent's or anchors' file
        check_output(out_path, spec_files(agent) + ([anchors] if anchors else []))
    command = f"mtg-env evaluate {shlex.quote(agent)} --decks {ds.name} --games {games}"
    command += f" --seed {seed}" if seed else ""
    command += f" --out {shlex.quote(out)}" if out is not None else ""
    with Progress(transient=True, disable=json_out) as bar:
        task = bar.add_task(f"{markup(agent)} on {ds.name}", total=None)

        def prog(n: int, total: int) -> None:
            bar.update(task, total=total, advance=n)

        try:
            res = run_evaluate(
                agent,
                ds.name,
                games,
                seed,
                out=out_path,
                anchors_file=Path(anchors) if anchors else ANCHORS_FILE,
                progress=prog,
                command=command,
            )
        except KeyboardInterrupt:
            bar.stop()
            where = (
                f"every finished game is in {progress_path(out_path)}; rerun the same command "
                "to resume"
                if out_path is not None
                else "give --out FILE to make a run resumable"
            )
            echo(f"interrupted: {where}", err=True)
            raise typer.Exit(130) from None
        except SystemExit as e:
            # Only code run by the evaluation (a plug-in's) calls sys.exit here: an
            # unfinished evaluation must not end with its status (0 would read as success).
            bar.stop()
            kept = f"; finished games are in {progress_path(out_path)}" if out_path else ""
            fail(f"the evaluation of {agent} stopped unfinished: sys.exit({e.code!r}){kept}")
    if json_out:
        echo(json_text({k: v for k, v in res.items() if k != "games"}))
        return
    r = res["rating"]
    bound = " (at the bound of the scale)" if r["at_bound"] else ""
    echo(
        f"{agent} on {ds.name}: rating {r['elo']:.0f} (95% CI {r['ci95'][0]:.0f} to "
        f"{r['ci95'][1]:.0f}){bound}, {res['games_played']} games"
    )
    for a in res["per_anchor"]:
        pinned = next(x["rating"] for x in res["anchors"] if x["spec"] == a["opponent"])
        echo(
            f"  vs {a['opponent']} ({pinned:.0f}): win rate {a['win_rate']:.3f} "
            f"(95% CI {a['ci95'][0]:.3f}-{a['ci95'][1]:.3f}, {a['games']} games)"
        )
    spd = res["seconds_per_decision"]
    if spd is not None:
        echo(f"  {spd * 1000:.2f} ms per decision")
    if res["fallbacks"]:
        echo(f"  {res['fallbacks']} replies were not legal action numbers (random fallback)")
    if out_path is not None:
        echo(f"results: {out_path}")


@clean
def compare(
    a: Annotated[str, typer.Argument(help="Results file of agent A (mtg-env evaluate --out).")],
    b: Annotated[str, typer.Argument(help="Results file of agent B, same schedule.")],
    width: Annotated[
        float,
        typer.Option(help="Interval width (score difference) to size the games needed for."),
    ] = 0.1,
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Is A stronger than B? A paired bootstrap over the games both played (same anchor,
    deck pair, seed and seat), and the games needed for a given interval width."""
    import math

    from agents.evaluate import compare as run_compare
    from agents.ratings import MIN_WIDTH
    from agents.results import json_text

    if not (math.isfinite(width) and MIN_WIDTH <= width <= 2):
        # A usage error (exit 2); a tiny width overflowed the games-needed figure.
        raise typer.BadParameter(
            f"{width} is not a number from {MIN_WIDTH:g} to 2", param_hint="'--width'"
        )
    res = run_compare(Path(a), Path(b), width=width)
    if json_out:
        echo(json_text(res))
        return

    def rating(x: float | None) -> str:
        return "unknown" if x is None else f"{x:+.0f}"

    lo, hi = res["rating_diff_ci95"]
    bound = " (a bound: one side won or lost every game)" if res["rating_diff_at_bound"] else ""
    echo(
        f"{res['a']} - {res['b']}: score difference {res['score_diff']:+.3f} per game "
        f"(95% CI {res['score_diff_ci95'][0]:+.3f} to {res['score_diff_ci95'][1]:+.3f}), "
        f"rating difference {rating(res['rating_diff'])}{bound} (95% CI {rating(lo)} "
        f"to {rating(hi)}), over {res['shared_games']} shared games"
    )
    echo(
        f"P({res['a']} stronger) = {res['prob_a_stronger']:.3f} "
        f"(one-sided p = {res['p_one_sided']:.3f})"
    )
    need = res["games_needed"]
    if need["games_per_anchor"] is None:
        echo(f"games needed for a {width:g}-wide interval: unknown ({need['why']})")
    else:
        echo(
            f"games needed for a {width:g}-wide interval: about {need['games_per_anchor']} per "
            f"anchor ({need['games_total']} in all)"
        )
