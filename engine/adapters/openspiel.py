"""The three games as OpenSpiel Python games: importing this module registers `python_skyboard_<game>`.

    import pyspiel
    import engine.adapters.openspiel  # registers the games
    game = pyspiel.load_game("python_skyboard_opensky", {"players": 3, "map": "north_america"})

Parameters: `players` (default the game's minimum), `rng_seed` (default 0: seeds the game object's RNG,
from which each new initial state draws its engine seed, so a loaded game replays the same sequence of
deals) and every option of the game: a string (`map`, `callsigns`) or, for an option with integer choices, an
integer (`first_player`: -1 for "random", else the seat).

Shape of the game, as OpenSpiel sees it:
- sequential, imperfect information: one seat acts at a time, one token at a time (`engine.adapters.actions`:
  `num_distinct_actions` is the game's token vocabulary). A sealed or simultaneous choice is asked seat by
  seat; each is applied to the engine at once and stays out of the other seats' views, so it is a hidden
  move and tree search (MCTS, ISMCTS) applies.
- chance is *sampled*, never a chance node: dice, draws and shuffles are resolved inside the engine from
  the RNG that is part of the state (serialised with it). Given a state every transition is therefore a
  function of the action, and the game type says `DETERMINISTIC`, not `SAMPLED_STOCHASTIC`: OpenSpiel
  serialises a SAMPLED_STOCHASTIC game with the game object's RNG (`GetRNGState`), which its Python games
  cannot provide, so `SerializeGameAndState` (and `random_sim_test(..., serialize=True)`) would abort. The
  games are not deterministic: the state's RNG decides what the seats have not seen, perfect-information
  MCTS reads the true state (hidden cards and future rolls included, as MCTS does in any game with hidden
  information) while ISMCTS searches determinisations, whose RNG is reseeded.
- observations (`observation_string/tensor`) and information states (`information_state_string/tensor`)
  are both the seat's redacted engine view plus its own pending tokens (`engine.adapters.encoding`). The
  engines' views hold everything the seat may know now but no transcript of past moves, so the information
  state is not perfect-recall: algorithms that need perfect recall (CFR on the full tree) do not apply, and
  nothing that needs a tree of these sizes would anyway. A public observation type (`private_info` NONE)
  gives the spectator's view.
- `resample_from_infostate(player, sampler)` is the engines' `determinize`: a state with the same view for
  `player`, hidden parts redealt and the RNG reseeded (this is what OpenSpiel's ISMCTS needs).
- `returns()` by rank, pairwise (`rank_returns`), in [-1, 1], zero-sum; 0 until the end.
- serialisation: OpenSpiel pickles a Python state's attributes; the engine state pickles as its JSON.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pyspiel

import engine
from engine.adapters.actions import Cursor, rank_returns, table
from engine.adapters.encoding import FEATURES, observation_tensor, observation_text

PREFIX = "python_skyboard_"


def short_name(game: str) -> str:
    return f"{PREFIX}{game}"


def _parameter(spec: dict[str, Any]) -> list[Any]:
    """How an option is a game parameter: the parameter value of each choice.

    An option whose choices are all strings is a string parameter. One with integer choices is an integer
    parameter (OpenSpiel reads "2" in a game string as an integer), its string choices numbered -1, -2, ...
    in order: Blue Skies' `first_player` is -1 for "random", else the seat."""
    choices = spec["choices"]
    if all(isinstance(c, str) for c in choices):
        return list(choices)
    strings = [c for c in choices if isinstance(c, str)]
    return [(-1 - strings.index(c)) if isinstance(c, str) else int(c) for c in choices]


def _game_type(name: str) -> pyspiel.GameType:
    game = engine.get(name)
    params: dict[str, Any] = {"players": game.min_players, "rng_seed": 0}
    for key, spec in game.options.items():
        values = _parameter(spec)
        params[key] = values[spec["choices"].index(spec["default"])]
    return pyspiel.GameType(
        short_name=short_name(name),
        long_name=f"Skyboard {game.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,  # chance is sampled in the engine: see the docstring
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=game.max_players,
        min_num_players=game.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=params,
    )


def _options(name: str, params: dict[str, Any]) -> dict[str, Any]:
    """The game's options from their parameter values (`_parameter`)."""
    game = engine.get(name)
    out = {}
    for key, spec in game.options.items():
        values = _parameter(spec)
        value = params.get(key, values[spec["choices"].index(spec["default"])])
        if value not in values:
            raise ValueError(f"{key} must be one of {', '.join(map(str, values))}, not {value!r}")
        out[key] = spec["choices"][values.index(value)]
    return out


