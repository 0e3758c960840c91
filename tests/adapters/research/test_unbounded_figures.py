"""A figure from under two samples has no interval: the research commands' ``--json`` says null there (JSON has
no Infinity; Python's own parser would accept it, so these parse strictly) and their text says ``± ?`` / ``n/a``,
not ``inf``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main


def _strict(text: str) -> Any:
    def refuse(constant: str) -> None:
        raise AssertionError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(list(args)) == 0
    out = capsys.readouterr().out
    assert "inf" not in out.replace("info", "")
    return out


def test_exploit_approx_with_one_round(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("exploit", "--approx", "--strategy", "reader", "--rounds", "1", "--lookahead", "1")
    data = _strict(_run(capsys, *args, "--json"))
    assert data["half_width"] is None and data["rounds"] == 1
    assert data["seats"] == {"0": {"value": data["approx_exploitability"], "half_width": None, "rounds": 1}}
    text = _run(capsys, *args)
    assert f"earns {data['approx_exploitability']:+.4f} ± ? units/round" in text
    assert "seat 0 (opens): " in text and "± ? over 1 rounds" in text
    # with two rounds in the seat the interval is there again
    data = _strict(_run(capsys, *args[:-4], "--rounds", "4", "--lookahead", "1", "--json"))
    assert all(isinstance(s["half_width"], float) for s in data["seats"].values())


def test_exploit_approx_on_a_three_player_table_with_one_round(capsys: pytest.CaptureFixture[str],
                                                               tmp_path: Path) -> None:
    tables = str(tmp_path / "tables.py")  # a small table of one's own (the shipped ones are 3×3: seconds to build)
    small = ("--players", "3", "--digits", "2", "--serial-length", "2")
    assert main(["exploit", "--solve", *small, "--iterations", "5", "--every", "0", "--write", tables]) == 0
    capsys.readouterr()
    args = ("exploit", "--approx", *small, "--rebid", "--table", tables, "--rounds", "1", "--lookahead", "1")
    seat = _strict(_run(capsys, *args, "--json"))["seats"]["0"]
    assert seat["half_width"] is None and seat["realised_half_width"] is None and seat["rounds"] == 1
    # the figure split by the round's length: the one round on one side, none (no figure, no interval) on the other
    parts = [seat["remembered_whole"], seat["longer"]]
    assert sorted(part["rounds"] for part in parts) == [0, 1]
    assert all(part["half_width"] is None for part in parts)
    assert [part["value"] for part in parts if not part["rounds"]] == [None]  # no rounds, no figure
    assert sum(part["value"] * part["rounds"] for part in parts if part["rounds"]) == pytest.approx(seat["value"])
    assert seat["gain"] == pytest.approx(seat["value"] - seat["own_value"])  # one round: a mean all the same
    text = _run(capsys, *args)
    assert "± ? (expected at the count" in text
    assert "by the round's length: at most" in text and "± ? over 0 rounds, +0.0000 of" in text
    assert f"the table's own value in this seat (the table in all three seats): {seat['own_value']:+.4f}" in text


def test_arena_with_one_round(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("arena", "--strategies", "reader,binomial", "--rounds", "1")
    data = _strict(_run(capsys, *args, "--json"))
    units = [s["units_per_round"] for s in data["strategies"]]
    assert [u["n"] for u in units] == [1, 1]
    assert all(u["ci95"] is None and u["half_width"] is None for u in units)
    (edge,) = data["edges"]
    assert edge["ci95"] is None and edge["half_width"] is None and edge["mean"] == units[0]["mean"] - units[1]["mean"]
    text = _run(capsys, *args)
    assert f"reader minus binomial: {edge['mean']:+.4f} units per round, 95% CI n/a" in text
    assert text.count(" n/a ") == 2  # one per strategy's row, in the CI column


def test_card_arena_and_elimination_with_one_game(capsys: pytest.CaptureFixture[str]) -> None:
    cards = ("arena", "--game", "cards", "--strategies", "easy,normal", "--rounds", "1")
    data = _strict(_run(capsys, *cards, "--json"))
    for row in data["players_figures"]:
        assert row["games_won"]["ci95"] is None and row["units_per_game"]["half_width"] is None
    assert data["edges"][0]["ci95"] is None
    assert "units per game, 95% CI n/a" in _run(capsys, *cards)
    elimination = ("arena", "--format", "elimination", "--strategies", "reader,binomial,binomial", "--games", "1")
    entries = {e["name"]: e for e in _strict(_run(capsys, *elimination, "--json"))["entries"]}
    assert entries["reader"]["pay_rate"]["ci95"] is None  # one seat-game
    assert len(entries["binomial"]["pay_rate"]["ci95"]) == 2  # two seat-games: an interval
    text = _run(capsys, *elimination)
    reader_row = next(line for line in text.splitlines() if line.startswith("reader "))
    assert reader_row.endswith(" n/a")
