"""An archived game as plain data, and the compression of its log and final state.

Kept apart from the tables so the archiver builds records without touching SQL, and readers get
Python values (the decompressed log lines, exactly as Redis held them) rather than rows.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from typing import Any

from services.common.game_head import GameHead

#: zlib level: 6 is the usual speed/size balance; the archive is written once and read rarely
LEVEL = 6


def pack_lines(lines: list[str]) -> bytes:
    """zlib of the log's JSON lines joined by newlines (compact JSON never holds a raw newline)."""
    return zlib.compress("\n".join(lines).encode(), LEVEL)


def unpack_lines(blob: bytes) -> list[str]:
    text = zlib.decompress(blob).decode()
    return text.split("\n") if text else []


def pack_text(text: str) -> bytes:
    return zlib.compress(text.encode(), LEVEL)


def unpack_text(blob: bytes) -> str:
    return zlib.decompress(blob).decode()


@dataclass(slots=True)
class ArchivedGame(GameHead):
    """Everything kept of a finished game (its first fields: services/common/game_head.py). `log_lines` and
    `state_text` are empty in summaries."""

    owner: str
    seat_players: dict[int, str]
    token_hashes: dict[int, str]
    resigned: list[int]
    status: str
    version: int
    digest: str
    scores: list[int]
    winners: list[int]
    rated: bool
    turn_ms: int
    created_ms: int
    finished_ms: int
    archived_ms: int = 0
    log_lines: list[str] = field(default_factory=list)
    state_text: str = ""
    #: the time control's JSON shape (services/gamestate/clocks.py); None: no clock (or archived before 0003)
    time_control: dict[str, Any] | None = None
    #: seat -> reserve ms left when the game ended (realtime controls with a reserve)
    reserves: dict[int, int] = field(default_factory=dict)
    #: seats abandoned (consecutive timeouts, inactivity) that the zombie bot played out
    abandoned: list[int] = field(default_factory=list)

    def player_seats(self) -> dict[str, list[int]]:
        """player id -> the seats it held (an owner without a seat maps to [])."""
        out: dict[str, list[int]] = {}
        if self.owner:
            out[self.owner] = []
        for seat, player in sorted(self.seat_players.items()):
            if player:
                out.setdefault(player, []).append(seat)
        return out
