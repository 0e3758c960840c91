"""``solver``: a solved strategy for a small 2-player format, played from a table.

The table comes from CFR+ (``liars exploit --solve``, :mod:`core.serial.solve.cfr`) and ships as generated
data (:mod:`core.serial.players.solved_data`): for each abstract public state and each hand class,
the probability of each action in thousandths.  Pure: parsing a string, no I/O.

The abstract state, from the player to act (a :data:`StateKey`): whether it opened the round, the
standing bid (its index in the format, ``(q − 1) × D`` + the digit's rank position; −1 before the
first bid), the phase (0: bidding, 1: its own bid has been challenged all around and it may rebid),
whether the standing bid is a rebid, and the bids before the standing one that the table remembers
(``memory`` of them, most recent first, packed into one number by :func:`pack_memory`; −1 for
none).  A hand class is the copies held of each digit in play, in rank order, so the table fits
every rank order.  Action −1 is the answer that is not a raise (challenge, or call for the count);
any other action is a bid index.
"""

from __future__ import annotations

import base64
import lzma
import random
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Protocol, TypeVar

from ..bids import Bid
from ..hands import hand_order
from ..round import Action, CallCount, Challenge, MakeBid, Phase
from ..rules import Rules
from ..view import SeatView
from .base import Strategy, action_text, memo_key_of, pct, policy_of

__all__ = [
    "RowsOnUse",
    "Solved",
    "SolvedTable",
    "StateKey",
    "TablePlayer",
    "WithSolved",
    "abstract_key",
    "action_of",
    "deflate",
    "draw",
    "inflate",
    "key_lines",
    "mix_text",
    "pack_memory",
    "pack_table",
    "push_memory",
    "truncate_memory",
    "unpack_memory",
    "unpack_table",
]

StateKey = tuple[bool, int, int, bool, int]
Row = tuple[tuple[int, int], ...]


def rows_text(rows: Sequence[Row]) -> str:
    """A state's rows as the data modules write them: ``a=p,a=p`` (action = thousandths) per hand class, ``;``
    between hand classes."""
    return ";".join(",".join(f"{a}={p}" for a, p in row) for row in rows)


def rows_of(text: str, parsed: dict[str, tuple[Row, ...]]) -> tuple[Row, ...]:
    """The rows :func:`rows_text` wrote; a text already in ``parsed`` (the decoder's memo: many states share
    their rows, a table's first use parses about a quarter of its texts) is not parsed again."""
    rows = parsed.get(text)
    if rows is None:
        rows = parsed[text] = tuple(
            tuple((int(a), int(p)) for a, p in (pair.split("=") for pair in part.split(",") if pair))
            for part in text.split(";")
        )
    return rows


K = TypeVar("K")


class RowsOnUse(Mapping[K, tuple[Row, ...]]):
    """A table's entries whose row texts are parsed when first read, not when the table is decoded.

    A decoded table keeps each state's text (:func:`rows_text`) keyed by its line's own key text, so
    decoding parses neither keys nor rows: a key is written out by ``key_text`` when looked up, parsed by
    ``text_key`` (its inverse) when iterated, and a state's rows are parsed once, when first read (through
    :func:`rows_of`'s memo).  A game reads a few hundred states of a table's tens of thousands, so its
    first decision no longer waits for every row to be parsed (3-player 3×3, 46,115 states: about a
    second)."""

    def __init__(self, texts: Mapping[str, str], key_text: Callable[[K], str], text_key: Callable[[str], K]) -> None:
        self._texts = texts
        self._key_text = key_text
        self._text_key = text_key
        self._parsed: dict[str, tuple[Row, ...]] = {}

    def __getitem__(self, key: K) -> tuple[Row, ...]:
        return rows_of(self._texts[self._key_text(key)], self._parsed)

    def __iter__(self) -> Iterator[K]:
        return map(self._text_key, self._texts)

    def __len__(self) -> int:
        return len(self._texts)


def key_lines(text: str) -> tuple[str, dict[str, str]]:
    """A table's encoding split: its header line, and each state's row text keyed by the key text before its ``|``."""
    head, _, body = text.strip().partition("\n")
    return head, dict(line.split("|") for line in body.splitlines())


@dataclass(frozen=True)
class SolvedTable:
    """A solved strategy for 2 players, ``digits`` × ``serial_length``, with or without the rebid right."""

    digits: int
    serial_length: int
    rebid: bool
    memory: int
    entries: Mapping[StateKey, tuple[Row, ...]]

    def fits(self, rules: Rules, players: int) -> bool:
        """True when this table plays that table: 2 players, this format, flat payoffs (no bonus bids)."""
        return (
            players == 2
            and rules.digits == self.digits
            and rules.serial_length == self.serial_length
            and rules.rebid == self.rebid
            and rules.flat_payoffs(players)
        )

    def encode(self) -> str:
        """One line per state: ``opener standing phase rebid prev|a=p,a=p;a=p…`` (hands in class order)."""
        lines = [self.header()]
        for key, rows in sorted(self.entries.items()):
            lines.append(_key_text(key) + "|" + rows_text(rows))
        return "\n".join(lines)

    @classmethod
    def decode(cls, text: str) -> SolvedTable:
        """The table :meth:`encode` wrote; each state's rows are parsed when first read (:class:`RowsOnUse`)."""
        head, texts = key_lines(text)
        return replace(cls.shape(head), entries=RowsOnUse(texts, _key_text, _text_key))

    def header(self) -> str:
        """The first line of :meth:`encode`: ``digits serial_length rebid memory`` (what :meth:`fits` reads)."""
        return f"{self.digits} {self.serial_length} {int(self.rebid)} {self.memory}"

    @classmethod
    def shape(cls, header: str) -> SolvedTable:
        """A table with no entries, from a :meth:`header`: the format it fits, nothing to play."""
        digits, length, rebid, memory = (int(x) for x in header.split())
        return cls(digits, length, bool(rebid), memory, {})


