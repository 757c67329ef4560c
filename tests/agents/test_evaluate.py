"""`mtg-env evaluate` and `compare`: the schedule, the anchored rating fit and its
interval, resume and refusal, the paired comparison, plug-in agents and TextAgent, the
installed command and the leaderboard page. Tiny budgets: anchors random and heuristic,
a few games each."""

from __future__ import annotations

import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import agents.evaluate as ev
from agents import make_agent, ratings, results
from agents.evaluate import compare, evaluate
from agents.match import play_game
from agents.plugin import Guarded, PluginError, TextAgent, parse_reply
from agents.ratings import fit_ratings, rate
from agents.results import Anchor, EvaluateError, load_anchors, progress_path
from agents.schedule import deck_set, schedule
from mtg_env.engine import load_decks

ROOT = Path(__file__).resolve().parents[2]
MTG_ENV = str(Path(sys.executable).parent / "mtg-env")
H = 1000 + 400 * math.log10(3)  # the rating of a player scoring 3/4 against random

TIMING = ("seconds", "agent_seconds")


@pytest.fixture
def anchors(tmp_path: Path) -> Path:
    p = tmp_path / "anchors.yaml"
    p.write_text(
        "classic:\n  anchors:\n    - {spec: random, rating: 1000}\n"
        "    - {spec: heuristic, rating: 1400}\n"
        "core-heldout:\n  anchors:\n    - {spec: random, rating: 1000}\n"
    )
    return p


def _strip(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k not in TIMING} for r in rows]


# ------------------------------------------------------------------------------ schedule


def test_the_schedule_is_fixed_paired_and_seat_balanced() -> None:
    ds = deck_set("classic")
    a = schedule([("heuristic", "random")], ds, 6, seed=0)
    b = schedule([("ismcts:5", "random")], ds, 6, seed=0)
    assert len(a) == 6
    # The same positions whatever the agent: deck pair, seed and seat of every game.
    pos = [(t.opponent, t.pair, t.swap, t.seed, t.deck0, t.deck1) for t in a]
    assert pos == [(t.opponent, t.pair, t.swap, t.seed, t.deck0, t.deck1) for t in b]
    assert pos == [
        (t.opponent, t.pair, t.swap, t.seed, t.deck0, t.deck1)
        for t in schedule([("heuristic", "random")], ds, 6, seed=0)
    ]
    # Each pair is one position played twice, agents swapped.
    for k in range(3):
        g0, g1 = a[2 * k], a[2 * k + 1]
        assert (g0.swap, g1.swap) == (False, True)
        assert (g0.seed, g0.deck0, g0.deck1) == (g1.seed, g1.deck0, g1.deck1)
    # More games play the smaller schedule's games first; another seed, other games.
    assert schedule([("x", "random")], ds, 10, 0)[:6] == schedule([("x", "random")], ds, 6, 0)
    other = schedule([("heuristic", "random")], ds, 6, seed=1)
    assert [(t.deck0, t.deck1) for t in other] != [(t.deck0, t.deck1) for t in a]
    held = deck_set("core-heldout")
    assert held.format == "core" and len(held.decks) == 10
    assert {t.deck0 for t in schedule([("x", "random")], held, 40, 0)} <= set(held.decks)


def test_the_agent_and_anchor_play_the_same_positions(anchors: Path) -> None:
    r1 = evaluate("heuristic", games=2, anchors_file=anchors)
    r2 = evaluate("random", games=2, anchors_file=anchors)
    key = [(g["opponent"], g["pair"], g["swap"], g["seed"], g["seat_agent"]) for g in r1["games"]]
    assert key == [
        (g["opponent"], g["pair"], g["swap"], g["seed"], g["seat_agent"]) for g in r2["games"]
    ]
    assert [g["deck_agent"] for g in r1["games"]] == [g["deck_agent"] for g in r2["games"]]
    # Deterministic: the same run again gives the same games.
    again = evaluate("heuristic", games=2, anchors_file=anchors)
    assert _strip(again["games"]) == _strip(r1["games"])
    assert again["rating"] == r1["rating"]


# ------------------------------------------------------------------------------- ratings


