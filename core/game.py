"""The game seam: what the table service asks of any game (OpenSpiel's ``Game``/``State`` split).

The service in ``bot/`` knows no game's rules.  It keeps seats, a lobby, timers, ledgers and an
event log; a game plugs in through two protocols:

- :class:`Game` — the game itself: its name, presets, commands, rules from options, a new
  :class:`Match` for a set of seats, and its records (``liars replay`` / ``verify``).
- :class:`Match` — a game in progress at fixed seats.  The table asks it to ``deal`` (the game draws
  everything a round needs from the random source the table passes, and returns it as a JSON deal,
  with its SHA-256 commitment), to ``parse`` what a player typed or pressed into a JSON action, to
  ``check`` and ``apply`` actions, who is ``to_act``, what a timeout or a computer seat does, and
  what to show (``panel``, private texts, forms).

Everything that crosses the seam is a JSON value (the table stores deals and actions in its event
log exactly as the game wrote them, and replays them on restart) or one of the frozen values below.
A serial or a hand only ever appears in a :class:`Say` addressed to its holder until the game itself
reveals it (the count, a challenge).

Money in a game's text is written as a token, ``<$3>`` (:func:`units`), which the table renders with
the server's unit ("3 units ($3.00)"), as platforms render ``<@id>`` mentions with names; ``<#table>``
stands for the table's channel (a private message names where it comes from).

Games register in :data:`GAMES` (see :mod:`core.registry`); ``bot/`` looks them up by name there.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from .commands import CommandSpec, FormatWords, HandWords, whole_number

__all__ = [
    "Checked",
    "Control",
    "Decision",
    "Form",
    "FormField",
    "Game",
    "GameRules",
    "Json",
    "Match",
    "Option",
    "Panel",
    "RandomSource",
    "Say",
    "SayKind",
    "Settled",
    "Step",
    "int_option",
    "units",
]

Json = dict[str, Any]
"""A JSON object as stored in the event log (deals, actions, records, outcomes)."""

Decision = Callable[[random.Random], Json]
"""A computer seat's decision, taken from a copy of what the seat sees (:meth:`Match.computer_decision`):
called with a random source, it returns the action payload, reading nothing of the match."""

Option = str | int | bool
"""A command's named value as it crosses the seam, typed: a Discord integer option stays an ``int``
(``0`` included: nothing tests an option for truth), a Slack select's value is its ``str``."""


def int_option(options: Mapping[str, Option], name: str) -> int | None:
    """``options[name]`` as an integer (an ``int``, or a ``str`` of digits as a form sends it); None
    when absent.  Raises ``ValueError`` for anything else (a bool, words)."""
    if name not in options:
        return None
    value = options[name]
    if isinstance(value, bool):
        raise ValueError(f"{name} is a number, not {value!r}")
    return value if isinstance(value, int) else whole_number(str(value))


def units(n: int) -> str:
    """A money token in a game's text: the table writes it out with the server's unit."""
    return f"<${n}>"


class RandomSource(Protocol):
    """Randomness is an input: ``secrets.SystemRandom()`` in play, a seeded ``random.Random`` in tests."""

    def randrange(self, start: int, stop: int = ..., step: int = ...) -> int: ...


class SayKind(StrEnum):
    """What a :class:`Say` is, so a platform can choose how to show it."""

    NOTE = "note"  # a public line about play ("Dirk took the hand and drew 3")
    DEAL = "deal"  # the public announcement of a deal (with its commitment)
    PRIVATE = "private"  # one player's secret (their serial, their hand): ``to`` is always set
    RESULT = "result"  # a reveal and its result (the count, a challenge), with payments
    END = "end"  # the match is over (a winner)


@dataclass(frozen=True, slots=True)
class Checked:
    """An action a match has checked (python-chess's legal ``Move``, OpenSpiel's legal action id):
    ``action`` its JSON payload as the table stores it; ``move`` the game's own value for it, checked
    against the state it was made for.  :meth:`Match.apply` takes it without parsing or checking it
    again while that state stands (a stored payload, replayed, is checked first)."""

    action: Json
    move: Any


@dataclass(frozen=True, slots=True)
class Say:
    """Something a game says after a deal or an action.

    ``to`` is None for the channel, or the one player it is for.  ``text`` carries mentions as
    ``<@id>``.  ``picture`` is the data a picture of a reveal is drawn from (only ever set on a
    ``RESULT``: what it shows is public by then).
    """

    text: str
    kind: SayKind = SayKind.NOTE
    to: str | None = None
    picture: Json | None = None


