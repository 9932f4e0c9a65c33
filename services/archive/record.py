"""An archived game as plain data, and the compression of its log and final state.

Kept apart from the tables so the archiver builds records without touching SQL, and readers get
Python values (the decompressed log lines, exactly as Redis held them) rather than rows. The record is the game's
one record, the live metadata's too; its row codec (`to_row`, `from_row`) follows its fields
(services/common/game_record.py).
"""

from __future__ import annotations

from services.common.game_record import GameRecord, pack_lines, pack_text, unpack_lines, unpack_text

#: Everything kept of a finished game; `log_lines` and `state_text` are empty in summaries.
ArchivedGame = GameRecord

__all__ = ["ArchivedGame", "pack_lines", "pack_text", "unpack_lines", "unpack_text"]
