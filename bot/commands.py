"""Every command the service takes, declared once: the table's own (below) and each registered game's
moves and reads (``Game.commands``).  Adapters build their slash commands, text commands, buttons and
``help`` from :func:`commands`; nothing else lists command names.

The registry of games is read when asked (a plug-in registered before a platform builds its commands
is offered like the built-in games), so these are functions, not module constants.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from core.commands import HELP_MAX, CommandSpec, FormatWords, Kind, Param, Section, Suggest
from core.registry import DEFAULT_GAME, GAMES, game_commands

from .settings import HISTORY_CHOICES, MAX_STAKE, MAX_TIMEOUT, MIN_TIMEOUT

__all__ = ["commands", "either", "first_or", "format_lines", "game_of_command", "hand_labels", "options_examples",
           "resolve", "table_commands"]


def _choices(values: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(values.items())


def _fitting(*wordings: str) -> str:
    """The first wording that fits in a help (:data:`~core.commands.HELP_MAX`), else the last (the
    shortest, which always does)."""
    return next((w for w in wordings if len(w) <= HELP_MAX), wordings[-1])


def either(words: Sequence[str]) -> str:
    """``a``, ``a or b``, ``a, b or c`` (every list of alternatives the table's words name)."""
    words = list(words)
    return " or ".join([", ".join(words[:-1]), words[-1]] if len(words) > 1 else words)


def first_or(words: Sequence[str]) -> str:
    """``a``, ``a (or b)``, ``a (or b, or c)``: the first named, the others as the alternatives (what
    the table deals, the button that shows it, when the game is not known)."""
    return (words[0] + (f" (or {', or '.join(words[1:])})" if len(words) > 1 else "")) if words else ""


def _hand_help() -> str:
    """``hand``'s line, naming what each game deals (``Game.hand``): "show me my serial (or my cards)
    again, privately"."""
    held = [game.hand.what for game in GAMES.values() if game.hand is not None]
    if not held:
        return "show me what I hold again, privately"
    return _fitting(f"show me {first_or(held)} again, privately", "show me what I was dealt again, privately")


def _formats() -> dict[str, FormatWords]:
    """Every game's ways to play, by name (``Game.formats``; each game's usual one first)."""
    return {name: words for game in GAMES.values() for name, words in game.formats.items()}


def games_with_preset(preset: str) -> list[str]:
    """The games that have a preset of this name (``wild``: the card game alone), as registered."""
    return [game.name for game in GAMES.values() if preset.strip().lower() in game.presets]


def usual_formats() -> list[str]:
    """The names of the games' usual formats (``rounds``): what a table plays unless told, whatever its game."""
    return list(dict.fromkeys(next(iter(game.formats)) for game in GAMES.values() if game.formats))


def _format_help() -> tuple[str, str]:
    """``start``'s usage words for the formats other than the games' usual ones (``[format=elimination]``)
    and its ``format`` option's help, from the games' declared formats.  A table plays its game's usual
    format unless told: with one game that has formats, that one is named the default; with several,
    each game's usual one is (``rounds or usual (each game's usual: the default)``)."""
    usuals = usual_formats()
    others = {name: words for game in GAMES.values() for name, words in list(game.formats.items())[1:]
              if name not in usuals}
    if not others:
        return "", "How the table plays"
    default = f"{usuals[0]} (default)" if len(usuals) == 1 else f"{either(usuals)} (each game's usual: the default)"
    return (f" [format={'|'.join(others)}]",
            _fitting(f"How the table plays: {default} or "
                     + " or ".join(f"{name}, {words.gist}" for name, words in others.items()),
                     f"How the table plays: {either([default, *others])}",
                     f"How the table plays: each game's usual (the default), {either(list(others))}",
                     "How the table plays (default: the game's usual way)"))


def _stake_help() -> str:
    """``start``'s ``stake`` option, with what it is in the formats where it is not the usual
    ("elimination: what the payer pays each; 0 for nothing")."""
    usual = "Units won or lost per player per round"
    other = {name: words.stake for name, words in _formats().items() if words.stake}
    if not other:
        return usual
    return _fitting(f"{usual} ({'; '.join(f'{name}: {stake}' for name, stake in other.items())})",
                    f"{usual} (in {either(list(other))}: see the rules)", usual)


def options_examples(each: str = "{example} ({game})") -> list[str]:
    """Each game's example rule options (``Game.options_example``), in ``each``'s words: ``rebid=on
    skunk=on (serial)``; a game with none to show is left out."""
    return [each.format(example=game.options_example, game=name, first=game.options_example.split()[0])
            for name, game in GAMES.items() if game.options_example]


def _options_help(head: str) -> str:
    """``start``'s ``options`` and ``config``'s ``settings``: ``head`` and each game's example, as many as
    fit (``More rules as name=value words, e.g. rebid=on skunk=on (serial), jokers=2 pass=on (cards)``)."""
    examples = options_examples()
    return _fitting(*(f"{head}, e.g. {', '.join(examples[:n])}" for n in range(len(examples), 0, -1)), head)


def table_commands() -> tuple[CommandSpec, ...]:
    """The table's own commands, with the choices the registered games offer."""
    games = _choices({name: game.title for name, game in GAMES.items()})
    first = GAMES[DEFAULT_GAME].title
    presets = _choices({p: p for game in GAMES.values() for p in game.presets})
    levels = _choices({lv: lv for game in GAMES.values() for lv in game.levels})
    most = max(game.max_players for game in GAMES.values())
    formats = _choices({f: f for f in _formats()})
    format_usage, format_help = _format_help()
    member = Param("member", Kind.USER, "Which player (default: you)")
    # where a member option takes only the platform's users (Discord), a computer player is named in words
    named = Param("name", Kind.TEXT, "Or a player by the name the table shows (a computer player)", words=True)
    chart = Param("chart", Kind.FLAG, "Post it as a chart in the channel")
    period = Param("period", Kind.TEXT, "The month, YYYY-MM (default: this month)", suggest=Suggest.PERIODS)
    table, books = Section.TABLE, Section.BOOKS
    return (
        CommandSpec("start", "open a table here: [game] [preset] [stake] [seats] [computers] [level]"
                    f"{format_usage} [option=value ...]", table,
                    brief="open a table here: its game, rules, format, stake, seats, computer players and their level",
                    params=(
                        Param("game", Kind.CHOICE, f"Which game (default: {first})", choices=games),
                        Param("preset", Kind.CHOICE, "Rule set (default: this server's)", choices=presets),
                        Param("stake", Kind.INT, _stake_help(), low=0, high=MAX_STAKE),
                        Param("seats", Kind.INT, "Most players at the table", low=2, high=most),
                        Param("computers", Kind.INT, "Computer players to seat", low=0, high=most - 1),
                        Param("level", Kind.CHOICE, "How well the computer players play", choices=levels),
                        Param("format", Kind.CHOICE, format_help, choices=formats),
                        Param("options", Kind.TEXT, _options_help("More rules as name=value words"), words=True),
                    )),
        CommandSpec("join", "take a seat at the table here", table),
        CommandSpec("leave", "leave the table (after the current round, if one is under way)", table),
        CommandSpec("deal", "start play (host; at least 2 seats)", table),
        CommandSpec("hand", _hand_help(), Section.READ, changes=False,
                    in_dm=True, aliases=("h",)),
        CommandSpec("status", "the table's state", Section.READ, changes=False, aliases=("s",)),
        CommandSpec("last", "declare the last round (host)", table),
        CommandSpec("end", "close the table (host or server admin)", table),
        CommandSpec("kick", "remove a player (host or server admin)", table, params=(
            Param("member", Kind.USER, "The player to remove"), named)),
        CommandSpec("rules", "the rules at this table (or a new table's here) [game]", table, changes=False,
                    at_table=False, params=(
            Param("game", Kind.CHOICE, "Which game's rules, where no table is open (default: "
                  f"{first})", choices=games),)),
        CommandSpec("config", "server settings (admin): [game] preset, option=value, unit value, currency, turn "
                    "timeout, history=month", table,
                    brief="server settings (admin): default rules and stake, unit value, currency, timeouts, history",
                    at_table=False, params=(
                        Param("game", Kind.CHOICE, f"Whose defaults the preset and options set (default: {first})",
                              choices=games),
                        Param("preset", Kind.CHOICE, "Default rule set for new tables", choices=presets),
                        Param("stake", Kind.INT, "Default stake in units", low=1, high=MAX_STAKE),
                        Param("unit_value", Kind.TEXT, "What one unit is worth, e.g. 1 or 0.25"),
                        Param("currency", Kind.TEXT, "Currency label, e.g. $ or EUR"),
                        Param("turn_timeout", Kind.INT, "Seconds a player has to act", low=MIN_TIMEOUT,
                              high=MAX_TIMEOUT),
                        Param("lobby_timeout", Kind.INT, "Seconds a lobby waits for the deal", low=MIN_TIMEOUT,
                              high=MAX_TIMEOUT),
                        Param("computer_level", Kind.CHOICE, "Default level of computer players", choices=levels),
                        Param("history", Kind.CHOICE, "What players see: all periods, or this month's only "
                              "(admins see all)", choices=tuple((c, c) for c in HISTORY_CHOICES)),
                        Param("settings", Kind.TEXT, _options_help("Other settings as name=value words"),
                              words=True),
                    )),
        CommandSpec("ledger", "balances for this server, this period and all time [chart]", books, params=(chart,),
                    changes=False, at_table=False),
        CommandSpec("sheet", "a period's balances and the fewest payments that settle it [period] [settle] [chart]",
                    books, params=(period, Param("settle", Kind.FLAG, "Mark the period settled (admin); posts "
                                                 "the sheet in the channel"), chart), public=True, at_table=False),
        CommandSpec("stats", "a player's record, rating and its trend [player] [chart]", books,
                    params=(member, named, chart), changes=False, at_table=False),
        CommandSpec("leaderboard", "the top players [period|all] [by money|skill] [game]", books, params=(
            Param("period", Kind.TEXT, "YYYY-MM, or 'all' (default: this month)", suggest=Suggest.PERIODS_OR_ALL),
            Param("by", Kind.CHOICE, "Rank by skill (default) or money", choices=(("skill", "skill"),
                                                                                  ("money", "money"))),
            Param("game", Kind.CHOICE, f"Which game's ratings (default: {first})", choices=games),
        ), changes=False, at_table=False),
        CommandSpec("history", "recent rounds at this table", books, changes=False, at_table=False),
        CommandSpec("export", "the game record of this table (the liars replay format)", books, changes=False,
                    at_table=False),
        CommandSpec("help", "what each command does [command|game]", table, changes=False, in_dm=True, at_table=False,
                    aliases=("?",), params=(
                        Param("about", Kind.TEXT, "A command or a game to explain, e.g. bid or cards", words=True),)),
    )


_cache: tuple[tuple[object, ...], dict[str, CommandSpec], dict[str, str]] | None = None


def _built() -> tuple[dict[str, CommandSpec], dict[str, str]]:
    global _cache
    stamp = tuple(GAMES.values())
    if _cache is None or _cache[0] != stamp:
        specs = {s.name: s for s in table_commands()}
        for name, spec in game_commands().items():
            specs.setdefault(name, spec)
        aliases = {alias: s.name for s in specs.values() for alias in s.aliases if alias not in specs}
        _cache = (stamp, specs, aliases)
    return _cache[1], _cache[2]


def commands() -> dict[str, CommandSpec]:
    """Every command by name: the table's, then every registered game's."""
    return _built()[0]


def resolve(name: str) -> CommandSpec | None:
    """The command called ``name`` (or answering to it: ``raise`` is ``bid``), case-insensitively."""
    specs, aliases = _built()
    key = name.strip().lower()
    found = specs.get(aliases.get(key, key))
    if found is None and key.rstrip(".,;:!?") not in ("", key):  # "join.", "bid," and "hand?" as people type them
        return resolve(key.rstrip(".,;:!?"))
    return found


def game_of_command(game_name: str, name: str) -> CommandSpec | None:
    """``name`` (or an alias) as one game declares it, or None if that game has no such command."""
    key = name.strip().lower()
    return next((s for s in GAMES[game_name].commands if key == s.name or key in s.aliases), None)


def hand_labels() -> tuple[str, ...]:
    """The words on each game's ``hand`` button (``Game.hand``'s label), as registered."""
    return tuple(game.hand.label for game in GAMES.values() if game.hand is not None and game.hand.label)


def format_lines() -> str:
    """Every game's ways to play, a line each ("elimination (who pays for dinner): each round …"): the
    terminal's ``--format`` help."""
    return "; ".join(f"{name} ({words.gist})" + (f": {words.rule}" if words.rule else "")
                     for name, words in _formats().items())