def _rows(agent: str, opponent: str, scores: list[float]) -> list[dict[str, Any]]:
    return [
        {"agent": agent, "opponent": opponent, "pair": i // 2, "score": s}
        for i, s in enumerate(scores)
    ]


def test_an_agent_scoring_like_an_anchor_gets_its_rating() -> None:
    # Heuristic's rating from its games against pinned random: 3/4 -> 1000 + 400 log10(3).
    rows = _rows("heuristic", "random", [1, 1, 1, 0] * 10)
    r = rate(rows, ["random", "heuristic"], {"random": 1000.0})
    assert r["random"] == {"rating": 1000.0, "pinned": True}
    assert r["heuristic"]["rating"] == pytest.approx(H, abs=0.1)
    # An agent that beats random as often as heuristic does gets heuristic's rating; the
    # anchors stay where they are pinned.
    r2 = rate(
        _rows("x", "random", [1, 0, 1, 1] * 10),
        ["x", "random", "heuristic"],
        {"random": 1000.0, "heuristic": H},
    )
    assert r2["x"]["rating"] == pytest.approx(H, abs=0.1)
    assert r2["heuristic"] == {"rating": H, "pinned": True}
    # Half its games against an anchor: its rating.
    r3 = rate(_rows("y", "heuristic", [1, 0] * 8), ["y", "random", "heuristic"], r2_pins())
    assert r3["y"]["rating"] == pytest.approx(H, abs=0.1)


def r2_pins() -> dict[str, float]:
    return {"random": 1000.0, "heuristic": H}


def test_the_bootstrap_interval_contains_the_estimate_and_is_reproducible() -> None:
    rows = _rows("x", "random", [1, 0, 1, 1, 0.5, 1] * 5) + _rows("x", "heuristic", [0, 1] * 6)
    pins = r2_pins()
    r = rate(rows, ["x", "random", "heuristic"], pins, resamples=500)["x"]
    lo, hi = r["ci95"]
    assert lo < r["rating"] < hi
    assert rate(rows, ["x", "random", "heuristic"], pins, resamples=500)["x"] == r
    # Every game won: the likelihood keeps rising, the estimate is flagged at the bound.
    top = rate(_rows("x", "random", [1] * 6), ["x", "random"], {"random": 1000.0})["x"]
    assert top["at_bound"] and top["rating"] == pytest.approx(1000 + ratings.SPAN, abs=0.1)


def test_a_round_robin_fit_recovers_known_ratings() -> None:
    # Three players with exact expected scores for ratings 1000, 1200, 1500.
    true = np.array([1000.0, 1200.0, 1500.0])
    n = np.zeros((1, 3, 3))
    w = np.zeros_like(n)
    for i in range(3):
        for j in range(3):
            if i != j:
                n[0, i, j] = 1000
                w[0, i, j] = 1000 / (1 + 10 ** ((true[j] - true[i]) / 400))
    r = fit_ratings(n, w, {0: 1000.0}, (-200.0, 2700.0))[0]
    assert r == pytest.approx(true, abs=0.01)


# ------------------------------------------------------------------------ resume, refusal


def test_an_interrupted_run_resumes_to_the_single_run_result(
    anchors: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = evaluate("heuristic", games=4, out=tmp_path / "whole.json", anchors_file=anchors)
    assert whole["complete"] and whole["games_played"] == 8
    assert not progress_path(tmp_path / "whole.json").exists()  # removed when complete
    out = tmp_path / "part.json"
    real = ev.play_scheduled
    played: list[int] = []

    def stop_after_three(*a: Any) -> dict[str, Any]:
        if len(played) == 3:
            raise KeyboardInterrupt
        played.append(1)
        return real(*a)

    monkeypatch.setattr(ev, "play_scheduled", stop_after_three)
    with pytest.raises(KeyboardInterrupt):
        evaluate("heuristic", games=4, out=out, anchors_file=anchors)
    assert not out.exists()
    lines = progress_path(out).read_text().splitlines()
    assert len(lines) == 4 and "config" in json.loads(lines[0])  # config + three games
    monkeypatch.setattr(ev, "play_scheduled", real)
    calls: list[int] = []
    monkeypatch.setattr(ev, "play_scheduled", lambda *a: calls.append(1) or real(*a))
    res = evaluate("heuristic", games=4, out=out, anchors_file=anchors)
    assert len(calls) == 5  # only the games not played before
    assert _strip(res["games"]) == _strip(whole["games"])
    for k in ("rating", "per_anchor", "per_deck", "config", "complete"):
        assert res[k] == whole[k]
    # A rerun of a finished file plays nothing, gives the same result and leaves the file
    # as the runs that made it wrote it (their versions, times and command).
    calls.clear()
    before = out.read_bytes()
    assert evaluate("heuristic", games=4, out=out, anchors_file=anchors)["rating"] == res["rating"]
    assert not calls
    assert out.read_bytes() == before
    assert not progress_path(out).exists()


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"agent": "random"}, "agent"),
        ({"games": 6}, "games"),
        ({"seed": 1}, "seed"),
    ],
)
def test_another_configuration_is_refused_in_one_line(
    anchors: Path, tmp_path: Path, change: dict[str, Any], field: str
) -> None:
    out = tmp_path / "r.json"
    evaluate("heuristic", games=2, out=out, anchors_file=anchors)
    kw: dict[str, Any] = {"agent": "heuristic", "games": 2, "seed": 0, **change}
    with pytest.raises(EvaluateError) as e:
        evaluate(kw.pop("agent"), out=out, anchors_file=anchors, **kw)
    msg = str(e.value)
    assert "\n" not in msg and str(out) in msg and f"{field}:" in msg


