"""What every game's records share: the errors ``liars replay`` and ``liars verify`` report.

A record names its game (``"game": "cards"``; a record without it is the serial game's, as records
were before there were two games).  :func:`game_of` reads that name.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Mapping
from typing import Any

__all__ = ["DEFAULT_GAME", "IllegalRecordedAction", "RecordError", "game_of", "refuse_unknown_keys"]

DEFAULT_GAME = "serial"
"""The game of a record (and a table) that names none: the serial game, as before there were two."""


def one_line(text: str) -> str:
    """``text`` with every character that is not printable (a newline, a tab, a control character) written as
    its escape, so a name taken from a record cannot break the one line an error is printed on."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class RecordError(ValueError):
    """The record is not a well-formed game record.  ``str()`` is one line for people (a name taken from the
    record is written with its control characters escaped)."""

    def __init__(self, message: str) -> None:
        super().__init__(one_line(message))


class IllegalRecordedAction(Exception):
    """A recorded action the rules refuse: ``round`` and ``action`` are indexes into the record.  ``error`` is
    the rules' refusal, on one line (a player named in the record is written as it is, its control characters
    escaped)."""

    def __init__(self, error: str, round_index: int, action_index: int | None) -> None:
        error = one_line(error)
        super().__init__(error)
        self.error = error
        self.round = round_index
        self.action = action_index

    def to_dict(self) -> dict[str, Any]:
        return {"error": self.error, "round": self.round, "action": self.action}


def game_of(record: Any) -> str:
    """The game a record is of (``"serial"`` unless it says otherwise)."""
    if isinstance(record, Mapping):
        name = record.get("game", DEFAULT_GAME)
        if not isinstance(name, str):
            raise RecordError("'game' must be a game's name")
        return name
    return DEFAULT_GAME


def refuse_unknown_keys(data: Mapping[Any, Any], known: Collection[str], where: str) -> None:
    """Refuse a key the record's format does not have (naming the nearest known one), rather than ignore it: a
    misspelt ``"rule": "salomon"`` would otherwise replay as the default preset, and ``verify`` would pass a
    record that says something else than what it checked."""
    unknown = sorted(str(key) for key in data if key not in known)
    if unknown:
        near = difflib.get_close_matches(unknown[0], sorted(known), n=1)
        hint = f" (did you mean {near[0]!r}?)" if near else f" (it has {', '.join(map(repr, sorted(known)))})"
        raise RecordError(f"{where} has a key this version does not know: {unknown[0]!r}{hint}")
