"""What the sync and async clients share: the calls (method, path, body, credential, how to read the answer),
the retry policy and the bookkeeping that resumes streams. No I/O here."""

from __future__ import annotations

import email.utils
import json
import random
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import httpx
from pydantic import BaseModel

from skyboard_client import models as m
from skyboard_client.errors import SkyboardError, error_from_body, error_from_event

T = TypeVar("T")

DEFAULT_URL = "http://127.0.0.1:8000"

#: (method, path) of every public REST operation -> the method of `Client` and `AsyncClient` that calls it.
OPERATIONS = {
    ("get", "/v1/catalog"): "catalog", ("post", "/v1/games"): "create_game", ("get", "/v1/games"): "games",
    ("get", "/v1/games/{game_id}"): "game",
    ("get", "/v1/games/{game_id}/actions"): "legal_actions", ("post", "/v1/games/{game_id}/actions"): "submit",
    ("post", "/v1/games/{game_id}/resign"): "resign", ("post", "/v1/games/{game_id}/abort"): "abort",
    ("post", "/v1/games/{game_id}/take-back"): "take_back",
    ("post", "/v1/games/{game_id}/token"): "rotate_token", ("get", "/v1/games/{game_id}/log"): "log",
    ("get", "/v1/games/{game_id}/events"): "events", ("post", "/v1/players"): "create_player",
    ("get", "/v1/players/me"): "me", ("post", "/v1/players/me/keys"): "rotate_key",
    ("post", "/v1/players/me/keys/revoke-others"): "revoke_other_keys", ("delete", "/v1/players/me"): "delete_account",
    ("get", "/v1/players/me/games"): "my_games", ("get", "/v1/players/me/events"): "account_events",
    ("get", "/v1/players/{player_id}"): "player", ("get", "/v1/players/{player_id}/games"): "history",
    ("post", "/v1/matchmaking/tickets"): "seek", ("get", "/v1/matchmaking/tickets/{ticket_id}"): "poll_ticket",
    ("delete", "/v1/matchmaking/tickets/{ticket_id}"): "cancel_ticket",
    ("get", "/v1/leaderboard/{game}"): "leaderboard",
    ("post", "/v1/challenges"): "challenge", ("get", "/v1/challenges"): "challenges",
    ("get", "/v1/challenges/{challenge_id}"): "get_challenge",
    ("post", "/v1/challenges/{challenge_id}/accept"): "accept",
    ("post", "/v1/challenges/{challenge_id}/decline"): "decline", ("delete", "/v1/challenges/{challenge_id}"): "cancel",
    ("post", "/v1/tournaments"): "create_tournament", ("get", "/v1/tournaments"): "tournaments",
    ("get", "/v1/tournaments/{tournament_id}"): "tournament",
    ("get", "/v1/tournaments/{tournament_id}/standings"): "standings",
    ("post", "/v1/tournaments/{tournament_id}/join"): "join_tournament",
    ("post", "/v1/tournaments/{tournament_id}/withdraw"): "withdraw_tournament",
    ("get", "/v1/tournaments/{tournament_id}/events"): "tournament_events",
    ("post", "/v1/players/me/webhooks"): "create_webhook", ("get", "/v1/players/me/webhooks"): "webhooks",
    ("get", "/v1/players/me/webhooks/{webhook_id}"): "webhook",
    ("delete", "/v1/players/me/webhooks/{webhook_id}"): "delete_webhook",
    ("post", "/v1/players/me/webhooks/{webhook_id}/rotate-secret"): "rotate_webhook_secret",
    ("post", "/v1/players/me/webhooks/{webhook_id}/enable"): "enable_webhook",
    ("get", "/v1/players/me/webhooks/{webhook_id}/deliveries"): "webhook_deliveries",
    ("post", "/v1/players/me/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver"): "redeliver",
}


