"""The ``alphago`` command: help without torch, eval, play (a scripted human), bench."""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from match_fakes import fake_engine
from player_fakes import FirstLegal

import goboard
import search
from alphago.cli import main
from alphago.match.human import play_human
from alphago.sgf import read_sgf

CLI = [sys.executable, "-m", "alphago.cli"]
GNUGO = "/usr/games/gnugo"
HAS_GTP = (
    importlib.util.find_spec("alphago.gtp") is not None
    and hasattr(importlib.import_module("alphago.gtp"), "Engine")
    if importlib.util.find_spec("alphago.gtp") is not None
    else False
)
needs_gtp = pytest.mark.skipif(not HAS_GTP, reason="alphago.gtp is not there yet")


def test_help_does_not_import_torch() -> None:
    code = (
        "import sys\n"
        "from alphago.cli import main\n"
        "for argv in (['--help'], ['gtp', '--help'], ['play', '--help'],\n"
        "             ['bench', '--help'], ['eval', '--help']):\n"
        "    try:\n"
        "        main(argv)\n"
        "    except SystemExit as exc:\n"
        "        assert exc.code == 0, exc.code\n"
        "print('TORCH' if 'torch' in sys.modules else 'NO-TORCH')\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip().endswith("NO-TORCH")
    for word in ("gtp", "play", "bench", "eval", "--simulations", "ENGINE_A"):
        assert word in out


def test_python_dash_m_alphago_is_the_command() -> None:
    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "alphago", *argv]
        return subprocess.run(command, capture_output=True, text=True)

    shown = run("--help")
    assert shown.returncode == 0 and shown.stdout.startswith("usage: alphago ")
    assert run("no-such-command").returncode == 2  # the exit status comes through


def test_no_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main([])
    assert exc.value.code == 2
    assert "usage: alphago" in capsys.readouterr().err


def test_eval_two_fake_engines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = fake_engine(tmp_path, "random", 1), fake_engine(tmp_path, "pass")
    sgfs = tmp_path / "games"
    argv = ["eval", a, b, "--games", "2", "--size", "5", "--parallel", "2"]
    assert main([*argv, "--sgf-dir", str(sgfs)]) == 0
    captured = capsys.readouterr()
    assert "games: 2" in captured.out
    assert "A - B: Elo" in captured.out
    assert "time per move B:" in captured.out
    assert captured.err.count("game ") == 2  # one progress line per game
    assert sorted(p.name for p in sgfs.glob("*.sgf")) == [
        "game-000.sgf",
        "game-001.sgf",
    ]
    for path in sgfs.glob("*.sgf"):
        assert read_sgf(path.read_bytes()).size == 5
    # The journal beside them lets the match grow: two more games, the first two kept.
    assert main([*argv, "--sgf-dir", str(sgfs)]) == 1
    assert "holds a match already" in capsys.readouterr().err
    argv[argv.index("--games") + 1] = "4"
    assert main([*argv, "--sgf-dir", str(sgfs), "--resume"]) == 0
    captured = capsys.readouterr()
    assert "games: 4 (2 resumed from the journal)" in captured.out
    assert captured.err.count("game ") == 2  # only the new games were played
    assert len(list(sgfs.glob("*.sgf"))) == 4


