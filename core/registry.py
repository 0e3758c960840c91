"""The games by name: the one place ``bot/`` reaches a game through."""

from __future__ import annotations

from .game import Game

__all__ = ["DEFAULT_GAME", "GAMES", "get_game"]

DEFAULT_GAME = "serial"


def _games() -> dict[str, Game]:
    from .serial.plugin import SERIAL

    games: dict[str, Game] = {SERIAL.name: SERIAL}
    try:
        from .cards.game import CARDS
    except ImportError:  # pragma: no cover - while the card game is being built
        return games
    games[CARDS.name] = CARDS
    return games


GAMES: dict[str, Game] = _games()


def get_game(name: str) -> Game:
    """The game called ``name``; ``KeyError`` names the games there are."""
    try:
        return GAMES[name]
    except KeyError:
        raise KeyError(f"unknown game {name!r}: choose {', '.join(GAMES)}") from None
