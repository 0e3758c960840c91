"""The local table: `liars play` all-computer and interactive, through the real service and SQLite."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import re
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from adapters.console.app import _read_lines, play
from bot.cli import main


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(args)
    out = capsys.readouterr().out
    return code, out


def test_an_all_computer_table_plays_its_rounds_and_settles_the_ledger(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "local.sqlite3")
    code, out = run_cli(["play", "--humans", "0", "--seats", "4", "--rounds", "6", "--seed", "7", "--db", db], capsys)
    assert code == 0
    assert out.count("The count") == 6
    assert "all 6 rounds are played" in out
    assert "Traceback" not in out
    code, ledger = run_cli(["ledger", "--db", db, "--json"], capsys)
    data = json.loads(ledger)
    assert code == 0 and sum(data["all_time"].values()) == 0 and len(data["all_time"]) == 4
    # The same seed deals the same game: the transcript is reproducible.
    db2 = str(tmp_path / "again.sqlite3")
    _, again = run_cli(["play", "--humans", "0", "--seats", "4", "--rounds", "6", "--seed", "7", "--db", db2], capsys)
    # each count is drawn to a PNG next to the database, its path printed after the text
    pictures = re.findall(r"🖼  Picture: (\S+)", out)
    assert len(pictures) == 6 and all(Path(p).parent == tmp_path for p in pictures)
    assert sorted(Path(p).name for p in pictures) == [f"local-count-{n}.png" for n in range(1, 7)]
    assert all(Path(p).read_bytes().startswith(b"\x89PNG") for p in pictures)
    def unpictured(text: str) -> str:
        return re.sub(r"\n🖼  Picture: \S+", "", text)
    assert unpictured(again) == unpictured(out)
    code, sheet = run_cli(["sheet", "--db", db, "--json"], capsys)
    assert code == 0 and sum(json.loads(sheet)["balances"].values()) == 0


async def test_an_interactive_table_reads_commands_from_standard_input(tmp_path: Path) -> None:
    db = str(tmp_path / "local.sqlite3")
    lines = ["hand", "odds", "status", "bid 99 sevens", "flibber", "5x", "rules"]
    # then act whenever asked: try to open low, and challenge otherwise
    lines += ["1 1", "c", "count"] * 12 + ["ledger", "quit"]
    out = io.StringIO()
    code = await play(seats=3, preset="classic", stake=None, humans=1, rounds=None, seed=3, level="easy",
                      db_path=db, stdin=io.StringIO("\n".join(lines) + "\n"), out=out)
    text = out.getvalue()
    assert code == 0
    assert "Traceback" not in text
    serial = re.search(r"Your serial for round 1 at this table: (\w\w \d{8} \w)", text)
    assert serial is not None
    # the player's own serial is shown before the count; the computers' serials are not
    first_count = text.index("The count")
    before = text[:first_count]
    other_serials = re.findall(r"• [^:]+: (\w\w \d{8} \w)", text[first_count:].split("Salt:")[0])
    assert serial.group(1) in other_serials
    for s in other_serials:
        if s != serial.group(1):
            assert s not in before
    assert "⚠️  Can't read 'flibber' as a bid" in text  # bare text is the game's move for it
    assert "quantity must be 1 to 24" in text
    assert "Goodbye" in text
    assert "📒 Ledger" in text


def test_liars_play_from_a_real_terminal_pipe(tmp_path: Path) -> None:
    env = {**os.environ, "LIARS_DB": str(tmp_path / "pipe.sqlite3")}
    proc = subprocess.run(
        [sys.executable, "-m", "bot.cli", "play", "--seats", "2", "--seed", "1"],
        input="status\nhand\nnonsense words here\nquit\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        cwd=Path(__file__).resolve().parents[3],
    )
    assert proc.returncode == 0, proc.stderr
    assert "Your serial" in proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr
    assert "Goodbye" in proc.stdout


@pytest.mark.parametrize(
    ("line", "game", "parsed"),
    [
        ("T high", "cards", ("declare", ["T", "high"])),  # ten high, not `take` (t)
        ("Q high", "cards", ("declare", ["Q", "high"])),  # queen high, not `quit` (q)
        ("t", "cards", ("take", [])),
        ("q", "cards", ("quit", [])),
        ("quit", "serial", ("quit", [])),
        ("quit.", "serial", ("quit", [])),  # as "hand?" is read ("Can't read 'quit.' as a bid")
        ("Exit!", "cards", ("quit", [])),
        ("c", "serial", ("challenge", [])),
        ("b 5 0", "serial", ("bid", ["5", "0"])),  # a short name that takes words keeps them
        ("5 0", "serial", ("bid", ["5", "0"])),
        ("d 2 pair", "cards", ("declare", ["2", "pair"])),
        ("", "serial", None),
    ],
)
def test_the_terminal_reads_a_short_name_followed_by_words_as_the_move_it_spells(
        line: str, game: str, parsed: tuple[str, list[str]] | None) -> None:
    from adapters.console.app import parse_line
    from core.registry import GAMES

    assert parse_line(line, GAMES[game]) == parsed


async def test_a_table_left_open_of_another_game_is_resumed_saying_so(tmp_path: Path) -> None:
    db = str(tmp_path / "local.sqlite3")
    first = io.StringIO()
    assert await play(seats=2, preset=None, stake=None, humans=1, rounds=None, seed=3, level="easy",
                      db_path=db, stdin=io.StringIO("quit\n"), out=first) == 0  # a serial table, left open
    again = io.StringIO()
    assert await play(seats=2, preset=None, stake=None, humans=1, rounds=None, seed=3, level="easy",
                      db_path=db, stdin=io.StringIO("quit\n"), out=again, game="cards") == 0
    text = again.getvalue()
    assert "Resuming the table left open in this database: it plays Liar's Poker (serial numbers), not " \
           "Liar's Poker with cards. Type `end` to close it" in text, text[:400]


def test_zero_rounds_is_refused_and_a_refused_read_says_why_in_json(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--rounds 0` was dropped as if not given: an all-computer table then never stopped.  And a refused
    `sheet --json` printed `null`."""
    db = str(tmp_path / "local.sqlite3")
    code = main(["play", "--humans", "0", "--seats", "3", "--rounds", "0", "--db", db])
    said = capsys.readouterr()  # (refused before play: on standard error, as every command's refusal is)
    assert code == 2 and said.err == "liars: rounds must be from 1 to 10000, not 0.\n" and said.out == "", said
    assert not Path(db).exists()  # (a refused table leaves no database it made)
    assert main(["play", "--humans", "0", "--stake", "0", "--db", db]) == 2
    said = capsys.readouterr()
    assert said.err.startswith("liars: Stake must be a positive whole number of units, not 0") and said.out == ""
    assert run_cli(["play", "--humans", "0", "--seats", "3", "--rounds", "1", "--db", db], capsys)[0] == 0
    code, out = run_cli(["sheet", "--db", db, "--period", "2026-13", "--json"], capsys)
    refusal = json.loads(out)
    assert code == 2 and refusal["code"] == "bad-period" and refusal["error"].startswith("A period is written YYYY-MM")


