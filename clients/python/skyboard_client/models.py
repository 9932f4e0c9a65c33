"""What the API answers, as pydantic models (field for field the schemas of `/openapi.json`).

Every model keeps fields it does not know (`extra="allow"`), so a newer server never breaks an older client.
Actions, views and game events are plain dicts: their shape is the game's (see the docs' game pages and the
`<Game>Action` schemas of the OpenAPI document).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Action = dict[str, Any]


class Model(BaseModel):
    model_config = ConfigDict(extra="allow")


class RealtimeControl(Model):
    """`seconds_per_decision` for free each decision, plus a per-seat `reserve_seconds` bank that never refills."""

    kind: Literal["realtime"] = "realtime"
    seconds_per_decision: float
    reserve_seconds: float = 0


class CorrespondenceControl(Model):
    """Whole days per decision (1-30), no reserve."""

    kind: Literal["correspondence"] = "correspondence"
    days_per_decision: int


TimeControl = RealtimeControl | CorrespondenceControl


def time_control_from(data: Any) -> TimeControl | None:
    if not isinstance(data, dict):
        return None
    if data.get("kind") == "correspondence":
        return CorrespondenceControl.model_validate(data)
    return RealtimeControl.model_validate(data)


class CatalogGame(Model):
    name: str
    title: str
    min_players: int
    max_players: int
    options: dict[str, Any]


class Catalog(Model):
    games: list[CatalogGame]
    bot_levels: list[str]
    #: per level: description, expected think time and CPU per decision per game, rating (see GET /v1/catalog)
    bot_level_details: list[dict[str, Any]] = []


class PlayerCreated(Model):
    player_id: str
    api_key: str


class Rating(Model):
    mu: float
    sigma: float
    ordinal: float
    games: int


class Player(Model):
    player_id: str
    name: str
    kind: Literal["human", "bot"] = "human"
    ratings: dict[str, Rating] = Field(default_factory=dict)


class Me(Player):
    created_ms: int | None = None


class KeyRotated(Model):
    api_key: str
    previous_key_valid_s: int


class KeysRevoked(Model):
    revoked: int


class Seat(Model):
    seat: int
    token: str | None
    bot: str | None


class CreatedGame(Model):
    game_id: str
    seats: list[Seat]

    def token(self, seat: int) -> str:
        """The token of a human seat (shown only in this answer: keep it)."""
        for s in self.seats:
            if s.seat == seat and s.token:
                return s.token
        raise KeyError(f"seat {seat} has no token (a bot seat?)")


class SeatInfo(Model):
    seat: int
    player_id: str | None
    kind: Literal["human", "bot"]
    status: Literal["active", "resigned", "abandoned"]
    bot_level: str | None


class GameSummary(Model):
    """A line of GET /v1/games."""

    game_id: str
    game: str
    players: int
    status: str
    version: int
    to_act: list[int]
    bots: dict[str, str]
    created_ms: int
    updated_ms: int
    time_control: RealtimeControl | CorrespondenceControl | None = Field(None, discriminator="kind")


class Game(Model):
    game_id: str
    game: str
    version: int
    status: Literal["active", "finished", "aborted"]
    to_act: list[int]
    seat: int | None
    view: dict[str, Any]
    scores: list[int] | None
    winners: list[int] | None
    players: int
    bots: dict[str, str]
    turn_seconds: float | None = None
    deadlines: dict[str, int] = Field(default_factory=dict)
    time_control: RealtimeControl | CorrespondenceControl | None = Field(None, discriminator="kind")
    reserves: dict[str, int] = Field(default_factory=dict)
    seats: list[SeatInfo] = Field(default_factory=list)


class LegalActions(Model):
    version: int
    seat: int
    actions: list[Action]


class Submitted(Model):
    version: int
    events: list[dict[str, Any]]
    status: Literal["active", "finished"]
    to_act: list[int]
    replayed: bool


class Version(Model):
    version: int


class NewToken(Model):
    token: str


class GameLog(Model):
    game_id: str
    game: str
    players: int
    options: dict[str, Any]
    seed: int
    actions: list[dict[str, Any]]
    version: int
    final_digest: str
    status: Literal["active", "finished", "aborted"] = "finished"
    scores: list[int] | None
    winners: list[int] | None


class TicketCreated(Model):
    ticket_id: str
    status: Literal["queued"] = "queued"


class Ticket(Model):
    ticket_id: str
    status: Literal["queued", "matched", "expired", "cancelled", "refused"]  # refused: over a quota (`note`)
    game: str
    players: int
    game_id: str | None = None
    seat: int | None = None
    token: str | None = None
    token_delivered: bool = False
    time_control: RealtimeControl | CorrespondenceControl | None = Field(None, discriminator="kind")
    note: str | None = None


class Challenge(Model):
    challenge_id: str
    status: Literal["pending", "accepted", "declined", "cancelled", "expired"]
    challenger: str
    to: str
    game: str
    players: int
    options: dict[str, Any]
    time_control: RealtimeControl | CorrespondenceControl | None = Field(None, discriminator="kind")
    rated: bool
    created_ms: int
    expires_at: int
    game_id: str | None = None
    direction: Literal["incoming", "outgoing"] | None = None
    reason: str | None = None  # why a declined challenge was declined


class ChallengeCreated(Model):
    challenge_id: str
    status: Literal["pending"] = "pending"
    expires_at: int


class ChallengeAccepted(Model):
    game_id: str
    seat: int
    token: str


class MyGame(Model):
    """A game of the account: active (my turn first), or ended in the last day (`status` finished or aborted)."""

    game_id: str
    game: str
    seat: int
    seats: list[int] = Field(default_factory=list)  # every seat the account holds (several in a hot-seat game)
    status: Literal["active", "finished", "aborted"] = "active"
    my_turn: bool
    version: int
    to_act: list[int]
    deadline: int | None = None
    since_ms: int
    scores: list[int] | None = None
    winners: list[int] | None = None


class LeaderboardEntry(Model):
    rank: int
    player_id: str
    name: str | None
    kind: Literal["human", "bot"] = "human"
    mu: float
    sigma: float
    ordinal: float
    games: int


class Leaderboard(Model):
    game: str
    entries: list[LeaderboardEntry]


class HistoryGame(Model):
    game_id: str
    game: str
    status: str
    players: int
    seats: list[int]
    owner: bool
    version: int
    scores: list[int] | None
    winners: list[int] | None
    rated: bool
    created_ms: int
    finished_ms: int
    time_control: RealtimeControl | CorrespondenceControl | None = Field(None, discriminator="kind")


class History(Model):
    player_id: str
    games: list[HistoryGame]
    next_cursor: str | None


class GameEvent(Model):
    """One event of a game's stream.

    `event` is `message` (one engine event: `data` is the event JSON with its `type` and the `version`), `state`
    (closes each version: `version`, `kind`, `actor`, `status`, `to_act`, `scores`, `winners`) or `end` (the
    game is over; same data as `state`, then the stream ends). `id` is the version.
    """

    event: str
    id: str | None
    data: dict[str, Any]

    @property
    def type(self) -> str:
        """The engine event's type for a `message` (e.g. `bid`, `timeout`), else the SSE event name."""
        return str(self.data.get("type", self.event)) if self.event == "message" else self.event

    @property
    def version(self) -> int | None:
        v = self.data.get("version")
        return int(v) if v is not None else None


