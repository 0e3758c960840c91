"""A table whose stored log this version cannot replay (written by another version of the bot, say): every
command there is told so (it was answered with the replay's own refusal, "<@nobody> is not playing in this
round.", whatever was asked — a refusal that may quote a recorded move), and a server admin's `end` closes it."""

from __future__ import annotations

import json
import logging
import sqlite3

import pytest

from bot.model import TableKey
from tests.typed import live_round

from .conftest import ADMIN, ALICE, BOB, CAROL, KEY, Harness
from .test_service import open_three

UNREADABLE = '{"t": "act", "player": "nobody", "bid": [1, 0]}'  # a move by nobody seated: no version replays it


def _append(h: Harness, table_id: int, event: str) -> int:
    with sqlite3.connect(h.path) as db:
        seq = db.execute("SELECT MAX(seq) FROM table_events WHERE table_id = ?", (table_id,)).fetchone()[0] + 1
        db.execute("INSERT INTO table_events (table_id, seq, at, event) VALUES (?, ?, 0, ?)", (table_id, seq, event))
    return int(seq)


def _stored(h: Harness, table_id: int) -> tuple[str, int, str]:
    with sqlite3.connect(h.path) as db:
        status, count = db.execute("SELECT status, (SELECT COUNT(*) FROM table_events WHERE table_id = ?) FROM tables "
                                   "WHERE id = ?", (table_id, table_id)).fetchone()
        last = db.execute("SELECT event FROM table_events WHERE table_id = ? ORDER BY seq DESC LIMIT 1",
                          (table_id,)).fetchone()[0]
    return str(status), int(count), str(last)


async def test_every_command_there_is_told_the_table_cannot_be_read_and_an_admins_end_closes_it(
        harness: Harness, caplog: pytest.LogCaptureFixture) -> None:
    h = harness
    await open_three(h)
    broken = h.table().id
    serials = [str(s) for s in live_round(h.table()).serials.values()]
    seq = _append(h, broken, UNREADABLE)
    caplog.set_level(logging.INFO)
    await h.restart()
    for who, name, args in ((ALICE, "status", ()), (BOB, "bid", ("2", "sevens")), (CAROL, "start", ()),
                            (ALICE, "end", ()), (BOB, "hand", ())):
        reply = await h.do(who, name, *args)
        assert not reply.ok and reply.private and reply.code == "unreadable-table", (name, reply)
        assert reply.text.startswith(f"This channel's table (no. {broken}) was stored by another version"), reply
    assert _stored(h, broken)[:2] == ("open", seq)  # nothing changed: the host's `end` is no admin's
    logged = "\n".join(r.getMessage() for r in caplog.records if r.levelno >= logging.INFO)
    assert "nobody" not in logged and not any(s in logged or s.split()[1] in logged for s in serials), logged
    closed = await h.do(ADMIN, "end")
    assert closed.ok and not closed.private and closed.text.startswith(f"🛑 Table no. {broken}, which this version")
    status, count, last = _stored(h, broken)
    assert (status, count) == ("closed", seq + 1)
    assert {k: v for k, v in json.loads(last).items() if k != "at"} == {"t": "end", "by": ADMIN.user_id,
                                                                        "reason": "unreadable"}
    assert (await h.do(ALICE, "start")).ok and h.table().id != broken  # the channel plays again


async def test_a_survey_goes_on_past_a_table_it_cannot_read(harness: Harness,
                                                            caplog: pytest.LogCaptureFixture) -> None:
    """The timers' survey (catching up with what other processes stored) raised at the one unreadable table it
    met, so no table another process had moved was caught up with, on every survey, its text at WARNING."""
    h = harness
    other = TableKey(KEY.platform, KEY.server_id, "other-channel")
    await open_three(h)
    broken = h.table().id
    service = await h.restart()
    assert (await h.do(ALICE, "start", key=other)).ok
    moved = service.table(other)
    assert moved is not None
    _append(h, broken, UNREADABLE)  # stored by "another process", as is a join at the other table:
    _append(h, moved.id, '{"t": "join", "player": "U2", "name": "Bob"}')
    caplog.set_level(logging.INFO)
    rt = service.rt
    rt.tables.pop(KEY, None)  # (as if this process had never loaded the broken one)
    assert await rt.survey() == 1 and "U2" in rt.tables[other].seats
    assert await rt.survey() == 0
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(errors) == 1 and f"table {broken} in" in errors[0] and "nobody" not in errors[0], errors


async def test_a_hand_asked_by_dm_and_an_export_read_past_a_table_that_cannot_be_read(harness: Harness) -> None:
    """`hand` by DM (and Slack's Home tab) reads every open table of the platform: one this version cannot read
    failed it for every player of every server; `export` of it answered with the replay's own refusal."""
    h = harness
    other = TableKey(KEY.platform, KEY.server_id, "other-channel")
    await open_three(h)
    broken = h.table().id
    assert (await h.do(ALICE, "start", key=other)).ok and (await h.do(BOB, "join", key=other)).ok
    assert (await h.do(ALICE, "deal", key=other)).ok
    _append(h, broken, UNREADABLE)
    service = await h.restart()
    [(key, held)] = await service.hands_of(KEY.platform, ALICE.user_id)
    assert key == other and held.ok and "serial" in held.text.lower(), held
    assert (await h.do(ADMIN, "end")).ok
    refused = await h.do(ALICE, "export")
    assert not refused.ok and refused.code == "unreadable-table" and f"(no. {broken})" in refused.text, refused