class SkyboardGame(pyspiel.Game):
    """One title at one player count and set of options."""

    def __init__(self, name: str, params: dict[str, Any] | None = None):
        params = dict(params or {})
        self.engine_game = engine.get(name)
        players = int(params.get("players", self.engine_game.min_players))
        self.engine_game.check_players(players)
        self.options = _options(name, params)
        self.engine_game.new(players, 0, self.options)  # refuses a bad combination (e.g. first_player >= players)
        self.table = table(name)
        self.players = players
        self._rng = random.Random(int(params.get("rng_seed", 0)))
        info = pyspiel.GameInfo(
            num_distinct_actions=self.table.size,
            max_chance_outcomes=0,
            num_players=players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=self.engine_game.max_game_length * self.table.max_tokens,
        )
        super().__init__(_game_type(name), info, params)

    def new_initial_state(self) -> SkyboardState:
        return SkyboardState(self)

    def next_seed(self) -> int:
        """The engine seed of the next new initial state, from this game object's RNG."""
        return self._rng.randrange(2**31)

    def deal(self, seed: int) -> Cursor:
        return Cursor(self.engine_game.new(self.players, seed, self.options))

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        public = iig_obs_type is not None and iig_obs_type.private_info == pyspiel.PrivateInfoType.NONE
        return Observer(public)


class SkyboardState(pyspiel.State):
    """An engine state behind OpenSpiel's State API. Its attributes (`seed`, `cursor`) are what Clone
    deep-copies and Serialize pickles. The seed is drawn at once, the engine state dealt from it only when
    first used: OpenSpiel's Clone and Deserialize start from a new initial state and overwrite both, and
    dealing a game nobody uses would cost time at every Clone. (So a Clone also draws a seed: a loaded game
    replays the same deals for the same sequence of calls.)"""

    def __init__(self, game: SkyboardGame):
        super().__init__(game)
        self.seed = game.next_seed()
        self.cursor: Cursor | None = None

    @property
    def _cursor(self) -> Cursor:
        if self.cursor is None:
            self.cursor = self.get_game().deal(self.seed)
        return self.cursor

    def engine_state(self) -> engine.State:
        """The engine state (for tests and tools; changing it bypasses OpenSpiel's history)."""
        return self._cursor.state

    def current_player(self) -> int:
        seat = self._cursor.seat()
        return pyspiel.PlayerId.TERMINAL if seat is None else seat

    def _legal_actions(self, player: int) -> list[int]:
        return self._cursor.legal_tokens() if player == self._cursor.seat() else []

    def _apply_action(self, action: int) -> None:
        self._cursor.step(action)

    def _action_to_string(self, player: int, action: int) -> str:
        return f"seat {player}: {self._cursor.describe_token(action)}"

    def is_terminal(self) -> bool:
        return self._cursor.seat() is None

    def returns(self) -> list[float]:
        state = self._cursor.state
        if not state.is_over():
            return [0.0] * state.num_players
        return rank_returns(state.scores(), state.winners())

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> SkyboardState:
        """A state `player_id` cannot tell from this one: the engine's determinisation for that seat, seeded
        by the sampler. A pending partial decision of another seat is invisible to `player_id`, so it is
        dropped (that seat decides afresh in the sample). The sample's OpenSpiel history is empty: it was never
        played from an initial state, and its engine state holds everything it is."""
        seed = int(probability_sampler() * 2**53)
        cursor = self._cursor
        sample = cursor.state.determinize(player_id, random.Random(seed))
        prefix = cursor.prefix if player_id == cursor.seat() else ()
        out = self.get_game().new_initial_state()
        out.seed = seed
        out.cursor = Cursor(sample, prefix)
        return out

    def __str__(self) -> str:
        """The whole state (hidden parts and RNG included): for debugging and OpenSpiel's own tests."""
        cursor = self._cursor
        state = cursor.state
        return f"to_act={state.to_act()} scores={state.scores()} pending={cursor.pending()} digest={state.digest()}"


class Observer:
    """OpenSpiel's PyObserver: a seat's view, hashed into `tensor` (a dict of one piece) or as text."""

    def __init__(self, public: bool):
        self.public = public
        self.tensor = np.zeros(FEATURES, np.float32)
        self.dict = {"view": self.tensor}

    def set_from(self, state: SkyboardState, player: int) -> None:
        observation_tensor(state._cursor, None if self.public else player, self.tensor)

    def string_from(self, state: SkyboardState, player: int) -> str:
        return observation_text(state._cursor, None if self.public else player)


def _register(name: str) -> type[SkyboardGame]:
    """A subclass per title, registered as the game's creator (a class, as OpenSpiel's own Python games do:
    registering a closure makes the interpreter abort at exit, freeing it after the GIL is gone)."""

    def __init__(self: SkyboardGame, params: dict[str, Any] | None = None) -> None:
        SkyboardGame.__init__(self, name, params)

    cls = type(f"SkyboardGame_{name}", (SkyboardGame,), {"__init__": __init__})
    pyspiel.register_game(_game_type(name), cls)
    return cls


GAMES = {name: _register(name) for name in engine.games()}
