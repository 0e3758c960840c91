"""Skill ratings from rankings (openskill's Plackett-Luce model), leaderboards, and per-player stats.

Ratings know no game's rules: they consume **rankings**, which the games provide. A ranking is a tuple
of groups of player ids, best first; players in one group are tied. The serial game's counted round
ranks its winner(s) above its losers (:func:`ranking_from_nets` builds that from the round's nets);
the card game ranks its finishing order. A result with fewer than two groups (a push, one player)
carries no information and changes no rating.

The primary API is :func:`rebuild`: a pure, deterministic fold of the stored results, in order, so the
service can recompute every rating exactly whenever the model changes (:data:`MODEL_ID` names the model
and its parameters; store it beside cached ratings). :func:`update` adds one result to existing
ratings and gives exactly the numbers :func:`rebuild` gives for the longer sequence.

Each player's rating is (mu, sigma); the **conservative estimate** ``ordinal = mu − 3σ`` orders the
skill leaderboard (a newcomer's 25 − 3 × 8.33 = 0 ranks below a proven player with a lower mu), and is
shown as ``display = round(1000 + 40 × ordinal)`` (a newcomer shows 1000).

:class:`RatingBook` keeps every server's ratings in memory, per game and per ledger period, built from
the store's round rows on first use and brought up to date with the rows stored since (by row id) on
every later read: a rebuilt book and an updated one are equal.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal, Protocol

from openskill.models import PlackettLuce

from core.records import DEFAULT_GAME

__all__ = [
    "DISPLAY_BASE",
    "DISPLAY_SCALE",
    "MODEL_ID",
    "HistoryPoint",
    "Ranking",
    "Rating",
    "RatingBook",
    "Ratings",
    "RoundSource",
    "ServerRatings",
    "Standing",
    "build",
    "chart_history",
    "extend",
    "leaderboard",
    "ranking_from_nets",
    "rebuild",
    "result_of",
    "trend",
    "update",
]

Ranking = tuple[tuple[str, ...], ...]

MU: Final = 25.0
SIGMA: Final = 25.0 / 3.0
BETA: Final = 25.0 / 6.0
TAU: Final = 25.0 / 300.0
KAPPA: Final = 0.0001
MODEL_ID: Final = f"openskill-plackett-luce mu={MU} sigma={SIGMA:.6f} beta={BETA:.6f} tau={TAU:.6f} kappa={KAPPA}"
DISPLAY_BASE: Final = 1000.0
DISPLAY_SCALE: Final = 40.0


def _display(ordinal: float) -> int:
    return round(DISPLAY_BASE + DISPLAY_SCALE * ordinal)


@dataclass(frozen=True, slots=True)
class Rating:
    mu: float = MU
    sigma: float = SIGMA
    rounds: int = 0  # rated results this player took part in

    @property
    def ordinal(self) -> float:
        """The conservative estimate mu − 3σ."""
        return self.mu - 3.0 * self.sigma

    @property
    def display(self) -> int:
        return _display(self.ordinal)


@dataclass(frozen=True, slots=True)
class HistoryPoint:
    index: int  # 1-based position of the result in the sequence rated
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        return self.mu - 3.0 * self.sigma

    @property
    def display(self) -> int:
        return _display(self.ordinal)


@dataclass(frozen=True)
class Ratings:
    """Every rated player's rating and history after ``results`` results (skipped ones included)."""

    players: Mapping[str, Rating] = field(default_factory=dict)
    history: Mapping[str, tuple[HistoryPoint, ...]] = field(default_factory=dict)
    results: int = 0

    def get(self, player: str) -> Rating:
        """The player's rating; a newcomer's if they have none."""
        return self.players.get(player, Rating())


def _model() -> PlackettLuce:
    return PlackettLuce(mu=MU, sigma=SIGMA, beta=BETA, kappa=KAPPA, tau=TAU, limit_sigma=False, balance=False)


def _check(ranking: Sequence[Sequence[str]]) -> Ranking:
    groups = tuple(tuple(str(p) for p in group) for group in ranking)
    players = [p for g in groups for p in g]
    if any(not g for g in groups):
        raise ValueError(f"a ranking's groups must not be empty: {ranking!r}")
    if len(set(players)) != len(players):
        raise ValueError(f"a player appears twice in a ranking: {ranking!r}")
    return groups


def _rate(
    model: PlackettLuce, current: Mapping[str, Rating], ranking: Ranking
) -> dict[str, tuple[float, float]]:
    """New (mu, sigma) for every player in ``ranking`` (each player their own team; groups tie)."""
    players = [p for g in ranking for p in g]
    ranks = [float(i) for i, g in enumerate(ranking) for _ in g]
    teams = []
    for p in players:
        r = current.get(p) or Rating()
        teams.append([model.rating(mu=r.mu, sigma=r.sigma, name=p)])
    rated = model.rate(teams, ranks=ranks)
    return {p: (team[0].mu, team[0].sigma) for p, team in zip(players, rated, strict=True)}


