"""``liars odds``: the exact binomial odds of core/serial/odds.py as a table or JSON; exit 2 for bad input."""

from __future__ import annotations

import json

import pytest

from bot.cli import main
from core.serial.odds import at_least


# -- liars odds --------------------------------------------------------------------------------------
def test_odds_command_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", "--players", "3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["players"] == 3 and data["digits"] == 24 and len(data["rows"]) == 25
    assert round(data["rows"][0]["exactly"], 6) == 0.079766
    assert data["rows"][0]["at_least"] == 1.0
    assert data["rows"][5]["at_least"] == pytest.approx(at_least(5, 24))


def test_odds_command_with_a_serial_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", "--players", "2", "--serial", "LB 06742088 A", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["serial"] == "06742088"
    zeros = data["digits"][0]
    assert zeros["held"] == 2 and zeros["at_least"]["2"] == 1.0
    assert zeros["at_least"]["3"] == pytest.approx(at_least(1, 8))
    assert round(1 - data["digits"][1]["at_least"]["1"], 6) == 0.430467


def test_odds_command_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", "--players", "4"]) == 0
    out = capsys.readouterr().out
    assert "Binomial(32, 1/10)" in out and "0.034337" in out
    assert main(["odds", "--players", "4", "--serial", "06742088"]) == 0
    assert "06742088" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["--players", "1"], ["--players", "13"], ["--players", "3", "--serial", "123"]])
def test_odds_command_refuses_bad_input_with_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("liars: ") and err.count("\n") == 1


def test_a_reader_that_goes_away_ends_it_quietly() -> None:
    """`liars odds … | head` ended in a BrokenPipeError traceback once head had read enough."""
    import os
    import subprocess
    import sys

    read, write = os.pipe()
    os.close(read)  # the reader is gone before a line is written
    try:
        done = subprocess.run([sys.executable, "-m", "bot.cli", "odds", "--players", "12"], stdout=write,
                              stderr=subprocess.PIPE, text=True, timeout=60, check=False)
    finally:
        os.close(write)
    assert done.returncode == 141 and "Traceback" not in done.stderr, done.stderr
