"""``liars replay`` and ``liars verify`` read either game's records (the record's ``game`` names it)."""

from __future__ import annotations

import contextlib
import io
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from core.cards.record import commitment
from core.cards.rules import make_rules
from tests.core.cards._helpers import play_game, seed_record


def run(record: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str], *command: str) -> tuple[int, str, str]:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    code = main([*command, str(path)])
    out, err = capsys.readouterr()
    return code, out, err


def test_replay_prints_the_seeds_card_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = seed_record()
    assert record["game"] == "cards"
    code, out, err = run(record, tmp_path, capsys, "replay")
    assert code == 0, err
    [round_] = json.loads(out)["rounds"]
    assert round_["hand"] == ["7C", "7D", "QH", "6S", "2H"] and round_["out"] == "dirk"
    assert round_["next_opener"] == "ellie"


def test_an_illegal_card_action_exits_2_with_its_place(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = seed_record()
    record["rounds"][0]["actions"][0] = {"player": "annie", "discard": ["7C"]}
    code, out, _ = run(record, tmp_path, capsys, "replay")
    assert code == 2
    said = json.loads(out)
    assert set(said) == {"error", "round", "action"} and said["round"] == 0 and said["action"] == 0


def test_an_unknown_game_is_a_record_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = seed_record()
    record["game"] = "dominoes"
    code, out, err = run(record, tmp_path, capsys, "replay")
    assert code == 2 and out == "" and "dominoes" in err and "\n" not in err.strip()


def test_verify_checks_a_played_card_games_commitments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    match = play_game({p: "normal" for p in ("a", "b", "c")}, make_rules("wild"), seed=3)
    record = match.record()
    for spec in record["rounds"]:  # as the bot seals each deal (the test plays the match directly)
        spec.setdefault("salt", "pepper")
        spec["commitment"] = commitment(spec["deck"], spec["salt"])
    code, out, err = run(record, tmp_path, capsys, "verify")
    assert code == 0, out + err
    result = json.loads(out)
    assert result["verified"] is True and result["winner"] in ("a", "b", "c")
    # A round whose deck was changed after its commitment no longer verifies.
    deck = record["rounds"][0]["deck"]
    deck[0], deck[1] = deck[1], deck[0]
    code, out, err = run(record, tmp_path, capsys, "verify")
    assert code == 2 and "commitment" in (out + err)


@pytest.mark.parametrize(("db", "said"), [
    ("{tmp}/no/such/folder/liars.sqlite3", "no/such/folder/liars.sqlite3: "),  # (`play`: OperationalError)
    ("mysql://ann:secret@127.0.0.1/liars", "unknown database URL scheme"),
    ("postgresql://ann:secret@127.0.0.1:9/liars", "ConnectionRefusedError"),
    ("postgresql://ann@127.0.0.1:9/liars?password=secret", "ConnectionRefusedError"),  # the query's was printed
    ("postgresql://ann:se?cret@127.0.0.1:9/liars", "could not be read"),  # a "?" in it: the driver quoted a piece
    ("postgresql://ann:Zk8/q2se#cret@127.0.0.1:9/liars", "could not be read"),  # "/", "#": its pieces as the port
    ("postgresql://ann:secret@127.0.0.1:99999/liars", "could not be read"),  # (OverflowError)
    ("postgresql://ann@127.0.0.1:9/liars?password=se@cret", "cannot open postgresql://… "),  # "@" in the query
])
@pytest.mark.parametrize("command", [["ledger"], ["forget", "--yes", "slack:T1"], ["play", "--humans", "0"]])
def test_a_database_that_cannot_be_opened_is_one_line_naming_it(
        db: str, said: str, command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every command but `migrate` ended in a traceback (sqlite3.OperationalError, ValueError,
    ConnectionRefusedError) that named no setting."""
    url = db.format(tmp=tmp_path)
    assert main([*command, "--db", url]) == 2
    err = capsys.readouterr().err
    assert err.startswith("liars: cannot open ") and said in err and err.count("\n") == 1, err
    assert "cret" not in err and "Traceback" not in err  # no piece of the password


@pytest.mark.parametrize("command", [["ledger"], ["sheet"], ["export"], ["forget", "--yes", "local"]])
def test_a_tool_that_only_reads_creates_no_database_at_a_mistyped_path(
        command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """(`forget` made one there and said it had erased the server's 0 rounds.)"""
    typo = tmp_path / "liras.sqlite3"
    assert main([*command, "--db", str(typo)]) == 2
    err = capsys.readouterr().err
    assert err == f"liars: cannot open {typo}: there is no database there\n" and not typo.exists()
    assert main([*command, "--db", str(tmp_path)]) == 2  # a folder: it said "disk I/O error"
    assert capsys.readouterr().err == f"liars: cannot open {tmp_path}: that is a folder, not a database\n"


@pytest.mark.parametrize("flags", [("--stake", "0"), ("--level", "bogus"), ("--preset", "bogus"), ("--rounds", "0"),
                                   ("--option", "rebid=maybe"), ("--game", "cards", "--option", "jokers=9")])
def test_a_refused_play_leaves_no_database_it_made(
        flags: tuple[str, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A `liars play` the table refuses left a new, empty database of the bot's schema behind (120 KB)."""
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    new = tmp_path / "new.sqlite3"
    assert main(["play", "--db", str(new), *flags]) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    kept = tmp_path / "kept.sqlite3"  # one that was there is kept, refused or not
    assert main(["play", "--db", str(kept), "--humans", "0", "--rounds", "1", "--seed", "1"]) == 0
    assert main(["play", "--db", str(kept), *flags]) == 2 and kept.exists()


@pytest.mark.parametrize("command", [["ledger"], ["sheet"], ["export"]])
@pytest.mark.parametrize("content", ["another app", "empty"])
def test_a_tool_that_only_reads_leaves_another_apps_sqlite_file_alone(
        command: list[str], content: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Pointed at another application's SQLite file (or an empty one), `ledger` wrote the bot's tables into it,
    switched it to WAL, and answered "The ledger is empty" with exit 0."""
    other = tmp_path / "other.sqlite3"
    with sqlite3.connect(other) as db:
        if content == "another app":
            db.execute("CREATE TABLE notes (x)")
    before = other.read_bytes()
    assert main([*command, "--db", str(other)]) == 2
    err = capsys.readouterr().err
    assert err == f"liars: cannot open {other}: it is not a liars database\n"
    assert other.read_bytes() == before and not (tmp_path / "other.sqlite3-wal").exists()


def test_an_empty_period_is_refused_not_read_as_this_month(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "l.sqlite3")
    assert main(["play", "--humans", "0", "--rounds", "1", "--seed", "1", "--db", db, "--level", "easy"]) == 0
    capsys.readouterr()
    assert main(["sheet", "--db", db, "--period", ""]) == 2
    refused = capsys.readouterr()
    assert refused.err.startswith("liars: ") and "YYYY-MM" in refused.err and refused.out == ""
    assert main(["sheet", "--db", db]) == 0  # (no period: this month's)


@pytest.mark.parametrize(("server", "hint"), [("T0FAKE", "did you mean slack:T0FAKE or discord:T0FAKE?"),
                                              ("LOCAL", "did you mean local?"), ("slak:T1", "")])
@pytest.mark.parametrize("command", ["ledger", "sheet", "export"])
def test_a_server_written_without_its_platform_is_refused_with_a_hint(
        server: str, hint: str, command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`liars ledger --server T0FAKE` showed "The ledger is empty" and exited 0: a typo read as a server with no
    games."""
    db = str(tmp_path / "l.sqlite3")
    assert main(["play", "--humans", "0", "--rounds", "1", "--seed", "1", "--db", db, "--level", "easy"]) == 0
    capsys.readouterr()
    assert main([command, "--db", db, "--server", server]) == 2
    said = capsys.readouterr()
    assert said.out == "" and said.err.startswith(f"liars: --server {server} names no server") and hint in said.err
    assert said.err.count("\n") == 1


def test_a_refusal_of_export_goes_to_standard_error_not_into_the_record(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`liars export --channel zzz > rec.json` wrote "No table has been played in this channel." into the file."""
    db = str(tmp_path / "l.sqlite3")
    assert main(["play", "--humans", "0", "--rounds", "1", "--seed", "1", "--db", db, "--level", "easy"]) == 0
    capsys.readouterr()
    assert main(["export", "--db", db, "--channel", "zzz"]) == 2
    said = capsys.readouterr()
    assert said.out == "" and said.err == "liars: No table has been played in this channel.\n"


def test_an_interrupted_play_keeps_the_database_it_made(tmp_path: Path) -> None:
    """A refused table leaves no database it made, but the clean-up ran on any way out: Ctrl-C in a first game
    deleted the file, the table and its rounds with it."""
    import signal
    import subprocess
    import sys
    import time

    db = tmp_path / "new.sqlite3"
    proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "play", "--db", str(db), "--seed", "1"],
                            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            # (a test worker may ignore SIGINT, and an ignored signal stays ignored in its children)
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        for _ in range(600):  # until its table is dealt (a ceiling, not a timing)
            with contextlib.suppress(sqlite3.Error):
                if db.exists():
                    with contextlib.closing(sqlite3.connect(db)) as peek:
                        if peek.execute("SELECT COUNT(*) FROM table_events").fetchone()[0] >= 2:
                            break
            time.sleep(0.1)
        else:
            raise AssertionError("no table was dealt")
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert db.exists() and proc.returncode != 0
    with sqlite3.connect(db) as kept:
        assert kept.execute("SELECT COUNT(*) FROM table_events").fetchone()[0] >= 2


def test_a_folder_given_to_liars_play_is_said_to_be_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """(`liars play` said "unable to open database file" where every other command says what it is.)"""
    assert main(["play", "--humans", "0", "--rounds", "1", "--db", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"liars: cannot open {tmp_path}: that is a folder, not a database\n"


@pytest.mark.parametrize(("server", "hint"), [("lcoal", " (did you mean slack:lcoal or discord:lcoal?)"),
                                              ("Local", " (did you mean local?)"), ("slack:T0123", "")])
def test_forget_of_a_server_the_database_does_not_hold_is_refused(
        server: str, hint: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """(session 37) `liars forget lcoal --yes` said "erased lcoal: 0 ledger, 0 rounds, …" and exited 0: a typo, or
    the platform's prefix left out, looked like the workspace's data was gone."""
    db = tmp_path / "kept.sqlite3"
    assert main(["play", "--db", str(db), "--humans", "0", "--rounds", "1", "--seed", "1"]) == 0
    capsys.readouterr()
    assert main(["forget", server, "--yes", "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert err == (f"liars: no server {server} in this database: nothing was erased{hint}. A server is written as its "
                   "ledger names it: slack:T0123, discord:1234 or local.\n"), err
    assert main(["forget", "local", "--yes", "--db", str(db)]) == 0  # the one it holds: erased
    assert capsys.readouterr().out.startswith("erased local: ")


@pytest.mark.parametrize("command", ["replay", "verify"])
def test_a_record_saved_with_a_byte_order_mark_reads(
        command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """(session 37) A record saved by Notepad or PowerShell starts with a BOM: "malformed JSON … Unexpected UTF-8
    BOM (decode using utf-8-sig)", exit 2."""
    record = seed_record()
    plain, marked = tmp_path / "plain.json", tmp_path / "marked.json"
    plain.write_text(json.dumps(record), encoding="utf-8")
    marked.write_text(json.dumps(record), encoding="utf-8-sig")
    assert marked.read_bytes().startswith(b"\xef\xbb\xbf")
    code = main([command, str(plain)])  # (the seed's record has no salt to verify: refused alike, for that)
    want = capsys.readouterr()
    assert main([command, str(marked)]) == code and (command == "verify" or code == 0)
    assert capsys.readouterr() == want and "malformed" not in want.err


@pytest.mark.parametrize("command", [["ledger"], ["sheet"], ["export"]])
def test_a_tool_that_only_reads_leaves_an_older_database_as_it_was(
        command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`liars sheet --db backup.sqlite3` upgraded an older backup in place (and switched it to WAL): the tools
    that only read now say so and change nothing; `liars play` (the bot) upgrades it."""
    import sqlite3

    from adapters.sqlite.schema import MIGRATIONS, _statements

    old = tmp_path / "backup.sqlite3"
    with sqlite3.connect(old) as db:
        for statement in _statements(MIGRATIONS[0]):
            db.execute(statement)
        db.execute("PRAGMA user_version = 1")
    before = old.read_bytes()
    assert main([*command, "--db", str(old)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"liars: cannot open {old} only to read it: an older version of liars wrote it (schema 1 of "
                          f"{len(MIGRATIONS)})") and err.count("\n") == 1, err
    assert old.read_bytes() == before and not (tmp_path / "backup.sqlite3-wal").exists()


def test_play_takes_a_game_and_a_format_in_any_case(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`liars play --format Elimination` was an argparse error (chat takes FORMAT=ELIMINATION)."""
    db = str(tmp_path / "l.sqlite3")
    assert main(["play", "--humans", "0", "--game", "Serial", "--format", "Elimination", "--seed", "1", "--db", db,
                 "--level", "easy"]) == 0
    assert "pays for dinner" in capsys.readouterr().out