@dataclass(frozen=True)
class RetryPolicy:
    """When a call is tried again.

    A 429 `rate_limited` or a 503 is retried after the `Retry-After` the server sent (or an exponential back-off
    from `backoff` seconds when it sent none), at most `attempts` tries in all; a wait longer than `max_wait` is
    not made (the error is raised at once). A 429 other than `rate_limited` (`quota_exceeded`, `too_many_accounts`,
    `too_many_challenges`) is never retried. A connection that fails is
    retried only where that is safe: reads, and submissions (their `Idempotency-Key` replays the first outcome).
    Streams reconnect with the same back-off, resuming after the last event received.
    """

    attempts: int = 6
    backoff: float = 0.5
    max_wait: float = 60.0

    def delay(self, attempt: int, retry_after: float | None = None) -> float | None:
        """Seconds to wait before try `attempt + 1` (attempt counts from 0), or None to give up."""
        if attempt + 1 >= self.attempts:
            return None
        if retry_after is not None:
            wait = retry_after + random.uniform(0, min(0.1, retry_after / 10 + 0.01))  # never earlier than asked
        else:
            wait = self.backoff * 2**attempt * random.uniform(0.8, 1.2)
        return None if wait > self.max_wait else wait

    def retry_error(self, attempt: int, error: SkyboardError) -> float | None:
        """The wait before retrying a refused call, or None when it must be raised."""
        if error.status not in (429, 503) or (error.status == 429 and error.code != "rate_limited"):
            return None  # a 429 other than the rate limit is a bound (a quota, too many accounts or challenges)
        return self.delay(attempt, error.retry_after)


def retry_after_s(headers: Mapping[str, str]) -> float | None:
    """`Retry-After` in seconds (delta-seconds or an HTTP date), None when absent or unreadable."""
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def error_of(response: httpx.Response) -> SkyboardError:
    try:
        body = response.json()
    except ValueError:
        body = response.text
    return error_from_body(response.status_code, body, retry_after_s(response.headers))


@dataclass
class Call(Generic[T]):
    """One API call: what to send and how to read a successful answer."""

    method: str
    path: str
    parse: Callable[[Any], T]
    json: Any = None
    params: dict[str, Any] | None = None
    bearer: str | None = None
    api_key: bool = False  # send the client's API key
    headers: dict[str, str] = field(default_factory=dict)
    safe: bool = False  # may be sent again after a connection failure


def _model(cls: type[T]) -> Callable[[Any], T]:
    return cls.model_validate  # type: ignore[attr-defined]


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(exclude_none=True)
    return value


def _drop_none(d: dict[str, Any]) -> dict[str, Any]:
    return {k: _plain(v) for k, v in d.items() if v is not None}


# ------------------------------------------------------------------------------------------------ the calls


def catalog() -> Call[m.Catalog]:
    return Call("GET", "/v1/catalog", _model(m.Catalog), safe=True)


def create_player(name: str, kind: str) -> Call[m.PlayerCreated]:
    return Call("POST", "/v1/players", _model(m.PlayerCreated), json={"name": name, "kind": kind})


def me() -> Call[m.Me]:
    return Call("GET", "/v1/players/me", _model(m.Me), api_key=True, safe=True)


def player(player_id: str) -> Call[m.Player]:
    return Call("GET", f"/v1/players/{player_id}", _model(m.Player), safe=True)


def rotate_key() -> Call[m.KeyRotated]:
    return Call("POST", "/v1/players/me/keys", _model(m.KeyRotated), api_key=True)


def revoke_other_keys() -> Call[m.KeysRevoked]:
    return Call("POST", "/v1/players/me/keys/revoke-others", _model(m.KeysRevoked), api_key=True)


def delete_account(confirm_name: str) -> Call[m.AccountDeleted]:
    return Call("DELETE", "/v1/players/me", _model(m.AccountDeleted), json={"confirm_name": confirm_name},
                api_key=True)


def create_webhook(url: str, events: Sequence[str], description: str) -> Call[m.WebhookCreated]:
    return Call("POST", "/v1/players/me/webhooks", _model(m.WebhookCreated), api_key=True,
                json={"url": url, "events": list(events), "description": description})


def webhooks() -> Call[list[m.Webhook]]:
    return Call("GET", "/v1/players/me/webhooks", lambda b: [m.Webhook.model_validate(h) for h in b["webhooks"]],
                api_key=True, safe=True)


def webhook(webhook_id: str) -> Call[m.Webhook]:
    return Call("GET", f"/v1/players/me/webhooks/{webhook_id}", _model(m.Webhook), api_key=True, safe=True)


