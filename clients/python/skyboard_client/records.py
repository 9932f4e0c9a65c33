"""The SDK's response models, field for field the schemas of the OpenAPI document.

Generated from clients/openapi.json (`clients/tools/write_python_models.py`, `make sdk-generate`): do not edit.
`skyboard_client.models` re-exports them. Every model keeps the fields it does not know (`extra="allow"`), so a newer
server never breaks an older client.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from skyboard_client._base import CorrespondenceControl, Model, RealtimeControl, View


class ResignedSeat(Model):
    game_id: str
    seat: int


class AccountDeleted(Model):
    #: The deleted account's id: its finished games and ratings keep it, named "deleted player".
    player_id: str
    #: The seats of active games it held, resigned (a bot plays them out).
    resigned: list[ResignedSeat]
    #: Its queued matchmaking tickets, cancelled.
    tickets_cancelled: int
    #: Its pending challenges: those it sent cancelled, those it received declined.
    challenges_closed: int


class CatalogGame(Model):
    name: str
    title: str
    min_players: int
    max_players: int
    options: dict[str, Any]


class ChallengeAccepted(Model):
    game_id: str
    seat: int
    #: The accepter's seat token, shown only here
    token: str


class ChallengeCreated(Model):
    challenge_id: str
    status: Literal["pending"] = "pending"
    #: unix ms
    expires_at: int


class Seat(Model):
    seat: int
    token: str | None
    bot: str | None


class CreatedGame(Model):
    game_id: str
    seats: list[Seat]


class SeatInfo(Model):
    seat: int
    #: The player seated there (matched and challenge games), else the owner who created the game for a human seat,
    #: else None
    player_id: str | None
    #: Who plays the seat: human, a person's account (also once the seat resigned or was abandoned); bot, a program:
    #: the platform's bot (`bot_level`) or a bot account (`player_id`)
    kind: Literal["human", "bot"]
    status: Literal["active", "resigned", "abandoned"]
    #: The bot playing the seat (a bot seat, or the zombie of a resigned or abandoned one); None while a player plays
    #: it
    bot_level: str | None


class Game(Model):
    """A game; `game` (its title) says which view it has"""

    game_id: str
    game: str
    version: int
    #: aborted: ended by an abort or for inactivity before anyone decided; unrated, no winners
    status: Literal["active", "finished", "aborted"]
    to_act: list[int]
    seat: int | None
    #: A seat's view with its token, else a spectator's
    view: View
    scores: list[int] | None
    winners: list[int] | None
    #: Each seat's place once the game is finished (1 = first; equal places are shared), else null: the rules' order,
    #: tie-breaks included, with the seats that resigned or were abandoned last, tied among themselves. The game's one
    #: result with `winners` (the seats placed first that stayed)
    places: list[int] | None
    players: int
    bots: dict[str, str]
    #: Seconds per decision, or None when the game has no clock
    turn_seconds: float | None = None
    #: seat (as a string) -> unix ms when its running turn clock expires
    deadlines: dict[str, int] = Field(default_factory=dict)
    #: The game's time control; None: no clock
    time_control: RealtimeControl | CorrespondenceControl | None = Field(None, discriminator="kind")
    #: seat (as a string) -> ms of reserve left at the start of its current decision (realtime controls with a
    #: reserve); its deadline already includes it
    reserves: dict[str, int] = Field(default_factory=dict)
    #: Who holds and who plays each seat
    seats: list[SeatInfo] = Field(default_factory=list)
    #: True when your seat may take back its last decision now (`POST /v1/games/{id}/take-back`); always false for a
    #: spectator
    take_back: bool = False


class GameEndEvent(Model):
    game_id: str
    seat: int
    status: Literal["finished", "aborted"]
    scores: list[int] | None
    winners: list[int] | None


class GameSummary(Model):
    """One line of GET /v1/games: enough to pick a game to watch or join its stream."""

    game_id: str
    game: str
    players: int
    status: Literal["active", "finished", "aborted"]
    version: int
    to_act: list[int]
    #: Seat (as a string) -> bot level of each bot seat
    bots: dict[str, str]
    created_ms: int
    updated_ms: int
    #: The game's time control; None: no clock
    time_control: RealtimeControl | CorrespondenceControl | None = Field(None, discriminator="kind")


class HistoryGame(Model):
    game_id: str
    game: str
    #: finished or aborted
    status: str
    players: int
    #: The seats this player held (where recorded)
    seats: list[int]
    #: This player created the game
    owner: bool
    version: int
    #: null for an aborted game (it has no result)
    scores: list[int] | None
    #: null for an aborted game
    winners: list[int] | None
    rated: bool
    created_ms: int
    finished_ms: int
    #: The game's time control, as GET /v1/games/{id} shows it; None: no clock (or a game archived before time controls
    #: were kept)
    time_control: RealtimeControl | CorrespondenceControl | None = Field(None, discriminator="kind")


class History(Model):
    player_id: str
    games: list[HistoryGame]
    #: Pass as `cursor` for the next page; null on the last one
    next_cursor: str | None


class KeyRotated(Model):
    #: The new API key, shown only here. The key it replaces keeps working for `GATEWAY_API_KEY_GRACE_S` (24 h by
    #: default), then stops.
    api_key: str
    #: Seconds the replaced key keeps working.
    previous_key_valid_s: int


class KeysRevoked(Model):
    #: How many other keys of the account stopped working (current and in grace).
    revoked: int


class LeaderboardEntry(Model):
    rank: int
    player_id: str
    name: str | None
    #: `bot`: a program's account
    kind: Literal["human", "bot"] = "human"
    mu: float
    sigma: float
    ordinal: float
    games: int


class Leaderboard(Model):
    game: str
    entries: list[LeaderboardEntry]


class NewToken(Model):
    #: The seat's new token; the one presented is revoked
    token: str


class PlayerCreated(Model):
    player_id: str
    api_key: str


class Rating(Model):
    mu: float
    sigma: float
    ordinal: float
    games: int


class Redelivery(Model):
    queued: bool
    delivery_id: str


class SecretRotated(Model):
    #: The new signing secret, shown only here.
    secret: str
    #: Seconds deliveries are also signed with the previous secret (a second `v1,` signature).
    previous_secret_valid_s: int


class Standing(Model):
    rank: int
    player_id: str
    points: float
    #: The sum of the points of every opponent met (the first tie-break).
    buchholz: float
    #: The sum of the player's game scores (the second tie-break).
    game_score: int
    games: int
    byes: int
    withdrawn: bool


class TournamentTable(Model):
    number: int
    #: Player ids in the table's order (not the game's seats); null for a bot seat.
    players: list[str | None]
    #: Its game, once created.
    game_id: str | None
    #: Each player's place once the game ended (table order); null before, and for an arena's game that was aborted (it
    #: counts as no game: no points, streaks unchanged).
    places: list[int] | None
    #: Its game has ended: with `places`, played to its end; without, aborted.
    ended: bool = False


class TournamentRound(Model):
    round: int
    tables: list[TournamentTable]
    byes: list[str]


class Standings(Model):
    tournament_id: str
    status: Literal["open", "running", "finished"]
    round: int
    standings: list[Standing]
    #: Every round paired so far, with its tables and results (an arena: one round 0 holding every table in the order
    #: seated).
    rounds: list[TournamentRound]


class Ticket(Model):
    ticket_id: str
    #: `refused`: the ticket's game could not be created because its player is over a quota (active games or bot seats:
    #: every seat of a matched game is charged to its player); `note` says which. It is never queued again.
    status: Literal["queued", "matched", "expired", "cancelled", "refused"]
    game: str
    players: int
    game_id: str | None = None
    seat: int | None = None
    #: The seat token: only in the answer to the one poll that first sees the match (it is then deleted from the
    #: server), never again: keep it.
    token: str | None = None
    #: True once the seat token has been handed out: in this answer if `token` is set, else by an earlier poll.
    token_delivered: bool = False
    #: The time control the ticket asked for
    time_control: RealtimeControl | CorrespondenceControl | None = Field(None, discriminator="kind")
    #: Why a matched ticket shows no `token`; why a ticket was refused.
    note: str | None = None


class TicketCreated(Model):
    ticket_id: str
    status: Literal["queued"] = "queued"


class TournamentCreated(Model):
    tournament_id: str


class TournamentEntry(Model):
    tournament_id: str
    player_id: str
    #: False when nothing changed (already entered, or not entered to withdraw).
    entered: bool
    #: A withdrawal: the games of yours still running, resigned and played out by the zombie bot.
    resigned: list[str] = Field(default_factory=list)


class Version(Model):
    #: The version the call created
    version: int


class WebhookDeleted(Model):
    webhook_id: str
    deleted: bool


class WebhookDisabled(Model):
    reason: str
    at_ms: int
    failing_since_ms: int | None = None


class WebhookDisabledEvent(Model):
    webhook_id: str
    url: str
    reason: str
    failing_since_ms: int


class YourTurnEvent(Model):
    game_id: str
    seat: int
    version: int
    deadline: int | None