@needs_gtp
def test_eval_our_uct_engine(tmp_path: Path) -> None:
    ours = " ".join([*CLI, "gtp", "--size", "5", "--simulations", "16"])
    proc = subprocess.run(
        [
            *CLI,
            "eval",
            ours,
            fake_engine(tmp_path, "random", 2),
            "--games",
            "2",
            "--size",
            "5",
            "--parallel",
            "2",
            "--sgf-dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert "forfeits" not in proc.stdout + proc.stderr, proc.stderr
    assert "games: 2" in proc.stdout
    assert len(list(tmp_path.glob("game-*.sgf"))) == 2


def test_eval_without_progress_bar_keeps_the_game_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = fake_engine(tmp_path, "random", 1), fake_engine(tmp_path, "pass")
    argv = ["eval", a, b, "--games", "2", "--size", "5"]
    assert main(argv) == 0
    assert "games: 100%" in capsys.readouterr().err  # the bar, by default
    assert main([*argv, "--no-progress"]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2 and all(line.startswith("game ") for line in lines)


def test_eval_reports_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    crash, good = fake_engine(tmp_path, "crash"), fake_engine(tmp_path, "pass")
    assert main(["eval", crash, good, "--games", "1", "--size", "5"]) == 0
    captured = capsys.readouterr()
    assert "B forfeits: genmove: engine exited (exit code 3)" in captured.err
    assert "stderr: boom: fake crash" in captured.err
    assert "A wins 0/1 (0/1 as black, 0/0 as white)" in captured.out


def test_eval_stops_at_once_on_an_engine_that_cannot_set_up(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad, good = fake_engine(tmp_path, "nosize"), fake_engine(tmp_path, "pass")
    argv = ["eval", good, bad, "--games", "50", "--size", "5", "--no-progress"]
    assert main(argv) == 1
    captured = capsys.readouterr()
    assert captured.out == ""  # no report of 50 forfeits
    assert captured.err.strip() == (
        "alphago eval: error: engine B could not start a game: 'boardsize 5' failed: "
        "unacceptable size"
    )


def test_eval_says_in_one_line_that_an_engine_was_stopped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stopped, good = fake_engine(tmp_path, "sigterm"), fake_engine(tmp_path, "pass")
    argv = ["eval", stopped, good, "--games", "1", "--size", "5", "--no-progress"]
    assert main([*argv, "--sgf-dir", str(tmp_path / "games")]) == 1
    err = capsys.readouterr().err.strip()
    assert err == (
        "alphago eval: stopped: an engine was stopped from outside (engine exited "
        "(killed by signal 15)); the game it was playing is not recorded (the same "
        "command with --resume goes on)"
    )
    assert not list((tmp_path / "games").glob("game-*"))


def test_eval_interrupted_says_where_its_games_are(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import alphago.match

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt  # Ctrl-C while the games run

    monkeypatch.setattr(alphago.match, "run_match", interrupted)
    a, b = fake_engine(tmp_path, "pass"), fake_engine(tmp_path, "pass")
    argv = ["eval", a, b, "--games", "4", "--size", "5", "--no-progress"]
    games = tmp_path / "games"
    assert main([*argv, "--sgf-dir", str(games)]) == 130
    assert capsys.readouterr().err.strip() == (
        f"alphago eval: interrupted; the finished games are in {games} (the same "
        "command with --resume goes on)"
    )
    assert main(argv) == 130  # no folder: nothing to resume, nothing said
    assert capsys.readouterr().err == ""


@needs_gtp
@pytest.mark.skipif(not Path(GNUGO).exists(), reason="GNU Go is not installed")
def test_eval_our_engine_against_gnugo(tmp_path: Path) -> None:
    ours = " ".join([*CLI, "gtp", "--size", "5", "--simulations", "32"])
    gnugo = f"{GNUGO} --mode gtp --chinese-rules --level 1"
    proc = subprocess.run(
        [
            *CLI,
            "eval",
            ours,
            gnugo,
            "--games",
            "1",
            "--size",
            "5",
            "--sgf-dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert "forfeits" not in proc.stderr, proc.stderr
    assert "endings: two passes 1" in proc.stdout or "resignation" in proc.stdout
    record = read_sgf((tmp_path / "game-000.sgf").read_bytes())
    assert record.players[goboard.WHITE].startswith("GNU Go")
    assert record.result is not None and record.result[0] in "BW"


def test_play_human_scripted() -> None:
    script = "d4\nzz\nA5\nc3\nundo\nundo\nundo\nb2\npass\nresign\n"
    out = StringIO()
    outcome = play_human(
        FirstLegal(), size=5, human=goboard.BLACK, stdin=StringIO(script), stdout=out
    )
    text = out.getvalue()
    assert "not a move" in text  # zz
    assert "illegal move A5: occupied" in text  # the engine took A5 (point 0)
    assert "nothing to undo" in text  # the third undo: the board is empty again
    assert text.count("first-legal plays A5") == 2
    assert text.count("first-legal plays B5") == 2  # after C3, and after the pass
    assert [m for _, m in outcome.moves] == [
        goboard.coords.from_gtp(v, 5) for v in ("b2", "a5", "pass", "b5")
    ]
    assert (outcome.result, outcome.reason, outcome.winner) == (
        "W+R",
        "resignation",
        -1,
    )
    assert "result: W+R" in text


def test_play_human_as_white_and_quit() -> None:
    out = StringIO()
    outcome = play_human(
        FirstLegal(),
        size=5,
        human=goboard.WHITE,
        stdin=StringIO("help\ne1\n"),
        stdout=out,
    )  # then EOF
    assert [m for _, m in outcome.moves] == [0, 24, 1]
    assert outcome.result == "" and outcome.reason == "quit"
    assert "You are White (O)" in out.getvalue()


def test_play_command_saves_sgf(tmp_path: Path) -> None:
    sgf = tmp_path / "game.sgf"
    proc = subprocess.run(
        [*CLI, "play", "--size", "5", "--simulations", "16", "--sgf", str(sgf)],
        input="c3\nc3\nquit\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "illegal move C3: occupied" in proc.stdout
    assert " A B C D E" in proc.stdout  # the board is drawn
    record = read_sgf(sgf.read_bytes())
    assert record.size == 5 and len(record.moves) == 2
    assert record.moves[0] == (goboard.BLACK, goboard.coords.from_gtp("c3", 5))
    assert record.players[goboard.BLACK] == "human"


@pytest.mark.parametrize("where", ["missing/game.sgf", "."])
def test_play_refuses_an_unwritable_sgf_before_the_game(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    where: str,
) -> None:
    monkeypatch.setattr(sys, "stdin", StringIO("pass\npass\n"))
    sgf = str(tmp_path / where)
    args = ["play", "--uct", "--size", "5", "--simulations", "4", "--sgf", sgf]
    assert main(args) == 1
    out, err = capsys.readouterr()
    assert out == ""  # no game was played, to be lost at its end
    assert err.startswith("alphago play: error:") and str(tmp_path) in err
    assert ".tmp" not in err  # the path given, not a temporary file's
    assert list(tmp_path.iterdir()) == []


def test_bench_without_network(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [
        "bench",
        "--size",
        "5",
        "--playouts",
        "50",
        "--simulations",
        "20",
        "--no-net",
    ]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3
    assert "playouts/s" in lines[0] and "stones/s" in lines[0]
    assert all("simulations/s" in line for line in lines[1:])


def test_bench_with_a_tiny_network(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch")
    argv = [
        "bench",
        "--size",
        "5",
        "--playouts",
        "20",
        "--simulations",
        "16",
        "--blocks",
        "1",
        "--filters",
        "8",
        "--batch",
        "4",
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "positions/s (batch 4)" in out
    assert "search PUCT + network 1x8" in out


def test_missing_weights_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch")
    assert main(["play", "--weights", "/nonexistent/w.pt"]) == 1
    assert "alphago play: error:" in capsys.readouterr().err


@needs_gtp
def test_gtp_command_answers(tmp_path: Path) -> None:
    proc = subprocess.run(
        [*CLI, "gtp", "--size", "5", "--simulations", "8"],
        input="name\nboardsize 5\ngenmove b\nquit\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    answers = [a for a in proc.stdout.split("\n\n") if a.strip()]
    assert len(answers) == 4 and all(a.startswith("=") for a in answers)
    goboard.coords.from_gtp(answers[2][1:].strip(), 5)  # a vertex


#: Strict UTF-8 on the standard streams, as Python sets them up under a UTF-8 locale
#: such as en_US.UTF-8 (Windows' code pages are strict too).
STRICT_UTF8 = {**os.environ, "PYTHONIOENCODING": "utf-8:strict"}


@needs_gtp
def test_gtp_answers_a_line_that_is_no_utf8_and_goes_on() -> None:
    """A byte the input encoding cannot decode (a Latin-1 file name from a GUI)
    fails its command; it used to end the session silently, unanswered."""
    proc = subprocess.run(
        [*CLI, "gtp", "--uct", "--size", "5", "--simulations", "4"],
        input=b"1 name\n2 play b \xe9\n3 loadsgf caf\xe9.sgf\n4 \xff\n5 name\nquit\n",
        capture_output=True,
        env=STRICT_UTF8,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    answers = [a.strip() for a in proc.stdout.decode().split("\n\n") if a.strip()]
    assert [a[:2] for a in answers] == ["=1", "?2", "?3", "?4", "=5", "="]


def test_analysis_answers_a_line_that_is_no_utf8_and_goes_on() -> None:
    query = json.dumps(
        {"id": "q", "moves": [], "rules": "chinese", "boardXSize": 5, "boardYSize": 5}
    ).encode()
    proc = subprocess.run(
        [*CLI, "analysis", "--uct", "--simulations", "4"],
        input=b'{"id": "\xe9"\n' + query + b"\n",
        capture_output=True,
        env=STRICT_UTF8,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    replies = [json.loads(line) for line in proc.stdout.splitlines()]
    assert "error" in replies[0]
    assert replies[1]["id"] == "q" and replies[1]["moveInfos"]


@needs_gtp
def test_gtp_resigns_a_hopeless_game_when_asked() -> None:
    # Komi 50 on 5x5: Black cannot win. Six moves in, past a quarter of the board.
    setup = "komi 50\n" + "".join(f"play b {v}1\nplay w pass\n" for v in "ABC")
    script = setup + "genmove b\nplay w pass\n" * 2 + "genmove b\nquit\n"
    proc = subprocess.run(
        [*CLI, "gtp", "--size", "5", "--simulations", "8", "--resign-below", "0.2"],
        input=script,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    answers = [a.strip() for a in proc.stdout.split("\n\n") if a.strip()]
    genmoves = [
        answers[i] for i, line in enumerate(script.splitlines()) if "gen" in line
    ]
    assert "= resign" not in genmoves[:2] and genmoves[2] == "= resign"


@pytest.mark.parametrize("value", ["0.5", "0", "-1", "nan", "x"])
def test_a_bad_resignation_winrate_is_a_usage_error(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["gtp", "--resign-below", value])
    assert exc.value.code == 2
    assert "--resign-below" in capsys.readouterr().err


@needs_gtp
def test_gtp_command_with_weights(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from alphago.nets import NetConfig, PolicyValueNet, save_weights

    path = tmp_path / "tiny.pt"
    save_weights(PolicyValueNet(NetConfig(board_size=5, blocks=1, filters=8)), path)
    proc = subprocess.run(
        [*CLI, "gtp", "--size", "5", "--simulations", "8", "--weights", str(path)],
        input="genmove b\nquit\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("= ")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["gtp", "--search", "gumbel", "--uct"], "--search gumbel and --uct exclude"),
        (["play", "--search", "gumbel", "--uct"], "--search gumbel and --uct exclude"),
        (["gtp", "--considered-actions", "8"], "need --search gumbel"),
        (["analysis", "--gumbel-scale", "1"], "need --search gumbel"),
        (["play", "--search", "gumbel", "--considered-actions", "0"], "must be >= 1"),
    ],
)
def test_bad_search_options_are_one_line_errors(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"alphago {argv[0]}: error: ")
    assert message in err


@needs_gtp
def test_gtp_genmove_with_the_gumbel_search(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from alphago.cli import build_parser, player_choice
    from alphago.gtp import Engine
    from alphago.nets import NetConfig, PolicyValueNet, save_weights
    from alphago.player import SearchPlayer

    path = tmp_path / "tiny.pt"
    save_weights(PolicyValueNet(NetConfig(board_size=5, blocks=1, filters=8)), path)
    argv = ["gtp", "--weights", str(path), "--simulations", "8", "--search", "gumbel"]
    args = build_parser().parse_args([*argv, "--considered-actions", "4"])
    assert (args.search, args.considered_actions, args.gumbel_scale) == (
        "gumbel",
        4,
        None,
    )
    assert build_parser().parse_args(argv[:1]).search == "puct"  # the default
    choice = player_choice(args)
    engine = Engine(choice.player_for(5), board_size=5, players=choice.player_for)
    player = engine.player
    assert isinstance(player, SearchPlayer)
    assert isinstance(player.config, search.GumbelConfig)
    assert player.config.considered_actions == 4 and player.config.gumbel_scale == 0
    answer = engine.handle("genmove b")
    assert answer is not None and answer.startswith("= ")
    move = goboard.coords.from_gtp(answer[2:].strip(), 5)
    assert engine.moves == [(goboard.BLACK, move)]


def _engine_args(*argv: str) -> object:
    from alphago.cli import build_parser

    return build_parser().parse_args(["gtp", *argv])


def test_the_shipped_9x9_network_is_the_default_on_9x9() -> None:
    pytest.importorskip("torch")
    from alphago.cli import make_player
    from alphago.nets import load_weights
    from alphago.nets.shipped import shipped_weights
    from alphago.player import SearchPlayer, UCTPlayer

    path = shipped_weights(9)
    assert path is not None and path.stat().st_size < 5_000_000  # a few MB at most
    net = load_weights(path)
    assert net.config.board_size == 9
    player = make_player(_engine_args("--size", "9", "--simulations", "16"))
    assert isinstance(player, SearchPlayer)
    # No 13x13 network ships; --uct forces UCT where one does.
    assert shipped_weights(13) is None
    assert isinstance(make_player(_engine_args("--size", "13")), UCTPlayer)
    assert isinstance(make_player(_engine_args("--size", "9", "--uct")), UCTPlayer)
    with pytest.raises(ValueError, match="exclude"):
        make_player(_engine_args("--uct", "--weights", str(path)))


def test_the_shipped_19x19_network_opens_in_the_corners() -> None:
    # Trained on professional games: on the empty board, and after a corner stone,
    # its favourite moves are corner points on the third and fourth lines.
    torch = pytest.importorskip("torch")
    from alphago.cli import make_player
    from alphago.nets import load_weights
    from alphago.nets.shipped import shipped_weights
    from alphago.player import SearchPlayer

    path = shipped_weights(19)
    assert path is not None and path.stat().st_size < 5_000_000
    net = load_weights(path)
    kind = net.config.input_planes  # the shipped nets read agz17 or alphago49
    assert net.config.board_size == 19 and kind in ("agz17", "alphago49")
    board = goboard.Board(19, 7.5, "chinese")
    corner_lines = {2, 3, 15, 16}  # the third and fourth lines from either edge
    for move in (None, "Q16"):
        if move is not None:
            board.play_gtp(move)
        with torch.inference_mode():
            logits, _, _ = net(torch.from_numpy(board.features(kind))[None])
        top = torch.topk(logits[0, :361], 4).indices.tolist()
        assert all(p // 19 in corner_lines and p % 19 in corner_lines for p in top)
    assert isinstance(make_player(_engine_args("--size", "19")), SearchPlayer)


def test_the_shipped_network_answers_the_centre_opening() -> None:
    # The trained net, not random weights: after Black's centre stone its favourite
    # replies stay near it (GNU Go's games, which it learned from, answer that way).
    pytest.importorskip("torch")
    from alphago.nets import load_weights
    from alphago.nets.shipped import shipped_weights

    path = shipped_weights(9)
    assert path is not None
    net = load_weights(path)
    board = goboard.Board(9, 7.5, "chinese")
    board.play_gtp("E5")
    import torch

    planes = board.features(net.config.input_planes)  # the planes it was trained on
    with torch.inference_mode():
        logits, value, _ = net(torch.from_numpy(planes)[None])
    top = torch.topk(logits[0, :81], 3).indices.tolist()
    centre = goboard.coords.from_gtp("E5", 9)
    assert all(
        abs(p // 9 - centre // 9) <= 2 and abs(p % 9 - centre % 9) <= 2 for p in top
    )
    assert -1.0 < float(value[0]) < 1.0


@pytest.mark.parametrize("command", ["gtp", "analysis", "play"])
def test_a_value_net_of_the_wrong_kind_stops_the_2016_engine_at_startup(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Beside the shipped 9x9 policy, a Zero net given as --value-net is refused
    before the engine reads a command or query (analysis loads players lazily)."""
    pytest.importorskip("torch")
    from alphago.nets.shipped import shipped_weights

    zero = shipped_weights(9)
    assert zero is not None
    argv = [command, "--engine", "alphago2016", "--value-net", str(zero)]
    assert main(argv) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith(f"alphago {command}: error: ")
    assert "expected alphago2016-value weights" in err[-1]
