"""``liars exploit --approx --table FILE``: the table local best response against a table written to a data module
of one's own (a probe's table, measured before it replaces a shipped one), and one clear refusal for a file that
holds no table for the format asked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adapters.research.files import read_multi_module
from bot.cli import main

SMALL = ("--players", "3", "--digits", "2", "--serial-length", "1")


def _solve(path: Path, *extra: str) -> None:
    assert main(["exploit", "--solve", *SMALL, "--iterations", "20", "--every", "0", "--write", str(path),
                 *extra]) == 0


def test_a_written_table_with_named_digits_is_measured_from_its_file(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "probe.py"
    _solve(path, "--memory", "1", "--named", "1,2")
    (table,) = read_multi_module(str(path))
    assert (table.players, table.digits, table.serial_length, table.rebid, table.memory, table.named) == (
        3, 2, 1, True, 1, 0b110)
    capsys.readouterr()
    args = ["exploit", "--approx", *SMALL, "--rebid", "--table", str(path), "--rounds", "90", "--lookahead", "1"]
    assert main([*args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["strategy"] == f"the table in {path}" and data["players"] == 3 and data["rebid"] is True
    assert sorted(data["seats"]) == ["0", "1", "2"] and all(s["rounds"] == 30 for s in data["seats"].values())
    # classic payoffs: what one seat wins the others pay, so the table's own values (every seat playing it) sum to 0
    assert sum(s["own_value"] for s in data["seats"].values()) == pytest.approx(0.0, abs=1e-9)
    assert main([*args, "--seats", "2"]) == 0
    text = capsys.readouterr().out
    assert text.startswith(f"the table in {path}, 3 players, classic 2×1 (with the rebid right)")
    assert "seat 2: " in text and "seat 0" not in text


@pytest.mark.parametrize(
    ("content", "extra", "message"),
    [
        (None, (), "No such file"),
        ("x = 1\n", (), "holds no tables"),
        ("TABLES = (\n", (), "is not a data module"),
        ("TABLES: tuple[tuple[str, str], ...] = (('3 2 1 1 1', 'b64:not zlib'),)\n", (), "is not a data module"),
        ("solved", ("--no-rebid",), "holds no table for 3 players, classic 2×1 without the rebid right "
                                    "(it holds: 3 2 1 1 1)"),
        ("solved", ("--digits", "3"), "holds no table for 3 players, classic 3×1 with"),
    ],
    ids=["missing", "no-tables", "not-python", "not-deflated", "other-rebid-rule", "other-format"],
)
def test_a_file_without_the_formats_table_is_refused_with_one_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, extra: tuple[str, ...], message: str
) -> None:
    path = tmp_path / "tables.py"
    if content == "solved":
        _solve(path, "--memory", "1")
    elif content is not None:
        path.write_text(content, encoding="utf-8")
    capsys.readouterr()
    rebid = () if "--no-rebid" in extra else ("--rebid",)
    code = main(["exploit", "--approx", *SMALL, *rebid, "--table", str(path), "--rounds", "3", *extra])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err and "--table" in err


def test_table_goes_with_approx_at_three_players_and_is_not_ignored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "tables.py"
    _solve(path)
    capsys.readouterr()
    assert main(["exploit", "--approx", "--players", "2", "--digits", "2", "--serial-length", "1", "--table",
                 str(path), "--rounds", "3"]) == 2
    assert "--table goes with --approx --players 3" in capsys.readouterr().err
    assert main(["exploit", "--solve", *SMALL, "--iterations", "1", "--table", str(path)]) == 2  # not ignored
    assert "--table goes with --approx --players 3" in capsys.readouterr().err
