"""Blue Skies' fixed tables: phases, board indices, gate costs and the demand deck's make-up (BS-1, BS-2)."""

from __future__ import annotations

from engine.blueskies import actions as act
from engine.blueskies.data import BOARD

LOCAL = -1
FULL = 99  # "no usable empty space" in the next-cost table

SETUP_BUY, BUY, PLAY, SPECIAL_DISCARD, HELP, HELP_DISCARD, OVER = range(7)
PHASES = ("setup_buy", "buy", "play", "special_discard", "help", "help_discard", "over")
#: The spec's step of the round for each phase (BS-8.n); setup and the end have none.
STEPS = (None, 1, 2, 2, 6, 6, None)

N_AIRPORTS = len(BOARD.airports)
AIRPORTS = range(N_AIRPORTS)
CODES = act.CODES
FULL_DECK: tuple[int, ...] = tuple(sorted(a.index for a in BOARD.airports for _ in range(a.cards)))
BUYOUT_COST: tuple[int, ...] = tuple(FULL if a.buyout is None else a.buyout for a in BOARD.airports)
#: COSTS[players][a] = costs of the usable spaces of airport a, in space order (BS-2.1).
COSTS: dict[int, tuple[tuple[int, ...], ...]] = {
    n: tuple(tuple(c for c, m in zip(a.costs, a.min_players) if m <= n) for a in BOARD.airports) for n in range(2, 6)
}
#: SPACES[players][a] = 1-based numbers of the usable spaces of airport a.
SPACES: dict[int, tuple[tuple[int, ...], ...]] = {
    n: tuple(tuple(i + 1 for i, m in enumerate(a.min_players) if m <= n) for a in BOARD.airports) for n in range(2, 6)
}
HAND = BOARD.hand_size
#: Most copies of one airport's card: after that many hidden draws a seat can no longer be sure of any card.
MAX_COPIES = max(a.cards for a in BOARD.airports)
#: Copies of each airport's card in the game (all of them start in the deck).
FULL_COUNTS: tuple[int, ...] = tuple(a.cards for a in BOARD.airports)
