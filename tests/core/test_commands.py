"""Commands as data: one declaration per command, merged across games by name, found by alias."""

from __future__ import annotations

from bot.commands import commands, game_of_command, resolve, table_commands
from core.commands import CommandSpec, Kind, Param, Section, merged
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


def test_every_game_move_is_a_command_and_every_alias_finds_its_command() -> None:
    specs = commands()
    for game in GAMES.values():
        for spec in game.commands:
            assert spec.name in specs
            assert game_of_command(game.name, spec.name) is spec
            for alias in spec.aliases:
                found = resolve(alias)
                assert found is not None and found.name == spec.name
    assert resolve("RAISE").name == "bid"  # type: ignore[union-attr]  # the serial button's old name
    assert resolve("flibber") is None
    assert game_of_command("cards", "bid") is None and game_of_command("serial", "declare") is None


def test_each_command_list_is_written_once() -> None:
    own = {s.name for s in table_commands()}
    games = {s.name for g in GAMES.values() for s in g.commands}
    assert not own & games  # no game redeclares a table command
    assert set(commands()) == own | games
    free = [s.name for s in commands().values() if sum(p.words for p in s.params) > 1]
    assert free == []  # at most one free-text parameter per command
