"""Commit-reveal fairness: a SHA-256 commitment over a round's serials and a random salt.

At the deal the table posts ``commitment(...)``; at the count it reveals the salt, and anyone can
recompute the digest from the revealed serials.  The salt comes from the caller (randomness is an
input); :func:`new_salt` takes the random source.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..fairness import digest, new_salt
from .serials import Serial

__all__ = ["commitment", "new_salt", "verify_commitment"]


def commitment(players: Sequence[str], serials: Mapping[str, Serial | str], salt: str) -> str:
    """``sha256`` of the canonical JSON ``{"players": [...], "salt": s, "serials": [...]}``, in seat order."""
    return digest({"players": list(players), "salt": salt, "serials": [str(serials[p]) for p in players]})


def verify_commitment(players: Sequence[str], serials: Mapping[str, Serial | str], salt: str, digest: str) -> bool:
    return commitment(players, serials, salt) == digest.lower()