def test_other_anchors_or_a_changed_plugin_file_are_refused(anchors: Path, tmp_path: Path) -> None:
    plug = tmp_path / "mine.py"
    plug.write_text(PLUGIN)
    spec = f"{plug}:Mine"
    out = tmp_path / "r.json"
    evaluate(spec, games=2, out=out, anchors_file=anchors)
    plug.write_text(PLUGIN + "\n# edited\n")
    with pytest.raises(EvaluateError, match="agent_file"):
        evaluate(spec, games=2, out=out, anchors_file=anchors)
    plug.write_text(PLUGIN)
    moved = tmp_path / "moved.yaml"
    moved.write_text(anchors.read_text().replace("1400", "1500"))
    with pytest.raises(EvaluateError, match="anchors"):
        evaluate(spec, games=2, out=out, anchors_file=moved)


def test_bad_anchor_files_name_the_field(tmp_path: Path) -> None:
    p = tmp_path / "a.yaml"
    p.write_text("classic:\n  anchors:\n    - {spec: random, rating: 1000}\n    - {spec: x}\n")
    with pytest.raises(EvaluateError, match=r"classic\.anchors\[1\]"):
        load_anchors("classic", p)
    p.write_text("classic:\n  anchors:\n    - {spec: heuristic, rating: 1000}\n")
    with pytest.raises(EvaluateError, match="random at 1000"):
        load_anchors("classic", p)
    with pytest.raises(EvaluateError, match="no anchors for the deck set 'core-heldout'"):
        load_anchors("core-heldout", p)
    assert load_anchors("classic", results.ANCHORS_FILE)[0] == Anchor("random", 1000.0)


# ------------------------------------------------------------------------------- compare


def _result(path: Path, agent: str, scores: list[float], **cfg: Any) -> Path:
    config = {
        "kind": results.KIND,
        "agent": agent,
        "agent_file": None,
        "anchors": [{"spec": "random", "rating": 1000.0, "file": None}],
        "format": "classic",
        "deck_set": "classic",
        "decks": ["A"],
        "decks_sha256": "0",
        "games": len(scores),
        "seed": 0,
        "max_decisions": 5000,
        "mtg_env": "0",
        **cfg,
    }
    games = [_row(agent, i, s) for i, s in enumerate(scores)]
    path.write_text(
        json.dumps({"kind": results.KIND, "agent": agent, "config": config, "games": games})
    )
    return path


def _row(agent: str, i: int, score: float) -> dict[str, Any]:
    """Game i of a made-up results file against random (every field evaluate writes)."""
    pair, swap = i // 2, i % 2
    return {
        "key": f"{agent}|random|{pair}|{swap}",
        "agent": agent,
        "opponent": "random",
        "pair": pair,
        "swap": swap,
        "seed": pair,
        "seat_agent": swap,
        "deck_agent": "A",
        "deck_opponent": "A",
        "score": score,
        "turns": 5,
        "decisions": 50,
        "agent_decisions": 25,
        "agent_seconds": 0.01,
        "fallbacks": 0,
        "seconds": 0.02,
        "code": "0",
    }


