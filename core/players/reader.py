from __future__ import annotations
from dataclasses import dataclass
from .simple import Binomial
@dataclass(frozen=True)
class ReaderParams:
    temperature: float = 0.0
class Reader(Binomial):
    def __init__(self, params: ReaderParams | None = None, name: str = "reader") -> None:
        object.__setattr__(self, "name", name)
