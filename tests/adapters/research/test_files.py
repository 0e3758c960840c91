"""The packed data modules ``liars exploit --solve --write … --pack`` and ``--players 3 --write`` add tables to:
a table replaces the one of the same shape (format, rebid rule and, for 3-player tables, table size) whatever
its memory, and keeps every other; the module stays importable and its tables unpack to what was written."""

from __future__ import annotations

import importlib.util
from dataclasses import replace
from pathlib import Path

from adapters.research.files import add_packed_table, read_multi_module, write_multi_module
from core.serial.players.solved import SolvedTable, unpack_table
from core.serial.players.solved_multi import MultiTable, unpack_multi


def _tables(path: Path) -> tuple[tuple[str, str], ...]:
    spec = importlib.util.spec_from_file_location("written", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    tables: tuple[tuple[str, str], ...] = module.TABLES
    return tables


def _solved(digits: int, length: int, rebid: bool, memory: int) -> SolvedTable:
    row = ((-1, 1000),)
    return SolvedTable(digits, length, rebid, memory, {(True, -1, 0, False, -1): (row,)})


def test_a_packed_table_replaces_the_one_of_its_format_and_rebid_rule_whatever_its_memory(tmp_path: Path) -> None:
    path = tmp_path / "packed.py"
    assert add_packed_table(str(path), _solved(5, 5, False, 0)) == 1
    assert add_packed_table(str(path), _solved(5, 5, True, 0)) == 2  # the other rebid rule: kept beside
    assert add_packed_table(str(path), _solved(5, 4, False, 0)) == 3  # another length
    assert add_packed_table(str(path), _solved(4, 5, False, 0)) == 4  # another digit count
    assert add_packed_table(str(path), _solved(5, 5, False, 1)) == 4  # memory 1 replaces memory 0
    tables = _tables(path)
    assert sorted(h for h, _ in tables) == ["4 5 0 0", "5 4 0 0", "5 5 0 1", "5 5 1 0"]
    assert [unpack_table(p) for _, p in sorted(tables)] == [
        _solved(4, 5, False, 0), _solved(5, 4, False, 0), _solved(5, 5, False, 1), _solved(5, 5, True, 0)
    ]


def _multi(players: int, digits: int, length: int, rebid: bool, memory: int) -> MultiTable:
    return MultiTable(players, digits, length, rebid, memory, {(0, -1, -1, 0, 0, -1): (((-1, 1000),),)})


def test_a_multi_table_replaces_the_one_of_its_table_size_format_and_rebid_rule(tmp_path: Path) -> None:
    path = tmp_path / "multi.py"
    write_multi_module(str(path), _multi(3, 3, 3, False, 1))
    write_multi_module(str(path), _multi(4, 3, 3, False, 1))  # another table size: kept beside
    write_multi_module(str(path), _multi(3, 3, 3, True, 0))  # the other rebid rule
    write_multi_module(str(path), _multi(3, 3, 3, False, 2))  # replaces the memory-1 table
    tables = _tables(path)
    assert sorted(h for h, _ in tables) == ["3 3 3 0 2", "3 3 3 1 0", "4 3 3 0 1"]
    assert unpack_multi(dict(tables)["3 3 3 0 2"]) == _multi(3, 3, 3, False, 2)
    assert MultiTable.shape("3 3 3 0 2") == MultiTable(3, 3, 3, False, 2, {})
    # a table remembering the opening fits the same tables: it replaces the plain one, and is replaced by it
    write_multi_module(str(path), replace(_multi(3, 3, 3, False, 3), opening=True))
    assert sorted(h for h, _ in _tables(path)) == ["3 3 3 0 3 1", "3 3 3 1 0", "4 3 3 0 1"]
    write_multi_module(str(path), _multi(3, 3, 3, False, 2))
    assert sorted(h for h, _ in _tables(path)) == ["3 3 3 0 2", "3 3 3 1 0", "4 3 3 0 1"]
    # so does a table remembering named digits (as the shipped rebid-on table does), both ways
    write_multi_module(str(path), replace(_multi(3, 3, 3, True, 1), named=0b110))
    assert sorted(h for h, _ in _tables(path)) == ["3 3 3 0 2", "3 3 3 1 1 named=6", "4 3 3 0 1"]
    write_multi_module(str(path), replace(_multi(3, 3, 3, False, 1), named=0b1))  # replaces the plain rebid-off one
    assert sorted(h for h, _ in _tables(path)) == ["3 3 3 0 1 named=1", "3 3 3 1 1 named=6", "4 3 3 0 1"]
    write_multi_module(str(path), _multi(3, 3, 3, True, 3))
    tables = _tables(path)
    assert sorted(h for h, _ in tables) == ["3 3 3 0 1 named=1", "3 3 3 1 3", "4 3 3 0 1"]
    assert unpack_multi(dict(tables)["3 3 3 0 1 named=1"]) == replace(_multi(3, 3, 3, False, 1), named=0b1)
    assert [t.header() for t in read_multi_module(str(path))] == sorted(h for h, _ in tables)  # read as data
