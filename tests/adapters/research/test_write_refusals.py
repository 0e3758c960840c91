"""The research commands that write a data module refuse what they cannot do before their work, not after it."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import main

TRAIN = ("train", "--presets", "classic", "--players", "2", "--generations", "0", "--size", "1", "--rounds", "2:5")
SOLVE = ("exploit", "--digits", "2", "--serial-length", "1", "--solve", "--iterations", "3")


@pytest.mark.parametrize("command", [TRAIN, SOLVE])
def test_a_file_that_cannot_be_written_is_refused_before_the_work(
        command: tuple[str, ...], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--write` a folder, or into one that is not there, ended in a traceback once the training or the solve
    (hours, at the defaults) had run."""
    for target, said in ((str(tmp_path), "that is a folder"), (str(tmp_path / "no" / "t.py"), "there is no folder"),
                         ("", "needs a file name")):
        assert main([*command, "--write", target]) == 2
        out, err = capsys.readouterr()
        assert said in err and err.count("\n") == 1 and "done" not in out and "exploitability" not in out, (out, err)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("flag", "value", "said"), [
    ("--players", "13", "--players takes table sizes 2 to 12"), ("--players", "1", "--players takes table sizes"),
    ("--players", "x", "--players takes table sizes"), ("--rounds", "2", "--rounds takes size:rounds pairs"),
    ("--rounds", "2:0", "at least one round a pairing"),
])
def test_train_refuses_sizes_and_rounds_it_cannot_play(
        flag: str, value: str, said: str, capsys: pytest.CaptureFixture[str]) -> None:
    """(A traceback from the arena, or Python's "invalid literal for int()"; a list trained its good sizes first.)"""
    args = list(TRAIN)
    args[args.index(flag) + 1] = value
    assert main(args) == 2
    out, err = capsys.readouterr()
    assert said in err and "done" not in out, (out, err)


@pytest.mark.parametrize("extra", [("--iterations", "0"), ("--iterations", "-5"), ("--top", "-1"),
                                   ("--every", "-1"), ("--floor", "-1")])
def test_a_solve_of_no_iterations_or_negative_counts_are_refused(
        extra: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--iterations 0` wrote the uniform starting point as the solved table, exit 0."""
    table = tmp_path / "table.py"
    args = list(SOLVE)
    if extra[0] == "--iterations":
        args[args.index("--iterations") + 1] = extra[1]
    else:
        args += extra
    assert main([*args, "--write", str(table)]) == 2
    assert not table.exists() and capsys.readouterr().err.startswith("liars: ")
