"""Bad input through the installed `mtg-env` console script, as a user meets it: for each
class of bad input, the exit status, no traceback, a message naming the input, and nothing
written or lost."""

from __future__ import annotations

import fcntl
import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

MTG_ENV = str(Path(sys.executable).parent / "mtg-env")


def run(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [MTG_ENV, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout
    )


def assert_clean(r: subprocess.CompletedProcess[str], status: int, *names: str) -> str:
    """Exit `status`, no traceback anywhere, and stderr naming every one of `names`."""
    out = r.stdout + r.stderr
    assert r.returncode == status, (r.returncode, out[-2000:])
    assert "Traceback" not in out and 'File "' not in out, out[-2000:]
    for n in names:
        assert n in r.stderr, (n, r.stderr)
    return r.stderr


# --------------------------------------------------------------------------- usage errors


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (["match", "random", "random", "--seed", "abc"], ["--seed"]),
        (["match", "random", "random", "--bogus"], ["--bogus"]),
        (["matchx"], ["matchx"]),
        (["play", "--seat", "2"], ["--seat"]),
        (["match", "random"], ["agent_b"]),
        ([], ["Usage"]),
        (["replay"], ["Usage"]),
        (["match", "random", "random", "--games", "0"], ["--games"]),
        (["match", "random", "random", "--games", "-3"], ["--games"]),
        (["tournament", "--agents", "random,heuristic", "--out", "t", "--jobs", "0"], ["--jobs"]),
        (["bench", "--seconds", "nan"], ["--seconds"]),
        (["bench", "--seconds", "0"], ["--seconds"]),
        (["bench", "--seconds", "inf"], ["--seconds"]),
        (["replay", "record", "--out", "r.json", "--seed", "-1"], ["--seed"]),
    ],
)
def test_usage_errors_print_the_usage_on_stderr_and_exit_2(
    tmp_path: Path, args: list[str], names: list[str]
) -> None:
    r = run(*args, cwd=tmp_path)
    err = assert_clean(r, 2, *names)
    assert "Usage" in err
    assert list(tmp_path.iterdir()) == []  # nothing written


# --------------------------------------------------------------------------- bad values


@pytest.mark.parametrize(
    ("spec", "name"),
    [
        ("nonsense", "nonsense"),
        ("[/x]", "[/x]"),  # rich markup in a spec is text, not markup
        ("policy:missing.safetensors", "missing.safetensors"),
    ],
)
def test_bad_agent_specs_are_one_line(tmp_path: Path, spec: str, name: str) -> None:
    r = run("match", spec, "random", "--games", "1", cwd=tmp_path)
    err = assert_clean(r, 2, name)
    assert len(err.strip().splitlines()) == 1


def test_policy_default_in_another_format_says_which_format_it_plays(tmp_path: Path) -> None:
    for fmt in ("adventure", "pocket"):
        r = run("match", "policy:default", "random", "--games", "1", "--format", fmt, cwd=tmp_path)
        err = assert_clean(r, 2, "classic", fmt)
        assert len(err.strip().splitlines()) == 1


def test_markup_in_a_tournament_spec_is_printed_as_text(tmp_path: Path) -> None:
    """A spec that looks like rich markup reaches the agent parser as text (and is refused
    there as an unknown spec), not rich's markup parser."""
    r = run("tournament", "--agents", "random,[bold]x[/bold]", "--out", "t", cwd=tmp_path)
    assert_clean(r, 2, "[bold]x[/bold]")


# --------------------------------------------------------------------------- unreadable input


def test_input_files_that_cannot_be_read_are_one_line(tmp_path: Path) -> None:
    (tmp_path / "adir").mkdir()
    (tmp_path / "latin1.json").write_bytes(b'{"x": "caf\xe9"}')
    (tmp_path / "deep.json").write_text("[" * 200_000 + "]" * 200_000)
    for f in ("missing.json", "adir", "latin1.json", "deep.json"):
        for cmd in (["replay", "verify", f], ["replay", "show", f]):
            r = run(*cmd, cwd=tmp_path)
            err = assert_clean(r, 2, f)
            assert len(err.strip().splitlines()) == 1, err