def delete_webhook(webhook_id: str) -> Call[m.WebhookDeleted]:
    return Call("DELETE", f"/v1/players/me/webhooks/{webhook_id}", _model(m.WebhookDeleted), api_key=True)


def rotate_webhook_secret(webhook_id: str) -> Call[m.SecretRotated]:
    return Call("POST", f"/v1/players/me/webhooks/{webhook_id}/rotate-secret", _model(m.SecretRotated),
                api_key=True)


def enable_webhook(webhook_id: str) -> Call[m.Webhook]:
    return Call("POST", f"/v1/players/me/webhooks/{webhook_id}/enable", _model(m.Webhook), api_key=True)


def webhook_deliveries(webhook_id: str) -> Call[list[m.WebhookDelivery]]:
    return Call("GET", f"/v1/players/me/webhooks/{webhook_id}/deliveries",
                lambda b: [m.WebhookDelivery.model_validate(d) for d in b["deliveries"]], api_key=True, safe=True)


def redeliver(webhook_id: str, delivery_id: str) -> Call[m.Redelivery]:
    return Call("POST", f"/v1/players/me/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver",
                _model(m.Redelivery), api_key=True)


def my_games(cursor: str | None, limit: int) -> Call[m.MyGames]:
    params = _drop_none({"cursor": cursor, "limit": limit})
    return Call("GET", "/v1/players/me/games", _model(m.MyGames), params=params, api_key=True, safe=True)


def history(player_id: str, game: str | None, status: str | None, cursor: str | None, limit: int) -> Call[m.History]:
    params = _drop_none({"game": game, "status": status, "cursor": cursor, "limit": limit})
    return Call("GET", f"/v1/players/{player_id}/games", _model(m.History), params=params, safe=True)


def leaderboard(game: str, limit: int, offset: int) -> Call[m.Leaderboard]:
    return Call("GET", f"/v1/leaderboard/{game}", _model(m.Leaderboard), params={"limit": limit, "offset": offset},
                safe=True)


def create_game(game: str, players: int, seed: int | None, options: Mapping[str, Any] | None,
                bots: Mapping[int, str] | None, time_control: Any,
                turn_seconds: float | None, account_seats: list[int] | None = None) -> Call[m.CreatedGame]:
    body = _drop_none({"game": game, "players": players, "seed": seed, "options": dict(options or {}),
                       "bots": {str(k): v for k, v in (bots or {}).items()}, "time_control": time_control,
                       "turn_seconds": turn_seconds, "account_seats": account_seats})
    return Call("POST", "/v1/games", _model(m.CreatedGame), json=body, api_key=True)


def games(status: str | None, game: str | None, limit: int) -> Call[list[m.GameSummary]]:
    params = _drop_none({"status": status, "game": game, "limit": limit})
    return Call("GET", "/v1/games", lambda b: [m.GameSummary.model_validate(g) for g in b["games"]], params=params,
                safe=True)


def _seat(seat: int | None) -> dict[str, Any] | None:
    return {"seat": seat} if seat is not None else None


def game(game_id: str, token: str | None, account: bool = False, seat: int | None = None) -> Call[m.Game]:
    """With `account` (and no token): as the API key's account seat (a spectator's view if it holds none)."""
    return Call("GET", f"/v1/games/{game_id}", _model(m.Game), bearer=token, api_key=account and token is None,
                params=_seat(seat), safe=True)


# The seat calls take a seat token, or None: the client's API key, which acts for the account's seat in the game
# (`seat` chooses where the account holds several, a hot-seat game).

def legal_actions(game_id: str, token: str | None, seat: int | None = None) -> Call[m.LegalActions]:
    return Call("GET", f"/v1/games/{game_id}/actions", _model(m.LegalActions), bearer=token, api_key=token is None,
                params=_seat(seat), safe=True)


def submit(game_id: str, token: str | None, action: Mapping[str, Any], expected_version: int,
           idempotency_key: str | None, seat: int | None = None) -> Call[m.Submitted]:
    key = idempotency_key or f"sdk-{uuid.uuid4().hex}"  # one key for this submission and all its retries
    return Call("POST", f"/v1/games/{game_id}/actions", _model(m.Submitted), bearer=token, api_key=token is None,
                json={"action": dict(action), "expected_version": expected_version}, params=_seat(seat),
                headers={"Idempotency-Key": key}, safe=True)