@dataclass(frozen=True, slots=True)
class Settled:
    """A finished round (serial game) or game (card game) with the money it moves.

    ``net``: units per player, summing to exactly 0 (ledger entries).  ``record``: the round's record
    (what ``export`` and ``history`` show).  ``outcome``: a JSON summary for stats.  ``ranking``:
    finishing order for skill ratings, best first, players tied in one group (empty: not rated).
    """

    record: Json
    outcome: Json
    net: Mapping[str, int]
    ranking: tuple[tuple[str, ...], ...] = ()


@dataclass(frozen=True, slots=True)
class Step:
    """What a deal or an action produced: things to say, money settled, and a one-line note for the panel."""

    says: tuple[Say, ...] = ()
    settled: tuple[Settled, ...] = ()
    note: str = ""


@dataclass(frozen=True, slots=True)
class Control:
    """A button.  ``verb`` is the command it sends; ``form``: it opens the verb's :class:`Form` instead.
    ``at_turn``: a move that answers the table as the button's message shows it (a challenge meets the standing
    bid): it acts only at the turn the message was drawn at, and a click on an older message changes nothing."""

    verb: str
    label: str
    style: str = "secondary"  # primary | secondary | success | danger
    form: bool = False
    at_turn: bool = False


@dataclass(frozen=True, slots=True)
class Panel:
    """The table message: what the table looks like now, and the buttons it offers."""

    text: str
    controls: tuple[Control, ...] = ()


