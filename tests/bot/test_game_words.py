"""The table's words that name a game's things are built from the games' declarations (``Game.hand``,
``Game.formats``), so ``bot/`` and the adapters name no game's words: with the built-in games they read
as before, and a plug-in's own words join them."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import discord
import pytest

from adapters.discord.commands import build_commands
from adapters.discord.render import TEXT, hand_button
from bot.cli import main
from bot.commands import commands, either, first_or, format_lines, hand_labels
from core.commands import HELP_MAX, FormatWords, HandWords
from core.registry import GAMES, register, unregister
from tests.conformance.guess import GuessGame


class TilesGame(GuessGame):  # the made-up game, here dealing hidden tiles and with a format of its own
    name = "tiles"
    title = "Tiles"
    hand: HandWords | None = HandWords("my tiles", "My tiles")
    options_example = "tiles=9"
    formats: Mapping[str, FormatWords] = {"usual": FormatWords("the usual game"),
                                          "sprint": FormatWords("three rounds only", "then it ends")}


class WordyGame(GuessGame):  # a plug-in whose words would not fit a platform's help whole
    name = "wordy"
    title = "Wordy"
    hand: HandWords | None = HandWords("the long list of secret things I was dealt this round", "My things")
    options_example = "sleepers=3 coffee=off lights=dim"
    formats: Mapping[str, FormatWords] = {
        "plain": FormatWords("as usual"),
        "marathon": FormatWords("a very long evening of many rounds", "it ends when everyone is asleep",
                                stake="what each sleeper pays the last one awake; 0 for nothing"),
    }


@pytest.fixture
def tiles() -> Iterator[None]:
    register(TilesGame())
    yield
    unregister("tiles")


@pytest.fixture
def wordy(tiles: None) -> Iterator[None]:
    register(WordyGame())
    yield
    unregister("wordy")


def _help(name: str, param: str) -> str:
    return next(p.help for p in commands()[name].params if p.name == param)


def test_the_built_in_games_words_read_as_before() -> None:
    specs = commands()
    assert specs["hand"].help == "show me my serial (or my cards) again, privately"
    assert "[level] [format=elimination] [option=value ...]" in specs["start"].help
    assert _help("start", "format") == "How the table plays: rounds (default) or elimination, who pays for dinner"
    assert _help("start", "stake") == ("Units won or lost per player per round (elimination: what the payer pays "
                                       "each; 0 for nothing)")
    assert hand_labels() == ("My serial", "My hand")
    assert _help("start", "options") == ("More rules as name=value words, e.g. rebid=on skunk=on (serial), jokers=2 "
                                         "pass=on (cards)")
    assert specs["last"].help == "declare the last round (host)"  # the table's word, not one game's "hand"
    assert hand_button(None) == "**My serial** (or **My hand**)"  # a table whose button is not known yet
    assert hand_button("My hand") == "**My hand**"
    assert TEXT["press_hand"].format(players="<@1>", hand=hand_button("My serial")) == (
        "<@1>: here I can only answer you, not write to you: press **My serial** on the table message to see "
        "yours, privately.")


def test_a_plug_ins_hand_and_formats_join_the_tables_words(tiles: None) -> None:
    specs = commands()
    assert specs["hand"].help == "show me my serial (or my cards, or my tiles) again, privately"
    assert "[format=elimination|sprint]" in specs["start"].help
    # each game's usual format is the default at its tables (not the first game's for every table); each
    # format's gist would not fit in 100 characters: the format option names them without
    assert _help("start", "format") == ("How the table plays: rounds or usual (each game's usual: the default), "
                                        "elimination or sprint")
    # the three games' examples would be 106 characters: as many as fit, whole, in the registry's order
    # (the terminal's --option help, which has room, names every game's: see below)
    assert _help("start", "options") == ("More rules as name=value words, e.g. rebid=on skunk=on (serial), jokers=2 "
                                         "pass=on (cards)")
    assert _help("start", "stake").endswith("(elimination: what the payer pays each; 0 for nothing)")  # sprint: usual
    assert hand_labels() == ("My serial", "My hand", "My tiles")
    assert hand_button(None) == "**My serial** (or **My hand**, or **My tiles**)"


def test_a_plug_ins_words_that_do_not_fit_are_shortened_to_whole_lines(wordy: None) -> None:
    specs = commands()
    assert specs["hand"].help == "show me what I was dealt again, privately"
    assert _help("start", "stake") == ("Units won or lost per player per round (in elimination or marathon: see the "
                                       "rules)")
    assert _help("start", "format") == ("How the table plays: each game's usual (the default), elimination, "
                                        "sprint or marathon")
    assert _help("start", "options") == ("More rules as name=value words, e.g. rebid=on skunk=on (serial), jokers=2 "
                                         "pass=on (cards)")
    assert _help("config", "settings") == ("Other settings as name=value words, e.g. rebid=on skunk=on (serial), "
                                           "jokers=2 pass=on (cards)")
    assert "[format=elimination|sprint|marathon]" in specs["start"].help


@pytest.mark.parametrize("plug_ins", [(), ("tiles",), ("wordy",)])
def test_every_help_fits_and_discord_gets_whole_words(plug_ins: tuple[str, ...],
                                                      request: pytest.FixtureRequest) -> None:
    """Every option's help fits Discord's 100 characters whole, whatever the games say; so does every
    command's line: its brief where its help (the usage words ``help`` lists) is longer."""
    for plug_in in plug_ins:
        request.getfixturevalue(plug_in)
    specs = commands()
    described = 0
    for group in build_commands():
        for command in group.commands:
            assert isinstance(command, discord.app_commands.Command)
            spec = specs[command.name]
            assert command.description == spec.short[:1].upper() + spec.short[1:]
            assert 0 < len(command.description) <= HELP_MAX and not command.description.endswith("…")
            for param in command.parameters:
                written = next(p.help for p in spec.params if p.name == param.name)
                assert param.description == written[:1].upper() + written[1:] and len(written) <= HELP_MAX
                described += 1
    assert described > 20


