"""Reading what people type into commands: numbers, stakes, money, periods, mentions.

Each parser raises :class:`UserError` with a sentence for the person who typed it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Collection, Mapping, Sequence
from datetime import datetime
from typing import Any

from core.commands import TooManyDigits, flag_word, whole_number

from . import refusals as R
from .settings import MAX_STAKE, MAX_UNIT_VALUE

__all__ = ["LOOK_ALIKES", "UserError", "invisible", "is_period", "joined_options", "money", "named_word",
           "positive_int", "same_value", "sentence", "shown_name", "stake", "user_ref"]


class UserError(Exception):
    """Bad input: the text goes privately to the person who sent the command."""

    def __init__(self, text: str, code: str = "bad-input") -> None:
        super().__init__(text)
        self.text = text
        self.code = code


LOOK_ALIKES = str.maketrans({"<": "‹", ">": "›", "*": "∗", "~": "∼", "`": "ˋ", "|": "ǀ", "[": "［", "]": "］"})
"""A display name's marks of mentions and chat markup as look-alikes (see ``Service.handle``)."""


def invisible(char: str) -> bool:
    """A control or format character, or a line or paragraph separator (a bidi override turned the text after it
    around — the amounts on a ledger line —, a zero-width space hid one label inside another, a line separator
    began a forged line), but not those emoji are made of: the joiner, the tags of a flag."""
    return (unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp") and char != "\u200d"
            and not 0xE0020 <= ord(char) <= 0xE007F)


def shown_name(name: str, fallback: str) -> str:
    """A display name as the tables show it: its invisible characters (:func:`invisible`) dropped, its marks of
    mentions and chat markup as look-alikes; ``fallback`` if nothing is left."""
    return "".join(c for c in name if not invisible(c)).strip().translate(LOOK_ALIKES) or fallback


def sentence(text: str) -> str:
    text = text.strip()
    return (text[:1].upper() + text[1:]).rstrip(".") + "."


def same_value(value: str) -> str:
    """A typed value as compared for "given twice": ``Salomon`` is ``salomon``, ``02`` and ``+2`` are ``2``,
    ``zero_high`` is ``zero-high``, ``yes`` and ``true`` are ``on`` (as every option reads them)."""
    text = value.strip().lower().replace("_", "-")
    try:
        return str(whole_number(text))
    except ValueError:
        flag = flag_word(text)
        return text if flag is None else ("on" if flag else "off")


def user_ref(text: str) -> str:
    """A user id from a mention as platforms write it: ``<@U123>``, ``<@U123|name>``, ``<@!123>``; "" for
    what names no user (``<@>``, a channel link ``<#C123|general>``, a role ``<@&123>``)."""
    ref = text.strip().removeprefix("<@").removesuffix(">").split("|")[0].lstrip("@!")
    return "" if any(c in "<>#&" or c.isspace() for c in ref) else ref


def positive_int(value: Any, name: str, *, default: int, low: int, high: int) -> int:
    """A whole number from ``low`` to ``high``; ``default`` if not given (None).  Given empty, it is refused:
    ``turn_timeout=`` stored 0 and every turn timed out at once."""
    if value is None:
        return default
    try:
        n = whole_number(str(value))
    except ValueError:
        raise UserError(R.bad_number(name, value, low, high), "bad-option") from None
    if not low <= n <= high:
        raise UserError(R.out_of_range(name, n, low, high), "bad-option")
    return n


def in_the_way(build: Callable[[dict[str, Any]], object], server: Mapping[str, Any], typed: Collection[str]) -> str:
    """When rules ``build`` cannot make with this server's default options ``server`` can be made with the game's own
    value of some of them none of which was ``typed`` (a server of ``format=elimination stake=0``, then ``start
    format=rounds`` or ``config format=rounds``): a sentence naming them, so that the refusal does not read as if the
    person had typed them; else ""."""
    blamed = []
    for name, value in server.items():
        if name in typed:
            continue
        try:
            build({k: v for k, v in server.items() if k != name})
        except (ValueError, TypeError, UserError):
            continue
        blamed.append(f"{name}={value}")
    if not blamed:
        return ""
    names = " and ".join(b.split("=")[0] for b in blamed)
    if len(blamed) == 1:
        return f" This server's default is {blamed[0]}: give your own {names} with the command."
    return f" This server's defaults are {' and '.join(blamed)}: give your own {names} with the command."