class ChallengeEvent(Model):
    """`challenge`: a challenge to or from this account."""

    challenge: Challenge


class ChallengeClosedEvent(Model):
    """`challenge_closed`: a challenge of this account left `pending`."""

    challenge_id: str
    status: Literal["accepted", "declined", "cancelled", "expired"]
    reason: str | None = None  # a declined challenge's decline reason


class GameStartEvent(Model):
    """`game_start`: a game with a seat of this account began (or, `ongoing`, is under way as a new stream starts);
    the account's API key plays the seat. `token` is the seat token on the one delivery that hands it out
    (`token_delivered`), else null."""

    game_id: str
    game: str
    seat: int
    token: str | None
    token_delivered: bool
    challenge_id: str | None = None
    ticket_id: str | None = None
    note: str | None = None
    ongoing: bool = False


class YourTurnEvent(Model):
    """`your_turn`: the seat is to act at `version`; `deadline` is unix ms when its clock runs out (null: none)."""

    game_id: str
    seat: int
    version: int
    deadline: int | None


class GameEndEvent(Model):
    """`game_end`: a game with a seat of this account ended."""

    game_id: str
    seat: int
    status: Literal["finished", "aborted"]
    scores: list[int] | None
    winners: list[int] | None


AccountPayload = ChallengeEvent | ChallengeClosedEvent | GameStartEvent | YourTurnEvent | GameEndEvent
ACCOUNT_PAYLOADS: dict[str, type[AccountPayload]] = {
    "challenge": ChallengeEvent, "challenge_closed": ChallengeClosedEvent, "game_start": GameStartEvent,
    "your_turn": YourTurnEvent, "game_end": GameEndEvent,
}


class AccountEvent(Model):
    """One event of the account stream: `type` is `challenge`, `challenge_closed`, `game_start`, `your_turn` or
    `game_end`; `id` is its stream id (what `Last-Event-ID` resumes after); `data` its payload as sent, `payload`
    the same as its typed model."""

    type: str
    id: str | None
    data: dict[str, Any]

    @property
    def game_id(self) -> str | None:
        return self.data.get("game_id")

    @property
    def payload(self) -> AccountPayload | None:
        """The typed payload (`YourTurnEvent`, ...), None for an event type this SDK does not know yet."""
        cls = ACCOUNT_PAYLOADS.get(self.type)
        return cls.model_validate(self.data) if cls else None
