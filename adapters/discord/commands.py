"""The ``/liars`` slash command group: one subcommand per service command.

Each subcommand only collects its options and hands them to ``LiarsBot.execute`` (the one place that
builds the :class:`~bot.model.Command`, calls the service and answers).  Option descriptions and
choices guide the player in Discord's UI; ``bid``'s options autocomplete from the table's legal
bids, with digits named by the table's rank order (``tens (0)`` where zero is high).
"""

from __future__ import annotations

from typing import Any, Protocol, cast

import discord
from discord import app_commands

from bot.model import COMMANDS, TableKey
from bot.settings import MAX_STAKE, MAX_TIMEOUT, MIN_TIMEOUT
from core.registry import GAMES

__all__ = ["LiarsGroup"]

LEVELS = tuple(dict.fromkeys(level for game in GAMES.values() for level in game.levels))
PRESETS = tuple(dict.fromkeys(preset for game in GAMES.values() for preset in game.presets))
MOST_SEATS = max(game.max_players for game in GAMES.values())
PERIOD_CHOICES = 25


class Executor(Protocol):
    """What the commands need from the bot (``LiarsBot``)."""

    async def execute(self, interaction: discord.Interaction[Any], name: str, *, args: tuple[str, ...] = (),
                      options: dict[str, Any] | None = None, key: TableKey | None = None) -> None: ...

    async def bid_choices(self, interaction: discord.Interaction[Any], part: str,
                          current: str) -> list[app_commands.Choice[int]]: ...

    async def period_choices(self, interaction: discord.Interaction[Any],
                             current: str) -> list[app_commands.Choice[str]]: ...


def _bot(interaction: discord.Interaction[Any]) -> Executor:
    return cast(Executor, interaction.client)


def _describe(name: str) -> str:
    text = COMMANDS[name]
    return (text[:1].upper() + text[1:])[:100]


def _given(**options: Any) -> dict[str, Any]:
    return {k: v for k, v in options.items() if v is not None}


PRESET_CHOICES = [app_commands.Choice(name=name, value=name) for name in PRESETS]
LEVEL_CHOICES = [app_commands.Choice(name=name, value=name) for name in LEVELS][:25]
GAME_CHOICES = [app_commands.Choice(name=game.title, value=name) for name, game in GAMES.items()]


