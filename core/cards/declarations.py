"""Declarations (RULES.md §2 "Declarations"): a type and a prefix of its ranks, ordered by floor.

A :class:`Declaration`'s **floor** is the lowest hand value of its type whose ranks begin with its
prefix: the worst hand its declarer could hold and still tell the truth.  A hand *holds* a
declaration iff its value is at least the floor.  A declaration is legal iff its floor is strictly
above the standing declaration's (or, first in a hand, above the worst hand 7-5-4-3-2).

Declarations order by floor, then by how much they name (so the order is total and agrees with
equality); two declarations with one floor ("two pair", "threes over twos with a four kicker") are
equally strong, and neither may follow the other.

:meth:`Declaration.parse` reads what people type ("sevens over threes with a jack kicker", "king-ten
high", "eights full of fours", "straight to the nine", "red flush", "royal flush" …) and
:meth:`Declaration.from_json` also the record's ``{"type": "two-pair", "ranks": ["7", "3", "J"]}``.
``str()`` speaks it back with its floor: ``two pair, sevens over threes — at least 7-7-3-3-2``.
Five of a kind and flushes holding two aces exist only with jokers (:attr:`Declaration.needs_joker`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import total_ordering
from typing import Any

from ..errors import quoted
from .cards import Card, rank_char, rank_name, rank_plural
from .errors import DeclarationParseError, ImpossibleDeclaration
from .hands import MAX_JOKERS, RANK_COUNT, WORST, HandType, HandValue, cards_for, first_with_prefix, parse_rank

__all__ = ["Declaration", "type_name", "with_article"]

_TYPE_NAMES = {
    HandType.HIGH_CARD: "high card",
    HandType.PAIR: "pair",
    HandType.COLOUR_FLUSH: "colour flush",
    HandType.TWO_PAIR: "two pair",
    HandType.THREE_OF_A_KIND: "three of a kind",
    HandType.STRAIGHT: "straight",
    HandType.FLUSH: "flush",
    HandType.FULL_HOUSE: "full house",
    HandType.COLOUR_STRAIGHT_FLUSH: "colour straight flush",
    HandType.FOUR_OF_A_KIND: "four of a kind",
    HandType.STRAIGHT_FLUSH: "straight flush",
    HandType.FIVE_OF_A_KIND: "five of a kind",
}


def type_name(kind: HandType) -> str:
    return _TYPE_NAMES[kind]


def with_article(word: str) -> str:
    """``word`` after "a" or "an" as it is spoken: "an ace kicker", "a king-ten high"."""
    return ("an " if word[0] in "aeiou" else "a ") + word


def _dash(ranks: tuple[int, ...]) -> str:
    return "-".join(rank_name(r) for r in ranks)


def _show(rank: int) -> str:
    return "10" if rank == 10 else rank_char(rank)


@total_ordering
@dataclass(frozen=True, slots=True, eq=True)
class Declaration:
    """A declared hand: ``type`` and a prefix of its ranks (``ranks`` may be empty)."""

    type: HandType
    ranks: tuple[int, ...] = ()
    floor: HandValue = field(init=False, compare=False, repr=False, hash=False)

    def __post_init__(self) -> None:
        if len(self.ranks) > RANK_COUNT[self.type]:
            raise ImpossibleDeclaration(
                f"{type_name(self.type)} names at most {RANK_COUNT[self.type]} "
                f"rank{'s' if RANK_COUNT[self.type] != 1 else ''}, not {len(self.ranks)}",
                type=self.type.key,
            )
        if any(not isinstance(r, int) or not 2 <= r <= 14 for r in self.ranks):
            raise ImpossibleDeclaration("ranks are 2 to 14 (ace)", type=self.type.key)
        floor = first_with_prefix(self.type, self.ranks)
        if floor is None:
            raise ImpossibleDeclaration(f"no hand is {self.name()}", type=self.type.key)
        object.__setattr__(self, "floor", floor)

    # -- order ------------------------------------------------------------------------------------------
    def _key(self) -> tuple[HandValue, int, tuple[int, ...]]:
        return (self.floor, len(self.ranks), self.ranks)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Declaration):
            return NotImplemented
        return self._key() < other._key()

    def beats(self, standing: Declaration | None) -> bool:
        """Legal after ``standing`` (None: first in a hand, above the worst hand)."""
        return self.floor > (WORST if standing is None else standing.floor)

    def held_by(self, value: HandValue) -> bool:
        return value >= self.floor

    @property
    def needs_joker(self) -> bool:
        return self.jokers_needed > 0

    @property
    def jokers_needed(self) -> int:
        """The fewest jokers a deck needs for a hand to satisfy this (two for a flush of three aces)."""
        return next(n for n in range(MAX_JOKERS + 1) if first_with_prefix(self.type, self.ranks, n) is not None)

    @property
    def floor_cards(self) -> tuple[Card, ...]:
        return cards_for(self.floor)

    @staticmethod
    def exactly(value: HandValue) -> Declaration:
        """The shortest declaration whose floor is ``value``."""
        for n in range(len(value.ranks) + 1):
            d = Declaration(value.type, value.ranks[:n])
            if d.floor == value:
                return d
        raise ImpossibleDeclaration(f"no declaration has the floor {value}")  # pragma: no cover

    # -- JSON -------------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type.key, "ranks": [rank_char(r) for r in self.ranks]}

    @staticmethod
    def from_json(data: Any) -> Declaration:
        """Text, or ``{"type": "two-pair", "ranks": ["7", "3", "J"]}`` (``ranks`` optional)."""
        if isinstance(data, str):
            return Declaration.parse(data)
        if isinstance(data, Mapping) and isinstance(data.get("type"), str):
            ranks = data.get("ranks", [])
            if not isinstance(ranks, list | tuple) or not all(isinstance(r, str | int) for r in ranks):
                raise DeclarationParseError(
                    f'a declaration\'s ranks are a list like ["7", "3", "J"], not {quoted(ranks)}')
            try:
                kind = HandType.from_key(data["type"])
                values = tuple(parse_rank(str(r)) for r in ranks)
            except ValueError as exc:
                raise DeclarationParseError(str(exc)) from None
            return Declaration(kind, values)
        raise DeclarationParseError(f"a declaration is text or {{'type', 'ranks'}}, not {quoted(data)}")

    # -- speech -----------------------------------------------------------------------------------------
    def name(self) -> str:
        """The declaration as people say it: ``two pair, sevens over threes``."""
        t, r = self.type, self.ranks
        if t is HandType.HIGH_CARD:
            return f"{_dash(r)} high" if r else "high card"
        if t in (HandType.PAIR, HandType.THREE_OF_A_KIND, HandType.FOUR_OF_A_KIND, HandType.FIVE_OF_A_KIND):
            if not r:
                return _TYPE_NAMES[t]
            head = {
                HandType.PAIR: f"pair of {rank_plural(r[0])}",
                HandType.THREE_OF_A_KIND: f"three {rank_plural(r[0])}",
                HandType.FOUR_OF_A_KIND: f"four {rank_plural(r[0])}",
                HandType.FIVE_OF_A_KIND: f"five {rank_plural(r[0])}",
            }[t]
            return head + _kickers(r[1:])
        if t is HandType.TWO_PAIR:
            if not r:
                return "two pair"
            if len(r) == 1:
                return f"two pair, {rank_plural(r[0])} up"
            return f"two pair, {rank_plural(r[0])} over {rank_plural(r[1])}" + _kickers(r[2:])
        if t is HandType.FULL_HOUSE:
            if not r:
                return "full house"
            tail = f" of {rank_plural(r[1])}" if len(r) > 1 else ""
            return f"full house, {rank_plural(r[0])} full{tail}"
        if t in _TOP_TYPES:
            if t is HandType.STRAIGHT_FLUSH and r == (14,):
                return "royal flush"
            return _TYPE_NAMES[t] + (f" to the {rank_name(r[0])}" if r else "")
        return _TYPE_NAMES[t] + (f", {_dash(r)} high" if r else "")  # the flushes

    def floor_text(self) -> str:
        """The floor's cards in the order of its value: ``7-7-3-3-2``, ``5-4-3-2-A of one suit``."""
        cards = self.floor_cards  # in the order of the value: 7-7-3-3-J, 8-8-8-4-4, 5-4-3-2-A
        text = "-".join("JK" if c.is_joker else _show(c.rank) for c in cards)
        if self.type in (HandType.FLUSH, HandType.STRAIGHT_FLUSH):
            text += " of one suit"
        elif self.type in (HandType.COLOUR_FLUSH, HandType.COLOUR_STRAIGHT_FLUSH):
            text += " of one colour"
        return text

    def __str__(self) -> str:
        return f"{self.name()} — at least {self.floor_text()}"

    @staticmethod
    def parse(text: str) -> Declaration:
        try:
            return _parse(text)
        except (DeclarationParseError, ImpossibleDeclaration):
            if not any(_capital_a(str(text), len(_words(_ECHOED_FLOOR.sub("", str(text).strip().lower()))))):
                raise
        # a capital A read as the ace made no hand ("three sevens with A K J": three kickers): read as the article
        return _parse(text, capitals=False)


