"""The slash commands as Discord receives them: the real bot syncs its discord.py command tree to the fake
Discord, which refuses a description over 100 characters as Discord does, and every subcommand's
description arrives whole — a command whose usage line is longer (``start``, ``config``, a plug-in's
own) shows its brief, never a line cut with "…" — while ``help`` still lists the full usage line."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from bot.commands import commands
from core.commands import HELP_MAX, CommandSpec, Section
from core.registry import register, unregister
from tests.conformance.guess import GuessGame
from tests.e2e import discord_helpers
from tests.e2e.discord_helpers import Harness

world = discord_helpers.world
no_errors = discord_helpers.no_errors

LONG = ("peek at one card of the deck: 'peek top' or 'peek bottom', once a round, before your first guess, "
        "at no cost")


class PeekGame(GuessGame):  # a plug-in whose own command's line is too long for Discord
    name = "peek"
    title = "Peek"
    commands: tuple[CommandSpec, ...] = (*GuessGame.commands,
                                         CommandSpec("peek", LONG, Section.READ, changes=False,
                                                     brief="peek at one card of the deck, once a round"))


@pytest.fixture
def peek() -> Iterator[None]:
    register(PeekGame())
    yield
    unregister("peek")


def capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


async def test_every_slash_command_is_described_whole(world: Harness, peek: None) -> None:
    h = world
    await h.start()
    synced = {o["name"]: o for c in h.fake.commands[None].values() for o in c["options"]}
    specs = commands()
    assert set(synced) == set(specs) and len(LONG) > HELP_MAX
    for name, sub in synced.items():
        description = sub["description"]
        assert description == capitalised(specs[name].short) and not description.endswith("…"), description
        assert 0 < len(description) <= HELP_MAX
    assert synced["start"]["description"] == ("Open a table here: its game, rules, format, stake, seats, computer "
                                              "players and their level")
    assert synced["config"]["description"] == ("Server settings (admin): default rules and stake, unit value, "
                                               "currency, timeouts, history")
    assert synced["peek"]["description"] == "Peek at one card of the deck, once a round"
    # help, on Discord too, lists each command's full line: the usage words Discord's description leaves out
    listed = (await h.ask(h.alice, "help")).content
    for name in ("start", "config"):
        assert f"• `{name}` — {specs[name].help}" in listed


async def test_a_subcommand_discord_still_offers_but_the_bot_dropped_gets_a_plain_answer(
        world: Harness, caplog: pytest.LogCaptureFixture) -> None:
    """A client with a stale command list sent a subcommand the bot no longer declares: "Sorry, something went
    wrong on my side" and an ERROR with a traceback."""
    h = world
    await h.start()
    iid = await h.fake.send_stale_slash(h.alice.id, h.guild.id, h.channel.id, "liars", "guess")
    answer = await h.response(iid)
    assert answer.ephemeral and answer.text().startswith("That command is not one this bot has any more"), \
        answer.text()
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