def test_scenario_batch_reports_each_file_and_goes_on(tmp_path: Path) -> None:
    good = Path(__file__).parents[1] / "scenarios" / "classic" / "cr_302_6_summoning_sickness.yaml"
    (tmp_path / "a_latin1.yaml").write_bytes(b"name: caf\xe9\n")
    (tmp_path / "b_deep.yaml").write_text("[" * 100_000 + "]" * 100_000)
    (tmp_path / "c_good.yaml").write_text(good.read_text())
    r = run("scenario", "run", str(tmp_path), cwd=tmp_path)
    assert_clean(r, 2)
    lines = r.stdout.strip().splitlines()
    assert lines[0].startswith("ERROR ") and "a_latin1.yaml" in lines[0]
    assert lines[1].startswith("ERROR ") and "b_deep.yaml" in lines[1]
    assert lines[2].startswith("PASS ")


# --------------------------------------------------------------------------- outputs


def test_outputs_that_are_not_regular_files_are_refused_and_kept(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    folder = tmp_path / "folder"
    folder.mkdir()
    link = tmp_path / "null_link"
    link.symlink_to("/dev/null")
    cases = [
        ["replay", "record", "--out", str(fifo)],
        ["replay", "record", "--out", str(folder)],
        ["replay", "record", "--out", str(link)],
        ["replay", "record", "--out", "/dev/null"],
        ["match", "random", "random", "--games", "2", "--records", str(fifo)],
        ["tournament", "--agents", "random,heuristic", "--out", str(fifo)],
    ]
    for args in cases:
        r = run(*args, cwd=tmp_path)
        assert_clean(r, 2, args[args.index("--records") + 1] if "--records" in args else "")
    assert stat.S_ISFIFO(fifo.stat().st_mode) and folder.is_dir() and link.is_symlink()
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_a_symlinked_output_writes_its_target(tmp_path: Path) -> None:
    target = tmp_path / "real.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    r = run("replay", "record", "--out", str(link), "--seed", "1", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert link.is_symlink() and json.loads(target.read_text())["seed"] == 1


def test_outputs_honour_the_umask(tmp_path: Path) -> None:
    r = subprocess.run(
        [MTG_ENV, "replay", "record", "--out", "r.json", "--seed", "2"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=lambda: os.umask(0o022),  # the umask a user's shell would set
    )
    assert r.returncode == 0, r.stderr
    assert stat.S_IMODE((tmp_path / "r.json").stat().st_mode) == 0o644


# --------------------------------------------------------------------------- tournaments


def test_a_tournament_resume_with_another_configuration_is_refused(tmp_path: Path) -> None:
    base = ["tournament", "--agents", "random,heuristic", "--out", "t", "--games", "2"]
    assert run(*base, cwd=tmp_path).returncode == 0
    games = (tmp_path / "t" / "games.csv").read_text()
    summary = (tmp_path / "t" / "summary.json").read_text()
    for extra, field in (
        (["--seed", "5"], "seed"),
        (["--format", "adventure"], "format"),
        (["--games", "4"], "games"),
    ):
        r = run(*base, *extra, cwd=tmp_path)
        err = assert_clean(r, 2, "t", field, "new --out")
        assert len(err.strip().splitlines()) == 1
    # Nothing lost, nothing mixed in.
    assert (tmp_path / "t" / "games.csv").read_text() == games
    assert (tmp_path / "t" / "summary.json").read_text() == summary
    # The same configuration resumes: nothing left to play, the same summary.
    r = run(*base, cwd=tmp_path)
    assert r.returncode == 0 and json.loads(summary)["games"] == 2


def test_a_results_folder_without_a_configuration_is_refused(tmp_path: Path) -> None:
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "games.csv").write_text("key,agent_a\n")
    r = run("tournament", "--agents", "random,heuristic", "--out", "old", cwd=tmp_path)
    assert_clean(r, 2, "old", "config.json")
    assert (tmp_path / "old" / "games.csv").read_text() == "key,agent_a\n"


def _workers_of(pid: int) -> list[int]:
    """Processes whose command line names this test's tournament folder."""
    out = subprocess.run(["ps", "-eo", "pid,ppid,args"], capture_output=True, text=True).stdout
    return [int(line.split()[0]) for line in out.splitlines()[1:] if f"{pid}" == line.split()[1]]


def _start_tournament(tmp_path: Path) -> subprocess.Popen[str]:
    # ISMCTS games take seconds each: the tournament is mid-game when the signal comes.
    return subprocess.Popen(
        [MTG_ENV, "tournament", "--agents", "ismcts:400,heuristic", "--games", "12"]
        + ["--out", str(tmp_path / "t"), "--jobs", "2"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def _wait_for_workers(p: subprocess.Popen[str]) -> list[int]:
    deadline = time.time() + 60
    while time.time() < deadline:
        w = _workers_of(p.pid)
        if len(w) >= 2:
            time.sleep(1.0)  # the workers import and start their first games
            return _workers_of(p.pid)
        time.sleep(0.2)
    raise AssertionError("the tournament's workers did not start")


def _gone(pids: list[int], within: float) -> bool:
    deadline = time.time() + within
    while time.time() < deadline:
        if not any(Path(f"/proc/{q}").exists() and _alive(q) for q in pids):
            return True
        time.sleep(0.1)
    return False


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_ctrl_c_stops_a_parallel_tournament_at_once_and_it_resumes(tmp_path: Path) -> None:
    p = _start_tournament(tmp_path)
    workers = _wait_for_workers(p)
    t = time.time()
    os.killpg(p.pid, signal.SIGINT)  # a terminal sends Ctrl-C to the whole group
    _, err = p.communicate(timeout=30)
    # A game of ismcts:400 against the heuristic takes about a minute on a 2-core machine, so
    # ten seconds shows the game in progress was abandoned; a tighter bound flakes when the
    # test machine is busy, and this is not a speed test.
    assert time.time() - t < 10.0
    assert p.returncode == 130 and "Traceback" not in err and "resume" in err, err
    assert _gone(workers, 10.0), "workers still running after Ctrl-C"
    assert not [f for f in (tmp_path / "t").iterdir() if f.name.endswith(".tmp")]
    cfg = json.loads((tmp_path / "t" / "config.json").read_text())
    assert cfg["games"] == 12 and cfg["agents"] == ["ismcts:400", "heuristic"]


def test_workers_die_with_a_killed_parent(tmp_path: Path) -> None:
    p = _start_tournament(tmp_path)
    workers = _wait_for_workers(p)
    os.kill(p.pid, signal.SIGKILL)
    p.communicate(timeout=30)
    assert _gone(workers, 3.0), "workers outlived their killed parent"


def test_ctrl_c_stops_a_match_with_the_finished_games_counted(tmp_path: Path) -> None:
    p = subprocess.Popen(
        [MTG_ENV, "match", "ismcts:400", "heuristic", "--games", "20", "--json"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    time.sleep(6)
    t = time.time()
    os.killpg(p.pid, signal.SIGINT)
    out, err = p.communicate(timeout=30)
    # A game of ismcts:400 against the heuristic takes about a minute on a 2-core machine, so
    # ten seconds shows the game in progress was abandoned; a tighter bound flakes when the
    # test machine is busy, and this is not a speed test.
    assert time.time() - t < 10.0
    assert p.returncode == 130 and "Traceback" not in out + err, err
    d = json.loads(out)
    assert d["interrupted"] is True and d["games"] < 20 and "interrupted after" in err


def test_terminal_escapes_in_user_text_are_shown_escaped(tmp_path: Path) -> None:
    """A deck name is user text: `replay show` prints its escape sequences as text, never
    as control characters that the terminal would act on."""
    r = run("replay", "record", "--out", "r.json", "--seed", "1", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    m = json.loads((tmp_path / "r.json").read_text())
    m["decks"][0]["name"] = "Evil\x1b[2J\x1b]0;title\x07Deck"
    (tmp_path / "r.json").write_text(json.dumps(m))
    r = run("replay", "show", "r.json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "\x1b" not in r.stdout and "\x07" not in r.stdout
    assert "Evil\\x1b[2J" in r.stdout


@pytest.mark.parametrize("args", [["--decisions", "-5"], ["--decisions", "0"], ["--seed", "x"]])
def test_script_numbers_are_ranged(tmp_path: Path, args: list[str]) -> None:
    script = Path(__file__).resolve().parents[2] / "scripts" / "fuzz.py"
    r = subprocess.run(
        [sys.executable, str(script), *args, "--out", str(tmp_path / "f")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 2 and "Traceback" not in r.stderr and args[0] in r.stderr
    assert not (tmp_path / "f").exists()


# --------------------------------------------------------------------------- deck lists


@pytest.mark.parametrize(
    "args",
    [
        ["deck", "import", "huge.txt"],
        ["replay", "record", "--out", "r.json", "--decks", "huge.txt,Red Burn"],
        ["match", "random", "random", "--games", "2", "--decks", "huge.txt,Red Burn"],
    ],
    ids=["deck import", "replay record --decks", "match --decks"],
)
def test_a_huge_one_line_deck_list_is_refused_at_its_line(tmp_path: Path, args: list[str]) -> None:
    """Read whole, an 8 MB line of varied characters cost 400 MB (60 MB: 2.7 GB) before it
    was reported as one unknown card; the line is refused as it is read, and nothing after
    it is read: the byte that is not UTF-8 at the file's end is never seen."""
    line = bytes(range(33, 123)) * 90_000  # 8.1 MB, no character common enough to drop
    (tmp_path / "huge.txt").write_bytes(b"4 " + line + b"\n4 Mountain\n\xff\n")
    r = subprocess.run([MTG_ENV, *args], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    err = assert_clean(r, 2, "huge.txt:1")
    assert err.strip().splitlines() == [
        "error: huge.txt:1: line longer than 500 characters; a deck list has short lines "
        "(nothing past it was read)"
    ]
    assert sorted(f.name for f in tmp_path.iterdir()) == ["huge.txt"]


def test_an_error_that_quotes_a_long_input_is_one_short_line(tmp_path: Path) -> None:
    path = "y" * 100_000 + ".yaml"  # a deck path, quoted by its error
    r = run("watch", "--decks", f"{path},Red Burn", cwd=tmp_path)
    err = assert_clean(r, 2, "yyyy")
    assert len(err.strip().splitlines()) == 1 and len(err) < 700
    assert err.rstrip().endswith("more characters)")
    # A long card name inside a deck file is refused by its length, not quoted.
    (tmp_path / "d.yaml").write_text(f"name: D\nformat: classic\ncards: ['4 {'x' * 200_000}']\n")
    r = run("watch", "--decks", "d.yaml,Red Burn", cwd=tmp_path)
    err = assert_clean(r, 2, "d.yaml", "cards[0]", "at most 500 characters")
    assert len(err.strip().splitlines()) == 1 and len(err) < 700


# --------------------------------------------------------------------------- output = input


def _same_file_cases(tmp_path: Path) -> list[tuple[list[str], Path]]:
    """(command, the input it must not replace): every command with an input and an
    output, the output given as the input's own path, a symlink to it or a hard link."""
    r = run("replay", "record", "--out", "game.json", "--seed", "1", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = run("deck", "generate", "--format", "classic", "--text", "--out", "d.txt", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    (tmp_path / "p.safetensors").write_bytes(b"not a policy")
    (tmp_path / "link.txt").symlink_to("d.txt")
    os.link(tmp_path / "d.txt", tmp_path / "hard.txt")
    os.link(tmp_path / "game.json", tmp_path / "game.html")  # replay html's default output
    d, game = tmp_path / "d.txt", tmp_path / "game.json"
    (tmp_path / "mine.py").write_text(
        "class Mine:\n    def choose(self, game):\n        return 0\n"
    )
    (tmp_path / "anchors.yaml").write_text("{}\n")
    return [
        (["evaluate", "mine.py:Mine", "--out", "mine.py"], tmp_path / "mine.py"),
        (
            ["evaluate", "random", "--anchors", "anchors.yaml", "--out", "anchors.yaml"],
            tmp_path / "anchors.yaml",
        ),
        (["deck", "import", "d.txt", "--out", "d.txt"], d),
        (["deck", "import", "d.txt", "--out", "link.txt"], d),
        (["deck", "import", "link.txt", "--out", "hard.txt"], d),
        (["replay", "html", "game.json", "--out", "./game.json"], game),
        (["replay", "html", "game.json"], game),
        (["policy", "convert", "p.safetensors", "p.safetensors"], tmp_path / "p.safetensors"),
        (["replay", "record", "--decks", "d.txt,Red Burn", "--out", "hard.txt"], d),
        (["match", "random", "random", "--decks", "d.txt,d.txt", "--records", "link.txt"], d),
        (["play", "--decks", "d.txt,Red Burn", "--save", "d.txt"], d),
    ]


def test_an_output_that_is_an_input_is_refused(tmp_path: Path) -> None:
    for args, src in _same_file_cases(tmp_path):
        before = src.read_bytes()
        out = args[-1] if args[-2].startswith("--") or args[0] == "policy" else "game.html"
        r = subprocess.run(
            [MTG_ENV, *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,  # `play` would quit at once, and save
        )
        err = assert_clean(r, 2, out.removeprefix("./"), "is the input file")
        assert len(err.strip().splitlines()) == 1, (args, err)
        assert src.read_bytes() == before, args
    assert not [f for f in tmp_path.iterdir() if f.name.endswith(".tmp")]


# --------------------------------------------------------------------------- closed stdout


def _into_head(args: list[str], cwd: Path, head_first: bool) -> tuple[int, str, str]:
    """`mtg-env ARGS | head -n 1` on a real pipe: the exit status, head's output and the
    command's stderr. The pipe holds 4 KiB (its smallest), so output past 8 KiB meets a
    closed reader; with `head_first`, head has read its line and exited before the command
    starts, so the command's first write meets it."""
    r, w = os.pipe()
    fcntl.fcntl(w, fcntl.F_SETPIPE_SZ, 4096)
    head = subprocess.Popen(["head", "-n", "1"], stdin=r, stdout=subprocess.PIPE, text=True)
    os.close(r)
    if head_first:
        os.write(w, b"a line from before\n")
        head.wait(timeout=30)
    p = subprocess.Popen([MTG_ENV, *args], cwd=cwd, stdout=w, stderr=subprocess.PIPE, text=True)
    os.close(w)
    _, err = p.communicate(timeout=120)
    first = head.communicate(timeout=30)[0]
    return p.returncode, first, err


def test_a_closed_stdout_ends_a_command_quietly_with_status_141(tmp_path: Path) -> None:
    # `watch` prints about 17 KB: head reads its first line and the rest meets a closed pipe.
    status, first, err = _into_head(["watch", "--seed", "0"], tmp_path, head_first=False)
    assert (status, err) == (141, ""), err
    assert first.startswith("Decks: player 0")
    replay = Path(__file__).parents[1] / "data" / "replays" / "classic_seed5.json"
    for args in (
        ["replay", "show", str(replay)],
        ["scenario", "run", str(Path(__file__).parents[1] / "scenarios" / "classic")],
        ["deck", "generate", "--text"],
        ["tournament", "--agents", "random,heuristic", "--games", "2", "--out", "t"],
    ):
        status, first, err = _into_head(args, tmp_path, head_first=True)
        assert (status, err) == (141, ""), (args, err)
        assert first == "a line from before\n"
