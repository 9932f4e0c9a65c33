"""What the API answers, as pydantic models (field for field the schemas of `/openapi.json`).

Most are generated from the OpenAPI document (`records.py`, `make sdk-generate`) and re-exported here. Those written
here carry behaviour of their own (`CreatedGame.token`, the stream events' properties), or are laxer than their
schema on purpose (a `str` where the schema lists values, a default where it requires a field), or type a field
with the views and actions.

Every model keeps fields it does not know (`extra="allow"`), so a newer server never breaks an older client.
Views and game events are typed for type checkers by each title's declared shapes (`views.py`, generated from the
OpenAPI document: narrow a view by its `game`, an event by its `type`); at run time they stay the dicts the server
sent, so a field a newer server adds is kept. Actions are plain dicts (the `<Game>Action` schemas of the OpenAPI
document).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from skyboard_client import records

# re-exported: the SDK's public names, whether written by hand (_base.py) or generated (records.py)
from skyboard_client._base import (  # noqa: F401
    Action,
    CorrespondenceControl,
    GameEventData,
    Model,
    RealtimeControl,
    TimeControl,
    View,
    time_control_from,
)
from skyboard_client.records import (  # noqa: F401
    AccountDeleted,
    CatalogGame,
    ChallengeAccepted,
    ChallengeCreated,
    Game,
    GameEndEvent,
    GameSummary,
    History,
    HistoryGame,
    KeyRotated,
    KeysRevoked,
    Leaderboard,
    LeaderboardEntry,
    NewToken,
    PlayerCreated,
    Rating,
    Redelivery,
    ResignedSeat,
    Seat,
    SeatInfo,
    SecretRotated,
    Standing,
    Standings,
    Ticket,
    TicketCreated,
    TournamentCreated,
    TournamentEntry,
    TournamentRound,
    TournamentTable,
    Version,
    WebhookDeleted,
    WebhookDisabled,
    WebhookDisabledEvent,
    YourTurnEvent,
)


class Catalog(Model):
    games: list[CatalogGame]
    bot_levels: list[str]
    #: per level: description, expected think time and CPU per decision per game, rating (see GET /v1/catalog)
    bot_level_details: list[dict[str, Any]] = []
    #: per game, then per player count ("2", "3", ...): the levels offered there, weakest first, each with its label
    #: and its rating with a 95% interval (null where not measured)
    ladders: dict[str, dict[str, list[dict[str, Any]]]] = {}


class Player(Model):
    player_id: str
    name: str
    kind: Literal["human", "bot"] = "human"
    ratings: dict[str, Rating] = Field(default_factory=dict)


class Me(Player):
    created_ms: int | None = None


class Tournament(Model):
    """A Swiss tournament (rounds seated at tables of `players` by standings) or an arena (a time window, players
    re-seated as their games end, a streak bonus), scored by places."""

    tournament_id: str
    kind: Literal["swiss", "arena"]
    name: str
    game: str
    organiser: str
    status: Literal["open", "running", "finished"]
    players: int
    rounds: int
    round: int
    byes: Literal["bots", "score"]
    points: list[int]
    bye_points: float
    options: dict[str, Any]
    time_control: RealtimeControl | CorrespondenceControl | None = Field(None, discriminator="kind")
    rated: bool
    bots_allowed: bool
    max_players: int
    entrants: int
    created_ms: int
    starts_at: int
    ends_at: int | None = None
    streak_after: int | None = None
    streak_factor: int | None = None
    bots_after_s: float | None = None


class TournamentEvent(Model):
    """One event of a tournament's feed: `type` is `pairing`, `standings` or `end`; `id` its stream id; `data` its
    payload as sent."""

    type: str
    id: str | None
    data: dict[str, Any]


class CreatedGame(records.CreatedGame):
    def token(self, seat: int) -> str:
        """The token of a human seat (shown only in this answer: keep it)."""
        for s in self.seats:
            if s.seat == seat and s.token:
                return s.token
        raise KeyError(f"seat {seat} has no token (a bot seat?)")


class LegalActions(Model):
    version: int
    seat: int
    actions: list[Action]


class Submitted(Model):
    version: int
    events: list[GameEventData]
    status: Literal["active", "finished"]
    to_act: list[int]
    replayed: bool


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


class MyGame(Model):
    """A game of the account: one it plays (`my_turn` where one of its seats must decide), or one ended in the last
    day (`status` finished or aborted)."""

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


class MyGames(Model):
    """A page of the account's games: those it plays first, newest first, then those ended in the last day."""

    games: list[MyGame]
    next_cursor: str | None = None  # pass as `cursor` for the next page; None on the last one


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
    tournament_id: str | None = None  # a tournament's table: its event, round and table number
    round: int | None = None
    table: int | None = None


AccountPayload = (ChallengeEvent | ChallengeClosedEvent | GameStartEvent | YourTurnEvent | GameEndEvent
                  | WebhookDisabledEvent)
ACCOUNT_PAYLOADS: dict[str, type[AccountPayload]] = {
    "challenge": ChallengeEvent, "challenge_closed": ChallengeClosedEvent, "game_start": GameStartEvent,
    "your_turn": YourTurnEvent, "game_end": GameEndEvent, "webhook_disabled": WebhookDisabledEvent,
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


# ------------------------------------------------------------------------------------------------ webhooks

#: The event types a webhook may take.
WebhookEventType = Literal["your_turn", "game_end", "challenge", "match_found"]


class Webhook(Model):
    """A registered webhook (never its secret)."""

    webhook_id: str
    url: str
    events: list[str]
    description: str
    created_ms: int
    enabled: bool
    disabled: WebhookDisabled | None = None


class WebhookCreated(Webhook):
    """A new webhook and its signing `secret`, shown only in this answer: keep it to verify deliveries."""

    secret: str


class WebhookDelivery(Model):
    """One attempt of one delivery, as the log keeps it."""

    delivery_id: str
    type: str
    event: str
    event_ms: int
    attempt: int
    outcome: Literal["delivered", "retry", "gave_up"]
    status_code: int | None
    latency_ms: float | None
    at_ms: int
    next_attempt_ms: int | None
    error: str | None
    manual: bool


class DeliveryLog(Model):
    deliveries: list[WebhookDelivery]


class WebhookMessage(Model):
    """A verified webhook delivery's body: `type` (your_turn, game_end, challenge, match_found), `timestamp` (the
    event's, ISO 8601) and `data` (what the account stream carries for it); `id` is its `webhook-id`."""

    id: str
    type: str
    timestamp: str
    data: dict[str, Any]

    @property
    def payload(self) -> AccountPayload | None:
        """`data` as its typed model (`match_found` is a `GameStartEvent`)."""
        cls = GameStartEvent if self.type == "match_found" else ACCOUNT_PAYLOADS.get(self.type)
        return cls.model_validate(self.data) if cls else None
