"""The Slack notifier on its own: the real service talks to a fake Slack Web API through it."""

from __future__ import annotations

import asyncio
import random
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest_asyncio
from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.notifier import SlackNotifier
from adapters.sqlite.store import SqliteStore
from adapters.stores import open_store
from bot.model import Actor, Command, Reply
from bot.panels import Panels
from bot.service import Service
from bot.table import TableState
from tests.adapters.slack.harness import ALICE, BOB, BOT_TOKEN, CAROL, CHANNEL, event_count, key_of
from tests.fakes.slack_server import ApiCall, FakeSlack, ResponseUrlPost
from tests.typed import live_round, serial_match


@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeSlack]:
    async with FakeSlack(bot_token=BOT_TOKEN) as server:
        yield server


@pytest_asyncio.fixture
async def service(fake: FakeSlack, tmp_path: Path) -> AsyncIterator[Service]:
    store = await open_store(str(tmp_path / "liars.sqlite3"))
    panels = Panels(store)
    notifier = SlackNotifier(AsyncWebClient(token=BOT_TOKEN, base_url=fake.api_base), panels)
    svc = Service(store, notifier, panels=panels, rng=random.Random(3), platform="slack")
    await svc.start()
    yield svc
    await svc.drain()  # the service's outbox hands the rest over before the notifier stops
    await notifier.close()
    await svc.close()


async def do(service: Service, fake: FakeSlack, user: str, name: str, *args: str, admin: bool = False) -> Reply:
    """A command, then everything it queued sent: the service's outbox hands it to the notifier
    (``deliver`` only queues), whose outboxes send it.  ``admin``: the sender is a workspace admin (who may
    `end` a table mid-round at once; a host's `end` waits for the count)."""
    reply = await service.handle(Command(name, key_of(fake), Actor(user, user.lower(), is_admin=admin), args))
    await service.drain()
    notifier = service.rt.notifier
    assert isinstance(notifier, SlackNotifier)
    await notifier.idle()
    return reply


async def test_the_lobby_is_edited_in_place_to_the_end(service: Service, fake: FakeSlack) -> None:
    assert (await do(service, fake, ALICE, "start")).ok
    lobby_ts = service.panel(key_of(fake), "lobby")
    assert (await do(service, fake, BOB, "join")).ok
    assert (await do(service, fake, ALICE, "end")).ok  # the service forgets the table at once

    lobbies = [c for c in fake.messages_to(CHANNEL) if "opened a table" in c.params["text"]]
    assert len(lobbies) == 1 and lobbies[0].response is not None and lobbies[0].response["ts"] == lobby_ts
    assert lobby_ts is not None
    final = fake.message(CHANNEL, lobby_ts)
    assert final is not None and final["text"].startswith("🃏 This table is closed")
    assert [b["type"] for b in final["blocks"]] == ["section"]  # no buttons left on a closed table
    assert all(c.ok for c in fake.calls("chat.update"))


async def test_a_deleted_panel_is_posted_again(service: Service, fake: FakeSlack) -> None:
    await do(service, fake, ALICE, "start")
    old = service.panel(key_of(fake), "lobby")
    assert old is not None
    client = AsyncWebClient(token=BOT_TOKEN, base_url=fake.api_base)
    await client.chat_delete(channel=CHANNEL, ts=old)

    assert (await do(service, fake, BOB, "join")).ok

    new = service.panel(key_of(fake), "lobby")
    assert new is not None and new != old
    message = fake.message(CHANNEL, new)
    assert message is not None and "<@U0BOB>" in message["text"]


async def test_a_serial_that_cannot_be_dmed_is_shown_ephemerally(service: Service, fake: FakeSlack) -> None:
    fake.fail_dm(BOB, stage="open")  # e.g. cannot_dm_bot
    await do(service, fake, ALICE, "start")
    await do(service, fake, BOB, "join")
    await do(service, fake, ALICE, "deal")
    table = service.table(key_of(fake))
    assert table is not None and serial_match(table).live_round is not None

    [ephemeral] = fake.ephemerals_to(BOB)
    assert ephemeral.params["channel"] == CHANNEL
    assert live_round(table).serials[BOB].digits in ephemeral.params["text"]
    assert fake.dms_to(BOB) == [] and len(fake.dms_to(ALICE)) == 1


async def test_waiting_panel_updates_coalesce_and_the_latest_state_wins(service: Service, fake: FakeSlack) -> None:
    await do(service, fake, ALICE, "start")
    lobby_ts = service.panel(key_of(fake), "lobby")
    assert lobby_ts is not None
    fake.hold("chat.update")  # the first lobby edit stalls on Slack; the next ones queue behind it
    players = [f"U0P{i}" for i in range(5)]
    for player in players:  # each join answers at once: deliver() only queues
        reply = await asyncio.wait_for(service.handle(Command("join", key_of(fake), Actor(player, player))), 5)
        assert reply.ok
    await fake.wait_for(lambda: fake.calls("chat.update"))
    fake.release("chat.update")
    await service.drain()
    notifier = service.rt.notifier
    assert isinstance(notifier, SlackNotifier)
    await notifier.idle()

    updates = fake.calls("chat.update")
    assert len(updates) == 2  # the held edit, then one edit carrying the four joins that waited
    final = fake.message(CHANNEL, lobby_ts)
    assert final is not None and all(f"<@{p}>" in final["text"] for p in players)
    assert notifier.outboxes.coalesced == 3