_TOP_TYPES = (HandType.STRAIGHT, HandType.COLOUR_STRAIGHT_FLUSH, HandType.STRAIGHT_FLUSH)


def _kickers(ranks: tuple[int, ...]) -> str:
    if not ranks:
        return ""
    if len(ranks) == 1:
        return f" with {with_article(rank_name(ranks[0]))} kicker"
    return f" with {_dash(ranks)} kickers"


# -- the parser ---------------------------------------------------------------------------------------
_SINGULAR = {
    **{str(r): r for r in range(2, 11)},
    **{rank_name(r): r for r in range(2, 15)},
    "deuce": 2,
    "trey": 3,
    "t": 10,
    "j": 11,
    "q": 12,
    "k": 13,
}
_PLURAL = {
    **{f"{r}s": r for r in range(2, 11)},
    **{rank_plural(r): r for r in range(2, 15)},
    "deuces": 2,
    "treys": 3,
    "sixs": 6,
    **{f"{letter}s": r for letter, r in (("t", 10), ("j", 11), ("q", 12), ("k", 13), ("a", 14))},  # "pair of Ks"
    **{f"{r}'s": r for r in range(2, 11)},
    **{f"{letter}'s": r for letter, r in (("t", 10), ("j", 11), ("q", 12), ("k", 13), ("a", 14))},
}
_COUNTS = {"two": HandType.PAIR, "three": HandType.THREE_OF_A_KIND, "four": HandType.FOUR_OF_A_KIND}
_COUNTS["five"] = HandType.FIVE_OF_A_KIND
_PHRASES: tuple[tuple[tuple[str, ...], HandType, tuple[int, ...]], ...] = (
    (("royal", "flush"), HandType.STRAIGHT_FLUSH, (14,)),
    (("five", "of", "a", "kind"), HandType.FIVE_OF_A_KIND, ()),
    (("four", "of", "a", "kind"), HandType.FOUR_OF_A_KIND, ()),
    (("three", "of", "a", "kind"), HandType.THREE_OF_A_KIND, ()),
    (("5", "of", "a", "kind"), HandType.FIVE_OF_A_KIND, ()),
    (("4", "of", "a", "kind"), HandType.FOUR_OF_A_KIND, ()),
    (("3", "of", "a", "kind"), HandType.THREE_OF_A_KIND, ()),
    (("two", "pairs"), HandType.TWO_PAIR, ()),
    (("two", "pair"), HandType.TWO_PAIR, ()),
    (("2", "pairs"), HandType.TWO_PAIR, ()),  # as poker players write it, never "a pair of twos"
    (("2", "pair"), HandType.TWO_PAIR, ()),
    (("full", "house"), HandType.FULL_HOUSE, ()),
    (("full", "of"), HandType.FULL_HOUSE, ()),
    (("full",), HandType.FULL_HOUSE, ()),
    (("straight", "flush"), HandType.STRAIGHT_FLUSH, ()),
    (("flush",), HandType.FLUSH, ()),
    (("straight",), HandType.STRAIGHT, ()),
    (("quads",), HandType.FOUR_OF_A_KIND, ()),
    (("quad",), HandType.FOUR_OF_A_KIND, ()),
    (("trips",), HandType.THREE_OF_A_KIND, ()),
    (("trip",), HandType.THREE_OF_A_KIND, ()),
    (("pair",), HandType.PAIR, ()),
    (("high", "card"), HandType.HIGH_CARD, ()),
)
_FIGURE_COUNTS = {"2": HandType.PAIR, "3": HandType.THREE_OF_A_KIND, "4": HandType.FOUR_OF_A_KIND}
_FIGURE_COUNTS["5"] = HandType.FIVE_OF_A_KIND  # "3 fours": a count only before a rank said in the plural
_SIZES = {HandType.PAIR: 2, HandType.THREE_OF_A_KIND: 3, HandType.FOUR_OF_A_KIND: 4, HandType.FIVE_OF_A_KIND: 5}
# how many ranks come before a kicker's, and a declaration that names them
_MAIN_RANKS = {HandType.PAIR: 1, HandType.TWO_PAIR: 2, HandType.THREE_OF_A_KIND: 1, HandType.FOUR_OF_A_KIND: 1}
# hands whose every card is in a group or a run: a kicker said is no part of them ("five of a kind with an ace
# kicker" was five aces, "full house with a king kicker" kings full)
_NO_KICKER = frozenset({HandType.FULL_HOUSE, HandType.FIVE_OF_A_KIND, HandType.STRAIGHT, HandType.STRAIGHT_FLUSH,
                        HandType.COLOUR_STRAIGHT_FLUSH})