def take_back(game_id: str, token: str | None, expected_version: int, idempotency_key: str | None,
              seat: int | None = None) -> Call[m.Submitted]:
    key = idempotency_key or f"sdk-{uuid.uuid4().hex}"  # one key for this take-back and all its retries
    return Call("POST", f"/v1/games/{game_id}/take-back", _model(m.Submitted), bearer=token, api_key=token is None,
                json={"expected_version": expected_version}, params=_seat(seat), headers={"Idempotency-Key": key},
                safe=True)


def resign(game_id: str, token: str | None, seat: int | None = None) -> Call[m.Version]:
    return Call("POST", f"/v1/games/{game_id}/resign", _model(m.Version), bearer=token, api_key=token is None,
                params=_seat(seat))


def abort(game_id: str, token: str | None, seat: int | None = None) -> Call[m.Version]:
    return Call("POST", f"/v1/games/{game_id}/abort", _model(m.Version), bearer=token, api_key=token is None,
                params=_seat(seat))


def rotate_token(game_id: str, token: str | None, seat: int | None = None) -> Call[m.NewToken]:
    return Call("POST", f"/v1/games/{game_id}/token", _model(m.NewToken), bearer=token, api_key=token is None,
                params=_seat(seat))


def log(game_id: str) -> Call[m.GameLog]:
    return Call("GET", f"/v1/games/{game_id}/log", _model(m.GameLog), safe=True)


def seek(game: str, players: int, time_control: Any, opponents: str, options: Mapping[str, Any] | None,
         bots_after_s: float | None) -> Call[m.TicketCreated]:
    body = _drop_none({"game": game, "players": players, "options": dict(options or {}), "opponents": opponents,
                       "time_control": time_control, "bots_after_s": bots_after_s})
    return Call("POST", "/v1/matchmaking/tickets", _model(m.TicketCreated), json=body, api_key=True)


def poll_ticket(ticket_id: str) -> Call[m.Ticket]:
    return Call("GET", f"/v1/matchmaking/tickets/{ticket_id}", _model(m.Ticket), api_key=True, safe=True)


def cancel_ticket(ticket_id: str) -> Call[m.Ticket]:
    return Call("DELETE", f"/v1/matchmaking/tickets/{ticket_id}", _model(m.Ticket), api_key=True)


def challenge(to: str, game: str, players: int, options: Mapping[str, Any] | None, time_control: Any,
              rated: bool) -> Call[m.ChallengeCreated]:
    body = _drop_none({"to": to, "game": game, "players": players, "options": dict(options or {}),
                       "time_control": time_control, "rated": rated})
    return Call("POST", "/v1/challenges", _model(m.ChallengeCreated), json=body, api_key=True)


def challenges(status: str | None) -> Call[list[m.Challenge]]:
    return Call("GET", "/v1/challenges", lambda b: [m.Challenge.model_validate(c) for c in b["challenges"]],
                params=_drop_none({"status": status}), api_key=True, safe=True)


def get_challenge(challenge_id: str) -> Call[m.Challenge]:
    return Call("GET", f"/v1/challenges/{challenge_id}", _model(m.Challenge), api_key=True, safe=True)


def accept(challenge_id: str) -> Call[m.ChallengeAccepted]:
    return Call("POST", f"/v1/challenges/{challenge_id}/accept", _model(m.ChallengeAccepted), api_key=True)


def decline(challenge_id: str, reason: str | None = None) -> Call[m.Challenge]:
    return Call("POST", f"/v1/challenges/{challenge_id}/decline", _model(m.Challenge), api_key=True,
                json={"reason": reason} if reason is not None else None)


def cancel(challenge_id: str) -> Call[m.Challenge]:
    return Call("DELETE", f"/v1/challenges/{challenge_id}", _model(m.Challenge), api_key=True)


def create_tournament(name: str, game: str, players: int, rounds: int | None, starts_at: int, extra: Mapping[str, Any],
                      ) -> Call[m.TournamentCreated]:
    body = _drop_none({"name": name, "game": game, "players": players, "rounds": rounds, "starts_at": starts_at,
                       **extra})
    return Call("POST", "/v1/tournaments", _model(m.TournamentCreated), json=body, api_key=True)


