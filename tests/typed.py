"""Typed reads of the bot's state for tests.

The bot holds a table's match as the :class:`core.game.Match` protocol (``bot/`` knows no game's rules) and
a reply's data as JSON.  A test that opened a serial table knows its match is a :class:`SerialMatch`: it says
so here, with an ``isinstance`` assertion (not a cast), and mypy then checks what the test reads from it.
"""

from __future__ import annotations

from typing import Any, TypeVar

from bot.model import Reply, TableKey
from bot.service import Service
from bot.table import TableState
from core.cards.game import CardsMatch
from core.cards.round import Round as CardsRound
from core.serial.elimination.match import EliminationMatch
from core.serial.game import SerialMatch
from core.serial.round import Round

M = TypeVar("M")

__all__ = ["cards_match", "cards_round", "data", "elimination_match", "live_round", "serial_match", "table_of"]


def table_of(service: Service | None, key: TableKey) -> TableState:
    """The table at ``key`` (there must be one)."""
    assert service is not None
    table = service.table(key)
    assert table is not None
    return table


def _match_of(table: TableState | None, kind: type[M]) -> M:
    assert table is not None
    match = table.match
    assert isinstance(match, kind), match
    return match


def serial_match(table: TableState | None) -> SerialMatch:
    """The serial game's match at a table playing it."""
    return _match_of(table, SerialMatch)


def elimination_match(table: TableState | None) -> EliminationMatch:
    """The elimination match (who pays for dinner) at a table playing it."""
    return _match_of(table, EliminationMatch)


def cards_match(table: TableState | None) -> CardsMatch:
    """The card game's match at a table playing it."""
    return _match_of(table, CardsMatch)


def cards_round(table: TableState | None) -> CardsRound:
    """The card round at a card table (dealt)."""
    round_ = cards_match(table).engine.round
    assert round_ is not None
    return round_


def live_round(table: TableState | None) -> Round:
    """The serial round under way at a serial or an elimination table (there must be one)."""
    assert table is not None
    match = table.match
    assert isinstance(match, SerialMatch | EliminationMatch), match
    round_ = match.live_round
    assert round_ is not None
    return round_


def data(reply: Reply) -> dict[str, Any]:
    """A reply's data (there must be some), read as the JSON it is."""
    assert reply.data is not None, reply
    return dict(reply.data)
