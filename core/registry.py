"""The games by name: the one place ``bot/`` reaches a game through.

The registry is open: a plug-in (the tests' made-up third game) calls :func:`register` before the
service and the platforms build their commands, and every surface then offers its moves.
"""

from __future__ import annotations

from .commands import CommandSpec, merged
from .game import Game
from .records import DEFAULT_GAME

__all__ = ["DEFAULT_GAME", "GAMES", "game_commands", "get_game", "register", "unregister"]


def _games() -> dict[str, Game]:
    from .cards.game import CARDS
    from .serial.plugin import SERIAL

    return {SERIAL.name: SERIAL, CARDS.name: CARDS}


GAMES: dict[str, Game] = _games()


def get_game(name: str) -> Game:
    """The game called ``name``; ``KeyError`` names the games there are."""
    try:
        return GAMES[name]
    except KeyError:
        raise KeyError(f"unknown game {name!r}: choose {', '.join(GAMES)}") from None


def register(game: Game) -> None:
    """Add a game (a plug-in).  Call it before building a service or a platform's commands."""
    if game.name in GAMES and GAMES[game.name] is not game:
        raise ValueError(f"a game called {game.name!r} is already registered")
    GAMES[game.name] = game


def unregister(name: str) -> None:
    """Take a plug-in out again (the built-in games stay)."""
    if name == DEFAULT_GAME:
        raise ValueError("the default game stays registered")
    GAMES.pop(name, None)


def game_commands() -> dict[str, CommandSpec]:
    """Every game's moves and reads by name, as the registry stands now (several games may declare one
    name: see :func:`core.commands.merged`)."""
    return merged(spec for game in GAMES.values() for spec in game.commands)