def test_the_terminals_format_help_names_each_way_to_play(capsys: pytest.CaptureFixture[str]) -> None:
    assert format_lines() == ("rounds (the usual game): every round's money moves at once; elimination (who pays "
                              "for dinner): each round one player leaves safe, the last one left pays each other "
                              "player the stake (stake=0: nothing is written)")
    with pytest.raises(SystemExit):
        main(["play", "--help"])
    assert "elimination (who pays for dinner)" in " ".join(capsys.readouterr().out.split())


def test_each_games_example_options_are_options_its_rules_take() -> None:
    """The help's examples come from the games (``Game.options_example``), so each must be a table's
    real words: its rules accept them, and change something from the game's usual rules."""
    shown = 0
    for game in GAMES.values():
        if not game.options_example:
            continue
        options = dict(word.split("=", 1) for word in game.options_example.split())
        assert game.make_rules(None, options) != game.make_rules(None, {})
        shown += 1
    assert shown == 2


def test_the_command_lines_help_names_every_game_and_its_examples(capsys: pytest.CaptureFixture[str],
                                                                   tiles: None) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    top = " ".join(capsys.readouterr().out.split())
    assert "its games: Liar's Poker (serial numbers), Liar's Poker with cards, Tiles." in top
    with pytest.raises(SystemExit):
        main(["play", "--help"])
    play = " ".join(capsys.readouterr().out.split())
    assert "e.g. --option rebid=on (serial), --option jokers=2 (cards), --option tiles=9 (tiles)" in play
    assert "serial (default), cards or tiles" in play
    assert "(serial: classic, quick or salomon; cards: standard, wild or knockout; tiles: standard)" in play
    assert "(serial: 2-12, cards: 2-10, tiles: 2-6)" in play, play  # each game's own (it said 2-12 for all)


def test_either_and_first_or_name_alternatives() -> None:
    assert [either(w) for w in ([], ["a"], ["a", "b"], ["a", "b", "c"])] == ["", "a", "a or b", "a, b or c"]
    assert [first_or(w) for w in ([], ["a"], ["a", "b"], ["a", "b", "c"])] == ["", "a", "a (or b)", "a (or b, or c)"]


def test_a_move_without_words_of_its_own_is_answered_done() -> None:
    from bot.messages import done

    guess = next(spec for spec in GuessGame.commands if spec.name == "guess")
    assert guess.done == "" and done(guess) == "Done."
    assert done(commands()["bid"]) == "Bid placed."
