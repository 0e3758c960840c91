"""The command line reads a number as chat does: ASCII digits with an optional sign, nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bot.test_replay_cli import run


@pytest.mark.parametrize("typed", ["٣", "５", "1_0", "³", "3.0", "", " "])
@pytest.mark.parametrize("argv", [["play", "--humans", "0", "--rounds", "1", "--stake"], ["play", "--seats"],
                                  ["play", "--humans", "0", "--rounds"], ["odds", "--players"],
                                  ["arena", "--rounds"], ["exploit", "--digits"], ["train", "--generations"]],
                         ids=["play-stake", "play-seats", "play-rounds", "odds", "arena", "exploit", "train"])
def test_a_number_typed_in_other_digits_is_refused_on_one_line(
        argv: list[str], typed: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`liars play --stake ٣` played at stake 3 (argparse's int reads any script's digits and underscores), where
    chat's `stake=٣` is refused."""
    code = run([*argv, typed, "--db", str(tmp_path / "t.sqlite3")] if argv[0] == "play" else [*argv, typed])
    out, err = capsys.readouterr()
    assert code == 2 and out == "", out
    last = err.strip().splitlines()[-1]  # (after argparse's usage)
    assert last.startswith("liars ") and last.endswith(f"{typed!r} is not a whole number (ASCII digits)"), err
    assert not (tmp_path / "t.sqlite3").exists()  # nothing was played


def test_ascii_digits_with_a_sign_are_still_read(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["odds", "--players", "+3", "--json"]) == 0
    assert '"players": 3,' in capsys.readouterr().out