async def test_stats_finds_a_computer_player_by_the_name_the_table_shows(tmp_path: Path) -> None:
    """`stats Gekko` said Gekko had not played, beside a ledger listing "Gekko (hard)": only the id nobody
    sees (cpu-gekko) worked."""
    db = str(tmp_path / "local.sqlite3")
    out = io.StringIO()
    assert await play(seats=3, preset="classic", stake=None, humans=0, rounds=3, seed=2, level="hard", db_path=db,
                      stdin=io.StringIO(""), out=out) == 0
    out = io.StringIO()
    await play(seats=3, preset="classic", stake=None, humans=1, rounds=None, seed=2, level="hard", db_path=db,
               stdin=io.StringIO("stats Gekko\nstats gekko (hard)\nstats Nobody\nquit\n"), out=out)
    text = out.getvalue()
    assert text.count("📊 Gekko (hard): 3 rounds") == 2
    assert "No player here is named 'Nobody'" in text  # (it said "Nobody has not played": a name no one has)


async def test_export_at_the_terminal_prints_the_record(tmp_path: Path) -> None:
    """It said "Game record (1 session); check it with liars verify FILE." and printed no record."""
    db = str(tmp_path / "local.sqlite3")
    lines = ["1 1", "c", "count"] * 12 + ["export", "quit"]
    out = io.StringIO()
    await play(seats=2, preset="classic", stake=None, humans=1, rounds=None, seed=3, level="easy",
               db_path=db, stdin=io.StringIO("\n".join(lines) + "\n"), out=out)
    text = out.getvalue()
    assert "Game record" in text and '"rounds"' in text and '"serials"' in text