def test_compare_a_stronger_agent_and_the_games_needed(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    a = [float(x) for x in rng.random(200) < 0.8]
    b = [float(x) for x in rng.random(200) < 0.5]
    fa, fb = _result(tmp_path / "a.json", "A", a), _result(tmp_path / "b.json", "B", b)
    res = compare(fa, fb, width=0.1)
    assert res["shared_games"] == 200 and res["shared_pairs"] == 100
    assert res["score_diff"] == pytest.approx(np.mean(a) - np.mean(b), abs=1e-4)
    lo, hi = res["score_diff_ci95"]
    assert 0 < lo < res["score_diff"] < hi
    assert res["prob_a_stronger"] > 0.99 and res["p_one_sided"] < 0.01
    assert res["rating_diff"] > 0
    # Games needed: from the observed variance of the per-pair difference.
    d = (np.array(a) - np.array(b)).reshape(-1, 2).mean(axis=1)
    pairs = math.ceil((2 * 1.96 * np.std(d, ddof=1) / 0.1) ** 2)
    assert res["games_needed"]["games_per_anchor"] == 2 * pairs
    # Halving the width takes about four times the games.
    wide = compare(fa, fb, width=0.2)["games_needed"]["games_per_anchor"]
    assert 3.5 < res["games_needed"]["games_per_anchor"] / wide < 4.5
    # B against A: the mirror image.
    rev = compare(fb, fa)
    assert rev["score_diff"] == -res["score_diff"] and rev["prob_a_stronger"] < 0.01


def test_compare_uses_the_shared_games_and_refuses_other_schedules(tmp_path: Path) -> None:
    fa = _result(tmp_path / "a.json", "A", [1, 0, 1, 1, 0, 1])
    fb = _result(tmp_path / "b.json", "B", [0, 0, 1, 0])
    assert compare(fa, fb)["shared_games"] == 4
    fc = _result(tmp_path / "c.json", "C", [0, 0, 1, 0], seed=3)
    with pytest.raises(EvaluateError) as e:
        compare(fa, fc)
    assert "different schedules" in str(e.value) and "seed" in str(e.value)
    assert "\n" not in str(e.value)
    # An anchor pinned at another rating (spellbench host --b-rating) is another schedule.
    pinned = [{"spec": "random", "rating": 1100.0, "file": None}]
    fd = _result(tmp_path / "d.json", "D", [0, 0, 1, 0], anchors=pinned)
    with pytest.raises(EvaluateError, match=r"different schedules \(anchors"):
        compare(fa, fd)
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(EvaluateError, match="not an evaluation results file"):
        compare(fa, tmp_path / "bad.json")


def test_compare_two_real_runs(anchors: Path, tmp_path: Path) -> None:
    fa, fb = tmp_path / "h.json", tmp_path / "r.json"
    evaluate("heuristic", games=4, out=fa, anchors_file=anchors)
    evaluate("random", games=4, out=fb, anchors_file=anchors)
    res = compare(fa, fb)
    assert res["shared_games"] == 8 and res["a"] == "heuristic"


# ------------------------------------------------------------------------------ plug-ins

PLUGIN = """
class Mine:
    def __init__(self, seed=0):
        self.seed = seed
        self.games = 0

    def reset(self):
        self.games += 1

    def choose(self, game):
        return game.legal_actions()[0]


def factory(seed):
    return Mine(seed=seed + 100)


INSTANCE = Mine(seed=7)
NOT_AN_AGENT = 3


def first(text):
    return "I pick 0"


def bad(text):
    return "banana"
"""


@pytest.fixture
def plugin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "myagents_eval_test.py").write_text(PLUGIN)
    monkeypatch.chdir(tmp_path)  # a module spec is searched in the current directory
    yield tmp_path
    sys.modules.pop("myagents_eval_test", None)


def test_plugin_specs_load_a_class_a_factory_an_instance_and_a_text_function(
    plugin_dir: Path,
) -> None:
    # Every plug-in comes checked (`Guarded`: its moves must be legal), wrapping the object
    # the spec names; other attributes are the plug-in's own.
    a = make_agent("myagents_eval_test:Mine", seed=5)
    assert isinstance(a, Guarded) and type(a.agent).__name__ == "Mine" and a.seed == 5
    f = make_agent(f"{plugin_dir / 'myagents_eval_test.py'}:factory", seed=5)
    assert f.seed == 105
    i = make_agent("myagents_eval_test:INSTANCE", seed=5)
    assert i.seed == 7 and make_agent("myagents_eval_test:INSTANCE").agent is i.agent
    t = make_agent("text:myagents_eval_test:first", seed=1)
    assert isinstance(t.agent, TextAgent)
    decks = load_decks("classic")
    g = play_game([a, make_agent("random", 1)], (decks["Red Burn"], decks["Green Stompy"]), 3)
    assert g.is_over and a.games == 1
    # The built-in names keep their meaning.
    assert type(make_agent("ismcts:3")).__name__ == "ISMCTSAgent"


