"""A session: consecutive rounds at one table (RULES.md "Stakes across rounds", "Who opens", SLIPS).

The session decides each round's stake (progressive stakes, the declared last hand at double stake,
the SLIPS tenth round at double stake), its opener, and its serials (fresh, or the next SLIPS serial).
Every random choice comes from the injected source, and every one can also be given explicitly, so
a game record replays exactly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .bids import MAX_PLAYERS, MIN_PLAYERS
from .round import Action, CheckedAction, Counted, Event, Round
from .rules import FirstOpener, Rules, SerialSource
from .scoring import Outcome
from .serials import SLIP_ROUNDS, RandomSource, Serial, deal_serial, deal_slip, default_rng

__all__ = ["Session", "SessionOver", "letters_opener"]


class SessionOver(Exception):
    """No further round can be dealt (SLIPS played out, or the declared last hand is over)."""


def letters_opener(players: Sequence[str], serials: Mapping[str, Serial]) -> str:
    """Salomon: the lowest pair of prefix letters, alphabetically; ties go to the earlier seat."""
    return min(players, key=lambda p: (serials[p].prefix, players.index(p)))


class Session:
    def __init__(
        self,
        rules: Rules,
        players: Sequence[str],
        *,
        host: str | None = None,
        rng: RandomSource | None = None,
        slips: Mapping[str, Sequence[Serial]] | None = None,
    ) -> None:
        if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
            raise ValueError(f"a table seats {MIN_PLAYERS} to {MAX_PLAYERS} players")
        self.rules = rules
        self.players: tuple[str, ...] = tuple(players)
        self.host = host if host is not None else self.players[0]
        self.rng = rng if rng is not None else default_rng()
        self.round: Round | None = None
        self.outcomes: list[Outcome] = []
        self.next_stake = rules.stake
        self.next_opener: str | None = None
        self._last_hand_round: int | None = None
        self.slips: dict[str, tuple[Serial, ...]] | None = None
        self.slip_played: list[int] = []  # slip positions played so far, in order
        if rules.serial_source is SerialSource.SLIPS:
            if slips is None:
                slips = {p: deal_slip(self.rng, rules.serial_length, rules.digits) for p in self.players}
            self.slips = {p: tuple(slips[p]) for p in self.players}
            if any(len(s) < SLIP_ROUNDS for s in self.slips.values()):
                raise ValueError("a slip holds at least ten serials")

    # -- state ------------------------------------------------------------------------------------
    @property
    def rounds_dealt(self) -> int:
        return len(self.outcomes) + (1 if self.round is not None and not self.round.is_over else 0)

    @property
    def last_hand(self) -> int | None:
        return self._last_hand_round

    @property
    def over(self) -> bool:
        """True when no further round may be dealt."""
        done = len(self.outcomes)
        if self.round is not None and not self.round.is_over:
            return False
        if self.slips is not None and done >= SLIP_ROUNDS:
            return True
        return self._last_hand_round is not None and done >= self._last_hand_round

    def declare_last_hand(self) -> int:
        """Declare the session's last hand; returns its number (1-based).

        Declared between rounds, or before the first bid of a round, it is that round; declared
        once bidding has begun, it is the next round.  With ``last_hand_double`` it plays at double
        stake.  Declaring again changes nothing.  With SLIPS no hand comes after the tenth: declared
        once the tenth's bidding has begun, the last hand is the tenth (not an eleventh, never dealt).
        The tenth declared the last hand with ``last_hand_double`` is doubled twice, as the seed has it:
        "the tenth number played is for double the stakes it otherwise would have been played for".
        """
        if self._last_hand_round is not None:
            return self._last_hand_round
        number = self.last_hand_if_declared()
        current = self.round if self.round is not None and not self.round.is_over else None
        if current is not None and not current.history and self.rules.last_hand_double:  # (not once bidding began)
            current.stake *= 2
        self._last_hand_round = number
        return number

    def last_hand_if_declared(self) -> int:
        """The number of the hand :meth:`declare_last_hand` would make the last now (changing nothing)."""
        current = self.round if self.round is not None and not self.round.is_over else None
        number = len(self.outcomes) + (2 if current is not None and current.history else 1)
        return min(number, SLIP_ROUNDS) if self.slips is not None else number

    def slip_position(self) -> int:
        """The slip position the next round plays (SLIPS only)."""
        if not self.slip_played:
            return 0
        assert self.slips is not None
        slip_len = len(next(iter(self.slips.values())))
        last = self.slip_played[-1]
        k = sum(1 for p in self.players if self.slips[p][last].last_digit % 2 == 1)
        played = set(self.slip_played)
        pos = last
        # skip k unplayed serials, wrapping from the bottom to the top, then play the next unplayed one
        for _ in range(k + 1):
            pos = (pos + 1) % slip_len
            while pos in played:
                pos = (pos + 1) % slip_len
        return pos

    def stake_for_next_round(self) -> int:
        stake = self.next_stake
        number = len(self.outcomes) + 1
        if self.slips is not None and number == SLIP_ROUNDS:
            stake *= 2
        if self.rules.last_hand_double and self._last_hand_round == number:
            stake *= 2
        return stake

    def opener_for_next_round(self, serials: Mapping[str, Serial]) -> str:
        if self.next_opener is not None:
            return self.next_opener
        if self.rules.first_opener is FirstOpener.LETTERS:
            return letters_opener(self.players, serials)
        if self.rules.first_opener is FirstOpener.HOST:
            return self.host
        return self.players[self.rng.randrange(len(self.players))]

    # -- transitions ------------------------------------------------------------------------------
    def deal(self, serials: Mapping[str, Serial] | None = None, opener: str | None = None) -> Round:
        """Start the next round.  ``serials`` and ``opener`` may be given (replays); else dealt here."""
        if self.round is not None and not self.round.is_over:
            raise ValueError("a round is already under way")
        if self.over:
            raise SessionOver("this session is over")
        if self.slips is not None:
            pos = self.slip_position()
            if serials is None:
                serials = {p: self.slips[p][pos] for p in self.players}
            self.slip_played.append(pos)
        elif serials is None:
            serials = {p: deal_serial(self.rng, self.rules.serial_length, self.rules.digits) for p in self.players}
        if opener is None:
            opener = self.opener_for_next_round(serials)
        self.round = Round(self.rules, self.players, serials, opener, self.stake_for_next_round())
        return self.round

    def apply(self, action: Action | CheckedAction) -> tuple[Event, ...]:
        if self.round is None:
            raise ValueError("no round has been dealt")
        events = self.round.apply(action)
        for event in events:
            if isinstance(event, Counted):
                self.outcomes.append(event.outcome)
                self.next_stake = event.outcome.next_stake
                self.next_opener = event.outcome.next_opener
        return events

    def totals(self) -> dict[str, int]:
        totals = dict.fromkeys(self.players, 0)
        for outcome in self.outcomes:
            for player, units in outcome.net.items():
                totals[player] += units
        return totals
