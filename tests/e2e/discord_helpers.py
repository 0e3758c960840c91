"""Shared pieces of the Discord end-to-end tests: a fake Discord with three members, the real bot
(``bot.bootstrap.discord_bot`` → ``LiarsBot``) on a real SQLite file, and small drivers for slash commands, buttons
and the Raise… form.

The fixtures are imported by the test modules (``from tests.e2e.discord_helpers import …``).
"""

from __future__ import annotations

import logging
import random
import re
from collections.abc import AsyncIterator, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from adapters.discord.bot import LiarsBot
from adapters.discord.commands import top_level
from adapters.discord.config import DiscordConfig
from adapters.discord.notifier import DiscordNotifier
from bot.bootstrap import discord_bot
from bot.model import TableKey
from bot.service import Service
from core.serial import Serial
from tests.fakes.discord_server import (
    FakeChannel,
    FakeDiscord,
    FakeGuild,
    FakeUser,
    Perm,
    RecordedMessage,
    point_discord_at,
    start_bot,
    stop_bot,
)
from tests.typed import live_round

__all__ = ["Harness", "assert_no_serial_before_count", "ledger_rows", "no_errors", "serials_in_dms", "world"]

SERIAL_IN_DM = re.compile(r"Your serial for round (\d+) at <#\d+>: \*\*([^*]+)\*\*")
LEDGER_ROW = re.compile(r"• (\S+): ([+-]?\d+) units?")

AT_TURN = frozenset({"challenge", "count", "take", "pass"})
"""The table buttons whose ids carry the turn (``Control.at_turn``): the games' moves that answer the table as drawn."""


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture(autouse=True)
def no_errors() -> Iterator[list[logging.LogRecord]]:
    """Fail the test on any ERROR record from discord.* (discord.py only logs what fails in a callback),
    asyncio (lost task errors), the adapter or the service.  A test that provokes an error on purpose
    takes its records out of the yielded list."""
    handler = _Collect()
    loggers = [logging.getLogger(n) for n in ("discord", "asyncio", "adapters.discord", "bot")]
    for lg in loggers:
        lg.addHandler(handler)
    try:
        yield handler.records
    finally:
        for lg in loggers:
            lg.removeHandler(handler)
    problems = [f"{r.name}: {r.getMessage()}\n{r.exc_text or ''}" for r in handler.records]
    assert not problems, "ERROR log records:\n" + "\n".join(problems)


