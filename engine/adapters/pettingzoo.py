"""The three games as PettingZoo AEC environments.

    from engine.adapters.pettingzoo import env
    e = env(game="blueskies", players=4, first_player="random")
    e.reset(seed=7)
    for agent in e.agent_iter():
        observation, reward, termination, truncation, info = e.last()
        action = None if termination or truncation else e.action_space(agent).sample(observation["action_mask"])
        e.step(action)

Agents are `seat_0` .. `seat_<players-1>`. The agent to act is the lowest seat in the engine's `to_act()`;
a seat often acts several times in a row (a decision takes one or more integers, `engine.adapters.actions`),
and a sealed or simultaneous choice is asked seat by seat, each applied to the engine at once and hidden
from the others by the engine's views.

- action space: `Discrete(n)`, n the game's token vocabulary (the same for every player count and option);
- observation space: `Dict(observation=Box(-1e6, 1e6, (4096,), float32), action_mask=Box(0, 1, (n,), int8))`,
  the observation the hashed encoding of the seat's redacted engine view plus its own pending tokens
  (`engine.adapters.encoding`); the mask is all zeros for an agent not asked;
- rewards: 0 until the end, then by rank (`rank_returns`: pairwise, in [-1, 1], zero-sum), all agents
  terminated together; no truncation (every game ends within its bound);
- `reset(seed=s)` deals the engine game with seed `s`; a later `reset()` draws the next seed from it;
- `render()`: text (render_mode "ansi" returns it, "human" prints it): the spectator's view, the seat to
  act, and the final scores once the game is over.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

import engine
from engine.adapters.actions import Cursor, rank_returns, table
from engine.adapters.encoding import FEATURES, HIGH, LOW, observation_tensor, observation_text
from engine.core import canonical_json


def env(game: str, players: int, render_mode: str | None = None, **options: Any) -> SkyboardEnv:
    """A PettingZoo AEC environment of one title at one player count (options as the engine takes them)."""
    return SkyboardEnv(game, players, render_mode=render_mode, **options)


class SkyboardEnv(AECEnv):
    """An engine game behind PettingZoo's AEC API."""

    metadata = {"render_modes": ["ansi", "human"], "is_parallelizable": False}

    def __init__(self, game: str, players: int, render_mode: str | None = None, **options: Any):
        super().__init__()
        self.game = engine.get(game)
        self.players = self.game.check_players(players)
        self.options = self.game.resolve_options(options)
        self.game.new(self.players, 0, self.options)  # refuses a bad combination now, not at reset
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}")
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "name": f"skyboard_{game}_v0"}
        self.table = table(game)
        self.possible_agents = [f"seat_{i}" for i in range(self.players)]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        self.action_spaces = {a: spaces.Discrete(self.table.size) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(LOW, HIGH, (FEATURES,), np.float32),
                    "action_mask": spaces.Box(0, 1, (self.table.size,), np.int8),
                }
            )
            for a in self.possible_agents
        }
        self._seeds: random.Random | None = None
        self.cursor: Cursor | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._seeds = random.Random(seed)
            deal = seed
        else:
            if self._seeds is None:
                self._seeds = random.Random()
            deal = self._seeds.randrange(2**31)
        self.cursor = Cursor(self.game.new(self.players, deal, self.options))
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self._live_cursor().seat()]  # type: ignore[index]

    def _live_cursor(self) -> Cursor:
        if self.cursor is None:
            raise RuntimeError("call reset() first")
        return self.cursor

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        cursor = self._live_cursor()
        seat = self._seat[agent]
        mask = np.zeros(self.table.size, np.int8)
        if seat == cursor.seat():
            mask[cursor.legal_tokens()] = 1
        return {"observation": observation_tensor(cursor, seat), "action_mask": mask}

    def observation_text(self, agent: str) -> str:
        """The exact text form of what `agent` observes (its view and pending tokens, as JSON)."""
        return observation_text(self._live_cursor(), self._seat[agent])

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        cursor = self._live_cursor()
        if action is None:
            raise ValueError(f"{agent} must act: None is only for an agent that is done")
        self._cumulative_rewards[agent] = 0.0
        cursor.step(int(action))
        self.rewards = dict.fromkeys(self.agents, 0.0)
        seat = cursor.seat()
        if seat is None:
            state = cursor.state
            returns = rank_returns(state.scores(), state.winners())
            self.rewards = {a: returns[self._seat[a]] for a in self.agents}
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.possible_agents[seat]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        cursor = self._live_cursor()
        state = cursor.state
        seat = cursor.seat()
        head = f"{self.game.title}, {self.players} players: " + (
            f"game over, scores {state.scores()}, winners {state.winners()}"
            if seat is None
            else f"seat {seat} to act"  # mid-game, only what the spectator's view shows
        )
        text = f"{head}\n{canonical_json(state.view(None))}"
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        self.cursor = None
