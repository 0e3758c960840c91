"""`liars play --format elimination`: who pays for dinner at the local table, all computers and with a person."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from adapters.console.app import play
from bot.cli import main


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(args)
    return code, capsys.readouterr().out


def test_an_all_computer_elimination_plays_to_its_payer_and_its_export_replays(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "dinner.sqlite3")
    code, out = run_cli(["play", "--humans", "0", "--seats", "5", "--format", "elimination", "--stake", "3",
                         "--preset", "salomon", "--seed", "11", "--db", db], capsys)
    assert code == 0 and "Traceback" not in out
    assert out.count("leaves safe") == 4 and out.count("is the last one left and pays for dinner") == 1
    assert "the elimination is over" in out and "Still in (2)" in out
    code, ledger = run_cli(["ledger", "--db", db, "--json"], capsys)
    balances = json.loads(ledger)["all_time"]
    assert sum(balances.values()) == 0 and sorted(balances.values()) == [-12, 3, 3, 3, 3]
    code, exported = run_cli(["export", "--db", db], capsys)
    assert code == 0
    record = json.loads(exported)
    assert record["format"] == "elimination" and record["payer"]
    assert sum("leaves" in r for r in record["rounds"]) == 4
    path = tmp_path / "dinner.json"
    path.write_text(exported)
    code, replayed = run_cli(["verify", str(path)], capsys)
    result = json.loads(replayed)
    assert code == 0 and result["verified"] and result["payer"] == record["payer"]
    assert result["left"] == [r["leaves"] for r in record["rounds"] if "leaves" in r]
    assert {t["from"] for t in result["transfers"]} == {record["payer"]}


async def test_a_person_and_four_computers_play_to_the_payer_across_a_restart(tmp_path: Path) -> None:
    db = str(tmp_path / "table.sqlite3")
    act = ["challenge", "count", "bid 16 9"]  # whatever is legal when asked (16 nines: legal at two players)
    out = io.StringIO()
    code = await play(seats=5, preset="classic", stake=2, humans=1, rounds=None, seed=5, level="easy", db_path=db,
                      stdin=io.StringIO("\n".join(["status", *act * 2]) + "\n"), out=out,
                      options=["format=elimination"])
    first = out.getvalue()
    assert code == 0 and "Traceback" not in first
    assert "Still in (" in first and "Left safe:" in first
    assert "The table stays open" in first  # stopped mid-game: standard input ran out
    out = io.StringIO()
    code = await play(seats=5, preset="classic", stake=2, humans=1, rounds=None, seed=6, level="easy", db_path=db,
                      stdin=io.StringIO("\n".join(act * 60 + ["ledger"]) + "\n"), out=out,
                      options=["format=elimination"])
    second = out.getvalue()
    assert code == 0 and "Traceback" not in second
    assert "Resuming the table" in second
    text = (first + second).replace("*", "")
    assert text.count("leaves safe.") == 4  # (each decided count; the how-to-play says it too)
    assert "pays for dinner" in second and "The table is closed." in second


def test_the_format_given_as_an_option_plays_to_its_payer_too(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """`--option format=elimination` was refused over a round limit the user never typed (the terminal added
    its all-computer default, meant for the usual format, seeing no --format)."""
    db = str(tmp_path / "dinner.sqlite3")
    code, out = run_cli(["play", "--humans", "0", "--seats", "3", "--option", "Format=elimination", "--seed", "3",
                         "--db", db], capsys)
    assert code == 0 and "rounds=" not in out and out.count("is the last one left and pays for dinner") == 1
