"""The slash commands, built at run time from the command declarations (:mod:`bot.commands`): one
subcommand per service command, under the same name ``help`` lists it by.

Structure.  Discord allows 25 subcommands under one command.  ``/liars`` holds everything done at a
table — each registered game's moves and private reads (``bid``, ``declare``, ``odds`` …) and the
table's own commands (``start``, ``join``, ``deal``, ``hand``, ``config`` …) — so the moves stay one
word after ``/liars``.  The books (``ledger``, ``sheet``, ``stats``, ``leaderboard``, ``history``,
``export``: every command declared in :attr:`~core.commands.Section.BOOKS`) are ``/liars-books …``,
a second top-level command that Discord lists beside ``/liars`` as soon as ``/liars`` is typed.  Which
command a declaration lands under is decided here, in :func:`layout`, from its section, never per verb.

A parameter becomes an option of its declared kind (an integer with its range, a choice, text, a
member, yes/no); the free-text parameter (``say``, ``hand``, ``cards``, ``options``) reaches the
service as the command's words, as a typed command's would.  A parameter whose values a form or the
ledger knows (``Suggest``) autocompletes from them (``LiarsBot.suggest``).  A subcommand's description
is its declaration's short line (``CommandSpec.short``: the brief where the usage line ``help`` lists,
such as ``start``'s, is longer than Discord's 100 characters), whole.
"""

from __future__ import annotations

import inspect
from typing import Any, Optional, Protocol, cast

import discord
from discord import app_commands

from bot.commands import commands
from bot.model import TableKey
from core.commands import HELP_MAX, CommandSpec, Kind, Param, Section, Suggest

__all__ = ["BOOKS", "MAIN", "build_commands", "layout", "top_level"]

MAIN = "liars"
BOOKS = "liars-books"
CAP = 25  # Discord's limit on the subcommands (and the choices) of one command
DESCRIPTION = HELP_MAX  # Discord's limit on a command's or an option's description
DESCRIPTIONS = {MAIN: "Liar's Poker: play, and run the table", BOOKS: "Liar's Poker: the ledger, stats and records"}


class Executor(Protocol):
    """What the commands need from the bot (``LiarsBot``)."""

    async def execute(self, interaction: discord.Interaction[Any], name: str, *, args: tuple[str, ...] = (),
                      options: dict[str, Any] | None = None, key: TableKey | None = None) -> None: ...

    async def suggest(self, interaction: discord.Interaction[Any], spec: CommandSpec, param: Param,
                      current: str) -> list[app_commands.Choice[Any]]: ...


def _bot(interaction: discord.Interaction[Any]) -> Executor:
    return cast(Executor, interaction.client)


def layout() -> dict[str, list[CommandSpec]]:
    """Each top-level command's subcommands: the books under :data:`BOOKS`, all else under :data:`MAIN`."""
    out: dict[str, list[CommandSpec]] = {MAIN: [], BOOKS: []}
    for spec in commands().values():
        out[BOOKS if spec.section is Section.BOOKS else MAIN].append(spec)
    for top, specs in out.items():
        if len(specs) > CAP:
            raise ValueError(f"/{top} would have {len(specs)} subcommands; Discord allows {CAP}")
    return out


def top_level(name: str) -> str:
    """The top-level command a service command is a subcommand of."""
    return next((top for top, specs in layout().items() if any(s.name == name for s in specs)), MAIN)


def _sentence(text: str) -> str:
    """A help line as Discord shows a description: capitalised, and at most :data:`DESCRIPTION` characters
    (Discord refuses a longer one).  A command's line fits (``CommandSpec.short``: its brief, where its
    help would not); a parameter's help is worded to fit, and one that does not ends at its last whole
    word that fits, with "…"."""
    text = text[:1].upper() + text[1:]
    if len(text) <= DESCRIPTION:
        return text
    cut = text.rfind(" ", 0, DESCRIPTION - 1)
    return text[:cut if cut > 0 else DESCRIPTION - 2].rstrip(",;:") + " …"


def _annotation(p: Param) -> Any:
    if p.kind is Kind.INT:
        base: Any = app_commands.Range[int, p.low, p.high] if p.low is not None and p.high is not None else int
    elif p.kind is Kind.USER:
        base = discord.User
    elif p.kind is Kind.FLAG:
        base = bool
    else:
        base = str
    return base if p.required else Optional[base]  # noqa: UP045 - discord.py reads typing.Optional


def _values(spec: CommandSpec, given: dict[str, Any]) -> tuple[tuple[str, ...], dict[str, Any]]:
    """The chosen options as the service takes them: the free text as words, a member as their id."""
    args: tuple[str, ...] = ()
    options: dict[str, Any] = {}
    for p in spec.params:
        value = given.get(p.name)
        if value is None:
            continue
        if p.words:
            args = tuple(str(value).split())
        elif p.kind is Kind.USER:
            options[p.name] = str(value.id)
        else:
            options[p.name] = value
    return args, options


def _command(spec: CommandSpec) -> app_commands.Command[Any, ..., None]:
    async def callback(interaction: discord.Interaction[Any], **given: Any) -> None:
        args, options = _values(spec, given)
        await _bot(interaction).execute(interaction, spec.name, args=args, options=options)

    ordered = sorted(spec.params, key=lambda p: not p.required)  # Discord lists required options first
    callback.__signature__ = inspect.Signature([  # type: ignore[attr-defined]
        inspect.Parameter("interaction", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=discord.Interaction),
        *(inspect.Parameter(p.name, inspect.Parameter.KEYWORD_ONLY, annotation=_annotation(p),
                            default=inspect.Parameter.empty if p.required else None) for p in ordered),
    ])
    callback.__discord_app_commands_param_description__ = {  # type: ignore[attr-defined]
        p.name: _sentence(p.help) for p in spec.params}
    callback.__discord_app_commands_param_choices__ = {  # type: ignore[attr-defined]
        p.name: [app_commands.Choice(name=label[:100], value=value) for value, label in p.choices[:CAP]]
        for p in spec.params if p.kind is Kind.CHOICE and p.choices}
    command: app_commands.Command[Any, ..., None] = app_commands.Command(
        name=spec.name, description=_sentence(spec.short), callback=callback)
    for p in spec.params:
        if p.suggest is not Suggest.NONE:
            command.autocomplete(p.name)(_completer(spec, p))
    return command


def _completer(spec: CommandSpec, param: Param) -> Any:
    async def complete(interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[Any]]:
        return await _bot(interaction).suggest(interaction, spec, param, current)

    return complete


def build_commands() -> list[app_commands.Group]:
    """``/liars`` and ``/liars-books`` with a subcommand for each declared command."""
    groups = []
    for top, specs in layout().items():
        # installed to a server, or to a user: then in group DMs and DMs between friends too (the bot has no
        # seat there: see adapters.discord.links)
        group = app_commands.Group(name=top, description=DESCRIPTIONS[top],
                                   allowed_installs=app_commands.AppInstallationType(guild=True, user=True),
                                   allowed_contexts=app_commands.AppCommandContext(guild=True, dm_channel=True,
                                                                                   private_channel=True))
        for spec in specs:
            group.add_command(_command(spec))
        groups.append(group)
    return groups