_KICKER_EXAMPLES = {
    HandType.PAIR: "pair of sevens with a king kicker",
    HandType.TWO_PAIR: "two pair, sevens over threes with a king kicker",
    HandType.THREE_OF_A_KIND: "three sevens with a king kicker",
    HandType.FOUR_OF_A_KIND: "four sevens with a king kicker",
}
_GROUPS = frozenset({HandType.PAIR, HandType.THREE_OF_A_KIND, HandType.FOUR_OF_A_KIND, HandType.FIVE_OF_A_KIND})
_COLOURS = frozenset({"red", "black", "color"})
# "a" is the article before these ("a pair of sixes", "a king high", "a red flush"), and before a rank in digits
# where an article can stand: first, or after a word that takes one ("a 7 high", "I have a 3 of a kind");
# anywhere else it is the letter for the ace, as K, Q, J and T are for theirs ("pair of A", "A K high",
# "straight to the A", "flush, A high", "two pair A 8", "full house A 3")
_ARTICLE_BEFORE = frozenset(
    {w for w in _SINGULAR if len(w) > 1 and w.isalpha()} | set(_COUNTS) | _COLOURS
    | {"pair", "pairs", "flush", "straight", "full", "royal", "set", "kind", "quad", "quads", "trip", "trips"}
)
# after "with" or "and", "a" is the article before a rank's letter: "with a K kicker", "and a Q kicker" (a king
# kicker, not ace-king); "with an A kicker", "with A kicker" are the ace (the text is read lower-cased)
_ARTICLE_AFTER_WITH = frozenset({"k", "q", "j", "t"})
_DIGIT_RANKS = frozenset({w for w in _SINGULAR if w.isdigit()} | {w for w in _PLURAL if w[0].isdigit()})
_TAKES_ARTICLE = frozenset({"", "i", "have", "declare", "declares", "is", "it's", "its", "least", "hand", "with",
                            "and"})  # "three 7s and a 9 kicker": a nine, not ace-nine
