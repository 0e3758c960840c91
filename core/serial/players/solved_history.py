"""A solved strategy that remembers the bidding: a CFR+ table keyed by the history, not an abstract state.

:mod:`core.serial.players.solved` keys its tables by the standing bid and the one before it, so its
player forgets older bids; that caps how close to an equilibrium it can get (0.107 in 3×3).  The
tables here come from CFR+ over the real history (``python -m core.serial.solve.cfr_full``): a node is the
player to act (whether it opened the round), the phase (0: answering or opening, 1: its own bid
challenged all around, deciding on a rebid) and the last ``memory`` bids of the round, each coded
``2 × bid index + 1 if it was a rebid`` (the bid index is ``(q − 1) × D`` + the digit's rank
position).  Only the nodes and hands the strategy itself reaches with positive probability are
kept (any opponent play), with each action's probability in thousandths.

Data: :mod:`core.serial.players.solved_history_data` (generated).  Pure: parsing a string, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

from ..hands import hand_order
from ..round import Challenge, MakeBid, Phase
from ..rules import Rules
from ..view import SeatView
from .solved import Row, RowsOnUse, Solved, SolvedTable, _index, deflate, inflate, key_lines, rows_text

__all__ = ["HistoryKey", "HistoryTable", "SolvedHistory", "history_key_of", "pack", "unpack"]

HistoryKey = tuple[bool, int, tuple[int, ...]]


def history_key_of(view: SeatView, memory: int) -> HistoryKey:
    """The node of ``view`` for its player: (opened the round, phase, last ``memory`` coded bids)."""
    history = view.history
    opener = (history[0].player if history else view.me) == view.me
    bids: list[int] = []
    after_challenge = False
    for action in history:
        if isinstance(action, MakeBid):
            bids.append(2 * _index(action.bid, view.rules) + int(after_challenge))
        after_challenge = isinstance(action, Challenge)
    phase = 1 if view.phase is Phase.REBID else 0
    kept = tuple(bids[-memory:]) if len(bids) > memory else tuple(bids)
    return (opener, phase, kept)


@dataclass(frozen=True)
class HistoryTable:
    """A history-keyed solved strategy for 2 players, ``digits`` × ``serial_length``."""

    digits: int
    serial_length: int
    rebid: bool
    memory: int
    entries: Mapping[HistoryKey, tuple[Row, ...]]

    def fits(self, rules: Rules, players: int) -> bool:
        return SolvedTable(self.digits, self.serial_length, self.rebid, self.memory, {}).fits(rules, players)

    def encode(self) -> str:
        """``digits length rebid memory`` then one line per node: ``opener phase bids…|a=p,a=p;…`` by hand class."""
        lines = [f"{self.digits} {self.serial_length} {int(self.rebid)} {self.memory}"]
        for key, rows in sorted(self.entries.items()):
            lines.append(_key_text(key) + "|" + rows_text(rows))
        return "\n".join(lines)

    @classmethod
    def decode(cls, text: str) -> HistoryTable:
        """The table :meth:`encode` wrote; each node's rows are parsed when first read (:class:`RowsOnUse`)."""
        head, texts = key_lines(text)
        digits, length, rebid, memory = (int(x) for x in head.split())
        return cls(digits, length, bool(rebid), memory, RowsOnUse(texts, _key_text, _text_key))


def _key_text(key: HistoryKey) -> str:
    """A node's key as :meth:`HistoryTable.encode` writes it: ``opener phase bids…``."""
    o, ph, bids = key
    return " ".join(str(x) for x in (int(o), ph, *bids))


def _text_key(text: str) -> HistoryKey:
    o, ph, *bids = (int(x) for x in text.split())
    return (bool(o), ph, tuple(bids))


def pack(table: HistoryTable) -> tuple[str, str]:
    """(header, the table's encoding packed by :func:`deflate`, marked ``xz:``): how the data module ships a table."""
    return deflate(table.encode())


def unpack(packed: str) -> HistoryTable:
    return HistoryTable.decode(inflate(packed))


class SolvedHistory(Solved):
    """Plays a :class:`HistoryTable` where it has the node and the hand (always, playing its own table).

    Built from a table, or from a packed one (:func:`pack`), which is only inflated and parsed the
    first time it is needed in its own format (about half a second of CPU for the 3×3 table: `bench/players.py`)."""

    def __init__(self, table: HistoryTable | tuple[str, str], name: str = "solver") -> None:
        if isinstance(table, HistoryTable):
            self.__dict__["history_table"] = table
            shape = SolvedTable(table.digits, table.serial_length, table.rebid, table.memory, {})
        else:
            self._packed = table[1]
            shape = SolvedTable.shape(table[0])  # a history table's header reads as an abstract one's
        self.name = name
        self._hands = hand_order(shape.digits, shape.serial_length)
        self.memory = shape.memory
        self.table = self.shape = shape  # the format it fits; no entries

    @cached_property
    def history_table(self) -> HistoryTable:
        return unpack(self._packed)

    def _lookup(self, view: SeatView) -> Row | None:
        rows = self.history_table.entries.get(history_key_of(view, self.memory))
        if rows is None:
            return None
        hand = tuple(view.serial.counts[d] for d in view.rules.digit_set)
        row = rows[self._hands[hand]] if self._hands[hand] < len(rows) else ()
        return row or None

    def fits(self, view: SeatView) -> bool:
        return self.table.fits(view.rules, view.n) and self._lookup(view) is not None

    def _row(self, view: SeatView) -> Row:
        """The node's row for this hand; empty where the table never gets there holding it (so its
        :meth:`policy` is empty there: a hand it cannot hold at that node, as a best response asks)."""
        return self._lookup(view) or ()

    def memo_key(self, view: SeatView) -> tuple[object, ...]:
        return ("history", history_key_of(view, self.memory))

