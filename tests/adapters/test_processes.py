"""Several processes, one database: two services (two runtimes, two stores, as two bot processes would
have) on ONE real database take interleaved commands for the same tables.  Run on PostgreSQL and on
one SQLite file (two connections).

Nothing acknowledged is lost, nothing is applied twice, every server's ledger sums to 0, a request
delivered to both is applied once and both answer it alike, and a timer that comes due in both fires
once.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest

from adapters.stores import make_store
from bot.model import Actor, Command, Message, MessageKind, Reply, TableKey
from bot.service import Service
from bot.table import TableState
from core.serial import CallCount, Challenge, MakeBid, seat_view
from core.serial.players import get_strategy
from tests.adapters.store_support import raw_sql
from tests.doubles import FakeClock, RecordingNotifier
from tests.typed import cards_round, live_round

ROUNDS = 2


@dataclass
class Cluster:
    url: str
    clock: FakeClock
    services: list[Service]
    notifiers: list[RecordingNotifier]
    ids: itertools.count[int] = field(default_factory=itertools.count)

    def request_id(self) -> str:
        return f"req-{next(self.ids)}"


@pytest.fixture
async def cluster(database_url: str) -> AsyncIterator[Cluster]:
    clock = FakeClock()
    services, notifiers = [], []
    for n in range(2):
        store = make_store(database_url)
        await store.open()
        notifier = RecordingNotifier()
        service = Service(store, notifier, clock=clock, rng=random.Random(n))
        await service.start()
        services.append(service)
        notifiers.append(notifier)
    yield Cluster(database_url, clock, services, notifiers)
    for service in services:
        await service.close()


async def count_events(url: str, fragment: str) -> int:
    [(n,)] = await raw_sql(url, "SELECT COUNT(*) FROM table_events WHERE CAST(event AS TEXT) LIKE $1", f"%{fragment}%")
    return int(n)


async def view(service: Service, key: TableKey) -> TableState | None:
    """The table as stored (the service catches up with what the other process stored)."""
    async with service.rt.lock(key):
        return await service.rt.catch_up(key)


async def drive(c: Cluster, i: int, rng: random.Random, tally: dict[str, int]) -> None:
    """Open, fill, deal and play one table to its end, each command sent to a random process (some to
    both, under one request id, as a platform's retry landing on the other worker would be)."""
    key = TableKey("slack", f"T{i % 2}", f"C{i}")
    players = [Actor(f"U{i}-{s}", f"P{s}") for s in range(3)]
    by_id = {p.user_id: p for p in players}
    strategy = get_strategy("easy")

    async def send(actor: Actor, name: str, *args: str, **options: str) -> None:
        cmd = Command(name, key, actor, args, options, c.request_id())
        if rng.random() < 0.2:
            a, b = await asyncio.gather(*(s.handle(cmd) for s in c.services))
            assert a == b, (a, b)  # one applied it, the other answers with the stored reply
            reply: Reply = a
            tally["doubled"] += 1
        else:
            reply = await rng.choice(c.services).handle(cmd)
        assert reply.ok, (name, reply.text)
        tally["acked"] += 1
        if name in ("bid", "challenge", "count"):
            tally["moves"] += 1

    await send(players[0], "start", "classic", "1", "3", rounds=str(ROUNDS))
    await send(players[1], "join")
    await send(players[2], "join")
    await send(players[0], "deal")
    while True:
        table = await view(rng.choice(c.services), key)
        if table is None:
            break
        round_ = live_round(table)
        player = round_.to_act
        assert player is not None
        action = strategy.decide(seat_view(round_, player), rng)
        if isinstance(action, MakeBid):
            await send(by_id[player], "bid", str(action.bid.quantity), str(action.bid.digit))
        elif isinstance(action, Challenge):
            await send(by_id[player], "challenge")
        elif isinstance(action, CallCount):
            await send(by_id[player], "count")
    tally["tables"] += 1


ALICE, BOB = Actor("UA", "Alice"), Actor("UB", "Bob")
ADMIN = Actor("UZ", "Admin", is_admin=True)  # ends a table mid-round at once (a host's `end` waits for the count)


async def deal_two(key: TableKey, starts: Service, joins: Service, deals: Service) -> None:
    """Alice opens a table at ``key``, Bob joins, Alice deals: each command to the process named."""
    for service, actor, name in ((starts, ALICE, "start"), (joins, BOB, "join"), (deals, ALICE, "deal")):
        assert (await service.handle(Command(name, key, actor, ()))).ok


async def round_one_posted(c: Cluster, key: TableKey) -> tuple[TableState, Actor, Actor]:
    """A two-player table A dealt, its round-1 message posted (as A's notifier tells the panel book once it has
    posted it, as "round-1"); the table, the opener and the other player."""
    a = c.services[0]
    await deal_two(key, a, a, a)
    table = a.table(key)
    assert table is not None and table.to_act is not None
    await a.rt.panels.posted(table_panel(key, table.id, "round 1"), "round-1")
    opener = ALICE if table.to_act == "UA" else BOB
    return table, opener, BOB if opener is ALICE else ALICE


def table_panel(key: TableKey, table_id: int, text: str) -> Message:
    return Message(key, text, MessageKind.TABLE, panel="table", table_id=table_id)


async def test_two_processes_take_interleaved_commands_for_the_same_tables(
    cluster: Cluster, caplog: pytest.LogCaptureFixture
) -> None:
    c = cluster
    caplog.set_level(logging.INFO, logger="bot.runtime")
    tally = dict.fromkeys(("acked", "moves", "doubled", "tables"), 0)
    tables = 6
    await asyncio.gather(*(drive(c, i, random.Random(i), tally) for i in range(tables)))

    assert tally["tables"] == tables and tally["doubled"] > 0
    # the processes did get in each other's way: commands ran on stale tables and ran again
    assert any("ran on a stale table" in r.getMessage() for r in caplog.records)
    # every acknowledged move is stored once: one "act" event each, and no other
    assert await count_events(c.url, '"t":"act"') == tally["moves"]
    # every table's events are numbered 1..n with no gap
    gaps = await raw_sql(c.url, "SELECT table_id FROM table_events GROUP BY table_id HAVING MAX(seq) <> COUNT(*)")
    assert gaps == []
    # each request id stored once, and every acknowledged command (all change a table) has one
    [(requests,)] = await raw_sql(c.url, "SELECT COUNT(*) FROM requests")
    assert requests == tally["acked"]
    # every round settled once, and all closed
    [(rounds,)] = await raw_sql(c.url, "SELECT COUNT(*) FROM rounds")
    assert rounds == tables * ROUNDS
    [(still_open,)] = await raw_sql(c.url, "SELECT COUNT(*) FROM tables WHERE status = 'open'")
    assert still_open == 0
    for service in c.services:
        for server in ("slack:T0", "slack:T1"):
            balances = await service.store.balances(server)
            assert balances and sum(balances.values()) == 0


async def test_the_same_request_sent_to_both_processes_is_applied_once(cluster: Cluster) -> None:
    a, b = cluster.services
    key = TableKey("slack", "T1", "C1")
    alice, bob = Actor("UA", "Alice"), Actor("UB", "Bob")
    assert (await a.handle(Command("start", key, alice, (), {}, "r-start"))).ok
    join = Command("join", key, bob, (), {}, "r-join")
    first, second = await asyncio.gather(b.handle(join), a.handle(join))
    assert first == second and first.ok
    again = await b.handle(join)  # a late retry, on either process
    assert again == first
    assert await count_events(cluster.url, '"t":"join"') == 1
    for service in (a, b):
        table = await view(service, key)
        assert table is not None and table.seats == ["UA", "UB"]


async def test_a_channel_opened_in_both_processes_at_once_gets_one_table(cluster: Cluster) -> None:
    a, b = cluster.services
    key = TableKey("slack", "T1", "C9")
    replies = await asyncio.gather(a.handle(Command("start", key, Actor("UA", "Alice"), ())),
                                   b.handle(Command("start", key, Actor("UB", "Bob"), ())))
    assert sorted(r.ok for r in replies) == [False, True]
    assert [r.code for r in replies if not r.ok] == ["table-open"]
    [(open_tables,)] = await raw_sql(cluster.url, "SELECT COUNT(*) FROM tables WHERE status = 'open'")
    assert open_tables == 1
    # and tables opened in other channels by both get distinct ids
    more = await asyncio.gather(*(s.handle(Command("start", TableKey("slack", "T1", f"D{n}"), Actor("UA", "A"), ()))
                                  for n, s in enumerate(cluster.services * 3)))
    assert all(r.ok for r in more)
    [(ids,)] = await raw_sql(cluster.url, "SELECT COUNT(DISTINCT id) FROM tables")
    assert ids == 7


async def test_a_timer_due_in_both_processes_fires_once(cluster: Cluster) -> None:
    c = cluster
    a, b = c.services
    key = TableKey("slack", "T0", "C0")
    await deal_two(key, a, b, a)
    for service in c.services:
        assert await view(service, key) is not None  # both hold the table, so both time its turn
        await service.drain()
        c.notifiers[c.services.index(service)].messages.clear()

    c.clock.advance(31)  # past half the 60-second turn: the warning
    assert sorted(await asyncio.gather(a.tick(), b.tick())) == [0, 1]
    await asyncio.gather(a.drain(), b.drain())
    warnings = [m for n in c.notifiers for m in n.messages if m.kind == MessageKind.WARNING]
    assert len(warnings) == 1

    c.clock.advance(30)  # past the whole turn: the timeout
    await asyncio.gather(a.tick(), b.tick())
    assert await count_events(c.url, '"timeout":true') == 1
    for service in c.services:  # both see the one timeout, and neither fires it again
        table = await view(service, key)
        assert table is not None
        assert await service.tick() == 0
    [(events,)] = await raw_sql(c.url, "SELECT COUNT(*) FROM table_events")
    [(last,)] = await raw_sql(c.url, "SELECT MAX(seq) FROM table_events")
    assert events == last


async def test_a_card_turn_warned_in_one_process_is_not_warned_again_in_the_other_after_a_take(
        cluster: Cluster) -> None:
    """The card game's take, discard and declare are one turn on one clock: its warning is claimed once per turn,
    not once per event (a take after the warning let the other process warn the same turn again)."""
    c = cluster
    a, b = c.services
    key = TableKey("slack", "T0", "C9")
    for actor, name, *args in ((ALICE, "start", "game=cards"), (BOB, "join"), (ALICE, "deal")):
        assert (await a.handle(Command(name, key, actor, tuple(args)))).ok
    opener = {"UA": ALICE, "UB": BOB}[str(cards_round(a.table(key)).to_act)]
    other = BOB if opener is ALICE else ALICE
    least = cards_round(a.table(key)).least_raise().name().split()
    assert (await a.handle(Command("declare", key, opener, tuple(least)))).ok
    for service in c.services:
        assert await view(service, key) is not None  # both hold the table, so both time its turn
        await service.drain()
    for n in c.notifiers:
        n.messages.clear()

    c.clock.advance(31)  # past half the 60-second turn: the warning, from A
    assert await a.tick() == 1
    assert (await a.handle(Command("take", key, other, ()))).ok  # the same turn goes on, one event later
    c.clock.advance(1)
    await view(b, key)
    assert await b.tick() == 0
    await asyncio.gather(a.drain(), b.drain())
    warnings = [m for n in c.notifiers for m in n.messages if m.kind == MessageKind.WARNING]
    assert len(warnings) == 1, [m.text for m in warnings]


async def test_a_table_whose_process_is_gone_is_timed_by_another(cluster: Cluster) -> None:
    """A opens and deals a table, then is gone (it never ticks again); B, which never got a command for
    the table, finds it on its own and times the turn, and later sees it closed elsewhere."""
    c = cluster
    a, b = c.services
    key = TableKey("slack", "T0", "C7")
    await deal_two(key, a, a, a)
    assert b.table(key) is None  # B has not heard of it

    c.clock.advance(31)  # past half the 60-second turn
    assert await b.tick() == 1
    await b.drain()
    assert [m.kind for m in c.notifiers[1].messages].count(MessageKind.WARNING) == 1
    c.clock.advance(30)  # past the whole turn
    assert await b.tick() == 1
    assert await count_events(c.url, '"timeout":true') == 1

    assert (await a.handle(Command("end", key, ADMIN, ()))).ok  # closed in A (B's copy is now stale)
    assert b.table(key) is not None
    c.clock.advance(5)
    await b.tick()
    assert b.table(key) is None


async def test_a_process_catching_up_takes_the_panel_messages_the_other_posted(cluster: Cluster) -> None:
    """B edits the table message A posted for the new round, not the previous round's."""
    c = cluster
    a, b = c.services
    key = TableKey("slack", "T0", "C8")
    await deal_two(key, a, a, a)
    table = a.table(key)
    assert table is not None and table.to_act is not None
    posted = Message(key, "the table", MessageKind.TABLE, panel="table", table_id=table.id)
    await a.rt.panels.posted(posted, "round-1")  # as A's notifier does once it has posted the message
    assert await view(b, key) is not None and b.panel(key, "table") == "round-1"
    to_act = ALICE if table.to_act == "UA" else BOB
    assert (await a.handle(Command("bid", key, to_act, ("1", "9")))).ok
    await a.rt.panels.posted(posted, "round-1-later")  # say A posted the table message anew
    c.clock.advance(6)
    await b.tick()  # B's survey catches up with A's bid, and with the panel A stored
    assert b.panel(key, "table") == "round-1-later"


async def test_a_config_change_in_one_process_is_in_force_in_the_other_for_the_next_command(
    cluster: Cluster,
) -> None:
    """A changes the server's currency; B, which cached the settings before, uses the new ones for its
    very next command: a read (``status``) and a move (its table message), without a restart."""
    c = cluster
    a, b = c.services
    key = TableKey("slack", "T0", "C3")
    await deal_two(key, a, b, a)
    admin = Actor("UA", "Alice", is_admin=True)
    before = await b.handle(Command("status", key, ALICE, ()))
    assert "€" not in before.text
    assert (await a.handle(Command("config", key, admin, ("currency=€",)))).ok
    assert "€" in (await b.handle(Command("status", key, ALICE, ()))).text
    table = await view(b, key)
    assert table is not None and table.to_act is not None
    await b.drain()
    c.notifiers[1].messages.clear()
    assert (await b.handle(Command("bid", key, ALICE if table.to_act == "UA" else BOB, ("1", "9")))).ok
    await b.drain()
    [panel] = [m for m in c.notifiers[1].messages if m.panel == "table"]
    assert "€" in panel.text
    # and a second change, made in B this time, is in force in A
    assert (await b.handle(Command("config", key, admin, ("currency=CHF",)))).ok
    assert "CHF" in (await a.handle(Command("config", key, ALICE, ()))).text


async def test_two_config_changes_built_on_one_version_both_take_effect(cluster: Cluster) -> None:
    """Two admins change different settings in the two processes at once: neither change is lost (the
    second is refused by the store, reads the first, and runs again on it)."""
    a, b = cluster.services
    key = TableKey("slack", "T1", "C4")
    admin = Actor("UA", "Alice", is_admin=True)
    for service in (a, b):  # both hold the settings at the same version
        await service.handle(Command("config", key, admin, ()))
    replies = await asyncio.gather(a.handle(Command("config", key, admin, ("currency=€",))),
                                   b.handle(Command("config", key, admin, ("turn_timeout=30",))))
    assert all(r.ok for r in replies)
    for service in (a, b):
        settings = await service.settings(key.server)
        assert settings["currency"] == "€" and settings["turn_timeout"] == 30


async def test_a_request_refused_first_is_refused_again_wherever_it_is_delivered_later(cluster: Cluster) -> None:
    """Bob's bid reaches B before the round is dealt: "No round is under way".  The same request
    (a platform's retry) reaches A after Alice has dealt: A answers what B did and applies nothing."""
    c = cluster
    a, b = c.services
    key = TableKey("slack", "T1", "C5")
    for service, actor, name in ((a, ALICE, "start"), (b, BOB, "join")):
        assert (await service.handle(Command(name, key, actor, ()))).ok
    bid = Command("bid", key, BOB, ("1", "9"), {}, "r-early-bid")
    first = await b.handle(bid)
    assert not first.ok and first.code == "no-round"
    assert (await a.handle(Command("deal", key, ALICE, ()))).ok
    for service in (a, b, a):
        assert await service.handle(bid) == first
    assert await count_events(c.url, '"t":"act"') == 0


async def test_a_request_both_processes_take_at_once_gets_one_answer(cluster: Cluster) -> None:
    """The same moves delivered to both processes at once, over and over, with the table moving on
    between them: every pair of answers is one answer, and each request applied at most once."""
    c = cluster
    a, b = c.services
    key = TableKey("slack", "T0", "C6")
    await deal_two(key, a, b, b)
    for n in range(12):
        table = await view(a if n % 2 else b, key)
        assert table is not None
        actor = ALICE if table.to_act == "UA" else BOB
        other = BOB if actor is ALICE else ALICE
        # the player to act and the other one both send, each request to both processes
        cmds = [Command("bid", key, p, (str(n + 1), "9"), {}, f"r-{n}-{p.user_id}")
                for p in (actor, other)]
        answers = await asyncio.gather(*(s.handle(cmd) for cmd in cmds for s in (a, b)))
        assert answers[0] == answers[1] and answers[2] == answers[3]
        assert answers[0].ok and not answers[2].ok
    assert await count_events(c.url, '"t":"act"') == 12


async def test_a_dm_hand_finds_the_round_another_process_dealt(cluster: Cluster) -> None:
    """`hand` by DM names no channel: the process asked (another shard's, another worker) found the player's
    rounds in its own cache only, so it said they held nothing, however long it had run."""
    one, two = cluster.services
    key = TableKey("discord", "G1", "C1")
    await deal_two(key, one, one, one)
    assert two.table(key) is None  # the second process never served this table
    [found] = await two.tables_of("discord", BOB.user_id)
    assert found.key == key and found.live and two.table(key) is None  # read, not cached
    [(at, held)] = await two.hands_of("discord", BOB.user_id)  # as the DM's hand is answered
    bobs = live_round(await view(one, key)).serials[BOB.user_id].digits
    assert at == key and held.ok and bobs in held.text
    assert two.table(key) is None  # still not cached: the other process times it (a shard's, not this one's)
    assert await two.tables_of("discord", "U-nobody") == [] and await two.tables_of("slack", BOB.user_id) == []
    # a later deal made elsewhere is what is found (not a copy this process caught before)
    await one.handle(Command("end", key, ADMIN, ()))
    key2 = TableKey("discord", "G1", "C2")
    await deal_two(key2, one, one, one)
    assert [t.key for t in await two.tables_of("discord", BOB.user_id)] == [key2]


async def test_a_table_closed_and_erased_elsewhere_leaves_no_ghost_in_another_process(cluster: Cluster) -> None:
    """A process that held a table another closed, then `liars forget` erased, kept it as open after its survey
    (no event of it was left to catch up with): its players' joins at the channel's next table answered
    "The table is busy"."""
    one, two = cluster.services
    key = TableKey("slack", "T9", "C9")
    await deal_two(key, one, one, one)
    assert await view(two, key) is not None  # the second process holds it too
    assert (await one.handle(Command("end", key, ADMIN, ()))).ok
    erased = await one.rt.store.erase_server(key.server)
    assert erased["tables"] == 1
    assert (await one.handle(Command("start", key, ALICE, ()))).ok  # the channel's next table, from process one
    await two.rt.survey()
    table, first = two.table(key), one.table(key)
    assert table is not None and first is not None and table.id == first.id
    assert (await two.handle(Command("join", key, BOB, ()))).ok


async def test_a_table_message_drawn_from_an_older_state_is_drawn_again(cluster: Cluster) -> None:
    """Two workers edit one table message and nothing orders their edits: an older one landing last showed
    the table one move behind until the next move.  After each edit the worker asks whether the table moved
    on since what it drew; if it did, it draws the table again as stored."""
    one, two = cluster.services
    key = TableKey("slack", "T7", "C7")
    await deal_two(key, one, one, one)
    await one.drain()
    drawn = next(m for m in reversed(cluster.notifiers[0].messages) if m.panel == "table")
    assert drawn.seq is not None and not await one.redraw_if_behind(drawn)  # nothing moved: one read, no redraw
    table = await view(two, key)
    assert table is not None
    opener = live_round(table).to_act
    assert (await two.handle(Command("bid", key, ALICE if opener == ALICE.user_id else BOB, ("1", "5")))).ok
    before = len(cluster.notifiers[0].messages)
    assert await one.redraw_if_behind(drawn)  # the other worker moved it on: drawn again, as stored
    await one.drain()
    [again] = [m for m in cluster.notifiers[0].messages[before:] if m.panel == "table"]
    assert again.seq is not None and again.seq > drawn.seq and "1 five" in again.text
    assert again.note.endswith("bid 1 five.")  # with the line that says what just happened, as the other drew it
    # a table this process moved on itself is not drawn again: its own edit of the newer state follows
    assert (await one.handle(Command("challenge", key, BOB if opener == ALICE.user_id else ALICE, ()))).ok
    assert not await one.redraw_if_behind(again)


async def test_a_round_dealt_elsewhere_is_not_drawn_into_the_last_rounds_message(cluster: Cluster) -> None:
    """A dealt round 2 and was still posting its message when B caught up: B's next move edited round 1's
    message (the id stored then) into round 2, and round 2's own message stayed at its opening. Until A's
    new id is stored, B draws nothing (A draws the table as it stands once posted); then B edits A's."""
    c = cluster
    a, b = c.services
    key = TableKey("slack", "T0", "C9")
    table, opener, other = await round_one_posted(c, key)
    assert await view(b, key) is not None and b.panel(key, "table") == "round-1"
    assert await b.rt.panels.current(key, table.id) == "round-1"  # nothing dealt elsewhere: as known
    assert (await a.handle(Command("bid", key, opener, ("1", "9")))).ok
    assert (await a.handle(Command("challenge", key, other, ()))).ok  # counted: A deals round 2 at once
    c.clock.advance(6)
    await b.tick()  # B's survey catches up with the count and A's deal; round 2's message is not stored yet
    assert await b.rt.panels.current(key, table.id) is None
    await a.rt.panels.posted(table_panel(key, table.id, "round 2"), "round-2")
    assert await b.rt.panels.current(key, table.id) == "round-2" and b.panel(key, "table") == "round-2"


async def test_a_round_dealt_elsewhere_found_by_a_move_that_was_behind_is_not_drawn_into_the_last_one(
        cluster: Cluster) -> None:
    """B had not surveyed when it took a move for the round A had just dealt: its commit was behind, it
    reloaded the table, and the move's drawing went into round 1's message (the stored id) after all."""
    c = cluster
    a, b = c.services
    key = TableKey("slack", "T0", "C10")
    table, opener, other = await round_one_posted(c, key)
    assert await view(b, key) is not None  # B holds the table at round 1
    assert (await a.handle(Command("bid", key, opener, ("1", "9")))).ok
    assert (await a.handle(Command("challenge", key, other, ()))).ok  # A deals round 2; its message not stored yet
    now = a.table(key)
    assert now is not None and now.to_act is not None
    mover = ALICE if now.to_act == "UA" else BOB
    assert (await b.handle(Command("bid", key, mover, ("1", "9")))).ok  # behind: B reloads, then moves
    assert await b.rt.panels.current(key, table.id) is None  # round 1's message is not round 2's


async def test_a_table_message_never_stored_by_its_poster_is_drawn_here_after_a_while(cluster: Cluster) -> None:
    """The mark could freeze the table message for the rest of the round (the dealing process stopped, or its
    post was refused): after STALE_SECONDS this process draws the table in the message it knows."""
    from bot.panels import STALE_SECONDS, Panels

    c = cluster
    a, _ = c.services
    key = TableKey("slack", "T0", "C11")
    await deal_two(key, a, a, a)
    table = a.table(key)
    assert table is not None
    now = [100.0]
    panels = Panels(a.rt.store, clock=lambda: now[0])
    await panels.posted(table_panel(key, table.id, "round 1"), "round-1")
    panels.adopt(key, table.id, {"table": "round-1"}, dealt_elsewhere=True)
    assert await panels.current(key, table.id) is None
    now[0] += STALE_SECONDS + 1
    assert await panels.current(key, table.id) == "round-1"


async def test_a_commit_refused_behind_a_deal_elsewhere_marks_it_though_it_had_applied_its_own_events(
        cluster: Cluster) -> None:
    """A failed commit has applied its own events to the cached table: the reload counted the missed events
    from after them, skipped the other process's deal, and the last round's message was drawn into after all."""
    c = cluster
    a, b = c.services
    key = TableKey("slack", "T0", "C12")
    table, opener, other = await round_one_posted(c, key)
    assert (await a.handle(Command("bid", key, opener, ("1", "9")))).ok
    held = await view(b, key)  # B holds round 1 with the bid
    assert held is not None
    stored = held.events
    assert (await a.handle(Command("challenge", key, other, ()))).ok  # A counts and deals round 2
    held.apply({"t": "act", "player": other.user_id, "challenge": True})  # B applied its own challenge, then
    await b.rt.reload(held, stored)  # its commit was refused: B reloads from what it held as stored
    assert await b.rt.panels.current(key, table.id) is None  # A's deal is seen: round 1's message is not round 2's


async def test_a_nul_typed_or_in_a_name_is_taken_out_before_it_is_stored(cluster: Cluster) -> None:
    """PostgreSQL stores no NUL in text: a display name or a word with one failed the write ("something went
    wrong", the table busy), where SQLite stored it."""
    one = cluster.services[0]
    key = TableKey("slack", "T1", "C1")
    ann, bob = Actor("U1", "An\x00n", is_admin=True), Actor("U2", "Bob")
    for actor, name, args in ((ann, "start", ("classic\x00",)), (bob, "join", ()), (ann, "deal", ())):
        reply = await one.handle(Command(name, key, actor, args, {}))
        assert reply.ok, reply.text
    opener = ann if one.table(key).to_act == "U1" else bob  # type: ignore[union-attr]
    said = await one.handle(Command("bid", key, opener, ("1", "5"), {"say": "hel\x00lo"}))
    assert said.ok, said.text
    assert (await one.rt.store.names(key.server))["U1"] == "Ann"