_FILLER = frozenset(
    {"a", "an", "the", "of", "to", "with", "and", "kicker", "kickers", "high", "over", "up", "card", "cards"}
    | {"i", "have", "declare", "declares", "hand", "is", "it's", "its", "at", "least", "on", "top", "in"}
)
_EXAMPLES = "e.g. 'two pair, sevens over threes', 'king-ten high', 'eights full of fours', 'straight to the nine'"
_ECHOED_FLOOR = re.compile(r"\s*[(—–-]?\s*at least\s+[0-9tjqka]{1,2}(?:-[0-9tjqka]{1,2}){4}\b.*$")
_ECHOED_FLOOR_TYPED = re.compile(_ECHOED_FLOOR.pattern, re.IGNORECASE)
# "a 8", "a 11" is no English ("an 8"): there "a" is the ace ("A 8 high", as "A T high")
# "a kicker" in lower case: an article and no rank ("pair of kings with a kicker" is no ace kicker)
_SOME_KICKER = re.compile(r"\b(?:a|an)\s+(?i:kickers?)\b")
_AN_DIGITS = frozenset({"8", "11", "8s", "11s", "8's", "11's"})
_KICKER_COUNTS = {"one": 1, "two": 2, "three": 3, "four": 4, "1": 1, "2": 2, "3": 3, "4": 4}  # "with three kickers"
# how many kickers a hand of five cards has, where that is fixed ("pair of sevens with two kickers" is no hand)
_KICKERS_HELD = {HandType.PAIR: 3, HandType.TWO_PAIR: 1, HandType.THREE_OF_A_KIND: 2, HandType.FOUR_OF_A_KIND: 1}
_NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four"}