def _key_text(key: StateKey) -> str:
    """A state's key as :meth:`SolvedTable.encode` writes it: ``opener standing phase rebid prev``."""
    o, standing, ph, r, prev = key
    return f"{int(o)} {standing} {ph} {int(r)} {prev}"


def _text_key(text: str) -> StateKey:
    o, standing, ph, r, prev = (int(x) for x in text.split())
    return (bool(o), standing, ph, bool(r), prev)


_XZ = "xz:"  # not a base-85 character: the mark of a table packed with LZMA (xz), in base 64
_B64 = "b64:"  # not a base-85 character: the mark of a table packed with zlib in base 64 (until session 21)


def deflate(text: str) -> tuple[str, str]:
    """(the first line, the whole text packed by LZMA (xz) and in base 64, marked ``xz:``): how a large table
    ships in a data module (the first line is its header, read without inflating the rest).  LZMA, not zlib
    (the packing until session 21): a quarter smaller on the large tables (the 3-player table of 189,752 states:
    8.0 MB in base 64 against 10.6 MB), for about three times as long to inflate (0.4 s against 0.13 s; tables
    inflate once, when first used).  Base 64, not 85: 7 % larger, but decoded in C (Python's base-85 decoder
    took 0.23 s for the 1.3 MB 3-player table)."""
    return text.split("\n", 1)[0], _XZ + base64.b64encode(lzma.compress(text.encode())).decode("ascii")


def inflate(packed: str) -> str:
    """The text :func:`deflate` packed: marked ``xz:`` (LZMA), or a table packed before, by zlib, in base 64
    (marked ``b64:``) or in base 85 (no mark).  Raises ValueError on text that is none of these (corrupt data
    or a bad mark: ``binascii.Error``, ``zlib.error`` and ``lzma.LZMAError`` as one kind)."""
    try:
        if packed.startswith(_XZ):
            return lzma.decompress(base64.b64decode(packed[len(_XZ):])).decode()
        if packed.startswith(_B64):
            return zlib.decompress(base64.b64decode(packed[len(_B64):])).decode()
        return zlib.decompress(base64.b85decode(packed)).decode()
    except (zlib.error, lzma.LZMAError) as exc:
        raise ValueError(f"not a packed table: {exc}") from exc


def pack_table(table: SolvedTable) -> tuple[str, str]:
    """(header, the encoding deflated): how a large abstract table ships (5×5 remembering one bid: 36.6 MB of
    text, 5.4 MB packed by zlib in base 64)."""
    return deflate(table.encode())


def unpack_table(packed: str) -> SolvedTable:
    return SolvedTable.decode(inflate(packed))


def _index(bid: Bid, rules: Rules) -> int:
    return (bid.quantity - 1) * rules.digits + rules.digit_set.index(bid.digit)


def pack_memory(bids: tuple[int, ...], nbids: int) -> int:
    """Remembered bid indices, most recent first, as one number: −1 for none; one bid: its index.

    In base ``nbids + 1``, digit ``i`` holds ``bids[i] + 1`` (so a 1-bid memory packs as the bid itself)."""
    value = 0
    for i, b in enumerate(bids):
        value += (b + 1) * (nbids + 1) ** i
    return value - 1


def unpack_memory(prev: int, nbids: int) -> tuple[int, ...]:
    """The bid indices :func:`pack_memory` packed into ``prev``, most recent first (none for −1)."""
    base, bids, value = nbids + 1, [], prev + 1
    while value:
        bids.append(value % base - 1)
        value //= base
    return tuple(bids)


def truncate_memory(prev: int, memory: int, nbids: int) -> int:
    """The packed memory ``prev`` keeping only its ``memory`` most recent bids (−1 for none)."""
    kept: int = (prev + 1) % (nbids + 1) ** memory
    return kept - 1


def push_memory(prev: int, standing: int, memory: int, nbids: int) -> int:
    """The packed memory after a new bid over ``standing`` (which becomes the most recent remembered bid)."""
    if memory == 0:
        return -1
    base = nbids + 1
    kept: int = (prev + 1) % base ** (memory - 1)
    return (standing + 1) + base * kept - 1


