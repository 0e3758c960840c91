"""Every refusal the bot words: the text of each :class:`~bot.parsing.UserError` (and the service's own
refusals: an unknown command, not your turn, a busy table), in one place.

The check stays where its rule lives (``runtime.py``'s guards, ``lobby.py``, ``reports.py``,
``parsing.py``) and raises with a text from here and a machine ``code`` beside it.  A game's own
refusals (a bid too low, a card not held) are the game's: ``core/<game>`` raises
:class:`~core.game.GameError` with its own words, and the service only writes its mentions as names.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from core.errors import quoted

__all__ = [
    "ADMINS_USAGE",
    "ALREADY_LEAVING",
    "ALREADY_SEATED",
    "BUSY",
    "CURRENCY_LENGTH",
    "EARLIER_TABLE",
    "EARLIER_TURN",
    "GAME_AT_STAKE",
    "GAME_AT_STAKE_PEER",
    "GAME_DECIDED",
    "GAME_DECIDED_PEER",
    "HOST_CANNOT_BE_KICKED",
    "HOST_CANNOT_LEAVE",
    "KICK_AT_STAKE",
    "KICK_AT_STAKE_PEER",
    "KICK_USAGE",
    "LAST_ALREADY_DECLARED",
    "LEAVE_STANDS",
    "MAYBE_SAVED",
    "MONEY_ACROSS_GAMES",
    "NOTHING_HELD",
    "NOT_IN_ROUND",
    "NOT_SAVED",
    "NOT_SEATED",
    "NO_COUNTED_ROUND",
    "NO_ROUND",
    "NO_ROUND_LIMIT",
    "NO_TABLE",
    "NO_TABLE_PLAYED",
    "ONLY_ADMIN_CONFIG",
    "ONLY_ADMIN_SETTLES",
    "ONLY_HOST_DEALS",
    "PLAYER_TWICE",
    "PLAY_NOT_STARTED",
    "PLAY_UNDER_WAY",
    "RECORD_HELD_BACK",
    "REMOVED_BY_HOST",
    "STAKE_NEGATIVE",
    "STAKE_NOT_POSITIVE",
    "START_USAGE",
    "STATS_USAGE",
    "TABLE_OPEN",
    "TABLE_RUNNING",
    "THAT_PLAYER_NOT_SEATED",
    "UNIT_WORTHLESS",
    "bad_leaderboard_word",
    "bad_number",
    "bad_period",
    "bad_setting_word",
    "bad_stake",
    "bad_unit_value",
    "computers_do_not_fit",
    "future_period",
    "given_twice",
    "last_beyond_limit",
    "ledger_word",
    "newer_table",
    "no_format",
    "no_one_named",
    "not_host_or_admin",
    "not_in_game",
    "not_your_turn",
    "option_without_value",
    "out_of_range",
    "period_settled",
    "stake_too_high",
    "table_full",
    "takes_nothing",
    "too_few_to_deal",
    "too_long",
    "unit_too_valuable",
    "unknown_command",
    "unknown_game",
    "unknown_level",
    "unknown_preset",
    "unreadable_record",
    "unreadable_table",
]


def _choices(names: Iterable[str], sep: str = ", ") -> str:
    return sep.join(names)


# -- the service ----------------------------------------------------------------------------------
BUSY = "The table is busy; please try again."


def too_long(length: int, most: int) -> str:
    return f"That is too long to read ({length:,} characters; a command takes at most {most:,}). Nothing was done."
NOT_SAVED = "The table could not be saved, so nothing changed; please try again."

MAYBE_SAVED = ("The database stopped answering, so this may or may not have been saved: the table shows what was. "
               "Try again if it did not change.")


def unreadable_table(table_id: int) -> str:
    return (f"This channel's table (no. {table_id}) was stored by another version of the bot, which this one cannot "
            "read, so nothing can be played here for now. A server admin can close it with `end` (a round under way "
            "is void: nothing is paid for it); whoever runs the bot will find it named in the log.")


def newer_table(table_id: int, idle: int) -> str:
    return (f"This channel's table (no. {table_id}) is served by a newer version of the bot than the one that got "
            "this command (the bot is being updated), so nothing was done. Try again in a minute. (If the bot was "
            f"rolled back for good, a server admin's `end` closes it once it has been idle {idle // 60} minutes.)")


def unreadable_record(table_id: int) -> str:
    return (f"This channel's last table (no. {table_id}) was stored by another version of the bot, which this one "
            "cannot read, so it cannot write its record.")


def unknown_command(name: str) -> str:
    return f"Unknown command {quoted(name)}. Try `help`."


def not_your_turn(name: str) -> str:
    return f"It is not your turn: {name} is to act."


# -- the runtime's guards: a table, a seat, a round, the host -------------------------------------
NO_TABLE = "There is no table in this channel. Open one with `start`."
NOT_SEATED = "You are not seated at this table."
NO_ROUND = "No round is under way at this table."
NOT_IN_ROUND = "You are not playing in this round (you are out, or joined after it was dealt)."


GAME_AT_STAKE = ("This game settles at its end, and ending the table now would void it, with what its players have "
                 "won so far. Nothing was done: `leave` it (you are told what leaving costs), or ask a server admin "
                 "to end it.")


GAME_AT_STAKE_PEER = ("This game settles at its end, and ending the table now would void it, with what its players "
                      "have won so far. Here every member administers the table, so none may end a game at stake "
                      "for the others. Nothing was done: `leave` it (you are told what leaving costs), or finish it.")


GAME_DECIDED = ("This game decides its result at its end (who pays for dinner, who wins), and ending the table now "
                "would void it. Nothing was done: `leave` it (you are told what leaving costs), or ask a server admin "
                "to end it.")


GAME_DECIDED_PEER = ("This game decides its result at its end (who pays for dinner, who wins), and ending the table "
                     "now would void it. Here every member administers the table, so none may end such a game for the "
                     "others. Nothing was done: `leave` it (you are told what leaving costs), or finish it.")


KICK_AT_STAKE_PEER = ("That player is still in a game decided at its end: removing them now makes them lose it "
                      "(pay for dinner, forfeit). Here every member administers the table, so none may remove a "
                      "rival still in such a game. Nothing was done (a player the timer plays three turns in a row "
                      "for leaves on their own).")

KICK_AT_STAKE = ("That player is still in a game decided at its end: removing them now makes them lose it (pay for "
                 "dinner, forfeit). Nothing was done; a server admin may remove them (and a player the timer plays "
                 "three turns in a row for leaves on their own).")


def not_host_or_admin(what: str) -> str:
    return f"Only the host or a server admin can {what}."


# -- the lobby: start, join, leave, kick, deal, last ----------------------------------------------
TABLE_OPEN = "A table is already open in this channel. Use `join`, or `end` it first."
START_USAGE = "Usage: `start [game] [preset] [stake] [seats] [computers] [level] [option=value ...]`."
ALREADY_SEATED = "You are already seated at this table."
TABLE_RUNNING = "Play is under way at this table; join the next one."
KICK_USAGE = "Usage: `kick @player`, or a player by the name the table shows: `kick Gekko`."
STATS_USAGE = "Usage: `stats [@player]`: a mention names whose figures."


def no_one_named(typed: str, count: int) -> str:
    if count:
        return f"{quoted(typed)} names {count} players here: mention the one you mean."
    return f"No player here is named {quoted(typed)}: mention them, or type their name as the table shows it."


THAT_PLAYER_NOT_SEATED = "That player is not seated at this table."
ALREADY_LEAVING = "That seat is already leaving after this round."
REMOVED_BY_HOST = "The host removed you from this table after this round; you cannot take that back."
LEAVE_STANDS = "Your seat leaves this table after this round; that cannot be taken back."
HOST_CANNOT_BE_KICKED = "The host cannot be removed from the lobby; `end` the table instead."
HOST_CANNOT_LEAVE = "The host cannot leave the lobby; `end` the table instead."
ONLY_HOST_DEALS = "Only the host deals."
PLAY_UNDER_WAY = "Play is already under way."
PLAY_NOT_STARTED = "Play has not started yet."
LAST_ALREADY_DECLARED = "The last round is already declared."


def last_beyond_limit(rounds: int) -> str:
    return (f"This table plays {rounds:,} round{'s' if rounds != 1 else ''} (rounds={rounds}): the round under way is "
            "already its last, and it has begun.")


def unknown_game(games: Iterable[str]) -> str:
    return f"Unknown game: choose {_choices(games)}."


def unknown_preset(preset: str, presets: Iterable[str]) -> str:
    return f"Unknown preset {quoted(preset)}: choose {_choices(presets)}."


def unknown_level(level: str, levels: Iterable[str]) -> str:
    return f"Unknown level {quoted(level)}: choose {_choices(levels)}."


def no_format(title: str, asked: str, usual: Iterable[str]) -> str:
    return (f"{title} has one way to play, not {quoted(asked)}: leave format out (or say "
            f"{_choices(usual)}).")


def computers_do_not_fit(computers: int, seats: int) -> str:
    return f"{computers} computer players and you do not fit in {seats} seats."


def table_full(seats: int) -> str:
    return f"This table is full ({seats} seats)."


def too_few_to_deal(min_players: int) -> str:
    return f"At least {min_players} seats are needed to deal."


# -- reading commands: hands, reads, settings, the ledger, records --------------------------------
NOTHING_HELD = "You hold nothing to show right now."
ONLY_ADMIN_CONFIG = "Only a server admin can change the configuration."
CURRENCY_LENGTH = ("The currency label is 1 to 8 characters, like $ or EUR, or an emoji (💰; on Slack `:moneybag:`; "
                   "not a Discord server's own emoji), "
                   "without digits, signs (+ -), spaces, < > @ # & * ~ ` | [ ] or invisible characters (direction "
                   "marks, zero-width spaces): it is written before each amount.")
MONEY_ACROSS_GAMES = ("Money is kept across games (one ledger a server): `leaderboard money` without a game; a "
                      "game's board is by skill.")
PLAYER_TWICE = "Name the player once: a member or a name, not both."
ADMINS_USAGE = "Admins are named by mention, separated by commas: `admins=@ann,@bob`."
ONLY_ADMIN_SETTLES = "Only a server admin can mark a period settled."
NO_TABLE_PLAYED = "No table has been played in this channel."
NO_COUNTED_ROUND = "Nothing has been settled at this table yet."
RECORD_HELD_BACK = ("Rounds have been settled here, but this game's record is shown only once its session is over: "
                    "it holds what is still to be dealt.")


def not_in_game(command: str, title: str) -> str:
    return f"`{command}` is not part of {title}."


def bad_setting_word(word: str) -> str:
    return f"Write settings as name=value (e.g. `preset=salomon`), not {quoted(word)}."


def bad_period(example: str) -> str:
    return f"A period is written YYYY-MM, like {example}."


def period_settled(period: str) -> str:
    return f"{period} is already marked settled."


def bad_leaderboard_word(word: str, games: Iterable[str]) -> str:
    return f"Write `leaderboard [YYYY-MM|all] [by money|skill] [{_choices(games, '|')}]`, not {quoted(word)}."


# -- what people type: numbers, stakes, money -----------------------------------------------------
STAKE_NOT_POSITIVE = "The stake must be a positive number of units."
STAKE_NEGATIVE = "The stake is a number of units: it cannot be below 0."
UNIT_WORTHLESS = "A unit must be worth something."


EARLIER_TABLE = ("That is from an earlier table in this channel, which is closed: use this table's message "
                 "(`status` shows it).")
EARLIER_TURN = ("That form or button was drawn before the table's last move, so it may show what no longer stands: "
                "nothing was done. Use the table's message as it is now (a form: open it again from there).")
NO_ROUND_LIMIT = ("rounds= stops a table whose every round settles on its own; this game plays on to its end "
                  "(the last player left pays, or wins), so it takes no round limit.")


def future_period(period: str, now: str) -> str:
    return f"{period} has not begun: no round is played in it yet, and a month is settled once it has been (this " \
           f"month is {now})."


def takes_nothing(name: str, *, changes: bool = True) -> str:
    if name == "hand":
        return "`hand` shows only what you hold, to you alone: send `hand` alone."
    return f"`{name}` takes nothing after it: send `{name}` alone." + (" Nothing was done." if changes else "")


def ledger_word(word: str) -> str:
    return (f"`ledger` takes only `chart` after it, not {quoted(word)}: a month's figures are `sheet YYYY-MM`, a "
            "player's `stats`. Nothing was shown.")


def given_twice(name: str) -> str:
    return f"{quoted(name)} is given twice, with different values: give it once."


def option_without_value(name: str) -> str:
    return f"{quoted(name)} needs a value, like `{name[:20]}=…`."


def bad_number(name: str, value: Any, low: int, high: int) -> str:
    return f"{name} must be a whole number from {low} to {high}, not {quoted(value)}."


def out_of_range(name: str, n: int, low: int, high: int) -> str:
    return f"{name} must be from {low} to {high}, not {n}."


def bad_stake(value: Any) -> str:
    return f"The stake must be a whole number of units, not {quoted(value)}."


def stake_too_high(most: int) -> str:
    return f"The stake is at most {most:,} units."


def bad_unit_value(value: Any) -> str:
    return f"A unit's value is written like 1 or 0.25, not {quoted(value)}."


def unit_too_valuable(most_minor: int) -> str:
    return f"A unit is worth at most {most_minor // 100:,}."
