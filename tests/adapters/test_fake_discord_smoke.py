"""Smoke tests: the real discord.py (AutoShardedBot + app_commands) against FakeDiscord.

The bot here is a throwaway that exercises what the real adapter will need: slash
subcommands in an ``app_commands.Group``, ephemeral replies, DMs (and DM failure),
a persistent view (button + select) and a DynamicItem that keep working across a bot
restart, and deferred replies with followups.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import aiohttp
import discord
import pytest
import pytest_asyncio
from discord import app_commands
from discord.ext import commands

from tests.fakes.discord_server import (
    FakeChannel,
    FakeDiscord,
    FakeGuild,
    FakeUser,
    Perm,
    point_discord_at,
    start_bot,
    stop_bot,
)

pytestmark = pytest.mark.asyncio


# --------------------------------------------------------------------------- throwaway bot


class LobbyView(discord.ui.View):
    """Persistent: timeout=None and fixed custom ids, registered with ``bot.add_view``."""

    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.button(label="Join", style=discord.ButtonStyle.primary, custom_id="liars:join")
    async def join(self, interaction: discord.Interaction, button: discord.ui.Button[LobbyView]) -> None:
        await interaction.response.send_message(f"joined:{interaction.user.id}", ephemeral=True)

    @discord.ui.select(
        custom_id="liars:pick",
        placeholder="Pick a number",
        options=[discord.SelectOption(label=str(n), value=str(n)) for n in (1, 2, 3)],
    )
    async def pick(self, interaction: discord.Interaction, select: discord.ui.Select[LobbyView]) -> None:
        await interaction.response.send_message(f"picked:{','.join(select.values)}", ephemeral=True)


class VoteButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"liars:vote:(?P<n>\d+)"):
    def __init__(self, n: int) -> None:
        super().__init__(discord.ui.Button(label=f"Vote {n}", custom_id=f"liars:vote:{n}"))
        self.n = n

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> VoteButton:
        return cls(int(match["n"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await interaction.response.edit_message(content=f"vote {self.n} by {interaction.user.id}")


class LiarsGroup(app_commands.Group, name="liars", description="Liar's Poker"):
    @app_commands.command(name="ping", description="Check the bot is alive")
    async def ping(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("pong", ephemeral=True)

    @app_commands.command(name="announce", description="DM a player and post a lobby")
    @app_commands.describe(target="Who to invite")
    async def announce(self, interaction: discord.Interaction, target: discord.User) -> None:
        bot = interaction.client
        assert isinstance(bot, SmokeBot)
        dm_ok = True
        try:
            await target.send(f"You are invited by {interaction.user.id}")
        except discord.Forbidden as exc:
            bot.dm_errors.append(exc)
            dm_ok = False
        view = LobbyView()
        view.add_item(VoteButton(1))
        assert isinstance(interaction.channel, discord.TextChannel)
        msg = await interaction.channel.send("Lobby open", view=view)
        bot.lobby_ids.append(msg.id)
        await interaction.response.send_message("announced" if dm_ok else "could not DM", ephemeral=True)

    @app_commands.command(name="slow", description="Deferred reply with followups")
    async def slow(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        await interaction.followup.send("first", ephemeral=True)
        await interaction.followup.send("second", ephemeral=True)
        await interaction.edit_original_response(content="first (edited)")

    @app_commands.command(name="admin", description="Needs Manage Server")
    @app_commands.default_permissions(manage_guild=True)
    async def admin(self, interaction: discord.Interaction) -> None:
        allowed = interaction.permissions.manage_guild
        await interaction.response.send_message(f"manage_guild={allowed}", ephemeral=True)


class SmokeBot(commands.AutoShardedBot):
    def __init__(self, guild_id: int) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=discord.Intents.default(),
            help_command=None,
            guild_ready_timeout=0.1,  # on_ready waits this long after the last GUILD_CREATE
        )
        self.guild_id = guild_id
        self.dm_errors: list[discord.HTTPException] = []
        self.lobby_ids: list[int] = []
        self.synced_global: list[app_commands.AppCommand] = []
        self.synced_guild: list[app_commands.AppCommand] = []
        self.resumed = asyncio.Event()

    async def setup_hook(self) -> None:
        self.tree.add_command(LiarsGroup())
        self.add_view(LobbyView())
        self.add_dynamic_items(VoteButton)
        guild = discord.Object(id=self.guild_id)
        self.tree.copy_global_to(guild=guild)
        self.synced_guild = await self.tree.sync(guild=guild)
        self.synced_global = await self.tree.sync()

    async def on_resumed(self) -> None:
        self.resumed.set()


# --------------------------------------------------------------------------- fixtures


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture(autouse=True)
def no_discord_errors() -> Iterator[list[logging.LogRecord]]:
    """Fail the test on any ERROR record from discord.* (or asyncio, e.g. lost task errors)."""
    handler = _Collect()
    loggers = [logging.getLogger("discord"), logging.getLogger("asyncio")]
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
class World:
    fake: FakeDiscord
    guild: FakeGuild
    channel: FakeChannel
    alice: FakeUser
    bob: FakeUser


@pytest_asyncio.fixture
async def world() -> AsyncIterator[World]:
    fake = FakeDiscord()
    guild = fake.add_guild("Liars Test")
    alice = fake.add_user("alice")
    bob = fake.add_user("bob")
    fake.add_member(guild.id, alice.id)
    fake.add_member(guild.id, bob.id)
    await fake.start()
    try:
        with point_discord_at(fake):
            yield World(fake, guild, guild.channel("general"), alice, bob)
    finally:
        await fake.stop()
    assert not fake.unknown_requests, fake.unknown_requests
    assert not fake.internal_errors, fake.internal_errors


@pytest_asyncio.fixture
async def bot(world: World) -> AsyncIterator[SmokeBot]:
    client = SmokeBot(world.guild.id)
    task = await start_bot(client, world.fake)
    try:
        yield client
    finally:
        await stop_bot(client, task)


# --------------------------------------------------------------------------- tests


async def test_connects_ready_and_syncs_commands(world: World, bot: SmokeBot) -> None:
    fake = world.fake
    assert bot.is_ready()
    assert bot.user is not None and bot.user.id == fake.bot_user.id
    assert bot.application_id == fake.application_id
    assert bot.shard_count == 1
    guild = bot.get_guild(world.guild.id)
    assert guild is not None and guild.name == "Liars Test"
    assert guild.get_channel(world.channel.id) is not None
    assert guild.me is not None and guild.me.guild_permissions.send_messages
    assert fake.identify_count == 1 and len(fake.live_sessions) == 1

    # Both syncs returned commands with the ids the fake assigned.
    global_cmd = fake.commands[None][("liars", 1)]
    guild_cmd = fake.commands[world.guild.id][("liars", 1)]
    assert [c.id for c in bot.synced_global] == [int(global_cmd["id"])]
    assert [c.id for c in bot.synced_guild] == [int(guild_cmd["id"])]
    subs = {o["name"] for o in global_cmd["options"]}
    assert subs == {"ping", "announce", "slow", "admin"}

    # JSON responses carry exactly "application/json" (discord.py compares with ==).
    async with aiohttp.ClientSession() as session:
        headers = {"Authorization": f"Bot {fake.token}"}
        async with session.get(f"{fake.api_base}/users/@me", headers=headers) as resp:
            assert resp.headers["Content-Type"] == "application/json"
        async with session.get(f"{fake.api_base}/users/@me") as resp:
            assert resp.status == 401


async def test_slash_ping_is_ephemeral_in_guild_and_dm(world: World, bot: SmokeBot) -> None:
    fake = world.fake
    iid = await fake.send_slash(world.alice.id, world.guild.id, world.channel.id, "liars", "ping", {})
    cb = await fake.wait_for_callback(iid)
    assert cb.type == 4 and cb.ephemeral and cb.content == "pong"
    [reply] = fake.interaction_responses(iid)
    assert reply.ephemeral and reply.content == "pong" and reply.channel_id == world.channel.id
    # Ephemeral replies are invisible to channel routes.
    with pytest.raises(discord.NotFound):
        await bot.http.delete_message(world.channel.id, reply.id)

    dm_iid = await fake.send_dm_slash(world.bob.id, "liars", "ping")
    dm_cb = await fake.wait_for_callback(dm_iid)
    assert dm_cb.content == "pong"
    [dm_reply] = fake.interaction_responses(dm_iid)
    assert dm_reply.is_dm and dm_reply.dm_recipient_id == world.bob.id


async def test_member_permissions_reach_the_bot(world: World, bot: SmokeBot) -> None:
    fake = world.fake
    iid = await fake.send_slash(world.alice.id, world.guild.id, world.channel.id, "liars", "admin", {})
    assert (await fake.wait_for_callback(iid)).content == "manage_guild=False"
    iid = await fake.send_slash(
        world.alice.id,
        world.guild.id,
        world.channel.id,
        "liars",
        "admin",
        {},
        member_permissions=Perm.MANAGE_GUILD | Perm.VIEW_CHANNEL,
    )
    assert (await fake.wait_for_callback(iid)).content == "manage_guild=True"


async def test_dm_lobby_and_components_survive_restart(world: World) -> None:
    fake = world.fake
    first = SmokeBot(world.guild.id)
    task = await start_bot(first, fake)
    try:
        iid = await fake.send_slash(
            world.alice.id, world.guild.id, world.channel.id, "liars", "announce", {"target": world.bob.id}
        )
        cb = await fake.wait_for_callback(iid)
        assert cb.content == "announced" and cb.ephemeral
        [dm] = fake.dms_to(world.bob.id)
        assert dm.content == f"You are invited by {world.alice.id}" and not dm.ephemeral
        [lobby] = [m for m in fake.messages_in(world.channel.id) if m.content == "Lobby open"]
        assert lobby.id == first.lobby_ids[0]
        assert set(lobby.custom_ids()) == {"liars:join", "liars:pick", "liars:vote:1"}
    finally:
        await stop_bot(first, task)
    assert not fake.live_sessions

    # A brand-new bot object (same process state as after a restart) handles old components.
    second = SmokeBot(world.guild.id)
    task = await start_bot(second, fake)
    try:
        assert fake.identify_count == 2
        click = await fake.click_button(world.bob.id, world.guild.id, world.channel.id, lobby.id, "liars:join")
        assert (await fake.wait_for_callback(click)).content == f"joined:{world.bob.id}"

        pick = await fake.select(world.bob.id, world.guild.id, world.channel.id, lobby.id, "liars:pick", ["2"])
        assert (await fake.wait_for_callback(pick)).content == "picked:2"

        vote = await fake.click_button(world.alice.id, world.guild.id, world.channel.id, lobby.id, "liars:vote:1")
        vote_cb = await fake.wait_for_callback(vote)
        assert vote_cb.type == 7  # UPDATE_MESSAGE edits the lobby message in place
        assert fake.get_message(lobby.id).content == f"vote 1 by {world.alice.id}"
        assert fake.get_message(lobby.id).edit_count == 1
    finally:
        await stop_bot(second, task)


async def test_dm_failure_surfaces_as_forbidden(world: World, bot: SmokeBot) -> None:
    fake = world.fake
    fake.block_dms(world.bob.id)
    iid = await fake.send_slash(
        world.alice.id, world.guild.id, world.channel.id, "liars", "announce", {"target": world.bob.id}
    )
    assert (await fake.wait_for_callback(iid)).content == "could not DM"
    [err] = bot.dm_errors
    assert isinstance(err, discord.Forbidden)
    assert err.status == 403 and err.code == 50007 and err.text == "Cannot send messages to this user"
    assert fake.dms_to(world.bob.id) == []
    assert len(fake.blocked_dm_attempts(world.bob.id)) == 1


async def test_deferred_followups(world: World, bot: SmokeBot) -> None:
    fake = world.fake
    slow = await fake.send_slash(world.alice.id, world.guild.id, world.channel.id, "liars", "slow", {})
    await fake.wait_for(lambda: any(m.content == "first (edited)" for m in fake.interaction_responses(slow)))
    responses = fake.interaction_responses(slow)
    assert [m.content for m in responses] == ["first (edited)", "second"]
    assert all(m.ephemeral and not m.loading for m in responses)
    assert responses[0].is_original_response
    assert fake.callbacks_for(slow)[0].type == 5