def abstract_key(view: SeatView, memory: int) -> StateKey:
    """The abstract public state of ``view`` for its player (see the module docstring)."""
    rules = view.rules
    history = view.history
    opener = (history[0].player if history else view.me) == view.me
    standing = -1 if view.standing_bid is None else _index(view.standing_bid, rules)
    phase = 1 if view.phase is Phase.REBID else 0
    prev = -1
    if memory and standing >= 0:
        bids = [_index(a.bid, rules) for a in history if isinstance(a, MakeBid)]
        before = bids[-1 - memory : -1][::-1]  # the bids before the standing one, most recent first
        prev = pack_memory(tuple(before), rules.serial_length * 2 * rules.digits)
    return (opener, standing, phase, view.standing_is_rebid, prev)


class Solved:
    """Plays a :class:`SolvedTable` (a CFR+ solution) in the format it fits.

    Built from a table, or from a packed one (:func:`pack_table`), which is inflated and parsed only the
    first time a table in its own format asks for a decision (about 0.3 s for the 5×5 table remembering one bid,
    beside a busy core; the whole first decision: `bench/players.py`)."""

    def __init__(self, table: SolvedTable | tuple[str, str], name: str = "solver") -> None:
        if isinstance(table, SolvedTable):
            self.__dict__["table"] = table
            self.shape = SolvedTable.shape(table.header())
        else:
            self.shape = SolvedTable.shape(table[0])
            self._packed = table[1]
        self.name = name
        self._hands = hand_order(self.shape.digits, self.shape.serial_length)

    @cached_property
    def table(self) -> SolvedTable:
        return unpack_table(self._packed)

    def fits(self, view: SeatView) -> bool:
        return self.shape.fits(view.rules, view.n)

    def _row(self, view: SeatView) -> Row:
        key = abstract_key(view, self.shape.memory)
        hand = tuple(view.serial.counts[d] for d in view.rules.digit_set)
        return self.table.entries[key][self._hands[hand]]

    def policy(self, view: SeatView) -> list[tuple[Action, float]]:
        return [(action_of(view, a), p / 1000) for a, p in self._row(view)]

    def memo_key(self, view: SeatView) -> tuple[object, ...]:
        return abstract_key(view, self.shape.memory)

    def decide(self, view: SeatView, rng: random.Random) -> Action:
        return action_of(view, draw(self._row(view), rng))

    def explain(self, view: SeatView) -> str:
        return (
            f"In this {view.rules.format_name} heads-up format I play a solved (CFR+) strategy, mixing so that "
            f"my bids do not give my serial away: here I {mix_text(self.policy(view))}."
        )


def action_of(view: SeatView, code: int) -> Action:
    """A table's action code as the seat's action: −1 the answer that is not a raise, else a bid index."""
    if code == -1:
        return Challenge(view.me) if view.legal.challenge else CallCount(view.me)
    rules = view.rules
    q, r = divmod(code, rules.digits)
    return MakeBid(view.me, Bid(q + 1, rules.digit_set[r], rules.rank_order))


def draw(row: Row, rng: random.Random) -> int:
    """One action code of a row (probabilities in thousandths), from a single ``rng.randrange`` draw."""
    x = rng.randrange(1000)
    for code, p in row:
        x -= p
        if x < 0:
            return code
    return row[-1][0]


def mix_text(policy: list[tuple[Action, float]]) -> str:
    """A mixture in words, likeliest first (four at most): "bid 2 threes 60%, challenge 40%"."""
    return ", ".join(f"{action_text(action)} {pct(p)}" for action, p in sorted(policy, key=lambda ap: -ap[1])[:4])


class TablePlayer(Strategy, Protocol):
    """A table-driven strategy that says whether it fits a view (:class:`Solved` and its kin)."""

    def fits(self, view: SeatView) -> bool: ...

    def policy(self, view: SeatView) -> list[tuple[Action, float]]: ...


def table_players(strategy: object) -> list[object]:
    """The players a strategy is made of that may play a table: itself, then those a :class:`WithSolved` holds
    (``hard``, ``solver``).  The research tools pick the one whose table fits by its shape, unparsed."""
    return [strategy, *getattr(strategy, "solved", ())]


class WithSolved:
    """``inner`` everywhere except in a format a solved table fits, where the table plays."""

    def __init__(self, inner: Strategy, solved: Sequence[TablePlayer], name: str) -> None:
        self.inner = inner
        self.solved = list(solved)
        self.name = name

    def _pick(self, view: SeatView) -> Strategy:
        for s in self.solved:
            if s.fits(view):
                return s
        return self.inner

    def table_for(self, view: SeatView) -> Strategy | None:
        """The solved table that plays here, or None where ``inner`` does."""
        picked = self._pick(view)
        return None if picked is self.inner else picked

    def decide(self, view: SeatView, rng: random.Random) -> Action:
        return self._pick(view).decide(view, rng)

    def explain(self, view: SeatView) -> str:
        return self._pick(view).explain(view)

    def policy(self, view: SeatView) -> list[tuple[Action, float]]:
        return policy_of(self._pick(view), view)

    def memo_key(self, view: SeatView) -> tuple[object, ...] | None:
        return memo_key_of(self._pick(view), view)
