"""The store writer task (adapters/groupwriter.py), driven with plain write/translate callables: a batch
that fails is written unit by unit, and the writer lives on whatever the translation of a failure does."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from adapters.groupwriter import GroupWriter


class Refused(Exception):
    pass


class Shelf:
    """Stores strings; refuses any batch holding a unit that starts with "bad"."""

    def __init__(self) -> None:
        self.stored: list[str] = []

    async def write(self, units: Sequence[str]) -> None:
        await asyncio.sleep(0)
        if any(u.startswith("bad") for u in units):
            raise Refused(",".join(units))
        self.stored.extend(units)

    async def translate(self, unit: str, exc: Exception) -> BaseException:
        if unit == "bad-unreadable":  # reading the stored state to explain the failure fails too
            raise OSError("database is locked")
        return LookupError(unit)


async def test_a_failed_unit_fails_alone_and_the_writer_outlives_a_failing_translation() -> None:
    shelf = Shelf()
    writer: GroupWriter[str] = GroupWriter(shelf.write, shelf.translate, name="test writer")
    writer.start()
    try:
        results = await asyncio.wait_for(asyncio.gather(
            *(writer.submit(u) for u in ("a", "bad-unreadable", "b", "bad", "c")), return_exceptions=True), 10)
        assert [type(r).__name__ for r in results] == ["NoneType", "Refused", "NoneType", "LookupError", "NoneType"]
        assert shelf.stored == ["a", "b", "c"]
        assert writer.running
        await asyncio.wait_for(writer.submit("d"), 5)  # later commits are still written
        assert shelf.stored == ["a", "b", "c", "d"]
        with pytest.raises(Refused):
            await asyncio.wait_for(writer.submit("bad-unreadable"), 5)
    finally:
        await asyncio.wait_for(writer.close(), 5)
    assert not writer.running
