"""core.errors.quoted: what an error shows of what was sent."""

from __future__ import annotations

from core.errors import quoted


def test_a_value_too_long_to_show_is_quoted_without_a_traceback() -> None:
    """Python refuses to write an int of more than 4,300 digits (repr raises ValueError): an error quoting one
    became a traceback of its own."""
    assert quoted(10**5000) == "(a number too long to show)"
    assert quoted([7, 10**5000]) == "(a number too long to show)"
    assert quoted({"stake": 10**20}) == '{"stake": 100000000000000000000}'