@dataclass(frozen=True, slots=True)
class FormField:
    """One choice of a form.  ``options`` are (value, label) pairs, in the order to show them.

    A field that ``depends_on`` another lists its options per value of that field in ``options_by``
    (a declaration's ranks depend on its type; a bid's digits on its quantity).  ``multi``: any number
    of the options may be chosen (cards to discard).
    """

    name: str
    label: str
    options: tuple[tuple[str, str], ...] = ()
    depends_on: str | None = None
    options_by: Mapping[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    multi: bool = False
    required: bool = True


@dataclass(frozen=True, slots=True)
class Form:
    """A structured way to send ``verb``: the adapter shows the fields and sends the chosen values as the
    command's options.  ``refusal`` says why this player cannot use it now (not their turn); ``intro``
    what the form answers (the standing bid or declaration; empty for an opening).  ``submit`` labels
    the send button: ``{field}`` is the chosen option's label (its words before any `` (``), or how
    many were chosen of a many-choice field."""

    verb: str
    title: str
    fields: tuple[FormField, ...] = ()
    refusal: str | None = None
    intro: str = ""
    submit: str = ""

    @property
    def pending_label(self) -> str:
        """The send button's label before the choices make a whole move: the label without its choices
        (``Bid``, ``Declare``, ``Discard and draw``)."""
        return " ".join(word for word in (self.submit or self.title).split() if not word.startswith("{"))

    def submit_label(self, chosen: Mapping[str, str | int]) -> str:
        """The send button's label for these choices (``chosen``: field name -> value, or a count)."""
        words: dict[str, str] = {}
        for f in self.fields:
            value = chosen.get(f.name, "")
            if isinstance(value, int):
                words[f.name] = str(value)
                continue
            options = dict(f.options_by.get(str(chosen.get(f.depends_on or "", "")), ())) if f.depends_on \
                else dict(f.options)
            words[f.name] = options.get(value, value).split(" (")[0]
        try:
            return (self.submit or self.title).format(**words)
        except (KeyError, IndexError, ValueError):
            return self.title


class GameRules(Protocol):
    """A game's rule set: frozen, JSON round-trippable."""

    @property
    def preset(self) -> str: ...

    @property
    def stake(self) -> int: ...

    def to_dict(self) -> Json: ...

    def describe(self) -> str:
        """The rules in a paragraph (the ``rules`` command, the lobby)."""
        ...


class Match(Protocol):
    """A game in progress at fixed seats.  Operations raise :class:`~core.errors.GameError` before
    changing anything; ``apply``/``apply_deal`` replay stored payloads without re-drawing anything."""

    #: What the match settles as it is made, if it starts already over (the card game when a seat
    #: change leaves one player in it); None otherwise.  The table applies it at the seat change.
    pending: Step | None

    @property
    def players(self) -> tuple[str, ...]: ...

    @property
    def took_part(self) -> tuple[str, ...]:
        """Everyone who has played this game at its seats, seated now or not (a dinner's players who left safe, a
        card game's players knocked out): the game's result is theirs too."""
        ...

    @property
    def settles_at_end(self) -> bool:
        """Money its players win is paid only when the game ends (an elimination's dinner at a stake, the card
        game's ``winner`` payout): ending the table before then voids it, so a table's host may not."""
        ...

    @property
    def decides_at_end(self) -> bool:
        """Who wins or pays is decided only when the game ends (an elimination's payer, at any stake; the card
        game's winner under the ``winner`` payout): a player removed while still in it loses it (walks out on
        dinner, forfeits), so a table's host may not remove a rival still in it (a server's admin may)."""
        ...

    @property
    def over(self) -> bool:
        """No further round will be dealt (a winner, the last SLIPS round, the declared last hand)."""
        ...

    @property
    def live(self) -> bool:
        """A round is under way: actions are expected."""
        ...

    @property
    def to_act(self) -> str | None:
        """Who the table waits for (timers, turn pings), or None between rounds."""
        ...

    @property
    def end_text(self) -> str:
        """Why the match is over (when ``over``)."""
        ...

    def deal(self, rng: RandomSource) -> Json:
        """Draw the next round (serials, a shuffled deck, an opener) and return it as the deal payload."""
        ...

    def apply_deal(self, deal: Mapping[str, Any]) -> Step: ...

    def parse(self, player: str, verb: str, words: Sequence[str], options: Mapping[str, Option]) -> Json:
        """What a player typed (``words``) or chose in a form (``options``) as an action payload."""
        ...

    def check(self, action: Mapping[str, Any]) -> Checked:
        """The action checked (raises :class:`~core.errors.GameError` before anything changes)."""
        ...

    def apply(self, action: Checked | Mapping[str, Any]) -> Step:
        """Apply a :class:`Checked` action, or a stored payload (checked here first)."""
        ...

    def timeout_action(self, gone: bool = False) -> Json:
        """What the player to act does when their time runs out.  ``gone``: the timer has played their turns
        before (they are leaving): where the game has a move that ends the round, that one (a card table of
        players who had all walked away climbed the declarations a floor a turn, some eight days a round)."""
        ...

    def computer_decision(self, player: str, level: str) -> Decision:
        """A computer seat's move in two steps.  This call takes what the decision needs (the seat's view,
        a copy: the table calls it on its event loop, holding the table's lock, for the seat to act, and
        it refuses any other seat with :class:`~core.errors.NotYourTurn`, or :class:`~core.errors.RoundOver`
        between rounds); the :data:`Decision` it returns decides from that copy alone, reading nothing of
        the match, so it may run in a worker thread (a strategy may think for a second) while the match
        changes, e.g. once the table stopped waiting for it."""
        ...

    def declare_last(self) -> str:
        """Declare the last round (the host's ``last``); returns what to announce."""
        ...

    def last_is_next(self) -> bool:
        """Whether :meth:`declare_last` now would make the round after the one under way the last (its bidding has
        begun), rather than the one under way or the next to be dealt (a table that plays a set number of rounds
        refuses a last round it will not deal)."""
        ...

    def panel(self, seats: str, note: str = "") -> Panel:
        """The table message for the round under way (or just ended).  ``seats`` is the table's seat
        line; ``note`` what just happened (shown just above whose turn it is)."""
        ...

    def turn_text(self) -> str | None:
        """The short ping that tells the player to act (mentions them), or None."""
        ...

    def leave_cost(self, player: str, leaving: Collection[str] = ()) -> str:
        """What leaving the table now costs this player, said to them when they ask to leave ("" if nothing:
        the serial game's rounds; the elimination's player still in walks out on dinner and pays it).
        ``leaving``: who else has asked to leave after this round (the price may be shared out)."""
        ...

    def private_text(self, player: str) -> str | None:
        """A player's secret now (their serial, the hand they hold), for the ``hand`` command."""
        ...

    def read(self, player: str, verb: str) -> str:
        """A private read command of the game (``odds``, ``hint``) for this player."""
        ...

    def form(self, player: str, verb: str) -> Form: ...

    def record(self, closed: bool = False) -> Json:
        """The match so far as a game record (the ``liars replay`` format), without the round under way.
        ``closed``: the table is closed, so no secret of a round to come needs keeping."""
        ...


class Game(Protocol):
    """A game the table service can run."""

    @property
    def name(self) -> str: ...

    @property
    def title(self) -> str: ...

    @property
    def min_players(self) -> int: ...

    @property
    def max_players(self) -> int: ...

    @property
    def presets(self) -> tuple[str, ...]: ...

    @property
    def levels(self) -> tuple[str, ...]:
        """Computer player levels, in the order offered (roughly weakest first; a search level may be stronger
        against some players and weaker against others: see the game's README section)."""
        ...

    @property
    def default_level(self) -> str:
        """The level a table seats when none is asked for (one of :attr:`levels`; not always the strongest:
        the serial game's ``expert`` thinks up to a second a move and is offered, not imposed)."""
        ...

    @property
    def formats(self) -> Mapping[str, FormatWords]:
        """The ways to play the game, by name (``start format=…``), its usual one first, each in its words
        (the serial game's ``rounds`` and ``elimination``); the name is a rule option the game's rules
        take.  Empty: the game has one way to play."""
        ...

    @property
    def options_example(self) -> str:
        """A few of the game's rule options as the table takes them, ``name=value`` words (the serial
        game's ``rebid=on skunk=on``): the example the table's help gives.  Empty: none to show."""
        ...

    @property
    def commands(self) -> tuple[CommandSpec, ...]:
        """The game's moves and private reads, declared once (:mod:`core.commands`): every surface, its
        help and its forms are built from them."""
        ...

    @property
    def hand(self) -> HandWords | None:
        """What the game deals each player in secret, in its words (``my serial``, the button ``My
        serial``): what the table's ``hand`` read shows again, and what its ``help`` and a platform's
        notices name; None if the game deals nothing hidden."""
        ...

    @property
    def how_to_play(self) -> str:
        """The game in a paragraph for a newcomer (the terminal, the App Home), naming its moves."""
        ...

    def describe(self, rules: GameRules) -> str:
        """The rules at a table, for the ``rules`` command."""
        ...

    def make_rules(self, preset: str | None, options: Mapping[str, Any]) -> GameRules:
        """Rules from a preset and option overrides; raises ``RulesError`` (a ``ValueError``)."""
        ...

    def rules_from_dict(self, data: Mapping[str, Any]) -> GameRules: ...

    def terms(self, rules: GameRules) -> str:
        """The table's terms in a few words, for the lobby people read before they join: its preset and
        what its stake means (``units(n)`` tokens for money), e.g. "classic, stake <$2>"."""
        ...

    def settles_each_round(self, rules: GameRules) -> bool:
        """Whether every round of these rules settles on its own, so that a table's ``rounds=N`` may stop it
        after N (the serial game's usual format); False for a game that plays on to its own end (the
        elimination, the card game), which a round limit would leave without its payer or winner."""
        ...

    def new_match(
        self, rules: GameRules, players: Sequence[str], *, host: str, previous: Match | None = None
    ) -> Match:
        """A match at these seats.  ``previous``: the match the table played until its seats changed
        (what carries over — a progressive stake, who opens, who is already out — is the game's call).  Seats
        fewer than the game plays at, none included (every seat left in one round), are asked too, with
        ``previous``: the game returns a match that is over where the change settles it (an elimination's
        walk-out, the card game's last player left), else raises :class:`~core.errors.GameError` (the table
        then closes for too few)."""
        ...

    def stats(self, player: str, records: Sequence[Mapping[str, Any]]) -> tuple[str, Json]:
        """A player's record from the ``Settled.record`` values stored for this game (each with its
        ``outcome``; every one, the player's and others'), oldest first: a sentence (without the
        player's name, rounds and net, which the table adds; money as ``<$n>`` tokens) and its figures."""
        ...

    def played(self, player: str, records: Sequence[Mapping[str, Any]]) -> str:
        """What the player's stored records were, in the game's words, for the ``stats`` headline ("3 rounds"; a
        record may be a whole game where the game settles once a game): ``records`` as for :meth:`stats`, those
        whose outcome's ``net`` names the player counted."""
        ...

    def history_line(self, record: Mapping[str, Any], names: Mapping[str, str]) -> str:
        """One line for the ``history`` command from a stored ``Settled.record``."""
        ...

    def replay(self, record: Mapping[str, Any]) -> Json:
        """Re-score a game record; raises ``RecordError`` for a malformed record and
        ``IllegalRecordedAction`` (with ``round``/``action``) for an illegal action."""
        ...

    def verify(self, record: Mapping[str, Any]) -> Json:
        """Like ``replay``, and check every commitment."""
        ...
