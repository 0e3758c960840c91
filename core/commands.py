"""Commands as data: what a command is called, what it takes, and where it shows (click's and typer's
one declaration of a parameter, from which help, parsing and each platform's form are derived).

A game declares its moves and private reads as :class:`CommandSpec` values (``Game.commands``); the
table service declares its own commands the same way (:func:`bot.commands.table_commands`).  Every surface
is built from these values — Discord's slash commands and their options, Slack's text commands and
buttons, the terminal's words, ``help`` — so no adapter names a verb of any game::

    CommandSpec("bid", "raise: a quantity and a digit, e.g. 'bid 5 sevens'", Section.MOVE,
                params=(Param("quantity", Kind.INT, "How many …", low=1, high=96, suggest=Suggest.FORM),
                        Param("digit", Kind.INT, "Which digit (0-9)", low=0, high=9, suggest=Suggest.FORM),
                        Param("say", Kind.TEXT, "Or the bid in words: 'five sevens'", words=True)),
                form=True, default=True, aliases=("b", "raise", "r"))

A parameter's value crosses the seam typed (:data:`core.game.Option`): an integer stays an ``int``.
The one parameter marked ``words`` is free text: a platform with named options sends it as the
command's words (``Command.args``), as a text command does.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Final

__all__ = ["HELP_MAX", "SECTION_TITLES", "CommandSpec", "FormatWords", "HandWords", "Kind", "Param", "Section",
           "Suggest", "TooManyDigits", "flag_word", "merged", "whole_arg", "whole_number"]


_WHOLE: Final = re.compile(r"[+-]?[0-9]{1,100}")  # (a 20-digit stake is "too large", not "no number")


def whole_number(text: str) -> int:
    """What someone typed as a whole number: ASCII digits with an optional sign, nothing else.

    ``int`` alone reads more than people mean and more than the other fields take: "٣" (3), "1_000" and
    thousands of digits (which it refuses with an error of its own).  Raises ``ValueError``."""
    stripped = text.strip()
    if _WHOLE.fullmatch(stripped) is None:
        digits = stripped[1:] if stripped[:1] in ("+", "-") else stripped
        if digits and digits.isascii() and digits.isdigit():  # only past 100 digits: the leading zeros aside, how many?
            significant = digits.lstrip("0")
            if len(significant) <= 100:
                return int(("-" if stripped[:1] == "-" else "") + (significant or "0"))
            raise TooManyDigits(f"more than 100 digits: {text[:40]!r}", stripped.startswith("-"))
        raise ValueError(f"not a whole number: {text[:40]!r}")
    return int(stripped)


class TooManyDigits(ValueError):
    """A whole number of more than 100 digits: too large (``negative``: too small) for any field, which may say
    so rather than that it is no number."""

    def __init__(self, message: str, negative: bool) -> None:
        super().__init__(message)
        self.negative = negative


_FLAG_WORDS: Final = {"on": True, "true": True, "yes": True, "1": True, "off": False, "false": False, "no": False,
                      "0": False}


def flag_word(text: str) -> bool | None:
    """A yes-or-no option as typed (``on``, ``yes``, ``true``, ``1``; ``off``, ``no``, ``false``, ``0``), or None."""
    return _FLAG_WORDS.get(text.strip().lower())


def whole_arg(text: str) -> int:
    """:func:`whole_number` as a command line's ``type=`` (``--stake ٣`` played at stake 3 where chat refuses it)."""
    try:
        return whole_number(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a whole number (ASCII digits)") from None


class Kind(StrEnum):
    """What a parameter holds."""

    INT = "int"  # a whole number, within ``low``..``high``
    CHOICE = "choice"  # one of ``choices``
    TEXT = "text"  # free text
    CARDS = "cards"  # card names, like "JD 3H" (free text a platform shows as such)
    USER = "user"  # a member of the server (its id)
    FLAG = "flag"  # yes or no


class Suggest(StrEnum):
    """Where a platform that completes as the player types finds the values to offer."""

    NONE = ""
    FORM = "form"  # the move's form, the field of the same name (the legal bids' quantities, digits)
    PERIODS = "periods"  # the ledger periods the server has rounds in
    PERIODS_OR_ALL = "periods-or-all"  # those, and "all" (every period at once)


class Section(StrEnum):
    """What kind of command it is: where ``help`` lists it, and how a platform groups it."""

    MOVE = "move"  # a game's move: changes the round
    READ = "read"  # a private view of the table or of one's own seat (``hand``, ``odds``)
    TABLE = "table"  # the table's life: open, seat, deal, close, its rules, the server's settings
    BOOKS = "books"  # the server's money and records: ledger, sheet, stats, leaderboard, history, export


SECTION_TITLES: Mapping[Section, str] = {
    Section.MOVE: "Play",
    Section.READ: "Your view",
    Section.TABLE: "The table",
    Section.BOOKS: "The books",
}


HELP_MAX: Final = 100
"""The longest a parameter's help may be, and a command's line where a platform limits it (its ``brief``,
else its ``help``): every platform shows them whole (Discord: a command's or an option's description is
at most 100 characters).  Help built from the games' words is worded to fit."""


@dataclass(frozen=True, slots=True)
class HandWords:
    """What a game deals each player in secret, as the table's words name it (``Game.hand``).

    ``what`` completes the table's ``hand`` line, "show me … again, privately" ("my serial"); ``label``
    is the words on the game's button for it ("My serial"), which a platform's notices name ("press
    **My serial**").  ``dealt`` is the host's answer to ``deal`` (who gets what by DM); ``dealt_here`` the
    same where no DM can reach the players and each gets theirs privately in the channel."""

    what: str
    label: str
    dealt: str = "Dealt. Check your DMs for your secret."
    dealt_here: str = "Dealt. Each player's secret comes to them alone, here."


@dataclass(frozen=True, slots=True)
class FormatWords:
    """One way to play a game (``start format=…``), as the table's words show it (``Game.formats``).

    ``gist``: a few words for the choice ("who pays for dinner"); ``rule``: how it plays, a line for the
    terminal's help; ``stake``: what a table's stake is in it, where it is not the units won or lost per
    player per round ("what the payer pays each; 0 for nothing")."""

    gist: str
    rule: str = ""
    stake: str = ""


@dataclass(frozen=True, slots=True)
class Param:
    """One parameter.  ``words``: the command's free text (at most one per command)."""

    name: str
    kind: Kind
    help: str
    low: int | None = None
    high: int | None = None
    choices: tuple[tuple[str, str], ...] = ()  # (value, label) for a CHOICE
    required: bool = False
    words: bool = False
    suggest: Suggest = Suggest.NONE


@dataclass(frozen=True, slots=True)
class CommandSpec:
    """A command declared once.

    ``changes``: it may change a table or the server's books (a platform's delivery id guards it
    against a second application; a command that changes nothing is simply read again).
    ``public``: its answer may go to the channel (a platform must not answer it privately first).
    ``in_dm``: it makes sense in a direct message with the bot.  ``form``: the game offers a form for
    it (Raise…, Declare…); a button for it opens the form.  ``default``: what bare text at the table
    is taken as in the terminal (``5 7`` is a bid, ``two pair`` a declaration).  ``aliases``: other
    names it answers to (short ones for the terminal; a name buttons used to carry).  ``at_table``: it plays,
    reads or changes the channel's table, so a platform refuses it where that table is kept in another ledger (a
    channel shared between Slack workspaces); help, the rules, the settings and the books answer there too.

    ``help`` is the command's line in ``help`` and wherever a line may be long (Slack, the terminal): it
    may name every usage word (``start``'s ``[game] [preset] [stake] …``).  ``brief``: the line for a
    surface that limits a command's description to :data:`HELP_MAX` characters and shows the
    parameters beside it (Discord's slash commands), needed only where ``help`` is longer; a command
    whose help is longer than that and that has no brief is refused when declared, so no surface
    ever cuts a command's line.  ``done``: a move's answer to its mover once it is taken ("Bid placed.";
    empty: the table's plain "Done.").
    """

    name: str
    help: str
    section: Section
    params: tuple[Param, ...] = ()
    changes: bool = True
    public: bool = False
    in_dm: bool = False
    form: bool = False
    default: bool = False
    aliases: tuple[str, ...] = ()
    brief: str = ""
    done: str = ""
    at_table: bool = True

    def __post_init__(self) -> None:
        if len(self.short) > HELP_MAX:
            raise ValueError(f"{self.name!r}: a line of {len(self.short)} characters ({self.short!r}); where a "
                             f"platform allows {HELP_MAX}, it needs a brief of at most {HELP_MAX}")

    @property
    def short(self) -> str:
        """The command's line where a platform allows :data:`HELP_MAX` characters: the brief, or the help
        itself when it fits."""
        return self.brief or self.help

    @property
    def words(self) -> Param | None:
        """The free-text parameter, if the command takes one."""
        return next((p for p in self.params if p.words), None)

    @property
    def usage(self) -> str:
        """``bid [quantity] [digit] [say…]`` — the command as it is typed."""
        shown = [f"<{p.name}>" if p.required else f"[{p.name}]" for p in self.params if not p.words]
        free = self.words
        if free is not None:
            shown.append(f"<{free.name}…>" if free.required else f"[{free.name}…]")
        return " ".join([self.name, *shown])


def merged(specs: Iterable[CommandSpec]) -> dict[str, CommandSpec]:
    """Commands by name, where several games declare one name (``challenge``, ``hint``): the first
    declaration's words, with every game's parameters — a parameter is required only if each game
    that declares the command requires it, and only a command every declaration marks ``form`` opens
    a form from a button of its own."""
    out: dict[str, CommandSpec] = {}
    for spec in specs:
        have = out.get(spec.name)
        if have is None:
            out[spec.name] = spec
            continue
        names = {p.name for p in have.params}
        theirs = {p.name for p in spec.params}
        params = tuple(
            p if p.name in theirs and p.required and next(q for q in spec.params if q.name == p.name).required
            else _optional(p)
            for p in have.params
        ) + tuple(_optional(p) for p in spec.params if p.name not in names)
        out[spec.name] = replace(
            have, params=params, changes=have.changes or spec.changes, public=have.public or spec.public,
            in_dm=have.in_dm and spec.in_dm, form=have.form and spec.form,
            aliases=tuple(dict.fromkeys(have.aliases + spec.aliases)))
    return out


def _optional(p: Param) -> Param:
    return replace(p, required=False)