@pytest.mark.parametrize(
    ("spec", "error"),
    [
        ("nope_no_such_module:Agent", "module 'nope_no_such_module' can't be imported"),
        ("missing_file.py:Agent", "missing_file.py: no such file"),
        ("myagents_eval_test:Nope", "has no attribute 'Nope'"),
        ("myagents_eval_test:NOT_AN_AGENT", "is a int, not an agent"),
        ("myagents_eval_test:first", "needs the argument 'text'"),
        ("text:myagents_eval_test:Mine", "not a function taking the text view"),
        ("myagents_eval_test:", "a plug-in spec is MODULE:ATTR"),
    ],
)
def test_bad_plugin_specs_are_one_line_errors(plugin_dir: Path, spec: str, error: str) -> None:
    with pytest.raises(PluginError) as e:
        make_agent(spec)
    assert error in str(e.value) and "\n" not in str(e.value)
    assert spec.split(":")[0] in str(e.value)


def test_a_plugin_file_that_fails_is_one_line(tmp_path: Path) -> None:
    f = tmp_path / "broken.py"
    f.write_text("raise RuntimeError('oops')\n")
    with pytest.raises(PluginError, match="running .*broken.py failed: RuntimeError: oops"):
        make_agent(f"{f}:X")


def test_text_agent_plays_legal_replies_and_counts_fallbacks() -> None:
    decks = load_decks("classic")
    seen: list[str] = []
    warned: list[str] = []

    def reply(text: str) -> Any:
        seen.append(text)
        return [1, "I choose 0", "banana", 999, True][len(seen) % 5]

    agent = TextAgent(reply, seed=3, warn=warned.append)
    g = play_game([agent, make_agent("random", 2)], (decks["Red Burn"], decks["White Weenie"]), 4)
    assert g.is_over and agent.asked == len(seen) > 5
    assert "Your legal actions (answer with the number):" in seen[0]
    assert "  0: " in seen[0] and "  1: " in seen[0]
    bad = sum(1 for i in range(1, agent.asked + 1) if i % 5 in (2, 3, 4))
    assert agent.fallbacks == bad == len(warned)
    assert "reply 'banana' is not a legal action number" in warned[0]
    assert parse_reply("play 2 now") == 2 and parse_reply(True) is None
    assert parse_reply(None) is None and parse_reply(4) == 4


def test_evaluate_records_a_text_agents_fallbacks(
    plugin_dir: Path, anchors: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    res = evaluate("text:myagents_eval_test:bad", games=2, anchors_file=anchors)
    assert res["fallbacks"] > 0
    assert res["fallbacks"] == sum(g["fallbacks"] for g in res["games"])
    assert "reply 'banana' is not a legal action number" in capsys.readouterr().err


# ----------------------------------------------------------------- the installed command


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MTG_ENV, *args], capture_output=True, text=True, timeout=120, cwd=cwd)


def test_the_installed_command_evaluates_and_compares(anchors: Path, tmp_path: Path) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    common = ["--games", "2", "--anchors", str(anchors)]
    r = _cli("evaluate", "heuristic", *common, "--out", str(a), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "heuristic on classic: rating" in r.stdout and "vs random (1000)" in r.stdout
    r = _cli("evaluate", "random", *common, "--out", str(b), "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["config"]["agent"] == "random"
    rec = json.loads(a.read_text())
    assert rec["command"].startswith("mtg-env evaluate heuristic --decks classic --games 2")
    assert rec["versions"]["mtg_env"] and rec["versions"]["numpy"]
    r = _cli("compare", str(a), str(b), "--width", "0.2", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "score difference" in r.stdout and "P(heuristic stronger)" in r.stdout
    assert "Traceback" not in r.stdout + r.stderr


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["evaluate", "nope_mod_xyz:A"], "module 'nope_mod_xyz' can't be imported"),
        (["evaluate", "bogus"], "unknown agent spec 'bogus'"),
        (["evaluate", "random", "--out", "."], "exists and is a directory"),
        (["evaluate", "random", "--decks", "nope"], "unknown deck set 'nope'"),
        (["evaluate", "random", "--format", "core", "--decks", "classic"], "not core"),
        (["evaluate", "random", "--anchors", "missing.yaml"], "missing.yaml"),
        (["compare", "missing_a.json", "missing_b.json"], "missing_a.json"),
    ],
)
def test_bad_input_to_the_command_is_one_line(
    tmp_path: Path, anchors: Path, args: list[str], error: str
) -> None:
    if args[0] == "evaluate" and "--anchors" not in args:
        args = [*args, "--anchors", str(anchors)]
    r = _cli(*args, cwd=tmp_path)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "Traceback" not in r.stdout + r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and error in lines[0], r.stderr


