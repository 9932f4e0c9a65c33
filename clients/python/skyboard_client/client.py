"""`Client`: the blocking client of the Skyboard REST API."""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Literal, TypeVar

import httpx
from httpx_sse import SSEError, connect_sse

from skyboard_client import _core as api
from skyboard_client import models as m
from skyboard_client._core import (
    DEFAULT_URL,
    AccountResume,
    Call,
    GameResume,
    Resume,
    RetryPolicy,
    StreamGone,
    TournamentResume,
    error_of,
)
from skyboard_client.errors import SkyboardError, StreamClosed

T = TypeVar("T")
Json = Mapping[str, Any]


class Client:
    """Blocking client. `api_key` is the player's key (`create_player` sets it when none was given); seat tokens
    are passed per call. Retries follow `retry` (see `RetryPolicy`); streams resume by themselves.

    ```python
    with Client("http://127.0.0.1:8000") as sky:
        sky.create_player("my-bot", kind="bot")
        ticket = sky.wait_for_match(sky.seek("blueskies", 2).ticket_id)
    ```
    """

    def __init__(self, base_url: str = DEFAULT_URL, api_key: str | None = None, *, timeout: float = 20.0,
                 retry: RetryPolicy | None = None, transport: httpx.BaseTransport | None = None,
                 stream_timeout: float = 60.0):
        self.api_key = api_key
        self.retry = retry or RetryPolicy()
        self.stream_timeout = stream_timeout
        self._http = httpx.Client(base_url=base_url, timeout=timeout, transport=transport,
                                  headers={"User-Agent": "skyboard-client-python/0.1"})

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    # ------------------------------------------------------------------------------------------ transport

    def _headers(self, call: Call[Any]) -> dict[str, str]:
        headers = dict(call.headers)
        secret = self.api_key if call.api_key else call.bearer
        if call.api_key and not secret:
            raise SkyboardError(401, "unauthenticated", "this call needs an API key: create_player() or api_key=")
        if secret:
            headers["Authorization"] = f"Bearer {secret}"
        return headers

    def _run(self, call: Call[T]) -> T:
        headers = self._headers(call)
        attempt = 0
        while True:
            try:
                r = self._http.request(call.method, call.path, json=call.json, params=call.params, headers=headers)
            except httpx.TransportError:
                wait = self.retry.delay(attempt) if call.safe else None
                if wait is None:
                    raise
            else:
                if r.status_code < 400:
                    return call.parse(r.json())
                error = error_of(r)
                wait = self.retry.retry_error(attempt, error)
                if wait is None:
                    raise error
            time.sleep(wait)
            attempt += 1

    def _follow(self, path: str, bearer: str | None, resume: Resume) -> Iterator[Any]:
        failures = 0
        while True:
            headers = {**resume.headers(), **({"Authorization": f"Bearer {bearer}"} if bearer else {})}
            wait: float | None = None
            try:
                timeout = httpx.Timeout(self._http.timeout.connect, read=self.stream_timeout)
                with connect_sse(self._http, "GET", path, headers=headers, timeout=timeout) as source:
                    if source.response.status_code >= 400:
                        source.response.read()
                        error = error_of(source.response)
                        wait = self.retry.retry_error(failures, error)
                        if wait is None:
                            raise error
                    else:
                        for sse in source.iter_sse():
                            item = resume.accept(sse.event, sse.data, sse.id or None)
                            if item is not None:
                                failures = 0
                                yield item
                                if isinstance(resume, GameResume | TournamentResume) and resume.ended:
                                    return
            except (httpx.TransportError, StreamGone, SSEError):
                pass
            if wait is None:
                wait = self.retry.delay(failures)
            if wait is None:
                raise StreamClosed(0, "stream_closed", f"{path}: the stream could not be resumed")
            time.sleep(wait)
            failures += 1

    # ------------------------------------------------------------------------------------------ accounts

    def catalog(self) -> m.Catalog:
        """The games served (name, title, player counts, options) and the bot levels."""
        return self._run(api.catalog())

    def create_player(self, name: str, kind: Literal["human", "bot"] = "human") -> m.PlayerCreated:
        """Create an account; its API key becomes this client's when it has none yet."""
        created = self._run(api.create_player(name, kind))
        if self.api_key is None:
            self.api_key = created.api_key
        return created

    def me(self) -> m.Me:
        """The API key's account: name, kind, ratings per game."""
        return self._run(api.me())

    def player(self, player_id: str) -> m.Player:
        return self._run(api.player(player_id))

    def rotate_key(self) -> m.KeyRotated:
        """A new API key, adopted by this client; the old one keeps working for `previous_key_valid_s`."""
        rotated = self._run(api.rotate_key())
        self.api_key = rotated.api_key
        return rotated

    def revoke_other_keys(self) -> m.KeysRevoked:
        """Stop every other key of the account now (this client's key must be the current one)."""
        return self._run(api.revoke_other_keys())

    def delete_account(self, confirm_name: str) -> m.AccountDeleted:
        """Delete the account (this client's key must be its current one; `confirm_name`: the account's name). Every
        key of it stops, its streams end, its seats in active games are resigned. It cannot be undone."""
        deleted = self._run(api.delete_account(confirm_name))
        self.api_key = None
        return deleted

    def my_games(self, *, cursor: str | None = None, limit: int = 20) -> m.MyGames:
        """A page of my games (those I play first, then those ended in the last day; `next_cursor` pages on)."""
        return self._run(api.my_games(cursor, limit))

    def history(self, player_id: str, *, game: str | None = None, status: str | None = None,
                cursor: str | None = None, limit: int = 20) -> m.History:
        """A player's archived games, newest first (`next_cursor` pages on)."""
        return self._run(api.history(player_id, game, status, cursor, limit))

    def leaderboard(self, game: str, *, limit: int = 50, offset: int = 0) -> m.Leaderboard:
        return self._run(api.leaderboard(game, limit, offset))

    # ------------------------------------------------------------------------------------------ games

    def create_game(self, game: str, players: int, *, seed: int | None = None, options: Json | None = None,
                    bots: Mapping[int, str] | None = None, time_control: m.TimeControl | Json | None = None,
                    turn_seconds: float | None = None,
                    account_seats: list[int] | None = None) -> m.CreatedGame:
        """A game owned by this account; `bots` maps seats to bot levels. The account holds the first human seat
        (or those of `account_seats`: every human seat for hot-seat): this client's API key plays them (pass no
        token); the other seats' tokens in the answer are for the guests who play them."""
        return self._run(api.create_game(game, players, seed, options, bots, time_control, turn_seconds,
                                       account_seats))

    def games(self, *, status: str | None = None, game: str | None = None, limit: int = 50) -> list[m.GameSummary]:
        """Games by status ("active", "finished", "aborted") and title, newest first (to pick one to watch)."""
        return self._run(api.games(status, game, limit))

    def game(self, game_id: str, token: str | None = None, *, account: bool = False,
             seat: int | None = None) -> m.Game:
        """The game as `token`'s seat sees it (None: as a spectator; `account=True`: as the API key's seat)."""
        return self._run(api.game(game_id, token, account, seat))

    def legal_actions(self, game_id: str, token: str | None = None, *, seat: int | None = None) -> m.LegalActions:
        """The seat's legal actions now (empty when it need not act) and the version they belong to. Every seat call
        takes a seat token, or None: this client's API key, acting for its account's seat in the game (`seat`
        chooses where the account holds several)."""
        return self._run(api.legal_actions(game_id, token, seat))

    def submit(self, game_id: str, token: str | None, action: Json, expected_version: int, *,
               idempotency_key: str | None = None, seat: int | None = None) -> m.Submitted:
        """Play `action` at `expected_version`. An `Idempotency-Key` is made when none is given and kept across
        this call's retries, so a retried submission is applied once (`replayed` tells). Raises `StaleVersion`
        (with `current_version`) when the game moved on, `IllegalAction` (with `rule`) when the rules refuse."""
        return self._run(api.submit(game_id, token, action, expected_version, idempotency_key, seat))

    def take_back(self, game_id: str, token: str | None, expected_version: int, *,
                  idempotency_key: str | None = None, seat: int | None = None) -> m.Submitted:
        """Take back the seat's last decision (when `game(...).take_back` says it may): the game goes back to the
        state before it, as a new version. Raises `Conflict` (`take_back_not_allowed`) when nothing may be taken
        back, `StaleVersion` when the game moved on; keyed and retried like `submit`."""
        return self._run(api.take_back(game_id, token, expected_version, idempotency_key, seat))

    def resign(self, game_id: str, token: str | None = None, *, seat: int | None = None) -> m.Version:
        """Resign the seat: a bot plays it out and the token is revoked; a rated game ranks you last."""
        return self._run(api.resign(game_id, token, seat))

    def abort(self, game_id: str, token: str | None = None, *, seat: int | None = None) -> m.Version:
        """End the game unrated, allowed until every human seat has decided once (else `Conflict`)."""
        return self._run(api.abort(game_id, token, seat))

    def rotate_token(self, game_id: str, token: str | None = None, *, seat: int | None = None) -> str:
        """A new seat token; the old one is revoked and its streams end."""
        return self._run(api.rotate_token(game_id, token, seat)).token

    def log(self, game_id: str) -> m.GameLog:
        """Seed and action log of an ended game."""
        return self._run(api.log(game_id))

    def events(self, game_id: str, token: str | None = None, *, after: int | None = None, account: bool = False,
               seat: int | None = None) -> Iterator[m.GameEvent]:
        """Follow the game's events (redacted for `token`'s seat; None: a spectator's) from the version after
        `after` (None: from creation) until its `end` event, reconnecting with `Last-Event-ID` when the
        connection drops; raises `Unauthenticated` once the token is revoked. `account=True`: as the API key's
        seat. Asked after the last version of an ended game, it yields that `end` event and stops."""
        bearer = self.api_key if account and token is None else token
        path = f"/v1/games/{game_id}/events" + (f"?seat={seat}" if seat is not None else "")
        return self._follow(path, bearer, GameResume(after))

    def account_events(self, last_event_id: str | None = None, *, replay: bool = False) -> Iterator[m.AccountEvent]:
        """Follow the account stream (`challenge`, `challenge_closed`, `game_start`, `your_turn`, `game_end`)
        forever, resuming after `last_event_id` and on every reconnect. A new stream starts now: it opens with a
        `game_start` (`ongoing` true) per active game of the account; `replay=True` sends the kept history
        first instead."""
        if not self.api_key:
            raise SkyboardError(401, "unauthenticated", "the account stream needs an API key")
        path = "/v1/players/me/events" + ("?replay=true" if replay else "")
        return self._follow(path, self.api_key, AccountResume(last_event_id))

    # ------------------------------------------------------------------------------------------ matchmaking

    def seek(self, game: str, players: int, *, time_control: m.TimeControl | Json | None = None,
             opponents: Literal["any", "humans"] = "any", options: Json | None = None,
             bots_after_s: float | None = None) -> m.TicketCreated:
        """Queue for a rated game. Poll the ticket (`poll_ticket`, `wait_for_match`) at least every 30 s."""
        return self._run(api.seek(game, players, time_control, opponents, options, bots_after_s))

    def poll_ticket(self, ticket_id: str) -> m.Ticket:
        """The ticket (keeps it queued); the first poll that sees it matched holds the seat `token`, once."""
        return self._run(api.poll_ticket(ticket_id))

    def cancel_ticket(self, ticket_id: str) -> m.Ticket:
        return self._run(api.cancel_ticket(ticket_id))

    def wait_for_match(self, ticket_id: str, *, poll_s: float = 1.0, timeout: float | None = None) -> m.Ticket:
        """Poll until the ticket is matched; returns it with its seat token. Raises `SkyboardError` if it expires,
        is cancelled or `timeout` passes."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            ticket = self.poll_ticket(ticket_id)
            if ticket.status == "matched":
                return ticket
            if ticket.status != "queued":
                why = f": {ticket.note}" if ticket.note else ""
                raise SkyboardError(0, f"ticket_{ticket.status}", f"ticket {ticket_id} is {ticket.status}{why}")
            if deadline is not None and time.monotonic() > deadline:
                raise SkyboardError(0, "timeout", f"ticket {ticket_id} not matched within {timeout} s")
            time.sleep(poll_s)

    # ------------------------------------------------------------------------------------------ challenges

    def challenge(self, to: str, game: str, players: int = 2, *, options: Json | None = None,
                  time_control: m.TimeControl | Json | None = None, rated: bool = False) -> m.ChallengeCreated:
        """Invite player `to`; it sees a `challenge` event and accepts or declines."""
        return self._run(api.challenge(to, game, players, options, time_control, rated))

    def challenges(self, status: str | None = None) -> list[m.Challenge]:
        return self._run(api.challenges(status))

    def get_challenge(self, challenge_id: str) -> m.Challenge:
        return self._run(api.get_challenge(challenge_id))

    def accept(self, challenge_id: str) -> m.ChallengeAccepted:
        """Accept a challenge sent to me: the game is created and my seat token is in the answer."""
        return self._run(api.accept(challenge_id))

    def decline(self, challenge_id: str, reason: str | None = None) -> m.Challenge:
        """Decline a challenge sent to me; `reason` (`generic`, `later`, `too_fast`, ...) reaches the challenger."""
        return self._run(api.decline(challenge_id, reason))

    def cancel(self, challenge_id: str) -> m.Challenge:
        """Cancel a challenge I sent."""
        return self._run(api.cancel(challenge_id))

    def create_tournament(self, name: str, game: str, players: int, rounds: int | None, starts_at: int,
                          **settings: Any) -> m.TournamentCreated:
        """Organise a Swiss tournament (`kind="arena"` and `ends_at` in `settings`, rounds None: an arena, as
        `create_arena`); `settings`: byes, points, bye_points, options, time_control, rated,
        bots_allowed, max_players (POST /v1/tournaments)."""
        return self._run(api.create_tournament(name, game, players, rounds, starts_at, settings))

    def create_arena(self, name: str, game: str, players: int, starts_at: int, ends_at: int,
                     **settings: Any) -> m.TournamentCreated:
        """Organise an arena from `starts_at` to `ends_at` (ms); `settings`: streak_after, streak_factor,
        bots_after_s, points, options, time_control, rated, bots_allowed, max_players (POST /v1/tournaments)."""
        return self._run(api.create_tournament(name, game, players, None, starts_at,
                                                  {"kind": "arena", "ends_at": ends_at, **settings}))

    def tournaments(self, status: str | None = None, limit: int = 50) -> list[m.Tournament]:
        return self._run(api.tournaments(status, limit))

    def tournament(self, tournament_id: str) -> m.Tournament:
        return self._run(api.tournament(tournament_id))

    def standings(self, tournament_id: str) -> m.Standings:
        """The standings and every round so far, with each table's game and places."""
        return self._run(api.standings(tournament_id))

    def join_tournament(self, tournament_id: str) -> m.TournamentEntry:
        """Enter; the account's games of each round arrive as `game_start` events with the `tournament_id`."""
        return self._run(api.join_tournament(tournament_id))

    def tournament_events(self, tournament_id: str, last_event_id: str | None = None) -> Iterator[m.TournamentEvent]:
        """Follow a tournament's feed (`pairing`, `standings`, `end`) from its first kept entry, or after
        `last_event_id`, resuming on every reconnect; it ends after `end`."""
        return self._follow(f"/v1/tournaments/{tournament_id}/events", None, TournamentResume(last_event_id))

    def withdraw_tournament(self, tournament_id: str) -> m.TournamentEntry:
        """Withdraw: no further tables; games still running are resigned (the zombie bot plays them out)."""
        return self._run(api.withdraw_tournament(tournament_id))

    # ------------------------------------------------------------------ webhooks (docs/webhooks.md)

    def create_webhook(self, url: str, events: Sequence[str], *, description: str = "") -> m.WebhookCreated:
        """Register an HTTPS endpoint for `events` (your_turn, game_end, challenge, match_found); the answer's
        `secret` is shown only here: verify each delivery with it (`skyboard_client.webhooks.verify`)."""
        return self._run(api.create_webhook(url, events, description))

    def webhooks(self) -> list[m.Webhook]:
        """The account's webhooks (never their secrets)."""
        return self._run(api.webhooks())

    def webhook(self, webhook_id: str) -> m.Webhook:
        return self._run(api.webhook(webhook_id))

    def delete_webhook(self, webhook_id: str) -> m.WebhookDeleted:
        """Delete a webhook, with its queued deliveries and its log."""
        return self._run(api.delete_webhook(webhook_id))

    def rotate_webhook_secret(self, webhook_id: str) -> m.SecretRotated:
        """A new signing secret (shown only here); the previous one also signs for `previous_secret_valid_s`."""
        return self._run(api.rotate_webhook_secret(webhook_id))

    def enable_webhook(self, webhook_id: str) -> m.Webhook:
        """Enable a webhook that was disabled because its deliveries kept failing."""
        return self._run(api.enable_webhook(webhook_id))

    def webhook_deliveries(self, webhook_id: str) -> list[m.WebhookDelivery]:
        """The webhook's last 100 delivery attempts, newest first."""
        return self._run(api.webhook_deliveries(webhook_id))

    def redeliver(self, webhook_id: str, delivery_id: str) -> m.Redelivery:
        """Deliver a logged event again (same `webhook-id`)."""
        return self._run(api.redeliver(webhook_id, delivery_id))
