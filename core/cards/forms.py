"""What the table shows of a card round: the panel, the turn ping, and the Declare…/Discard… forms.

Only the player who holds the hand ever sees its cards (the discard form is built for them alone).
"""

from __future__ import annotations

from functools import cache

from ..game import Control, Form, FormField, Panel
from .cards import rank_char
from .declarations import Declaration, type_name
from .errors import ImpossibleDeclaration
from .hands import WORST, HandType, HandValue, values_of
from .match import CardsEngine
from .round import Phase, Round
from .text import mention

__all__ = ["HAND_BUTTON", "MAX_OPTIONS", "declare_form", "discard_form", "panel", "rank_options", "turn_text"]

HAND_BUTTON = Control("hand", "My hand")  # the label its ``hand`` declaration carries (game.py)

MAX_OPTIONS = 25  # what a platform's choice menu holds


def _standing_text(round_: Round) -> str:
    d, who = round_.standing, round_.declarer
    if d is None or who is None:
        return "No declaration yet: the lowest opening is seven-six high."
    return f"{mention(who)} declared **{d.name()}** (at least {d.floor_text()})."


def turn_text(round_: Round, *, ping: bool = True) -> str | None:
    """Whose turn and what they may do: to them (``ping``, the turn message) or about them (the panel,
    which a computer's turn shows too)."""
    who = round_.to_act
    if who is None:
        return None
    if round_.phase is Phase.GUN:
        d = round_.standing
        assert d is not None
        can_pass = round_.pass_allowed and who in round_.passes
        if not round_.can_raise:  # nothing beats it: taking it is no move (a royal flush with no jokers)
            moves = "challenge it or pass" if can_pass else "challenge it"
            beats = f"nothing beats {mention(round_.active)}'s {d.name()}"
            if not ping:
                return f"{mention(who)} is under the gun: {beats}, to {moves}."
            return f"{mention(who)}, you are under the gun: {beats}: {moves}."
        extra = ", challenge, or pass" if who in round_.passes else " or challenge"
        if not ping:
            return f"{mention(who)} is under the gun: to take {mention(round_.active)}'s {d.name()}{extra}."
        return f"{mention(who)}, you are under the gun: take {mention(round_.active)}'s {d.name()}{extra}."
    first = " (you may discard and draw first)" if round_.may_discard else ""
    above = f"above {round_.standing.name()}" if round_.standing is not None else "at least seven-six high"
    if not ping:
        return f"{mention(who)} holds the hand: to declare {above}{first.replace('you may', 'may')}."
    return f"{mention(who)}, you hold the hand: declare {above}{first}."


def panel(match: CardsEngine, stake_text: str, round_number: int) -> Panel:
    rules = match.rules
    lines = [f"**Liar's Poker with cards** · {rules.describe()} · stake {stake_text}"]
    live = [mention(p) + (" (a pass left)" if p in match.passes else "") for p in match.live_players]  # unused passes
    line = "Still in: " + (", ".join(live) if live and not match.abandoned else "nobody")
    if match.out:
        line += " · Out: " + ", ".join(mention(p) for p in match.out)
    lines.append(line)
    if match.winner is not None:
        lines.append(f"{mention(match.winner)} won the game.")
        return Panel("\n".join(lines))
    if match.abandoned:
        lines.append("Everyone still in the game left: it ended with no winner.")
        return Panel("\n".join(lines))
    round_ = match.round
    if round_ is None or round_.is_over:
        opener = match.next_opener
        lines.append(f"Next round: {mention(opener)} opens." if opener else "Waiting for the first deal.")
        return Panel("\n".join(lines))
    lines.append(f"Round {round_number}. " + _standing_text(round_))
    whose = turn_text(round_, ping=False)
    if whose:
        lines.append(whose)
    controls: list[Control] = []
    if round_.phase is Phase.GUN:
        if round_.can_raise:
            controls.append(Control("take", "Take the hand", "primary", at_turn=True))
        controls.append(Control("challenge", "Challenge", "danger", at_turn=True))
        if round_.under_the_gun in round_.passes:
            controls.append(Control("pass", "Pass", at_turn=True))
    else:
        controls.append(Control("declare", "Declare…", "primary", form=True))
        if round_.may_discard:
            controls.append(Control("discard", "Discard…", form=True))
        controls.append(HAND_BUTTON)  # for whoever holds it (a closed DM hides it)
    return Panel("\n".join(lines), tuple(controls))


