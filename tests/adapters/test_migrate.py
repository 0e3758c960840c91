"""``liars migrate``: a populated SQLite file copied into the test PostgreSQL server, compared through
both stores, and the copy goes on as a live database."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from adapters.migrate import MigrationError, migrate
from adapters.postgres.store import PostgresStore
from adapters.sqlite.schema import MIGRATIONS, _statements
from adapters.sqlite.store import SqliteStore
from bot.cli import main
from bot.ports import LedgerEntry, RoundRecord, Store


async def populate(path: Path) -> None:
    store = SqliteStore(str(path))
    await store.open()
    for s in range(3):
        server = f"srv{s}"
        await store.set_settings(server, {"stake": s + 1, "admins": [f"admin{s}"]}, expect_version=0)
        for c in range(3):
            table = await store.create_table(server, f"chan{c}", 1.0 + c)
            await store.commit(table, server, [{"t": "open", "c": c}], at=2.0, period="2026-01",
                               names={f"p{c}": f"Player {c}", f"q{c}": "Q"}, request=(f"req-{s}-{c}", {"ok": True}))
            for n in range(1, 4):
                units = (s + 1) * n * 10**9  # beyond 32 bits in the sums
                await store.commit(
                    table, server, [{"t": "bid", "n": n}, {"t": "count", "n": n}], at=3.0 + n,
                    period="2026-01" if n < 3 else "2026-02",
                    rounds=[RoundRecord(n, {"round": n, "seats": [f"p{c}", f"q{c}"]}, {"winner": f"p{c}"},
                                        [LedgerEntry(f"p{c}", units), LedgerEntry(f"q{c}", -units)])],
                    close=(c == 0 and n == 3),
                )
            await store.set_panel(table, "main", f"msg-{s}-{c}")
        await store.settle_period(server, "2026-01", f"admin{s}", 9.0)
    await store.close()


async def snapshot(store: Store, tables: list[int]) -> dict[str, Any]:
    servers = ["srv0", "srv1", "srv2"]
    return {
        "open": sorted((t.table_id, t.server, t.channel, t.seq, str(t.events), str(t.panels))
                       for t in await store.load_open_tables()),
        "events": [await store.table_events(t) for t in tables],
        "balances": [await store.balances(s, p) for s in servers for p in (None, "2026-01", "2026-02")],
        "periods": [await store.periods(s) for s in servers],
        "settled": [await store.settled_periods(s) for s in servers],
        "settings": [await store.get_settings(s) for s in servers],
        "names": [await store.names(s) for s in servers],
        "rounds": [await store.rounds(s) for s in servers],
        "requests": [await store.get_request(f"req-{s}-{c}") for s in range(3) for c in range(3)],
        "last": [await store.last_table(s, f"chan{c}") for s in servers for c in range(3)],
    }


def test_a_populated_sqlite_file_is_copied_and_checked(tmp_path: Path, postgres_url: str,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "old.sqlite3"
    asyncio.run(populate(path))
    assert main(["migrate", "--from", f"sqlite:///{path}", "--to", postgres_url]) == 0
    out = capsys.readouterr().out
    assert "checked: balances of 3 servers" in out and "table_events" in out and "MISMATCHES" not in out

    async def compare() -> None:
        sqlite, pg = SqliteStore(str(path)), PostgresStore(postgres_url)
        await sqlite.open()
        await pg.open()
        tables = list(range(1, 10))
        assert await snapshot(pg, tables) == await snapshot(sqlite, tables)
        assert len(await pg.load_open_tables()) == 6
        # the copy is a live database: tables go on where they were, new ids follow the copied ones
        [open_table] = [t for t in await pg.load_open_tables() if t.table_id == 2]
        await pg.commit(2, "srv0", [{"t": "next"}], at=10.0, period="2026-02", expect_seq=open_table.seq,
                        rounds=[RoundRecord(4, {}, {}, [LedgerEntry("p1", 1), LedgerEntry("q1", -1)])])
        assert await pg.create_table("srv0", "chan9", 10.0) > 9
        assert (await pg.rounds("srv0", limit=1))[0]["id"] > 27
        await sqlite.close()
        await pg.close()

    asyncio.run(compare())


def test_a_database_that_is_not_empty_is_refused_and_left_alone(tmp_path: Path, postgres_url: str) -> None:
    path = tmp_path / "old.sqlite3"
    asyncio.run(populate(path))
    first = asyncio.run(migrate(str(path), postgres_url))
    assert first.ok and first.copied["ledger"] == 54 and first.copied["table_events"] == 63
    with pytest.raises(MigrationError, match="not empty"):
        asyncio.run(migrate(str(path), postgres_url))

    async def counts() -> dict[str, int]:
        pg = PostgresStore(postgres_url)
        await pg.open()
        try:
            return await pg.row_counts()
        finally:
            await pg.close()

    assert asyncio.run(counts()) == first.copied


def test_wrong_urls_are_told_plainly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["migrate", "--from", str(tmp_path / "missing.sqlite3"), "--to", "postgresql://x@/db"]) == 2
    assert "no SQLite database" in capsys.readouterr().err
    assert main(["migrate", "--from", "postgresql://x@/a", "--to", "postgresql://x@/b"]) == 2
    assert main(["migrate", "--from", str(tmp_path / "a.sqlite3"), "--to", "sqlite:///b"]) == 2
    assert "must be a PostgreSQL URL" in capsys.readouterr().err


async def test_ids_of_a_server_erased_before_the_copy_are_not_handed_out_again(tmp_path: Path,
                                                                             postgres_url: str) -> None:
    """The copy's id sequences started past the copied rows only: the ids of a server erased (`liars forget`)
    before `liars migrate`, which SQLite keeps taken, were handed out again (the rating book and old buttons
    know rounds and tables by id)."""
    from tests.adapters.test_erase import a_server_with_history
    from tests.adapters.test_store_contract import P, round_

    path = tmp_path / "liars.sqlite3"
    lite = SqliteStore(str(path))
    await lite.open()
    await a_server_with_history(lite, "slack:KEEP")
    erased_table = await a_server_with_history(lite, "slack:GONE")  # the newest table and rounds
    erased_rounds = {int(str(r["id"])) for r in await lite.rounds("slack:GONE")}
    assert await lite.erase_server("slack:GONE")
    await lite.close()
    await migrate(str(path), postgres_url)
    pg = PostgresStore(postgres_url)
    await pg.open()
    try:
        new = await pg.create_table("slack:NEW", "c9", 6.0)
        await pg.commit(new, "slack:NEW", [{"t": "open"}], at=6.0, period=P, close=True,
                        rounds=[round_(1, ("c", 1), ("d", -1))])
        assert new > erased_table
        assert min(int(str(r["id"])) for r in await pg.rounds("slack:NEW")) > max(erased_rounds)
    finally:
        await pg.close()


def test_a_source_that_is_no_liars_database_is_refused_and_the_process_ends(tmp_path: Path) -> None:
    """`--from notes.txt` printed a sqlite3.DatabaseError traceback and never exited (the half-open connection's
    thread stayed alive); another application's SQLite file was migrated (the bot's tables written into it)
    before the unreachable target was tried."""
    notes = tmp_path / "notes.txt"
    notes.write_text("hello\n")
    other = tmp_path / "other.sqlite3"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE notes (x)")
    before = other.read_bytes()
    for source, said in ((notes, f"cannot open {notes}: file is not a database"),
                         (other, f"cannot open {other}: it is not a liars database")):
        done = subprocess.run([sys.executable, "-m", "bot.cli", "migrate", "--from", str(source), "--to",
                               "postgresql://u:p@127.0.0.1:9/db"], capture_output=True, text=True, timeout=120)
        assert done.returncode == 2 and done.stderr == f"liars: {said}\n", done.stderr
    assert other.read_bytes() == before


def test_an_unreachable_target_leaves_the_source_as_it_was(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The source was opened first, so a liars file of an older schema was migrated forward (and switched to
    WAL) by a migration that could not start."""
    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as db:  # a liars database at the first schema version
        for statement in _statements(MIGRATIONS[0]):
            db.execute(statement)
        db.execute("PRAGMA user_version = 1")
    before = path.read_bytes()
    assert main(["migrate", "--from", str(path), "--to", "postgresql://u:p@127.0.0.1:9/db"]) == 2
    assert capsys.readouterr().err.startswith("liars: cannot open postgresql://")
    assert path.read_bytes() == before and not (tmp_path / "old.sqlite3-wal").exists()


@pytest.mark.parametrize("target", ["postgresql://ann:Zk8/q2se#cret@127.0.0.1:9/liars",
                                    "postgresql://ann:se?cret@127.0.0.1:9/liars",
                                    "postgresql://ann:secret@127.0.0.1:secret/liars",
                                    "postgresql://ann:secret@127.0.0.1:99999/liars"])
def test_a_target_url_the_driver_cannot_read_is_one_line_quoting_no_piece_of_the_password(
        target: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A generated password holding "/", "#" or "?" was split there by the driver, which quoted the pieces it read as
    the port ("invalid literal for int(): 'Zk8'") in the line that says the password is not shown; a port past
    65535 was a traceback."""
    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as db:
        for statement in _statements(MIGRATIONS[0]):
            db.execute(statement)
        db.execute("PRAGMA user_version = 1")
    assert main(["migrate", "--from", str(path), "--to", target]) == 2
    err = capsys.readouterr().err
    assert err.startswith("liars: cannot open postgresql://") and "the URL could not be read" in err, err
    assert "cret" not in err and "Zk8" not in err and err.count("\n") == 1, err