def _apply(model: PlackettLuce, players: Mapping[str, Rating], ranking: Ranking) -> dict[str, Rating]:
    if len(ranking) < 2:
        return {}
    new = {}
    for p, (mu, sigma) in _rate(model, players, ranking).items():
        old = players.get(p) or Rating()
        new[p] = Rating(mu, sigma, old.rounds + 1)
    return new


def rebuild(results: Iterable[Sequence[Sequence[str]]]) -> Ratings:
    """Ratings from every result in order (each a ranking, best group first). Pure and deterministic."""
    model = _model()
    players: dict[str, Rating] = {}
    history: dict[str, list[HistoryPoint]] = {}
    count = 0
    for count, ranking in enumerate(results, start=1):
        for p, rating in _apply(model, players, _check(ranking)).items():
            players[p] = rating
            history.setdefault(p, []).append(HistoryPoint(count, rating.mu, rating.sigma))
    return Ratings(players, {p: tuple(h) for p, h in history.items()}, count)


def update(ratings: Ratings, result: Sequence[Sequence[str]]) -> Ratings:
    """``ratings`` plus one more result: equal to :func:`rebuild` of the longer sequence. ``ratings`` is unchanged."""
    index = ratings.results + 1
    players = dict(ratings.players)
    history = dict(ratings.history)
    for p, rating in _apply(_model(), players, _check(result)).items():
        players[p] = rating
        history[p] = (*history.get(p, ()), HistoryPoint(index, rating.mu, rating.sigma))
    return Ratings(players, history, index)


def ranking_from_nets(net: Mapping[str, int]) -> Ranking:
    """Players grouped by what a zero-sum round paid them, most first: a made serial bid ranks its bidder
    alone above the rest, a failed one the rest above the bidder; a push is one group (no information)."""
    by_value: dict[int, list[str]] = {}
    for p, v in net.items():
        by_value.setdefault(int(v), []).append(p)
    return tuple(tuple(sorted(by_value[v])) for v in sorted(by_value, reverse=True))


def trend(ratings: Ratings, player: str, last: int = 5) -> int:
    """Change of the displayed rating over the player's last ``last`` rated results (0 if none)."""
    points = ratings.history.get(player, ())
    if not points:
        return 0
    before = points[-1 - last].display if len(points) > last else Rating().display
    return points[-1].display - before


def chart_history(ratings: Ratings, players: Iterable[str] | None = None) -> dict[str, list[tuple[float, float]]]:
    """``{player: [(result index, displayed rating), ...]}`` for ``adapters.pictures.render_rating_chart``."""
    chosen = sorted(ratings.history) if players is None else [p for p in players if p in ratings.history]
    return {p: [(float(h.index), float(h.display)) for h in ratings.history[p]] for p in chosen}


@dataclass(frozen=True, slots=True)
class Standing:
    place: int  # 1-based; equal keys share a place (1, 2, 2, 4)
    player: str
    rating: Rating | None  # None: never rated
    balance: int


def leaderboard(
    ratings: Ratings,
    balances: Mapping[str, int],
    by: Literal["skill", "money"] = "skill",
    limit: int = 10,
    *,
    min_rounds: int = 1,
) -> list[Standing]:
    """The top ``limit`` players: by the conservative estimate (``skill``; only players with at least
    ``min_rounds`` rated results) or by balance (``money``; everyone in either mapping)."""
    if by == "skill":
        rated = [p for p, r in ratings.players.items() if r.rounds >= min_rounds]
        keyed = [((-ratings.players[p].ordinal,), p) for p in rated]
    elif by == "money":
        everyone = set(balances) | set(ratings.players)
        keyed = [((-float(balances.get(p, 0)),), p) for p in everyone]
    else:
        raise ValueError(f"a leaderboard is by 'skill' or 'money', not {by!r}")
    keyed.sort(key=lambda kp: (kp[0], -ratings.get(kp[1]).ordinal, kp[1]))
    out: list[Standing] = []
    for i, (key, p) in enumerate(keyed[: max(0, limit)]):
        place = out[-1].place if out and keyed[i - 1][0] == key else i + 1
        out.append(Standing(place, p, ratings.players.get(p), int(balances.get(p, 0))))
    return out


# --- Every server's ratings, kept in memory and in step with the store -------------------------------
class RoundSource(Protocol):
    """The part of the store ratings read (``bot.ports.Store.rounds``): rows newest first, each with its
    ``id`` (increasing in commit order), ``period``, ``outcome`` (``game``, ``ranking``, ``net``)."""

    async def rounds(self, server: str, *, table_id: int | None = None, limit: int | None = None) -> list[
        dict[str, Any]
    ]: ...


