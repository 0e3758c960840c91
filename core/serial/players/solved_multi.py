"""A solved strategy for a small format at a table of 3 or more: a CFR+ table keyed by an abstract public state.

The table comes from :mod:`core.serial.solve.cfr_multi` (``liars exploit --solve --players 3``) and
ships as generated data (:mod:`core.serial.players.solved_multi_data`).  The abstract state (a
:data:`MultiKey`), from the seat to act, seats counted clockwise from the round's opener (0): its own
seat, the standing bid's index (``(q − 1) × D`` + the digit's rank position; −1 before the opening),
the standing bid's bidder (−1 before), the phase (0: bidding; 1: its own bid challenged all around,
it may rebid), whether the standing bid is a rebid, and the ``memory`` bids before the standing one
(:func:`~core.serial.players.solved.pack_memory`) — or, in a table solved *with the opening*
(``opening``), the ``memory`` − 1 bids before the standing one and the round's opening bid, once
the opening is older than those (:func:`opening_memory`; as many states as without it, other bids
remembered); and, in a table solved with *named digits* (``named``, a set of seats as bits), the digits
each of those seats has named in the bids before the standing one (:func:`pack_named`: the bids in the
low places, the digits above them).  Who has challenged follows from the seats: in
``all`` mode they are the seats between the bidder and the seat to act.  Each hand class (copies
held of each digit in play, in rank order) has its mixture over actions in thousandths; −1 is the
answer that is not a raise (challenge, or call for the count).

It fits a table of its size and format with its rebid rule, ``all`` challenge mode and flat
payoffs (no size, sixes, hero or skunk bonus); elsewhere :class:`~.solved.WithSolved` plays its
inner strategy.  Pure: parsing a string, no I/O.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cached_property

from ..hands import hand_order
from ..round import Action, MakeBid, Phase
from ..rules import ChallengeMode, Rules
from ..view import SeatView
from .solved import (
    Row,
    RowsOnUse,
    _index,
    action_of,
    deflate,
    draw,
    inflate,
    key_lines,
    mix_text,
    pack_memory,
    rows_text,
    unpack_memory,
)

__all__ = [
    "MultiKey",
    "MultiTable",
    "SolvedMulti",
    "multi_key",
    "named_bit",
    "opening_memory",
    "pack_multi",
    "pack_named",
    "push_opening_memory",
    "split_named",
    "unpack_multi",
]

MultiKey = tuple[int, int, int, int, int, int]  # (seat to act, standing, bidder, phase, is rebid, memory)


@dataclass(frozen=True)
class MultiTable:
    """A solved strategy for ``players`` seats, ``digits`` × ``serial_length``, with or without the rebid right."""

    players: int
    digits: int
    serial_length: int
    rebid: bool
    memory: int
    entries: Mapping[MultiKey, tuple[Row, ...]]
    opening: bool = False  # remembers the opening bid in place of the oldest of its ``memory`` bids
    named: int = 0  # the seats (bit s for seat s) whose named digits it remembers (:func:`pack_named`)

    def fits(self, rules: Rules, players: int) -> bool:
        """True at a table of this size and format, these rules: ``all`` mode, flat payoffs."""
        return (
            players == self.players
            and rules.digits == self.digits
            and rules.serial_length == self.serial_length
            and rules.rebid == self.rebid
            and rules.challenge_mode is ChallengeMode.ALL
            and rules.flat_payoffs(players)
        )

    def encode(self) -> str:
        """:meth:`header`, then a line per state: ``key…|a=p,a=p;…`` by hand class."""
        lines = [self.header()]
        for key, rows in sorted(self.entries.items()):
            lines.append(_key_text(key) + "|" + rows_text(rows))
        return "\n".join(lines)

    @classmethod
    def decode(cls, text: str) -> MultiTable:
        """The table :meth:`encode` wrote; each state's rows are parsed when first read (:class:`RowsOnUse`)."""
        head, texts = key_lines(text)
        return replace(cls.shape(head), entries=RowsOnUse(texts, _key_text, _text_key))

    def header(self) -> str:
        """The first line of :meth:`encode`: ``players digits serial_length rebid memory``, then `` 1`` for a
        table with the opening and `` named=N`` for one with named digits (``N`` the seats as bits); tables
        without either keep the five fields they always had."""
        head = f"{self.players} {self.digits} {self.serial_length} {int(self.rebid)} {self.memory}"
        return head + (" 1" if self.opening else "") + (f" named={self.named}" if self.named else "")

    @classmethod
    def shape(cls, header: str) -> MultiTable:
        """A table with no entries, from a :meth:`header`: the table and format it fits, nothing to play."""
        fields = header.split()
        named = 0
        if len(fields) > 5 and fields[-1].startswith("named="):
            text = fields.pop()[len("named="):]
            named = int(text) if text.isdigit() else 0
        if (len(fields) not in (5, 6) or fields[5:] not in ([], ["1"]) or fields[3] not in ("0", "1")
                or not all(f.isdigit() for f in fields[:5]) or (header.count("named=") and not named)
                or named >= 1 << int(fields[0])):
            raise ValueError(f"not a table's header (players digits length rebid memory, 1 with the opening, "
                             f"named=N with named digits): {header!r}")
        players, digits, length, rebid, memory = (int(x) for x in fields[:5])
        return cls(players, digits, length, bool(rebid), memory, {}, len(fields) == 6, named)


def _key_text(key: MultiKey) -> str:
    """A state's key as :meth:`MultiTable.encode` writes it."""
    return " ".join(map(str, key))


def _text_key(text: str) -> MultiKey:
    a, s, b, ph, r, prev = (int(x) for x in text.split())
    return (a, s, b, ph, r, prev)