@dataclass
class Harness:
    """A fake Discord with one server (#general) and three members, and the bot under test."""

    fake: FakeDiscord
    guild: FakeGuild
    channel: FakeChannel
    alice: FakeUser  # Manage Server, through a "Mods" role
    bob: FakeUser
    carol: FakeUser
    db_path: Path
    seed: int = 7
    bot: LiarsBot | None = None
    _task: Any = None
    _bots: list[LiarsBot] = field(default_factory=list)

    @property
    def key(self) -> TableKey:
        return TableKey("discord", str(self.guild.id), str(self.channel.id))

    @property
    def users(self) -> list[FakeUser]:
        return [self.alice, self.bob, self.carol]

    def user(self, uid: str | int | None) -> FakeUser:
        """The member with this id (a round's ``to_act``: there must be someone to act)."""
        assert uid is not None
        return next(u for u in self.users if u.id == int(uid))

    # -- the bot's life ----------------------------------------------------------------------------
    layout: str = "classic"  # the older tests read the classic layout; test_discord_layout reads V2

    async def start(self, **options: Any) -> LiarsBot:
        config = DiscordConfig(token=self.fake.token, db_path=str(self.db_path), layout=self.layout)
        bot = await discord_bot(config, rng=random.Random(self.seed), computer_delay=0.0,
                               guild_ready_timeout=0.1, **options)
        self._task = await start_bot(bot, self.fake)
        self.bot = bot
        return bot

    async def stop(self) -> None:
        if self.bot is not None:
            await stop_bot(self.bot, self._task)
            await self.bot.service.close()
            self.bot = None

    async def restart(self) -> LiarsBot:
        """A new process in all but name: new service on the same database, new client."""
        await self.stop()
        self.seed += 1000
        return await self.start()

    @property
    def live_bot(self) -> LiarsBot:
        """The bot (started)."""
        assert self.bot is not None
        return self.bot

    @property
    def service(self) -> Service:
        return self.live_bot.service

    @property
    def notifier(self) -> DiscordNotifier:
        """The notifier the service delivers through: the bot's own."""
        notifier = self.service.rt.notifier
        assert isinstance(notifier, DiscordNotifier)
        return notifier

    # -- driving -----------------------------------------------------------------------------------
    async def slash(self, user: FakeUser, sub: str, member_permissions: int | None = None, **options: Any) -> int:
        """``/liars <sub>``, or ``/liars-books <sub>`` for the books (the top-level command the bot puts it under)."""
        return await self.fake.send_slash(user.id, self.guild.id, self.channel.id, top_level(sub), sub, options,
                                          member_permissions=member_permissions)

    async def click(self, user: FakeUser, message: RecordedMessage, custom_id: str) -> int:
        return await self.fake.click_button(user.id, self.guild.id, self.channel.id, message.id, custom_id)

    async def pick(self, user: FakeUser, message: RecordedMessage, custom_id: str, value: str) -> int:
        return await self.fake.select(user.id, self.guild.id, self.channel.id, message.id, custom_id, [value])

    async def response(self, iid: int) -> RecordedMessage:
        """The (first) message answering an interaction, once it is no longer "thinking"."""

        def done() -> RecordedMessage | None:
            return next((m for m in self.fake.interaction_responses(iid) if not m.loading), None)

        answer = await self.fake.wait_for(done)
        await self.service.drain()  # the table's messages go out after the answer, off the table's lock
        return answer

    async def ask(self, user: FakeUser, sub: str, **options: Any) -> RecordedMessage:
        return await self.response(await self.slash(user, sub, **options))

    async def press(self, user: FakeUser, message: RecordedMessage, custom_id: str) -> RecordedMessage:
        return await self.response(await self.click(user, message, custom_id))

    @property
    def where(self) -> str:
        """A component id's table part: the channel, and the table it was drawn for (the one here now)."""
        table = self.service.table(self.key)
        return f"{self.channel.id}.{table.id}" if table is not None else str(self.channel.id)

    @property
    def form_where(self) -> str:
        """A form component's (or an ``AT_TURN`` table button's) id's table part: the channel, the table, and the
        turn under way (what is drawn now carries the turn it was drawn at)."""
        table = self.service.table(self.key)
        assert table is not None
        return f"{self.where}.{table.turn}"

    def button(self, action: str) -> str:
        """A table button's id as drawn now: a move on the table as its message shows it carries the turn too."""
        return f"liars:{action}:{self.guild.id}:{self.form_where if action in AT_TURN else self.where}"

    def panel(self, name: str) -> RecordedMessage:
        ref = self.service.panel(self.key, name)
        assert ref is not None, f"no {name} panel"
        return self.fake.get_message(int(ref))

    def to_act(self) -> FakeUser:
        to_act = live_round(self.service.table(self.key)).to_act
        assert to_act is not None
        return self.user(to_act)

    def after(self, user: FakeUser) -> FakeUser:
        return self.user(live_round(self.service.table(self.key)).next_player(str(user.id)))

    def channel_messages(self) -> list[RecordedMessage]:
        """What everyone in #general sees: the channel's messages, ephemeral replies left out."""
        return [m for m in self.fake.messages_in(self.channel.id) if not m.ephemeral and not m.deleted]

    async def open_table(self) -> None:
        """alice opens, bob joins by button, carol by command; alice deals.  Returns once dealt."""
        opened = await self.ask(self.alice, "start")
        assert opened.ephemeral and "You opened a table" in opened.content, opened.content
        lobby = self.panel("lobby")
        joined = await self.press(self.bob, lobby, self.button("join"))
        assert joined.ephemeral and "You are seated (2/" in joined.content
        joined = await self.ask(self.carol, "join")
        assert joined.ephemeral and "You are seated (3/" in joined.content
        dealt = await self.press(self.alice, self.panel("lobby"), self.button("deal"))
        assert dealt.ephemeral and "Dealt" in dealt.content, dealt.content

    async def wait_dms(self, round_number: int, users: list[FakeUser] | None = None) -> dict[int, str]:
        """Each user's serial for this round, read from the DM the bot sent them."""
        users = users or self.users

        def got() -> dict[int, str] | None:
            found = {}
            for u in users:
                serials = serials_in_dms(self.fake.dms_to(u.id))
                if round_number in serials:
                    found[u.id] = serials[round_number]
            return found if len(found) == len(users) else None

        return await self.fake.wait_for(got)

    async def pick_bid(self, user: FakeUser, quantity: int, digit: int,
                       form: RecordedMessage | None = None) -> tuple[RecordedMessage, str]:
        """Choose a bid on the Raise… form (opened by the table message's button unless given), not yet sent: the
        form and its send button's id."""
        if form is None:
            form = await self.press(user, self.panel("table"), self.button("open-bid"))
        assert form.ephemeral
        g, c = self.guild.id, self.form_where
        before = form.edit_count
        await self.pick(user, form, f"liars:pick-bid-1:{g}:{c}", str(quantity))
        await self.fake.wait_for(lambda: form.edit_count > before)
        await self.pick(user, form, f"liars:pick-bid-2:{g}:{c}", str(digit))
        await self.fake.wait_for(lambda: form.edit_count > before + 1)
        bid_id = f"liars:go-bid:{g}:{c}:{quantity}:{digit}"
        assert bid_id in form.custom_ids(), form.custom_ids()
        return form, bid_id

    async def raise_bid(self, user: FakeUser, quantity: int, digit: int,
                        form: RecordedMessage | None = None) -> RecordedMessage:
        """Bid through the table message's Raise… button and the ephemeral form it opens."""
        form, bid_id = await self.pick_bid(user, quantity, digit, form)
        before = form.edit_count
        await self.click(user, form, bid_id)
        await self.fake.wait_for(lambda: form.edit_count > before)
        await self.service.drain()
        return form


