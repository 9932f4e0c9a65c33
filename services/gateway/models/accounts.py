"""Request and response shapes of accounts, challenges and the account stream (kept apart from models.py,
which the game routes share, so the two evolve without stepping on each other)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from services.gateway.models.games import RatingOut, TimeControl, TimeControlOut


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Me(BaseModel):
    player_id: str
    name: str
    kind: Literal["human", "bot"]
    ratings: dict[str, RatingOut]
    created_ms: int | None = None


class KeyRotated(BaseModel):
    api_key: str = Field(description="The new API key, shown only here. The key it replaces keeps working for "
                                     "`GATEWAY_API_KEY_GRACE_S` (24 h by default), then stops.")
    previous_key_valid_s: int = Field(description="Seconds the replaced key keeps working.")


class KeysRevoked(BaseModel):
    revoked: int = Field(description="How many other keys of the account stopped working (current and in grace).")


class AccountDeletion(_Strict):
    confirm_name: str = Field(min_length=1, max_length=200,
                              description="The account's name (`GET /v1/players/me`), repeated: deleting an account "
                                          "cannot be undone.")


class ResignedSeat(BaseModel):
    game_id: str
    seat: int


class AccountDeleted(BaseModel):
    player_id: str = Field(description="The deleted account's id: its finished games and ratings keep it, named "
                                       "\"deleted player\".")
    resigned: list[ResignedSeat] = Field(description="The seats of active games it held, resigned (a bot plays "
                                                     "them out).")
    tickets_cancelled: int = Field(description="Its queued matchmaking tickets, cancelled.")
    challenges_closed: int = Field(description="Its pending challenges: those it sent cancelled, those it received "
                                               "declined.")


class NewChallenge(_Strict):
    to: str = Field(pattern=r"^[0-9a-f]{32}$", description="The challenged player's id")
    game: str = Field(min_length=1, max_length=64)
    players: int = Field(2, ge=2, le=64, description="Seats; beyond the challenger and the accepter, bots "
                                                     "(`GATEWAY_BOT_FILL_LEVEL`) fill them")
    options: dict[str, Any] = Field(default_factory=dict)
    time_control: TimeControl | None = Field(
        None, description="The game's time control, as on POST /v1/games (realtime with a reserve, or correspondence); "
        "None: no clock.",
    )
    rated: bool = False


class ChallengeOut(BaseModel):
    challenge_id: str
    status: Literal["pending", "accepted", "declined", "cancelled", "expired"]
    challenger: str = Field(description="player id")
    to: str = Field(description="player id")
    game: str
    players: int
    options: dict[str, Any]
    time_control: TimeControlOut | None = None
    rated: bool
    created_ms: int
    expires_at: int = Field(description="unix ms when a pending challenge expires")
    game_id: str | None = Field(None, description="Once accepted")
    direction: Literal["incoming", "outgoing"] | None = Field(None, description="Seen from the caller")
    reason: DeclineReason | None = Field(None, description="Why a declined challenge was declined")


#: Why a challenge is declined (Lichess's decline reasons): kept with the challenge and delivered
#: (docs/decisions/accounts.md).
DeclineReason = Literal["generic", "later", "too_fast", "too_slow", "time_control", "rated", "casual", "variant",
                        "no_bot", "only_bot"]


class Decline(_Strict):
    reason: DeclineReason = Field("generic", description="Why: shown to the challenger in `GET /v1/challenges/{id}` "
                                  "and the `challenge_closed` event of its account stream")


class ChallengeCreated(BaseModel):
    challenge_id: str
    status: Literal["pending"] = "pending"
    expires_at: int = Field(description="unix ms")


class ChallengeAccepted(BaseModel):
    game_id: str
    seat: int
    token: str = Field(description="The accepter's seat token, shown only here")


class ChallengeList(BaseModel):
    challenges: list[ChallengeOut]


class MyGame(BaseModel):
    game_id: str
    game: str
    seat: int = Field(description="My seat (where I hold several: the first one to act, else the lowest)")
    seats: list[int] = Field(description="Every seat I hold in this game (several in a hot-seat game)")
    status: Literal["active", "finished", "aborted"]
    my_turn: bool = Field(description="One of my seats has a decision to make")
    version: int
    to_act: list[int]
    deadline: int | None = Field(None, description="unix ms when my running turn clock expires")
    since_ms: int
    scores: list[int] | None = Field(None, description="Once finished; null while active and for an aborted game")
    winners: list[int] | None = Field(None, description="Once finished; null while active and for an aborted game")


#: A paged listing's `next_cursor` (the history's, my games'): one shape for both
NEXT_CURSOR = "Pass as `cursor` for the next page; null on the last one"


class MyGames(BaseModel):
    games: list[MyGame] = Field(description="One page: the games I still play first, newest first; then the games "
                                            "that ended in the last 24 hours, the last ended first")
    next_cursor: str | None = Field(description=NEXT_CURSOR)


class HistoryGame(BaseModel):
    game_id: str
    game: str
    status: str = Field(description="finished or aborted")
    players: int
    seats: list[int] = Field(description="The seats this player held (where recorded)")
    owner: bool = Field(description="This player created the game")
    version: int
    scores: list[int] | None = Field(description="null for an aborted game (it has no result)")
    winners: list[int] | None = Field(description="null for an aborted game")
    rated: bool
    created_ms: int
    finished_ms: int
    time_control: TimeControlOut | None = Field(
        None, description="The game's time control, as GET /v1/games/{id} shows it; None: no clock (or a game "
        "archived before time controls were kept)"
    )


class History(BaseModel):
    player_id: str
    games: list[HistoryGame]
    next_cursor: str | None = Field(description=NEXT_CURSOR)
