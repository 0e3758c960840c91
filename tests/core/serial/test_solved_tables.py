"""The shipped solved tables decode to what their text says, and a state's rows are parsed only when read.

Decoding keeps each state's row text keyed by its line's key text (:class:`~core.serial.players.solved.RowsOnUse`):
the 3-player 3×3 table with the rebid right has 189,752 states, and parsing them all would make its first decision
wait for seconds."""

from __future__ import annotations

import base64
import zlib

import pytest

from core.serial.players import solved_data, solved_history_data, solved_multi_data, solved_packed_data
from core.serial.players.solved import RowsOnUse, SolvedTable, deflate, inflate, rows_of, rows_text
from core.serial.players.solved_history import HistoryTable
from core.serial.players.solved_multi import MultiTable

SHIPPED = (
    [("history", inflate(packed)) for _, packed in solved_history_data.TABLES]
    + [("multi", inflate(packed)) for _, packed in solved_multi_data.TABLES]
    + [("pair", inflate(packed)) for _, packed in solved_packed_data.TABLES]
    + [("pair", text) for text in solved_data.TABLES]
)


def _decode(kind: str, text: str) -> RowsOnUse[object]:
    table: HistoryTable | MultiTable | SolvedTable
    if kind == "history":
        table = HistoryTable.decode(text)
    elif kind == "multi":
        table = MultiTable.decode(text)
    else:
        table = SolvedTable.decode(text)
    entries = table.entries
    assert isinstance(entries, RowsOnUse)
    return entries


@pytest.mark.parametrize(("kind", "text"), SHIPPED, ids=[f"{k}-{t.split(chr(10), 1)[0]}" for k, t in SHIPPED])
def test_every_state_reads_as_its_line_parses(kind: str, text: str) -> None:
    entries = _decode(kind, text)
    lines = text.strip().splitlines()[1:]
    assert len(entries) == len(lines) > 0
    for key, line in zip(entries, lines, strict=True):  # every key read back finds its own line's text
        assert entries._texts[entries._key_text(key)] == line.split("|")[1]
    sample = lines[:: max(1, len(lines) // 500)]
    for key, line in zip(list(entries)[:: max(1, len(lines) // 500)], sample, strict=True):
        # and its rows are the very ones the table's memo parsed from that text (a text is parsed once however many
        # states share it, so another text would give another object)
        assert entries[key] is rows_of(line.split("|")[1], entries._parsed)
    # and the parse is the writer's inverse
    assert all(rows_text(rows_of(text, {})) == text for text in (line.split("|")[1] for line in sample))


def test_rows_are_parsed_when_read_not_when_decoded() -> None:
    _, packed = next(t for t in solved_multi_data.TABLES if t[0].split()[3] == "1")  # the table with the rebid right
    entries = _decode("multi", inflate(packed))
    assert entries._parsed == {}
    key = next(iter(entries))
    rows = entries[key]
    assert list(entries._parsed.values()) == [rows]
    assert entries.get((9, 9, 9, 9, 9, 9)) is None  # a state the table does not have


def test_tables_packed_by_lzma_by_zlib_in_base_64_and_in_base_85_read_alike() -> None:
    """Tables are packed by LZMA now (marked ``xz:``, since session 21); those written before, by zlib in
    base 64 (marked ``b64:``, 28 Nov 2026 on) or in base 85 (no mark), still read; anything else is one
    ValueError, not a zlib or lzma error."""
    header, packed = min(solved_multi_data.TABLES, key=lambda entry: len(entry[1]))  # any table: the smallest,
    text = "\n".join(inflate(packed).splitlines()[:400])  # its first states (packing all of it by LZMA took 15 s)
    b85 = base64.b85encode(zlib.compress(text.encode(), 9)).decode("ascii")
    b64 = "b64:" + base64.b64encode(zlib.compress(text.encode(), 9)).decode("ascii")
    again = deflate(text)
    assert again[0] == header and again[1].startswith("xz:")
    assert base64.b64decode(again[1][len("xz:"):]).startswith(b"\xfd7zXZ\x00")  # the xz container's magic
    assert inflate(b85) == inflate(b64) == inflate(again[1]) == text
    assert MultiTable.decode(inflate(b85)).header() == header  # the same text, so the same table
    for bad in ("xz:" + b64[len("b64:"):], "b64:" + again[1][len("xz:"):], "xz:", ""):
        with pytest.raises(ValueError, match="not a packed table"):
            inflate(bad)
