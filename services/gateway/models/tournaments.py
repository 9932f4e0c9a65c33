"""Request and response shapes of tournaments (services/tournaments: Swiss events and arenas at tables of 2-5)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from services.gateway.models.games import TimeControl, TimeControlOut


class NewTournament(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=100)
    game: str = Field(min_length=1, max_length=64)
    kind: Literal["swiss", "arena"] = Field(
        "swiss", description="The format: `swiss`, a fixed number of `rounds`; `arena`, a time window (`starts_at` "
        "to `ends_at`) in which a player who finishes a game is queued again at once and seated with others "
        "waiting, nearest in the standings, scored by places with a streak bonus.")
    players: int = Field(ge=2, le=5, description="Seats per table: every round seats its players at tables of this "
                                                 "many (the title must take it).")
    rounds: int | None = Field(None, ge=1, le=30, description="A Swiss event's rounds (required for `swiss`).")
    ends_at: int | None = Field(None, ge=0, description="An arena's end (ms since the epoch; required for `arena`, "
                                                        "1 second to 24 hours after `starts_at`): no table is seated "
                                                        "after it, and a game ending after it does not count.")
    streak_after: int = Field(2, ge=1, le=10, description="An arena: after this many games won in a row (first "
                                                          "place), a player's points are multiplied by "
                                                          "`streak_factor` until a game it does not win.")
    streak_factor: int = Field(2, ge=1, le=4, description="An arena: the streak's multiplier (1: no streak bonus).")
    bots_after_s: float | None = Field(
        None, ge=0, le=3600, description="An arena: a player who has waited this long is seated with bots "
        "(`GATEWAY_BOT_FILL_LEVEL`) in the empty seats; default: never, a player waits for a full table.")
    byes: Literal["bots", "score"] = Field(
        "bots", description="The remainder when the entrants do not fill whole tables: `bots`, one table with bots "
        "(`GATEWAY_BOT_FILL_LEVEL`) in the empty seats; `score`, they sit the round out and score `bye_points`.")
    points: list[int] | None = Field(
        None, min_length=2, max_length=5, description="Match points by place, one per seat, first to last (whole "
        "numbers 0-100, never more for a worse place); default: N-1 for first down to 0. Seats that share a place "
        "share the points of the places they cover.")
    bye_points: float | None = Field(
        None, ge=0, le=100, description="A bye's points (`byes: score`), in sixtieths of a point at most; default: "
        "the mean of the table's points.")
    options: dict[str, Any] = Field(default_factory=dict, description="The title's options for every table.")
    time_control: TimeControl | None = Field(None, description="Every table's time control, as on POST /v1/games.")
    rated: bool = False
    bots_allowed: bool = Field(False, description="Whether bot accounts may enter.")
    max_players: int = Field(64, ge=2, description="The most entrants (at most `GATEWAY_TOURNAMENT_MAX_PLAYERS`).")
    starts_at: int = Field(ge=0, description="When round 1 is paired (ms since the epoch); entries close then to "
                                             "players who withdrew, new players may still enter between rounds.")


class TournamentOut(BaseModel):
    tournament_id: str
    kind: Literal["swiss", "arena"]
    name: str
    game: str
    organiser: str
    status: Literal["open", "running", "finished"]
    players: int = Field(description="Seats per table.")
    rounds: int = Field(description="A Swiss event's rounds (0 for an arena).")
    round: int = Field(description="The last round paired (0 before the start; always 0 for an arena).")
    byes: Literal["bots", "score"] = Field(description="Swiss: the remainder's treatment. An arena: `bots` if a "
                                                       "player who waited `bots_after_s` is seated with bots, "
                                                       "else `score` (an arena scores no byes: a player waits).")
    points: list[int]
    bye_points: float
    ends_at: int | None = Field(None, description="An arena's end (null for Swiss).")
    streak_after: int | None = Field(None, description="An arena's streak: wins in a row before the bonus.")
    streak_factor: int | None = Field(None, description="An arena's streak multiplier.")
    bots_after_s: float | None = Field(None, description="An arena: the wait before a table is filled with bots.")
    options: dict[str, Any]
    time_control: TimeControlOut | None
    rated: bool
    bots_allowed: bool
    max_players: int
    entrants: int = Field(description="Players entered and not withdrawn.")
    created_ms: int
    starts_at: int


class TournamentCreated(BaseModel):
    tournament_id: str


class TournamentList(BaseModel):
    tournaments: list[TournamentOut]


class TableOut(BaseModel):
    number: int
    players: list[str | None] = Field(description="Player ids in the table's order (not the game's seats); null "
                                                  "for a bot seat.")
    game_id: str | None = Field(description="Its game, once created.")
    places: list[int] | None = Field(description="Each player's place once the game ended (table order); null "
                                               "before, and for an arena's game that was aborted (it counts as no "
                                               "game: no points, streaks unchanged).")
    ended: bool = Field(False, description="Its game has ended: with `places`, played to its end; without, "
                                          "aborted.")


class RoundOut(BaseModel):
    round: int
    tables: list[TableOut]
    byes: list[str]


class StandingOut(BaseModel):
    rank: int
    player_id: str
    points: float
    buchholz: float = Field(description="The sum of the points of every opponent met (the first tie-break).")
    game_score: int = Field(description="The sum of the player's game scores (the second tie-break).")
    games: int
    byes: int
    withdrawn: bool


class TournamentStandings(BaseModel):
    tournament_id: str
    status: Literal["open", "running", "finished"]
    round: int
    standings: list[StandingOut]
    rounds: list[RoundOut] = Field(description="Every round paired so far, with its tables and results (an arena: "
                                               "one round 0 holding every table in the order seated).")


class Entry(BaseModel):
    tournament_id: str
    player_id: str
    entered: bool = Field(description="False when nothing changed (already entered, or not entered to withdraw).")
    resigned: list[str] = Field(default_factory=list, description="A withdrawal: the games of yours still running, "
                                                                  "resigned and played out by the zombie bot.")