async def test_no_table_message_is_drawn_before_its_commit_is_durable(service: Service, fake: FakeSlack,
                                                                      tmp_path: Path) -> None:
    # Straight from the service (no Slack listener, so no answer holds the table back): what Slack is
    # asked to show about a move comes after the move is in the file.
    db = tmp_path / "liars.sqlite3"
    for user, name in ((ALICE, "start"), (BOB, "join"), (CAROL, "join"), (ALICE, "deal")):
        await do(service, fake, user, name)
    table = service.table(key_of(fake))
    assert table is not None and table.to_act is not None
    opener, stored = table.to_act, event_count(db)
    seen: list[tuple[str, int]] = []  # (what Slack was asked to show, events in the file at that moment)

    def observe(call: ApiCall | ResponseUrlPost) -> None:
        if getattr(call, "method", None) in ("chat.postMessage", "chat.update"):
            seen.append((str(getattr(call, "params", {}).get("text")), event_count(db)))
    fake.observers.append(observe)
    blocker = sqlite3.connect(db, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")  # another writer: the bid cannot be stored yet
    try:
        bid = asyncio.create_task(do(service, fake, opener, "bid", "1", "9"))
        await asyncio.sleep(0.3)
        assert not bid.done() and not [t for t, _ in seen if "1 nine" in t]  # nothing drawn while not stored
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    assert (await bid).text == "Bid placed."
    drawn = [n for t, n in seen if "1 nine" in t]
    assert drawn and all(n == stored + 1 for n in drawn)  # each drawing of the bid: the bid was in the file


async def test_a_hold_keeps_the_table_back_until_released_or_timed_out(service: Service, fake: FakeSlack) -> None:
    notifier = service.rt.notifier
    assert isinstance(notifier, SlackNotifier)
    await do(service, fake, ALICE, "start")
    edits = len(fake.calls("chat.update"))
    release = notifier.hold(key_of(fake))  # what a listener does while it answers the person who acted
    assert (await service.handle(Command("join", key_of(fake), Actor(BOB, "bob")))).ok
    for _ in range(50):
        await asyncio.sleep(0)
    assert len(fake.calls("chat.update")) == edits  # the lobby edit waits for the release
    release()
    await service.drain()
    await notifier.idle()
    assert len(fake.calls("chat.update")) == edits + 1

    notifier.hold_limit = 0.05
    notifier.hold(key_of(fake))  # never released: the table goes on after hold_limit
    assert (await service.handle(Command("join", key_of(fake), Actor(CAROL, "carol")))).ok
    await asyncio.wait_for(service.drain(), 5)
    await notifier.idle()
    assert len(fake.calls("chat.update")) == edits + 2


async def test_a_panel_message_another_process_posted_is_the_one_edited(service: Service, fake: FakeSlack) -> None:
    """This process posted the lobby; another process posted it anew (the service caught up with the
    stored ref): the next edit goes to the other process's message, not to this process's older one."""
    await do(service, fake, ALICE, "start")
    mine = service.panel(key_of(fake), "lobby")
    assert mine is not None
    client = AsyncWebClient(token=BOT_TOKEN, base_url=fake.api_base)
    theirs = str((await client.chat_postMessage(channel=CHANNEL, text="the lobby, as another process posted it"))["ts"])
    table = service.table(key_of(fake))
    assert table is not None
    service.rt.panels.adopt(key_of(fake), table.id, {"lobby": theirs})  # what catching up from the store does

    assert (await do(service, fake, BOB, "join")).ok
    edited = fake.message(CHANNEL, theirs)
    assert edited is not None and "<@U0BOB>" in edited["text"]
    old = fake.message(CHANNEL, mine)
    assert old is not None and "<@U0BOB>" not in old["text"]
    assert (await do(service, fake, CAROL, "join")).ok  # and it stays the message edited
    assert "<@U0CAROL>" in (fake.message(CHANNEL, theirs) or {}).get("text", "")


async def test_a_move_and_its_turn_ping_cost_one_write_transaction(service: Service, fake: FakeSlack) -> None:
    """Each bid is stored in one write transaction (the store's own counter); the turn ping that follows,
    posted anew (a mention notifies only in a new message) with the previous ping deleted, stores nothing."""
    await do(service, fake, ALICE, "start")
    await do(service, fake, BOB, "join")
    await do(service, fake, ALICE, "deal")
    store = service.store
    assert isinstance(store, SqliteStore)
    for quantity in (1, 2, 3):
        table = service.table(key_of(fake))
        assert table is not None and table.to_act is not None
        ping = service.panel(key_of(fake), "turn")
        before = store.transactions
        assert (await do(service, fake, table.to_act, "bid", str(quantity), "9")).ok
        new_ping = service.panel(key_of(fake), "turn")
        assert new_ping is not None and new_ping != ping
        posted = fake.message(CHANNEL, new_ping)
        assert posted is not None and f"<@{table.to_act}>" in posted["text"]
        if ping is not None:
            assert fake.message(CHANNEL, ping) is None  # the previous ping is gone
        assert store.transactions - before == 1


async def test_a_table_message_another_process_is_still_posting_is_not_drawn_over_the_last(
        service: Service, fake: FakeSlack) -> None:
    """Another worker dealt the round and its new table message is not stored yet (its post is slow): this
    worker's move edited the last round's message instead (and left the new one at its opening)."""
    table, last = await dealt_marked_elsewhere(service, fake)
    before = (fake.message(CHANNEL, last) or {}).get("text")
    posts = len(fake.calls("chat.postMessage"))
    to_act = table.to_act
    assert to_act is not None
    assert (await do(service, fake, to_act, "bid", "1", "9")).ok
    assert (fake.message(CHANNEL, last) or {}).get("text") == before  # the last round's message is left alone
    new = [c for c in fake.calls("chat.postMessage")[posts:] if (c.params.get("blocks") or c.params.get("text"))
           and "Round" in str(c.params.get("text"))]
    assert new == []  # nor is a second message posted for the round the other worker is posting


async def test_a_table_closed_by_another_worker_loses_its_buttons(service: Service, fake: FakeSlack,
                                                                  tmp_path: Path) -> None:
    """Play through one worker, `end` through another: the table message kept Raise…, My serial and Odds
    (only the worker that had drawn it took them off)."""
    assert (await do(service, fake, ALICE, "start")).ok
    assert (await do(service, fake, BOB, "join")).ok
    assert (await do(service, fake, ALICE, "deal")).ok
    ref = service.panel(key_of(fake), "table")
    assert ref is not None and (fake.message(CHANNEL, ref) or {}).get("blocks")
    store = await open_store(str(tmp_path / "liars.sqlite3"))  # the other worker: its own store, panels, notifier
    panels = Panels(store)
    notifier = SlackNotifier(AsyncWebClient(token=BOT_TOKEN, base_url=fake.api_base), panels)
    other = Service(store, notifier, panels=panels, rng=random.Random(4), platform="slack")
    await other.start()
    try:
        assert (await do(other, fake, ALICE, "end", admin=True)).ok
    finally:
        await other.drain()
        await notifier.close()
        await other.close()
    blocks = (fake.message(CHANNEL, ref) or {}).get("blocks") or []
    assert blocks and not [b for b in blocks if b.get("type") == "actions"], blocks  # the text stays, no buttons


async def test_a_closing_table_message_is_drawn_even_while_another_worker_posts_the_round(
        service: Service, fake: FakeSlack) -> None:
    """The mark for a round another worker is still posting kept even the closed table's drawing back: the
    message kept its buttons and its opening state through the close."""
    _, last = await dealt_marked_elsewhere(service, fake)
    assert (await do(service, fake, ALICE, "end", admin=True)).ok
    blocks = (fake.message(CHANNEL, last) or {}).get("blocks") or []
    assert blocks and not [b for b in blocks if b.get("type") == "actions"], blocks


async def dealt_marked_elsewhere(service: Service, fake: FakeSlack) -> tuple[TableState, str]:
    """A dealt table whose table message (its id returned) the panel book holds as the last round's, as catching up
    with another worker's deal leaves it while that worker's new message is not stored yet."""
    assert (await do(service, fake, ALICE, "start")).ok
    assert (await do(service, fake, BOB, "join")).ok
    assert (await do(service, fake, ALICE, "deal")).ok
    table = service.table(key_of(fake))
    assert table is not None
    last = service.panel(key_of(fake), "table")
    assert last is not None
    service.rt.panels.adopt(key_of(fake), table.id, {"table": last}, dealt_elsewhere=True)
    return table, last


async def test_a_round_ending_message_is_not_drawn_into_the_last_rounds_either(service: Service,
                                                                              fake: FakeSlack) -> None:
    """Only a closing table's message passes the mark: a round's end ("Counted — see the result below", no
    buttons) went into the last round's message too."""
    table, last = await dealt_marked_elsewhere(service, fake)
    before = (fake.message(CHANNEL, last) or {}).get("text")
    assert table.to_act is not None
    assert (await do(service, fake, table.to_act, "bid", "1", "9")).ok
    now = service.table(key_of(fake))
    assert now is not None and now.to_act is not None
    assert (await do(service, fake, now.to_act, "challenge")).ok  # counted
    assert (fake.message(CHANNEL, last) or {}).get("text") == before
