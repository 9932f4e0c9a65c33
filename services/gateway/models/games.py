"""Request and response shapes of the REST contract (what /openapi.json documents)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from services.gamestate.clocks import MAX_DAYS_PER_DECISION, MAX_RESERVE_SECONDS
from services.gateway.domain import names

JsonObject = dict[str, Any]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CatalogGame(BaseModel):
    name: str
    title: str
    min_players: int
    max_players: int
    options: JsonObject


class LevelRating(BaseModel):
    """A level's rating at one table size: one Plackett-Luce fit (Bradley-Terry at 2 players) of the game at that
    player count over every stored paired ledger (`python -m research.lab.ladder_fit`), Elo scale, greedy = 0."""

    rating: float
    low: float = Field(description="Lower end of the 95% interval (Fisher information at the fit).")
    high: float = Field(description="Upper end of the 95% interval.")
    games: int = Field(description="Games of the level at that table the fit used.")


class BotLevelGame(BaseModel):
    think_seconds: float | None = Field(None, description="Expected think time of one decision on a free core.")
    cpu_seconds: float | None = Field(None, description="Worker CPU seconds of one decision (bench/bot_cost.py).")
    label: str | None = Field(None, description="What a player is told the level is called in this game (Beginner, "
                              "Casual, Strong, Expert): the label of the level it plays as.")
    offered: bool = Field(True, description="Whether the game offers this level; false: an old name that plays as "
                          "`same_as` here and keeps working (API, matchmaking, stored games).")
    rating: float | None = Field(None, description="The rating at the game's smallest table (`rating_players`): "
                                 "Plackett-Luce / Bradley-Terry on the Elo scale, greedy = 0, over every stored "
                                 "paired ledger; null: not measured.")
    rating_low: float | None = Field(None, description="Lower end of `rating`'s 95% interval.")
    rating_high: float | None = Field(None, description="Upper end of `rating`'s 95% interval.")
    rating_players: int | None = Field(None, description="The player count `rating` is for.")
    ratings: dict[str, LevelRating | None] = Field(
        default_factory=dict, description="The rating at every player count of the game (keys: the count); null: "
        "not measured at that table size.")
    same_as: str | None = Field(None, description="The level this one plays exactly as in this game, if any.")


class BotLevel(BaseModel):
    name: str
    label: str | None = Field(None, description="What a player is told the level is called (its engine id is "
                              "`name`, shown as a detail).")
    description: str
    games: dict[str, BotLevelGame]


class LadderRung(BaseModel):
    """One level a game offers at a table size, weakest first."""

    level: str = Field(description="The engine's level id (what `bots` and matchmaking take).")
    label: str = Field(description="What a player is told it is called.")
    rating: float | None = Field(description="Elo scale, greedy = 0; null: not measured at this table size.")
    low: float | None
    high: float | None
    games: int
    aliases: list[str] = Field(description="Old level names that play as this one in this game.")


class Catalog(BaseModel):
    games: list[CatalogGame]
    bot_levels: list[str] = Field(description="Every level name the API accepts, aliases included; what each game "
                                  "offers is in `ladders`.")
    bot_level_details: list[BotLevel] = Field(
        default_factory=list, description="Per level of bot_levels (same order): what it is, and per game its "
        "expected think time, CPU cost, whether it is offered and its ratings by player count.")
    ladders: dict[str, dict[str, list[LadderRung]]] = Field(
        default_factory=dict, description="Per game and player count, the levels offered there, weakest first, "
        "each with its label and its rating with a 95% interval (null: not measured).")


def ladders_of(games: list[dict], details: list[dict]) -> dict[str, dict[str, list[LadderRung]]]:
    """The catalog's `ladders`, regrouped from the level details (the service's figures, reshaped: no rules here):
    every player count of every game, each offered level with its rating there (null: not measured)."""
    out: dict[str, dict[str, list[LadderRung]]] = {}
    for game in games:
        name = game["name"]
        for players in range(game["min_players"], game["max_players"] + 1):
            rungs = out.setdefault(name, {}).setdefault(str(players), [])
            for detail in details:
                entry = detail.get("games", {}).get(name)
                if entry is None or not entry.get("offered", True):
                    continue
                rated = (entry.get("ratings") or {}).get(str(players)) or {}
                aliases = [d["name"] for d in details
                           if d.get("games", {}).get(name, {}).get("same_as") == detail["name"]]
                rungs.append(LadderRung(
                    level=detail["name"], label=entry.get("label") or detail.get("label") or detail["name"],
                    rating=rated.get("rating"), low=rated.get("low"), high=rated.get("high"),
                    games=rated.get("games", 0), aliases=aliases))
    return out


class RealtimeControl(Strict):
    """Seconds per decision plus a per-seat reserve (a "delay" clock: only the time beyond the per-decision
    seconds comes off the reserve, which never refills; the timeout fires once both are used up)."""

    kind: Literal["realtime"]
    seconds_per_decision: float = Field(gt=0, le=86_400, strict=True, description="Seconds each decision gets")
    reserve_seconds: float = Field(
        0, ge=0, le=MAX_RESERVE_SECONDS, strict=True,
        description="Each seat's reserve at the start, drawn down by the time it spends beyond seconds_per_decision",
    )


class CorrespondenceControl(Strict):
    """Days per decision, no reserve."""

    kind: Literal["correspondence"]
    days_per_decision: int = Field(ge=1, le=MAX_DAYS_PER_DECISION, strict=True, description="Days each decision gets")


TimeControl = Annotated[RealtimeControl | CorrespondenceControl, Field(discriminator="kind")]


class RealtimeControlOut(BaseModel):
    """A realtime control as games and tickets show it (the bounds are the creation's, which the service sets)."""

    kind: Literal["realtime"]
    seconds_per_decision: float
    reserve_seconds: float


class CorrespondenceControlOut(BaseModel):
    kind: Literal["correspondence"]
    days_per_decision: int


TimeControlOut = Annotated[RealtimeControlOut | CorrespondenceControlOut, Field(discriminator="kind")]


class CreateGame(Strict):
    game: str = Field(min_length=1, max_length=64)
    players: int = Field(ge=1, le=64)
    seed: int | None = Field(None, ge=0, le=2**63 - 1)
    options: JsonObject = Field(default_factory=dict)
    bots: dict[str, str] = Field(default_factory=dict, description='seat (as a string) -> bot level')
    turn_seconds: float | None = Field(
        None, ge=0.001, le=86_400, strict=True,
        description="Shorthand for a realtime time_control of this many seconds per decision and no reserve "
        "(not with time_control). None and no time_control: no clock",
    )
    time_control: TimeControl | None = Field(
        None, description="How long each seat may think; on a timeout the game's default decision is played, and "
        "after ABANDON_AFTER_TIMEOUTS (3) in a row a human seat is abandoned to the zombie bot. None: no clock "
        "(unless turn_seconds)",
    )
    account_seats: list[int] | None = Field(
        None, max_length=64, description="The human seats the creating account holds: its API key acts for them "
        "(with `?seat=N` where it holds several), and the game is on its account stream and in "
        "`GET /v1/players/me/games`. None: the first human seat alone (the other seats' tokens are for guests, and "
        "the key reads and acts for none of them); every human seat: hot-seat, one account playing them all; []: "
        "none (each seat is played with its token alone).",
    )


class Seat(BaseModel):
    seat: int
    token: str | None
    bot: str | None


class CreatedGame(BaseModel):
    game_id: str
    seats: list[Seat]


class SeatOut(BaseModel):
    seat: int
    player_id: str | None = Field(
        description="The player seated there (matched and challenge games), else the owner who created the game for "
        "a human seat, else None"
    )
    kind: Literal["human", "bot"] = Field(
        description="Who plays the seat: human, a person's account (also once the seat resigned or was abandoned); "
        "bot, a program: the platform's bot (`bot_level`) or a bot account (`player_id`)")
    status: Literal["active", "resigned", "abandoned"]
    bot_level: str | None = Field(description="The bot playing the seat (a bot seat, or the zombie of a "
                                  "resigned or abandoned one); None while a player plays it")


class GameOut(BaseModel):
    game_id: str
    game: str
    version: int
    status: Literal["active", "finished", "aborted"] = Field(
        description="aborted: ended by an abort or for inactivity before anyone decided; unrated, no winners"
    )
    to_act: list[int]
    seat: int | None
    view: JsonObject
    scores: list[int] | None
    winners: list[int] | None
    places: list[int] | None = Field(
        description="Each seat's place once the game is finished (1 = first; equal places are shared), else "
        "null: the rules' order, tie-breaks included, with the seats that resigned or were abandoned last, tied "
        "among themselves. The game's one result with `winners` (the seats placed first that stayed)")
    players: int
    bots: dict[str, str]
    turn_seconds: float | None = Field(None, description="Seconds per decision, or None when the game has no clock")
    deadlines: dict[str, int] = Field(
        default_factory=dict, description="seat (as a string) -> unix ms when its running turn clock expires"
    )
    time_control: TimeControlOut | None = Field(None, description="The game's time control; None: no clock")
    reserves: dict[str, int] = Field(
        default_factory=dict, description="seat (as a string) -> ms of reserve left at the start of its current "
        "decision (realtime controls with a reserve); its deadline already includes it"
    )
    seats: list[SeatOut] = Field(default_factory=list, description="Who holds and who plays each seat")
    take_back: bool = Field(False, description="True when your seat may take back its last decision now "
                            "(`POST /v1/games/{id}/take-back`); always false for a spectator")


class Version(BaseModel):
    version: int = Field(description="The version the call created")


class NewToken(BaseModel):
    token: str = Field(description="The seat's new token; the one presented is revoked")


class LegalActions(BaseModel):
    version: int
    seat: int
    actions: list[JsonObject]


class SubmitAction(Strict):
    action: JsonObject
    expected_version: int = Field(ge=0, le=2**62)


class TakeBack(Strict):
    expected_version: int = Field(ge=0, le=2**62, description="The game's current version (compare-and-set)")


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
    status: Literal["active", "finished", "aborted"] = Field(
        description="finished: scores and winners are the result; aborted: no result (both null)"
    )
    scores: list[int] | None = Field(description="null for an aborted game")
    winners: list[int] | None = Field(description="null unless the game is finished")


class NewPlayer(Strict):
    name: str = Field(
        min_length=1, max_length=names.MAX_LENGTH,
        description="Shown to other players; stored NFKC-normalised with outer white space stripped. Control, "
        "format and separator characters (Unicode Cc, Cf, Cs, Co, Cn, Zl, Zp: bidi overrides and isolates, "
        "zero-width characters...) are refused (422).",
    )
    kind: Literal["human", "bot"] = Field(
        "human", description="`bot` for a program's account: flagged as a bot wherever the player is shown, its "
        "API keys start with `sbk_bot_` and have their own rate-limit budget (`GATEWAY_RATE_LIMIT_BOT_TOKEN`).",
    )

    @field_validator("name")
    @classmethod
    def _clean(cls, value: str) -> str:
        return names.clean_name(value)


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
    time_control: TimeControl | None = Field(
        None, description="The game's time control; None: the matchmaking default (realtime, "
        "GATEWAY_MM_SECONDS_PER_DECISION 60 s per decision + GATEWAY_MM_RESERVE_SECONDS 300 s reserve). Only "
        "tickets with the same control are matched together",
    )


class TicketCreated(BaseModel):
    ticket_id: str
    status: Literal["queued"] = "queued"


class TicketOut(BaseModel):
    ticket_id: str
    status: Literal["queued", "matched", "expired", "cancelled", "refused"] = Field(
        ..., description="`refused`: the ticket's game could not be created because its player is over a quota "
        "(active games or bot seats: every seat of a matched game is charged to its player); `note` says which. "
        "It is never queued again.")
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
    time_control: TimeControlOut | None = Field(None, description="The time control the ticket asked for")
    note: str | None = Field(None, description="Why a matched ticket shows no `token`; why a ticket was refused.")


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


class GameSummaryOut(BaseModel):
    """One line of GET /v1/games: enough to pick a game to watch or join its stream."""

    game_id: str
    game: str
    players: int
    status: Literal["active", "finished", "aborted"]
    version: int
    to_act: list[int]
    bots: dict[str, str] = Field(description="Seat (as a string) -> bot level of each bot seat")
    created_ms: int
    updated_ms: int
    time_control: TimeControlOut | None = Field(None, description="The game's time control; None: no clock")


class GameList(BaseModel):
    games: list[GameSummaryOut] = Field(description="Newest first")