def _words(text: str) -> list[tuple[str, bool]]:
    """The words of a declaration as typed (its case kept), and whether each was one of a dashed group."""
    s = text.replace("colour", "color").replace("’", "'").replace("–", "-").replace("—", "-")  # phones' dashes
    s = re.sub(r"[,.;:!?…()]", " ", s)  # ("two pair?" was "I don't know the word 'pair?'")
    tokens: list[tuple[str, bool]] = []
    for group in s.split():
        parts = [p for p in group.split("-") if p]
        tokens.extend((p, len(parts) > 1) for p in parts)
    return tokens


def _capital_a(raw: str, n: int) -> list[bool]:
    """For each of the ``n`` words, whether it was typed as a capital "A" in text whose case tells something: not
    all capitals, nor every word capitalised ("Three Sevens With A 9 Kicker")."""
    letters = re.findall(r"[^\W\d_]+", raw)
    if not any(c.islower() for c in raw) or (len(letters) > 1 and all(w[0].isupper() for w in letters)):
        return [False] * n
    typed = [w for w, _ in _words(_ECHOED_FLOOR_TYPED.sub("", raw.strip()))]
    if len(typed) != n:  # (lower-casing changed the words: read none as a capital)
        return [False] * n
    return [w == "A" for w in typed]


def _parse(text: str, capitals: bool = True) -> Declaration:
    raw = str(text)
    # the floor as the table echoes it ("— at least 7-7-3-3-2", "(at least K-K-9-2-2)"), not "I have at least a…"
    tokens = _words(_ECHOED_FLOOR.sub("", raw.strip().lower()))
    if not tokens:
        raise DeclarationParseError(f"say what the hand is, {_EXAMPLES}")
    words = [w for w, _ in tokens]
    some_kicker = _SOME_KICKER.search(raw) is not None  # (read before the text was lower-cased)
    capital_a = _capital_a(raw, len(words)) if capitals else [False] * len(words)
    said: list[tuple[int, HandType]] = []  # every phrase's kind and place ("a pair of aces and a pair of eights")
    preset: tuple[int, ...] = ()
    used = [False] * len(words)
    i = 0
    while i < len(words):
        for phrase, kind, ranks in _PHRASES:
            if tuple(words[i : i + len(phrase)]) == phrase:
                if phrase == ("full", "of") and not any(w in _PLURAL or w in _SINGULAR or w == "a" for w in words[:i]):
                    # "full of fours" names the pair alone, which no prefix can (the three come first)
                    raise DeclarationParseError("name the three first: 'eights full of fours', or 'full house'")
                said.append((i, kind))
                preset = preset or ranks
                for k in range(i, i + len(phrase)):
                    used[k] = True
                i += len(phrase) - 1
                break
        i += 1
    colour = any(w in _COLOURS for w in words)
    implicit: HandType | None = None
    counted: list[tuple[int, HandType]] = []  # "three kings and two fours": a group for each count of a rank
    found: list[int] = list(preset)
    found_at: list[int] = [-1] * len(preset)  # the token each rank was said at
    kickers: set[int] = set()  # the places in ``found`` of ranks said as a kicker ("with a king", "king kicker")
    plural: set[int] = set()  # the places in ``found`` of ranks said in the plural ("aces")
    and_a: set[int] = set()  # ranks said "and a king" after a plural (or first): kickers, where the hand has them
    # "with three kickers": as typed, the number, and how many ranks were said before it (the hand's own ranks and
    # the kickers named first: "with a king and two kickers", "with king, queen and one kicker")
    kicker_count: tuple[str, int, int] | None = None
    for k, (word, grouped) in enumerate(tokens):
        if used[k] or word in _COLOURS:
            continue
        nxt = words[k + 1] if k + 1 < len(words) else ""
        count = _COUNTS.get(word) or (_FIGURE_COUNTS.get(word) if nxt in _PLURAL else None)  # "3 fours"
        if count is not None and not grouped and nxt in ("pair", "pairs"):
            raise DeclarationParseError(f"no hand has {word} pairs: say 'two pair' or 'a pair of {word}s'")
        if count is not None and not grouped and nxt in _PLURAL:
            counted.append((k, count))
            continue
        before = len(found)
        if word == "one" and nxt == "pair" and not grouped:
            continue  # "one pair": poker's name for a pair ("I don't know the word 'one'")
        if (word in _KICKER_COUNTS and not grouped and nxt == ("kicker" if word in ("one", "1") else "kickers")
                and k and words[k - 1] in ("with", "and")):
            kicker_count = (word, _KICKER_COUNTS[word], len(found))  # checked against the hand's, below
            continue  # "with three kickers": how many, not a three ("with a three kicker")
        if word in ("a", "an") and nxt in ("kicker", "kickers") and some_kicker:
            continue  # "with a kicker": some kicker, no rank ("with A kicker", in capitals, is the ace)
        if word in ("a", "an") and words[k + 1 : k + 3] in (["high", "card"], ["high", "cards"]):
            continue  # "a high card": the hand type, not ace high (a far bigger claim than the one made)
        if word in _PLURAL:
            found.append(_PLURAL[word])
        elif word == "a" and capital_a[k] and k and (
                ((nxt in _ARTICLE_AFTER_WITH or nxt in _DIGIT_RANKS) and words[k - 1] in ("with", "and")
                 and words[k + 2 : k + 3] != ["kicker"])
                or (nxt in _SINGULAR and (words[k + 2] if k + 2 < len(words) else "") in {"and", *_SINGULAR}
                    and (words[k - 1] in ("with", "and") or words[k - 1] in _PLURAL))):
            # "with A K J", "and A 10": a list of kickers whose first is the ace ("with A 9 kicker": one kicker);
            # in words too, "with A, king and jack", "tens, A king jack" (but "with A king": a king, the article)
            found.append(14)
        elif word == "a" and (grouped or words[k + 1 : k + 3] == ["full", "of"] or not (nxt in _ARTICLE_BEFORE or (
                nxt in _DIGIT_RANKS and nxt not in _AN_DIGITS and (words[k - 1] if k else "") in _TAKES_ARTICLE) or (
                nxt in _ARTICLE_AFTER_WITH and (words[k - 1] if k else "") in ("with", "and")) or (
                nxt in _SINGULAR and words[k + 2 : k + 3] == ["kicker"] and k and (
                    words[k - 1] in _PLURAL or words[k - 1] in _SINGULAR)) or (
                nxt in _SINGULAR and nxt not in _AN_DIGITS and k and not capital_a[k] and (
                    words[k - 1] in _PLURAL or (words[k - 1] in _SINGULAR and words[k - 1] != "a")
                    or words[k - 2 : k] == ["an", "a"])))):  # ("an A, a 10")
            # (one kicker named after a rank and "a" is that kicker: "pair of 7s, a 9 kicker" is a nine, not ace-nine;
            # after a rank a lower-case "a" before another is the article too: "pair of 7s, a 9", "three queens, a 5",
            # "sixes, a Q, a 5 and a four" — read as the ace they were a bigger claim than the one made, or too many
            # ranks; "pair of A, 7 kicker" is a pair of aces, "A full of fours" aces full)
            found.append(14)
        elif word in _SINGULAR:
            found.append(_SINGULAR[word])
        elif word in _FILLER:
            if word == "over":
                implicit = implicit or HandType.TWO_PAIR
            elif word == "up" and found:  # "queens up": two pair, the queens the higher
                implicit = implicit or HandType.TWO_PAIR
        else:
            raise DeclarationParseError(f"I don't know the word {quoted(word)} in a declaration: {_EXAMPLES}")
        if len(found) > before:
            if word in _PLURAL:
                plural.add(len(found) - 1)
            found_at.append(k)
            back = [w for w in words[:k] if w not in ("a", "an")]
            if (back and back[-1] == "with" and word not in _PLURAL) or nxt in ("kicker", "kickers"):  # not "with 7s"
                kickers.add(len(found) - 1)
            elif (back and back[-1] == "and" and words[k - 1] in ("a", "an") and word in _SINGULAR
                    and nxt not in ("pair", "pairs") and (len(found) == 1 or len(found) - 2 in plural)):
                and_a.add(len(found) - 1)  # "two pair, aces and a king": the king a kicker, not a second pair
    kinds = {k for _, k in said if k not in _GROUPS}  # these name the whole hand ("flush with two aces")
    named = [k for _, k in said if k in _GROUPS]  # "pair", "trips", "four of a kind"…: one group of a rank each
    if len(kinds) > 1 or (kinds and named):
        names = " and ".join(sorted(type_name(k) for k in {*kinds, *named}))
        raise DeclarationParseError(f"a declaration names one kind of hand, not {names}")
    # in the order they are said, each with the rank that follows it
    groups = [k for _, k in sorted([*counted, *((i, k) for i, k in said if k in _GROUPS)])] if not kinds else []
    if len(groups) > 1 and len(set(groups)) == 1 and len(set(found)) <= 1:
        groups = groups[:1]  # the same group said twice: "three of a kind, three sevens"
    if kinds:
        kind = next(iter(kinds))
        said_counts = [k for _, k in sorted(counted)]  # "full house, two queens and three kings": kings full
        if kind is HandType.FULL_HOUSE and said_counts == [HandType.PAIR, HandType.THREE_OF_A_KIND] and len(found) >= 2:
            found[0], found[1] = found[1], found[0]
        elif kind is HandType.TWO_PAIR and (said_counts == [HandType.PAIR, HandType.PAIR] or "over" not in words):
            found[:2] = sorted(found[:2], reverse=True)  # "two pair, 3s and 7s" (only "over" says which is higher)
        elif kind is HandType.FLUSH and counted:  # "flush with two aces" (a joker's): A-A-…, not A high
            times = {k + 1: _SIZES[c] for k, c in counted}
            found = [r for r, at in zip(found, found_at, strict=True) for _ in range(times.get(at, 1))]
    elif groups == [HandType.PAIR] and len(found) >= 2 and {0, 1} <= plural and 1 not in kickers:
        kind = HandType.TWO_PAIR  # "pair of aces and eights": a second pair, not an eight kicker
        found[:2] = sorted(found[:2], reverse=True)
    elif len(groups) == 1:
        kind = groups[0]
    elif sorted(groups) == [HandType.PAIR, HandType.THREE_OF_A_KIND]:  # "three kings and a pair of queens"
        kind = HandType.FULL_HOUSE
        if groups[0] is HandType.PAIR and len(found) >= 2:  # "two fours and three sevens": the three first
            found[0], found[1] = found[1], found[0]
    elif groups == [HandType.PAIR, HandType.PAIR]:  # "two kings and two queens", "a pair of aces and a pair…"
        kind = HandType.TWO_PAIR
        found[:2] = sorted(found[:2], reverse=True)
    elif groups:
        names = " and ".join(type_name(k) for k in groups)
        raise DeclarationParseError(f"a declaration names one kind of hand, not {names}")
    elif implicit is not None:
        kind = implicit
    elif "high" in words and found:
        kind = HandType.HIGH_CARD
    else:
        raise DeclarationParseError(f"what kind of hand is {quoted(raw.strip())}? {_EXAMPLES}")
    if kind not in _NO_KICKER:  # ("full house, kings and a queen": the queens, as said)
        kickers |= and_a
    if (kickers or kicker_count is not None) and kind in _NO_KICKER:
        raise DeclarationParseError(f"a {type_name(kind)} has no kicker: {_EXAMPLES}")
    held = _KICKERS_HELD.get(kind)
    if kicker_count is not None and held is not None:
        typed, number, said_before = kicker_count
        before = max(0, said_before - _MAIN_RANKS[kind])  # kickers named before the count
        after = len(found) - said_before  # and after it ("with two kickers, king and queen": the count says them)
        if held not in (number, number + before) and not (after and number == after):
            many = f"{_NUMBER_WORDS[held]} kicker{'s' if held > 1 else ''}"
            example = _KICKER_EXAMPLES[kind].replace("with a king kicker", f"with {many}")
            raise DeclarationParseError(f"a {type_name(kind)} has {many}, not {quoted(typed)}: like '{example}'")
    mains = _MAIN_RANKS.get(kind, 0)
    if any(place < mains for place in kickers):  # "pair with a king kicker" read as a pair of kings
        rank = "ranks" if mains > 1 else "rank"
        raise DeclarationParseError(
            f"name the {type_name(kind)}'s {rank} before its kicker, like '{_KICKER_EXAMPLES[kind]}' (a declaration "
            f"names its ranks in order, the kickers last)"
        )
    if colour:
        if kind is HandType.FLUSH:
            kind = HandType.COLOUR_FLUSH
        elif kind is HandType.STRAIGHT_FLUSH:  # "red royal flush": the colour straight flush to the ace
            kind = HandType.COLOUR_STRAIGHT_FLUSH
        else:
            raise DeclarationParseError(f"only a flush or a straight flush has a colour, not {type_name(kind)}")
    return Declaration(kind, tuple(found))
