"""Request and response shapes of the REST contract (what /openapi.json documents)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

JsonObject = dict[str, Any]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CatalogGame(BaseModel):
    name: str
    title: str
    min_players: int
    max_players: int
    options: JsonObject


class BotLevelGame(BaseModel):
    think_seconds: float | None = Field(None, description="Expected think time of one decision on a free core.")
    cpu_seconds: float | None = Field(None, description="Worker CPU seconds of one decision (bench/bot_cost.py).")
    rating: float | None = Field(None, description="Openskill ordinal over the ladder's games; null until measured.")
    same_as: str | None = Field(None, description="The level this one plays exactly as in this game, if any.")


class BotLevel(BaseModel):
    name: str
    description: str
    games: dict[str, BotLevelGame]


class Catalog(BaseModel):
    games: list[CatalogGame]
    bot_levels: list[str]
    bot_level_details: list[BotLevel] = Field(
        default_factory=list, description="Per level of bot_levels (same order): what it is, and per game its "
        "expected think time, CPU cost and rating.")


class CreateGame(Strict):
    game: str = Field(min_length=1, max_length=64)
    players: int = Field(ge=1, le=64)
    seed: int | None = Field(None, ge=0, le=2**63 - 1)
    options: JsonObject = Field(default_factory=dict)
    bots: dict[str, str] = Field(default_factory=dict, description='seat (as a string) -> bot level')
    turn_seconds: float | None = Field(
        None, ge=0.001, le=86_400, strict=True,
        description="Seconds per decision (turn clock); an expired decision gets the game's default. None: no clock",
    )


class Seat(BaseModel):
    seat: int
    token: str | None
    bot: str | None


class CreatedGame(BaseModel):
    game_id: str
    seats: list[Seat]


class GameOut(BaseModel):
    game_id: str
    game: str
    version: int
    status: Literal["active", "finished"]
    to_act: list[int]
    seat: int | None
    view: JsonObject
    scores: list[int] | None
    winners: list[int] | None
    players: int
    bots: dict[str, str]
    turn_seconds: float | None = Field(None, description="Seconds per decision, or None when the game has no clock")
    deadlines: dict[str, int] = Field(
        default_factory=dict, description="seat (as a string) -> unix ms when its running turn clock expires"
    )


class LegalActions(BaseModel):
    version: int
    seat: int
    actions: list[JsonObject]


class SubmitAction(Strict):
    action: JsonObject
    expected_version: int = Field(ge=0, le=2**62)


class Submitted(BaseModel):
    version: int
    events: list[JsonObject]
    status: Literal["active", "finished"]
    to_act: list[int]
    replayed: bool = Field(
        description="True when an Idempotency-Key replayed the first outcome of this same submission"
    )


class GameLog(BaseModel):
    game_id: str
    game: str
    players: int
    options: JsonObject
    seed: int
    actions: list[JsonObject]
    version: int
    final_digest: str
    scores: list[int]
    winners: list[int]


class NewPlayer(Strict):
    name: str = Field(min_length=1, max_length=40, pattern=r"^[^\x00-\x1f\x7f]+$")
    kind: Literal["human", "bot"] = Field(
        "human", description="`bot` for a program's account: flagged as a bot wherever the player is shown, its "
        "API keys start with `sbk_bot_` and have their own rate-limit budget (`GATEWAY_RATE_LIMIT_BOT_TOKEN`).",
    )


class PlayerCreated(BaseModel):
    player_id: str
    api_key: str


class RatingOut(BaseModel):
    mu: float
    sigma: float
    ordinal: float
    games: int


class PlayerOut(BaseModel):
    player_id: str
    name: str
    ratings: dict[str, RatingOut]
    kind: Literal["human", "bot"] = Field("human", description="`bot`: a program's account")


class NewTicket(Strict):
    game: str = Field(min_length=1, max_length=64)
    players: int = Field(ge=1, le=64)
    options: JsonObject = Field(default_factory=dict)
    bots_after_s: float | None = Field(None, ge=0, le=3600)
    opponents: Literal["any", "humans"] = Field(
        "any", description="`humans`: meet only human accounts, never a bot account nor a platform bot (no bot fill; "
        "`bots_after_s` is ignored). Only a human account may ask for it.",
    )


class TicketCreated(BaseModel):
    ticket_id: str
    status: Literal["queued"] = "queued"


class TicketOut(BaseModel):
    ticket_id: str
    status: Literal["queued", "matched", "expired", "cancelled"]
    game: str
    players: int
    game_id: str | None = None
    seat: int | None = None
    token: str | None = Field(
        None, description="The seat token: only in the answer to the one poll that first sees the match (it is "
        "then deleted from the server), never again: keep it.",
    )
    token_delivered: bool = Field(
        False, description="True once the seat token has been handed out: in this answer if `token` is set, "
        "else by an earlier poll.",
    )
    note: str | None = Field(None, description="Why a matched ticket shows no `token`.")


class LeaderboardEntry(BaseModel):
    rank: int
    player_id: str
    name: str | None
    kind: Literal["human", "bot"] = Field("human", description="`bot`: a program's account")
    mu: float
    sigma: float
    ordinal: float
    games: int


class Leaderboard(BaseModel):
    game: str
    entries: list[LeaderboardEntry]


class Health(BaseModel):
    status: str
    checks: dict[str, bool] = Field(default_factory=dict)