def stake(value: Any, *, low: int = 1) -> int:
    """A stake in units, ``low`` (1; a table's may be 0, which its game's rules accept or refuse) to MAX_STAKE."""
    try:
        n = whole_number(str(value))
    except TooManyDigits as exc:  # (101 digits and more were "not a whole number")
        n = -1 if exc.negative else MAX_STAKE + 1
    except ValueError:
        raise UserError(R.bad_stake(value), "bad-stake") from None
    if n < low:  # (a table's stake may be 0 where its game takes it: below that, not "must be positive")
        raise UserError(R.STAKE_NOT_POSITIVE if low > 0 else R.STAKE_NEGATIVE, "bad-stake")
    if n > MAX_STAKE:
        raise UserError(R.stake_too_high(MAX_STAKE), "bad-stake")
    return n


_DIGITS = frozenset("0123456789")


def money(value: str) -> int:
    """``1``, ``1.50``, ``0.25`` → minor units (cents), 1 to MAX_UNIT_VALUE.  No floats touch money.

    Only the ASCII digits count: ``str.isdigit`` would pass "²" and "٣", which ``int`` refuses or reads as 3."""
    text = value.strip().lstrip("$€£")
    whole, _, frac = text.partition(".")
    if not (set(whole) <= _DIGITS and set(frac) <= _DIGITS and len(frac) <= 2):
        raise UserError(R.bad_unit_value(value), "bad-option")
    whole = whole.lstrip("0")
    if len(whole) > len(str(MAX_UNIT_VALUE // 100)):  # before int(): thousands of digits would be refused by it
        raise UserError(R.unit_too_valuable(MAX_UNIT_VALUE), "bad-option")
    cents = int(whole or "0") * 100 + int((frac + "00")[:2])
    if cents <= 0:
        raise UserError(R.UNIT_WORTHLESS, "bad-option")
    if cents > MAX_UNIT_VALUE:
        raise UserError(R.unit_too_valuable(MAX_UNIT_VALUE), "bad-option")
    return cents


_PERIOD = re.compile(r"[0-9]{4}-[0-9]{2}")


def is_period(text: str) -> bool:
    """``YYYY-MM`` in ASCII digits (strptime alone took full-width and other Unicode digits: ``２０２６-１１``)."""
    if not _PERIOD.fullmatch(text):
        return False
    try:
        datetime.strptime(text, "%Y-%m")
    except ValueError:
        return False
    return True


def named_word(word: str, names: Sequence[str]) -> tuple[str | None, str]:
    """``period=2026-11`` as the name it was given (one of ``names``) and its value; any other word as
    ``(None, word)``.  A report tells its words apart by their values; this lets them be named too, as ``start``
    and ``config`` take theirs (`leaderboard game=cards` was refused)."""
    name, eq, value = word.partition("=")
    name = name.strip().lower()
    if eq and name in names and value.strip():
        return name, value.strip()
    return None, word


def joined_options(words: Sequence[str]) -> list[str]:
    """``stake = 2``, ``stake= 2`` and ``stake =2`` as ``stake=2``, in ``start``'s options and ``config``'s settings
    (they were refused as an option with no name, or read as a preset named "stake"); and a list's values after a
    comma and a space as one word: ``admins=@bob, @cy`` (the second was refused as a word without a name)."""
    out: list[str] = []
    for word in words:
        if out and out[-1].endswith("=") and out[-1] != "=" and "=" not in word:
            out[-1] += word  # "stake=" then "2"
        elif word.startswith("=") and out and "=" not in out[-1]:
            out[-1] += word  # "stake" then "=2" (or "=", joined to what follows next)
        elif (out and "=" in out[-1] and (out[-1].endswith(",") or word.startswith(",")) and "=" not in word
              and (word.lstrip(",").startswith(("@", "<@")) or out[-1].lower().startswith("admins="))):
            out[-1] += word  # a list of mentions goes on: "admins=@bob," then "@cy" (Slack leaves a space after a
            # picked mention); not any word after a comma ("stake=2, 4" was the stake "2,4")
        else:
            out.append(word)
    # a comma or semicolon closing a word is punctuation, not part of it: `start salomon, stake=3`, `game=cards,`
    # (refused as "Unknown preset 'salomon,'", "Unknown game" though cards was typed)
    return [w for w in (word.rstrip(",;") for word in out) if w]