def serials_in_texts(texts: Iterable[str]) -> dict[int, str]:
    """round number → the serial's digits, from the texts of serial DMs."""
    out = {}
    for text in texts:
        for number, serial in SERIAL_IN_DM.findall(text):
            out[int(number)] = Serial.parse(serial).digits
    return out


def serials_in_dms(dms: list[RecordedMessage]) -> dict[int, str]:
    return serials_in_texts(m.content for m in dms)


def assert_no_serial_before_count(h: Harness) -> int:
    """No message posted or edited in a guild channel, and no non-ephemeral interaction response,
    shows a serial of a round before that round's count message.  Returns how many rounds it checked.

    The serials are read from every DM the bot sent or tried to send (a refused DM is recorded too)."""
    rounds: dict[int, set[str]] = {}
    for u in h.users:
        for number, digits in serials_in_dms(h.fake.dms_to(u.id)).items():
            rounds.setdefault(number, set()).add(digits)
    for attempt in h.fake.blocked_dm_attempts():
        for number, digits in serials_in_texts([str(attempt.body.get("content") or "")]).items():
            rounds.setdefault(number, set()).add(digits)
    assert rounds, "no serial was dealt"
    counted = 0
    public = 0
    for action in h.fake.actions:
        if action.kind not in ("create", "edit") or action.message_id is None:
            continue
        msg = h.fake.get_message(action.message_id)
        if msg.is_dm or msg.ephemeral:
            continue
        public += 1
        text = str(action.body.get("content") or "") + str(action.body.get("embeds") or "")
        if "**The count**" in text:
            counted += 1
        for number, serials in rounds.items():
            if number > counted:
                leaked = [s for s in serials if s in text]
                assert not leaked, f"round {number} serial {leaked} shown publicly before its count: {text!r}"
    assert public > 0
    return len(rounds)


def ledger_rows(text: str) -> dict[str, int]:
    """``{name: units this period}`` from the ledger reply."""
    return {name: int(units) for name, units in LEDGER_ROW.findall(text)}


@pytest_asyncio.fixture
async def world(tmp_path: Path) -> AsyncIterator[Harness]:
    fake = FakeDiscord()
    guild = fake.add_guild("Liars Test")
    mods = fake.add_role(guild.id, "Mods", Perm.MANAGE_GUILD | Perm.KICK_MEMBERS)
    alice = fake.add_user("alice")
    bob = fake.add_user("bob")
    carol = fake.add_user("carol")
    fake.add_member(guild.id, alice.id, roles=[mods.id])
    fake.add_member(guild.id, bob.id)
    fake.add_member(guild.id, carol.id)
    await fake.start()
    harness = Harness(fake, guild, guild.channel("general"), alice, bob, carol, tmp_path / "liars.sqlite3")
    try:
        with point_discord_at(fake):
            try:
                yield harness
            finally:
                await harness.stop()
    finally:
        await fake.stop()
    assert not fake.unknown_requests, fake.unknown_requests
    assert not fake.internal_errors, fake.internal_errors
