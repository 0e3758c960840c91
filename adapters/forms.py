"""A game's :class:`~core.game.Form` as the choices the platforms' pickers show.

Both platforms show a two-step picker (a first choice, then a second that depends on it, then a
button): the serial game's Raise… (quantity → digit) and the card game's Declare… (type → ranks).
"""

from __future__ import annotations

from dataclasses import dataclass

from core.game import Form

__all__ = ["Picker", "picker"]


@dataclass(frozen=True, slots=True)
class Picker:
    verb: str
    intro: str
    first: str  # the first field's name and label
    first_label: str
    second: str
    second_label: str
    choices: tuple[tuple[str, str], ...]  # the first field's (value, label)
    then: dict[str, tuple[tuple[str, str], ...]]  # first value -> the second field's (value, label)
    refusal: str | None

    def seconds(self, first: str) -> tuple[tuple[str, str], ...]:
        return self.then.get(first, ())


def picker(form: Form) -> Picker:
    first, second = form.fields[0] if form.fields else None, form.fields[1] if len(form.fields) > 1 else None
    choices = tuple(first.options) if first is not None else ()
    then = {k: tuple(v) for k, v in second.options_by.items()} if second is not None else {}
    return Picker(
        verb=form.verb, intro=form.intro,
        first=first.name if first else "", first_label=first.label if first else "",
        second=second.name if second else "", second_label=second.label if second else "",
        choices=tuple(c for c in choices if then.get(c[0]) or second is None), then=then, refusal=form.refusal)
