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

:func:`serial_stats` (at the end, clearly apart) reads the serial game's stored round records; it is the
one game-specific piece here and may move to ``core/serial/``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Final, Literal

from openskill.models import PlackettLuce

__all__ = [
    "DISPLAY_BASE",
    "DISPLAY_SCALE",
    "MODEL_ID",
    "HistoryPoint",
    "Ranking",
    "Rating",
    "Ratings",
    "SerialStats",
    "Standing",
    "chart_history",
    "leaderboard",
    "ranking_from_nets",
    "rebuild",
    "serial_stats",
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


# --- The serial game only: stats from its stored round records --------------------------------------
# A round record is what the bot stores (bot/table.py TableState.round_record): {"serials": {player:
# "LB 06742088 A"}, "actions": [{"player", "bid": [q, d]} | {"player", "challenge": true} | ...],
# "outcome": {"final_bid": {"player", "quantity", "digit"}, "final_bid_text", "count", "made", "skunk",
# "multiplier", "bonuses": ["size", "sixes", "hero", ...], "net": {player: units}, ...}}.

_DIGITS: Final = re.compile(r"\d+")


@dataclass(frozen=True, slots=True)
class SerialStats:
    rounds: int = 0  # counted rounds played
    won: int = 0
    lost: int = 0
    biggest_win: int = 0  # the most units won in one round
    biggest_loss: int = 0  # the most units lost in one round (a positive number)
    final_bids: int = 0  # rounds in which the player's bid was the one counted
    bids_made: int = 0
    best_made_bid: str | None = None  # e.g. "9 sevens": the made final bid of the most copies (then multiplier)
    hero_bumps: int = 0  # made final bids holding none of the digit
    skunks: int = 0  # final bids nobody held any of
    challenges: int = 0
    challenges_right: int = 0  # challenges of bids that failed

    @property
    def challenge_accuracy(self) -> float | None:
        return self.challenges_right / self.challenges if self.challenges else None


def _copies(serials: Mapping[str, str], digit: int) -> int:
    return sum("".join(_DIGITS.findall(str(s))).count(str(digit)) for s in serials.values())


def _challenges(record: Mapping[str, Any], player: str) -> tuple[int, int]:
    """(challenges by ``player``, of which right). A challenge of the counted bid is right when the
    challenger won (not made, no skunk); of a bid later raised over, when the serials fall short of it."""
    outcome = record["outcome"]
    serials: Mapping[str, str] = record.get("serials") or outcome.get("serials") or {}
    final = outcome["final_bid"]
    standing: tuple[int, int] | None = None
    total = right = 0
    for action in record.get("actions") or []:
        bid = action.get("bid")
        if isinstance(bid, list | tuple) and len(bid) == 2:
            standing = (int(bid[0]), int(bid[1]))
        elif action.get("challenge") and action.get("player") == player and standing is not None:
            total += 1
            if standing == (int(final["quantity"]), int(final["digit"])):
                right += not outcome["made"] and not outcome.get("skunk")
            else:
                right += _copies(serials, standing[1]) < standing[0]
    return total, right


def serial_stats(rounds: Iterable[Mapping[str, Any]], player: str) -> SerialStats:
    """One player's stats over the serial game's counted round records (others are skipped)."""
    s: dict[str, Any] = {f.name: 0 for f in fields(SerialStats)}
    s["best_made_bid"] = None
    best: tuple[int, int] | None = None
    for record in rounds:
        outcome = record.get("outcome")
        if not outcome or outcome.get("complete") is False or player not in outcome.get("net", {}):
            continue
        net = int(outcome["net"][player])
        s["rounds"] += 1
        s["won"] += net > 0
        s["lost"] += net < 0
        s["biggest_win"] = max(s["biggest_win"], net)
        s["biggest_loss"] = max(s["biggest_loss"], -net)
        final = outcome["final_bid"]
        if final["player"] == player:
            s["final_bids"] += 1
            s["skunks"] += bool(outcome.get("skunk"))
            if outcome["made"]:
                s["bids_made"] += 1
                s["hero_bumps"] += "hero" in (outcome.get("bonuses") or [])
                key = (int(final["quantity"]), int(outcome.get("multiplier", 1)))
                if best is None or key > best:
                    best = key
                    s["best_made_bid"] = str(outcome.get("final_bid_text") or f"{final['quantity']}×{final['digit']}")
        total, right = _challenges(record, player)
        s["challenges"] += total
        s["challenges_right"] += right
    return SerialStats(**s)
