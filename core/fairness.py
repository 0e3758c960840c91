"""Commit-reveal fairness, shared by every game: a SHA-256 digest of canonical JSON, and a random salt.

At the deal a table posts the digest of what it dealt (serials, a shuffled deck) with a secret salt;
when the game reveals it (the count, the end of a card game) the salt is shown and anyone can
recompute the digest.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from .game import RandomSource

__all__ = ["digest", "new_salt"]


def new_salt(rng: RandomSource) -> str:
    return f"{rng.randrange(2**128):032x}"


def digest(payload: Any) -> str:
    """``sha256`` hex of ``payload`` as canonical JSON (sorted keys, no spaces, UTF-8)."""
    body = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(body.encode("utf-8")).hexdigest()