def _legal(kind: HandType, ranks: tuple[int, ...], round_: Round) -> Declaration | None:
    try:
        d = Declaration(kind, ranks)
    except ImpossibleDeclaration:
        return None
    if d.jokers_needed > round_.jokers:
        return None
    return d if d.beats(round_.standing) else None


@cache
def _extensions(kind: HandType, jokers: int) -> dict[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """Each prefix of the type's values and the one-longer prefixes it leads to, ascending (computed once: a
    Declare… form scanned every value for each prefix it looked at, 1.8 s on the event loop)."""
    children: dict[tuple[int, ...], set[tuple[int, ...]]] = {}
    for value in values_of(kind, jokers):
        for n in range(len(value)):
            children.setdefault(value[:n], set()).add(value[: n + 1])
    return {prefix: tuple(sorted(longer)) for prefix, longer in children.items()}


def rank_options(kind: HandType, round_: Round) -> tuple[tuple[str, str], ...]:
    """The type alone (``any``) if legal, every legal one-rank prefix, and the shortest legal longer
    prefixes where a shorter one is not legal (so every floor the type can reach is offered)."""
    out: list[tuple[Declaration, str]] = []
    whole = _legal(kind, (), round_)
    if whole is not None:
        out.append((whole, "any"))
    extensions = _extensions(kind, round_.jokers)
    prefixes = list(extensions.get((), ()))
    while prefixes and len(out) < 4 * MAX_OPTIONS:
        prefix = prefixes.pop(0)
        d = _legal(kind, prefix, round_)
        if d is not None:
            out.append((d, "-".join(rank_char(r) for r in prefix)))
            continue
        longer = list(extensions.get(prefix, ()))
        if longer and (round_.standing is None or Declaration(kind, prefix).floor <= round_.standing.floor):
            prefixes = longer + prefixes
    out.sort(key=lambda item: item[0])
    return tuple((value, f"{d.name()} (at least {d.floor_text()})") for d, value in out[:MAX_OPTIONS])


def declare_form(round_: Round | None, player: str) -> Form:
    title = "Declare a hand"
    if round_ is None or round_.is_over or round_.phase is not Phase.DECLARE or round_.active != player:
        return Form("declare", title, refusal="You can declare only when you hold the hand.")
    floor = WORST if round_.standing is None else round_.standing.floor
    kinds = [k for k in HandType
             if values_of(k, round_.jokers) and HandValue(k, values_of(k, round_.jokers)[-1]) > floor]
    by_type = {k.key: rank_options(k, round_) for k in kinds}
    kinds = [k for k in kinds if by_type[k.key]]
    type_field = FormField("type", "Hand", tuple((k.key, type_name(k)) for k in kinds))
    ranks_field = FormField(
        "ranks", "Ranks", depends_on="type", options_by={k: v for k, v in by_type.items() if v}
    )
    intro = _standing_text(round_)
    return Form("declare", title, (type_field, ranks_field), intro=intro, submit="Declare {ranks}")


def discard_form(round_: Round | None, player: str) -> Form:
    title = "Discard and draw"
    if round_ is None or round_.is_over or round_.active != player or not round_.may_discard:
        return Form("discard", title, refusal="You can discard once, after taking the hand and before declaring.")
    options: list[tuple[str, str]] = []
    for card in round_.hand:
        name = str(card)
        n = sum(1 for value, _ in options if value.split("#")[0] == name)
        options.append((name if n == 0 else f"{name}#{n + 1}", card.pretty()))
    field = FormField("cards", "Cards to discard", tuple(options), multi=True, required=False)
    return Form("discard", title, (field,), intro="Mark the cards to throw away; you draw as many.",
                submit="Discard {cards} and draw")