def tournaments(status: str | None, limit: int) -> Call[list[m.Tournament]]:
    return Call("GET", "/v1/tournaments", lambda b: [m.Tournament.model_validate(t) for t in b["tournaments"]],
                params=_drop_none({"status": status, "limit": limit}), safe=True)


def tournament(tournament_id: str) -> Call[m.Tournament]:
    return Call("GET", f"/v1/tournaments/{tournament_id}", _model(m.Tournament), safe=True)


def standings(tournament_id: str) -> Call[m.Standings]:
    return Call("GET", f"/v1/tournaments/{tournament_id}/standings", _model(m.Standings), safe=True)


def join_tournament(tournament_id: str) -> Call[m.TournamentEntry]:
    return Call("POST", f"/v1/tournaments/{tournament_id}/join", _model(m.TournamentEntry), api_key=True)


def withdraw_tournament(tournament_id: str) -> Call[m.TournamentEntry]:
    return Call("POST", f"/v1/tournaments/{tournament_id}/withdraw", _model(m.TournamentEntry), api_key=True)


# ------------------------------------------------------------------------------------------------ streams


class StreamGone(Exception):
    """The stream ended in a way that a reconnect may fix (closed early, an `unavailable` error event)."""


def raise_stream_error(event: str, data: str) -> None:
    """An `error` event ends a stream: StreamGone (a reconnect may fix it) when the platform was unavailable, else
    the error itself."""
    if event == "error":
        err = error_from_event(json.loads(data))
        if err.code == "unavailable":
            raise StreamGone(str(err))
        raise err


class GameResume:
    """Reads a game's stream across reconnects: resumes after the last version whose `state` event arrived and
    drops the events of a half-received version that the server sends again."""

    def __init__(self, after: int | None):
        self.done: int | None = after  # the last version received whole
        self.partial = 0  # `message` events of version done + 1 already yielded
        self.skip = 0  # of them still to drop after a reconnect
        self.ended = False

    def headers(self) -> dict[str, str]:
        self.skip = self.partial
        return {"Last-Event-ID": str(self.done)} if self.done is not None else {}

    def accept(self, event: str, data: str, event_id: str | None) -> m.GameEvent | None:
        """The event to yield (None: a duplicate or a keep-alive). Raises the stream's error."""
        raise_stream_error(event, data)
        if not data:
            return None
        payload = json.loads(data)
        if event == "message":
            if self.skip:
                self.skip -= 1
                return None
            self.partial += 1
        elif event == "state":
            self.done, self.partial, self.skip = int(payload["version"]), 0, 0
        elif event == "end":
            self.ended = True
        return m.GameEvent(event=event or "message", id=event_id, data=payload)


class TournamentResume:
    """Reads a tournament's feed across reconnects, resuming after the last entry id received; `ended` after the
    `end` event (the server closes the feed there)."""

    def __init__(self, last_event_id: str | None):
        self.last_event_id = last_event_id
        self.ended = False

    def headers(self) -> dict[str, str]:
        return {"Last-Event-ID": self.last_event_id} if self.last_event_id else {}

    def accept(self, event: str, data: str, event_id: str | None) -> m.TournamentEvent | None:
        raise_stream_error(event, data)
        if not data:
            return None
        if event_id:
            self.last_event_id = event_id
        self.ended = event == "end"
        return m.TournamentEvent(type=event or "message", id=event_id, data=json.loads(data))


class AccountResume:
    """Reads the account stream across reconnects, resuming after the last entry id received."""

    def __init__(self, last_event_id: str | None):
        self.last_event_id = last_event_id

    def headers(self) -> dict[str, str]:
        return {"Last-Event-ID": self.last_event_id} if self.last_event_id else {}

    def accept(self, event: str, data: str, event_id: str | None) -> m.AccountEvent | None:
        raise_stream_error(event, data)
        if not data:
            return None
        if event_id:
            self.last_event_id = event_id
        return m.AccountEvent(type=event or "message", id=event_id, data=json.loads(data))


#: what reads a stream across reconnects: a game's, the account's, or a tournament's
Resume = GameResume | AccountResume | TournamentResume