def pack_multi(table: MultiTable) -> tuple[str, str]:
    """(header, the encoding packed by :func:`deflate`, marked ``xz:``): how the data module ships a table."""
    return deflate(table.encode())


def unpack_multi(packed: str) -> MultiTable:
    return MultiTable.decode(inflate(packed))


def opening_memory(before: tuple[int, ...], memory: int) -> tuple[int, ...]:
    """What a table with the opening remembers of the bids ``before`` the standing one (most recent first): all
    of them while they are at most ``memory`` (≥ 1), else the ``memory`` − 1 most recent and the opening (the last)."""
    if memory < 1:
        raise ValueError("a table with the opening remembers at least one bid")
    if len(before) <= memory:
        return before
    return before[: memory - 1] + before[-1:]


def push_opening_memory(prev: int, standing: int, memory: int, nbids: int) -> int:
    """:func:`~.solved.push_memory` for a table with the opening (``memory`` ≥ 1): the packed memory after a new
    bid over ``standing``.  A packed memory of ``memory`` bids ends with the opening whether or not bids between
    were forgotten, so :func:`opening_memory` of ``standing`` and it keeps the opening and moves the rest up."""
    return pack_memory(opening_memory((standing, *unpack_memory(prev, nbids)), memory), nbids)


def named_bit(seat: int, bid: int, digits: int) -> int:
    """The bit a bid of index ``bid`` by ``seat`` sets in a named-digits set: seat ``seat``'s place for its digit."""
    return 1 << (seat * digits + bid % digits)


def pack_named(bids: int, named: int, memory: int, nbids: int) -> int:
    """One number for a packed memory of ``memory`` bids (:func:`~.solved.pack_memory`, −1 for none) and a set of
    named digits (bits, :func:`named_bit`): the digits above the bids' places, so that with none named it is the
    packed memory itself (−1 with neither)."""
    scale: int = (nbids + 1) ** memory
    return (bids + 1) + scale * named - 1


def split_named(prev: int, memory: int, nbids: int) -> tuple[int, int]:
    """The packed memory and the named digits that :func:`pack_named` packed into ``prev``."""
    scale: int = (nbids + 1) ** memory
    return (prev + 1) % scale - 1, (prev + 1) // scale


def multi_key(view: SeatView, memory: int, opening: bool = False, named: int = 0) -> MultiKey:
    """The abstract public state of ``view`` for its seat (see the module docstring)."""
    rules, players, n = view.rules, view.players, view.n
    history = view.history
    opener = players.index(history[0].player if history else view.me)

    def seat(player: str) -> int:
        return (players.index(player) - opener) % n

    standing = -1 if view.standing_bid is None else _index(view.standing_bid, rules)
    bidder = -1 if view.bidder is None else seat(view.bidder)
    prev = -1
    nbids = rules.serial_length * n * rules.digits
    remembers = standing >= 0 and (memory > 0 or named != 0)  # a standing bid, and something before it to keep
    made = [(seat(a.player), _index(a.bid, rules)) for a in history if isinstance(a, MakeBid)] if remembers else []
    if memory > 0 and made:
        bids = [bid for _, bid in made]
        if opening:
            before = opening_memory(tuple(bids[-2::-1]), memory)  # every bid before the standing one, most recent first
        else:
            before = tuple(bids[-1 - memory : -1][::-1])  # the bids before the standing one, most recent first
        prev = pack_memory(before, nbids)
    if named and made:
        digits = 0
        for who, bid in made[:-1]:  # the bids before the standing one
            if named >> who & 1:
                digits |= named_bit(who, bid, rules.digits)
        prev = pack_named(prev, digits, memory, nbids)
    phase = 1 if view.phase is Phase.REBID else 0
    return (seat(view.me), standing, bidder, phase, int(view.standing_is_rebid), prev)


class SolvedMulti:
    """Plays a :class:`MultiTable` where it fits (the table and the state); built from a table or a packed
    one (:func:`pack_multi`), inflated and parsed the first time it is needed at its own table."""

    def __init__(self, table: MultiTable | tuple[str, str], name: str = "solver") -> None:
        if isinstance(table, MultiTable):
            self.__dict__["table"] = table
            self.shape = replace(table, entries={})  # what it fits; no entries
        else:
            self._packed = table[1]
            self.shape = MultiTable.shape(table[0])
        self.name = name
        self.memory = self.shape.memory
        self.opening = self.shape.opening
        self.named = self.shape.named
        self._hands = hand_order(self.shape.digits, self.shape.serial_length)

    @cached_property
    def table(self) -> MultiTable:
        return unpack_multi(self._packed)

    def _lookup(self, view: SeatView) -> Row:
        rows = self.table.entries.get(multi_key(view, self.memory, self.opening, self.named))
        if rows is None:
            return ()
        return rows[self._hands[tuple(view.serial.counts[d] for d in view.rules.digit_set)]]

    def fits(self, view: SeatView) -> bool:
        return self.shape.fits(view.rules, view.n) and bool(self._lookup(view))

    def policy(self, view: SeatView) -> list[tuple[Action, float]]:
        return [(action_of(view, a), p / 1000) for a, p in self._lookup(view)]

    def memo_key(self, view: SeatView) -> tuple[object, ...]:
        return ("multi", multi_key(view, self.memory, self.opening, self.named))

    def decide(self, view: SeatView, rng: random.Random) -> Action:
        return action_of(view, draw(self._lookup(view), rng))

    def explain(self, view: SeatView) -> str:
        return (
            f"At this {view.n}-player {view.rules.format_name} table I play a solved (CFR+) strategy, mixing so "
            f"that my bids do not give my serial away: here I {mix_text(self.policy(view))}."
        )
