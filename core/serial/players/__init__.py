"""Computer players for the serial-number game: pure, synchronous, seeded, no I/O.

A strategy is any object with ``name``, ``decide(view, rng) -> Action`` and ``explain(view) -> str``
(:class:`Strategy`).  It sees a :class:`~core.view.SeatView` (its own serial and the public
history, never another serial) and draws every random choice from the ``random.Random`` it is
handed, so a seeded run replays exactly.

Names (:data:`STRATEGY_NAMES`, all accepted by :func:`get_strategy`):

``random``
    Uniform over the legal actions.
``binomial``
    The greedy baseline: the raise most likely true from its own serial, or a challenge when that
    is at least as likely to win.
``always-challenge`` / ``raise-by-one``
    Trivial counters: challenge everything (opening with the bid it is sure of, calling for the
    count when challenged all around), or always make the smallest raise.
``reader``
    The strong player: reads the others' bids and challenges as evidence about their serials and
    chooses by expected units under the table's payoffs (:mod:`core.players.reader`).
``trained``
    ``reader`` with the dials learned by self-play for the table (:mod:`core.serial.players.trained`):
    what ``hard`` plays wherever no solved table fits.
``easy`` / ``normal`` / ``hard``
    The difficulty levels offered to people, all one learned strategy: ``hard`` is ``reader`` with
    the dials trained by self-play for the table's preset and size (:mod:`core.serial.players.trained`,
    from ``liars train``), except in a small format with a solved table (2-player 2×2, 3×2, 3×3
    with the rebid right, 5×5 with or without it; 3-player 3×3 with the rebid right:
    :mod:`core.serial.players.solved_multi`), where it plays the table; ``normal`` is the trained
    player making a plausible slip about one decision in eight, ``easy`` two in five.
``expert``
    Search from beliefs at decision time (:mod:`core.serial.players.expert`): particles over the others'
    holdings weighed by ``hard``'s exact mixture, each option played out; the solved table where ``hard``
    plays one.  Heads-up classic, each particle is also a type — ``hard``, ``hard`` with an honest
    opening, or ``binomial`` — inferred from the round.  Offered as a level, never the default (:data:`DEFAULT_LEVEL`).
``solver``
    The solved (CFR+) strategy where a table fits the format: in 3×3 the history-keyed table of
    :mod:`core.serial.players.solved_history` (:mod:`~core.serial.players.solved_history_data`),
    else the abstract tables of :mod:`core.serial.players.solved`
    (:mod:`core.serial.players.solved_data`; in 5×5 the deflated ones of
    :mod:`core.serial.players.solved_packed_data`); ``reader`` elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from .base import Strategy
from .expert import Expert
from .reader import Reader, ReaderParams
from .simple import AlwaysChallenge, Binomial, Noisy, RaiseByOne, RandomPlayer
from .solved import Solved, SolvedTable, WithSolved
from .solved_data import TABLES
from .solved_history import SolvedHistory
from .solved_history_data import TABLES as HISTORY_TABLES
from .solved_multi import SolvedMulti
from .solved_multi_data import TABLES as MULTI_TABLES
from .solved_packed_data import TABLES as PACKED_TABLES
from .trained import TrainedReader

__all__ = [
    "DEFAULT_LEVEL",
    "DIFFICULTY_LEVELS",
    "STRATEGY_NAMES",
    "AlwaysChallenge",
    "Binomial",
    "Expert",
    "Noisy",
    "RaiseByOne",
    "RandomPlayer",
    "Reader",
    "ReaderParams",
    "Solved",
    "SolvedHistory",
    "SolvedMulti",
    "SolvedTable",
    "Strategy",
    "TrainedReader",
    "get_strategy",
    "solved_strategies",
]


def _easy() -> Strategy:
    return Noisy(TrainedReader(name="easy-trained"), noise=0.4, name="easy")


def _normal() -> Strategy:
    return Noisy(TrainedReader(name="normal-trained"), noise=0.12, name="normal")


@cache
def _solved_tables() -> tuple[SolvedTable, ...]:
    """The shipped tables, parsed once per process (a few hundred kilobytes: ~70 ms), on first use."""
    return tuple(SolvedTable.decode(text) for text in TABLES)


def solved_strategies() -> list[Solved]:
    """One :class:`Solved` per shipped table, the history-keyed ones first (so they play where they fit;
    the tables are parsed once and shared; nothing mutates them)."""
    history: list[Solved] = list(_history_strategies())
    return history + [Solved(table) for table in _solved_tables()] + list(_packed_strategies())


@cache
def _packed_strategies() -> tuple[Solved, ...]:
    """The larger abstract tables (5×5), shipped deflated: each is inflated and parsed once, when first used
    in its format (shared; nothing mutates them)."""
    return tuple(Solved(packed) for packed in PACKED_TABLES)


@cache
def _history_strategies() -> tuple[SolvedHistory, ...]:
    """The history-keyed tables (shared: each is inflated and parsed once, when first used in its format)."""
    return tuple(SolvedHistory(packed) for packed in HISTORY_TABLES)


@cache
def _multi_strategies() -> tuple[SolvedMulti, ...]:
    """The tables for 3 or more players (each inflated and parsed when first used at its table)."""
    return tuple(SolvedMulti(packed) for packed in MULTI_TABLES)


def _hard() -> Strategy:
    return WithSolved(TrainedReader(name="hard"), [*solved_strategies(), *_multi_strategies()], name="hard")


def _honest_hard() -> Strategy:
    """``hard`` with an honest opening (``open_one`` 0): the type ``expert`` infers beside ``hard`` itself."""
    return WithSolved(
        TrainedReader(name="hard", changes=HONEST_OPENING), [*solved_strategies(), *_multi_strategies()],
        name="hard (honest opening)",
    )


def _expert() -> Strategy:
    hard = 1.0 - HONEST_PRIOR - BINOMIAL_PRIOR
    return Expert(_hard, types=((_hard, hard), (_honest_hard, HONEST_PRIOR), (Binomial, BINOMIAL_PRIOR)))


def _solver() -> Strategy:
    return WithSolved(Reader(name="reader"), [*solved_strategies(), *_multi_strategies()], name="solver")


HONEST_OPENING = {"open_one": 0.0}  # the dials that make hard's opening honest
HONEST_PRIOR = 1 / 3  # expert's prior that the other is hard with an honest opening (README: "A mixture of types")
BINOMIAL_PRIOR = 1 / 3  # expert's prior that the other plays as binomial (the greedy baseline)

_FACTORIES: dict[str, Callable[[], Strategy]] = {
    "random": RandomPlayer,
    "binomial": Binomial,
    "always-challenge": AlwaysChallenge,
    "raise-by-one": RaiseByOne,
    "reader": Reader,
    "trained": TrainedReader,
    "easy": _easy,
    "normal": _normal,
    "hard": _hard,
    "expert": _expert,
    "solver": _solver,
}

STRATEGY_NAMES: tuple[str, ...] = tuple(_FACTORIES)
DIFFICULTY_LEVELS: tuple[str, ...] = ("easy", "normal", "hard", "expert")
DEFAULT_LEVEL = "hard"  # what a table seats when no level is asked for: expert thinks up to a second a move


def get_strategy(name: str) -> Strategy:
    """A fresh strategy by name (case and ``_``/``-`` insensitive); ``KeyError`` names the choices."""
    key = name.strip().lower().replace("_", "-")
    try:
        factory = _FACTORIES[key]
    except KeyError:
        raise KeyError(f"unknown strategy {name!r}; strategies are: {', '.join(STRATEGY_NAMES)}") from None
    return factory()
