"""OpenSpiel's ISMCTS seated in the ladder (`--levels ...,openspiel-ismcts`): it plays whole games through the
adapter, honestly (from a determinisation), and its ledger lines say how it played and which adapter code."""

from __future__ import annotations

import json
import random

import engine
from ai.lab.ladder import _code, main
from ai.lab.openspiel_bot import OpenSpielISMCTSBot
from ai.lab.tournament import code_fingerprint


class _Honest:
    """A state that answers only what a bot may ask (its legal actions, a determinisation, the game's name and
    size) and refuses everything else: the true state's hidden parts cannot be read through it."""

    ALLOWED = {"legal_actions", "determinize", "game", "num_players"}

    def __init__(self, state: engine.State):
        self._state = state

    def __getattr__(self, name: str):
        if name not in self.ALLOWED:
            raise AssertionError(f"the bot read state.{name}")
        return getattr(self._state, name)


def test_the_bot_chooses_legal_actions_from_a_determinisation_only():
    state = engine.get("blueskies").new(3, 5)
    rng = random.Random(5)
    for _ in range(12):
        seat = state.to_act()[0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    seat = state.to_act()[0]
    before = state.digest()
    bot = OpenSpielISMCTSBot(simulations=6)
    chosen = bot.choose(_Honest(state), seat, random.Random(1))
    assert chosen in state.legal_actions(seat) and bot.stats.iterations >= 6
    assert state.digest() == before


def test_the_ladder_seats_openspiel_ismcts_and_keys_its_games(tmp_path, capsys):
    ledger = tmp_path / "ladder.jsonl"
    (pair,) = main(["--game", "opensky", "--levels", "random,openspiel-ismcts", "--seeds", "1", "--workers", "1",
                    "--openspiel-simulations", "3", "--ledger", str(ledger)])
    lines = [json.loads(line) for line in ledger.read_text().splitlines()]
    assert pair.games == 2 and len(lines) == 2
    for line in lines:
        assert line["key"]["caps"] == {"random": None, "openspiel-ismcts": 3}
        assert line["key"]["code"] == _code("opensky", line["key"]["lineup"]) != code_fingerprint("opensky")
        seat = line["key"]["lineup"].index("openspiel-ismcts")
        assert line["result"]["iterations"][seat] > 0
    assert "openspiel-ismcts" in capsys.readouterr().out