def result_of(outcome: Mapping[str, Any]) -> Ranking | None:
    """The ranking a stored outcome is rated by, or None (a push; a card-game challenge before the game
    is over).  It is the seam's ``Settled.ranking`` as the runtime stores it; a serial-game row stored
    before rankings were has its ranking made from its net."""
    raw = outcome.get("ranking")
    if raw is None:
        legacy = outcome.get("game", DEFAULT_GAME) == DEFAULT_GAME  # a serial row from before rankings
        if not legacy or outcome.get("complete") is False or not outcome.get("net"):
            return None
        raw = ranking_from_nets(outcome["net"])
    groups = tuple((str(g),) if isinstance(g, str) else tuple(str(p) for p in g) for g in raw)
    return _check(groups) if len(groups) >= 2 else None


@dataclass
class ServerRatings:
    """One server's ratings: all time per game, and per (game, ledger period) — a season's own ratings."""

    games: dict[str, Ratings] = field(default_factory=dict)
    periods: dict[tuple[str, str], Ratings] = field(default_factory=dict)
    last_id: int | None = None  # the newest store row folded in
    folded: set[int] = field(default_factory=set, compare=False)  # every store row folded in, by id

    def of(self, game: str, period: str | None = None) -> Ratings:
        found = self.games.get(game) if period is None else self.periods.get((game, period))
        return found if found is not None else Ratings()


def _rated(rows: Iterable[Mapping[str, Any]]) -> list[tuple[str, str, Ranking]]:
    out = []
    for row in rows:
        outcome = row.get("outcome") or {}
        ranking = result_of(outcome)
        if ranking is not None:
            out.append((str(outcome.get("game", DEFAULT_GAME)), str(row.get("period", "")), ranking))
    return out


def build(rows: Iterable[Mapping[str, Any]]) -> ServerRatings:
    """A server's ratings from its stored rows, oldest first (each game and season a :func:`rebuild`)."""
    rows = list(rows)
    by_game: dict[str, list[Ranking]] = {}
    by_period: dict[tuple[str, str], list[Ranking]] = {}
    for game, period, ranking in _rated(rows):
        by_game.setdefault(game, []).append(ranking)
        by_period.setdefault((game, period), []).append(ranking)
    ids = [int(r["id"]) for r in rows if r.get("id") is not None]
    return ServerRatings({g: rebuild(r) for g, r in by_game.items()},
                         {k: rebuild(r) for k, r in by_period.items()}, max(ids) if ids else None, set(ids))


def extend(book: ServerRatings, rows: Iterable[Mapping[str, Any]]) -> None:
    """Fold newer rows (oldest first) into ``book`` with :func:`update`: the same as building again."""
    rows = list(rows)
    for game, period, ranking in _rated(rows):
        book.games[game] = update(book.of(game), ranking)
        book.periods[(game, period)] = update(book.of(game, period), ranking)
    ids = [int(r["id"]) for r in rows if r.get("id") is not None]
    book.folded.update(ids)
    if ids:
        book.last_id = max([*ids, book.last_id or 0])


_RECENT = 16  # the newest rows a read looks at first: a late commit is among them


class RatingBook:
    """Every server's :class:`ServerRatings`, in memory.  The first read of a server builds them from all
    its stored rows; every later read asks the store for its newest rows and, if rows were stored since
    (a round settled), folds just those in.  It builds them again if those rows show that the store changed
    under it: the newest row folded in is gone (``liars forget`` erased the server while the bot ran), or a
    row older than it was committed after it was read (PostgreSQL hands out ids at insert, so processes may
    commit them out of order).  Reads are serialised per server."""

    def __init__(self, store: RoundSource) -> None:
        self.store = store
        self._servers: dict[str, ServerRatings] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    async def get(self, server: str) -> ServerRatings:
        async with self._locks.setdefault(server, asyncio.Lock()):
            book = self._servers.get(server)
            if book is not None and book.last_id is not None:
                last, limit = book.last_id, _RECENT
                while True:
                    rows = await self.store.rounds(server, limit=limit)
                    if len(rows) < limit or any(int(r.get("id") or 0) <= last for r in rows):
                        break
                    limit *= 8
                known = [int(r.get("id") or 0) for r in rows if int(r.get("id") or 0) <= last]
                if last in known and all(i in book.folded for i in known):
                    extend(book, reversed([r for r in rows if int(r.get("id") or 0) > last]))
                    return book
                # else the store changed under the book (an erasure, a late commit): build it again
            rows = list(reversed(await self.store.rounds(server)))
            # ~0.1 ms a result: a long history is rated off the event loop
            book = await asyncio.to_thread(build, rows) if len(rows) > 500 else build(rows)
            self._servers[server] = book
            return book

    def forget(self, server: str | None = None) -> None:
        """Drop cached ratings (one server, or all: after a rating-model change) to rebuild on next read."""
        if server is None:
            self._servers.clear()
        else:
            self._servers.pop(server, None)