class LiarsGroup(app_commands.Group):
    """``/liars …`` — available in servers; in DMs only ``hand`` and ``help`` do anything.

    Discord allows 25 subcommands in a group, so three commands ride on others: ``sheet period:all`` is
    the all-time ledger, ``history file:True`` the exported record, and ``profile`` is ``stats`` (with
    its chart)."""

    def __init__(self) -> None:
        # installed to a server, or to a user: then in group DMs and DMs between friends too (the bot has no
        # seat there: see adapters.discord.links)
        super().__init__(name="liars", description="Liar's Poker: the serial-number game and the card game",
                         allowed_installs=app_commands.AppInstallationType(guild=True, user=True),
                         allowed_contexts=app_commands.AppCommandContext(guild=True, dm_channel=True,
                                                                         private_channel=True))

    # -- the table ---------------------------------------------------------------------------------
    @app_commands.command(name="start", description="Open a table in this channel")
    @app_commands.describe(
        game="Which Liar's Poker: serial numbers (default) or cards",
        preset="Rule set (default: this server's)",
        stake="Units won or lost per player per round",
        seats="Most players at the table",
        computers="Computer players to seat (0-11)",
        level="How well the computer players play",
        options="More rules as name=value words, e.g. rebid=on skunk=on",
    )
    @app_commands.choices(game=GAME_CHOICES, preset=PRESET_CHOICES, level=LEVEL_CHOICES)
    async def start(
        self,
        interaction: discord.Interaction[Any],
        game: str | None = None,
        preset: str | None = None,
        stake: app_commands.Range[int, 1, MAX_STAKE] | None = None,
        seats: app_commands.Range[int, 2, MOST_SEATS] | None = None,
        computers: app_commands.Range[int, 0, MOST_SEATS - 1] | None = None,
        level: str | None = None,
        options: str | None = None,
    ) -> None:
        await _bot(interaction).execute(
            interaction, "start", args=tuple((options or "").split()),
            options=_given(game=game, preset=preset, stake=stake, seats=seats, computers=computers, level=level),
        )

    @app_commands.command(name="join", description=_describe("join"))
    async def join(self, interaction: discord.Interaction[Any]) -> None:
        await _bot(interaction).execute(interaction, "join")

    @app_commands.command(name="leave", description=_describe("leave"))
    async def leave(self, interaction: discord.Interaction[Any]) -> None:
        await _bot(interaction).execute(interaction, "leave")

    @app_commands.command(name="deal", description=_describe("deal"))
    async def deal(self, interaction: discord.Interaction[Any]) -> None:
        await _bot(interaction).execute(interaction, "deal")

    # -- play --------------------------------------------------------------------------------------
    @app_commands.command(name="bid", description="Raise: bid a quantity of one digit, e.g. 5 sevens")
    @app_commands.describe(quantity="How many of the digit, across every serial at the table",
                           digit="Which digit (0-9)")
    async def bid(
        self,
        interaction: discord.Interaction[Any],
        quantity: app_commands.Range[int, 1, 96],
        digit: app_commands.Range[int, 0, 9],
    ) -> None:
        await _bot(interaction).execute(interaction, "bid", options={"quantity": quantity, "digit": digit})

    @bid.autocomplete("quantity")
    async def _bid_quantity(self, interaction: discord.Interaction[Any], current: str) -> list[
        app_commands.Choice[int]
    ]:
        return await _bot(interaction).bid_choices(interaction, "quantity", current)

    @bid.autocomplete("digit")
    async def _bid_digit(self, interaction: discord.Interaction[Any], current: str) -> list[
        app_commands.Choice[int]
    ]:
        return await _bot(interaction).bid_choices(interaction, "digit", current)

    @app_commands.command(name="declare", description="Card game: declare a hand, e.g. two pair sevens over threes")
    @app_commands.describe(hand="What you declare: 'king-ten high', 'pair of aces', 'eights full of fours' …")
    async def declare(self, interaction: discord.Interaction[Any], hand: str) -> None:
        await _bot(interaction).execute(interaction, "declare", args=tuple(hand.split()))

    @app_commands.command(name="take", description=_describe("take"))
    async def take(self, interaction: discord.Interaction[Any]) -> None:
        await _bot(interaction).execute(interaction, "take")

    @app_commands.command(name="discard", description="Card game: discard cards from the hand you took, e.g. JD 3H")
    @app_commands.describe(cards="The cards to throw away, e.g. 'JD 3H' or '10S'")
    async def discard(self, interaction: discord.Interaction[Any], cards: str) -> None:
        await _bot(interaction).execute(interaction, "discard", args=tuple(cards.split()))

    @app_commands.command(name="pass", description=_describe("pass"))
    async def pass_(self, interaction: discord.Interaction[Any]) -> None:
        await _bot(interaction).execute(interaction, "pass")

    @app_commands.command(name="challenge", description=_describe("challenge"))
    async def challenge(self, interaction: discord.Interaction[Any]) -> None:
        await _bot(interaction).execute(interaction, "challenge")

    @app_commands.command(name="count", description=_describe("count"))
    async def count(self, interaction: discord.Interaction[Any]) -> None:
        await _bot(interaction).execute(interaction, "count")

    @app_commands.command(name="hand", description="Show me my serial again, privately (works in DMs too)")
    async def hand(self, interaction: discord.Interaction[Any]) -> None:
        await _bot(interaction).execute(interaction, "hand")

    @app_commands.command(name="odds", description=_describe("odds"))
    async def odds(self, interaction: discord.Interaction[Any]) -> None:
        await _bot(interaction).execute(interaction, "odds")

    @app_commands.command(name="hint", description=_describe("hint"))
    async def hint(self, interaction: discord.Interaction[Any]) -> None:
        await _bot(interaction).execute(interaction, "hint")

    @app_commands.command(name="status", description=_describe("status"))
    async def status(self, interaction: discord.Interaction[Any]) -> None:
        await _bot(interaction).execute(interaction, "status")

    # -- host and admin ----------------------------------------------------------------------------
    @app_commands.command(name="last", description=_describe("last"))
    async def last(self, interaction: discord.Interaction[Any]) -> None:
        await _bot(interaction).execute(interaction, "last")

    @app_commands.command(name="end", description=_describe("end"))
    async def end(self, interaction: discord.Interaction[Any]) -> None:
        await _bot(interaction).execute(interaction, "end")

    @app_commands.command(name="kick", description=_describe("kick"))
    @app_commands.describe(member="The player to remove")
    async def kick(self, interaction: discord.Interaction[Any], member: discord.User) -> None:
        await _bot(interaction).execute(interaction, "kick", options={"member": str(member.id)})

    @app_commands.command(name="rules", description=_describe("rules"))
    async def rules(self, interaction: discord.Interaction[Any]) -> None:
        await _bot(interaction).execute(interaction, "rules")

    @app_commands.command(name="config", description="Server settings; changing them needs Manage Server")
    @app_commands.describe(
        preset="Default rule set for new tables",
        stake="Default stake in units",
        unit_value="What one unit is worth, e.g. 1 or 0.25",
        currency="Currency label, e.g. $ or EUR",
        turn_timeout="Seconds a player has to act (10-86400)",
        lobby_timeout="Seconds a lobby waits for the deal (10-86400)",
        computer_level="Default level of computer players",
        settings="Other settings as name=value words, e.g. rebid=on admins=<@id>",
    )
    @app_commands.choices(preset=PRESET_CHOICES, computer_level=LEVEL_CHOICES)
    async def config(
        self,
        interaction: discord.Interaction[Any],
        preset: str | None = None,
        stake: app_commands.Range[int, 1, MAX_STAKE] | None = None,
        unit_value: str | None = None,
        currency: str | None = None,
        turn_timeout: app_commands.Range[int, MIN_TIMEOUT, MAX_TIMEOUT] | None = None,
        lobby_timeout: app_commands.Range[int, MIN_TIMEOUT, MAX_TIMEOUT] | None = None,
        computer_level: str | None = None,
        settings: str | None = None,
    ) -> None:
        await _bot(interaction).execute(
            interaction, "config", args=tuple((settings or "").split()),
            options=_given(preset=preset, stake=stake, unit_value=unit_value, currency=currency,
                           turn_timeout=turn_timeout, lobby_timeout=lobby_timeout, computer_level=computer_level),
        )

    # -- money and records -------------------------------------------------------------------------
    @app_commands.command(name="sheet", description="A month's balances and the fewest payments that settle it")
    @app_commands.describe(period="The month, YYYY-MM (default: this month); 'all' for the all-time ledger",
                           settle="Mark the month settled (Manage Server); posts the sheet in the channel",
                           chart="Post the balances as a chart in the channel")
    async def sheet(self, interaction: discord.Interaction[Any], period: str | None = None,
                    settle: bool | None = None, chart: bool | None = None) -> None:
        shown = "yes" if chart else None
        if (period or "").strip().lower() == "all":  # the ledger (Discord allows 25 subcommands)
            await _bot(interaction).execute(interaction, "ledger", options=_given(chart=shown))
            return
        await _bot(interaction).execute(interaction, "sheet",
                                        options=_given(period=period, settle=settle or None, chart=shown))

    @sheet.autocomplete("period")
    async def _sheet_period(self, interaction: discord.Interaction[Any], current: str) -> list[
        app_commands.Choice[str]
    ]:
        return await _bot(interaction).period_choices(interaction, current)

    @app_commands.command(name="profile", description="A player's record here: money, rating and its chart")
    @app_commands.describe(member="Whose profile (default: yours)",
                           chart="Post the rating chart in the channel too (default: yes)")
    async def profile(self, interaction: discord.Interaction[Any], member: discord.User | None = None,
                      chart: bool | None = None) -> None:
        await _bot(interaction).execute(interaction, "stats", options=_given(
            member=str(member.id) if member else None, chart="no" if chart is False else "yes"))

    @app_commands.command(name="leaderboard", description="The top players, by skill or money, this month or all time")
    @app_commands.describe(period="YYYY-MM, or 'all' (default: this month)", by="Rank by skill (default) or money",
                           game="Which game's ratings (default: the serial game)")
    @app_commands.choices(by=[app_commands.Choice(name=n, value=n) for n in ("skill", "money")],
                          game=GAME_CHOICES)
    async def leaderboard(self, interaction: discord.Interaction[Any], period: str | None = None,
                          by: str | None = None, game: str | None = None) -> None:
        await _bot(interaction).execute(interaction, "leaderboard", options=_given(period=period, by=by, game=game))

    @leaderboard.autocomplete("period")
    async def _board_period(self, interaction: discord.Interaction[Any], current: str) -> list[
        app_commands.Choice[str]
    ]:
        return await _bot(interaction).period_choices(interaction, current)

    @app_commands.command(name="history", description=_describe("history"))
    @app_commands.describe(file="The whole game record of this table as a JSON file (liars replay format)")
    async def history(self, interaction: discord.Interaction[Any], file: bool | None = None) -> None:
        await _bot(interaction).execute(interaction, "export" if file else "history")

    @app_commands.command(name="help", description=_describe("help"))
    async def help(self, interaction: discord.Interaction[Any]) -> None:
        await _bot(interaction).execute(interaction, "help")