def test_sheet_period_takes_a_month_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--period settle` marked this month settled from the shell, and `--period chart` printed no sheet."""
    db = str(tmp_path / "local.sqlite3")
    assert main(["play", "--humans", "0", "--seats", "2", "--rounds", "1", "--db", db]) == 0
    capsys.readouterr()
    for word in ("settle", "chart"):
        code = main(["sheet", "--db", db, "--period", word])
        assert code == 2 and "A period is written YYYY-MM" in capsys.readouterr().err
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM settlements").fetchone() == (0,)


async def test_a_resumed_table_says_which_flags_it_ignores_and_the_demo_leaves_it_alone(tmp_path: Path) -> None:
    """`liars play --stake 5 --seats 3` resumed a stake-1, 2-seat table saying only "Resuming…"; the demo
    (`--humans 0`) on the same database closed the person's table, its round void."""
    db = str(tmp_path / "local.sqlite3")
    assert await play(seats=2, preset=None, stake=None, humans=1, rounds=None, seed=3, level="easy",
                      db_path=db, stdin=io.StringIO("quit\n"), out=io.StringIO()) == 0
    again = io.StringIO()
    assert await play(seats=3, preset="classic", stake=5, humans=1, rounds=None, seed=3, level="easy",
                      db_path=db, stdin=io.StringIO("quit\n"), out=again) == 0
    assert again.getvalue().startswith("Resuming the table left open in this database (2 seats, preset classic, "
                                       "stake 1): --seats, --stake apply to a new table only."), again.getvalue()
    demo, refusal = io.StringIO(), io.StringIO()
    assert await play(seats=4, preset=None, stake=None, humans=0, rounds=2, seed=3, level="easy",
                      db_path=db, out=demo, err=refusal) == 2
    assert refusal.getvalue().startswith("liars: A table you play is open in this database") and not demo.getvalue()
    elsewhere = io.StringIO()  # the demo on a database of its own plays ("all 1 rounds are played" before)
    assert await play(seats=3, preset=None, stake=None, humans=0, rounds=1, seed=3, level="easy",
                      db_path=str(tmp_path / "demo.sqlite3"), out=elsewhere) == 0
    assert "The table is closed: its one round is played." in elsewhere.getvalue(), elsewhere.getvalue()[-300:]
    resumed = io.StringIO()  # no --seats given (its default is a new table's): nothing to say of it
    assert await play(seats=None, preset=None, stake=None, humans=1, rounds=None, seed=3, level="easy",
                      db_path=db, stdin=io.StringIO("quit\n"), out=resumed) == 0
    assert resumed.getvalue().startswith("Resuming the table left open in this database.\n")  # still there


async def test_a_card_game_resumed_under_the_gun_greets_with_no_warning(tmp_path: Path) -> None:
    """Resuming a card game printed "⚠️ You hold nothing to show right now." for a `hand` nobody typed."""
    for seed in range(1, 30):  # a deal where the computer opens: the person is left under the gun
        db = str(tmp_path / f"cards{seed}.sqlite3")
        first = io.StringIO()
        assert await play(seats=2, preset=None, stake=None, humans=1, rounds=None, seed=seed, level="easy",
                          db_path=db, stdin=io.StringIO("quit\n"), out=first, game="cards") == 0
        if "Your hand at this table" in first.getvalue():
            continue  # the person opened
        again = io.StringIO()
        assert await play(seats=2, preset=None, stake=None, humans=1, rounds=None, seed=seed, level="easy",
                          db_path=db, stdin=io.StringIO("quit\n"), out=again, game="cards") == 0
        text = again.getvalue()
        assert text.startswith("Resuming the table left open in this database.") and "under the gun" in text, text[:500]
        assert "⚠️" not in text and "hold nothing" not in text, text[:800]
        break
    else:
        raise AssertionError("the computer never opened")


def test_ctrl_c_at_the_prompt_does_not_wait_for_enter() -> None:
    """The prompt's read ran in the loop's executor, which asyncio.run waits for on the way out: Ctrl-C at
    `> ` ended the program only once Enter was pressed.  The read is a daemon thread's now."""
    typed = threading.Event()

    def readline() -> str:  # a terminal where nobody presses Enter
        typed.wait()
        return ""

    async def prompt() -> None:
        lines = _read_lines(readline)
        await asyncio.wait_for(lines.get(), 0.05)  # what Ctrl-C does: the waiting task is cancelled

    ended = threading.Event()

    def run() -> None:
        with contextlib.suppress(TimeoutError):
            asyncio.run(prompt())
        ended.set()

    threading.Thread(target=run, daemon=True).start()
    try:
        assert ended.wait(30), "asyncio.run waited for the read of a line nobody typed"
    finally:
        typed.set()


def test_input_that_cannot_be_read_ends_the_prompt_not_hangs_it() -> None:
    """A read that raised (undecodable input) killed the reader thread, and the prompt waited for ever."""

    def readline() -> str:
        raise UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")

    async def prompt() -> str:
        return await asyncio.wait_for(_read_lines(readline).get(), 5)

    assert asyncio.run(prompt()) == ""  # the end of the input


@pytest.mark.parametrize(("options", "said"), [
    (["--stake", "2", "--option", "stake=5"], "--option stake: give it as --stake"),
    (["--option", "rebid=on", "--option", "rebid=off"], "--option rebid=off contradicts --option rebid=on"),
    (["--format", "elimination", "--option", "format=rounds"], "--option format=rounds contradicts --format"),
    (["--option", "host_computer=hard"], "--option host_computer: give it as --humans 0"),
    (["--option", "computers=0"], "--option computers: give it as --seats"),
    (["--option", "Seats=3"], "--option Seats: give it as --seats"),
])
def test_an_option_that_has_its_own_flag_or_contradicts_another_is_refused_by_name(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], options: list[str], said: str) -> None:
    """The last of two values silently won; `host_computer=hard` seated the person as a computer, which then
    played their money without them; `computers=0` opened a table that could not deal and left it open."""
    db = str(tmp_path / "local.sqlite3")
    code = main(["play", "--db", db, "--seed", "1", *options])
    captured = capsys.readouterr()
    assert code == 2 and said in captured.out + captured.err, captured
    assert not Path(db).exists() or sqlite3.connect(db).execute("SELECT COUNT(*) FROM tables").fetchone() == (0,)
    assert main(["play", "--db", db, "--seed", "1", "--option", "rebid=on", "--option", "REBID=ON", "--humans", "0",
                 "--rounds", "1"]) == 0  # the same value twice is one option


async def test_a_table_that_cannot_be_dealt_is_not_left_open(tmp_path: Path) -> None:
    db = str(tmp_path / "local.sqlite3")
    out = io.StringIO()
    assert await play(seats=3, preset=None, stake=None, humans=1, rounds=None, seed=1, level="easy", db_path=db,
                      stdin=io.StringIO("quit\n"), out=out, options=["computers=0"]) == 2
    again = io.StringIO()
    assert await play(seats=3, preset=None, stake=None, humans=1, rounds=None, seed=1, level="easy", db_path=db,
                      stdin=io.StringIO("quit\n"), out=again) == 0
    assert "Resuming" not in again.getvalue() and "Your serial" in again.getvalue(), again.getvalue()[:400]


def test_a_resumed_table_names_the_format_options_and_level_it_does_not_take(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "local.sqlite3")
    assert main(["play", "--db", db, "--seed", "1"]) == 0  # (standard input is empty: it stays open)
    capsys.readouterr()
    assert main(["play", "--db", db, "--format", "elimination", "--option", "rebid=on", "--level", "easy"]) == 0
    out = capsys.readouterr().out
    assert "--format, --option, --level apply to a new table only" in out, out[:400]


async def test_the_last_person_to_leave_a_card_game_pays_its_winner_as_promised(tmp_path: Path) -> None:
    """Leaving told them "you pay the winner 3 units when the game ends"; with only computers left the table
    closed at once and nobody paid.  The computers now play the game out at once."""
    db = str(tmp_path / "local.sqlite3")
    out = io.StringIO()
    assert await play(seats=3, preset=None, stake=3, humans=1, rounds=None, seed=8, level="easy", db_path=db,
                      stdin=io.StringIO("leave\nc\nquit\n"), out=out, game="cards") == 0
    text = out.getvalue()
    assert "you pay the winner 3 units ($3.00) when the game ends" in text
    assert "is the last player standing and wins the game" in text and text.endswith("The table is closed.\n")
    with sqlite3.connect(db) as conn:
        balances = dict(conn.execute("SELECT player, SUM(units) FROM ledger GROUP BY player").fetchall())
    assert balances["you"] == -3 and sum(balances.values()) == 0, balances


@pytest.mark.parametrize("locale", ["C.UTF-8", "C"])
def test_a_stray_byte_typed_is_read_as_a_replacement_character(tmp_path: Path, locale: str) -> None:
    """(session 37) In a UTF-8 terminal a stray byte ended the session ("standard input could not be read any
    further"); in the C locale a refusal quoted it back as Python's escape, '\\udcff\\udcfe bid'."""
    env = {**os.environ, "LIARS_DB": str(tmp_path / "pipe.sqlite3"), "LC_ALL": locale, "LANG": locale}
    env.pop("PYTHONIOENCODING", None)
    proc = subprocess.run(
        [sys.executable, "-m", "bot.cli", "play", "--seats", "2", "--seed", "1"],
        input=b"\xff\xfe bid\nstatus\nquit\n", capture_output=True, env=env, timeout=60,
        cwd=Path(__file__).resolve().parents[3])
    out, err = proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 0, err
    assert "Goodbye" in out and ("Standing bid" in out or "No bid yet" in out), out  # `status` read after it
    assert "\\udc" not in out + err and "could not be read" not in err, (out, err)


@pytest.mark.parametrize("game", ["cards", "serial"])
async def test_the_terminal_offers_no_form_it_has_not(game: str, tmp_path: Path) -> None:
    """Its help and its intro said "discard JD 3H, or Discard…" and "(none: its form)": the terminal has no form
    (typed bare, `declare` asks what the hand is)."""
    out = io.StringIO()
    typed = "help declare\nhelp discard\nquit\n" if game == "cards" else "help bid\nquit\n"
    assert await play(seats=2, preset=None, stake=None, humans=1, rounds=None, seed=3, level="easy",
                      db_path=str(tmp_path / "local.sqlite3"), stdin=io.StringIO(typed), out=out, game=game) == 0
    text = out.getvalue()
    assert not any(word in text for word in ("Declare…", "Discard…", "Raise…", "its form")), text
    assert ("declare two pair sevens over threes" if game == "cards" else "bid five sevens") in text, text
