"""Reading what people type into commands: numbers, stakes, money, periods, mentions.

Each parser raises :class:`UserError` with a sentence for the person who typed it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

__all__ = ["UserError", "is_period", "money", "positive_int", "sentence", "stake", "user_ref"]


class UserError(Exception):
    """Bad input: the text goes privately to the person who sent the command."""

    def __init__(self, text: str, code: str = "bad-input") -> None:
        super().__init__(text)
        self.text = text
        self.code = code


def sentence(text: str) -> str:
    text = text.strip()
    return (text[:1].upper() + text[1:]).rstrip(".") + "."


def user_ref(text: str) -> str:
    """A user id from a mention as platforms write it: ``<@U123>``, ``<@U123|name>``, ``<@!123>``."""
    return text.strip().removeprefix("<@").removesuffix(">").split("|")[0].lstrip("@!")


def positive_int(value: Any, name: str, *, default: int, low: int, high: int) -> int:
    if value is None or value == "":
        return default
    try:
        n = int(str(value).strip())
    except ValueError:
        raise UserError(f"{name} must be a whole number from {low} to {high}, not {value!r}.", "bad-option") from None
    if not low <= n <= high:
        raise UserError(f"{name} must be from {low} to {high}, not {n}.", "bad-option")
    return n


def stake(value: Any) -> int:
    try:
        n = int(str(value).strip())
    except ValueError:
        raise UserError(f"The stake must be a whole number of units, not {value!r}.", "bad-stake") from None
    if n <= 0:
        raise UserError("The stake must be a positive number of units.", "bad-stake")
    if n > 1_000_000:
        raise UserError("The stake is at most 1,000,000 units.", "bad-stake")
    return n


def money(value: str) -> int:
    """``1``, ``1.50``, ``0.25`` → minor units (cents).  No floats touch money."""
    text = value.strip().lstrip("$€£")
    whole, _, frac = text.partition(".")
    if (not whole.isdigit() and whole != "") or not (frac == "" or (frac.isdigit() and len(frac) <= 2)):
        raise UserError(f"A unit's value is written like 1 or 0.25, not {value!r}.", "bad-option")
    cents = int(whole or "0") * 100 + int((frac + "00")[:2])
    if cents <= 0:
        raise UserError("A unit must be worth something.", "bad-option")
    return cents


def is_period(text: str) -> bool:
    try:
        datetime.strptime(text, "%Y-%m")
    except ValueError:
        return False
    return len(text) == 7