def test_a_rerun_with_another_configuration_is_one_line(anchors: Path, tmp_path: Path) -> None:
    out = str(tmp_path / "r.json")
    common = ["--anchors", str(anchors), "--out", out]
    assert _cli("evaluate", "random", "--games", "2", *common, cwd=tmp_path).returncode == 0
    r = _cli("evaluate", "random", "--games", "4", *common, cwd=tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip().splitlines() == [
        f"error: {out}: holds a run with another configuration (games: 2 there, 4 now); "
        "rerun with its settings to resume it, or give a new --out file"
    ]


# --------------------------------------------------------------------------- leaderboard


def _hooks() -> Any:
    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs" / "hooks.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_leaderboard_script_and_page(tmp_path: Path) -> None:
    out, anchors = tmp_path / "lb", tmp_path / "anchors.yaml"
    script = [sys.executable, str(ROOT / "scripts" / "leaderboard.py"), "--smoke"]
    script += ["--out", str(out), "--anchors-file", str(anchors)]
    for extra in (["--anchors"], []):
        r = subprocess.run([*script, *extra], capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
    assert load_anchors("classic", anchors)[1].spec == "heuristic"
    assert (out / "classic__ismcts-2.json").exists()
    page = _hooks().leaderboard_page(out, anchors)
    assert page.startswith("# Leaderboard")
    assert "| `ismcts:2` |" in page and "2 iterations/decision" in page
    assert "mtg-env evaluate ismcts:2 --decks classic --games 2" in page
    assert "`policy:default` is not on this table" in page


def test_the_committed_leaderboard_page_builds() -> None:
    page = _hooks().leaderboard_page()
    assert page.startswith("# Leaderboard") and "## Classic decks" in page


def test_a_results_file_naming_a_plugin_never_runs_it(anchors: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    evil = tmp_path / "evil.py"
    evil.write_text(f"open({str(marker)!r}, 'w').close()\nclass X:\n    pass\n")
    fa = _result(tmp_path / "a.json", f"{evil}:X", [1, 0, 1, 1])
    fb = _result(tmp_path / "b.json", "B", [0, 0, 1, 0])
    assert compare(fa, fb)["a"] == f"{evil}:X"
    with pytest.raises(EvaluateError, match="another configuration"):
        evaluate("random", games=2, out=fa, anchors_file=anchors)
    assert not marker.exists()


# ------------------------------------------------------- plug-ins that break the protocol

BROKEN = """
import os
import sys


class ReturnsNone:
    def choose(self, game):
        return None


class ReturnsInt:
    def choose(self, game):
        return 0


class Raises:
    def choose(self, game):
        raise ZeroDivisionError("boom")


class Exits:
    def choose(self, game):
        sys.exit(0)


class ExitsOnInit:
    def __init__(self):
        sys.exit(0)


class ExitsInFallbacks:
    # Exits where the run reads its fallback count, outside choose().
    @property
    def fallbacks(self):
        sys.exit(0)

    def choose(self, game):
        return game.legal_actions()[0]


class Stale:
    # Returns an action legal at an earlier decision: no longer legal.
    def __init__(self):
        self.first = None

    def choose(self, game):
        if self.first is None:
            self.first = game.legal_actions()[0]
        return self.first


class FailsLater:
    # Plays its games until the file FAIL exists; then every game from the second pair on
    # raises (so a run stops with finished games, and resumes once FAIL is gone).
    def __init__(self, seed=0):
        self.seed = seed

    def choose(self, game):
        if os.path.exists("FAIL") and self.seed >= 3:
            raise RuntimeError("the service is down")
        return game.legal_actions()[0]
"""


@pytest.mark.parametrize(
    ("attr", "said"),
    [
        ("ReturnsNone", "choose() returned None at decision "),
        ("ReturnsInt", "choose() returned 0 at decision "),
        ("Stale", "choose() returned Action("),
        ("Raises", "choose() raised ZeroDivisionError: boom at decision "),
        ("Exits", "choose() raised SystemExit: 0 at decision "),
        ("ExitsOnInit", "calling the class ExitsOnInit failed: SystemExit: 0"),
        ("ExitsInFallbacks", "stopped unfinished: sys.exit(0)"),
    ],
)
def test_a_plugin_that_breaks_the_protocol_is_one_line(
    anchors: Path, tmp_path: Path, attr: str, said: str
) -> None:
    """The plug-in's fault, not an internal error; never exit status 0 (sys.exit(0) in the
    plug-in included): one line naming the spec, the decision and what it returned."""
    (tmp_path / "broken.py").write_text(BROKEN)
    spec = f"broken.py:{attr}"
    r = _cli("evaluate", spec, "--games", "2", "--anchors", str(anchors), cwd=tmp_path)
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stdout + r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and spec in lines[0], lines
    assert said in lines[0], lines[0]
    if "decision" in said:
        assert "not one of its" in lines[0] or "raised" in lines[0]
        assert "in the game against 'random', pair 0 (seed 0)" in lines[0]


def test_a_plugin_fault_keeps_the_finished_games_and_the_rerun_resumes(
    anchors: Path, tmp_path: Path
) -> None:
    (tmp_path / "broken.py").write_text(BROKEN)
    (tmp_path / "FAIL").touch()
    out = tmp_path / "r.json"
    args = ("evaluate", "broken.py:FailsLater", "--games", "4", "--anchors", str(anchors))
    r = _cli(*args, "--out", str(out), cwd=tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    prog = progress_path(out)
    assert r.stderr.strip().splitlines() == [
        "error: agent spec 'broken.py:FailsLater': choose() raised RuntimeError: the service "
        f"is down at decision 2 (turn 0, seat 0), in the game against 'random', pair 1 "
        f"(seed 1); 2 finished games kept in {prog} (the same command resumes)"
    ]
    kept = prog.read_text().splitlines()[1:]
    assert len(kept) == 2 and not out.exists()
    (tmp_path / "FAIL").unlink()
    r = _cli(*args, "--out", str(out), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    res = json.loads(out.read_text())
    assert res["complete"] and res["games_played"] == 8
    assert [json.dumps(g) for g in res["games"][:2]] == kept  # resumed, not replayed


def test_text_agent_replies_that_used_to_abort_fall_back() -> None:
    """A reply whose repr raises, a reply longer than what is read, a number too long for
    int(), are fallbacks like any bad reply; numpy integers are integers."""

    class Unprintable:
        def __repr__(self) -> str:
            raise RuntimeError("no repr")

    decks = load_decks("classic")
    replies: list[Any] = [Unprintable(), "x" * 100_000 + "1", "9" * 5000, np.int64(1)]
    warned: list[str] = []
    agent = TextAgent(lambda _: replies[(agent.asked - 1) % 4], seed=3, warn=warned.append)
    g = play_game([agent, make_agent("random", 2)], (decks["Red Burn"], decks["White Weenie"]), 4)
    assert g.is_over and agent.asked > 8
    bad = sum(1 for i in range(1, agent.asked + 1) if i % 4 != 0)
    assert agent.fallbacks == bad == len(warned)  # np.int64(1) is always a legal number
    assert "reply <a Unprintable whose repr fails> is not a legal action number" in warned[0]
    assert all(len(w) < 200 for w in warned)  # a huge reply is shown cut
    assert parse_reply(np.int64(2)) == 2 and parse_reply(np.bool_(True)) is None
    assert parse_reply("9" * 5000) is None and parse_reply("0" * 5000 + "3") == 3
    # Only the first 10,000 characters are read: the work per reply is bounded.
    assert parse_reply("x" * 9_000 + "7") == 7 and parse_reply("x" * 10_000 + "7") is None
    assert parse_reply("x" * 9_998 + "12345") is None  # a number cut by the bound


# --------------------------------------------------------- results files read back checked


def _edited(src: Path, dst: Path, edit: Any) -> Path:
    raw = json.loads(src.read_text())
    edit(raw)
    dst.write_text(json.dumps(raw))
    return dst


EDITS = {
    "a game without deck_agent": (
        lambda r: r["games"][1].pop("deck_agent"),
        "field games[1].deck_agent: Field required",
    ),
    "a game without agent_seconds": (
        lambda r: r["games"][0].pop("agent_seconds"),
        "field games[0].agent_seconds: Field required",
    ),
    "no agent": (lambda r: r.pop("agent"), "field agent: Field required"),
    "a pair of the wrong type": (
        lambda r: r["games"][2].update(pair="1"),
        "field games[2].pair: Input should be a valid integer",
    ),
    "a key that is not its game's": (
        lambda r: r["games"][0].update(opponent="heuristic"),
        "field games[0]: Value error, key",
    ),
    "an anchor rated Infinity": (
        lambda r: r["config"]["anchors"][1].update(rating=float("inf")),
        "field config.anchors[1].rating: Input should be a finite number",
    ),
}


@pytest.fixture
def finished(anchors: Path, tmp_path: Path) -> Path:
    out = tmp_path / "r.json"
    evaluate("random", games=2, out=out, anchors_file=anchors)
    return out


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_an_edited_results_file_is_one_line_naming_the_field(
    anchors: Path, tmp_path: Path, finished: Path, edit: str
) -> None:
    change, error = EDITS[edit]
    bad = _edited(finished, tmp_path / "bad.json", change)
    before = bad.read_bytes()
    resume = ("evaluate", "random", "--games", "2", "--anchors", str(anchors), "--out", str(bad))
    for args in (resume, ("compare", str(bad), str(finished), "--json")):
        r = _cli(*args, cwd=tmp_path)
        assert r.returncode == 2, (args[0], r.stdout, r.stderr)
        assert "Traceback" not in r.stdout + r.stderr
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"error: {bad}: {error}"), lines
    assert bad.read_bytes() == before  # nothing lost


def test_an_edited_progress_file_is_one_line_naming_the_line_and_field(
    anchors: Path, tmp_path: Path, finished: Path
) -> None:
    raw = json.loads(finished.read_text())
    del raw["games"][1]["agent_seconds"]
    out = tmp_path / "p.json"
    lines = [{"config": raw["config"]}, *raw["games"]]
    progress_path(out).write_text("".join(json.dumps(x) + "\n" for x in lines))
    r = _cli(
        "evaluate",
        "random",
        "--games",
        "2",
        "--anchors",
        str(anchors),
        "--out",
        str(out),
        cwd=tmp_path,
    )
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.strip().splitlines() == [
        f"error: {progress_path(out)}: line 3: field agent_seconds: Field required"
    ]


def test_a_stored_game_must_be_the_schedules(anchors: Path, finished: Path) -> None:
    raw = json.loads(finished.read_text())
    raw["games"][0]["deck_agent"] = "Some Other Deck"
    finished.write_text(json.dumps(raw))
    with pytest.raises(EvaluateError, match=r"field deck_agent: 'Some Other Deck' there, but"):
        evaluate("random", games=2, out=finished, anchors_file=anchors)


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (lambda r: r["rating"].update(elo=2999), "rating.elo: 2999 there, but its games give"),
        (lambda r: r["games"][0].update(score=1 - r["games"][0]["score"]), "rating.elo"),
        (lambda r: r["per_anchor"][0].update(win_rate=0.99), "per_anchor[0].win_rate"),
    ],
    ids=["rating", "a game's score", "a win rate"],
)
def test_a_finished_file_is_recomputed_not_shown_as_stored(
    anchors: Path, tmp_path: Path, finished: Path, edit: Any, field: str
) -> None:
    """Rerunning a finished file shows the figures of its games: a file whose stored
    figures are not those is refused in one line, naming the field."""
    args = ("evaluate", "random", "--games", "2", "--anchors", str(anchors), "--out")
    good = _cli(*args, str(finished), "--json", cwd=tmp_path)
    assert good.returncode == 0, good.stderr
    shown = json.loads(good.stdout)
    stored = json.loads(finished.read_text())
    assert shown["rating"] == stored["rating"] and shown["command"] == stored["command"]
    bad = _edited(finished, tmp_path / "bad.json", edit)
    r = _cli(*args, str(bad), cwd=tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stdout + r.stderr, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {bad}: field {field}"), lines
    assert "2999" not in r.stdout


def test_compare_prints_valid_json_and_flags_a_rating_at_the_bound(tmp_path: Path) -> None:
    fa = _result(tmp_path / "a.json", "A", [1.0] * 8)
    fb = _result(tmp_path / "b.json", "B", [0.0, 1.0] * 4)
    r = _cli("compare", str(fa), str(fb), "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr

    def strict(name: str) -> None:
        raise AssertionError(f"{name} is not JSON")

    res = json.loads(r.stdout, parse_constant=strict)
    assert res["rating_diff_at_bound"] is True
    assert results.json_text({"x": float("nan"), "y": [float("-inf"), 1.5]}) == (
        '{"x": null, "y": [null, 1.5]}'
    )


@pytest.mark.parametrize("width", ["1e-300", "0.0009", "nan", "0", "3"])
def test_compare_width_out_of_range_is_a_usage_error(tmp_path: Path, width: str) -> None:
    fa = _result(tmp_path / "a.json", "A", [1.0, 0.0, 1.0, 1.0, 0.0, 0.0])
    fb = _result(tmp_path / "b.json", "B", [0.0, 0.0, 1.0, 0.0, 1.0, 0.0])
    r = _cli("compare", str(fa), str(fb), "--width", width, cwd=tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stdout + r.stderr, r.stderr
    assert "--width" in r.stderr and "Usage" in r.stderr
    with pytest.raises(ValueError, match="width"):
        compare(fa, fb, width=float(width))
    # The narrowest width allowed gives a number.
    assert compare(fa, fb, width=ratings.MIN_WIDTH)["games_needed"]["games_per_anchor"] > 0
