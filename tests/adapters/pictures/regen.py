"""Rewrite the golden PNGs: ``python -m tests.adapters.pictures.regen [NAME ...]`` (see cases.py)."""

from __future__ import annotations

import sys

from tests.adapters.pictures.cases import CASES, GOLDEN_DIR, golden_path


def regenerate(names: list[str]) -> list[str]:
    unknown = [n for n in names if n not in CASES]
    if unknown:
        raise SystemExit(f"unknown picture(s) {unknown}; known: {sorted(CASES)}")
    GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
    written = []
    for name in names or sorted(CASES):
        path = golden_path(name)
        path.write_bytes(CASES[name]())
        written.append(str(path))
    return written


if __name__ == "__main__":
    for path in regenerate(sys.argv[1:]):
        print("wrote", path)