async def test_the_app_removed_from_a_server_closes_its_tables_past_one_it_cannot_read(harness: Harness) -> None:
    """`close_server` (the app uninstalled, the bot removed) stopped at the unreadable table: the server's other
    tables stayed open for good."""
    h = harness
    other = TableKey(KEY.platform, KEY.server_id, "other-channel")
    await open_three(h)
    broken = h.table().id
    assert (await h.do(ALICE, "start", key=other)).ok
    fine = h.table(other).id
    _append(h, broken, UNREADABLE)
    service = await h.restart()
    assert await service.close_server(KEY.server) == 2
    assert _stored(h, fine)[0] == "closed" and _stored(h, broken)[0] == "closed"


async def test_a_cached_table_another_process_made_unreadable_is_said_to_be_so(harness: Harness) -> None:
    """The first command on a table this process held, after another (newer) process stored what this one cannot
    read, was told "could not be saved; please try again" (an admin's `end` too)."""
    h = harness
    await open_three(h)
    broken = h.table().id
    opener = ALICE if h.to_act() == ALICE.user_id else BOB
    seq = _append(h, broken, UNREADABLE)  # (stored by "another process": this one holds the table as it was)
    moved = await h.do(opener, "bid", "1", "9")  # its commit finds the table moved on, and cannot read it
    assert not moved.ok and moved.code == "unreadable-table", moved
    read = await h.do(ALICE, "status")
    assert not read.ok and read.code == "unreadable-table", read
    closed = await h.do(ADMIN, "end")
    assert closed.ok and _stored(h, broken)[:2] == ("closed", seq + 1), closed


async def test_a_table_holding_an_event_a_newer_version_writes_is_left_to_it_and_no_admin_closes_it(
        harness: Harness) -> None:
    """Mid-upgrade an older process met an event kind only the newer version writes (session 36's `stay`): it said
    "stored by another version … a server admin can close it with `end`", and an admin's `end` closed a table the
    newer processes were playing.  Now it says the table is a newer version's, and `end` leaves it as stored."""
    h = harness
    await open_three(h)
    table = h.table().id
    now = h.clock.now()
    seq = _append(h, table, f'{{"t": "a-kind-from-a-later-version", "player": "U2", "at": {now}}}')
    await h.restart()
    for who, name, args in ((ALICE, "status", ()), (BOB, "bid", ("2", "7")), (ADMIN, "end", ()), (CAROL, "end", ())):
        reply = await h.do(who, name, *args)
        assert not reply.ok and reply.private and reply.code == "unreadable-table", (name, reply)
        assert reply.text.startswith(f"This channel's table (no. {table}) is served by a newer version"), reply
        assert "rolled back for good, a server admin's `end` closes it once it has been idle 15 minutes" in reply.text
    assert _stored(h, table)[:2] == ("open", seq)  # nothing written: not closed, not void
    h.clock.advance(15 * 60)  # idle that long: no newer process serves it (a rollback for good): an admin may close it
    closed = await h.do(ADMIN, "end")
    assert closed.ok and _stored(h, table)[:2] == ("closed", seq + 1), closed


async def _open_cards(h: Harness) -> None:
    assert (await h.do(ALICE, "start", "game=cards")).ok and (await h.do(BOB, "join")).ok
    assert (await h.do(ALICE, "deal")).ok


async def _open_dinner(h: Harness) -> None:
    assert (await h.do(ALICE, "start", "format=elimination")).ok
    assert (await h.do(BOB, "join")).ok and (await h.do(CAROL, "join")).ok and (await h.do(ALICE, "deal")).ok


@pytest.mark.parametrize("game", ["serial", "cards", "dinner"])
async def test_a_move_of_a_kind_a_newer_version_writes_is_that_versions_table_not_a_broken_one(
        harness: Harness, game: str) -> None:
    """An `act` event whose move is of a kind only a newer version of the game writes (a new move, mid-upgrade) was
    read as a broken log: "stored by another version … an admin can close it", and an admin's `end` closed it under
    the newer processes.  It is now the newer version's table, as an unknown event kind is."""
    h = harness
    await {"serial": open_three, "cards": _open_cards, "dinner": _open_dinner}[game](h)
    table = h.table().id
    seq = _append(h, table, f'{{"t": "act", "player": "U2", "a-move-from-a-later-version": [0], '
                            f'"at": {h.clock.now()}}}')
    await h.restart()
    for who, name in ((ALICE, "status"), (ADMIN, "end")):
        reply = await h.do(who, name)
        assert not reply.ok and reply.code == "unreadable-table", (name, reply)
        assert reply.text.startswith(f"This channel's table (no. {table}) is served by a newer version"), reply
    assert _stored(h, table)[:2] == ("open", seq)
