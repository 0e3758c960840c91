"""Commands as data: one declaration per command, merged across games by name, found by alias."""

from __future__ import annotations

import pytest

from bot.commands import commands, game_of_command, resolve, table_commands
from core.commands import HELP_MAX, CommandSpec, Kind, Param, Section, merged
from core.registry import GAMES


def test_a_command_declared_by_two_games_takes_both_games_parameters() -> None:
    a = CommandSpec("poke", "poke", Section.MOVE, params=(Param("n", Kind.INT, "n", low=0, high=9, required=True),
                                                           Param("x", Kind.TEXT, "x", required=True)),
                    form=True, aliases=("p",))
    b = CommandSpec("poke", "poke again", Section.MOVE, params=(Param("x", Kind.TEXT, "x", required=True),
                                                                Param("y", Kind.FLAG, "y", required=True)),
                    aliases=("pk",))
    [spec] = merged([a, b]).values()
    required = {p.name: p.required for p in spec.params}
    assert required == {"n": False, "x": True, "y": False}  # required only where every game requires it
    assert spec.help == "poke" and spec.aliases == ("p", "pk") and not spec.form
    assert spec.usage == "poke [n] <x> [y]"
    long = "poke: " + "x" * HELP_MAX
    [kept] = merged([CommandSpec("poke", long, Section.MOVE, brief="poke a player"), b]).values()
    assert (kept.help, kept.short) == (long, "poke a player")  # the first declaration's words, brief too


def test_a_line_too_long_for_a_limited_platform_needs_a_brief_that_fits() -> None:
    fits = "p" * HELP_MAX
    assert CommandSpec("poke", fits, Section.MOVE).short == fits  # exactly the limit: the help itself
    long = fits + "!"
    with pytest.raises(ValueError, match="'poke': a line of 101 characters"):
        CommandSpec("poke", long, Section.MOVE)
    with pytest.raises(ValueError, match="needs a brief of at most 100"):
        CommandSpec("poke", long, Section.MOVE, brief=long)
    spec = CommandSpec("poke", long, Section.MOVE, brief=fits)
    assert (spec.help, spec.short) == (long, fits)


def test_start_and_config_keep_their_usage_words_in_help_and_a_brief_for_discord() -> None:
    specs = commands()
    assert [name for name, s in specs.items() if len(s.help) > HELP_MAX] == ["start", "config"]
    assert "[computers] [level]" in specs["start"].help and "history=month" in specs["config"].help
    assert specs["start"].short == ("open a table here: its game, rules, format, stake, seats, computer players "
                                    "and their level")
    assert specs["config"].short == ("server settings (admin): default rules and stake, unit value, currency, "
                                     "timeouts, history")
    assert all(s.short == s.help for name, s in specs.items() if name not in ("start", "config"))


def test_every_game_move_is_a_command_and_every_alias_finds_its_command() -> None:
    specs = commands()
    for game in GAMES.values():
        for spec in game.commands:
            assert spec.name in specs
            assert game_of_command(game.name, spec.name) is spec
            for alias in spec.aliases:
                found = resolve(alias)
                assert found is not None and found.name == spec.name
    raised = resolve("RAISE")  # the serial button's old name
    assert raised is not None and raised.name == "bid"
    assert resolve("flibber") is None
    for typed, name in (("join.", "join"), ("bid,", "bid"), ("Hand?", "hand"), ("status?!", "status"), ("?", "help")):
        found = resolve(typed)  # as people type them ("hand?" was no command)
        assert found is not None and found.name == name, typed
    assert resolve("??") is None and resolve("flibber?") is None
    assert game_of_command("cards", "bid") is None and game_of_command("serial", "declare") is None


def test_each_command_list_is_written_once() -> None:
    own = {s.name for s in table_commands()}
    games = {s.name for g in GAMES.values() for s in g.commands}
    assert not own & games  # no game redeclares a table command
    assert set(commands()) == own | games
    free = [s.name for s in commands().values() if sum(p.words for p in s.params) > 1]
    assert free == []  # at most one free-text parameter per command


@pytest.mark.parametrize(("typed", "value"), [("0" * 100 + "5", 5), ("0" * 101, 0), ("-" + "0" * 150 + "7", -7),
                                              (" +12 ", 12), ("-0", 0)])
def test_leading_zeros_do_not_make_a_number_too_long(typed: str, value: int) -> None:
    """Past 100 characters a number was "too large" however many of them were leading zeros (0…05 is 5)."""
    from core.commands import whole_number

    assert whole_number(typed) == value


@pytest.mark.parametrize(("typed", "negative"), [("9" * 101, False), ("+" + "1" * 500, False), ("-" + "3" * 101, True)])
def test_more_than_100_digits_is_too_many_not_no_number(typed: str, negative: bool) -> None:
    from core.commands import TooManyDigits, whole_number

    with pytest.raises(TooManyDigits) as info:
        whole_number(typed)
    assert info.value.negative is negative
    for not_a_number in ("0" * 5000 + "x", "٣" * 101, "", "+", "1_000"):
        with pytest.raises(ValueError) as plain:
            whole_number(not_a_number)
        assert not isinstance(plain.value, TooManyDigits)
